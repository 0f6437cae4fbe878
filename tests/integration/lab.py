"""Access to the lab's real Kafka clusters, from the test process, through docker exec."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

KAFKA_RUN = "/opt/kafka/kafka-run"
SOURCE_BROKER = "src-kafka-1"
TARGET_BROKER = "dst-kafka-1"
CONNECT_WORKERS = ("task-1-1", "task-1-2")


@dataclass(frozen=True)
class Record:
    partition: int
    key: str
    value: str
    headers: tuple[tuple[str, str], ...]


def container_running(name: str) -> bool:
    probe = subprocess.run(["docker", "inspect", "-f", "{{.State.Running}}", name],
                           capture_output=True, text=True, check=False)
    return probe.returncode == 0 and probe.stdout.strip() == "true"


def kafka_run(host: str, main_class: str, *args: str, stdin: str | None = None,
              timeout: int = 180) -> str:
    """Run a Kafka main class inside a lab host and return its stdout; raise on failure."""
    command = ["docker", "exec", "-i", host, KAFKA_RUN, main_class, *args]
    done = subprocess.run(command, input=stdin, capture_output=True, text=True,
                          timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{main_class} on {host} exited {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout


def bootstrap(host: str) -> str:
    return f"{host}:9092"


def create_topic(host: str, topic: str, partitions: int, *configs: str) -> None:
    args = ["--bootstrap-server", bootstrap(host), "--create", "--if-not-exists",
            "--topic", topic, "--partitions", str(partitions)]
    for config in configs:
        args += ["--config", config]
    kafka_run(host, "org.apache.kafka.tools.TopicCommand", *args)


def produce(host: str, topic: str, records: list[Record]) -> None:
    """Produce with the console producer: headers, key and value per line (tab separated).

    The partition of each record is chosen by the key's hash; the field is ignored here.
    """
    lines = []
    for record in records:
        headers = ",".join(f"{name}:{value}" for name, value in record.headers)
        lines.append(f"{headers}\t{record.key}\t{record.value}")
    kafka_run(host, "org.apache.kafka.tools.ConsoleProducer",
              "--bootstrap-server", bootstrap(host), "--topic", topic,
              "--reader-property", "parse.key=true", "--reader-property", "parse.headers=true",
              "--producer-property", "acks=all", "--producer-property", "linger.ms=20",
              stdin="\n".join(lines) + "\n")


def consume_all(host: str, topic: str, expected: int, timeout_ms: int = 60000) -> list[Record]:
    """Read a topic from the beginning with the console consumer, printing partition, headers and key."""
    output = kafka_run(host, "org.apache.kafka.tools.consumer.ConsoleConsumer",
                       "--bootstrap-server", bootstrap(host), "--topic", topic,
                       "--from-beginning", "--max-messages", str(expected),
                       "--timeout-ms", str(timeout_ms),
                       "--formatter-property", "print.partition=true", "--formatter-property", "print.headers=true",
                       "--formatter-property", "print.key=true")
    return [parse_consumer_line(line) for line in output.splitlines() if line.strip()]


def parse_consumer_line(line: str) -> Record:
    # Console consumer layout: "Partition:<n>\t<headers>\t<key>\t<value>".
    partition_field, headers_field, key, value = line.split("\t", 3)
    headers: tuple[tuple[str, str], ...] = ()
    if headers_field != "NO_HEADERS":
        headers = tuple(tuple(pair.split(":", 1)) for pair in headers_field.split(","))  # type: ignore[misc]
    return Record(int(partition_field.split(":", 1)[1]), key, value, headers)
