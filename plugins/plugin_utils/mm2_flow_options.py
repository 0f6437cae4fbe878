# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The MirrorMaker 2 settings a flow gives as options of their own, beyond what mm2_flows checks:
the topic config sync's exclusions, the topic and group filter classes, the admin and poll timeouts,
the replication factor of each internal topic, and the client overrides of the checkpoint and
heartbeat connectors.

Each option is checked (every error names the flow and the option), then rendered into the
connector(s) whose MM2 config defines the setting (connect-mirror's MirrorConnectorConfig,
MirrorSourceConfig, MirrorCheckpointConfig and MirrorHeartbeatConfig). A setting given both by an
option and in the flow's extra_config is refused, naming both: one of them would silently win.
An unset option (null) renders nothing, so MM2's own default applies.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_values import as_int, connect_string
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_common import CONNECTOR_KINDS, ModelErrors, as_bool, without_nulls

# Option -> (the MM2 setting it renders, the connectors whose config defines that setting).
SETTING_OPTIONS: Tuple[Tuple[str, str, Tuple[str, ...]], ...] = (
    ('sync_topic_configs_exclude', 'config.properties.exclude', ('source',)),
    ('topic_filter_class', 'topic.filter.class', ('source', 'checkpoint')),
    ('group_filter_class', 'group.filter.class', ('checkpoint',)),
    ('admin_timeout_ms', 'admin.timeout.ms', CONNECTOR_KINDS),
    ('consumer_poll_timeout_ms', 'consumer.poll.timeout.ms', ('source', 'checkpoint')),
    ('offset_syncs_topic_replication_factor', 'offset-syncs.topic.replication.factor', ('source',)),
    ('checkpoints_topic_replication_factor', 'checkpoints.topic.replication.factor', ('checkpoint',)),
    ('heartbeats_topic_replication_factor', 'heartbeats.topic.replication.factor', ('heartbeat',)),
)
# Other spellings of a setting (the name MM2 read before Kafka 2.8, removed in 4.0): given in
# extra_config next to the option, they set the same thing.
SETTING_ALIASES = {'config.properties.exclude': ('config.properties.blacklist',)}
CLASS_OPTIONS = ('topic_filter_class', 'group_filter_class')
TIMEOUT_OPTIONS = ('admin_timeout_ms', 'consumer_poll_timeout_ms')
INTERNAL_TOPIC_REPLICATION_OPTIONS = (
    'offset_syncs_topic_replication_factor', 'checkpoints_topic_replication_factor', 'heartbeats_topic_replication_factor',
)
# Connect reads these settings as Java longs.
JAVA_LONG_MAX = 2 ** 63 - 1

# Client overrides: option -> (its connector, client name -> the prefix MM2 (or Connect, for
# producer.override.*) reads that client's settings under).
CLIENT_OPTIONS: Dict[str, Tuple[str, Dict[str, str]]] = {
    'checkpoint_clients': ('checkpoint', {
        'consumer': 'consumer.',                  # every consumer of the connector (offset syncs, checkpoints)
        'source_consumer': 'source.consumer.',    # offset syncs kept on the source (Kafka 2.8+)
        'target_consumer': 'target.consumer.',    # offset syncs kept on the target, checkpoints topic (3.0+)
        'admin': 'admin.',                        # both admin clients
        'source_admin': 'source.admin.',          # lists the source's groups and their offsets
        'target_admin': 'target.admin.',          # creates the checkpoints topic, writes synced group offsets
        'producer': 'producer.override.',         # Connect's producer, which writes the checkpoints
    }),
    'heartbeat_clients': ('heartbeat', {
        'admin': 'admin.',                        # the admin client, which creates the heartbeats topic
        'target_admin': 'target.admin.',
        'producer': 'producer.override.',         # Connect's producer, which writes the heartbeats
    }),
}
# Where and how to connect comes from mm2_clusters: a client override may not change it.
CONNECTION_KEYS = frozenset({'bootstrap.servers', 'security.protocol'})
CONNECTION_SETTING_PREFIXES = ('ssl.', 'sasl.')
# A key that already carries a client prefix would render a setting of another client.
CLIENT_PREFIXES = ('consumer.', 'producer.', 'admin.', 'source.', 'target.')

# Retention settings KIP-382 proposed for MM2's internal topics; no Kafka release reads them, and
# MM2 creates those topics compacted with the broker's defaults.
UNREAD_RETENTION_KEYS = ('heartbeats.topic.retention.ms', 'checkpoints.topic.retention.ms', 'offset.syncs.topic.retention.ms')

JAVA_IDENTIFIER_RE = re.compile(r'^[A-Za-z_$][A-Za-z0-9_$]*$')
JAVA_KEYWORDS = frozenset((
    'abstract assert boolean break byte case catch char class const continue default do double else enum extends '
    'final finally float for goto if implements import instanceof int interface long native new package private '
    'protected public return short static strictfp super switch synchronized this throw throws transient try void '
    'volatile while true false null _').split())
TIMESTAMP_TYPE_KEY = 'message.timestamp.type'

# kind -> setting -> (value, the option that set it)
OptionSettings = Dict[str, Dict[str, Tuple[str, str]]]


def is_java_class_name(name: str) -> bool:
    """A binary class name as Class.forName takes it: dot-separated Java identifiers ($ for nested classes)."""
    return all(JAVA_IDENTIFIER_RE.match(part) and part not in JAVA_KEYWORDS for part in name.split('.'))


def check_class_option(where: str, option: str, value: Any, errors: ModelErrors) -> Optional[str]:
    if not isinstance(value, str) or not value.strip():
        errors.add(where, '%s must be a Java class name (such as com.example.mm2.TenantTopicFilter), got %r' % (option, value))
        return None
    name = value.strip()
    if not is_java_class_name(name):
        errors.add(where, '%s %r is not a Java class name: dot-separated identifiers of letters, digits, "_" and "$", '
                   'none a Java keyword (such as com.example.mm2.TenantTopicFilter)' % (option, value))
        return None
    return name


def check_positive_long(where: str, option: str, value: Any, errors: ModelErrors) -> Optional[int]:
    number = as_int(value)
    if number is None or number < 1 or number > JAVA_LONG_MAX:
        errors.add(where, '%s must be a whole number of milliseconds >= 1, got %r' % (option, value))
        return None
    return number


def check_replication_factor(where: str, option: str, value: Any, errors: ModelErrors) -> Optional[int]:
    number = as_int(value)
    if number is None or number == 0 or number < -1 or number > 32767:
        errors.add(where, '%s must be -1 (the broker default) or between 1 and 32767, got %r' % (option, value))
        return None
    return number


def check_exclude_patterns(where: str, option: str, value: Any, errors: ModelErrors) -> Optional[List[str]]:
    """Topic config names or regular expressions; an empty list syncs every topic config."""
    if isinstance(value, str):
        items = [item.strip() for item in value.split(',') if item.strip()]
    elif isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        items = [item.strip() for item in value]
    else:
        errors.add(where, '%s must be a list of topic config names or regular expressions, got %r' % (option, value))
        return None
    valid = True
    for item in items:
        if not item or ',' in item:
            errors.add(where, '%s pattern %r is empty or contains a comma; Kafka splits list settings on commas' % (option, item))
            valid = False
            continue
        try:
            re.compile(item)
        except re.error as exc:
            errors.add(where, '%s pattern %r is not a valid regular expression: %s' % (option, item, exc))
            valid = False
    return items if valid else None


def option_values(where: str, flow: Mapping[str, Any], errors: ModelErrors) -> Dict[str, Any]:
    """The options of SETTING_OPTIONS that the flow sets, checked; unset (null) ones are left out."""
    values: Dict[str, Any] = {}
    for option, _setting, _kinds in SETTING_OPTIONS:
        raw = flow.get(option)
        if raw is None:
            continue
        if option in CLASS_OPTIONS:
            value: Any = check_class_option(where, option, raw, errors)
        elif option in TIMEOUT_OPTIONS:
            value = check_positive_long(where, option, raw, errors)
        elif option in INTERNAL_TOPIC_REPLICATION_OPTIONS:
            value = check_replication_factor(where, option, raw, errors)
        else:
            value = check_exclude_patterns(where, option, raw, errors)
        if value is not None:
            values[option] = value
    return values


def client_settings(where: str, option: str, flow: Mapping[str, Any], errors: ModelErrors) -> Dict[str, Tuple[str, str]]:
    """Settings of one client override option, rendered under each client's prefix: setting -> (value, origin)."""
    given = flow.get(option) or {}
    _kind, clients = CLIENT_OPTIONS[option]
    if not isinstance(given, Mapping):
        errors.add(where, '%s must map clients (%s) to their settings, got %r' % (option, ', '.join(clients), given))
        return {}
    unknown = sorted(str(client) for client in given if client not in clients)
    if unknown:
        errors.add(where, '%s keys must be %s; unknown: %s' % (option, ', '.join(clients), ', '.join(unknown)))
    own_settings = {setting: name for name, setting, _kinds in SETTING_OPTIONS}
    rendered: Dict[str, Tuple[str, str]] = {}
    for client, prefix in clients.items():
        settings = given.get(client) or {}
        origin = '%s.%s' % (option, client)
        if not isinstance(settings, Mapping):
            errors.add(where, '%s must be a mapping of Kafka client settings, got %r' % (origin, settings))
            continue
        for key, value in without_nulls(settings).items():
            key = str(key)
            if key in CONNECTION_KEYS or key.startswith(CONNECTION_SETTING_PREFIXES):
                errors.add(where, '%s: %s is a connection setting, which the model sets from mm2_clusters; a client '
                           'override may not change it' % (origin, key))
                continue
            if key.startswith(CLIENT_PREFIXES):
                errors.add(where, '%s: %s carries a client prefix; give the setting without it (rendered as %s<key>)'
                           % (origin, key, prefix))
                continue
            if prefix + key in own_settings:
                errors.add(where, '%s: %s would render %s, which MM2 reads as its own setting; use the option %s'
                           % (origin, key, prefix + key, own_settings[prefix + key]))
                continue
            try:
                rendered[prefix + key] = (connect_string(value), origin)
            except TypeError as exc:
                errors.add(where, '%s: %s %s' % (origin, key, exc))
    return rendered


def check_tuning_keys(where: str, tuning: Mapping[str, Mapping[str, Any]], errors: ModelErrors) -> None:
    """The source connector's consumer tuning (consumer.*) may not render MM2's own consumer.poll.timeout.ms."""
    if 'poll.timeout.ms' in (tuning.get('consumer') or {}):
        errors.add(where, 'consumer: poll.timeout.ms would render consumer.poll.timeout.ms, which MM2 reads as its own '
                   'setting; use the option consumer_poll_timeout_ms')


def option_settings(where: str, flow: Mapping[str, Any], errors: ModelErrors) -> OptionSettings:
    """What the options render, per connector: setting -> (value, the option that sets it)."""
    rendered: OptionSettings = {kind: {} for kind in CONNECTOR_KINDS}
    values = option_values(where, flow, errors)
    for option, setting, kinds in SETTING_OPTIONS:
        if option in values:
            for kind in kinds:
                rendered[kind][setting] = (connect_string(values[option]), option)
    for option, (kind, _clients) in CLIENT_OPTIONS.items():
        rendered[kind].update(client_settings(where, option, flow, errors))
    return rendered


def check_extra_config_conflicts(where: str, rendered: OptionSettings, extra: Mapping[str, Mapping[str, Any]],
                                 errors: ModelErrors) -> None:
    """A setting an option renders may not also be in extra_config (nor in its other spelling);
    MM2's never-read retention keys are refused outright."""
    for kind in CONNECTOR_KINDS:
        raw = {str(key) for key in (extra.get(kind) or {})}
        for setting, (_value, origin) in sorted(rendered[kind].items()):
            for spelling in (setting,) + SETTING_ALIASES.get(setting, ()):
                if spelling in raw:
                    errors.add(where, '%s and extra_config.%s["%s"] both set %s; keep one of them (the option)'
                               % (origin, kind, spelling, setting))
        for key in sorted(raw & set(UNREAD_RETENTION_KEYS)):
            errors.add(where, 'extra_config.%s %s: MM2 never reads this setting (KIP-382 proposed it, no Kafka release '
                       'implements it); MM2 creates its internal topics compacted with the broker\'s defaults, change a '
                       'topic\'s config with kafka-configs.sh once it exists' % (kind, key))


def pattern_excludes(patterns: List[str], name: str) -> bool:
    return any(re.fullmatch(pattern, name) for pattern in patterns)


def flow_option_warnings(where: str, flow: Mapping[str, Any], rendered: OptionSettings) -> List[str]:
    """Settings that work but undo something the role relies on."""
    warnings: List[str] = []
    excluded = rendered['source'].get('config.properties.exclude')
    heartbeats_replicated = flow.get('heartbeats_topic_location') == 'source' and as_bool(flow.get('emit_heartbeats')) is not False
    if excluded is not None and heartbeats_replicated and as_bool(flow.get('sync_topic_configs')) is not False:
        patterns = [item for item in excluded[0].split(',') if item]
        if not pattern_excludes(patterns, TIMESTAMP_TYPE_KEY):
            warnings.append('%s: sync_topic_configs_exclude replaces MM2\'s default exclusions and leaves out %s: the topic '
                            'config sync then resets the LogAppendTime the role gives the replicated heartbeats topic on the '
                            'target, and its latency samples use the source\'s timestamps; add message\\.timestamp\\.type'
                            % (where, TIMESTAMP_TYPE_KEY))
    return warnings


def settings_of(rendered: OptionSettings, kind: str) -> Dict[str, str]:
    """The connector settings the options render for one connector."""
    return {setting: value for setting, (value, _origin) in rendered[kind].items()}
