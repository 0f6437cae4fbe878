"""Estates the collection did not build: Kafka brokers and a Kafka Connect of other releases,
started from distributions assembled from Maven Central's unmodified artifacts
(scripts/build_kafka_dist.sh), in containers on the lab network, the way an existing estate runs
them: plain `java -cp libs/*` of the release's own main classes, ZooKeeper before 3.0 and KRaft
after, PLAINTEXT listeners, and a Connect with no config provider, no REST authentication and no
`kafka-run` of the collection's.

Every container carries the label kafka-dr.itest=true and is removed by the test that made it
(`lab.remove_container`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from tests.integration import lab

CACHE = Path(os.environ.get("KAFKA_DR_CACHE", Path.home() / ".cache" / "kafka-dr"))
BUILD_DIST = lab.REPO_ROOT / "scripts" / "build_kafka_dist.sh"
# Short-lived test JVMs: C1 and a serial GC, as the lab's own extra brokers.
JVM_OPTIONS = ("-Xms256m", "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
LOG4J2 = """status = warn
appender.out.type = Console
appender.out.name = out
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.out.ref = out
"""
CONNECT_PORT = 8083


@dataclass(frozen=True)
class Release:
    """A Kafka release as the estate runs it; `flavour` full carries Connect and MirrorMaker 2,
    broker only the brokers and tools (Maven Central serves no connect-mirror of 2.4.1 or 4.4.0)."""

    version: str
    scala: str
    flavour: str = "broker"
    # The topic tool's class: moved from core to the tools module in 3.5.
    topic_command: str = "org.apache.kafka.tools.TopicCommand"

    @property
    def zookeeper(self) -> bool:
        return int(self.version.split(".")[0]) < 3

    @property
    def home(self) -> str:
        return f"/opt/kafka_{self.scala}-{self.version}"

    @property
    def archive(self) -> Path:
        suffix = "" if self.flavour == "full" else "-broker"
        return CACHE / "dist" / f"kafka_{self.scala}-{self.version}{suffix}.tgz"


RELEASES = {
    # The reference guides' floor: EMR's "Kafka 2.12_2.4.1", ZooKeeper mode.
    "2.4.1": Release("2.4.1", "2.12", "broker", "kafka.admin.TopicCommand"),
    # The oldest Connect whose MirrorMaker 2 Maven Central serves (no stop endpoint, no restart of
    # tasks with their connector): ZooKeeper brokers, a plain connect-distributed.
    "2.8.2": Release("2.8.2", "2.13", "full", "kafka.admin.TopicCommand"),
    # The last 3.x line, KRaft; with Connect, for the plain connect-distributed.
    "3.9.1": Release("3.9.1", "2.13", "full"),
    # The newest release.
    "4.4.0": Release("4.4.0", "2.13"),
}


def ensure_dist(release: Release) -> Path:
    """The release's tarball in the cache, assembled once (scripts/build_kafka_dist.sh)."""
    env = dict(os.environ, KAFKA_VERSION=release.version, KAFKA_SCALA_VERSION=release.scala,
               KAFKA_DIST_FLAVOUR=release.flavour)
    done = subprocess.run([str(BUILD_DIST)], env=env, capture_output=True, text=True, timeout=1800, check=False)
    if done.returncode != 0 or not release.archive.is_file():
        raise RuntimeError(f"assembling Kafka {release.version} failed: {done.stderr[-2000:]}")
    return release.archive


def _docker(*args: str, stdin: Optional[str] = None, timeout: int = 300) -> str:
    done = subprocess.run(["docker", *args], input=stdin, capture_output=True, text=True, check=False, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"docker {' '.join(args[:4])} failed: {done.stderr[-1500:]}")
    return done.stdout


def _container(name: str) -> None:
    lab.remove_container(name)
    _docker("run", "-d", "--name", name, "--hostname", name, "--network", lab.LAB_NETWORK, "--label",
            "kafka-dr.itest=true", "--tmpfs", "/tmp", lab.LAB_IMAGE, "sleep", "infinity")


def _install(name: str, release: Release) -> None:
    archive = ensure_dist(release)
    _docker("cp", str(archive), f"{name}:/var/tmp/{archive.name}")
    _docker("exec", name, "sh", "-c", f"tar -C /opt -xzf /var/tmp/{archive.name} && rm /var/tmp/{archive.name}"
            " && mkdir -p /etc/kafka /var/lib/kafka")
    _write(name, "/etc/kafka/log4j2.properties", LOG4J2)


def _write(name: str, path: str, content: str) -> None:
    _docker("exec", "-i", name, "sh", "-c", f"cat > {path}", stdin=content)


def _java(name: str, release: Release, main_class: str, *args: str, log: str) -> None:
    """Start a main class of the release in the background, as its bin/ scripts would."""
    command = ["exec", "java", *JVM_OPTIONS, "-Dlog4j2.configurationFile=/etc/kafka/log4j2.properties",
               "-cp", f"'{release.home}/libs/*'", main_class, *args, f">> {log} 2>&1"]
    _docker("exec", "-d", name, "sh", "-c", " ".join(command))


def _properties(settings: dict[str, Any]) -> str:
    return "".join(f"{key}={value}\n" for key, value in settings.items())


def broker_settings(name: str, release: Release) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "listeners": "PLAINTEXT://0.0.0.0:9092", "advertised.listeners": f"PLAINTEXT://{name}:9092",
        "log.dirs": "/var/lib/kafka/data", "num.partitions": 1, "default.replication.factor": 1,
        "offsets.topic.replication.factor": 1, "transaction.state.log.replication.factor": 1,
        "transaction.state.log.min.isr": 1, "group.initial.rebalance.delay.ms": 0,
    }
    if release.zookeeper:
        return {"broker.id": 1, "zookeeper.connect": "localhost:2181", **settings}
    return {"process.roles": "broker,controller", "node.id": 1, "controller.quorum.voters": f"1@{name}:9093",
            "controller.listener.names": "CONTROLLER", "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            **settings, "listeners": "PLAINTEXT://0.0.0.0:9092,CONTROLLER://0.0.0.0:9093"}


def start_broker(name: str, version: str, timeout: float = 240) -> str:
    """A one-node cluster of `version` on name:9092 (PLAINTEXT): with its own ZooKeeper in the
    same container before 3.0, KRaft from then on. Returns the name."""
    release = RELEASES[version]
    _container(name)
    _install(name, release)
    _write(name, "/etc/kafka/server.properties", _properties(broker_settings(name, release)))
    if release.zookeeper:
        _write(name, "/etc/kafka/zookeeper.properties", _properties({
            "dataDir": "/var/lib/zookeeper", "clientPort": 2181, "maxClientCnxns": 0, "admin.enableServer": "false"}))
        _java(name, release, "org.apache.zookeeper.server.quorum.QuorumPeerMain", "/etc/kafka/zookeeper.properties",
              log="/var/log/zookeeper.log")
    else:
        cluster_id = ("Compat" + re.sub(r"[^A-Za-z0-9]", "", name)).ljust(21, "0")[:21] + "A"
        _docker("exec", name, "java", "-cp", f"{release.home}/libs/*", "kafka.tools.StorageTool", "format",
                "--cluster-id", cluster_id, "--config", "/etc/kafka/server.properties")
    _java(name, release, "kafka.Kafka", "/etc/kafka/server.properties", log="/var/log/kafka-broker.log")
    try:
        lab.wait_until(lambda: lab.topic_names(name) is not None, timeout, f"Kafka {version} on {name} to serve metadata",
                       interval=3)
    except AssertionError:
        raise AssertionError(f"Kafka {version} on {name} did not start:\n{log_tail(name, '/var/log/kafka-broker.log')}")
    assert_release(name, "/var/log/kafka-broker.log", version)
    return name


def assert_release(name: str, log: str, version: str) -> None:
    """The process serves as the release it was meant to: Kafka logs its version as it starts."""
    done = subprocess.run(["docker", "exec", name, "grep", "-c", f"Kafka version: {version}", log], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise AssertionError(f"{name} does not log 'Kafka version: {version}':\n{log_tail(name, log)}")


def log_tail(name: str, path: str, lines: int = 40) -> str:
    done = subprocess.run(["docker", "exec", name, "tail", "-n", str(lines), path], capture_output=True, text=True,
                          check=False)
    return done.stdout + done.stderr


def connect_settings(name: str, bootstrap: str, group: str) -> dict[str, Any]:
    """The distribution's own config/connect-distributed.properties, pointed at `bootstrap`:
    JSON converters, internal topics of one replica, no config provider, no REST authentication."""
    return {
        "bootstrap.servers": bootstrap, "group.id": group,
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "key.converter.schemas.enable": "true", "value.converter.schemas.enable": "true",
        "offset.storage.topic": f"{group}-offsets", "offset.storage.replication.factor": 1,
        "config.storage.topic": f"{group}-configs", "config.storage.replication.factor": 1,
        "status.storage.topic": f"{group}-status", "status.storage.replication.factor": 1,
        "offset.flush.interval.ms": 10000, "listeners": f"http://0.0.0.0:{CONNECT_PORT}",
        "rest.advertised.host.name": name, "rest.advertised.port": CONNECT_PORT,
    }


def address(name: str) -> str:
    networks = json.loads(_docker("inspect", "--format", "{{json .NetworkSettings.Networks}}", name))
    return networks[lab.LAB_NETWORK]["IPAddress"]


def rest_get(name: str, path: str = "/") -> Optional[Any]:
    """GET `path` of a plain Connect worker, from the test process (its address on the lab network);
    None when it does not answer or answers an error."""
    try:
        with urllib.request.urlopen(f"http://{address(name)}:{CONNECT_PORT}{path}", timeout=5) as answer:
            return json.loads(answer.read())
    except OSError:
        return None


def start_connect(name: str, version: str, bootstrap: str, group: str, timeout: float = 300,
                  settings: Optional[dict[str, Any]] = None) -> str:
    """A plain `connect-distributed` worker of `version` (ConnectDistributed with the distribution's
    settings and `settings`), its REST API at http://name:8083 without authentication. Returns the URL."""
    release = RELEASES[version]
    if release.flavour != "full":
        raise ValueError(f"Kafka {version} is assembled without Connect")
    _container(name)
    _install(name, release)
    _write(name, "/etc/kafka/connect-distributed.properties", _properties(dict(connect_settings(name, bootstrap, group), **(settings or {}))))
    _java(name, release, "org.apache.kafka.connect.cli.ConnectDistributed", "/etc/kafka/connect-distributed.properties",
          log="/var/log/connect.log")
    try:
        lab.wait_until(lambda: rest_get(name), timeout, f"Kafka Connect {version} on {name}", interval=3)
    except AssertionError:
        raise AssertionError(f"Kafka Connect {version} on {name} did not start:\n{log_tail(name, '/var/log/connect.log')}")
    assert_release(name, "/var/log/connect.log", version)
    return f"http://{name}:{CONNECT_PORT}"
