"""The benchmark's results as a table, build/bench/bench.json and build/bench/bench.png.

The results are one dict (what bench.json holds); the table and the goal verdicts are computed
from it alone, so they are unit tested without a lab.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

# The goals docs/performance.md states.
GOAL_MM2_TO_CEILING = 0.8
GOAL_DEFAULTS_TO_STOCK = 1.5
GOAL_P99_MS = 1000.0
# The latency goal holds up to this fraction of the drain rate.
GOAL_P99_UP_TO_FRACTION = 0.5
GOAL_VALIDATOR_TO_CONSUMER = 0.5
GOAL_VALIDATOR_4X_TIME = 4.4
GOAL_VERIFICATION_TO_CONSUMER = 0.5
GOAL_VERIFICATION_LAG_P99_S = 60.0
# One crash replays at most this many seconds of a task's traffic with the role's default
# offset.flush.interval.ms, which costs at most 5 % of the fastest interval's drain rate.
GOAL_REPLAY_S = 2.0
GOAL_FLUSH_DRAIN_RATIO = 0.95


def rate_cell(figure: Optional[dict[str, Any]]) -> str:
    if not figure:
        return "-"
    return f"{figure['records_per_s']:,.0f} rec/s {figure['mib_per_s']:.1f} MiB/s"


def ratio_cell(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.2f}"


def percent(fraction: Optional[float]) -> str:
    return "-" if fraction is None else f"{fraction * 100:g} %"


def ceiling_cell(ceiling: Optional[dict[str, Any]]) -> str:
    """The ceiling's rate and the settings of the run it comes from."""
    if not ceiling:
        return "-"
    return (f"{rate_cell(ceiling)} ({ceiling['clients']} producers + {ceiling['clients']} consumers, "
            f"compression {ceiling['compression']}, {ceiling['limited_by']} slower)")


def latency_goal(latency: dict[str, Any]) -> Optional[dict[str, Any]]:
    """p99 within GOAL_P99_MS at every point up to GOAL_P99_UP_TO_FRACTION of the drain rate (the
    worst of them is the value); not met when one of them was cut short or not measured."""
    wanted = [fraction for fraction in latency.get("fractions", [GOAL_P99_UP_TO_FRACTION])
              if fraction <= GOAL_P99_UP_TO_FRACTION + 1e-9]
    points = [point for point in latency.get("points", []) if point["fraction"] <= GOAL_P99_UP_TO_FRACTION + 1e-9]
    if not points:
        return None
    worst = max(point["end_to_end"]["p99_ms"] for point in points)
    all_there = len(points) >= len(wanted) and all(point["complete"] for point in points)
    return {"value": worst, "goal": GOAL_P99_MS, "met": all_there and worst <= GOAL_P99_MS}


def goals(results: dict[str, Any]) -> dict[str, Any]:
    """Each goal: the measured value (the worst over record sizes) and whether it is met; None
    when the parts that measure it did not run."""
    verdicts: dict[str, Any] = {}
    to_ceiling = [figure.get("ratio_to_ceiling") for figure in results.get("mm2_defaults", {}).values()]
    to_ceiling = [value for value in to_ceiling if value is not None]
    if to_ceiling:
        verdicts["mm2_to_ceiling"] = {"value": min(to_ceiling), "goal": GOAL_MM2_TO_CEILING,
                                      "met": min(to_ceiling) >= GOAL_MM2_TO_CEILING}
    to_stock = [figure.get("ratio_defaults_to_stock") for figure in results.get("stock", {}).values()]
    to_stock = [value for value in to_stock if value is not None]
    if to_stock:
        verdicts["defaults_to_stock"] = {"value": min(to_stock), "goal": GOAL_DEFAULTS_TO_STOCK,
                                         "met": min(to_stock) >= GOAL_DEFAULTS_TO_STOCK}
    up_to_half = latency_goal(results.get("latency") or {})
    if up_to_half:
        verdicts["p99_ms_up_to_half_load"] = up_to_half
    validator = results.get("validator") or {}
    if "ratio" in validator:
        verdicts["validator_to_consumer"] = {"value": validator["ratio"], "goal": GOAL_VALIDATOR_TO_CONSUMER,
                                             "met": validator["ratio"] >= GOAL_VALIDATOR_TO_CONSUMER}
    verification = results.get("verification") or {}
    if "ratio" in verification:
        verdicts["verification_to_consumer"] = {"value": verification["ratio"], "goal": GOAL_VERIFICATION_TO_CONSUMER,
                                                "met": verification["ratio"] >= GOAL_VERIFICATION_TO_CONSUMER}
    if verification.get("lag_p99_s") is not None:
        verdicts["verification_lag_p99_s"] = {"value": verification["lag_p99_s"], "goal": GOAL_VERIFICATION_LAG_P99_S,
                                              "met": verification["lag_p99_s"] <= GOAL_VERIFICATION_LAG_P99_S}
    verdicts.update(replay_goals(results.get("replays") or {}))
    growths = [scale["time_ratio_4x"] for scale in (validator.get("scale"), (validator.get("cluster") or {}).get("scale"))
               if scale]
    if growths:
        verdicts["validator_4x_time"] = {"value": max(growths), "goal": GOAL_VALIDATOR_4X_TIME,
                                         "met": max(growths) <= GOAL_VALIDATOR_4X_TIME}
    return verdicts


def replay_goals(replays: dict[str, Any]) -> dict[str, Any]:
    """The role's default interval: its replay per crash and its drain rate against the fastest interval's."""
    default = next((point for point in replays.get("points", []) if point["role_default"]), None)
    if default is None:
        return {}
    verdicts: dict[str, Any] = {}
    if default.get("replayed_s") is not None:
        verdicts["replay_s_per_crash"] = {"value": default["replayed_s"], "goal": GOAL_REPLAY_S,
                                          "met": default["replayed_s"] <= GOAL_REPLAY_S}
    if default.get("drain_ratio_to_best") is not None:
        verdicts["default_flush_drain_ratio"] = {"value": default["drain_ratio_to_best"], "goal": GOAL_FLUSH_DRAIN_RATIO,
                                                 "met": default["drain_ratio_to_best"] >= GOAL_FLUSH_DRAIN_RATIO}
    return verdicts


def replay_rows(replays: Optional[dict[str, Any]]) -> list[list[str]]:
    """Per offset.flush.interval.ms: the copies the SIGKILLed workers replayed, per crash in seconds, and the drain rate."""
    rows = []
    for point in (replays or {}).get("points", []):
        replayed = "-" if point["replayed_s"] is None else f"{point['replayed_s']:.1f} s"
        default = ", the role's default" if point["role_default"] else ""
        rows.append([f"offset.flush.interval.ms={point['flush_ms']}{default}",
                     f"{len(point['kills'])} crashes replayed {point['extra_copies']:,} copies: {replayed} of the killed "
                     f"tasks' traffic per crash ({replays['rate']:,} rec/s offered); drain {rate_cell(point['drain'])}, "
                     f"ratio to the fastest {ratio_cell(point['drain_ratio_to_best'])}"])
    return rows


def throughput_rows(results: dict[str, Any], sizes: list[str]) -> list[list[str]]:
    raw = results.get("raw", {})
    defaults = results.get("mm2_defaults", {})
    stock = results.get("stock", {})

    def row(label: str, cell: Any) -> list[str]:
        return [label, *(cell(size) for size in sizes)]

    rows = []
    if raw:
        rows += [
            row("raw 1 producer -> target alone (lz4)", lambda size: rate_cell(raw.get(size, {}).get("producer_target"))),
            row("raw 1 consumer <- source alone", lambda size: rate_cell(raw.get(size, {}).get("consumer_source"))),
            *raw_run_rows(raw, sizes),
            row("raw ceiling (best run, slower side)", lambda size: ceiling_cell(raw.get(size, {}).get("ceiling"))),
        ]
    if defaults:
        rows += [
            row("MM2, collection defaults (after warm-up)", lambda size: rate_cell(defaults.get(size))),
            row("  MM2 / raw ceiling", lambda size: ratio_cell(defaults.get(size, {}).get("ratio_to_ceiling"))),
            *profile_rows(results, sizes),
        ]
    if stock:
        rows += [
            row("MM2, guide's stock config (after warm-up)", lambda size: rate_cell(stock.get(size))),
            row("  defaults / stock", lambda size: ratio_cell(stock.get(size, {}).get("ratio_defaults_to_stock"))),
        ]
    return rows


def raw_run_rows(raw: dict[str, Any], sizes: list[str]) -> list[list[str]]:
    """Per concurrent run (one per compression): the sum of its producers and of its consumers."""
    first = next((raw[size] for size in sizes if size in raw), {})
    rows = []
    for index, run in enumerate(first.get("runs", [])):
        label = f"raw {run['clients']} producers + {run['clients']} consumers, {run['compression']}"

        def cell(size: str, side: str, index: int = index) -> str:
            runs = raw.get(size, {}).get("runs", [])
            return rate_cell(runs[index][side]) if index < len(runs) else "-"

        rows.append([f"{label}: producers (appends after warm-up)", *(cell(size, "producer_sum") for size in sizes)])
        rows.append([f"{label}: consumers (sum after warm-up)", *(cell(size, "consumer_sum") for size in sizes)])
    return rows


# The thread groups a profile row names, in this order; the rest of a JVM's CPU is "other".
PROFILE_COLUMNS = (
    ("task threads", "connector task threads (consumer poll: fetch, TLS, decompression; send: compression)"),
    ("producer I/O", "producer network threads (TLS, requests)"),
    ("broker I/O", "broker network threads and request handlers (TLS, log appends)"),
    ("GC", "garbage collection"),
    ("JIT", "JIT compiler"),
    ("other", "other"),
)


def profile_cell(used: dict[str, float]) -> str:
    """One container's CPU per record: its JVMs' total, then each group that used any."""
    parts = [f"{short} {used[group]:.1f}" for short, group in PROFILE_COLUMNS if used.get(group)]
    return f"{used.get('jvm', 0.0):.1f} µs/record" + (f" ({', '.join(parts)})" if parts else "")


def profile_rows(results: dict[str, Any], sizes: list[str]) -> list[list[str]]:
    """Where the CPU went during the defaults' drains: per container, µs of CPU per record."""
    defaults = results.get("mm2_defaults", {})
    profiles = {size: defaults.get(size, {}).get("profile") for size in sizes}
    hosts = sorted({host for profile in profiles.values() if profile for host in profile["cpu_us_per_record"]})
    if not hosts:
        return []
    rows = [[f"  MM2 CPU on {host}",
             *(profile_cell(profiles[size]["cpu_us_per_record"].get(host, {})) if profiles[size] else "-"
               for size in sizes)] for host in hosts]

    def total(size: str) -> str:
        profile = profiles[size]
        if not profile:
            return "-"
        return (f"{profile['total_cpu_us_per_record']:.1f} µs/record, "
                f"{profile['cores_while_copying']:.2f} cores while copying")

    return [*rows, ["  MM2 CPU, all containers", *(total(size) for size in sizes)]]


def latency_rows(latency: Optional[dict[str, Any]]) -> list[list[str]]:
    """One row per point of the curve (send on the source -> append on the target), then its knee."""
    if not latency:
        return []
    rows = []
    for point in latency["points"]:
        figure = point["end_to_end"]
        cut = "" if point["complete"] else ", cut short: not all records arrived"
        rows.append([f"latency at {percent(point['fraction'])} ({point['offered_records_per_s']:,.0f} rec/s offered)",
                     f"p50 {figure['p50_ms']:,.0f} ms, p99 {figure['p99_ms']:,.0f} ms, max {figure['max_ms']:,.0f} ms; "
                     f"sent {point.get('sent_records_per_s', 0):,.0f}, delivered {point['delivered_records_per_s']:,.0f} rec/s "
                     f"(x{ratio_cell(point['delivered_to_offered'])}){cut}"])
    knee = latency.get("knee_fraction")
    rows.append([f"latency knee: highest load with p99 <= {GOAL_P99_MS / 1000:g} s",
                 f"{percent(knee)} of {latency['drain_records_per_s']:,.0f} rec/s" if knee is not None
                 else "none: p99 above the limit at the lowest point"])
    behind = latency.get("first_behind_fraction")
    rows.append(["latency: first load delivered < 0.95 x offered",
                 percent(behind) if behind is not None else "none of the points"])
    return rows


def other_rows(results: dict[str, Any]) -> list[list[str]]:
    rows: list[list[str]] = latency_rows(results.get("latency"))
    scaling = results.get("scaling")
    if scaling:
        for tasks_max, figure in scaling["tasks"].items():
            rows.append([f"MM2 defaults, tasks.max={tasks_max} ({scaling['partitions']} partitions)", rate_cell(figure)])
    rows.extend(tuning_rows(results.get("tuning")))
    deployment = results.get("deployment")
    if deployment:
        rows.append(["no-change site.yml rerun", f"{deployment['seconds']:.0f} s, changed={deployment['changed']}"])
    validator = results.get("validator")
    if validator:
        if "skipped" in validator:
            rows.append(["validator", f"skipped: {validator['skipped']}"])
        else:
            rows.append(["validator, source records/s", f"{validator['records_per_s']:,.0f} "
                         f"(plain consumer pairs/s {validator['plain_pairs_per_s']:,.0f}, "
                         f"ratio {validator['ratio']:.2f})"])
            rows.extend(validator_scale_rows(validator))
    rows.extend(verification_rows(results.get("verification")))
    rows.extend(replay_rows(results.get("replays")))
    for name, verdict in results.get("goals", {}).items():
        comparison = "<=" if name.startswith("p99") or name.endswith(("4x_time", "_p99_s", "per_crash")) else ">="
        rows.append([f"goal {name} {comparison} {verdict['goal']:g}",
                     f"{verdict['value']:g}: {'met' if verdict['met'] else 'NOT met'}"])
    return rows


def verification_rows(verification: Optional[dict[str, Any]]) -> list[list[str]]:
    """Continuous verification's cost: its backlog increment beside a plain consumer, the lag and CPU at a steady load."""
    if not verification:
        return []
    if "skipped" in verification:
        return [["continuous verification", f"skipped: {verification['skipped']}"]]
    lag = ("no sample" if verification["lag_p99_s"] is None else
           f"p50 {verification['lag_p50_s']:.0f} s, p99 {verification['lag_p99_s']:.0f} s, max {verification['lag_max_s']:.0f} s")
    return [
        ["continuous verification, increment records/s",
         f"{verification['increment_records_per_s']:,.0f} over a {verification['backlog_records']:,}-record backlog in "
         f"{verification['backlog_increment_s']:.0f} s (plain consumer pairs/s {verification['plain_pairs_per_s']:,.0f}, "
         f"ratio {verification['ratio']:.2f})"],
        [f"continuous verification lag, {verification['steady_rate']} rec/s, interval {verification['interval_s']:.0f} s",
         f"{lag} ({verification['lag_samples']} samples, {verification['increments']} increments)"],
        ["continuous verification, an increment with nothing to judge",
         f"{verification['idle_increment_s']:.0f} s, {verification['idle_increment_cpu_s']:.0f} CPU s (backlog ratio without it "
         f"{verification['ratio_after_start_up']:.2f})"],
        ["continuous verification CPU at that load",
         f"{verification['cpu_cores']:.2f} cores ({verification['cpu_seconds']:.0f} CPU s in {verification['window_s']:.0f} s)"],
    ]


def tuning_cell(figure: Optional[dict[str, Any]], failure: Optional[str]) -> str:
    """A variant's drain rate and ratio to the defaults, then its latency at the part's load."""
    if figure is None:
        return f"failed: {(failure or 'not measured')[:120]}"
    cell = f"{rate_cell(figure)}, x{ratio_cell(figure.get('ratio_to_defaults'))} of defaults"
    point = figure.get("latency")
    if point:
        latency = point["end_to_end"]
        cell += (f"; latency p50 {latency['p50_ms']:,.0f} ms, p99 {latency['p99_ms']:,.0f} ms"
                 f" (delivered x{ratio_cell(point.get('delivered_to_offered'))})")
    elif failure:
        cell += f"; latency failed: {failure[:120]}"
    return cell


def tuning_rows(tuning: Optional[dict[str, Any]]) -> list[list[str]]:
    """Each variant of the tuning part in run order: its drain, with its ratio to the mean of the
    defaults' drains, and its latency at the part's load."""
    if not tuning:
        return []
    figures, failures = tuning["figures"], tuning.get("failures", {})
    load = (f", latency at {tuning['latency_load_records_per_s']:,.0f} rec/s"
            if "latency_load_records_per_s" in tuning else "")
    return [[f"MM2 tuning, {label} ({tuning['record_size']} B{load})",
             tuning_cell(figures.get(label), failures.get(label))]
            for label in tuning["order"]]


def scale_cell(scale: dict[str, Any]) -> str:
    return (f"{scale['records_1x']:,} records {scale['seconds_1x']:.1f} s, {scale['records_4x']:,} records "
            f"{scale['seconds_4x']:.1f} s: x{scale['time_ratio_4x']:.2f}")


def validator_scale_rows(validator: dict[str, Any]) -> list[list[str]]:
    """In-process and cluster runs of the validator, and their cost at 4x the records."""
    rows = []
    if "scale" in validator:
        rows.append(["validator in-process (local[2]), 1x -> 4x", scale_cell(validator["scale"])])
    cluster = validator.get("cluster") or {}
    if "skipped" in cluster:
        rows.append(["validator on the Spark standalone cluster", f"skipped: {cluster['skipped']}"])
    elif cluster:
        rows.append(["validator on the Spark standalone cluster, records/s", f"{cluster['records_per_s']:,.0f}"])
        rows.append(["validator on the cluster, 1x -> 4x", scale_cell(cluster["scale"])])
    return rows


def format_table(rows: list[list[str]], header: Optional[list[str]] = None) -> str:
    table = ([header] if header else []) + rows
    if not table:
        return ""
    widths = [max(len(row[column]) for row in table if column < len(row)) for column in range(len(table[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in table]
    if header:
        lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def render_table(results: dict[str, Any]) -> str:
    sizes = [str(size) for size in results["settings"]["record_sizes"]]
    parts = []
    throughput = throughput_rows(results, sizes)
    if throughput:
        parts.append(format_table(throughput, ["figure", *(f"{size} B records" for size in sizes)]))
    others = other_rows(results)
    if others:
        parts.append(format_table(others, ["figure", "value"]))
    return "\n\n".join(parts)


def write_json(results: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def chart_series(results: dict[str, Any]) -> dict[str, dict[str, float]]:
    """MiB/s per record size for each throughput figure that was measured: {label: {size: MiB/s}}."""
    series: dict[str, dict[str, float]] = {}
    sources = (("raw producer alone", "raw", "producer_target"), ("raw consumer alone", "raw", "consumer_source"),
               ("raw ceiling", "raw", "ceiling"), ("MM2 defaults", "mm2_defaults", None),
               ("MM2 stock", "stock", None))
    for label, part, key in sources:
        for size, figure in results.get(part, {}).items():
            value = figure.get(key) if key else figure
            if value:
                series.setdefault(label, {})[size] = value["mib_per_s"]
    return series


def latency_curve_series(latency: Optional[dict[str, Any]]) -> dict[str, list[float]]:
    """The curve for the chart: offered % of the drain rate, and p50 and p99 (ms) at each point."""
    points = (latency or {}).get("points", [])
    return {"offered_percent": [point["fraction"] * 100 for point in points],
            "p50_ms": [point["end_to_end"]["p50_ms"] for point in points],
            "p99_ms": [point["end_to_end"]["p99_ms"] for point in points]}


def write_chart(results: dict[str, Any], path: Path) -> None:
    """Throughput per record size, tasks.max scaling and the latency curve, side by side."""
    import matplotlib  # imported here: only the chart needs it, not the table or the unit tests

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, (bars, scaling_axis, latency_axis) = pyplot.subplots(1, 3, figsize=(16, 5))
    series = chart_series(results)
    sizes = [str(size) for size in results["settings"]["record_sizes"]]
    width = 0.8 / max(len(series), 1)
    for index, (label, values) in enumerate(series.items()):
        positions = [position + index * width for position in range(len(sizes))]
        bars.bar(positions, [values.get(size, 0.0) for size in sizes], width, label=label)
    bars.set_xticks([position + width * (len(series) - 1) / 2 for position in range(len(sizes))])
    bars.set_xticklabels([f"{size} B" for size in sizes])
    bars.set_ylabel("MiB/s")
    bars.set_title("Throughput")
    if series:
        bars.legend(fontsize="small")
    scaling = results.get("scaling")
    if scaling:
        tasks = list(scaling["tasks"])
        scaling_axis.bar(tasks, [scaling["tasks"][count]["records_per_s"] for count in tasks])
        scaling_axis.set_xlabel(f"tasks.max ({scaling['partitions']} partitions)")
    scaling_axis.set_ylabel("records/s")
    scaling_axis.set_title("MM2 defaults: tasks.max")
    curve = latency_curve_series(results.get("latency"))
    if curve["offered_percent"]:
        for kind in ("p50_ms", "p99_ms"):
            # A latency of 0 ms cannot sit on a log axis: the floor is 1 ms.
            latency_axis.plot(curve["offered_percent"], [max(value, 1.0) for value in curve[kind]], marker="o",
                              label=kind.replace("_ms", ""))
        latency_axis.axhline(GOAL_P99_MS, color="grey", linestyle="--", linewidth=1, label="1 s")
        latency_axis.set_yscale("log")
        latency_axis.legend(fontsize="small")
        latency_axis.set_title(f"Latency, send -> target (100 % = {results['latency']['drain_records_per_s']:,.0f} rec/s)")
    latency_axis.set_xlabel("offered load, % of the MM2 drain rate")
    latency_axis.set_ylabel("ms")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    pyplot.close(figure)
