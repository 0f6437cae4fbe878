"""Benchmarks on the lab: `make bench` (python -m bench).

Parts (BENCH_PARTS, comma separated; default all but tuning and deploy):
  raw        Kafka's perf tools: the ceiling of the clusters with MM2's clients (as many producers
             beside as many consumers as the defaults have source tasks, lz4 and no compression)
  mm2        drains with the collection's defaults (ratio to the raw ceiling)
  stock      the same drains with the reference guide's connector config (ratio defaults/stock)
  latency    the end-to-end latency curve at 10, 25, 50, 75 and 90 % of the defaults' measured
             drain rate, and its knee
  scaling    the defaults' drain with tasks.max 1, 2, 4 over 6 partitions
  validator  the PySpark validation job's records/s next to a plain consumer, at 1x and 4x the
             records, in-process and on the lab's Spark standalone cluster (BENCH_SPARK_CLUSTER=0: not)
  verification  continuous verification's cost: its increment's records/s next to a plain consumer,
             the lag from a record on the target to its proof at a steady paced load, and the CPU
             the increments use at that load (BENCH_VERIFY_RATE records/s for BENCH_VERIFY_SECONDS)
  replays    per offset.flush.interval.ms (BENCH_REPLAY_FLUSH_MS, default 10000,2000,1000; the workers
             rolled to each, the role's default last): BENCH_REPLAY_KILLS (default 3) worker SIGKILLs
             under BENCH_REPLAY_RATE records/s (default 2000) for BENCH_REPLAY_SECONDS (default 150), what
             one crash replays in seconds of the killed tasks' traffic, and the defaults' drain rate
  tuning     the defaults' levers one at a time (producer linger and batch, consumer fetch wait and
             poll timeout, compression, in-flight requests): each variant's drain, ratio to the
             defaults, and its latency at BENCH_TUNING_LOAD records/s (default: 50 % of the mm2
             part's drain rate); on request
  deploy     wall time of a no-change site.yml rerun (also with BENCH_DEPLOY=1)
Other settings: BENCH_RECORDS (records per drain, default 200000), BENCH_SIZES (record sizes in
bytes, default 1024,100), BENCH_LATENCY_SECONDS (seconds per latency point, default 30),
BENCH_LATENCY_PERCENTS (the latency points, default 10,25,50,75,90), BENCH_VERIFY_RATE (default 500),
BENCH_VERIFY_SECONDS (default 180), BENCH_VERIFY_INTERVAL (default: the role's), BENCH_OUT (default build/bench).
"""

from __future__ import annotations

import contextlib
import os
import platform
import time
from pathlib import Path
from typing import Any, Callable

from bench import flows, replays, replication, report, tuning, validator_throughput, verification_cost
from tests.integration import lab

ALL_PARTS = ("raw", "mm2", "stock", "latency", "scaling", "validator", "verification", "replays", "tuning", "deploy")
ON_REQUEST_PARTS = ("tuning", "deploy")
DEFAULT_PARTS = tuple(name for name in ALL_PARTS if name not in ON_REQUEST_PARTS)
# Without a measured MM2 rate (BENCH_PARTS without mm2) the latency curve takes this drain rate
# (its 50 % point sends 2,000 records/s).
FALLBACK_DRAIN_RATE = 4000.0


def selected_parts(environ: dict[str, str]) -> tuple[str, ...]:
    names = [name.strip() for name in environ.get("BENCH_PARTS", ",".join(DEFAULT_PARTS)).split(",") if name.strip()]
    unknown = sorted(set(names) - set(ALL_PARTS))
    if unknown:
        raise SystemExit(f"unknown BENCH_PARTS {', '.join(unknown)}; known: {', '.join(ALL_PARTS)}")
    if environ.get("BENCH_DEPLOY") == "1" and "deploy" not in names:
        names.append("deploy")
    return tuple(name for name in ALL_PARTS if name in names)


def settings_from(environ: dict[str, str]) -> replication.Settings:
    sizes = tuple(int(size) for size in environ.get("BENCH_SIZES", "1024,100").split(",") if size.strip())
    default_percents = ",".join(f"{fraction * 100:g}" for fraction in replication.LATENCY_FRACTIONS)
    fractions = tuple(sorted(float(percent) / 100 for percent in
                             environ.get("BENCH_LATENCY_PERCENTS", default_percents).split(",") if percent.strip()))
    return replication.Settings(run_id=str(int(time.time())), records=int(environ.get("BENCH_RECORDS", "200000")),
                                record_sizes=sizes, latency_seconds=int(environ.get("BENCH_LATENCY_SECONDS", "30")),
                                latency_fractions=fractions)


def replay_settings(environ: dict[str, str], settings: replication.Settings) -> replays.Settings:
    values = tuple(int(value) for value in environ.get("BENCH_REPLAY_FLUSH_MS", "10000,2000,1000").split(",") if value.strip())
    return replays.Settings(run_id=settings.run_id, flush_values_ms=values, rate=int(environ.get("BENCH_REPLAY_RATE", "2000")),
                            seconds=int(environ.get("BENCH_REPLAY_SECONDS", "150")), drain_records=settings.records,
                            kills=int(environ.get("BENCH_REPLAY_KILLS", "3")))


def machine() -> dict[str, Any]:
    memory_kib = next((int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                       if line.startswith("MemTotal:")), 0)
    cpu_model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                      if line.startswith("model name")), platform.processor())
    return {"cpus": os.cpu_count(), "memory_gib": round(memory_kib / 1024 / 1024, 1), "cpu_model": cpu_model,
            "kernel": platform.release()}


def drain_rate(results: dict[str, Any]) -> float:
    """The defaults' drain rate at the latency part's record size (the first one): the curve's 100 %."""
    first_size = str(results["settings"]["record_sizes"][0])
    figure = results.get("mm2_defaults", {}).get(first_size)
    return figure["records_per_s"] if figure else FALLBACK_DRAIN_RATE


def tuning_load(environ: dict[str, str], results: dict[str, Any]) -> float:
    """The tuning part's latency load: BENCH_TUNING_LOAD records/s, else the latency curve's 50 %."""
    if environ.get("BENCH_TUNING_LOAD"):
        return float(environ["BENCH_TUNING_LOAD"])
    return tuning.LATENCY_FRACTION * drain_rate(results)


def timed_deployment() -> dict[str, Any]:
    started = time.monotonic()
    run = lab.run_playbook("site.yml", None, "--skip-tags", "validate", timeout=3600)
    seconds = time.monotonic() - started
    if run.returncode != 0:
        raise RuntimeError(f"site.yml exited {run.returncode}: {run.output[-2000:]}")
    return {"seconds": round(seconds, 1), "changed": run.changed()}


def run_part(results: dict[str, Any], name: str, measure: Callable[[], dict[str, Any]]) -> None:
    """One part; a failure is recorded and the other parts still run."""
    started = time.monotonic()
    print(f"== {name}")
    try:
        results.update(measure())
    except Exception as error:  # pylint: disable=broad-exception-caught  # one part failing must not lose the others
        results.setdefault("errors", {})[name] = f"{error.__class__.__name__}: {str(error)[:1000]}"
        print(f"{name} failed: {error}")
    results.setdefault("part_seconds", {})[name] = round(time.monotonic() - started, 1)


def main() -> None:
    environ = dict(os.environ)
    parts = selected_parts(environ)
    settings = settings_from(environ)
    out = Path(environ.get("BENCH_OUT", str(lab.REPO_ROOT / "build" / "bench")))
    started = time.monotonic()
    results: dict[str, Any] = {
        "machine": machine(), "parts": list(parts), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "settings": {"records": settings.records, "record_sizes": list(settings.record_sizes),
                     "latency_seconds": settings.latency_seconds, "latency_fractions": list(settings.latency_fractions),
                     "run_id": settings.run_id}}
    # The defaults' drains run under the benchmark's own source alias, with the ACLs it needs
    # for as long as they run (flows.BENCH_ALIAS).
    drains = {"mm2", "latency", "scaling", "replays", "tuning"} & set(parts)
    with flows.granted(flows.defaults_flow()) if drains else contextlib.nullcontext():
        if {"raw", "mm2", "stock"} & set(parts):
            run_part(results, "throughput", lambda: replication.throughput(
                settings, "raw" in parts, "mm2" in parts, "stock" in parts))
        if "latency" in parts:
            run_part(results, "latency", lambda: {"latency": replication.latency(settings, drain_rate(results))})
        if "scaling" in parts:
            run_part(results, "scaling", lambda: {"scaling": replication.scaling(settings)})
        if "validator" in parts:
            run_part(results, "validator", lambda: {"validator": validator_throughput.measure(
                settings.records, os.environ.get("BENCH_SPARK_CLUSTER", "1") == "1")})
        if "verification" in parts:
            run_part(results, "verification", lambda: {"verification": verification_cost.measure(
                settings.records, int(environ.get("BENCH_VERIFY_RATE", "500")), int(environ.get("BENCH_VERIFY_SECONDS", "180")),
                int(environ["BENCH_VERIFY_INTERVAL"]) if environ.get("BENCH_VERIFY_INTERVAL") else None)})
        if "replays" in parts:
            run_part(results, "replays", lambda: {"replays": replays.measure(replay_settings(environ, settings))})
        if "tuning" in parts:
            run_part(results, "tuning", lambda: {"tuning": tuning.measure(settings, tuning_load(environ, results))})
        if "deploy" in parts:
            run_part(results, "deploy", lambda: {"deployment": timed_deployment()})
    results["goals"] = report.goals(results)
    results["total_seconds"] = round(time.monotonic() - started, 1)
    report.write_json(results, out / "bench.json")
    report.write_chart(results, out / "bench.png")
    print()
    print(report.render_table(results))
    for name, error in results.get("errors", {}).items():
        print(f"part {name} failed: {error}")
    print(f"\n{out / 'bench.json'}, {out / 'bench.png'}; {results['total_seconds']:.0f} s")
    if results.get("errors"):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
