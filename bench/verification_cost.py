"""What continuous verification costs (part `verification`; docs/validator.md "Continuous
verification", docs/performance.md), on a topic of the lab's flow, in one run:

1. **Throughput.** A backlog of N records is copied, then role replication_check deploys the
   continuous mode for that topic; its first increment judges the whole backlog. Its source
   records/s (Spark's start-up included) are set beside ConsumerPerformance reading the same
   records from the source and from the target (pairs/s, as the validator part).
2. **Lag at a steady load.** A paced producer writes RATE records/s for SECONDS while the timer
   runs increments at the role's default interval. Every ~2 s the benchmark samples the source's
   and the target's end offsets and the proven offsets the exporter serves. For each sample, the
   lag of its newest records is the time from the target holding them to the proof reaching them.
3. **CPU.** The increments' CPU seconds over the steady window (the run record's cpu_seconds_total,
   from the unit's cgroup), per second of wall time: cores used at that load.
4. **Fixed cost.** The next increment, with nothing left to judge: its seconds and CPU seconds are
   what every increment pays (Spark's start-up, the snapshot, the state), whatever the traffic.

The flow's verification runs under its own name (VERIFY_FLOW) and is removed afterwards.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from bench import measures, validator_throughput
from tests.integration import continuous, lab
from tests.integration.ha import drill

NODE = validator_throughput.VALIDATOR_NODE
VERIFY_FLOW = "bench-verify"
SAMPLE_SECONDS = 2.0


@dataclass(frozen=True)
class Moment:
    """One sample: its time, and per partition the source end, the target end and the proven offset."""

    at: float
    source: dict[int, int]
    target: dict[int, int]
    proven: dict[int, int]


def reached(offsets: dict[int, int], goal: dict[int, int]) -> bool:
    return all(offsets.get(partition, -1) >= end for partition, end in goal.items())


def lags(moments: Sequence[Moment], settle_s: float) -> list[float]:
    """Per sample after `settle_s`: the first time the proven offsets reach its source ends, less the
    first time the target held them (no faults: a copy's offset is its record's). Samples whose
    records were not yet proven by the last sample are left out."""
    if not moments:
        return []
    start = moments[0].at + settle_s
    found = []
    for index, moment in enumerate(moments):
        if moment.at < start:
            continue
        later = moments[index:]
        copied_at = next((m.at for m in later if reached(m.target, moment.source)), None)
        proven_at = next((m.at for m in later if reached(m.proven, moment.source)), None)
        if copied_at is not None and proven_at is not None:
            found.append(max(0.0, proven_at - copied_at))
    return found


def deploy(topic: str, interval: Optional[int]) -> lab.PlaybookRun:
    extra: dict[str, Any] = {"replication_check_flow": "src->dst", "replication_check_continuous": True,
                             "replication_check_continuous_flow": VERIFY_FLOW, "replication_check_topics": [topic],
                             "replication_check_groups": []}
    if interval is not None:
        extra["replication_check_continuous_interval"] = interval
    run = lab.run_playbook("playbooks/validate.yml", extra, timeout=1800)
    if run.returncode != 0:
        raise RuntimeError(f"continuous verification of {topic} did not deploy: {run.output[-3000:]}")
    return run


def figure(samples: list[continuous.Sample], name: str) -> float:
    value = continuous.flow_figure(samples, name, VERIFY_FLOW)
    if value is None:
        raise RuntimeError(f"the exporter serves no kafka_dr_verification_{name} for {VERIFY_FLOW}")
    return value


def proven(topic: str) -> dict[int, int]:
    return {partition: int(offset) for partition, offset
            in continuous.per_partition(continuous.metrics(NODE), "proven_offset", VERIFY_FLOW, topic).items()}


def steady(topic: str, rate: int, seconds: int) -> tuple[list[Moment], float]:
    """The paced load with samples every ~2 s until every record is proven; CPU seconds used meanwhile."""
    cpu_before = figure(continuous.metrics(NODE), "cpu_seconds_total")
    producer = drill.start_producer(topic, rate * seconds, rate)
    moments: list[Moment] = []
    deadline = time.monotonic() + seconds + 600
    while time.monotonic() < deadline:
        moment = Moment(time.time(), lab.end_offsets(lab.SOURCE_BROKER, topic),
                        lab.end_offsets(lab.TARGET_BROKER, f"src.{topic}"), proven(topic))
        moments.append(moment)
        if producer.poll() is not None and reached(moment.proven, moment.source):
            break
        time.sleep(SAMPLE_SECONDS)
    drill.wait_producer(producer, timeout=60)
    cpu_used = figure(continuous.metrics(NODE), "cpu_seconds_total") - cpu_before
    return moments, cpu_used


def idle_increment(interval: float) -> dict[str, float]:
    """The next increment after every record was proven: what an increment costs with nothing to
    judge (Spark's start-up, the snapshot, the state), in seconds and CPU seconds."""
    runs = figure(continuous.metrics(NODE), "runs_total")

    def ended() -> Optional[list[continuous.Sample]]:
        samples = continuous.metrics(NODE)
        return samples if figure(samples, "runs_total") > runs else None
    samples = lab.wait_until(ended, interval + 300, f"an increment of {VERIFY_FLOW} with nothing to judge", interval=2)
    return {"seconds": figure(samples, "last_duration_seconds"), "cpu_seconds": figure(samples, "last_cpu_seconds"),
            "records": figure(samples, "last_records_verified")}


def measure(records: int, rate: int = 500, seconds: int = 180, interval: Optional[int] = None) -> dict[str, Any]:
    """The three figures; `interval` None keeps the role's default."""
    if not validator_throughput.job_installed():
        return {"skipped": f"the validation job is not installed on {NODE}"}
    topic = f"foo.bench.verify.{int(time.time())}"
    try:
        validator_throughput.produce_replicated(topic, records)
        deploy(topic, interval)
        first = continuous.metrics(NODE)
        backlog_s = figure(first, "last_duration_seconds")
        judged = figure(first, "last_records_verified")
        source_per_s = validator_throughput.consumer_rate(lab.SOURCE_BROKER, topic, records)
        target_per_s = validator_throughput.consumer_rate(lab.TARGET_BROKER, f"src.{topic}", records)
        configured_interval = figure(first, "interval_seconds")
        moments, cpu_s = steady(topic, rate, seconds)
        idle = idle_increment(configured_interval)
        last = continuous.metrics(NODE)
    finally:
        continuous.remove(NODE, VERIFY_FLOW)
        lab.delete_mirrored_topics(lab.SOURCE_BROKER, [topic], lab.TARGET_BROKER, [f"src.{topic}"], "mm2-src-dst-source")
    plain_pairs_per_s = 1 / (1 / source_per_s + 1 / target_per_s)
    increment_per_s = judged / backlog_s
    window_s = moments[-1].at - moments[0].at
    # The first increment of the window may start up to one interval late: lags from then on.
    found = lags(moments, configured_interval)
    return {"backlog_records": int(judged), "backlog_increment_s": round(backlog_s, 1),
            "increment_records_per_s": round(increment_per_s, 1), "consumer_source_per_s": round(source_per_s, 1),
            "consumer_target_per_s": round(target_per_s, 1), "plain_pairs_per_s": round(plain_pairs_per_s, 1),
            "ratio": round(increment_per_s / plain_pairs_per_s, 3), "interval_s": configured_interval,
            "idle_increment_s": round(idle["seconds"], 1), "idle_increment_cpu_s": round(idle["cpu_seconds"], 1),
            "idle_increment_records": int(idle["records"]),
            "ratio_after_start_up": round(judged / max(backlog_s - idle["seconds"], 0.1) / plain_pairs_per_s, 3),
            "steady_rate": rate, "steady_seconds": seconds, "window_s": round(window_s, 1),
            "lag_samples": len(found), "lag_p50_s": round(measures.percentile(found, 0.5), 1) if found else None,
            "lag_p99_s": round(measures.percentile(found, 0.99), 1) if found else None,
            "lag_max_s": round(max(found), 1) if found else None,
            "cpu_seconds": round(cpu_s, 1), "cpu_cores": round(cpu_s / window_s, 3) if window_s else None,
            "increments": int(figure(last, "runs_total")), "failed_increments": int(figure(last, "failures_total")),
            "last_increment_s": round(figure(last, "last_duration_seconds"), 1)}
