"""One-setting variants of the collection's defaults, each drained against the defaults of the
same run (BENCH_PARTS=tuning; not among the default parts).

Every drain reads the same source topic (BENCH_RECORDS records of the first BENCH_SIZES size)
into a fresh remote topic. The defaults drain first and last: the two figures show the run's
noise, their mean is the baseline of every variant's ratio.

MM2's source consumer is its own client, configured with `consumer.*` keys of the connector
config (the role renders its consumer options so). `consumer.override.*` only reaches the
consumers the Connect worker creates for sink connectors: a source connector ignores it.
Producer settings go through the worker's producer, hence `producer.override.*`.
"""

from __future__ import annotations

from typing import Any, Optional

from bench import flows, measures, perf_tools
from bench.replication import DEFAULT_PARTITIONS, SOURCE, TARGET, Cleanup, Settings, drain, retry
from tests.integration import lab

DEFAULTS_FIRST = "defaults (first)"
DEFAULTS_LAST = "defaults (last)"

# (label, connector config keys that differ from the defaults)
VARIANTS: tuple[tuple[str, dict[str, str]], ...] = (
    ("batch.size 262144 + linger.ms 50", {"producer.override.batch.size": "262144", "producer.override.linger.ms": "50"}),
    ("compression zstd", {"producer.override.compression.type": "zstd"}),
    ("compression none", {"producer.override.compression.type": "none"}),
    ("fetch.min.bytes 65536 + fetch.max.wait.ms 100", {"consumer.fetch.min.bytes": "65536", "consumer.fetch.max.wait.ms": "100"}),
    ("max.poll.records 2000", {"consumer.max.poll.records": "2000"}),
    # The workers pin their source producers to 1 in flight; idempotence (on by default) keeps
    # the order with up to 5.
    ("max.in.flight.requests.per.connection 5", {"producer.override.max.in.flight.requests.per.connection": "5"}),
)


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


def measure(settings: Settings) -> dict[str, Any]:
    """Drain one filled topic with the defaults and each variant, in run_order()."""
    defaults = flows.defaults_flow()
    record_size = settings.record_sizes[0]
    topic = f"bench.{settings.run_id}.tuning"
    remote = defaults.remote_topic(topic)
    figures: dict[str, dict[str, Any]] = {}
    failures: dict[str, str] = {}
    drains: list[tuple[str, dict[str, str]]] = run_order()
    cleanup = Cleanup()
    try:
        retry(lambda: lab.create_topic(SOURCE, cleanup.topic(SOURCE, topic), DEFAULT_PARTITIONS), f"create {topic}")
        print(f"filling {topic}: {settings.records} records of {record_size} B")
        perf_tools.fill_topic(SOURCE, topic, settings.records, record_size)
        for index, (label, overrides) in enumerate(drains):
            print(f"MM2 drain, {label}: {overrides or 'the collection defaults'}")
            try:
                figures[label] = {**drain_variant(cleanup, flows.with_overrides(defaults, label, overrides),
                                                  connector_name(settings.run_id, index), topic, settings.records,
                                                  record_size), "overrides": overrides}
            except (RuntimeError, lab.Deadline, flows.TaskFailed) as error:  # one variant failing must not lose the others
                print(f"  {label} failed: {error}")
                failures[label] = f"{error.__class__.__name__}: {str(error)[:500]}"
    finally:
        cleanup.run()
    return {"record_size": record_size, "partitions": DEFAULT_PARTITIONS,
            "tasks_max": int(defaults.base_config.get("tasks.max", "1")), "order": [drain[0] for drain in drains],
            "figures": with_ratios(figures), "failures": failures}


def drain_variant(cleanup: Cleanup, flow: flows.Flow, name: str, topic: str, records: int,
                  record_size: int) -> dict[str, Any]:
    """One drain into a fresh remote topic (its name is fixed by the flow), deleted afterwards."""
    remote = flow.remote_topic(topic)
    retry(lambda: lab.create_topic(TARGET, cleanup.topic(TARGET, remote), DEFAULT_PARTITIONS,
                                   "message.timestamp.type=LogAppendTime"), f"create {remote}")
    try:
        return drain(cleanup, flow, name, topic, records, record_size, fail_fast=True).as_dict()
    finally:
        if name in cleanup.connectors:
            flows.remove(name)
            cleanup.connectors.remove(name)
        retry(lambda: lab.delete_topics(TARGET, remote), f"delete {remote}")
        lab.wait_until(lambda: remote not in lab.topic_names(TARGET), 60, f"{remote} to be deleted")
