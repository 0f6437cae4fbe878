"""Kafka's own perf tools (ProducerPerformance, ConsumerPerformance) inside the lab's broker
containers, with the SASL_SSL client settings of the lab's accounts, and parsers for their output.

The parsers are pure (unit tested); the runners go through `docker exec`.
"""

from __future__ import annotations

import re
import subprocess
from contextlib import contextmanager
from datetime import datetime
from dataclasses import dataclass
from typing import Iterator, Optional

from tests.integration import lab

PRODUCER_PERFORMANCE = "org.apache.kafka.tools.ProducerPerformance"
CONSUMER_PERFORMANCE = "org.apache.kafka.tools.ConsumerPerformance"
MIB = 1024 * 1024
# kafka-run starts tools with the C1 compiler alone, a serial GC and 256 MiB (its default
# KAFKA_TOOL_OPTS): quick to start, but such a JVM runs at less than a third of a full one, and a
# measuring tool would be slower than the Connect workers it is compared with. KAFKA_TOOL_OPTS
# replaces those flags as a whole: the perf tools and the latency clients get the full tiered JIT
# (C2) and G1, named explicitly since JVM ergonomics pick the serial collector on small containers.
PERF_JVM_OPTIONS = "-Xms512m -Xmx512m -XX:TieredStopAtLevel=4 -XX:+UseG1GC"
PERF_JVM_ENV = ("-e", f"KAFKA_TOOL_OPTS={PERF_JVM_OPTIONS}")

# The producer settings the collection's flows give MM2's producer (roles/mirrormaker defaults:
# producer.override.*), so the raw producer figure is what the same client settings can reach
# without MM2 in between. acks=all is what Connect gives every source task's producer.
FLOW_PRODUCER_PROPS = ("acks=all", "linger.ms=20", "batch.size=131072", "compression.type=lz4")
# ConsumerPerformance's --timeout in the concurrent runs: how long a consumer waits for a record
# before it gives up. It counts from the JVM's start, and beside other load on two cores the start,
# TLS handshake and group join have outlasted 10 s; the consumers end on their record count, so a
# long wait costs nothing (a consumer that did time out has that wait left out of its rate).
GROUP_IDLE_TIMEOUT_MS = 60000
# How often a consumer with --show-detailed-stats prints its running totals.
REPORTING_INTERVAL_MS = 1000
# The line ConsumerPerformance prints when it ended on its --timeout rather than its record count.
_CONSUMER_TIMED_OUT = "Exiting before consuming the expected number of messages"


@dataclass(frozen=True)
class Rate:
    """A throughput: records and MiB per second."""

    records_per_s: float
    mib_per_s: float

    def as_dict(self) -> dict[str, float]:
        return {"records_per_s": round(self.records_per_s, 1), "mib_per_s": round(self.mib_per_s, 3)}


@dataclass(frozen=True)
class ClientAccount:
    """A SASL account of the lab (.lab/secrets/<secret>) and how it authenticates: PLAIN, or SCRAM
    with the mechanism the lab's clients use now (a rotation drill may have moved it)."""

    username: str
    secret: str
    mechanism: str  # "PLAIN" or "SCRAM"

    def sasl_mechanism(self) -> str:
        return lab.scram_mechanism() if self.mechanism == "SCRAM" else self.mechanism

    def properties(self, password: str) -> str:
        module = ("org.apache.kafka.common.security.scram.ScramLoginModule" if self.mechanism == "SCRAM"
                  else "org.apache.kafka.common.security.plain.PlainLoginModule")
        return "\n".join([
            "security.protocol=SASL_SSL",
            f"sasl.mechanism={self.sasl_mechanism()}",
            f'sasl.jaas.config={module} required username="{self.username}" password="{password}";',
            "ssl.truststore.type=PEM",
            f"ssl.truststore.location={lab.LAB_CA}",
        ]) + "\n"


# MM2's account writes remote topics (prefix "src.") on the target; it may only describe groups on
# the source, so the consumer side reads as the validation job's account (Read on every topic and
# group). Both use SASL_SSL like MM2; SCRAM and PLAIN differ only in the login, not per record.
MM2_ACCOUNT = ClientAccount("mm2", "mm2", "SCRAM")
READER_ACCOUNT = ClientAccount("validator", "validator", "PLAIN")


def client_bootstrap(host: str) -> str:
    """The SASL_SSL listener that MM2 and applications use (not the admin listener)."""
    return f"{host}:{lab.CLIENT_PORT}"


def with_compression(props: tuple[str, ...], compression: str) -> tuple[str, ...]:
    """The producer settings with compression.type replaced (or added)."""
    return (*(prop for prop in props if not prop.startswith("compression.type=")), f"compression.type={compression}")


def tool_command(host: str, main_class: str, *args: str) -> list[str]:
    """`docker exec` of a Kafka main class through kafka-run with the perf tools' JVM flags."""
    return ["docker", "exec", *PERF_JVM_ENV, host, lab.KAFKA_RUN, main_class, *args]


def run_tool(host: str, main_class: str, *args: str, timeout: int = 900) -> str:
    """Run a Kafka main class in a lab container with exactly these arguments (no admin settings
    added, unlike lab.kafka_run) and return its stdout; raise on failure."""
    done = subprocess.run(tool_command(host, main_class, *args), capture_output=True, text=True, timeout=timeout,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{main_class} on {host} exited {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout


def start_tool(host: str, main_class: str, *args: str) -> "subprocess.Popen[str]":
    """The same, started in the background (for runs side by side)."""
    return subprocess.Popen(tool_command(host, main_class, *args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def finish_tool(process: "subprocess.Popen[str]", what: str, timeout: int = 900) -> str:
    stdout, stderr = process.communicate(timeout=timeout)
    if process.returncode != 0:
        raise RuntimeError(f"{what} exited {process.returncode}: {stderr[-2000:]}")
    return stdout


@contextmanager
def client_config(host: str, account: ClientAccount) -> Iterator[str]:
    """A root-only client properties file for the account in the container, removed afterwards.
    The password goes through stdin, never on a command line."""
    path = f"/root/bench-{account.username}-client.properties"
    subprocess.run(["docker", "exec", "-i", host, "sh", "-c", f"umask 077 && cat > {path}"],
                   input=account.properties(lab.lab_secret(account.secret)), text=True, check=True)
    try:
        yield path
    finally:
        subprocess.run(["docker", "exec", host, "rm", "-f", path], check=False, capture_output=True)


def producer_args(topic: str, records: int, record_size: int, config_path: str, bootstrap: str,
                  props: tuple[str, ...] = FLOW_PRODUCER_PROPS, throughput: int = -1,
                  warmup_records: int = 0) -> list[str]:
    """records include the warm-up records, which the steady-state summary leaves out."""
    warmup = ["--warmup-records", str(warmup_records)] if warmup_records else []
    return ["--topic", topic, "--num-records", str(records), "--record-size", str(record_size),
            "--throughput", str(throughput), *warmup, "--command-config", config_path,
            "--bootstrap-server", bootstrap, "--command-property", *props]


def consumer_args(topic: str, records: int, config_path: str, bootstrap: str, group: str,
                  idle_timeout_ms: int = 60000, detailed: bool = False) -> list[str]:
    """detailed: a line of running totals each REPORTING_INTERVAL_MS instead of the summary."""
    # A generous fetch size: the default (1 MiB per partition) would make the tool, not the
    # brokers, the limit on 1 KiB records.
    intervals = ["--show-detailed-stats", "--reporting-interval", str(REPORTING_INTERVAL_MS)] if detailed else []
    return ["--bootstrap-server", bootstrap, "--topic", topic, "--num-records", str(records),
            "--command-config", config_path, "--group", group, "--fetch-size", str(4 * MIB),
            "--timeout", str(idle_timeout_ms), *intervals]


# (wall time of the line, MiB read so far, records read so far)
Progress = tuple[datetime, float, int]


def parse_consumer_progress(output: str) -> list[Progress]:
    """The running totals of a ConsumerPerformance run with --show-detailed-stats, one per line.
    The tool prints a line when a poll returns records REPORTING_INTERVAL_MS after the last one:
    a run shorter than that prints one line, at its first record."""
    progress: list[Progress] = []
    for line in output.splitlines():
        columns = [column.strip() for column in line.split(",")]
        if len(columns) < 6 or columns[0] == "time":
            continue
        try:
            progress.append((datetime.strptime(columns[0], "%Y-%m-%d %H:%M:%S:%f"), float(columns[2]), int(columns[4])))
        except ValueError:
            continue
    return progress


def parse_consumer_steady(output: str) -> Optional[Rate]:
    """The rate of a ConsumerPerformance run with --show-detailed-stats from the line at which it
    had read half its records to its last line: the first half warms its JVM, as the producers'
    warm-up records do. None with fewer than two lines to time."""
    progress = parse_consumer_progress(output)
    if len(progress) < 2:
        return None
    last = progress[-1]
    start = next(entry for entry in progress if entry[2] >= last[2] / 2)
    if start is last:
        start = progress[-2]
    seconds = (last[0] - start[0]).total_seconds()
    if seconds <= 0:
        return None
    return Rate((last[2] - start[2]) / seconds, (last[1] - start[1]) / seconds)


def timed_out(output: str) -> bool:
    """ConsumerPerformance ended on its --timeout (its partitions were read before its count)."""
    return _CONSUMER_TIMED_OUT in output


# ---- parsers ------------------------------------------------------------------------------------

_PRODUCER_SUMMARY = re.compile(
    r"(?P<records>\d+) records sent, (?P<rps>[\d.]+) records/sec \((?P<mibps>[\d.]+) MB/sec\), "
    r"(?P<avg>[\d.]+) ms avg latency, (?P<max>[\d.]+) ms max latency")


@dataclass(frozen=True)
class ProducerSummary:
    records: int
    rate: Rate
    avg_latency_ms: float
    max_latency_ms: float


_PRODUCER_STEADY = re.compile(
    r"(?P<records>\d+) steady state records sent, (?P<rps>[\d.]+) records/sec \((?P<mibps>[\d.]+) MB/sec\), "
    r"(?P<avg>[\d.]+) ms avg latency, (?P<max>[\d.]+) ms max latency")


def parse_producer_steady(output: str) -> Optional[ProducerSummary]:
    """The steady-state summary ProducerPerformance prints after its warm-up records
    (--warmup-records): the records after the warm-up, timed from the first of them to the last
    acknowledgement. None without one."""
    match = _PRODUCER_STEADY.search(output)
    if not match:
        return None
    return ProducerSummary(int(match["records"]), Rate(float(match["rps"]), float(match["mibps"])),
                           float(match["avg"]), float(match["max"]))


def parse_producer_summary(output: str) -> ProducerSummary:
    """The final line of ProducerPerformance: the last match wins (the interim lines each cover
    only a reporting interval; the final one has the percentiles after the max latency)."""
    matches = list(_PRODUCER_SUMMARY.finditer(output))
    if not matches:
        raise ValueError(f"no ProducerPerformance summary in: {output[-500:]!r}")
    last = matches[-1]
    # ProducerPerformance's "MB" is 1024 * 1024 bytes.
    return ProducerSummary(int(last["records"]), Rate(float(last["rps"]), float(last["mibps"])),
                           float(last["avg"]), float(last["max"]))


def parse_consumer_summary(output: str, idle_timeout_ms: int = 0) -> Rate:
    """ConsumerPerformance's CSV summary (a header and one row). The fetch.* columns cover the time
    after the consumer joined its group; the plain columns include the join, which is not data
    throughput. Its "MB" is 1024 * 1024 bytes too.

    A consumer that ended on its --timeout (idle_timeout_ms: its partitions were read before its
    record count was reached, as in a group run) counted that idle wait as fetch time: it is left
    out, within the tool's 100 ms poll."""
    lines = [line for line in output.splitlines() if line.strip()]
    header_index = next((index for index, line in enumerate(lines) if line.startswith("start.time")), None)
    header = lines[header_index] if header_index is not None else ""
    # The row has the header's columns; a timeout warning may come between them.
    row = next((line for line in lines[(header_index or 0) + 1:] if line.count(",") == header.count(",")), None)
    if header_index is None or row is None:
        raise ValueError(f"no ConsumerPerformance summary in: {output[-500:]!r}")
    columns = dict(zip([name.strip() for name in header.split(",")], [value.strip() for value in row.split(",")]))
    if timed_out(output) and idle_timeout_ms:
        active_s = (float(columns.get("fetch.time.ms", "0") or 0) - idle_timeout_ms) / 1000
        records = float(columns["data.consumed.in.nMsg"])
        if active_s > 0:
            return Rate(records / active_s, float(columns["data.consumed.in.MB"]) / active_s)
        if not records:
            return Rate(0.0, 0.0)
    fetch_records = float(columns.get("fetch.nMsg.sec", "0") or 0)
    if fetch_records > 0:
        return Rate(fetch_records, float(columns["fetch.MB.sec"]))
    return Rate(float(columns["nMsg.sec"]), float(columns["MB.sec"]))


def run_producer(host: str, broker: str, topic: str, records: int, record_size: int, config_path: str,
                 props: tuple[str, ...] = FLOW_PRODUCER_PROPS) -> Rate:
    """ProducerPerformance in container `host` writing to `broker`'s client listener: as many
    warm-up records first, then `records` timed (its steady state)."""
    output = run_tool(host, PRODUCER_PERFORMANCE, *producer_args(
        topic, 2 * records, record_size, config_path, client_bootstrap(broker), props, warmup_records=records))
    return (parse_producer_steady(output) or parse_producer_summary(output)).rate


def run_consumer(host: str, broker: str, topic: str, records: int, config_path: str, group: str) -> Rate:
    """ConsumerPerformance in container `host` reading from `broker`'s client listener."""
    output = run_tool(host, CONSUMER_PERFORMANCE,
                      *consumer_args(topic, records, config_path, client_bootstrap(broker), group))
    return parse_consumer_summary(output)


def fill_topic(host: str, topic: str, records: int, record_size: int, timeout: int = 1800,
               props: Optional[tuple[str, ...]] = None) -> ProducerSummary:
    """Pre-produce a backlog as the lab's admin (the broker's own certificate, admin listener):
    fast, and it needs no ACL of its own."""
    output = run_tool(host, PRODUCER_PERFORMANCE, "--topic", topic, "--num-records", str(records),
                      "--record-size", str(record_size), "--throughput", "-1",
                      "--command-config", lab.ADMIN_CLIENT_CONFIG, "--bootstrap-server", lab.bootstrap(host),
                      "--command-property",
                      *(props or ("acks=all", "linger.ms=20", "batch.size=262144")), timeout=timeout)
    return parse_producer_summary(output)
