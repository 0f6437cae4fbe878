# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the integration tests' Admin clients decide without a lab: the hosts file from the lab
network, the broker's admin settings with their PEM files inline, AclCommand's resource flags and
operation names, the client jars unpacked once, one more try after the lab's addresses changed,
records written exactly as given, console lines written and acknowledged, and the console consumer
run with this process's settings. The JVM and docker are faked."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from py4j.protocol import Py4JError

from tests.integration import lab_admin

KEY = "-----BEGIN PRIVATE KEY-----\nMIIEvkey\n-----END PRIVATE KEY-----"
CERT = "-----BEGIN CERTIFICATE-----\nMIIDhost\n-----END CERTIFICATE-----"
CA = "-----BEGIN CERTIFICATE-----\nMIIDca\n-----END CERTIFICATE-----"


def test_hosts_lines_take_each_container_name_and_address() -> None:
    listing = "src-kafka-1 172.18.0.2/16;task-1-1 172.18.0.4/16;broken;"
    assert lab_admin.hosts_lines(listing) == ["127.0.0.1 localhost", "172.18.0.2 src-kafka-1", "172.18.0.4 task-1-1"]


def test_properties_skip_comments_and_keep_values_with_equals_signs() -> None:
    text = "# admin\nsecurity.protocol=SSL\n\nsasl.jaas.config=a b=c;\n! other\n"
    assert lab_admin.read_properties(text) == {"security.protocol": "SSL", "sasl.jaas.config": "a b=c;"}


def test_pem_files_are_passed_inline_and_the_file_settings_dropped() -> None:
    settings = {"security.protocol": "SSL", "ssl.keystore.type": "PEM", "ssl.keystore.location": "/tls/keystore.pem",
                "ssl.truststore.type": "PEM", "ssl.truststore.location": "/tls/ca.pem"}
    files = {"/tls/keystore.pem": f"{KEY}\n{CERT}\n{CA}\n", "/tls/ca.pem": CA + "\n"}
    inline = lab_admin.inline_pem_settings(settings, files.__getitem__)
    assert inline == {"security.protocol": "SSL", "ssl.keystore.type": "PEM", "ssl.keystore.key": KEY,
                      "ssl.keystore.certificate.chain": f"{CERT}\n{CA}", "ssl.truststore.type": "PEM",
                      "ssl.truststore.certificates": CA + "\n"}


def test_an_encrypted_key_keeps_its_password() -> None:
    encrypted = KEY.replace("PRIVATE KEY", "ENCRYPTED PRIVATE KEY")
    settings = {"ssl.keystore.type": "PEM", "ssl.keystore.location": "/k.pem", "ssl.key.password": "s3cret"}
    inline = lab_admin.inline_pem_settings(settings, lambda _path: f"{encrypted}\n{CERT}")
    assert inline["ssl.keystore.key"] == encrypted and inline["ssl.key.password"] == "s3cret"


@pytest.mark.parametrize("settings, content, message", [
    ({"ssl.keystore.type": "PKCS12", "ssl.keystore.location": "/k.p12"}, "", "keystore that is not PEM"),
    ({"ssl.keystore.type": "PEM", "ssl.keystore.location": "/k.pem"}, CERT, "one private key"),
    ({"ssl.truststore.type": "JKS", "ssl.truststore.location": "/t.jks"}, "", "truststore that is not PEM"),
])
def test_settings_this_process_cannot_pass_inline_fail_clearly(settings: dict, content: str, message: str) -> None:
    with pytest.raises(RuntimeError, match=message):
        lab_admin.inline_pem_settings(settings, lambda _path: content)


@pytest.mark.parametrize("flags, key", [
    (("--topic", "heartbeats"), ("TOPIC", "heartbeats", "LITERAL")),
    (("--topic", "src.", "--resource-pattern-type", "prefixed"), ("TOPIC", "src.", "PREFIXED")),
    (("--group", "*"), ("GROUP", "*", "LITERAL")),
    (("--cluster",), ("CLUSTER", "kafka-cluster", "LITERAL")),
])
def test_acl_command_flags_name_a_resource(flags: tuple[str, ...], key: tuple[str, str, str]) -> None:
    assert lab_admin.acl_resource_of(flags) == key


def test_other_resource_flags_are_refused() -> None:
    with pytest.raises(ValueError, match="--transactional-id x"):
        lab_admin.acl_resource_of(("--transactional-id", "x"))


@pytest.mark.parametrize("name, constant", [("Read", "READ"), ("DescribeConfigs", "DESCRIBE_CONFIGS"),
                                            ("IdempotentWrite", "IDEMPOTENT_WRITE"), ("All", "ALL")])
def test_operation_names_become_kafka_constants(name: str, constant: str) -> None:
    assert lab_admin.camel_to_constant(name) == constant


def _dist(cache: Path, name: str) -> None:
    (cache / "dist").mkdir(parents=True)
    with tarfile.open(cache / "dist" / f"{name}.tgz", "w:gz") as archive:
        jar = f"{name}/libs/kafka-clients.jar"
        info = tarfile.TarInfo(jar)
        info.size = 3
        archive.addfile(info, io.BytesIO(b"jar"))


def test_client_jars_are_unpacked_once_beside_the_tarball(tmp_path: Path) -> None:
    _dist(tmp_path, "kafka_2.13-9.9.9")
    home = lab_admin.client_libs("kafka_2.13-9.9.9", tmp_path)
    assert home == tmp_path / "clients" / "kafka_2.13-9.9.9"
    assert (home / "libs" / "kafka-clients.jar").read_bytes() == b"jar"
    (tmp_path / "dist" / "kafka_2.13-9.9.9.tgz").unlink()
    assert lab_admin.client_libs("kafka_2.13-9.9.9", tmp_path) == home
    assert [path.name for path in (tmp_path / "clients").iterdir()] == ["kafka_2.13-9.9.9"]


def test_the_client_jars_are_those_of_the_release_the_lab_installs(tmp_path: Path) -> None:
    defaults = tmp_path / "main.yml"
    defaults.write_text('kafka_install_version: "4.3.1"\nkafka_install_scala_version: "2.13"\n')
    assert lab_admin.default_dist_name(defaults) == "kafka_2.13-4.3.1"
    assert lab_admin.default_dist_name().startswith("kafka_2.13-")


def test_no_distribution_says_how_to_get_one(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="make setup"):
        lab_admin.client_libs("kafka_2.13-9.9.9", tmp_path)


class FakeJavaError(Py4JError):
    pass


@pytest.fixture
def admin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> lab_admin.LabAdmin:
    fake = lab_admin.LabAdmin("kafka-dr-lab", lambda host: {"bootstrap.servers": f"{host}:9092"}, tmp_path / "hosts")
    monkeypatch.setattr(fake, "_admin", lambda host: f"admin of {host}")
    monkeypatch.setattr(fake, "forget", lambda host: None)
    monkeypatch.setattr(lab_admin, "java_message", lambda error: f"TimeoutException: {error}")
    return fake


def test_a_call_is_tried_again_when_the_lab_addresses_changed(
        admin: lab_admin.LabAdmin, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(admin, "_refresh_hosts", lambda: True)
    outcomes: list[Any] = [FakeJavaError("no answer"), "topics"]

    def work(client: str) -> str:
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return f"{outcome} from {client}"

    assert admin.call("src-kafka-1", "list topics", work) == "topics from admin of src-kafka-1"


def test_a_failure_with_the_same_addresses_names_the_broker_and_the_action(
        admin: lab_admin.LabAdmin, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(admin, "_refresh_hosts", lambda: False)
    calls: list[str] = []

    def work(client: str) -> None:
        calls.append(client)
        raise FakeJavaError("no answer")

    with pytest.raises(RuntimeError, match=r"^list topics on src-kafka-1: TimeoutException: no answer$"):
        admin.call("src-kafka-1", "list topics", work)
    assert len(calls) == 1


class FakeProducer:
    """Records what was sent; a send's result fails when its value is b"refused"."""

    def __init__(self) -> None:
        self.sent: list[tuple] = []
        self.events: list[str] = []

    def send(self, record: tuple) -> Any:
        self.sent.append(record)
        producer = self

        class Result:
            def get(self) -> None:
                producer.events.append("get")
                if record[4] == b"refused":
                    raise FakeJavaError("not acknowledged")
        return Result()

    def flush(self) -> None:
        self.events.append("flush")

    def close(self) -> None:
        self.events.append("close")


@pytest.fixture
def producer(admin: lab_admin.LabAdmin, monkeypatch: pytest.MonkeyPatch) -> FakeProducer:
    fake = FakeProducer()
    jvm = SimpleNamespace(
        java=SimpleNamespace(lang=SimpleNamespace(Long=lambda value: ("long", value), Integer=lambda value: ("int", value))),
        org=SimpleNamespace(apache=SimpleNamespace(kafka=SimpleNamespace(
            clients=SimpleNamespace(producer=SimpleNamespace(ProducerRecord=lambda *fields: fields)),
            common=SimpleNamespace(header=SimpleNamespace(internals=SimpleNamespace(
                RecordHeader=lambda name, value: (name, value))))))))
    monkeypatch.setattr(lab_admin.LabAdmin, "jvm", property(lambda _self: jvm))
    monkeypatch.setattr(admin, "_producer", lambda host: fake)
    # A write that failed is not made again, even after the lab's addresses changed: it may have landed.
    monkeypatch.setattr(admin, "_refresh_hosts", lambda: True)
    return fake


def test_exact_records_keep_partition_timestamp_and_binary_fields(
        admin: lab_admin.LabAdmin, producer: FakeProducer) -> None:
    records = [lab_admin.ExactRecord(1, None, b"\x00v", (("seq", b"\x01"), ("null", None)), 1700000000000),
               lab_admin.ExactRecord(0, b"k", None, (), 1700000000001)]
    admin.write_exact("src-kafka-1", "vfault-x", records)
    assert producer.sent == [
        ("vfault-x", ("int", 1), ("long", 1700000000000), None, b"\x00v", [("seq", b"\x01"), ("null", None)]),
        ("vfault-x", ("int", 0), ("long", 1700000000001), b"k", None, [])]
    # Every record is acknowledged before the producer closes.
    assert producer.events == ["flush", "get", "get", "close"]


def test_a_record_not_acknowledged_fails_the_write_and_closes_the_producer(
        admin: lab_admin.LabAdmin, producer: FakeProducer) -> None:
    records = [lab_admin.ExactRecord(0, b"k", b"refused", (), 1)]
    with pytest.raises(RuntimeError, match=r"^write 1 records to vfault-x on dst-kafka-1: TimeoutException: not acknowledged$"):
        admin.write_exact("dst-kafka-1", "vfault-x", records)
    assert producer.events == ["flush", "get", "close"]


class FakeConsumer:
    """A partition of three records, returned two per poll; or one that never moves."""

    def __init__(self, stuck: bool = False) -> None:
        self.records = [SimpleNamespace(key=lambda: b"k0", value=lambda: b"v0"),
                        SimpleNamespace(key=lambda: b"k1", value=lambda: None),
                        SimpleNamespace(key=lambda: None, value=lambda: b"v2")]
        self.offset = 0
        self.stuck = stuck

    def assign(self, _partitions: list) -> None: ...

    def seekToBeginning(self, _partitions: list) -> None: ...  # pylint: disable=invalid-name

    def endOffsets(self, partitions: list) -> dict:  # pylint: disable=invalid-name
        return {partitions[0]: len(self.records)}

    def position(self, _partition: Any) -> int:
        return self.offset

    def poll(self, _timeout: Any) -> Any:
        batch = [] if self.stuck else self.records[self.offset:self.offset + 2]
        self.offset += len(batch)
        return SimpleNamespace(records=lambda _partition: batch)


def _reader(monkeypatch: pytest.MonkeyPatch) -> lab_admin.LabAdmin:
    admin = lab_admin.LabAdmin("kafka-dr-lab", lambda host: {}, Path("/nonexistent"))
    jvm = SimpleNamespace(java=SimpleNamespace(time=SimpleNamespace(Duration=SimpleNamespace(ofMillis=lambda ms: ms))))
    monkeypatch.setattr(lab_admin.LabAdmin, "jvm", property(lambda _self: jvm))
    return admin


def test_a_partition_is_read_to_the_end_it_had_with_tombstones_and_null_keys_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    records = _reader(monkeypatch)._read_to_end(FakeConsumer(), "checkpoints-0")  # pylint: disable=protected-access
    assert records == [(b"k0", b"v0"), (b"k1", None), (b"", b"v2")]


def test_a_partition_that_cannot_be_read_fails_after_the_api_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter(range(0, 1000, 5))
    monkeypatch.setattr(lab_admin.time, "monotonic", lambda: next(clock))

    class Partition:  # hashable, as a TopicPartition is
        def toString(self) -> str:  # pylint: disable=invalid-name
            return "checkpoints-0"
    partition = Partition()
    with pytest.raises(RuntimeError, match=r"^read 0 records of checkpoints-0 to offset 3 in 20 s, stopped at 0$"):
        _reader(monkeypatch)._read_to_end(FakeConsumer(stuck=True), partition)  # pylint: disable=protected-access


class FakeLineReader:
    """Kafka's LineMessageReader as the tests use it: one record per line, the value last."""

    def __init__(self, events: list[str]) -> None:
        self.events = events
        self.settings: dict[str, str] = {}

    def configure(self, settings: dict[str, str]) -> None:
        self.settings = settings

    def readRecords(self, stream: bytes) -> list[tuple]:  # pylint: disable=invalid-name
        return [(self.settings["topic"], None, None, None, line.rsplit("\t", 1)[1].encode(), [])
                for line in stream.decode().splitlines()]

    def close(self) -> None:
        self.events.append("reader closed")


@pytest.fixture
def line_producer(admin: lab_admin.LabAdmin, producer: FakeProducer, monkeypatch: pytest.MonkeyPatch) -> FakeProducer:
    jvm = SimpleNamespace(
        java=SimpleNamespace(util=SimpleNamespace(HashMap=dict), io=SimpleNamespace(ByteArrayInputStream=bytes)),
        org=SimpleNamespace(apache=SimpleNamespace(kafka=SimpleNamespace(
            tools=SimpleNamespace(LineMessageReader=lambda: FakeLineReader(producer.events))))))
    monkeypatch.setattr(lab_admin.LabAdmin, "jvm", property(lambda _self: jvm))
    monkeypatch.setattr(admin, "_map", dict)
    return producer


def test_console_lines_are_parsed_with_keys_and_headers_and_each_record_acknowledged(
        admin: lab_admin.LabAdmin, line_producer: FakeProducer) -> None:
    admin.produce_lines("src-kafka-1", "orders", "n:1\tk1\tfirst\nn:2\tk2\tsecond\n")
    assert [record[4] for record in line_producer.sent] == [b"first", b"second"]
    # Every record is acknowledged before the producer closes.
    assert line_producer.events == ["flush", "get", "get", "close", "reader closed"]


def test_a_console_line_not_acknowledged_fails_once_and_closes_the_producer(
        admin: lab_admin.LabAdmin, line_producer: FakeProducer) -> None:
    with pytest.raises(RuntimeError, match=r"^write records to orders on dst-kafka-1: TimeoutException: not acknowledged$"):
        admin.produce_lines("dst-kafka-1", "orders", "\tk\trefused\n")
    assert len(line_producer.sent) == 1
    assert line_producer.events == ["flush", "get", "close", "reader closed"]


class FakeSystem:
    def __init__(self) -> None:
        self.out: Any = "the JVM's stdout"

    def setOut(self, stream: Any) -> None:  # pylint: disable=invalid-name
        self.out = stream


def _console(admin: lab_admin.LabAdmin, monkeypatch: pytest.MonkeyPatch, fail: bool = False) -> tuple[FakeSystem, list]:
    system, parsed_args = FakeSystem(), []

    class Printed:
        def __init__(self) -> None:
            self.text = ""

        def toString(self, _charset: str) -> str:  # pylint: disable=invalid-name
            return self.text

    def run(_options: Any) -> None:
        system.out.text += "Partition:0\tNO_HEADERS\tk\tv\n"
        if fail:
            raise FakeJavaError("broker gone")

    jvm = SimpleNamespace(
        java=SimpleNamespace(lang=SimpleNamespace(System=system),
                             io=SimpleNamespace(ByteArrayOutputStream=Printed, PrintStream=lambda printed, *_rest: printed)),
        org=SimpleNamespace(apache=SimpleNamespace(kafka=SimpleNamespace(tools=SimpleNamespace(consumer=SimpleNamespace(
            ConsoleConsumerOptions=parsed_args.append, ConsoleConsumer=SimpleNamespace(run=run)))))))
    monkeypatch.setattr(lab_admin.LabAdmin, "jvm", property(lambda _self: jvm))
    monkeypatch.setattr(admin, "_string_array", list)
    monkeypatch.setattr(admin, "_refresh_hosts", lambda: False)
    return system, parsed_args


def test_the_console_consumer_runs_with_this_process_settings_and_returns_what_it_printed(
        admin: lab_admin.LabAdmin, monkeypatch: pytest.MonkeyPatch) -> None:
    system, parsed_args = _console(admin, monkeypatch)
    printed = admin.console_consume("src-kafka-1", ["--topic", "orders", "--max-messages", "1"])
    assert printed == "Partition:0\tNO_HEADERS\tk\tv\n"
    args = parsed_args[0]
    assert args[:6] == ["--bootstrap-server", "src-kafka-1:9092", "--topic", "orders", "--max-messages", "1"]
    properties = [args[index + 1] for index, arg in enumerate(args) if arg == "--command-property"]
    assert properties == [f"request.timeout.ms={lab_admin.REQUEST_TIMEOUT_MS}",
                          f"default.api.timeout.ms={lab_admin.API_TIMEOUT_MS}", f"client.id=itest-consumer-{lab_admin.os.getpid()}"]
    assert system.out == "the JVM's stdout"


def test_the_jvm_stdout_is_given_back_when_the_console_consumer_fails(
        admin: lab_admin.LabAdmin, monkeypatch: pytest.MonkeyPatch) -> None:
    system, _parsed = _console(admin, monkeypatch, fail=True)
    with pytest.raises(RuntimeError, match=r"^consume --topic orders on src-kafka-1: TimeoutException: broker gone$"):
        admin.console_consume("src-kafka-1", ["--topic", "orders"])
    assert system.out == "the JVM's stdout"


def test_a_group_read_is_not_made_again_after_the_lab_addresses_changed(
        admin: lab_admin.LabAdmin, monkeypatch: pytest.MonkeyPatch) -> None:
    _console(admin, monkeypatch, fail=True)
    monkeypatch.setattr(admin, "_refresh_hosts", lambda: True)
    runs: list[str] = []
    monkeypatch.setattr(admin, "_string_array", lambda args: runs.append("run") or args)
    with pytest.raises(RuntimeError, match=r"^consume --topic orders --group app on src-kafka-1: "):
        admin.console_consume("src-kafka-1", ["--topic", "orders", "--group", "app"])
    assert runs == ["run"]
    # Without a group, the read is made once more with a new client.
    with pytest.raises(RuntimeError):
        admin.console_consume("src-kafka-1", ["--topic", "orders"])
    assert runs == ["run", "run", "run"]


def test_a_host_on_a_network_of_its_own_resolves_and_the_first_address_listed_wins() -> None:
    network = "ha-dst-kafka-1 172.20.0.2/16;ha-task-1-1 172.20.0.5/16;"
    containers = "/ha-src-kafka-1 172.21.0.2;/ha-task-1-1 172.21.0.3 172.20.0.5;/ha-gone;"
    assert lab_admin.hosts_lines(network, containers) == [
        "127.0.0.1 localhost", "172.20.0.2 ha-dst-kafka-1", "172.20.0.5 ha-task-1-1", "172.21.0.2 ha-src-kafka-1"]


class FakeDocker:
    """`docker network inspect` lists no container at all (the worst case: every lab host on
    networks of its own); `docker inspect` answers for each container it is asked about."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def run(self, command: list[str], **_kwargs: Any) -> SimpleNamespace:
        if command[:3] == ["docker", "network", "inspect"]:
            return SimpleNamespace(stdout="", returncode=0)
        assert command[:3] == ["docker", "inspect", "-f"], command
        names = command[4:]
        self.asked += names
        return SimpleNamespace(stdout="".join(f"/{name} 10.9.0.{index + 2};" for index, name in enumerate(names)),
                               returncode=0)


@pytest.mark.parametrize("shape", ["default", "ha", "krb"])
def test_every_host_of_each_lab_shape_resolves_whatever_its_networks(
        shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The contract the drills rely on: the test process resolves each host of the shape's
    inventory, not only those of the main network (the three-node lab's source broker has a
    network of its own)."""
    from tests.integration import lab  # pylint: disable=import-outside-toplevel

    docker = FakeDocker()
    monkeypatch.setattr(lab_admin.subprocess, "run", docker.run)
    hosts = lab.inventory_hosts(shape)
    resolver = lab_admin.LabAdmin(f"kafka-dr-lab-{shape}", lambda host: {}, tmp_path / "hosts", hosts)
    assert sorted(resolver.resolvable()) == sorted(hosts)
    assert sorted(docker.asked) == sorted(hosts)


def test_a_broker_whose_trust_material_changed_gets_a_new_client_and_the_call_is_tried_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As after a CA roll's switch: the client made with the old trust store fails, the broker's
    settings now carry the new one, so the call is made once more with a client made from them."""
    trust = {"ssl.truststore.certificates": "old CA"}
    admin = lab_admin.LabAdmin("kafka-dr-lab", lambda host: dict(trust), tmp_path / "hosts")
    made: list[str] = []

    def make_client(host: str) -> str:
        if host not in admin._admin_settings:  # pylint: disable=protected-access
            admin._admin_settings[host] = admin._settings(host, "admin")  # pylint: disable=protected-access
            made.append(admin._admin_settings[host]["ssl.truststore.certificates"])  # pylint: disable=protected-access
        return f"client trusting {made[-1]}"

    monkeypatch.setattr(admin, "_admin", make_client)
    monkeypatch.setattr(admin, "_refresh_hosts", lambda: False)
    monkeypatch.setattr(lab_admin, "java_message", lambda error: f"SSLHandshakeException: {error}")

    def work(client: str) -> str:
        if client == "client trusting old CA":
            trust["ssl.truststore.certificates"] = "old CA\nnew CA"
            raise FakeJavaError("unable to find valid certification path")
        return f"offsets through the {client}"

    assert admin.call("src-kafka-1", "end offsets", work) == "offsets through the client trusting old CA\nnew CA"
    assert made == ["old CA", "old CA\nnew CA"]

    # Settings unchanged since: a failure is reported, not tried again.
    def down(_client: str) -> str:
        raise FakeJavaError("down")

    with pytest.raises(RuntimeError, match="^end offsets on src-kafka-1: SSLHandshakeException"):
        admin.call("src-kafka-1", "end offsets", down)
    assert len(made) == 2
