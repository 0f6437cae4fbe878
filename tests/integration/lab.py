"""Access to the lab's real Kafka clusters from the test process: administration through Kafka's
Admin client and records through the console producer's line reader, the console consumer and
exact binary reads and writes, all in a JVM of this process (lab_admin); the Connect REST API
over HTTPS from here."""

from __future__ import annotations

import atexit
import fcntl
import os
import ssl
import subprocess
from dataclasses import dataclass

import urllib3
import yaml

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_client import is_transient
from tests.integration import lab_admin

KAFKA_RUN = "/opt/kafka/kafka-run"
# LAB_SHAPE=ha (tests/integration/ha, `make integration-ha`): the three-node lab of inventories/lab-ha, whose
# hosts are the default lab's names prefixed with ha- and whose state lives in .lab-ha.
# LAB_SHAPE=krb (tests/integration/kerberos): the Kerberos lab of inventories/lab-krb, hosts krb-*, one worker.
LAB_SHAPE = os.environ.get("LAB_SHAPE", "default")
HOST_PREFIX = {"ha": "ha-", "krb": "krb-"}.get(LAB_SHAPE, "")
SOURCE_BROKER = f"{HOST_PREFIX}src-kafka-1"
TARGET_BROKERS = tuple(f"{HOST_PREFIX}dst-kafka-{index}" for index in ((1, 2, 3) if LAB_SHAPE == "ha" else (1,)))
TARGET_BROKER = TARGET_BROKERS[0]
CONNECT_WORKERS = tuple(f"{HOST_PREFIX}task-1-{index}"
                        for index in {"ha": (1, 2, 3), "krb": (1,)}.get(LAB_SHAPE, (1, 2)))
LAB_BROKERS = (SOURCE_BROKER, *TARGET_BROKERS)
# The lab brokers serve clients on SASL_SSL (9094) and admin tools on SSL with client
# certificates (9095); the tests administer them like the roles do, with the broker's own
# certificate (a super user). Brokers a test starts itself stay PLAINTEXT on 9092.
CLIENT_PORT = 9094
ADMIN_PORT = 9095
ADMIN_CLIENT_CONFIG = "/etc/kafka/broker/admin-client.properties"
WORKER_SECRETS_DIR = "/etc/kafka/connect/secrets"
LAB_CA = "/etc/kafka/tls/ca.pem"


@dataclass(frozen=True)
class Record:
    partition: int
    key: str
    value: str
    headers: tuple[tuple[str, str], ...]


def stop_spark_cluster() -> None:
    """Stop the Spark standalone cluster of `make spark-cluster` (master on the first task node):
    its daemons hold memory the other tests need."""
    for host in CONNECT_WORKERS:
        services = ["spark-worker", "spark-master"] if host == CONNECT_WORKERS[0] else ["spark-worker"]
        subprocess.run(["docker", "exec", host, "systemctl", "stop", *services], capture_output=True, check=False)


def container_running(name: str) -> bool:
    probe = subprocess.run(["docker", "inspect", "-f", "{{.State.Running}}", name],
                           capture_output=True, text=True, check=False)
    return probe.returncode == 0 and probe.stdout.strip() == "true"


def admin_args(host: str, args: tuple[str, ...]) -> tuple[str, ...]:
    """A lab broker's admin client settings for a tool that connects with --bootstrap-server."""
    if host in LAB_BROKERS and "--bootstrap-server" in args:
        return (*args, "--command-config", ADMIN_CLIENT_CONFIG)
    return args


def kafka_run(host: str, main_class: str, *args: str, stdin: str | None = None,
              timeout: int = 180) -> str:
    """Run a Kafka main class inside a lab host and return its stdout; raise on failure."""
    command = ["docker", "exec", "-i", host, KAFKA_RUN, main_class, *admin_args(host, args)]
    done = subprocess.run(command, input=stdin, capture_output=True, text=True,
                          timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{main_class} on {host} exited {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout


def bootstrap(host: str) -> str:
    """Where the test's own tools reach a broker (the admin listener on lab brokers)."""
    return f"{host}:{ADMIN_PORT}" if host in LAB_BROKERS else f"{host}:9092"


def client_settings(prefix: str, host: str) -> dict[str, str]:
    """Connection settings of a connector config (`source.cluster.`, `target.cluster.`,
    `producer.override.`...) for a broker: on lab brokers SASL_SSL as User:mm2, its password a
    ${file:...} placeholder that the workers resolve; PLAINTEXT on brokers a test started."""
    if host not in LAB_BROKERS:
        return {f"{prefix}bootstrap.servers": f"{host}:9092"}
    mechanism = scram_mechanism()
    password = "${file:%s/mm2.properties:%s}" % (WORKER_SECRETS_DIR, MM2_PASSWORD_KEYS[mechanism])
    settings = {
        "bootstrap.servers": f"{host}:{CLIENT_PORT}",
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": mechanism,
        "sasl.jaas.config": ('org.apache.kafka.common.security.scram.ScramLoginModule required '
                             f'username="mm2" password="{password}";'),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": LAB_CA,
    }
    return {prefix + key: value for key, value in settings.items()}


def create_topic(host: str, topic: str, partitions: int, *configs: str) -> None:
    """Create a topic unless it exists; configs as "key=value"."""
    settings = dict(config.split("=", 1) for config in configs)
    admin().create_topic(host, topic, partitions, settings)


ExactRecord = lab_admin.ExactRecord


def write_exact(host: str, topic: str, records: list[ExactRecord]) -> None:
    """Write records with the partition, timestamp and binary key, value and headers each names
    (what the console producer cannot set), from this process's JVM."""
    admin().write_exact(host, topic, records)


def read_partition(host: str, topic: str, partition: int = 0, start: int = 0) -> list[tuple[bytes, bytes | None]]:
    """Keys and values of a partition from offset `start` to its current end (binary, such as
    MM2's internal records)."""
    return admin().read_partition(host, topic, partition, start)


def produce(host: str, topic: str, records: list[Record]) -> None:
    """Write records as the console producer reads them (headers, key and value per line, tab
    separated), from this process's JVM, each acknowledged by every replica.

    The partition of each record is chosen by the key's hash; the field is ignored here.
    """
    lines = []
    for record in records:
        headers = ",".join(f"{name}:{value}" for name, value in record.headers)
        lines.append(f"{headers}\t{record.key}\t{record.value}")
    admin().produce_lines(host, topic, "\n".join(lines) + "\n")


def consume_all(host: str, topic: str, expected: int, timeout_ms: int = 60000) -> list[Record]:
    """Read a topic from the beginning with the console consumer (in this process's JVM), printing
    partition, headers and key."""
    output = admin().console_consume(host, [
        "--topic", topic, "--from-beginning", "--max-messages", str(expected), "--timeout-ms", str(timeout_ms),
        "--formatter-property", "print.partition=true", "--formatter-property", "print.headers=true",
        "--formatter-property", "print.key=true"])
    return [parse_consumer_line(line) for line in output.splitlines() if line.strip()]


def parse_consumer_line(line: str) -> Record:
    # Console consumer layout: "Partition:<n>\t<headers>\t<key>\t<value>".
    partition_field, headers_field, key, value = line.split("\t", 3)
    headers: tuple[tuple[str, str], ...] = ()
    if headers_field != "NO_HEADERS":
        headers = tuple(tuple(pair.split(":", 1)) for pair in headers_field.split(","))  # type: ignore[misc]
    return Record(int(partition_field.split(":", 1)[1]), key, value, headers)


# ---- MirrorMaker 2 tests: polling, topics, groups, Connect REST, playbooks, extra brokers ----

import json  # noqa: E402
from contextlib import AbstractContextManager, contextmanager, nullcontext  # noqa: E402
import re  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable, Iterator, Optional, TypeVar  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[2]
ANSIBLE_PLAYBOOK = REPO_ROOT / ".venv" / "bin" / "ansible-playbook"
LAB_NETWORK = {"ha": "kafka-dr-lab-ha", "krb": "kafka-dr-lab-krb"}.get(LAB_SHAPE, "kafka-dr-lab")
# The lab shapes' inventories (the Makefile's ANSIBLE_INVENTORY for each LAB_SHAPE).
LAB_INVENTORIES = {"default": REPO_ROOT / "inventories" / "lab", "ha": REPO_ROOT / "inventories" / "lab-ha",
                   "krb": REPO_ROOT / "inventories" / "lab-krb"}
LAB_STATE_DIR = {"ha": ".lab-ha", "krb": ".lab-krb"}.get(LAB_SHAPE, ".lab")
LAB_IMAGE = os.environ.get("KAFKA_DR_BASE_IMAGE", "kafka-dr/bookworm-systemd:3")
TOPIC_COMMAND = "org.apache.kafka.tools.TopicCommand"
CONFIG_COMMAND = "kafka.admin.ConfigCommand"
CONSOLE_CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer"

Polled = TypeVar("Polled")


class Deadline(AssertionError):
    """A polled condition did not hold before its deadline."""


# Some probes still start a JVM tool (a CPU-second or more on the lab): the pause between them
# grows by half each time up to this, so a long wait does not keep a core busy polling.
MAX_POLL_INTERVAL = 8.0


def poll_pauses(interval: float) -> Iterator[float]:
    """The pauses between polls: `interval`, then half as long again each time, up to
    MAX_POLL_INTERVAL (or `interval` when that is longer)."""
    pause, ceiling = interval, max(interval, MAX_POLL_INTERVAL)
    while True:
        yield pause
        pause = min(pause * 1.5, ceiling)


def wait_until(probe: Callable[[], Optional[Polled]], timeout: float, what: str, interval: float = 2.0) -> Polled:
    """Call `probe` until it returns something truthy; raise Deadline after `timeout` seconds.

    A probe that raises counts as "not yet" (a tool may fail while a topic is being created);
    the last error is reported with the timeout. The polls back off (poll_pauses); the last one
    comes at the deadline.
    """
    deadline = time.monotonic() + timeout
    last_error: Optional[BaseException] = None
    for pause in poll_pauses(interval):
        try:
            result = probe()
            if result:
                return result
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            last_error = exc
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        time.sleep(min(pause, remaining))
    detail = f"; last error: {last_error}" if last_error else ""
    raise Deadline(f"timed out after {timeout:.0f}s waiting for {what}{detail}")


@dataclass(frozen=True)
class TimedRecord:
    partition: int
    offset: int
    timestamp: int
    key: str
    value: str
    headers: tuple[tuple[str, str], ...]

    def content(self) -> tuple[int, int, str, str, tuple[tuple[str, str], ...]]:
        """What MM2 must preserve: partition, timestamp, key, value and headers (not the offset)."""
        return self.partition, self.timestamp, self.key, self.value, self.headers


def parse_timed_line(line: str) -> TimedRecord:
    # "CreateTime:<ts>\tPartition:<n>\tOffset:<o>\t<headers>\t<key>\t<value>"
    timestamp_field, partition_field, offset_field, headers_field, key, value = line.split("\t", 5)
    headers: tuple[tuple[str, str], ...] = ()
    if headers_field != "NO_HEADERS":
        headers = tuple(tuple(pair.split(":", 1)) for pair in headers_field.split(","))  # type: ignore[misc]
    return TimedRecord(int(partition_field.split(":", 1)[1]), int(offset_field.split(":", 1)[1]),
                       int(timestamp_field.split(":", 1)[1]), key, value, headers)


def consume_timed(host: str, topic: str, expected: int, group: Optional[str] = None,
                  from_beginning: bool = True, timeout_ms: int = 120000) -> list[TimedRecord]:
    """Read `expected` records with timestamps, partitions and offsets (committing them when a group is given)."""
    args = ["--topic", topic, "--max-messages", str(expected),
            "--timeout-ms", str(timeout_ms),
            "--formatter-property", "print.timestamp=true", "--formatter-property", "print.partition=true",
            "--formatter-property", "print.offset=true", "--formatter-property", "print.headers=true",
            "--formatter-property", "print.key=true"]
    if from_beginning:
        args.append("--from-beginning")
    if group:
        args += ["--group", group, "--command-property", "enable.auto.commit=true",
                 "--command-property", "auto.offset.reset=earliest"]
    output = admin().console_consume(host, args)
    return [parse_timed_line(line) for line in output.splitlines() if line.startswith("CreateTime:")]


def topic_names(host: str) -> set[str]:
    """Every topic of a cluster, internal ones included."""
    return admin().topic_names(host)


def partition_count(host: str, topic: str) -> int:
    return admin().partition_count(host, topic)


def add_partitions(host: str, topic: str, partitions: int) -> None:
    admin().add_partitions(host, topic, partitions)


def delete_topics(host: str, *topics: str) -> None:
    """Delete the topics that exist."""
    admin().delete_topics(host, sorted(topic_names(host) & set(topics)))


def own_topics(host: str, run_id: str, prefixes: tuple[str, ...] = (), names: tuple[str, ...] = ()) -> list[str]:
    """The topics a test owns on a host: named after its run, or of a flow only it deploys (its
    remote-topic prefixes and internal topics). Cleanup goes by these, never by what appeared
    meanwhile: other tests create topics on the same lab at the same time."""
    return sorted(topic for topic in topic_names(host) if run_id in topic or topic.startswith(prefixes) or topic in names)


def topic_config(host: str, topic: str) -> dict[str, str]:
    """Dynamic (non-default) configs of a topic."""
    return admin().dynamic_topic_config(host, topic)


def alter_topic_config(host: str, topic: str, key: str, value: str) -> None:
    admin().set_topic_config(host, topic, key, value)


def end_offsets(host: str, topic: str) -> dict[int, int]:
    """{partition: end offset}; a RuntimeError when the topic does not exist."""
    return admin().end_offsets(host, topic)


def group_offsets(host: str, group: str) -> dict[tuple[str, int], int]:
    """Committed offsets of a group, {(topic, partition): offset}; empty when the group has none."""
    return admin().group_offsets(host, group)


def delete_group(host: str, group: str) -> None:
    try:
        admin().delete_group(host, group)
    except RuntimeError:
        pass  # already gone, or never created on this cluster


# ---- Kafka Connect REST, from the test process over HTTPS ----

# The key of the MM2 secret file per SCRAM mechanism (lab_mm2_password_keys of the inventory).
MM2_PASSWORD_KEYS = {"SCRAM-SHA-512": "sasl.password", "SCRAM-SHA-256": "sasl.password.sha256"}


def scram_mechanism() -> str:
    """The SCRAM mechanism of the lab's clients: SCRAM-SHA-512 until a rotation without a window
    (tests/integration/rotation) records the other one in .lab/scram-mechanism, as the inventory reads it."""
    recorded = REPO_ROOT / LAB_STATE_DIR / "scram-mechanism"
    return recorded.read_text().strip() if recorded.exists() else "SCRAM-SHA-512"


def lab_secret(name: str) -> str:
    """A secret of the lab, as the inventory generated it on the controller (.lab/secrets)."""
    return (REPO_ROOT / LAB_STATE_DIR / "secrets" / name).read_text().strip()


def rest_auth() -> tuple[str, str]:
    return "operator", lab_secret("rest")


# Answers of a group in the middle of a rebalance (the collection's is_transient) are retried
# for up to a minute, as the collection's client does: a test reads settled state.
REST_RETRY_SECONDS = 60.0


def decoded_body(data: bytes) -> Any:
    """A REST answer's body: JSON, or the text of a page that is not (the server's 401 page)."""
    if not data:
        return None
    text = data.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


_REST_POOLS: dict[str, urllib3.HTTPSConnectionPool] = {}


def _rest_pool(worker: str, fresh: bool = False) -> urllib3.HTTPSConnectionPool:
    """A kept-alive HTTPS pool from the test process to a worker's REST API: the worker's address
    on the lab network, its own CA bundle, and its host name checked against its certificate.
    Calls from here cost no process start on the worker (most calls poll a status)."""
    if fresh or worker not in _REST_POOLS:
        networks = json.loads(_docker("inspect", "-f", "{{json .NetworkSettings.Networks}}", worker))
        address = networks[LAB_NETWORK]["IPAddress"]
        context = ssl.create_default_context(cadata=_docker("exec", worker, "cat", LAB_CA))
        _REST_POOLS[worker] = urllib3.HTTPSConnectionPool(
            address, 8083, ssl_context=context, server_hostname=worker, assert_hostname=worker,
            timeout=urllib3.Timeout(total=60), retries=False, maxsize=2)
    return _REST_POOLS[worker]


def _rest_request(worker: str, method: str, path: str, body: Optional[str],
                  headers: dict[str, str]) -> urllib3.BaseHTTPResponse:
    """One request; a failed connection is tried once more on a fresh pool (the worker's
    container restarted with another address, or its CA bundle changed in a CA roll). The Host
    header names the worker: Jetty refuses a host that its certificate does not name."""
    headers = dict(headers, Host=f"{worker}:8083")
    try:
        return _rest_pool(worker).request(method, path, body=body, headers=headers)
    except urllib3.exceptions.HTTPError:
        try:
            return _rest_pool(worker, fresh=True).request(method, path, body=body, headers=headers)
        except (urllib3.exceptions.HTTPError, RuntimeError) as exc:
            raise RuntimeError(f"REST {method} {path} on {worker} failed: {exc}") from exc


def connect_rest(method: str, path: str, body: Optional[dict[str, Any]] = None,
                 worker: str = CONNECT_WORKERS[0], auth: Optional[tuple[str, str]] = None,
                 anonymous: bool = False) -> tuple[int, Any]:
    """(HTTP status, decoded body) of one Kafka Connect REST call to a worker over HTTPS with
    the lab's REST account (another account with `auth`, none with `anonymous`). Answers that
    say a rebalance is under way are retried for up to a minute."""
    headers = {"Content-Type": "application/json"}
    if not anonymous:
        headers.update(urllib3.make_headers(basic_auth=":".join(auth or rest_auth())))
    payload = json.dumps(body) if body is not None else None
    deadline = time.monotonic() + REST_RETRY_SECONDS
    while True:
        answer = _rest_request(worker, method, path, payload, headers)
        status, decoded = answer.status, decoded_body(answer.data)
        message = str(decoded.get("message", "")) if isinstance(decoded, dict) else ""
        if not is_transient(status, message) or time.monotonic() > deadline:
            return status, decoded
        time.sleep(1)


def connector_status(name: str) -> Optional[dict[str, Any]]:
    status, body = connect_rest("GET", f"/connectors/{name}/status")
    return body if status == 200 else None


def connector_config(name: str) -> Optional[dict[str, str]]:
    status, body = connect_rest("GET", f"/connectors/{name}/config")
    return body if status == 200 else None


def connector_names() -> list[str]:
    return sorted(connect_rest("GET", "/connectors")[1])


def remove_connector(name: str, timeout: float = 120) -> None:
    """Stop a connector, drop its stored source offsets, then delete it, so a later connector
    of the same name starts clean. Absent connectors are fine."""
    if connector_status(name) is None:
        return
    connect_rest("PUT", f"/connectors/{name}/stop")
    wait_until(lambda: (connector_status(name) or {}).get("connector", {}).get("state") == "STOPPED",
               timeout, f"connector {name} to stop")
    connect_rest("DELETE", f"/connectors/{name}/offsets")
    connect_rest("DELETE", f"/connectors/{name}")
    wait_until(lambda: name not in connector_names(), timeout, f"connector {name} to be deleted")


def worker_file(path: str, content: Optional[str], owner_group: str = "kafka") -> None:
    """Write (or, with None, remove) a file on every Connect worker, readable by the workers' group."""
    for worker in CONNECT_WORKERS:
        if content is None:
            subprocess.run(["docker", "exec", worker, "rm", "-f", path], check=True, capture_output=True)
            continue
        subprocess.run(["docker", "exec", "-i", worker, "sh", "-c",
                        f"umask 027 && cat > {path} && chgrp {owner_group} {path}"],
                       input=content, text=True, check=True, capture_output=True)


# ---- playbooks --------------------------------------------------------------------------------

@dataclass(frozen=True)
class PlaybookRun:
    returncode: int
    output: str

    def recap(self) -> dict[str, dict[str, int]]:
        """PLAY RECAP counters per host, e.g. {"task-1-1": {"ok": 17, "changed": 0, ...}}."""
        recap: dict[str, dict[str, int]] = {}
        for line in self.output.split("PLAY RECAP", 1)[-1].splitlines():
            match = re.match(r"^(\S+)\s+:\s+(.*)$", line.strip())
            if match:
                recap[match.group(1)] = {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", match.group(2))}
        return recap

    def changed(self) -> int:
        return sum(counters.get("changed", 0) for counters in self.recap().values())


def run_playbook(playbook: str, extra_vars: Optional[dict[str, Any]] = None, *options: str,
                 timeout: int = 1200) -> PlaybookRun:
    """ansible-playbook from the checkout with the lab inventory; extra vars go through a JSON file."""
    command = [str(ANSIBLE_PLAYBOOK), str(REPO_ROOT / playbook), *options]
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_FORCE_COLOR="0")
    vars_file: Optional[Path] = None
    if extra_vars is not None:
        vars_file = REPO_ROOT / "build" / f"itest-vars-{os.getpid()}-{time.monotonic_ns()}.json"
        vars_file.parent.mkdir(exist_ok=True)
        vars_file.write_text(json.dumps(extra_vars))
        command += ["-e", f"@{vars_file}"]
    try:
        with playbook_turn(playbook):
            done = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=timeout,
                                  check=False)
    finally:
        if vars_file is not None:
            vars_file.unlink(missing_ok=True)
    return PlaybookRun(done.returncode, done.stdout + done.stderr)


def inventory_vars(host: str = CONNECT_WORKERS[0]) -> dict[str, Any]:
    """A host's inventory variables, unrendered (templates stay templates)."""
    done = subprocess.run([str(REPO_ROOT / ".venv" / "bin" / "ansible-inventory"), "--host", host],
                          cwd=REPO_ROOT, env=dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / "ansible.cfg")),
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout)


# ---- extra one-node brokers on the lab network, created and removed by a test ----------------

@dataclass(frozen=True)
class ScramUser:
    name: str
    password: str


def remove_container(name: str) -> None:
    if _ADMIN:
        _ADMIN[0].forget(name)
    subprocess.run(["docker", "rm", "-f", name], capture_output=True, check=False)


def _docker(*args: str, stdin: Optional[str] = None) -> str:
    done = subprocess.run(["docker", *args], input=stdin, capture_output=True, text=True, check=False, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"docker {' '.join(args[:3])} failed: {done.stderr[-1500:]}")
    return done.stdout


def _copy_kafka_install(name: str) -> None:
    """The lab's Kafka installation, streamed from a lab broker into the new container."""
    _docker("exec", name, "mkdir", "-p", "/opt/kafka", "/var/lib/kafka", "/etc/kafka")
    packer = subprocess.Popen(["docker", "exec", SOURCE_BROKER, "tar", "-C", "/opt/kafka", "-cf", "-", "."],
                              stdout=subprocess.PIPE)
    unpacked = subprocess.run(["docker", "exec", "-i", name, "tar", "-C", "/opt/kafka", "-xf", "-"],
                              stdin=packer.stdout, capture_output=True, check=False, timeout=300)
    if packer.stdout is not None:
        packer.stdout.close()
    if packer.wait(timeout=300) != 0 or unpacked.returncode != 0:
        raise RuntimeError(f"copying Kafka into {name} failed: {unpacked.stderr.decode()[-1000:]}")


def _broker_properties(name: str, scram: Optional[ScramUser]) -> str:
    listeners = ["PLAINTEXT://0.0.0.0:9092", "CONTROLLER://0.0.0.0:9093"]
    advertised = [f"PLAINTEXT://{name}:9092"]
    protocols = ["CONTROLLER:PLAINTEXT", "PLAINTEXT:PLAINTEXT"]
    lines = []
    if scram is not None:
        listeners.append("SASL_PLAINTEXT://0.0.0.0:9094")
        advertised.append(f"SASL_PLAINTEXT://{name}:9094")
        protocols.append("SASL_PLAINTEXT:SASL_PLAINTEXT")
        lines += ["sasl.enabled.mechanisms=SCRAM-SHA-256",
                  "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config="
                  "org.apache.kafka.common.security.scram.ScramLoginModule required;"]
    lines += [
        "process.roles=broker,controller", "node.id=1", f"controller.quorum.voters=1@{name}:9093",
        f"listeners={','.join(listeners)}", f"advertised.listeners={','.join(advertised)}",
        f"listener.security.protocol.map={','.join(protocols)}", "inter.broker.listener.name=PLAINTEXT",
        "controller.listener.names=CONTROLLER", "log.dirs=/var/lib/kafka/data", "num.partitions=1",
        "default.replication.factor=1", "offsets.topic.replication.factor=1",
        "transaction.state.log.replication.factor=1", "transaction.state.log.min.isr=1",
        "group.initial.rebalance.delay.ms=0",
    ]
    return "\n".join(lines) + "\n"


def start_broker(name: str, scram: Optional[ScramUser] = None, timeout: float = 180) -> str:
    """A one-node KRaft broker in a new container on the lab network, PLAINTEXT on name:9092
    (and SASL_PLAINTEXT with SCRAM-SHA-256 on name:9094 when a user is given). Returns the name."""
    remove_container(name)
    _docker("run", "-d", "--name", name, "--hostname", name, "--network", LAB_NETWORK, "--label",
            "kafka-dr.itest=true", "--tmpfs", "/tmp", LAB_IMAGE, "sleep", "infinity")
    _copy_kafka_install(name)
    _docker("exec", "-i", name, "sh", "-c", "cat > /etc/kafka/server.properties",
            stdin=_broker_properties(name, scram))
    cluster_id = ("Itest" + re.sub(r"[^A-Za-z0-9]", "", name)).ljust(21, "0")[:21] + "A"
    format_args = ["exec", name, KAFKA_RUN, "kafka.tools.StorageTool", "format", "--cluster-id", cluster_id,
                   "--config", "/etc/kafka/server.properties"]
    if scram is not None:
        format_args += ["--add-scram", f"SCRAM-SHA-256=[name={scram.name},password={scram.password}]"]
    _docker(*format_args)
    return run_broker(name, timeout)


# Test brokers live minutes: C1 alone and a serial GC cost a third less CPU than the JVM's defaults
# (as on the Kerberos lab, inventories/lab-krb/group_vars/lab_krb.yml).
BROKER_JVM_OPTIONS = "-Xms256m -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def run_broker(name: str, timeout: float = 180) -> str:
    """Start the broker process of a container start_broker made (again, after `docker start`)."""
    _docker("exec", "-d", "-e", f"KAFKA_TOOL_OPTS={BROKER_JVM_OPTIONS}", name, "sh", "-c",
            f"exec {KAFKA_RUN} kafka.Kafka /etc/kafka/server.properties >> /var/log/kafka-broker.log 2>&1")
    wait_until(lambda: topic_names(name) is not None, timeout, f"broker {name} to serve metadata", interval=3)
    return name


def temporary_broker(name: str, scram: Optional[ScramUser] = None) -> Iterator[str]:
    """Generator for a pytest fixture: the broker exists while the test runs and is removed after."""
    try:
        yield start_broker(name, scram)
    finally:
        remove_container(name)


def task_assignments(connector: str, key: str) -> set[str]:
    """Items of a comma-separated task config setting over all tasks of a connector
    (task.assigned.partitions of a source connector, task.assigned.groups of a checkpoint connector)."""
    status, tasks = connect_rest("GET", f"/connectors/{connector}/tasks")
    if status != 200:
        return set()
    return {item for task in tasks for item in task.get("config", {}).get(key, "").split(",") if item}


def topics_assigned_to(connector: str) -> set[str]:
    """Source topics a MirrorSourceConnector's tasks read."""
    return {partition.rsplit("-", 1)[0] for partition in task_assignments(connector, "task.assigned.partitions")}


def delete_mirrored_group(source_host: str, target_host: str, group: str, checkpoint_connector: str,
                          timeout: float = 120) -> None:
    """Delete a group on the source, wait until MM2 stops following it (it would sync it back),
    then delete it on the target."""
    delete_group(source_host, group)
    wait_until(lambda: group not in task_assignments(checkpoint_connector, "task.assigned.groups"), timeout,
               f"{checkpoint_connector} to stop following {group}")
    delete_group(target_host, group)


def delete_mirrored_topics(source_host: str, topics: list[str], target_host: str, remote_topics: list[str],
                           connector: str, timeout: float = 120) -> None:
    """Delete source topics, wait until the source connector's tasks no longer read them (their
    producers, which could re-create a remote topic, are gone), then delete the remote topics."""
    delete_topics(source_host, *topics)
    wait_until(lambda: not topics_assigned_to(connector) & set(topics), timeout,
               f"{connector} to stop mirroring {', '.join(topics)}")
    delete_topics(target_host, *remote_topics)


ACL_COMMAND = "org.apache.kafka.tools.AclCommand"
AclResource = lab_admin.AclResource


def acl_bindings(host: str, *resource: str) -> str:
    """The ACLs of one resource (given as AclCommand flags, e.g. "--topic", "foo.x"), a line each
    as AclCommand lists them: "(principal=User:x, host=*, operation=READ, permissionType=ALLOW)"."""
    entries = admin().acl_entries(host).get(lab_admin.acl_resource_of(resource), set())
    return "\n".join(f"(principal={principal}, host=*, operation={operation}, permissionType={permission})"
                     for principal, operation, permission in sorted(entries))


def change_acl(host: str, add: bool, principal: str, operations: list[str], *resource: str) -> None:
    """Add or remove an ALLOW binding (resource as AclCommand flags, e.g. "--topic", "x",
    "--resource-pattern-type", "prefixed"; operations as AclCommand names them, e.g. DescribeConfigs)."""
    admin().change_acls(host, add, principal, operations, lab_admin.acl_resource_of(resource))


def remove_synced_acls(host: str, source_alias: str) -> None:
    """Remove the topic ACLs MM2 copied to this cluster (sync.topic.acls) for remote topics of
    source_alias: removing a flow leaves them behind."""
    synced = [resource for resource in admin().acl_entries(host)
              if resource[0] == "TOPIC" and resource[2] == "LITERAL" and resource[1].startswith(f"{source_alias}.")]
    admin().remove_acls(host, sorted(synced))


@dataclass(frozen=True)
class Grant:
    host: str
    operations: tuple[str, ...]
    resource: tuple[str, ...]
    principal: str = "User:mm2"


def flow_grants(source_host: str, target_host: str, source_alias: str, target_alias: str) -> list[Grant]:
    """What User:mm2 needs beyond the lab's own src -> dst rights to run another flow between lab
    brokers (brokers a test started have no authorizer and need nothing): read on the source and
    its heartbeats topic (heartbeats_topic_location: source, the default), the remote topics
    (replicated heartbeats and their LogAppendTime included), heartbeats (flows keeping them on
    the target) and offset syncs (kept on the target, so named after the source) on the target."""
    grants: list[Grant] = []
    if source_host in LAB_BROKERS:
        grants += [Grant(source_host, ("Read", "Describe", "DescribeConfigs"), ("--topic", "*")),
                   Grant(source_host, ("Create", "Describe", "DescribeConfigs", "Write"), ("--topic", "heartbeats")),
                   Grant(source_host, ("Describe",), ("--group", "*")),
                   Grant(source_host, ("Describe",), ("--cluster",))]
    if target_host in LAB_BROKERS:
        remote = ("Create", "Alter", "Describe", "DescribeConfigs", "AlterConfigs", "Read", "Write")
        grants += [Grant(target_host, remote, ("--topic", f"{source_alias}.", "--resource-pattern-type", "prefixed")),
                   Grant(target_host, ("Create", "Describe", "DescribeConfigs", "Write"), ("--topic", "heartbeats")),
                   Grant(target_host, ("Create", "Describe", "DescribeConfigs", "Read", "Write"),
                         ("--topic", f"mm2-offset-syncs.{source_alias}.internal")),
                   Grant(target_host, ("Read", "Describe"), ("--group", "*")),
                   Grant(target_host, ("Describe", "Alter"), ("--cluster",))]
    return grants


@contextmanager
def _file_lock(lock_file: Path) -> Iterator[None]:
    """An exclusive lock across the test processes on this machine (the pytest-xdist workers)."""
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with lock_file.open("w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@contextmanager
def _acl_holds() -> Iterator[dict[str, dict[str, Any]]]:
    """Which test holds which binding, shared by the processes of one run: a binding two tests
    need stays until the last one is done."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid-{os.getpid()}"
    holds_file = REPO_ROOT / "build" / "acl-holds" / f"{run}.json"
    with _file_lock(holds_file.with_suffix(".lock")):
        holds = json.loads(holds_file.read_text(encoding="utf-8")) if holds_file.exists() else {}
        yield holds
        holds_file.write_text(json.dumps(holds), encoding="utf-8")


_EXCLUSIVE_DEPTH: dict[str, int] = {}


@contextmanager
def exclusive(name: str) -> Iterator[None]:
    """One holder at a time across the test processes (re-entrant within one): for lab state
    that tests share and rewrite, such as the validation job's client settings on the task node."""
    depth = _EXCLUSIVE_DEPTH.get(name, 0)
    with nullcontext() if depth else _file_lock(REPO_ROOT / "build" / "locks" / f"{name}.lock"):
        _EXCLUSIVE_DEPTH[name] = depth + 1
        try:
            yield
        finally:
            _EXCLUSIVE_DEPTH[name] = depth


def playbook_turn(playbook: str) -> AbstractContextManager[None]:
    """Runs of the validation playbook rewrite the job's client settings on the node: they take
    turns. Other playbooks run at once."""
    return exclusive("validation") if playbook == "playbooks/validate.yml" else nullcontext()


def _hold_key(grant: Grant, operation: str) -> str:
    return json.dumps([grant.host, grant.principal, operation, *grant.resource])


@contextmanager
def granted(grants: list[Grant]) -> Iterator[None]:
    """The ACLs exist inside the block. Afterwards a binding is removed only when this run added
    it and no other test of the run still holds it: bindings the lab already had stay, and two
    tests running side by side never take a right from each other."""
    with _acl_holds() as holds:
        # One listing per cluster, not one per grant.
        listings: dict[str, dict[AclResource, set[tuple[str, str, str]]]] = {}
        for grant in grants:
            if grant.host not in listings:
                listings[grant.host] = admin().acl_entries(grant.host)
            held = listings[grant.host].get(lab_admin.acl_resource_of(grant.resource), set())
            missing = [operation for operation in grant.operations
                       if (grant.principal, lab_admin.camel_to_constant(operation), "ALLOW") not in held]
            for operation in grant.operations:
                hold = holds.setdefault(_hold_key(grant, operation), {"holders": 0, "added": False})
                if hold["holders"] == 0:
                    hold["added"] = operation in missing
                hold["holders"] += 1
            if missing:
                change_acl(grant.host, True, grant.principal, missing, *grant.resource)
    try:
        yield
    finally:
        with _acl_holds() as holds:
            for grant in grants:
                released = []
                for operation in grant.operations:
                    key = _hold_key(grant, operation)
                    hold = holds.get(key, {"holders": 1, "added": False})
                    hold["holders"] -= 1
                    if hold["holders"] > 0:
                        holds[key] = hold
                        continue
                    holds.pop(key, None)
                    if hold["added"]:
                        released.append(operation)
                if released:
                    change_acl(grant.host, False, grant.principal, released, *grant.resource)


def set_scram_account(host: str, name: str, password: str) -> None:
    """Create or update a SCRAM-SHA-512 account on a lab cluster (8192 iterations). The password
    goes to the JVM of this process over its socket, never on a command line or into a file."""
    admin().set_scram(host, name, password)


def delete_scram_account(host: str, name: str) -> None:
    admin().delete_scram(host, name)


# ---- administration through Kafka's Admin client (lab_admin) ----------------------------------

_ADMIN: list[lab_admin.LabAdmin] = []


def admin_client_settings(host: str) -> dict[str, str]:
    """How this process administers a broker: lab brokers with their own admin client settings
    (SSL with the broker's certificate on the admin listener), read from the broker; brokers a
    test started on PLAINTEXT."""
    if host not in LAB_BROKERS:
        return {"bootstrap.servers": f"{host}:9092"}
    settings = lab_admin.read_properties(_docker("exec", host, "cat", ADMIN_CLIENT_CONFIG))
    settings = lab_admin.inline_pem_settings(settings, lambda path: _docker("exec", host, "cat", path))
    return dict(settings, **{"bootstrap.servers": bootstrap(host)})


def inventory_hosts(shape: str = LAB_SHAPE) -> tuple[str, ...]:
    """Every host of a lab shape's inventory (its hosts.yml, where each host is listed), sorted."""
    found: set[str] = set()

    def walk(group: dict[str, Any]) -> None:
        found.update((group.get("hosts") or {}).keys())
        for child in (group.get("children") or {}).values():
            walk(child or {})

    for group in (yaml.safe_load((LAB_INVENTORIES[shape] / "hosts.yml").read_text(encoding="utf-8")) or {}).values():
        walk(group or {})
    return tuple(sorted(found))


def admin() -> lab_admin.LabAdmin:
    """This process's Admin clients (one JVM, started on first use, ended with the process). Its
    names resolve for every host of the shape's inventory, on any of its networks."""
    if not _ADMIN:
        hosts_file = REPO_ROOT / "build" / "lab-hosts" / f"{LAB_NETWORK}-{os.getpid()}"
        _ADMIN.append(lab_admin.LabAdmin(LAB_NETWORK, admin_client_settings, hosts_file, inventory_hosts()))
        atexit.register(hosts_file.unlink, missing_ok=True)
    return _ADMIN[0]
