"""The levers of the collection's defaults, one setting at a time, each measured for throughput and
latency together against the defaults of the same run (BENCH_PARTS=tuning; not among the default
parts).

Throughput: every variant drains the same source topic (twice BENCH_RECORDS records of the first
BENCH_SIZES size) into a fresh remote topic, timed after the first half as the defaults' drain of
the mm2 part is. Latency: then the same variant copies a topic of its own loaded at
BENCH_TUNING_LOAD records/s (default: LATENCY_FRACTION of the mm2 part's drain rate, the latency
curve's 50 % point) for BENCH_LATENCY_SECONDS (the latency curve's harness,
bench.replication.LatencyRun). A load the chain cannot carry compares the variants' queues, not
their latency: on a machine whose cores also run the load's producer, BENCH_TUNING_LOAD sets one
it carries. The defaults run first and last: the two show the
run's noise, their mean is the baseline of every variant's ratio.

MM2's source consumer is its own client, configured with `consumer.*` keys of the connector
config (the role renders its consumer options so). `consumer.override.*` only reaches the
consumers the Connect worker creates for sink connectors: a source connector ignores it.
Producer settings go through the worker's producer, hence `producer.override.*`.
"""

from __future__ import annotations

from typing import Any, Optional

from bench import flows, measures, perf_tools
from bench.replication import DEFAULT_PARTITIONS, SOURCE, TARGET, Cleanup, LatencyRun, Settings, drain, retry
from tests.integration import lab

DEFAULTS_FIRST = "defaults (first)"
DEFAULTS_LAST = "defaults (last)"

# (label, connector config keys that differ from the defaults)
VARIANTS: tuple[tuple[str, dict[str, str]], ...] = (
    # How long MM2's producer waits to fill a batch (defaults: 20 ms, 128 KiB).
    ("linger.ms 0", {"producer.override.linger.ms": "0"}),
    ("linger.ms 5", {"producer.override.linger.ms": "5"}),
    ("linger.ms 50", {"producer.override.linger.ms": "50"}),
    ("batch.size 16384", {"producer.override.batch.size": "16384"}),
    ("batch.size 1048576", {"producer.override.batch.size": "1048576"}),
    # A fetch waits for fetch.min.bytes up to fetch.max.wait.ms (MM2's consumer: 1 byte, 500 ms).
    ("fetch.min.bytes 65536 + fetch.max.wait.ms 100", {"consumer.fetch.min.bytes": "65536", "consumer.fetch.max.wait.ms": "100"}),
    ("fetch.min.bytes 65536 + fetch.max.wait.ms 500", {"consumer.fetch.min.bytes": "65536", "consumer.fetch.max.wait.ms": "500"}),
    # How long a task's poll blocks when nothing is there (MM2: 1000 ms).
    ("consumer.poll.timeout.ms 100", {"consumer.poll.timeout.ms": "100"}),
    ("compression none", {"producer.override.compression.type": "none"}),
    # The workers pin their source producers to 1 in flight; idempotence (on by default) keeps
    # the order with up to 5.
    ("max.in.flight.requests.per.connection 5", {"producer.override.max.in.flight.requests.per.connection": "5"}),
)
# The load of each variant's latency point, as a fraction of the defaults' drain rate: the highest
# load the latency goal covers.
LATENCY_FRACTION = 0.5


def run_order(variants: tuple[tuple[str, dict[str, str]], ...] = VARIANTS) -> list[tuple[str, dict[str, str]]]:
    """The drains of one run: the defaults first and last, the variants between."""
    return [(DEFAULTS_FIRST, {}), *variants, (DEFAULTS_LAST, {})]


def baseline(figures: dict[str, dict[str, Any]]) -> Optional[float]:
    """The mean records/s of the defaults' drains that were measured."""
    rates = [figures[label]["records_per_s"] for label in (DEFAULTS_FIRST, DEFAULTS_LAST) if label in figures]
    return sum(rates) / len(rates) if rates else None


def with_ratios(figures: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each figure with ratio_to_defaults: its records/s over the baseline (None without one)."""
    reference = baseline(figures)
    return {label: {**figure, "ratio_to_defaults": measures.ratio(figure["records_per_s"], reference)}
            for label, figure in figures.items()}


def connector_name(run_id: str, index: int) -> str:
    return f"bench-{run_id}-tuning{index}"


def measure(settings: Settings, latency_load: float) -> dict[str, Any]:
    """Drain one filled topic with the defaults and each variant, in run_order(), and load each at
    latency_load records/s for its latency."""
    defaults = flows.defaults_flow()
    record_size = settings.record_sizes[0]
    topic = f"bench.{settings.run_id}.tuning"
    figures: dict[str, dict[str, Any]] = {}
    failures: dict[str, str] = {}
    drains: list[tuple[str, dict[str, str]]] = run_order()
    cleanup = Cleanup()
    try:
        retry(lambda: lab.create_topic(SOURCE, cleanup.topic(SOURCE, topic), DEFAULT_PARTITIONS), f"create {topic}")
        print(f"filling {topic}: {2 * settings.records} records of {record_size} B")
        perf_tools.fill_topic(SOURCE, topic, 2 * settings.records, record_size)
        for index, (label, overrides) in enumerate(drains):
            print(f"MM2 drain, {label}: {overrides or 'the collection defaults'}")
            flow = flows.with_overrides(defaults, label, overrides)
            try:
                figures[label] = {**drain_variant(cleanup, flow, connector_name(settings.run_id, index), topic,
                                                  settings.records, record_size), "overrides": overrides}
                figures[label]["latency"] = latency_point(flow, f"{connector_name(settings.run_id, index)}-latency",
                                                          f"{topic}.latency{index}", record_size,
                                                          latency_load, settings.latency_seconds)
            except (RuntimeError, lab.Deadline, flows.TaskFailed) as error:  # one variant failing must not lose the others
                print(f"  {label} failed: {error}")
                failures[label] = f"{error.__class__.__name__}: {str(error)[:500]}"
    finally:
        cleanup.run()
    return {"record_size": record_size, "partitions": DEFAULT_PARTITIONS,
            "tasks_max": int(defaults.base_config.get("tasks.max", "1")), "order": [drain[0] for drain in drains],
            "latency_load_records_per_s": round(latency_load, 1),
            "latency_seconds": settings.latency_seconds,
            "figures": with_ratios(figures), "failures": failures}


def drain_variant(cleanup: Cleanup, flow: flows.Flow, name: str, topic: str, records: int,
                  record_size: int) -> dict[str, Any]:
    """One drain of a topic holding twice `records` into a fresh remote topic (its name is fixed by
    the flow), timed after the first `records`, the remote topic deleted afterwards."""
    remote = flow.remote_topic(topic)
    retry(lambda: lab.create_topic(TARGET, cleanup.topic(TARGET, remote), DEFAULT_PARTITIONS,
                                   "message.timestamp.type=LogAppendTime"), f"create {remote}")
    try:
        return drain(cleanup, flow, name, topic, 2 * records, record_size, fail_fast=True,
                     warmup_records=records).as_dict()
    finally:
        if name in cleanup.connectors:
            flows.remove(name)
            cleanup.connectors.remove(name)
        retry(lambda: lab.delete_topics(TARGET, remote), f"delete {remote}")
        lab.wait_until(lambda: remote not in lab.topic_names(TARGET), 60, f"{remote} to be deleted")


def latency_point(flow: flows.Flow, name: str, topic: str, record_size: int, rate: float,
                  seconds: int, warmup_s: float = 5.0) -> dict[str, Any]:
    """The flow's latency at one load on a topic pair of its own, removed afterwards."""
    cleanup = Cleanup()
    try:
        run = LatencyRun(cleanup, flow, name, topic, record_size)
        run.offer(LATENCY_FRACTION, rate, seconds)
        return run.points(warmup_s)[0]
    finally:
        cleanup.run()
