"""The lab's clusters administered from the test process with Kafka's own Admin client.

One JVM per test process (py4j, as the collection's failover module drives Kafka's clients)
answers the questions the tests ask most, often in polling loops: topics, partitions, end
offsets, configs, group offsets, ACLs, SCRAM accounts. A JVM tool started through docker exec
for each of them cost a CPU-second or more. It also writes records byte for byte (partition,
timestamp, headers) and reads MM2's binary internal records, which the console tools cannot,
and runs the console producer's line reader and the console consumer itself, with the same
options and output as the tools the tests started in the lab before.

The JVM runs on this machine with the client jars of the lab's Kafka distribution. It reaches
the brokers by their names, as the tools inside the lab do: the names resolve through a hosts
file written from the lab network's containers (the JDK's `jdk.net.hosts.file`), so TLS checks
each broker's name against its certificate. Lab brokers are administered as the roles do, with
the broker's own admin client settings read from the broker; the PEM files they name are
passed inline, so no key is written on this machine.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

import yaml
from ansible_collections.kafka_dr.mm2.plugins.module_utils import java_properties
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import KafkaJvm, java_message

try:
    from py4j.protocol import Py4JError
except ImportError:  # the venv has py4j (pyspark's); without it, the first use fails clearly
    Py4JError = Exception  # type: ignore[misc,assignment]

KAFKA_CACHE = Path(os.environ.get("KAFKA_DR_CACHE", Path.home() / ".cache" / "kafka-dr"))
INSTALL_DEFAULTS = Path(__file__).resolve().parents[2] / "roles" / "kafka_install" / "defaults" / "main.yml"
# Answers within these bounds, or an error: a probe of a broker that is still starting is asked again.
REQUEST_TIMEOUT_MS = 10000
API_TIMEOUT_MS = 20000
# The broker's admin client file, read as Kafka reads it.
read_properties = java_properties.loads
PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z ]+)-----.*?-----END \1-----", re.DOTALL)


def default_dist_name(defaults: Path = INSTALL_DEFAULTS) -> str:
    """The distribution the lab installs by default (role kafka_install's defaults), e.g. kafka_2.13-4.3.1."""
    settings = yaml.safe_load(defaults.read_text(encoding="utf-8"))
    return f"kafka_{settings['kafka_install_scala_version']}-{settings['kafka_install_version']}"


def client_libs(dist_name: str = "", cache: Path = KAFKA_CACHE) -> Path:
    """The Kafka home of the distribution `make setup` assembled (its tarball in the cache),
    unpacked once beside it; the lab's default release unless named."""
    dist_name = dist_name or default_dist_name()
    home = cache / "clients" / dist_name
    if (home / "libs").is_dir():
        return home
    tarball = cache / "dist" / f"{dist_name}.tgz"
    if not tarball.is_file():
        raise RuntimeError(f"no Kafka distribution at {tarball}: run `make setup`")
    home.parent.mkdir(parents=True, exist_ok=True)
    unpacked = Path(tempfile.mkdtemp(prefix=f".{dist_name}.", dir=home.parent))
    try:
        with tarfile.open(tarball) as archive:
            archive.extractall(unpacked, filter="data")
        try:
            (unpacked / dist_name).rename(home)
        except OSError:
            if not (home / "libs").is_dir():  # not another test process that unpacked it first
                raise
    finally:
        shutil.rmtree(unpacked, ignore_errors=True)
    return home


def hosts_lines(network_listing: str, container_listing: str = "") -> list[str]:
    """Hosts file lines, one address per name (the first one listed wins), from `docker network
    inspect` output of "<name> <address>/<bits>;" items and `docker inspect` output of
    "<name> <address> <address>...;" items (a container on several networks has one address on
    each, all of them reachable from this machine)."""
    lines = ["127.0.0.1 localhost"]
    named = {"localhost"}

    def add(name: str, address: str) -> None:
        if address and name not in named:
            named.add(name)
            lines.append(f"{address} {name}")

    for item in network_listing.split(";"):
        fields = item.split()
        if len(fields) == 2 and "/" in fields[1]:
            add(fields[0], fields[1].split("/", 1)[0])
    for item in container_listing.split(";"):
        fields = item.split()
        if len(fields) >= 2:
            add(fields[0].lstrip("/"), fields[1])
    return lines


def inline_pem_settings(settings: dict[str, str], read_file: Callable[[str], str]) -> dict[str, str]:
    """Client settings whose PEM key and trust stores are given inline instead of as files on the
    broker (Kafka's ssl.keystore.key, ssl.keystore.certificate.chain, ssl.truststore.certificates)."""
    inline = {key: value for key, value in settings.items()
              if not key.startswith(("ssl.keystore.", "ssl.truststore.", "ssl.key.password"))}
    if settings.get("ssl.keystore.location"):
        if settings.get("ssl.keystore.type", "JKS").upper() != "PEM":
            raise RuntimeError("the admin client settings use a keystore that is not PEM")
        blocks = [match.group(0) for match in PEM_BLOCK.finditer(read_file(settings["ssl.keystore.location"]))]
        keys = [block for block in blocks if "PRIVATE KEY-----" in block.splitlines()[0]]
        chain = [block for block in blocks if block.startswith("-----BEGIN CERTIFICATE-----")]
        if len(keys) != 1 or not chain:
            raise RuntimeError("the admin keystore does not hold one private key and its certificates")
        inline.update({"ssl.keystore.type": "PEM", "ssl.keystore.key": keys[0],
                       "ssl.keystore.certificate.chain": "\n".join(chain)})
        if settings.get("ssl.key.password"):
            inline["ssl.key.password"] = settings["ssl.key.password"]
    if settings.get("ssl.truststore.location"):
        if settings.get("ssl.truststore.type", "JKS").upper() != "PEM":
            raise RuntimeError("the admin client settings use a truststore that is not PEM")
        inline.update({"ssl.truststore.type": "PEM",
                       "ssl.truststore.certificates": read_file(settings["ssl.truststore.location"])})
    return inline


def camel_to_constant(name: str) -> str:
    """AclCommand's operation names (DescribeConfigs) as Kafka's enum constants (DESCRIBE_CONFIGS)."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).upper()


@dataclass(frozen=True)
class ExactRecord:
    """A record as written byte for byte: key, value and header values may be None."""

    partition: int
    key: Optional[bytes]
    value: Optional[bytes]
    headers: tuple[tuple[str, Optional[bytes]], ...]
    timestamp: int


AclResource = tuple[str, str, str]  # (resource type, name, pattern type), e.g. ("TOPIC", "x", "LITERAL")


def acl_resource_of(flags: Iterable[str]) -> AclResource:
    """A resource given as AclCommand flags ("--topic", "x"; "--group", "g"; "--cluster"; with
    "--resource-pattern-type", "prefixed") as a listing key."""
    rest = list(flags)
    pattern = "LITERAL"
    if "--resource-pattern-type" in rest:
        index = rest.index("--resource-pattern-type")
        pattern = rest[index + 1].upper()
        del rest[index:index + 2]
    if rest == ["--cluster"]:
        return ("CLUSTER", "kafka-cluster", pattern)
    if len(rest) == 2 and rest[0] in ("--topic", "--group"):
        return (rest[0][2:].upper(), rest[1], pattern)
    raise ValueError(f"not a topic, group or cluster resource: {' '.join(flags)}")


class LabAdmin:
    """Admin clients to the brokers of a lab shape, in one JVM started on first use.

    Names resolve for the containers of the shape's main docker network (those a test starts
    itself among them) and for each named lab host on whichever networks it has: a shape may put
    a cluster on a network of its own (the three-node lab's source)."""

    def __init__(self, network: str, settings_of: Callable[[str], dict[str, str]], hosts_file: Path,
                 hosts: Iterable[str] = ()) -> None:
        self._network = network
        self._hosts = tuple(hosts)
        self._settings_of = settings_of
        self._hosts_file = hosts_file
        self._jvm: Optional[KafkaJvm] = None
        self._admins: dict[str, Any] = {}
        # The settings each client was made with: a broker whose trust material changed since
        # (a CA roll) gets a new client, as an operator's restarted client would.
        self._admin_settings: dict[str, dict[str, str]] = {}

    # ---- the JVM, names and clients ----

    def _refresh_hosts(self) -> bool:
        """Write the lab's names and addresses; true when they changed."""
        text = "\n".join(hosts_lines(*self._listings())) + "\n"
        previous = self._hosts_file.read_text(encoding="utf-8") if self._hosts_file.exists() else ""
        if text == previous:
            return False
        self._hosts_file.parent.mkdir(parents=True, exist_ok=True)
        staged = self._hosts_file.with_suffix(".tmp")
        staged.write_text(text, encoding="utf-8")
        staged.replace(self._hosts_file)
        return True

    def _listings(self) -> tuple[str, str]:
        """The main network's containers, then the named hosts' addresses on all their networks
        (docker lists the containers that exist; a missing one is simply not resolved)."""
        network = subprocess.run(
            ["docker", "network", "inspect", self._network, "-f",
             "{{range .Containers}}{{.Name}} {{.IPv4Address}};{{end}}"],
            capture_output=True, text=True, check=False, timeout=60).stdout
        containers = subprocess.run(
            ["docker", "inspect", "-f",
             "{{.Name}}{{range .NetworkSettings.Networks}} {{.IPAddress}}{{end}};", *self._hosts],
            capture_output=True, text=True, check=False, timeout=60).stdout if self._hosts else ""
        return network, containers

    def resolvable(self) -> dict[str, str]:
        """Each name the clients of this process resolve, with its address (the hosts file, written anew)."""
        self._refresh_hosts()
        return {line.split()[1]: line.split()[0]
                for line in self._hosts_file.read_text(encoding="utf-8").splitlines()[1:]}

    def _known(self, host: str) -> bool:
        if not self._hosts_file.exists():
            return False
        return any(line.split()[1:] == [host] for line in self._hosts_file.read_text(encoding="utf-8").splitlines())

    def _kafka_jvm(self) -> KafkaJvm:
        if self._jvm is None:
            self._refresh_hosts()
            # The JDK reads the file at each lookup and caches nothing, so a restarted container's
            # new address is seen at once.
            self._jvm = KafkaJvm(str(client_libs()), options=[
                f"-Djdk.net.hosts.file={self._hosts_file}", "-Dsun.net.inetaddr.ttl=0",
                "-Dsun.net.inetaddr.negative.ttl=0"])
        return self._jvm

    @property
    def jvm(self) -> Any:
        return self._kafka_jvm().jvm

    def _admin(self, host: str) -> Any:
        if host not in self._admins:
            if not self._known(host):
                self._refresh_hosts()
            settings = self._settings(host, "admin")
            self._admins[host] = self.jvm.org.apache.kafka.clients.admin.Admin.create(
                self._kafka_jvm().properties(settings))
            self._admin_settings[host] = settings
        return self._admins[host]

    def _settings_changed(self, host: str) -> bool:
        """Whether the broker's client settings (its trust store and certificate among them) differ
        from those its client was made with."""
        made_with = self._admin_settings.get(host)
        return made_with is not None and made_with != self._settings(host, "admin")

    def _settings(self, host: str, role: str, **extra: str) -> dict[str, str]:
        """A broker's settings for one of this process's clients, with bounded waits."""
        return dict(self._settings_of(host), **{
            "request.timeout.ms": str(REQUEST_TIMEOUT_MS), "default.api.timeout.ms": str(API_TIMEOUT_MS),
            "client.id": f"itest-{role}-{os.getpid()}"}, **extra)

    def _client_settings(self, host: str, role: str, **extra: str) -> Any:
        """The same as java.util.Properties, for a client this process creates."""
        return self._kafka_jvm().properties(self._settings(host, role, **extra))

    def _map(self, pairs: Iterable[tuple[Any, Any]]) -> Any:
        """A java.util.HashMap (keys that are Java objects stay on the Java side)."""
        java_map = self.jvm.java.util.HashMap()
        for key, value in pairs:
            java_map.put(key, value)
        return java_map

    def _list(self, collection: Any) -> Any:
        """Any Java collection as a java.util.ArrayList, which py4j iterates."""
        return self.jvm.java.util.ArrayList(collection)

    def forget(self, host: str) -> None:
        """Close the client of a broker that is gone (a test's own broker, removed)."""
        admin = self._admins.pop(host, None)
        self._admin_settings.pop(host, None)
        if admin is not None:
            try:
                admin.close(self.jvm.java.time.Duration.ofSeconds(1))
            except Py4JError:
                pass

    def call(self, host: str, action: str, work: Callable[[Any], Any], again: bool = True) -> Any:
        """work(admin) for a broker; a Kafka error becomes a RuntimeError naming the broker and
        the action. When the lab's addresses changed meanwhile (a container restarted) or the
        broker's client settings did (new trust material), the call is made once more with a new
        client, unless `again` is false (a write that may have landed)."""
        for attempt in (1, 2):
            try:
                return work(self._admin(host))
            except Py4JError as exc:
                if again and attempt == 1 and (self._refresh_hosts() | self._settings_changed(host)):
                    self.forget(host)
                    continue
                raise RuntimeError(f"{action} on {host}: {java_message(exc)}") from None
        raise AssertionError("unreachable")

    # ---- what the tests ask ----

    def topic_names(self, host: str) -> set[str]:
        def names(admin: Any) -> str:
            options = self.jvm.org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(True)
            return self.jvm.java.lang.String.join("\n", admin.listTopics(options).names().get())
        return set(self.call(host, "list topics", names).split())

    def create_topic(self, host: str, topic: str, partitions: int, configs: dict[str, str]) -> None:
        def create(admin: Any) -> None:
            optional = self.jvm.java.util.Optional
            new_topic = self.jvm.org.apache.kafka.clients.admin.NewTopic(topic, optional.of(partitions), optional.empty())
            if configs:
                new_topic.configs(configs)
            try:
                admin.createTopics([new_topic]).all().get()
            except Py4JError as exc:
                if not java_message(exc).startswith("TopicExistsException"):
                    raise
        self.call(host, f"create topic {topic}", create)

    def partition_count(self, host: str, topic: str) -> int:
        def count(admin: Any) -> int:
            described = admin.describeTopics([topic]).allTopicNames().get()
            return int(described.get(topic).partitions().size())
        return self.call(host, f"describe topic {topic}", count)

    def add_partitions(self, host: str, topic: str, partitions: int) -> None:
        def grow(admin: Any) -> None:
            increase = self.jvm.org.apache.kafka.clients.admin.NewPartitions.increaseTo(partitions)
            admin.createPartitions(self._map([(topic, increase)])).all().get()
        self.call(host, f"add partitions to {topic}", grow)

    def delete_topics(self, host: str, topics: list[str]) -> None:
        if topics:
            self.call(host, f"delete topics {', '.join(topics)}", lambda admin: admin.deleteTopics(topics).all().get())

    def dynamic_topic_config(self, host: str, topic: str) -> dict[str, str]:
        """The settings given to the topic itself, as `kafka-configs --describe` lists them."""
        def describe(admin: Any) -> dict[str, str]:
            resource = self._topic_resource(topic)
            config = admin.describeConfigs([resource]).all().get().get(resource)
            dynamic = self.jvm.org.apache.kafka.clients.admin.ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG
            return {str(entry.name()): "null" if entry.value() is None else str(entry.value())
                    for entry in self._list(config.entries()) if entry.source() == dynamic}
        return self.call(host, f"describe the configs of {topic}", describe)

    def set_topic_config(self, host: str, topic: str, key: str, value: str) -> None:
        def alter(admin: Any) -> None:
            admin_classes = self.jvm.org.apache.kafka.clients.admin
            operation = admin_classes.AlterConfigOp(admin_classes.ConfigEntry(key, value),
                                                    admin_classes.AlterConfigOp.OpType.SET)
            admin.incrementalAlterConfigs(self._map([(self._topic_resource(topic), [operation])])).all().get()
        self.call(host, f"set {key} of {topic}", alter)

    def _topic_resource(self, topic: str) -> Any:
        config = self.jvm.org.apache.kafka.common.config.ConfigResource
        return config(config.Type.TOPIC, topic)

    def end_offsets(self, host: str, topic: str) -> dict[int, int]:
        def ends(admin: Any) -> dict[int, int]:
            partitions = admin.describeTopics([topic]).allTopicNames().get().get(topic).partitions()
            latest = self.jvm.org.apache.kafka.clients.admin.OffsetSpec.latest()
            wanted = self._map((self.jvm.org.apache.kafka.common.TopicPartition(topic, partition.partition()), latest)
                               for partition in self._list(partitions))
            listed = admin.listOffsets(wanted).all().get()
            return {int(tp.partition()): int(listed.get(tp).offset()) for tp in listed.keySet()}
        return self.call(host, f"end offsets of {topic}", ends)

    def group_offsets(self, host: str, group: str) -> dict[tuple[str, int], int]:
        """Committed offsets of a group; empty when it has none or does not exist."""
        def committed(admin: Any) -> dict[tuple[str, int], int]:
            try:
                offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
            except Py4JError as exc:
                if java_message(exc).startswith("GroupIdNotFoundException"):
                    return {}
                raise
            return {(str(tp.topic()), int(tp.partition())): int(offsets.get(tp).offset())
                    for tp in offsets.keySet() if offsets.get(tp) is not None}
        return self.call(host, f"offsets of group {group}", committed)

    def delete_group(self, host: str, group: str) -> None:
        self.call(host, f"delete group {group}", lambda admin: admin.deleteConsumerGroups([group]).all().get())

    def acl_entries(self, host: str) -> dict[AclResource, set[tuple[str, str, str]]]:
        """Every ACL binding: {resource: {(principal, operation, permission)}}, operation and
        permission as Kafka's constants (READ, ALLOW)."""
        def describe(admin: Any) -> dict[AclResource, set[tuple[str, str, str]]]:
            found: dict[AclResource, set[tuple[str, str, str]]] = {}
            any_binding = self.jvm.org.apache.kafka.common.acl.AclBindingFilter.ANY
            for binding in self._list(admin.describeAcls(any_binding).values().get()):
                pattern, entry = binding.pattern(), binding.entry()
                key = (str(pattern.resourceType().name()), str(pattern.name()), str(pattern.patternType().name()))
                found.setdefault(key, set()).add(
                    (str(entry.principal()), str(entry.operation().name()), str(entry.permissionType().name())))
            return found
        return self.call(host, "list ACLs", describe)

    def change_acls(self, host: str, add: bool, principal: str, operations: list[str], resource: AclResource) -> None:
        """Add or remove ALLOW bindings of a principal on any host ("*") for a resource."""
        acl = self.jvm.org.apache.kafka.common.acl
        pattern_classes = self.jvm.org.apache.kafka.common.resource
        kind, name, pattern_type = resource
        pattern = pattern_classes.ResourcePattern(pattern_classes.ResourceType.valueOf(kind), name,
                                                  pattern_classes.PatternType.valueOf(pattern_type))
        allow = acl.AclPermissionType.ALLOW
        bindings = [acl.AclBinding(pattern, acl.AccessControlEntry(
            principal, "*", acl.AclOperation.valueOf(camel_to_constant(operation)), allow)) for operation in operations]

        def change(admin: Any) -> None:
            if add:
                admin.createAcls(bindings).all().get()
            else:
                admin.deleteAcls([binding.toFilter() for binding in bindings]).all().get()
        self.call(host, f"{'add' if add else 'remove'} ACLs of {principal} on {name}", change)

    def remove_acls(self, host: str, resources: list[AclResource]) -> None:
        """Remove every binding of the given resources."""
        pattern_classes = self.jvm.org.apache.kafka.common.resource
        acl = self.jvm.org.apache.kafka.common.acl
        filters = [acl.AclBindingFilter(
            pattern_classes.ResourcePatternFilter(pattern_classes.ResourceType.valueOf(kind), name,
                                                  pattern_classes.PatternType.valueOf(pattern_type)),
            acl.AccessControlEntryFilter.ANY) for kind, name, pattern_type in resources]
        if filters:
            self.call(host, "remove ACLs", lambda admin: admin.deleteAcls(filters).all().get())

    def write_exact(self, host: str, topic: str, records: list[ExactRecord]) -> None:
        """Records with the partition, key, value, headers and timestamp each one names, acknowledged
        by every replica (the console producer sets neither the timestamp nor binary data)."""
        def send_all(_admin: Any) -> None:
            producer = self._producer(host)
            try:
                java_long, java_int = self.jvm.java.lang.Long, self.jvm.java.lang.Integer
                producer_classes = self.jvm.org.apache.kafka.clients.producer
                header_class = self.jvm.org.apache.kafka.common.header.internals.RecordHeader
                sent = [producer.send(producer_classes.ProducerRecord(
                    topic, java_int(record.partition), java_long(record.timestamp), record.key, record.value,
                    [header_class(name, value) for name, value in record.headers])) for record in records]
                producer.flush()
                for result in sent:
                    result.get()
            finally:
                producer.close()
        self.call(host, f"write {len(records)} records to {topic}", send_all, again=False)

    def produce_lines(self, host: str, topic: str, text: str) -> None:
        """Records as the console producer reads them (LineMessageReader, parsing keys and headers:
        headers, key and value per line, tab separated; the partition from the key's hash), each
        acknowledged by every replica."""
        def send_all(_admin: Any) -> None:
            reader = self.jvm.org.apache.kafka.tools.LineMessageReader()
            reader.configure(self._map({"topic": topic, "parse.key": "true", "parse.headers": "true"}.items()))
            producer = self._producer(host)
            try:
                sent = [producer.send(record) for record in reader.readRecords(
                    self.jvm.java.io.ByteArrayInputStream(text.encode("utf-8")))]
                producer.flush()
                for result in sent:
                    result.get()
            finally:
                producer.close()
                reader.close()
        self.call(host, f"write records to {topic}", send_all, again=False)

    def console_consume(self, host: str, options: list[str]) -> str:
        """What the console consumer prints with these options (topic, group, limits, formatter),
        run in this JVM with this process's settings for the broker instead of a tool started in
        the lab. It ends as the tool does: after --max-messages, or --timeout-ms without a record.
        Options the tool refuses end this JVM, as they end the tool (Kafka's Exit)."""
        settings = self._settings(host, "consumer")
        args = ["--bootstrap-server", settings.pop("bootstrap.servers"), *options]
        for key, value in settings.items():
            args += ["--command-property", f"{key}={value}"]

        def consume(_admin: Any) -> str:
            system, printed = self.jvm.java.lang.System, self.jvm.java.io.ByteArrayOutputStream()
            console_classes = self.jvm.org.apache.kafka.tools.consumer
            parsed = console_classes.ConsoleConsumerOptions(self._string_array(args))
            # The tool prints to System.out: this JVM's, for the time of the run (one test at a
            # time uses it).
            stdout = system.out
            system.setOut(self.jvm.java.io.PrintStream(printed, True, "UTF-8"))
            try:
                console_classes.ConsoleConsumer.run(parsed)
            finally:
                system.setOut(stdout)
            return printed.toString("UTF-8")
        # With a group, a second run would read on from what the first one committed.
        return self.call(host, f"consume {' '.join(options)}", consume, again="--group" not in options)

    def _string_array(self, values: list[str]) -> Any:
        array = self._kafka_jvm().gateway.new_array(self.jvm.java.lang.String, len(values))
        for index, value in enumerate(values):
            array[index] = value
        return array

    def read_partition(self, host: str, topic: str, partition: int = 0,
                       start: int = 0) -> list[tuple[bytes, Optional[bytes]]]:
        """Keys (empty when null) and values of one partition, from offset `start` (its beginning
        by default) to the end it had when asked."""
        def read(_admin: Any) -> list[tuple[bytes, Optional[bytes]]]:
            deserializer = "org.apache.kafka.common.serialization.ByteArrayDeserializer"
            consumer = self.jvm.org.apache.kafka.clients.consumer.KafkaConsumer(self._client_settings(
                host, "reader", **{"enable.auto.commit": "false", "allow.auto.create.topics": "false",
                                   "key.deserializer": deserializer, "value.deserializer": deserializer}))
            try:
                return self._read_to_end(consumer, self.jvm.org.apache.kafka.common.TopicPartition(topic, partition),
                                         start)
            finally:
                consumer.close()
        return self.call(host, f"read {topic}-{partition}", read)

    def _read_to_end(self, consumer: Any, partition: Any, start: int = 0) -> list[tuple[bytes, Optional[bytes]]]:
        consumer.assign([partition])
        if start > 0:
            consumer.seek(partition, start)
        else:
            consumer.seekToBeginning([partition])
        end = consumer.endOffsets([partition]).get(partition)
        poll = self.jvm.java.time.Duration.ofMillis(500)
        found: list[tuple[bytes, Optional[bytes]]] = []
        deadline = time.monotonic() + API_TIMEOUT_MS / 1000
        while consumer.position(partition) < end:
            if time.monotonic() > deadline:
                raise RuntimeError(f"read {len(found)} records of {partition.toString()} to offset {end} "
                                   f"in {API_TIMEOUT_MS // 1000} s, stopped at {consumer.position(partition)}")
            for record in consumer.poll(poll).records(partition):
                key, value = record.key(), record.value()
                found.append((b"" if key is None else bytes(key), None if value is None else bytes(value)))
        return found

    def _producer(self, host: str) -> Any:
        serializer = "org.apache.kafka.common.serialization.ByteArraySerializer"
        return self.jvm.org.apache.kafka.clients.producer.KafkaProducer(self._client_settings(
            host, "writer", **{"acks": "all", "enable.idempotence": "true", "key.serializer": serializer,
                               "value.serializer": serializer,
                               "delivery.timeout.ms": str(API_TIMEOUT_MS + REQUEST_TIMEOUT_MS)}))

    def set_scram(self, host: str, user: str, password: str, iterations: int = 8192) -> None:
        """A SCRAM-SHA-512 credential; the password travels only over the gateway's socket."""
        admin_classes = self.jvm.org.apache.kafka.clients.admin
        info = admin_classes.ScramCredentialInfo(admin_classes.ScramMechanism.SCRAM_SHA_512, iterations)
        upsert = admin_classes.UserScramCredentialUpsertion(user, info, password)
        self.call(host, f"set the SCRAM credential of {user}",
                  lambda admin: admin.alterUserScramCredentials([upsert]).all().get())

    def delete_scram(self, host: str, user: str) -> None:
        admin_classes = self.jvm.org.apache.kafka.clients.admin
        deletion = admin_classes.UserScramCredentialDeletion(user, admin_classes.ScramMechanism.SCRAM_SHA_512)
        self.call(host, f"delete the SCRAM credential of {user}",
                  lambda admin: admin.alterUserScramCredentials([deletion]).all().get())
