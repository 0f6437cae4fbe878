"""Replication figures on the lab: the raw ceiling of the clusters with MM2's clients, MM2 drains
(collection defaults, the reference guide's stock config, tasks.max scaling) and the end-to-end
latency curve under load.

Every topic is new and named bench.<run>.<what>; every connector is bench-<run>-<what>. Both
are removed afterwards, also when a figure fails.
"""

from __future__ import annotations

import contextlib
import dataclasses
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any, Optional

from bench import flows, measures, perf_tools, report
from bench import profile as cpu_profile
from tests.integration import lab

SOURCE = lab.SOURCE_BROKER
TARGET = lab.TARGET_BROKER
DEFAULT_PARTITIONS = 3
# The record size whose `records` the throughput figures of smaller records match in bytes.
REFERENCE_RECORD_SIZE = 1024
# The containers whose CPU a drain's profile samples: the Connect workers and both brokers.
PROFILE_HOSTS = (*lab.CONNECT_WORKERS, SOURCE, TARGET)
# A drain whose remote topic gains no record for this long has stalled (a worker out of heap hangs
# rather than exits): it fails instead of waiting out a timeout that a large backlog makes hours long.
STALL_S = 180.0
# The latency curve's offered rates, as fractions of the defaults' measured drain rate.
LATENCY_FRACTIONS = (0.10, 0.25, 0.50, 0.75, 0.90)


@dataclass(frozen=True)
class Settings:
    run_id: str
    records: int
    record_sizes: tuple[int, ...]
    latency_seconds: int
    latency_fractions: tuple[float, ...] = LATENCY_FRACTIONS
    scaling_tasks: tuple[int, ...] = (1, 2, 4)
    scaling_partitions: int = 6

    def records_for(self, record_size: int) -> int:
        """The throughput figures' records of one size: `records` of 1 KiB, and as many bytes of a
        smaller size (a drain of 200,000 records of 100 B is over in a second: it would time the
        start of the tasks rather than their throughput)."""
        return self.records * max(1, REFERENCE_RECORD_SIZE // record_size)


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
          tasks_max: Optional[int] = None, fail_fast: bool = False, profile: bool = False,
          warmup_records: int = 0) -> measures.Drain:
    """Deploy the flow's connector for a topic that already holds `records` records and time how
    they arrive on the target (polling the end offsets through the in-process admin client).
    fail_fast: a failed task ends the wait at once (else the lab's auto-restart may revive it).
    profile: the CPU the workers and brokers used per record (bench.profile) from the end of the
    warm-up to the last record's arrival. warmup_records: the drain is timed from the append after
    the first warmup_records on (the JVMs compile the copy's code in the first seconds)."""
    remote = flow.remote_topic(topic)
    flows.prepare_internal_topics(flow)
    for host, internal, _compacted in flow.internal_topics:
        cleanup.topic(host, internal)
    cleanup.connectors.append(name)
    started = time.monotonic()
    retry(lambda: flows.deploy(name, flow.config_for(name, topic, tasks_max)), f"deploy {name}")
    timeout = max(300.0, records / 500)
    last_gain = {"count": -1, "at": time.monotonic()}

    def arrived(count: int) -> bool:
        # The count first: a hung worker's REST API would keep the task check from ever failing.
        now_count = target_count(remote)
        if now_count > last_gain["count"]:
            last_gain.update(count=now_count, at=time.monotonic())
        elif time.monotonic() - last_gain["at"] > STALL_S:
            raise lab.Deadline(f"{remote}: no record arrived for {STALL_S:.0f} s ({now_count} of {count}): the copy stalled")
        return (not fail_fast or flows.raise_if_failed(name)) and now_count >= count

    profiler = cpu_profile.Profile(PROFILE_HOSTS if profile else ())
    counted_from = 0
    if profile:
        # The profile covers the timed part: from the end of the warm-up, polled closely.
        lab.wait_until(lambda: arrived(warmup_records), timeout, f"{warmup_records} records in {remote}", interval=0.2)
        profiler.start()
        counted_from = target_count(remote)
    lab.wait_until(lambda: arrived(records), timeout, f"{records} records in {remote}", interval=0.5 if profile else 3)
    profiler.stop()
    print(f"  {name}: {records} records on the target {time.monotonic() - started:.0f} s after deployment")
    flows.remove(name)
    cleanup.connectors.remove(name)
    timestamps = retry(lambda: arrival_timestamps(remote, records), f"read {remote}")
    if len(timestamps) < records:
        raise RuntimeError(f"{remote}: read {len(timestamps)} of {records} records")
    drained = measures.drain_from_timestamps(timestamps, record_size, warmup_records)
    return dataclasses.replace(drained, profile=profiler.as_dict(records - counted_from)) if profile else drained


# ---- raw limit --------------------------------------------------------------------------------

# The raw ceiling's runs: the flows' compression, and none (on one host compression costs CPU and
# saves no network, so it may be the faster of the two).
RAW_COMPRESSIONS = ("lz4", "none")


def client_hosts(clients: int, workers: tuple[str, ...] = lab.CONNECT_WORKERS) -> list[str]:
    """The containers the raw clients run in: the Connect workers, spread as MM2 spreads its tasks."""
    return [workers[index % len(workers)] for index in range(clients)]


def side_by_side(commands: list[tuple[str, list[str]]]) -> tuple[list[str], list[float]]:
    """Start every (what, docker exec command) at once, wait for all; return their outputs and the
    time.time() each ended at, in order; raise after all ended when one failed."""
    processes = [(what, subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
                 for what, command in commands]
    outputs: list[str] = [""] * len(processes)
    ended: list[float] = [0.0] * len(processes)
    failures: list[str] = []

    def finish(index: int) -> None:
        what, process = processes[index]
        try:
            outputs[index] = perf_tools.finish_tool(process, what)
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            process.kill()
            failures.append(str(error))
        ended[index] = time.time()

    # A thread each, so every end time is the process's own and no pipe waits to be read.
    threads = [threading.Thread(target=finish, args=(index,)) for index in range(len(processes))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise RuntimeError("; ".join(failures))
    return outputs, ended


def consumer_group(group: str, index: int) -> str:
    return f"{group}.{index}"


def concurrent_raw_run(hosts: list[str], configs: dict[str, tuple[str, str]], remote: str, source_topic: str,
                       records: int, record_size: int, group: str, compression: str) -> dict[str, Any]:
    """The work of a copy of 2 x records, all clients started at once: len(hosts)
    ProducerPerformance write 2 x records into the target between them, as many
    ConsumerPerformance read 2 x records of the source topic between them (each in a group of its
    own: a group shared by consumers that start at once rebalances while they join). Every side
    counts from the end of its first half, which warms its JVMs as MM2's long-running workers are
    warm: the producers by their appends on the target (LogAppendTime), timed as MM2's drain is,
    the consumers by their running totals."""
    props = perf_tools.with_compression(perf_tools.FLOW_PRODUCER_PROPS, compression)
    shares = measures.split_records(2 * records, len(hosts))
    producers = [(f"producer {index} ({compression}) on {host}", perf_tools.tool_command(
        host, perf_tools.PRODUCER_PERFORMANCE, *perf_tools.producer_args(
            remote, share, record_size, configs[host][0], perf_tools.client_bootstrap(TARGET), props,
            warmup_records=share // 2)))
        for index, (host, share) in enumerate(zip(hosts, shares))]
    idle_ms = perf_tools.GROUP_IDLE_TIMEOUT_MS
    consumers = [(f"consumer {index} on {host}", perf_tools.tool_command(
        host, perf_tools.CONSUMER_PERFORMANCE, *perf_tools.consumer_args(
            source_topic, share, configs[host][1], perf_tools.client_bootstrap(SOURCE), consumer_group(group, index),
            idle_ms, detailed=True)))
        for index, (host, share) in enumerate(zip(hosts, shares))]
    outputs, ended = side_by_side(producers + consumers)
    clients = len(hosts)
    timestamps = retry(lambda: arrival_timestamps(remote, 2 * records), f"read {remote}")
    if len(timestamps) < 2 * records:
        raise RuntimeError(f"{remote}: read {len(timestamps)} of the {2 * records} records the producers wrote")
    appended = measures.drain_from_timestamps(timestamps, record_size, warmup_records=records)
    # A consumer that ended on its timeout stopped reading that long before it ended.
    stopped = [end - (idle_ms / 1000 if perf_tools.timed_out(output) else 0.0)
               for output, end in zip(outputs[clients:], ended[clients:])]
    run = measures.concurrent_run(
        compression, appended.rate,
        [consumer_steady(output, what, share, record_size, end)
         for output, (what, _command), share, end in zip(outputs[clients:], consumers, shares, ended[clients:])],
        producers_tools=[(perf_tools.parse_producer_steady(output) or perf_tools.parse_producer_summary(output)).rate
                         for output in outputs[:clients]],
        consumers_ended_first_s=max(appended.last_ms / 1000 - min(stopped), 0.0))
    return run


def consumer_steady(output: str, what: str, records: int, record_size: int, ended_at: float) -> perf_tools.Rate:
    """A raw consumer's rate after its warm-up; for a run too short for that (a line or two), its
    records after the first line over the time to its exit."""
    rate = perf_tools.parse_consumer_steady(output)
    if rate is not None:
        return rate
    progress = perf_tools.parse_consumer_progress(output)
    if progress:
        first_time, _mib, first_count = progress[0]
        seconds = ended_at - first_time.timestamp()
        if seconds > 0 and records > first_count:
            records_per_s = (records - first_count) / seconds
            return perf_tools.Rate(records_per_s, records_per_s * record_size / perf_tools.MIB)
    raise RuntimeError(f"{what}: no progress to time in its output: {output[-500:]!r}")


def raw_limit(cleanup: Cleanup, settings: Settings, source_topic: str, record_size: int, clients: int) -> dict[str, Any]:
    """Kafka's perf tools with MM2's client settings, in the Connect workers' containers where MM2's
    tasks run: one producer into the target and one consumer of the source topic each alone, then
    `clients` producers beside `clients` consumers, once per compression of RAW_COMPRESSIONS. MM2
    consumes and produces at the same time on the same cores with as many clients as tasks: the
    best concurrent run is the ceiling."""
    records = settings.records_for(record_size)
    prefix = f"src.bench.{settings.run_id}.raw{record_size}"
    labels = ("alone", *RAW_COMPRESSIONS)
    for label in labels:
        retry(lambda label=label: lab.create_topic(TARGET, cleanup.topic(TARGET, f"{prefix}.{label}"),
                                                   DEFAULT_PARTITIONS, "message.timestamp.type=LogAppendTime"),
              "create raw topic")
    group = f"bench-{settings.run_id}-raw{record_size}"
    hosts = client_hosts(clients)
    try:
        with contextlib.ExitStack() as stack:
            configs = {host: (stack.enter_context(perf_tools.client_config(host, perf_tools.MM2_ACCOUNT)),
                              stack.enter_context(perf_tools.client_config(host, perf_tools.READER_ACCOUNT)))
                       for host in sorted(set(hosts))}
            first = hosts[0]
            producer_alone = retry(lambda: perf_tools.run_producer(
                first, TARGET, f"{prefix}.alone", records, record_size, configs[first][0]), "raw producer")
            consumer_alone = retry(lambda: perf_tools.run_consumer(
                first, SOURCE, source_topic, records, configs[first][1], f"{group}.alone"), "raw consumer")
            runs = []
            for compression in RAW_COMPRESSIONS:
                print(f"  {clients} producers ({compression}) beside {clients} consumers")
                runs.append(concurrent_raw_run(hosts, configs, f"{prefix}.{compression}", source_topic, records,
                                               record_size, f"{group}.{compression}", compression))
    finally:
        for label in labels:
            lab.delete_group(SOURCE, f"{group}.{label}")
            for index in range(clients):
                lab.delete_group(SOURCE, consumer_group(f"{group}.{label}", index))
    return {"clients": clients, "hosts": hosts, "partitions": DEFAULT_PARTITIONS, "records": records,
            "producer_target": producer_alone.as_dict(), "consumer_source": consumer_alone.as_dict(),
            "runs": runs, "ceiling": measures.best_ceiling(runs)}


def mm2_figure(drained: measures.Drain, raw: Optional[dict[str, Any]]) -> dict[str, Any]:
    figure: dict[str, Any] = drained.as_dict()
    if raw:
        figure["ratio_to_ceiling"] = measures.ratio(drained.rate.records_per_s, raw["ceiling"]["records_per_s"])
    return figure


def throughput(settings: Settings, with_raw: bool, with_mm2: bool, with_stock: bool) -> dict[str, Any]:
    """Per record size: fill one source topic, measure the raw limit on it, then drain it with
    the defaults and with the stock config (each to its own remote topic)."""
    results: dict[str, Any] = {"raw": {}, "mm2_defaults": {}, "stock": {}}
    live = flows.defaults_flow() if with_mm2 or with_raw else None
    defaults = live if with_mm2 else None
    # The raw ceiling runs as many clients as the defaults' connector has source tasks on the topic.
    clients = measures.raw_clients(int(live.base_config.get("tasks.max", "1")), DEFAULT_PARTITIONS) if live else 1
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
            # Twice the timed records: every figure counts from the end of a warm-up as long.
            records = settings.records_for(record_size)
            print(f"filling {topic}: {2 * records} records of {record_size} B")
            perf_tools.fill_topic(SOURCE, topic, 2 * records, record_size)
            raw = None
            if with_raw:
                print(f"raw limit, {record_size} B")
                raw = results["raw"][key] = raw_limit(cleanup, settings, topic, record_size, clients)
            if defaults:
                print(f"MM2 drain with the collection's defaults, {record_size} B")
                drained = drain(cleanup, defaults, f"bench-{settings.run_id}-defaults{record_size}", topic,
                                2 * records, record_size, profile=True, warmup_records=records)
                results["mm2_defaults"][key] = mm2_figure(drained, raw)
            if stock:
                print(f"MM2 drain with the guide's stock config, {record_size} B")
                with flows.granted(stock):
                    drained = drain(cleanup, stock, f"bench-{settings.run_id}-stock{record_size}", topic,
                                    2 * records, record_size, warmup_records=records)
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

# How long a load waits, once sent, for its last records on the target before the curve stops.
POINT_WAIT_S = 180.0
# A point that delivered less than this share of its offered rate ends the curve: the chain cannot
# carry it, and higher points would only queue longer.
FAR_BEHIND = 0.5
# The load's producer is an application's: acknowledged by every replica, batches of up to 5 ms.
LOAD_PRODUCER_PROPS = ("acks=all", "linger.ms=5")
# How long the reading of a topic's timestamps waits for a record before it ends.
STAMPS_IDLE_TIMEOUT_MS = 60000


def offer(topic: str, rate: float, seconds: float, record_size: int) -> int:
    """ProducerPerformance on the source paced at `rate` records/s for `seconds`; returns the
    records sent. The producer stamps each record with its send time (CreateTime), so the source's
    log holds the start of every record's latency and no harness sits in its path."""
    records = max(int(rate * seconds), 1)
    perf_tools.run_tool(SOURCE, perf_tools.PRODUCER_PERFORMANCE, "--topic", topic, "--num-records", str(records),
                        "--record-size", str(record_size), "--throughput", str(max(int(rate), 1)),
                        "--command-config", lab.ADMIN_CLIENT_CONFIG, "--bootstrap-server", lab.bootstrap(SOURCE),
                        "--command-property", *LOAD_PRODUCER_PROPS, timeout=int(seconds) + 600)
    return records


def copied(remote: str, wanted: dict[int, int]) -> bool:
    """The remote topic reached the source's end offsets in every partition."""
    ends = lab.end_offsets(TARGET, remote)
    return all(ends.get(partition, 0) >= end for partition, end in wanted.items())


def read_stamps(host: str, topic: str, records: int) -> measures.Stamps:
    """Every record's timestamp by partition and offset, read after the loads (reading while they
    run would take CPU from MM2), streamed from the console consumer as it prints."""
    process = perf_tools.start_tool(
        host, lab.CONSOLE_CONSUMER, "--bootstrap-server", lab.bootstrap(host), "--command-config",
        lab.ADMIN_CLIENT_CONFIG, "--topic", topic, "--from-beginning", "--max-messages", str(records),
        "--timeout-ms", str(STAMPS_IDLE_TIMEOUT_MS), "--consumer-property", "allow.auto.create.topics=false",
        *(argument for name in ("timestamp", "partition", "offset") for argument in
          ("--formatter-property", f"print.{name}=true")), "--formatter-property", "print.value=false")
    stamps = measures.parse_stamps(process.stdout or ())
    perf_tools.finish_tool(process, f"reading the timestamps of {topic} on {host}")
    return stamps


@dataclass(frozen=True)
class Load:
    fraction: float
    rate: float
    sent: int
    ranges: measures.OffsetRanges
    complete: bool


class LatencyRun:
    """A flow's connector copying a topic of its own into an empty remote topic (LogAppendTime),
    loaded at one rate after another. The latencies come from the two logs afterwards: each
    record's send time on the source against its append time on the target, matched by partition
    and offset (measures.matched_stamps)."""

    def __init__(self, cleanup: Cleanup, flow: flows.Flow, name: str, topic: str, record_size: int) -> None:
        self.topic, self.remote, self.record_size = topic, flow.remote_topic(topic), record_size
        self.loads: list[Load] = []
        self.ends = {partition: 0 for partition in range(DEFAULT_PARTITIONS)}
        create_topic_pair(cleanup, topic, self.remote, DEFAULT_PARTITIONS)
        cleanup.connectors.append(name)
        retry(lambda: flows.deploy(name, flow.config_for(name, topic)), f"deploy {name}")
        expected = {f"{topic}-{partition}" for partition in range(DEFAULT_PARTITIONS)}
        lab.wait_until(lambda: expected <= lab.task_assignments(name, "task.assigned.partitions"), 120,
                       f"{name} to read {topic}")

    def offer(self, fraction: float, rate: float, seconds: float) -> bool:
        """One load, then the wait for it on the target. False when the curve should end here: not
        all of it arrived within POINT_WAIT_S, or it arrived at under FAR_BEHIND of the rate (an
        estimate from the wall clock; the figures come from the logs)."""
        print(f"latency: {fraction:.0%} of the drain rate, {rate:,.0f} records/s of {self.record_size} B for {seconds} s")
        started = time.monotonic()
        sent = offer(self.topic, rate, seconds, self.record_size)
        ends = lab.end_offsets(SOURCE, self.topic)
        try:
            lab.wait_until(lambda: copied(self.remote, ends), POINT_WAIT_S, f"{self.remote} to catch up", interval=0.5)
            complete = True
        except lab.Deadline:
            complete = False
        took_s = time.monotonic() - started
        self.loads.append(Load(fraction, rate, sent, measures.offset_ranges(self.ends, ends), complete))
        self.ends = ends
        if not complete:
            print(f"  {fraction:.0%}: not all records arrived within {POINT_WAIT_S:.0f} s; the curve ends here")
            return False
        if sent / took_s < FAR_BEHIND * rate:
            print(f"  {fraction:.0%}: delivered under {FAR_BEHIND:.0%} of the offered rate; the curve ends here")
            return False
        return True

    def points(self, warmup_s: float) -> list[dict[str, Any]]:
        """The figures of every load, from both logs. A last load still on its way gets another
        POINT_WAIT_S; one that never arrived in full is measured on what did."""
        with contextlib.suppress(lab.Deadline):
            lab.wait_until(lambda: copied(self.remote, self.ends), POINT_WAIT_S, f"{self.remote} to catch up")
        records = sum(self.ends.values())
        target_ends = lab.end_offsets(TARGET, self.remote)
        if any(target_ends.get(partition, 0) > end for partition, end in self.ends.items()):
            raise RuntimeError(f"{self.remote} holds more records than {self.topic} ({target_ends} against "
                               f"{self.ends}): a task replayed, and offsets no longer match records")
        source, target = read_stamps(SOURCE, self.topic, records), read_stamps(TARGET, self.remote, records)
        return [measures.latency_point(load.fraction, load.rate, load.sent,
                                       measures.matched_stamps(source, target, load.ranges), warmup_s * 1000,
                                       load.complete)
                for load in self.loads]


def latency(settings: Settings, drain_rate: float, warmup_s: float = 5.0) -> dict[str, Any]:
    """The latency curve: the defaults' flow on one topic, loaded at each fraction of drain_rate
    (settings.latency_fractions, lowest first) for settings.latency_seconds each; per point
    p50/p99/max from the send on the source to the append on the target, the rate sent and the
    rate delivered. The curve ends at a load that does not arrive in full within POINT_WAIT_S or
    arrives at under FAR_BEHIND of its rate."""
    record_size = settings.record_sizes[0]
    cleanup = Cleanup()
    try:
        run = LatencyRun(cleanup, flows.defaults_flow(), f"bench-{settings.run_id}-latency",
                         f"bench.{settings.run_id}.latency", record_size)
        for fraction in sorted(settings.latency_fractions):
            if not run.offer(fraction, drain_rate * fraction, settings.latency_seconds):
                break
        points = run.points(warmup_s)
    finally:
        cleanup.run()
    return {"drain_records_per_s": round(drain_rate, 1), "record_size": record_size,
            "seconds": settings.latency_seconds, "warmup_s": warmup_s, "harness": "ProducerPerformance",
            "fractions": sorted(settings.latency_fractions), "points": points,
            "knee_fraction": measures.knee(points, report.GOAL_P99_MS), "first_behind_fraction": measures.first_behind(points)}
