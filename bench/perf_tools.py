"""Kafka's own perf tools (ProducerPerformance, ConsumerPerformance) inside the lab's broker
containers, with the SASL_SSL client settings of the lab's accounts, and parsers for their output.

The parsers are pure (unit tested); the runners go through `docker exec`.
"""

from __future__ import annotations

import re
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Optional

from tests.integration import lab

PRODUCER_PERFORMANCE = "org.apache.kafka.tools.ProducerPerformance"
CONSUMER_PERFORMANCE = "org.apache.kafka.tools.ConsumerPerformance"
MIB = 1024 * 1024
# kafka-run starts tools with the C1 compiler alone, a serial GC and 256 MiB: quick to start, but
# a measuring tool would then be slower than the Connect workers it is compared with. The perf
# tools and the latency clients get the full JIT and the default collector.
PERF_JVM_ENV = ("-e", "KAFKA_TOOL_OPTS=-Xms512m -Xmx512m")

# The producer settings the collection's flows give MM2's producer (roles/mirrormaker defaults:
# producer.override.*), so the raw producer figure is what the same client settings can reach
# without MM2 in between. acks=all is what Connect gives every source task's producer.
FLOW_PRODUCER_PROPS = ("acks=all", "linger.ms=20", "batch.size=131072", "compression.type=lz4")


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


def run_tool(host: str, main_class: str, *args: str, timeout: int = 900) -> str:
    """Run a Kafka main class in a lab container with exactly these arguments (no admin settings
    added, unlike lab.kafka_run) and return its stdout; raise on failure."""
    command = ["docker", "exec", *PERF_JVM_ENV, host, lab.KAFKA_RUN, main_class, *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{main_class} on {host} exited {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout


def start_tool(host: str, main_class: str, *args: str) -> "subprocess.Popen[str]":
    """The same, started in the background (for runs side by side)."""
    return subprocess.Popen(["docker", "exec", *PERF_JVM_ENV, host, lab.KAFKA_RUN, main_class, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


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
                  props: tuple[str, ...] = FLOW_PRODUCER_PROPS, throughput: int = -1) -> list[str]:
    return ["--topic", topic, "--num-records", str(records), "--record-size", str(record_size),
            "--throughput", str(throughput), "--command-config", config_path,
            "--bootstrap-server", bootstrap, "--command-property", *props]


def consumer_args(topic: str, records: int, config_path: str, bootstrap: str, group: str) -> list[str]:
    # A generous fetch size: the default (1 MiB per partition) would make the tool, not the
    # brokers, the limit on 1 KiB records.
    return ["--bootstrap-server", bootstrap, "--topic", topic, "--num-records", str(records),
            "--command-config", config_path, "--group", group, "--fetch-size", str(4 * MIB),
            "--timeout", "60000"]


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


def parse_consumer_summary(output: str) -> Rate:
    """ConsumerPerformance's CSV summary (a header and one row). The fetch.* columns cover the time
    after the consumer joined its group; the plain columns include the join, which is not data
    throughput. Its "MB" is 1024 * 1024 bytes too."""
    lines = [line for line in output.splitlines() if line.strip()]
    header_index = next((index for index, line in enumerate(lines) if line.startswith("start.time")), None)
    if header_index is None or header_index + 1 >= len(lines):
        raise ValueError(f"no ConsumerPerformance summary in: {output[-500:]!r}")
    names = [name.strip() for name in lines[header_index].split(",")]
    values = [value.strip() for value in lines[header_index + 1].split(",")]
    columns = dict(zip(names, values))
    fetch_records = float(columns.get("fetch.nMsg.sec", "0") or 0)
    if fetch_records > 0:
        return Rate(fetch_records, float(columns["fetch.MB.sec"]))
    return Rate(float(columns["nMsg.sec"]), float(columns["MB.sec"]))


def run_producer(host: str, topic: str, records: int, record_size: int, config_path: str,
                 props: tuple[str, ...] = FLOW_PRODUCER_PROPS) -> ProducerSummary:
    output = run_tool(host, PRODUCER_PERFORMANCE,
                      *producer_args(topic, records, record_size, config_path, client_bootstrap(host), props))
    return parse_producer_summary(output)


def run_consumer(host: str, topic: str, records: int, config_path: str, group: str) -> Rate:
    output = run_tool(host, CONSUMER_PERFORMANCE,
                      *consumer_args(topic, records, config_path, client_bootstrap(host), group))
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
