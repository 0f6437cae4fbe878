# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kafka's own Java clients (Admin, KafkaConsumer) driven from Python on the host.

One JVM per module run, started through py4j with the host's Kafka distribution
(`<kafka home>/libs/*`) on its classpath: group offsets, group members, end offsets and
records come from Kafka's Admin API and consumer, not from a hand-written protocol or
from parsing tool output. The gateway requires an auth token, so no other local process
can borrow the clients' credentials.

`KafkaSide` is what the failover logic needs from one cluster; tests give it fakes.
"""

from __future__ import annotations

import os
import re
import sys
import traceback
from collections import deque
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Mapping, Optional, Protocol, Sequence, Tuple

from ansible_collections.kafka_dr.mm2.plugins.module_utils.java_properties import PropertiesFormatError, read_file as read_properties_file
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_acls import AclBinding

PY4J_IMPORT_ERROR: Optional[str]
try:
    from py4j.java_gateway import GatewayParameters, JavaGateway, launch_gateway
    from py4j.protocol import Py4JError, Py4JJavaError
except ImportError:
    PY4J_IMPORT_ERROR = traceback.format_exc()

    class Py4JError(Exception):  # type: ignore[no-redef]
        """Stands in for py4j's error when py4j is missing (the module fails before any use)."""

    Py4JJavaError = Py4JError  # type: ignore[misc,assignment]
else:
    PY4J_IMPORT_ERROR = None

TopicPartition = Tuple[str, int]
POLL_MS = 500
# Polls without a record before a read gives up on a partition that says it has more.
EMPTY_POLLS_LIMIT = 20
# ${file:/path/to/file:key}: Connect's FileConfigProvider syntax, resolved here on the host.
FILE_PLACEHOLDER = re.compile(r'\$\{file:([^:}]+):([^}]+)\}')
THROWABLE = re.compile(r'(?:[a-z_][\w$]*\.)+([A-Z][\w$]*(?:Exception|Error))')


class KafkaSideError(Exception):
    """A cluster refused or could not answer: which cluster, doing what, and Kafka's message."""

    def __init__(self, cluster: str, action: str, message: str) -> None:
        super().__init__('%s: %s: %s' % (cluster, action, message))
        self.cluster = cluster
        self.action = action
        self.message = message


@dataclass(frozen=True)
class Member:
    """An active member of a consumer group."""

    client_id: str
    host: str


@dataclass(frozen=True)
class KafkaRecord:
    """What MM2 preserves of a record, and where it sits."""

    offset: int
    timestamp: int
    key: Optional[bytes]
    value: Optional[bytes]
    headers: Tuple[Tuple[str, Optional[bytes]], ...]


@dataclass(frozen=True)
class TopicInfo:
    """A topic as Admin.describeTopics sees it."""

    name: str
    # Kafka's topic id (KIP-516, brokers and clients 2.8 and later); None where there is none.
    topic_id: Optional[str]
    partitions: int
    # The fewest replicas of any of its partitions.
    replication_factor: int


# The id Kafka reports for a topic when the broker has none (Uuid.ZERO_UUID, base64).
ZERO_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAA'


class KafkaSide(Protocol):
    """One Kafka cluster, as the failover sees it."""

    name: str

    def groups(self) -> List[str]: ...

    def group_members(self, group: str) -> List[Member]: ...

    def committed_offsets(self, group: str) -> Dict[TopicPartition, int]: ...

    def end_offsets(self, partitions: Sequence[TopicPartition]) -> Dict[TopicPartition, int]: ...

    def read(self, partition: TopicPartition, start: int, limit: int) -> Iterator[KafkaRecord]: ...

    def alter_offsets(self, group: str, offsets: Mapping[TopicPartition, int]) -> None: ...


def resolve_file_placeholders(settings: Mapping[str, str], read_file=None) -> Dict[str, str]:
    """Client settings with ${file:path:key} replaced by the key's value in that properties file.

    The inventory hands over the placeholders the connectors use, so no secret crosses the
    module's arguments; a missing file or key is an error that names both.
    """
    cache: Dict[str, Dict[str, str]] = {}
    reader = read_file or read_secret_file

    def substitute(match: 're.Match[str]') -> str:
        path, key = match.group(1), match.group(2)
        if path not in cache:
            cache[path] = reader(path)
        if key not in cache[path]:
            raise ValueError('secret file %s has no key %s' % (path, key))
        return cache[path][key]

    return {name: FILE_PLACEHOLDER.sub(substitute, str(value)) for name, value in settings.items()}


def module_client_settings(module: Any, option: str) -> Optional[Dict[str, str]]:
    """A module's client settings option with its placeholders resolved, every resolved secret (and
    every password or JAAS value) added to the module's no_log values; None when the option is empty."""
    given = module.params[option]
    if not given:
        return None
    try:
        resolved = resolve_file_placeholders({str(key): str(value) for key, value in given.items()})
    except ValueError as exc:
        module.fail_json(msg='%s: %s' % (option, exc))
    module.no_log_values.update(value for key, value in resolved.items()
                                if value != str(given[key]) or 'password' in key or 'jaas' in key)
    return resolved


def read_secret_file(path: str) -> Dict[str, str]:
    """The keys of a properties file as Kafka's FileConfigProvider reads them (escapes undone)."""
    try:
        return read_properties_file(path)
    except OSError as exc:
        raise ValueError('cannot read secret file %s: %s' % (path, exc.strerror or exc))
    except PropertiesFormatError as exc:
        raise ValueError('secret file %s: %s' % (path, exc))


def java_message(error: BaseException) -> str:
    """The innermost Java exception's class and message, without package names or stack."""
    java_exception = getattr(error, 'java_exception', None)
    if java_exception is not None:
        try:
            cause = java_exception
            while cause.getCause() is not None:
                cause = cause.getCause()
            name = str(cause.getClass().getSimpleName())
            text = cause.getMessage()
            return '%s: %s' % (name, text) if text else name
        except Py4JError:
            pass
    return THROWABLE.sub(r'\1', str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__)


class KafkaJvm:
    """A py4j gateway to a JVM holding the Kafka client jars of the host's Kafka install."""

    def __init__(self, kafka_home: str, java: str = 'java', heap: str = '256m', options: Sequence[str] = ()) -> None:
        """`options`: more JVM options after the gateway's own (system properties, say)."""
        if PY4J_IMPORT_ERROR:
            raise RuntimeError('py4j is not installed for %s' % sys.executable)
        libs = os.path.join(kafka_home, 'libs')
        if not os.path.isdir(libs):
            raise RuntimeError('no Kafka client jars: %s is not a directory' % libs)
        self._stderr: deque = deque(maxlen=40)
        try:
            port, token = launch_gateway(
                classpath=os.path.join(libs, '*'),
                javaopts=['-Xmx%s' % heap, '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC',
                          # Kafka's clients log through log4j2: keep the gateway's stdout clean.
                          '-Dorg.apache.logging.log4j.level=OFF', '-Dlog4j2.level=OFF', *options],
                die_on_exit=True, enable_auth=True, java_path=java, redirect_stderr=self._stderr)
        except (OSError, ValueError, Py4JError) as exc:
            detail = ' '.join(self._stderr) or str(exc)
            raise RuntimeError('cannot start a JVM for the Kafka clients (%s): %s' % (java, detail))
        self.gateway = JavaGateway(gateway_parameters=GatewayParameters(port=port, auth_token=token, auto_convert=True))
        self.jvm = self.gateway.jvm

    def properties(self, settings: Mapping[str, str]) -> Any:
        props = self.jvm.java.util.Properties()
        for key, value in settings.items():
            props.setProperty(key, str(value))
        return props

    def close(self) -> None:
        try:
            self.gateway.shutdown()
        except Py4JError:
            pass

    def __enter__(self) -> 'KafkaJvm':
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


class JvmKafkaSide:
    """One cluster through Kafka's Admin client and a byte-array consumer in the gateway's JVM."""

    def __init__(self, jvm: KafkaJvm, name: str, settings: Mapping[str, str], timeout_ms: int = 30000,
                 purpose: str = 'failover') -> None:
        """`purpose` names the clients to the brokers: client.id kafka-dr-<purpose>-<name>."""
        self.name = name
        self._jvm = jvm
        self._timeout_ms = timeout_ms
        client = dict(settings)
        client.setdefault('request.timeout.ms', str(timeout_ms))
        client.setdefault('default.api.timeout.ms', str(timeout_ms))
        client['client.id'] = 'kafka-dr-%s-%s' % (purpose, name)
        j = jvm.jvm
        self._admin = self._call('connect', lambda: j.org.apache.kafka.clients.admin.Admin.create(jvm.properties(client)))
        deserializer = 'org.apache.kafka.common.serialization.ByteArrayDeserializer'
        consumer_settings = dict(client, **{
            'key.deserializer': deserializer, 'value.deserializer': deserializer,
            'enable.auto.commit': 'false', 'isolation.level': 'read_uncommitted',
            'max.poll.records': '500',
        })
        consumer_settings.pop('group.id', None)
        self._consumer = self._call('connect', lambda: j.org.apache.kafka.clients.consumer.KafkaConsumer(
            jvm.properties(consumer_settings)))

    def _call(self, action: str, thunk):
        try:
            return thunk()
        except (Py4JJavaError, Py4JError) as exc:
            raise KafkaSideError(self.name, action, java_message(exc))

    def _tp(self, partition: TopicPartition) -> Any:
        return self._jvm.jvm.org.apache.kafka.common.TopicPartition(partition[0], int(partition[1]))

    def _timeout(self) -> Any:
        return self._jvm.jvm.java.time.Duration.ofMillis(self._timeout_ms)

    def _future(self, future: Any) -> Any:
        return future.get(self._timeout_ms, self._jvm.jvm.java.util.concurrent.TimeUnit.MILLISECONDS)

    def groups(self) -> List[str]:
        def listing() -> List[str]:
            listed = self._future(self._admin.listConsumerGroups().all())
            return sorted(str(item.groupId()) for item in listed)
        return self._call('list consumer groups', listing)

    def group_members(self, group: str) -> List[Member]:
        """The group's active members; none for a group the cluster does not know (Kafka 4.0 and later
        answer GroupIdNotFoundException where earlier releases describe an empty, dead group)."""
        def describe() -> List[Member]:
            try:
                described = self._future(self._admin.describeConsumerGroups([group]).all())
            except Py4JJavaError as exc:
                if 'GroupIdNotFoundException' in java_message(exc):
                    return []
                raise
            members = described[group].members()
            return sorted(Member(str(m.clientId()), str(m.host()).lstrip('/')) for m in members)
        return self._call('describe group %s' % group, describe)

    def committed_offsets(self, group: str) -> Dict[TopicPartition, int]:
        def listing() -> Dict[TopicPartition, int]:
            offsets = self._future(self._admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata())
            committed: Dict[TopicPartition, int] = {}
            for tp in offsets.keySet():
                meta = offsets.get(tp)
                if meta is not None:
                    committed[(str(tp.topic()), int(tp.partition()))] = int(meta.offset())
            return committed
        return self._call('read offsets of group %s' % group, listing)

    def end_offsets(self, partitions: Sequence[TopicPartition]) -> Dict[TopicPartition, int]:
        if not partitions:
            return {}

        def ends() -> Dict[TopicPartition, int]:
            tps = [self._tp(tp) for tp in partitions]
            found = self._consumer.endOffsets(tps, self._timeout())
            return {(str(tp.topic()), int(tp.partition())): int(found.get(tp)) for tp in found.keySet()}
        return self._call('read end offsets', ends)

    def read(self, partition: TopicPartition, start: int, limit: int) -> Iterator['JvmRecord']:
        """Records of one partition from `start` on, at most `limit`, up to the end offset of now."""
        tp = self._tp(partition)
        end = self.end_offsets([partition]).get(partition, 0)
        if start >= end or limit <= 0:
            return
        self._call('assign %s-%d' % partition, lambda: (self._consumer.assign([tp]), self._consumer.seek(tp, int(start))))
        given = 0
        empty_polls = 0
        position = start
        poll_for = self._jvm.jvm.java.time.Duration.ofMillis(POLL_MS)
        while position < end and given < limit:
            batch = self._call('read %s-%d' % partition, lambda: list(self._consumer.poll(poll_for).records(tp)))
            if not batch:
                empty_polls += 1
                position = int(self._call('position', lambda: self._consumer.position(tp)))
                if empty_polls >= EMPTY_POLLS_LIMIT:
                    return
                continue
            empty_polls = 0
            for record in batch:
                offset = int(record.offset())
                if offset >= end or given >= limit:
                    return
                yield self._record(record, offset)
                given += 1
                position = offset + 1

    def _record(self, record: Any, offset: int) -> 'JvmRecord':
        return JvmRecord(self, record, offset, int(self._call('decode a record', record.timestamp)))

    def start_offsets(self, partitions: Sequence[TopicPartition]) -> Dict[TopicPartition, int]:
        """The log-start offset of each partition (the first offset retention and DeleteRecords left)."""
        if not partitions:
            return {}

        def starts() -> Dict[TopicPartition, int]:
            tps = [self._tp(tp) for tp in partitions]
            found = self._consumer.beginningOffsets(tps, self._timeout())
            return {(str(tp.topic()), int(tp.partition())): int(found.get(tp)) for tp in found.keySet()}
        return self._call('read log-start offsets', starts)

    def topics(self) -> List[str]:
        """Names of the cluster's topics, internal ones (__consumer_offsets ...) left out."""
        return self._call('list topics', lambda: sorted(str(name) for name in self._future(self._admin.listTopics().names())))

    def describe_topics(self, names: Sequence[str]) -> Dict[str, TopicInfo]:
        """Partitions, replication factor and topic id of each topic that exists (others are left out)."""
        if not names:
            return {}

        def describe() -> Dict[str, TopicInfo]:
            result = self._admin.describeTopics(list(names))
            try:
                futures = result.topicNameValues()  # Kafka 3.1 and later
            except Py4JError:
                futures = result.values()  # before 3.1 (gone in 4.0)
            described: Dict[str, TopicInfo] = {}
            for name in names:
                try:
                    description = self._future(futures.get(name))
                except Py4JJavaError as exc:
                    if 'UnknownTopicOrPartitionException' in java_message(exc):
                        continue
                    raise
                described[name] = self._topic_info(name, description)
            return described
        return self._call('describe topics', describe)

    @staticmethod
    def _topic_info(name: str, description: Any) -> TopicInfo:
        partitions = list(description.partitions())
        try:
            topic_id: Optional[str] = str(description.topicId())  # clients 2.8 and later
        except Py4JError:
            topic_id = None
        return TopicInfo(name, None if topic_id in (None, ZERO_TOPIC_ID) else topic_id, len(partitions),
                         min((len(list(partition.replicas())) for partition in partitions), default=0))

    def _configs(self, resource_type: str, names: Sequence[str]) -> Dict[str, Dict[str, str]]:
        j = self._jvm.jvm
        kind = getattr(j.org.apache.kafka.common.config.ConfigResource.Type, resource_type)
        resources = {name: j.org.apache.kafka.common.config.ConfigResource(kind, name) for name in names}
        futures = self._admin.describeConfigs(list(resources.values())).values()
        configs: Dict[str, Dict[str, str]] = {}
        for name, resource in resources.items():
            config = self._future(futures.get(resource))
            configs[name] = {str(entry.name()): str(entry.value()) for entry in config.entries().toArray()
                             if entry.value() is not None}
        return configs

    def topic_configs(self, names: Sequence[str]) -> Dict[str, Dict[str, str]]:
        """Every config of each topic, defaults included (the values in force)."""
        if not names:
            return {}
        return self._call('describe topic configs', lambda: self._configs('TOPIC', names))

    def broker_config(self) -> Dict[str, str]:
        """The configs of one broker of the cluster (its defaults for new topics)."""
        def describe() -> Dict[str, str]:
            nodes = list(self._future(self._admin.describeCluster().nodes()).toArray())
            if not nodes:
                return {}
            node = str(nodes[0].idString())
            return self._configs('BROKER', [node])[node]
        return self._call('describe broker configs', describe)

    def acls(self) -> Optional[List[AclBinding]]:
        """Every ACL binding of the cluster; None when it runs no authorizer."""
        def describe() -> Optional[List[AclBinding]]:
            j = self._jvm.jvm
            try:
                found = self._future(self._admin.describeAcls(j.org.apache.kafka.common.acl.AclBindingFilter.ANY).values())
            except Py4JJavaError as exc:
                if 'SecurityDisabledException' in java_message(exc):
                    return None
                raise
            bindings = []
            for item in found.toArray():
                pattern, entry = item.pattern(), item.entry()
                bindings.append(AclBinding(str(pattern.resourceType().toString()), str(pattern.name()),
                                           str(pattern.patternType().toString()), str(entry.principal()), str(entry.host()),
                                           str(entry.operation().toString()), str(entry.permissionType().toString())))
            return sorted(bindings)
        return self._call('describe ACLs', describe)

    def alter_offsets(self, group: str, offsets: Mapping[TopicPartition, int]) -> None:
        def alter() -> None:
            j = self._jvm.jvm
            java_offsets = j.java.util.HashMap()
            for tp, offset in offsets.items():
                java_offsets.put(self._tp(tp), j.org.apache.kafka.clients.consumer.OffsetAndMetadata(int(offset)))
            self._future(self._admin.alterConsumerGroupOffsets(group, java_offsets).all())
        self._call('write offsets of group %s' % group, alter)

    def close(self) -> None:
        for client in (self._consumer, self._admin):
            try:
                client.close()
            except Py4JError:
                pass


class JvmRecord:
    """A consumer record in the JVM: offset and timestamp read at once, the rest when asked.

    Every field is a round trip to the JVM; comparisons check the timestamp first, so most
    records never need their key, value and headers on the Python side.
    """

    def __init__(self, side: JvmKafkaSide, record: Any, offset: int, timestamp: int) -> None:
        self._side = side
        self._record = record
        self.offset = offset
        self.timestamp = timestamp
        self._content: Optional[Tuple[Optional[bytes], Optional[bytes], Tuple[Tuple[str, Optional[bytes]], ...]]] = None

    def _fetch(self) -> Tuple[Optional[bytes], Optional[bytes], Tuple[Tuple[str, Optional[bytes]], ...]]:
        if self._content is None:
            record = self._record

            def convert() -> Tuple[Optional[bytes], Optional[bytes], Tuple[Tuple[str, Optional[bytes]], ...]]:
                headers = tuple((str(h.key()), _bytes(h.value())) for h in record.headers().toArray())
                return _bytes(record.key()), _bytes(record.value()), headers
            self._content = self._side._call('decode a record', convert)  # pylint: disable=protected-access
        return self._content

    @property
    def key(self) -> Optional[bytes]:
        return self._fetch()[0]

    @property
    def value(self) -> Optional[bytes]:
        return self._fetch()[1]

    @property
    def headers(self) -> Tuple[Tuple[str, Optional[bytes]], ...]:
        return self._fetch()[2]


def _bytes(value: Any) -> Optional[bytes]:
    return None if value is None else bytes(value)
