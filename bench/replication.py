"""Replication figures on the lab: the raw limit of the clusters, MM2 drains (collection defaults,
the reference guide's stock config, tasks.max scaling) and end-to-end latency under load.

Every topic is new and named bench.<run>.<what>; every connector is bench-<run>-<what>. Both
are removed afterwards, also when a figure fails.
"""

from __future__ import annotations

import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any, Optional

from bench import flows, measures, perf_tools
from bench.perf_tools import Rate
from tests.integration import lab

SOURCE = lab.SOURCE_BROKER
TARGET = lab.TARGET_BROKER
CONSOLE_PRODUCER = "org.apache.kafka.tools.ConsoleProducer"
DEFAULT_PARTITIONS = 3


@dataclass(frozen=True)
class Settings:
    run_id: str
    records: int
    record_sizes: tuple[int, ...]
    latency_seconds: int
    scaling_tasks: tuple[int, ...] = (1, 2, 4)
    scaling_partitions: int = 6


class Cleanup:
    """What a run created on the lab, removed in reverse order at the end."""

    def __init__(self) -> None:
        self.connectors: list[str] = []
        self.topics: dict[str, set[str]] = {SOURCE: set(), TARGET: set()}

    def topic(self, host: str, name: str) -> str:
        self.topics[host].add(name)
        return name

    def run(self) -> None:
        for name in reversed(self.connectors):
            flows.remove(name)
        self.connectors.clear()
        # Connectors go first: a running task could re-create a remote topic.
        for host, names in self.topics.items():
            if names:
                retry(lambda host=host, names=names: lab.delete_topics(host, *sorted(names)), f"delete topics on {host}")
            names.clear()


def retry(action: Any, what: str, attempts: int = 5, pause_s: float = 5.0) -> Any:
    """Brokers and workers may restart while the benchmark runs (a deployment elsewhere): retry."""
    for attempt in range(1, attempts + 1):
        try:
            return action()
        except (RuntimeError, subprocess.TimeoutExpired, lab.Deadline) as error:
            if attempt == attempts:
                raise
            print(f"retrying {what} ({error.__class__.__name__}: {str(error)[:200]})")
            time.sleep(pause_s)
    return None


def create_topic_pair(cleanup: Cleanup, topic: str, remote: str, partitions: int) -> None:
    """The source topic and its remote topic on the target. The remote topic is created first
    with LogAppendTime, so each record on the target carries the time it arrived there (MM2 keeps
    the source timestamp otherwise; its config sync never copies message.timestamp.type)."""
    retry(lambda: lab.create_topic(SOURCE, cleanup.topic(SOURCE, topic), partitions), f"create {topic}")
    retry(lambda: lab.create_topic(TARGET, cleanup.topic(TARGET, remote), partitions,
                                   "message.timestamp.type=LogAppendTime"), f"create {remote}")


def target_count(topic: str) -> int:
    return sum(lab.end_offsets(TARGET, topic).values())


def arrival_timestamps(topic: str, records: int) -> list[int]:
    """The append time of every record of the remote topic, read after the drain (reading while
    it runs would take CPU from MM2 on a small machine)."""
    output = lab.kafka_run(TARGET, lab.CONSOLE_CONSUMER, "--bootstrap-server", lab.bootstrap(TARGET),
                           "--topic", topic, "--from-beginning", "--max-messages", str(records),
                           "--timeout-ms", "60000", "--formatter-property", "print.timestamp=true",
                           "--formatter-property", "print.value=false", timeout=900)
    return measures.parse_timestamps(output)


def drain(cleanup: Cleanup, flow: flows.Flow, name: str, topic: str, records: int, record_size: int,
          tasks_max: Optional[int] = None, fail_fast: bool = False) -> measures.Drain:
    """Deploy the flow's connector for a topic that already holds `records` records and time how
    they arrive on the target. Polling the end offsets costs one short JVM every few seconds.
    fail_fast: a failed task ends the wait at once (else the lab's auto-restart may revive it)."""
    remote = flow.remote_topic(topic)
    flows.prepare_internal_topics(flow)
    for host, internal, _compacted in flow.internal_topics:
        cleanup.topic(host, internal)
    cleanup.connectors.append(name)
    started = time.monotonic()
    retry(lambda: flows.deploy(name, flow.config_for(name, topic, tasks_max)), f"deploy {name}")
    timeout = max(300.0, records / 500)
    lab.wait_until(lambda: (not fail_fast or flows.raise_if_failed(name)) and target_count(remote) >= records, timeout,
                   f"{records} records in {remote}", interval=3)
    print(f"  {name}: {records} records on the target {time.monotonic() - started:.0f} s after deployment")
    flows.remove(name)
    cleanup.connectors.remove(name)
    timestamps = retry(lambda: arrival_timestamps(remote, records), f"read {remote}")
    if len(timestamps) < records:
        raise RuntimeError(f"{remote}: read {len(timestamps)} of {records} records")
    return measures.drain_from_timestamps(timestamps, record_size)


# ---- raw limit --------------------------------------------------------------------------------

def raw_limit(cleanup: Cleanup, settings: Settings, source_topic: str, record_size: int) -> dict[str, Any]:
    """Kafka's perf tools with MM2's client settings: a producer into the target and a consumer
    of the (already filled) source topic, first each alone, then both at once. MM2 consumes and
    produces at the same time on the same cores, so the concurrent figure is the honest ceiling."""
    records = settings.records
    remote_prefix = f"src.bench.{settings.run_id}.raw{record_size}"
    for suffix in ("a", "b"):
        retry(lambda suffix=suffix: lab.create_topic(TARGET, cleanup.topic(TARGET, remote_prefix + suffix),
                                                     DEFAULT_PARTITIONS), "create raw topic")
    group = f"bench-{settings.run_id}-raw{record_size}"
    with perf_tools.client_config(TARGET, perf_tools.MM2_ACCOUNT) as producer_config, \
            perf_tools.client_config(SOURCE, perf_tools.READER_ACCOUNT) as consumer_config:
        producer_alone = retry(lambda: perf_tools.run_producer(TARGET, remote_prefix + "a", records, record_size,
                                                               producer_config).rate, "raw producer")
        consumer_alone = retry(lambda: perf_tools.run_consumer(SOURCE, source_topic, records, consumer_config,
                                                               group + "a"), "raw consumer")
        producing = perf_tools.start_tool(TARGET, perf_tools.PRODUCER_PERFORMANCE, *perf_tools.producer_args(
            remote_prefix + "b", records, record_size, producer_config, perf_tools.client_bootstrap(TARGET)))
        consuming = perf_tools.start_tool(SOURCE, perf_tools.CONSUMER_PERFORMANCE, *perf_tools.consumer_args(
            source_topic, records, consumer_config, perf_tools.client_bootstrap(SOURCE), group + "b"))
        producer_together = perf_tools.parse_producer_summary(
            perf_tools.finish_tool(producing, "concurrent producer")).rate
        consumer_together = perf_tools.parse_consumer_summary(perf_tools.finish_tool(consuming, "concurrent consumer"))
    for suffix in ("a", "b"):
        lab.delete_group(SOURCE, group + suffix)
    separate_min = measures.slower(producer_alone, consumer_alone)
    concurrent = measures.slower(producer_together, consumer_together)
    return {"producer_target": producer_alone.as_dict(), "consumer_source": consumer_alone.as_dict(),
            "concurrent_producer": producer_together.as_dict(), "concurrent_consumer": consumer_together.as_dict(),
            "separate_min": separate_min.as_dict(), "concurrent_ceiling": concurrent.as_dict()}


def mm2_figure(drained: measures.Drain, raw: Optional[dict[str, Any]]) -> dict[str, Any]:
    figure: dict[str, Any] = drained.as_dict()
    if raw:
        rate = drained.rate.records_per_s
        figure["ratio_to_concurrent"] = measures.ratio(rate, raw["concurrent_ceiling"]["records_per_s"])
        figure["ratio_to_separate_min"] = measures.ratio(rate, raw["separate_min"]["records_per_s"])
    return figure


def throughput(settings: Settings, with_raw: bool, with_mm2: bool, with_stock: bool) -> dict[str, Any]:
    """Per record size: fill one source topic, measure the raw limit on it, then drain it with
    the defaults and with the stock config (each to its own remote topic)."""
    results: dict[str, Any] = {"raw": {}, "mm2_defaults": {}, "stock": {}}
    defaults = flows.defaults_flow() if with_mm2 else None
    stock = flows.stock_flow() if with_stock else None
    for record_size in settings.record_sizes:
        cleanup = Cleanup()
        try:
            key = str(record_size)
            topic = f"bench.{settings.run_id}.size{record_size}"
            remotes = [flow.remote_topic(topic) for flow in (defaults, stock) if flow]
            retry(lambda: lab.create_topic(SOURCE, cleanup.topic(SOURCE, topic), DEFAULT_PARTITIONS), f"create {topic}")
            for remote in remotes:
                retry(lambda remote=remote: lab.create_topic(TARGET, cleanup.topic(TARGET, remote), DEFAULT_PARTITIONS,
                                                             "message.timestamp.type=LogAppendTime"), f"create {remote}")
            print(f"filling {topic}: {settings.records} records of {record_size} B")
            perf_tools.fill_topic(SOURCE, topic, settings.records, record_size)
            raw = None
            if with_raw:
                print(f"raw limit, {record_size} B")
                raw = results["raw"][key] = raw_limit(cleanup, settings, topic, record_size)
            if defaults:
                print(f"MM2 drain with the collection's defaults, {record_size} B")
                drained = drain(cleanup, defaults, f"bench-{settings.run_id}-defaults{record_size}", topic,
                                settings.records, record_size)
                results["mm2_defaults"][key] = mm2_figure(drained, raw)
            if stock:
                print(f"MM2 drain with the guide's stock config, {record_size} B")
                with flows.granted(stock):
                    drained = drain(cleanup, stock, f"bench-{settings.run_id}-stock{record_size}", topic,
                                    settings.records, record_size)
                    cleanup.run()
                figure = mm2_figure(drained, raw)
                if key in results["mm2_defaults"]:
                    figure["ratio_defaults_to_stock"] = measures.ratio(
                        results["mm2_defaults"][key]["records_per_s"], drained.rate.records_per_s)
                results["stock"][key] = figure
        finally:
            cleanup.run()
    return {name: value for name, value in results.items() if value}


# ---- scaling ----------------------------------------------------------------------------------

def scaling(settings: Settings) -> dict[str, Any]:
    """The defaults' drain with tasks.max 1, 2, 4 over one topic of more partitions, one remote
    topic per run (the same source records each time)."""
    defaults = flows.defaults_flow()
    record_size = settings.record_sizes[0]
    topic = f"bench.{settings.run_id}.scaling"
    figures: dict[str, Any] = {"partitions": settings.scaling_partitions, "record_size": record_size, "tasks": {}}
    cleanup = Cleanup()
    try:
        retry(lambda: lab.create_topic(SOURCE, cleanup.topic(SOURCE, topic), settings.scaling_partitions), "create")
        perf_tools.fill_topic(SOURCE, topic, settings.records, record_size)
        for tasks_max in settings.scaling_tasks:
            # The remote topic name is fixed by the flow: a fresh one per run.
            remote = defaults.remote_topic(topic)
            retry(lambda: lab.create_topic(TARGET, cleanup.topic(TARGET, remote), settings.scaling_partitions,
                                           "message.timestamp.type=LogAppendTime"), f"create {remote}")
            print(f"MM2 drain, tasks.max={tasks_max}, {settings.scaling_partitions} partitions")
            drained = drain(cleanup, defaults, f"bench-{settings.run_id}-tasks{tasks_max}", topic, settings.records,
                            record_size, tasks_max)
            figures["tasks"][str(tasks_max)] = drained.as_dict()
            retry(lambda: lab.delete_topics(TARGET, remote), f"delete {remote}")
            lab.wait_until(lambda: remote not in lab.topic_names(TARGET), 60, f"{remote} to be deleted")
    finally:
        cleanup.run()
    return figures


# ---- latency ----------------------------------------------------------------------------------

class LatencyConsumer:
    """The console consumer on the target, read line by line as records arrive: each line's
    receipt time minus the send time in the record is the end-to-end latency (the test process
    and the containers share one clock)."""

    IDLE_EXIT_MS = 15000

    def __init__(self, topic: str, records: int, group: str) -> None:
        self.received: list[tuple[float, int, float]] = []  # (receipt ms, target append ms, send ms)
        self.process = subprocess.Popen(
            ["docker", "exec", *perf_tools.PERF_JVM_ENV, TARGET, lab.KAFKA_RUN, lab.CONSOLE_CONSUMER,
             "--bootstrap-server", lab.bootstrap(TARGET), "--command-config", lab.ADMIN_CLIENT_CONFIG,
             "--topic", topic, "--from-beginning", "--max-messages", str(records), "--group", group,
             # It ends on its own IDLE_EXIT_MS after the last record: stopping `docker exec` would
             # leave the JVM in the container, and it must not re-create the topic once deleted.
             "--timeout-ms", str(self.IDLE_EXIT_MS), "--consumer-property", "allow.auto.create.topics=false",
             "--formatter-property", "print.timestamp=true"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        for line in self.process.stdout or ():
            receipt_ms = time.time() * 1000
            parsed = measures.parse_latency_line(line.rstrip("\n"))
            if parsed:
                self.received.append((receipt_ms, parsed[0], parsed[1]))

    def finish(self) -> None:
        try:
            self.process.wait(timeout=self.IDLE_EXIT_MS / 1000 + 60)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.thread.join(timeout=10)


def paced_produce(topic: str, rate: float, seconds: float, record_size: int) -> int:
    """A console producer on the source fed at `rate` records/s for `seconds`; each value starts
    with the time the line was handed to the producer. Returns the records sent."""
    producer = subprocess.Popen(
        ["docker", "exec", "-i", *perf_tools.PERF_JVM_ENV, SOURCE, lab.KAFKA_RUN, CONSOLE_PRODUCER,
         "--bootstrap-server", lab.bootstrap(SOURCE), "--command-config", lab.ADMIN_CLIENT_CONFIG,
         "--topic", topic, "--producer-property", "acks=all", "--producer-property", "linger.ms=5"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    if producer.stdin is None:
        raise RuntimeError("the console producer has no stdin")
    started = time.monotonic()
    sent = 0
    while (elapsed := time.monotonic() - started) < seconds:
        due = int(rate * elapsed) - sent
        if due > 0:
            lines = [measures.latency_value(time.time() * 1000, record_size) for _index in range(due)]
            producer.stdin.write("\n".join(lines) + "\n")
            producer.stdin.flush()
            sent += due
        time.sleep(0.01)
    producer.stdin.close()
    producer.wait(timeout=120)
    return sent


def latency(settings: Settings, rate: float, warmup_s: float = 5.0) -> dict[str, Any]:
    """p50/p99/max from send on the source to receipt by a consumer on the target, with the
    defaults' flow running and records sent at `rate` for settings.latency_seconds. Records sent
    in the first warmup_s seconds are left out (consumer and producer connections settling)."""
    defaults = flows.defaults_flow()
    record_size = settings.record_sizes[0]
    topic = f"bench.{settings.run_id}.latency"
    remote = defaults.remote_topic(topic)
    name = f"bench-{settings.run_id}-latency"
    group = name
    cleanup = Cleanup()
    try:
        create_topic_pair(cleanup, topic, remote, DEFAULT_PARTITIONS)
        cleanup.connectors.append(name)
        retry(lambda: flows.deploy(name, defaults.config_for(name, topic)), f"deploy {name}")
        expected_partitions = {f"{topic}-{partition}" for partition in range(DEFAULT_PARTITIONS)}
        lab.wait_until(lambda: expected_partitions <= lab.task_assignments(name, "task.assigned.partitions"), 120,
                       f"{name} to read {topic}")
        consumer = LatencyConsumer(remote, 1 << 30, group)
        time.sleep(warmup_s)  # the consumer's JVM start and group join
        started_ms = time.time() * 1000
        print(f"latency: {rate:,.0f} records/s of {record_size} B for {settings.latency_seconds} s")
        sent = paced_produce(topic, rate, settings.latency_seconds, record_size)
        lab.wait_until(lambda: len(consumer.received) >= sent, 120, "the latency records on the target", interval=1)
        consumer.finish()
    finally:
        cleanup.run()
        lab.delete_group(TARGET, group)
    measured = [entry for entry in consumer.received if entry[2] >= started_ms + warmup_s * 1000]
    if not measured:
        raise RuntimeError("no latency record arrived after the warm-up")
    return {"rate_records_per_s": round(rate, 1), "record_size": record_size, "seconds": settings.latency_seconds,
            "sent": sent, "received": len(consumer.received), "warmup_s": warmup_s,
            # Whether the whole chain kept up: received records over the span of their receipt.
            "delivered_records_per_s": round(delivered_rate(consumer.received), 1),
            "end_to_end": measures.latency_summary([receipt - send for receipt, _append, send in measured]),
            "to_target_log": measures.latency_summary([append - send for _receipt, append, send in measured])}


def delivered_rate(received: list[tuple[float, int, float]]) -> float:
    if len(received) < 2:
        return 0.0
    span_s = (received[-1][0] - received[0][0]) / 1000
    return len(received) / span_s if span_s > 0 else 0.0


def throughput_rate(figure: dict[str, Any]) -> Rate:
    return Rate(figure["records_per_s"], figure["mib_per_s"])
