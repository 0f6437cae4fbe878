# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""MirrorMaker 2's dedicated mode converted into the collection's model.

connect-mirror-maker.sh reads one mm2.properties (MirrorMakerConfig): ``clusters = a, b``, each
cluster's client settings under ``<alias>.`` (``a.bootstrap.servers``, ``a.security.protocol``,
and per client ``a.consumer.*``, ``a.producer.*``, ``a.admin.*``), connector settings at the top
level for every flow, and per flow under ``<source>-><target>.`` (``a->b.enabled``,
``a->b.topics``). from_dedicated(text) returns the same replication as

    mm2_clusters  alias -> connection settings (secrets as references to secret files)
    mm2_flows     one flow per enabled <source>-><target>
    secrets       where each secret must go: file, key, cluster, setting, line (never a value)
    unmapped      lines read but not carried over, each with its line, key and why
    notes         what an operator should know about the conversion

and raises ValueError, naming the line and key of each, for anything it cannot map: an unknown
key, a flow naming an unknown cluster alias, a value MM2 would refuse, a cluster without
bootstrap servers. dedicated_secret_files(text) returns the secret values themselves, in the
shape of mirrormaker_secret_files, for an operator who asks for them (to vault them).

Settings the file leaves unset take the model's defaults (docs/mirrormaker.md, "From dedicated
mode", lists where those differ from MM2's own).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_config import is_placeholder, is_secret_key, jaas_unescape
from ansible_collections.kafka_dr.mm2.plugins.module_utils.java_properties import (
    COMMENT_MARKS,
    WHITESPACE,
    PropertiesFormatError,
    split_line,
    unescape,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_naming import DEFAULT_POLICY_CLASS, IDENTITY_POLICY_CLASS
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_clients import KERBEROS_LOGIN_MODULE, PLAIN_LOGIN_MODULE, SCRAM_LOGIN_MODULE
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_clusters import ALIAS_RE, BOOTSTRAP_ENTRY_RE, SECURITY_PROTOCOLS
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_common import CONNECTOR_KINDS, as_pattern_list

FLOW_KEY_RE = re.compile(r'^(?P<source>[A-Za-z0-9_-]+?)->(?P<target>[A-Za-z0-9_-]+)\.(?P<rest>.+)$')
NATURAL_LINE_END = re.compile(r'\r\n|\r|\n')
FILE_PLACEHOLDER_RE = re.compile(r'^\$\{file:([^:}]+):([^}]+)\}$')
JAAS_LINE_RE = re.compile(r'^\s*(?P<module>[A-Za-z_$][\w.$]*)\s+(?P<flag>required|requisite|sufficient|optional)(?P<options>[^;]*);\s*$')
JAAS_OPTION_RE = re.compile(r'([A-Za-z_][\w.-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s";]+))')

# Connector settings, at the top level (every flow) or under <source>-><target>. (one flow).
BOOLEAN_KEYS = {
    'sync.topic.configs.enabled': 'sync_topic_configs',
    'sync.topic.acls.enabled': 'sync_topic_acls',
    'refresh.topics.enabled': 'refresh_topics',
    'refresh.groups.enabled': 'refresh_groups',
    'emit.checkpoints.enabled': 'emit_checkpoints',
    'sync.group.offsets.enabled': 'sync_group_offsets',
    'emit.heartbeats.enabled': 'emit_heartbeats',
}
# key -> (option, smallest value; -1 allowed for the replication factors)
INTEGER_KEYS = {
    'sync.topic.configs.interval.seconds': ('sync_topic_configs_interval_seconds', 1),
    'sync.topic.acls.interval.seconds': ('sync_topic_acls_interval_seconds', 1),
    'refresh.topics.interval.seconds': ('refresh_topics_interval_seconds', 1),
    'refresh.groups.interval.seconds': ('refresh_groups_interval_seconds', 1),
    'emit.checkpoints.interval.seconds': ('emit_checkpoints_interval_seconds', 1),
    'sync.group.offsets.interval.seconds': ('sync_group_offsets_interval_seconds', 1),
    'emit.heartbeats.interval.seconds': ('emit_heartbeats_interval_seconds', 1),
    'offset.lag.max': ('offset_lag_max', 0),
    'admin.timeout.ms': ('admin_timeout_ms', 1),
    'consumer.poll.timeout.ms': ('consumer_poll_timeout_ms', 1),
    'replication.factor': ('replication_factor', -1),
    'offset-syncs.topic.replication.factor': ('offset_syncs_topic_replication_factor', -1),
    'checkpoints.topic.replication.factor': ('checkpoints_topic_replication_factor', -1),
    'heartbeats.topic.replication.factor': ('heartbeats_topic_replication_factor', -1),
}
INTERNAL_TOPIC_FACTORS = ('offset_syncs_topic_replication_factor', 'checkpoints_topic_replication_factor',
                          'heartbeats_topic_replication_factor')
# key -> option; the *.blacklist names are those MM2 read before Kafka 2.8 (removed in 4.0).
PATTERN_KEYS = {
    'topics': 'topics',
    'topics.exclude': 'topics_exclude',
    'topics.blacklist': 'topics_exclude',
    'groups': 'groups',
    'groups.exclude': 'groups_exclude',
    'groups.blacklist': 'groups_exclude',
    'config.properties.exclude': 'sync_topic_configs_exclude',
    'config.properties.blacklist': 'sync_topic_configs_exclude',
}
STRING_KEYS = {
    'replication.policy.separator': 'separator',
    'offset-syncs.topic.location': 'offset_syncs_topic_location',
    'topic.filter.class': 'topic_filter_class',
    'group.filter.class': 'group_filter_class',
}
# MM2 settings the model has no option for: carried over as extra_config of the connectors that read them.
EXTRA_CONFIG_KEYS = {
    'emit.offset-syncs.enabled': ('source',),
    'heartbeats.replication.enabled': ('source',),
    'use.incremental.alter.configs': ('source',),
    'config.property.filter.class': ('source',),
    'exactly.once.support': ('source',),
    'replication.policy.internal.topic.separator.enabled': CONNECTOR_KINDS,
    'forwarding.admin.class': CONNECTOR_KINDS,
}
POLICIES = {DEFAULT_POLICY_CLASS: 'default', IDENTITY_POLICY_CLASS: 'identity'}

# Settings of dedicated mode's own Connect workers (MirrorMakerConfig.workerConfig): the Connect
# cluster of the model has its own (role connect_worker).
WORKER_PREFIXES = ('offset.storage.', 'config.storage.', 'status.storage.', 'config.providers', 'offset.flush.', 'rest.',
                   'inter.worker.', 'worker.')
WORKER_KEYS = ('dedicated.mode.enable.internal.rest', 'listeners', 'admin.listeners', 'group.id', 'client.id',
               'exactly.once.source.support', 'scheduled.rebalance.max.delay.ms', 'task.shutdown.graceful.timeout.ms')
CONVERTER_KEYS = ('key.converter', 'value.converter', 'header.converter')
WORKER_REASON = 'a setting of dedicated mode\'s own Connect workers; the Connect cluster\'s workers have theirs (role connect_worker)'
CONVERTER_REASON = 'the role always sets ByteArrayConverter for keys, values and headers: records are copied byte for byte'

# Cluster options the model takes as they are (Kafka client setting -> option).
PLAIN_CONNECTION_KEYS = {
    'security.protocol': 'security_protocol',
    'sasl.mechanism': 'sasl_mechanism',
    'sasl.kerberos.service.name': 'sasl_kerberos_service_name',
    'ssl.truststore.location': 'ssl_truststore_location',
    'ssl.truststore.type': 'ssl_truststore_type',
    'ssl.keystore.location': 'ssl_keystore_location',
    'ssl.keystore.type': 'ssl_keystore_type',
    'ssl.endpoint.identification.algorithm': 'ssl_endpoint_identification_algorithm',
}
# Secrets the model takes by reference: Kafka setting -> (file option, key option, key in the secret file).
SECRET_CONNECTION_KEYS = {
    'ssl.truststore.password': ('ssl_truststore_password_file', 'ssl_truststore_password_key', 'ssl.truststore.password'),
    'ssl.keystore.password': ('ssl_keystore_password_file', 'ssl_keystore_password_key', 'ssl.keystore.password'),
    'ssl.key.password': ('ssl_key_password_file', 'ssl_key_password_key', 'ssl.key.password'),
}
CLIENTS = ('consumer', 'producer', 'admin')
# The order the options of a cluster and of a flow are written in (the others follow, as read).
CLUSTER_ORDER = ('bootstrap_servers', 'security_protocol', 'sasl_mechanism', 'sasl_username', 'sasl_password_file',
                 'sasl_password_key', 'sasl_jaas_config_file', 'sasl_jaas_config_key', 'sasl_kerberos_principal',
                 'sasl_kerberos_keytab_file', 'sasl_kerberos_service_name')
FLOW_ORDER = ('source', 'target', 'topics', 'topics_exclude', 'groups', 'groups_exclude', 'replication_policy', 'separator',
              'tasks_max', 'replication_factor', 'internal_topic_replication_factor')


@dataclass
class Line:
    number: int
    key: str
    value: str


@dataclass
class Setting:
    """A connection setting of a cluster and the line it came from."""

    value: str
    line: Line


@dataclass
class Conversion:
    errors: List[str] = field(default_factory=list)
    unmapped: List[Dict[str, Any]] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    secrets: List[Dict[str, Any]] = field(default_factory=list)
    # file name -> key -> value: only dedicated_secret_files returns these
    secret_values: Dict[str, Dict[str, str]] = field(default_factory=dict)
    mm2_clusters: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    mm2_flows: List[Dict[str, Any]] = field(default_factory=list)

    def error(self, line: Optional[Line], message: str) -> None:
        self.errors.append(('line %d: %s: %s' % (line.number, line.key, message)) if line else message)

    def skip(self, line: Line, reason: str) -> None:
        self.unmapped.append({'line': line.number, 'key': line.key, 'reason': reason})


# ---- reading --------------------------------------------------------------------------

def read_lines(text: str, conversion: Conversion) -> List[Line]:
    """The key/value lines as java.util.Properties reads them, each with the number of its first natural line."""
    lines: List[Line] = []
    pending: List[str] = []
    start = 0
    for number, natural in enumerate(NATURAL_LINE_END.split(text), start=1):
        line = natural.lstrip(WHITESPACE)
        if not pending and (not line or line[0] in COMMENT_MARKS):
            continue
        if not pending:
            start = number
        if (len(line) - len(line.rstrip('\\'))) % 2 == 1:
            pending.append(line[:-1])
            continue
        pending.append(line)
        lines.append(parse_line(start, ''.join(pending), conversion))
        pending = []
    if pending:
        lines.append(parse_line(start, ''.join(pending), conversion))
    seen: Dict[str, Line] = {}
    kept: List[Line] = []
    for line in lines:
        if not line.key:
            continue
        if line.key in seen:
            conversion.error(line, 'repeats line %d (Java keeps the last one silently); keep one' % seen[line.key].number)
            continue
        seen[line.key] = line
        kept.append(line)
    return kept


# A backslash before any character but an escape's or the syntax's stands for that character alone
# in a properties file; in a regular expression its author meant it for the expression.
LOST_BACKSLASH_RE = re.compile(r'(?<!\\)(?:\\\\)*\\([^tnrfu\\:=#! ])')


def parse_line(number: int, logical: str, conversion: Conversion) -> Line:
    raw_key, raw_value = split_line(logical)
    try:
        line = Line(number, unescape(raw_key).strip(), unescape(raw_value).strip())
    except PropertiesFormatError as exc:
        conversion.error(Line(number, raw_key, ''), str(exc))
        return Line(number, '', '')
    flow_key = FLOW_KEY_RE.match(line.key)
    if (flow_key.group('rest') if flow_key else line.key) in PATTERN_KEYS and LOST_BACKSLASH_RE.search(raw_value):
        conversion.notes.append('line %d: %s: MM2 read %r, as Java reads a properties file: a backslash there escapes the '
                                'next character (a regular expression\'s \\. is written \\\\. in it)' % (number, line.key, line.value))
    return line


# ---- values ---------------------------------------------------------------------------

def boolean(line: Line, conversion: Conversion) -> Optional[bool]:
    if line.value.lower() in ('true', 'false'):
        return line.value.lower() == 'true'
    conversion.error(line, 'must be true or false, got %r' % line.value)
    return None


def integer(line: Line, smallest: int, conversion: Conversion) -> Optional[int]:
    if re.fullmatch(r'-?[0-9]+', line.value):
        number = int(line.value)
        if number >= smallest and (smallest != -1 or number != 0):
            return number
    if smallest == -1:
        conversion.error(line, 'must be -1 (the broker default) or a whole number >= 1, got %r' % line.value)
    else:
        conversion.error(line, 'must be a whole number >= %d, got %r' % (smallest, line.value))
    return None


def patterns(line: Line) -> List[str]:
    return as_pattern_list(line.value) or []


# ---- connector settings -----------------------------------------------------------------

@dataclass
class FlowSettings:
    """Model options of one level (the top level, or one flow), each with the line that set it."""

    options: Dict[str, Tuple[Any, Line]] = field(default_factory=dict)
    extra: Dict[str, Dict[str, Tuple[str, Line]]] = field(default_factory=lambda: {kind: {} for kind in CONNECTOR_KINDS})
    consumer: Dict[str, Tuple[str, Line]] = field(default_factory=dict)
    lines: List[Line] = field(default_factory=list)

    def set(self, option: str, value: Any, line: Line, conversion: Conversion) -> None:
        if option in self.options:
            conversion.error(line, 'sets %s like line %d (%s); keep one' % (option, self.options[option][1].number, self.options[option][1].key))
            return
        self.options[option] = (value, line)


def connector_setting(key: str, line: Line, settings: FlowSettings, conversion: Conversion) -> bool:
    """Map one connector setting (key without any prefix) into settings; False when it is none."""
    if key in BOOLEAN_KEYS:
        value = boolean(line, conversion)
        if value is not None:
            settings.set(BOOLEAN_KEYS[key], value, line, conversion)
    elif key in INTEGER_KEYS:
        option, smallest = INTEGER_KEYS[key]
        number = integer(line, smallest, conversion)
        if number is not None:
            settings.set(option, number, line, conversion)
    elif key in PATTERN_KEYS:
        settings.set(PATTERN_KEYS[key], patterns(line), line, conversion)
    elif key in STRING_KEYS:
        settings.set(STRING_KEYS[key], line.value, line, conversion)
    elif key == 'tasks.max':
        number = integer(line, 1, conversion)
        if number is not None:
            # The heartbeat connector runs one task whatever tasks.max says.
            settings.set('tasks_max', {'source': number, 'checkpoint': number}, line, conversion)
    elif key == 'replication.policy.class':
        policy = POLICIES.get(line.value)
        if policy is not None:
            settings.set('replication_policy', policy, line, conversion)
        else:
            for kind in CONNECTOR_KINDS:
                settings.extra[kind][key] = (line.value, line)
            conversion.notes.append('line %d: the custom replication policy %s goes into extra_config of all three connectors; '
                                    'the role cannot predict its topic names and does not wait for them' % (line.number, line.value))
    elif key in EXTRA_CONFIG_KEYS:
        for kind in EXTRA_CONFIG_KEYS[key]:
            settings.extra[kind][key] = (line.value, line)
    else:
        return False
    return True


def worker_reason(key: str) -> Optional[str]:
    if key in CONVERTER_KEYS or key.startswith(tuple(name + '.' for name in CONVERTER_KEYS)):
        return CONVERTER_REASON
    if key in WORKER_KEYS or key.startswith(WORKER_PREFIXES):
        return WORKER_REASON
    return None


# ---- cluster connections --------------------------------------------------------------------

def is_connection_key(key: str) -> bool:
    return key in ('security.protocol', 'bootstrap.servers') or key.startswith(('ssl.', 'sasl.'))


@dataclass
class ClusterSettings:
    connection: Dict[str, Setting] = field(default_factory=dict)
    # client -> lines whose connection setting of that client only became the cluster's
    folded: Dict[str, List[Line]] = field(default_factory=dict)
    # client (consumer, producer) -> setting -> (value, line): tuning of the flows that read or write it
    tuning: Dict[str, Dict[str, Tuple[str, Line]]] = field(default_factory=lambda: {'consumer': {}, 'producer': {}})


def set_connection(cluster: ClusterSettings, key: str, line: Line, client: Optional[str], conversion: Conversion) -> None:
    """A connection setting; one given for one client only becomes the cluster's (the model has one
    connection per cluster), unless another line gives it another value."""
    known = cluster.connection.get(key)
    if known is not None and known.value != line.value:
        conversion.error(line, 'differs from line %d (%s): the model has one connection per cluster, which every client '
                         'of MM2 uses; give the cluster one value' % (known.line.number, known.line.key))
        return
    if known is None:
        cluster.connection[key] = Setting(line.value, line)
    if client is not None:
        cluster.folded.setdefault(client, []).append(line)


def cluster_setting(alias: str, rest: str, line: Line, cluster: ClusterSettings, conversion: Conversion) -> None:
    """One <alias>.<rest> line."""
    client, _dot, client_key = rest.partition('.')
    if client in CLIENTS and client_key:
        if is_connection_key(client_key):
            set_connection(cluster, client_key, line, client, conversion)
        elif client == 'admin':
            conversion.error(line, 'admin client tuning has no place in the model (only connection settings and the '
                             'flow options admin_timeout_ms, checkpoint_clients and heartbeat_clients); remove it or set one of those')
        else:
            cluster.tuning[client][client_key] = (line.value, line)
        return
    if is_connection_key(rest):
        set_connection(cluster, rest, line, None, conversion)
        return
    reason = worker_reason(rest)
    if reason:
        conversion.skip(line, reason)
        return
    conversion.error(line, 'not a client setting of cluster %s that the model can take (bootstrap.servers, '
                     'security.protocol, ssl.*, sasl.*, consumer.*, producer.*)' % alias)


def secret_reference(conversion: Conversion, alias: str, setting: str, line: Line, value: str,
                     file_name: str, key: str) -> Tuple[str, str]:
    """(file, key) the model names for a secret: the placeholder's own when the value is one, else
    <alias>.properties and key, with the value kept for dedicated_secret_files only."""
    placeholder = FILE_PLACEHOLDER_RE.match(value)
    if placeholder:
        conversion.secrets.append({'cluster': alias, 'setting': setting, 'file': placeholder.group(1), 'key': placeholder.group(2),
                                   'line': line.number, 'provided': True})
        return placeholder.group(1), placeholder.group(2)
    if is_placeholder(value):
        conversion.error(line, 'reads its secret from a config provider other than file (%s); the model reads secrets '
                         'with the workers\' FileConfigProvider only' % value)
    conversion.secrets.append({'cluster': alias, 'setting': setting, 'file': file_name, 'key': key, 'line': line.number,
                               'provided': False})
    conversion.secret_values.setdefault(file_name, {})[key] = value
    return file_name, key


def jaas_options(line: Line, conversion: Conversion) -> Optional[Tuple[str, Dict[str, str]]]:
    """(login module, options) of a JAAS line with one login module, values unescaped; None otherwise."""
    match = JAAS_LINE_RE.match(line.value)
    if not match:
        return None
    options: Dict[str, str] = {}
    for name, quoted, bare in JAAS_OPTION_RE.findall(match.group('options')):
        options[name] = jaas_unescape(quoted) if quoted or not bare else bare
    return match.group('module'), options


def sasl_login(alias: str, setting: Setting, cluster: Dict[str, Any], conversion: Conversion) -> None:
    """sasl.jaas.config: a user and password, a Kerberos keytab, or the whole line by reference."""
    line, file_name = setting.line, '%s.properties' % alias
    parsed = jaas_options(line, conversion)
    module, options = parsed if parsed else ('', {})
    if module in (PLAIN_LOGIN_MODULE, SCRAM_LOGIN_MODULE) and set(options) == {'username', 'password'}:
        cluster['sasl_username'] = options['username']
        path, key = secret_reference(conversion, alias, 'sasl.jaas.config password', line, options['password'], file_name,
                                     'sasl.password')
        cluster['sasl_password_file'] = path
        if key != 'sasl.password':
            cluster['sasl_password_key'] = key
        return
    if module == KERBEROS_LOGIN_MODULE and options.get('useKeyTab', '').lower() == 'true' and options.get('keyTab') and options.get('principal'):
        keytab = posixpath.basename(options['keyTab'])
        cluster['sasl_kerberos_principal'] = options['principal']
        cluster['sasl_kerberos_keytab_file'] = keytab
        conversion.notes.append('line %d: install the keytab %s on the workers as %s (mirrormaker_keytab_files)'
                                % (line.number, options['keyTab'], keytab))
        return
    path, key = secret_reference(conversion, alias, 'sasl.jaas.config', line, line.value, file_name, 'sasl.jaas.config')
    cluster['sasl_jaas_config_file'] = path
    if key != 'sasl.jaas.config':
        cluster['sasl_jaas_config_key'] = key


def model_cluster(alias: str, settings: ClusterSettings, clusters_line: Line, conversion: Conversion) -> Dict[str, Any]:
    """The model's options for one cluster's connection settings."""
    connection = settings.connection
    cluster: Dict[str, Any] = {}
    bootstrap = connection.get('bootstrap.servers')
    entries = as_pattern_list(bootstrap.value) if bootstrap else None
    if bootstrap is None:
        conversion.error(clusters_line, 'cluster %s has no %s.bootstrap.servers' % (alias, alias))
    elif not entries:
        conversion.error(bootstrap.line, 'names no host:port (fill in the brokers of cluster %s)' % alias)
    else:
        malformed = [entry for entry in entries if not BOOTSTRAP_ENTRY_RE.match(entry)]
        if malformed:
            conversion.error(bootstrap.line, 'entries must be host:port: %s' % ', '.join(malformed))
        cluster['bootstrap_servers'] = entries
    file_name = '%s.properties' % alias
    client_config: Dict[str, str] = {}
    for key in sorted(connection):
        setting = connection[key]
        if key == 'bootstrap.servers':
            continue
        if key == 'security.protocol' and setting.value not in SECURITY_PROTOCOLS:
            conversion.error(setting.line, 'must be one of %s, got %r' % (', '.join(SECURITY_PROTOCOLS), setting.value))
        if key in PLAIN_CONNECTION_KEYS:
            cluster[PLAIN_CONNECTION_KEYS[key]] = setting.value
        elif key == 'sasl.jaas.config':
            sasl_login(alias, setting, cluster, conversion)
        elif key in SECRET_CONNECTION_KEYS:
            file_option, key_option, secret_key = SECRET_CONNECTION_KEYS[key]
            path, read_key = secret_reference(conversion, alias, key, setting.line, setting.value, file_name, secret_key)
            cluster[file_option] = path
            if read_key != secret_key:
                cluster[key_option] = read_key
        elif is_secret_key(key) and not is_placeholder(setting.value):
            conversion.error(setting.line, 'holds a secret the model takes only by reference (a cluster\'s password, '
                             'key password or JAAS line); it has no option for %s' % key)
        else:
            client_config[key] = setting.value
    if client_config:
        cluster['client_config'] = client_config
    for client, lines in sorted(settings.folded.items()):
        conversion.notes.append('line%s %s: the %s client\'s %s became the connection of cluster %s, which every client of '
                                'MM2 uses (the model has one connection per cluster)' % (
                                    '' if len(lines) == 1 else 's', ', '.join(str(line.number) for line in lines), client,
                                    ', '.join(line.key.split('.', 2)[2] for line in lines), alias))
    return cluster


# ---- flows ----------------------------------------------------------------------------

def flow_options(top: FlowSettings, own: FlowSettings, source: ClusterSettings, target: ClusterSettings) -> Dict[str, Any]:
    """A flow's options: the top level's, then its own; its source's consumer and its target's producer tuning."""
    options = {option: value for option, (value, _line) in top.options.items()}
    options.update({option: value for option, (value, _line) in own.options.items()})
    if all(option in options for option in INTERNAL_TOPIC_FACTORS) and len({options[option] for option in INTERNAL_TOPIC_FACTORS}) == 1:
        options['internal_topic_replication_factor'] = options[INTERNAL_TOPIC_FACTORS[0]]
        for option in INTERNAL_TOPIC_FACTORS:
            del options[option]
    consumer = {key: value for key, (value, _line) in source.tuning['consumer'].items()}
    consumer.update({key: value for key, (value, _line) in own.consumer.items()})
    if consumer:
        options['consumer'] = consumer
    producer = {key: value for key, (value, _line) in target.tuning['producer'].items()}
    if producer:
        options['producer'] = producer
    extra = {}
    for kind in CONNECTOR_KINDS:
        merged = {key: value for key, (value, _line) in top.extra[kind].items()}
        merged.update({key: value for key, (value, _line) in own.extra[kind].items()})
        if merged:
            extra[kind] = merged
    if extra:
        options['extra_config'] = extra
    return options


def flow_setting(rest: str, line: Line, settings: FlowSettings, conversion: Conversion) -> None:
    """One <source>-><target>.<rest> line other than enabled."""
    settings.lines.append(line)
    if connector_setting(rest, line, settings, conversion):
        return
    client, _dot, client_key = rest.partition('.')
    if client == 'consumer' and client_key and not is_connection_key(client_key):
        settings.consumer[client_key] = (line.value, line)
        return
    reason = worker_reason(rest)
    if reason:
        conversion.skip(line, reason)
        return
    conversion.error(line, 'not a MirrorMaker 2 connector setting the model can take for a flow')


# ---- the whole file -------------------------------------------------------------------------

def convert(text: str) -> Conversion:
    conversion = Conversion()
    if not isinstance(text, str):
        conversion.error(None, 'expects the text of an mm2.properties file, got %s' % type(text).__name__)
        return conversion
    lines = read_lines(text, conversion)
    clusters_line = next((line for line in lines if line.key == 'clusters'), None)
    if clusters_line is None:
        conversion.error(None, 'no "clusters" line: an mm2.properties names its cluster aliases, "clusters = a, b"')
        return conversion
    aliases = as_pattern_list(clusters_line.value) or []
    for alias in aliases:
        if not ALIAS_RE.match(alias):
            conversion.error(clusters_line, 'alias %r may hold letters, digits, "_" and "-" only' % alias)
    if len(aliases) < 2:
        conversion.error(clusters_line, 'names %d cluster(s); a flow needs two' % len(aliases))
    clusters = {alias: ClusterSettings() for alias in aliases}
    top = FlowSettings()
    top_connection: Dict[str, Line] = {}
    flows: Dict[Tuple[str, str], FlowSettings] = {}
    enabled: Dict[Tuple[str, str], Line] = {}
    for line in lines:
        if line is clusters_line:
            continue
        flow_key = FLOW_KEY_RE.match(line.key)
        first, _dot, rest = line.key.partition('.')
        if flow_key:
            pair = (flow_key.group('source'), flow_key.group('target'))
            unknown = [alias for alias in pair if alias not in clusters]
            if unknown:
                conversion.error(line, 'names the cluster alias %s, which "clusters" (line %d) does not list (%s)'
                                 % (' and '.join(unknown), clusters_line.number, ', '.join(aliases)))
                continue
            if pair[0] == pair[1]:
                conversion.error(line, 'a flow replicates between two clusters')
                continue
            if flow_key.group('rest') == 'enabled':
                value = boolean(line, conversion)
                if value:
                    enabled[pair] = line
                elif value is False:
                    conversion.skip(line, 'flow %s->%s is not enabled: no flow' % pair)
                continue
            flow_setting(flow_key.group('rest'), line, flows.setdefault(pair, FlowSettings()), conversion)
        elif first in clusters and rest:
            cluster_setting(first, rest, line, clusters[first], conversion)
        elif connector_setting(line.key, line, top, conversion):
            continue
        elif is_connection_key(line.key) and line.key != 'bootstrap.servers':
            top_connection[line.key] = line
        elif worker_reason(line.key):
            conversion.skip(line, worker_reason(line.key) or '')
        else:
            conversion.error(line, 'not a setting of MirrorMaker 2\'s dedicated mode that the model can take')
    # Connection settings at the top level apply to every cluster that does not set its own.
    for cluster in clusters.values():
        for key, line in top_connection.items():
            cluster.connection.setdefault(key, Setting(line.value, line))
    conversion.mm2_clusters = {alias: model_cluster(alias, clusters[alias], clusters_line, conversion) for alias in aliases}
    for pair, settings in flows.items():
        if pair not in enabled:
            for line in settings.lines:
                conversion.skip(line, 'flow %s->%s is not enabled (no %s->%s.enabled = true): no flow' % (pair + pair))
    model_flows = []
    for pair, line in sorted(enabled.items(), key=lambda item: item[1].number):
        options = flow_options(top, flows.get(pair, FlowSettings()), clusters[pair[0]], clusters[pair[1]])
        model_flows.append(dict({'source': pair[0], 'target': pair[1]}, **options))
    if not model_flows and aliases:
        conversion.error(clusters_line, 'no flow is enabled (<source>-><target>.enabled = true)')
    conversion.mm2_flows = model_flows
    return conversion


def ordered(options: Mapping[str, Any], first: Tuple[str, ...]) -> Dict[str, Any]:
    """The options with those of `first` in front, in that order."""
    head = [name for name in first if name in options]
    return {name: options[name] for name in head + [name for name in options if name not in head]}


def failed(conversion: Conversion) -> None:
    if conversion.errors:
        raise ValueError('the mm2.properties cannot be converted (%d problem%s):\n%s' % (
            len(conversion.errors), '' if len(conversion.errors) == 1 else 's', '\n'.join('- ' + text for text in conversion.errors)))


def from_dedicated(text: str) -> Dict[str, Any]:
    """The model of an mm2.properties, secrets only as references; ValueError lists what cannot be mapped."""
    conversion = convert(text)
    failed(conversion)
    return {
        'mm2_clusters': {alias: ordered(cluster, CLUSTER_ORDER) for alias, cluster in conversion.mm2_clusters.items()},
        'mm2_flows': [ordered(flow, FLOW_ORDER) for flow in conversion.mm2_flows],
        'secrets': conversion.secrets,
        'unmapped': conversion.unmapped,
        'notes': conversion.notes,
    }


def dedicated_secret_files(text: str) -> Dict[str, Dict[str, str]]:
    """The secret values an mm2.properties holds, as mirrormaker_secret_files (file -> key -> value)."""
    conversion = convert(text)
    failed(conversion)
    return {name: dict(values) for name, values in sorted(conversion.secret_values.items())}
