# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Planner of the mirrormaker role: MirrorMaker 2 flows in, connector configs out.

The role runs it on the controller with one JSON document on stdin and reads one JSON
document from stdout. Subcommands:

plan
    in:  clusters, flows, builtin_defaults, site_defaults, connector_prefix, secrets_dir,
         deploy_host, groups
    out: errors, warnings, flows, connectors, desired_names, managed_pattern, clusters,
         source_aliases, secret_files, flows_elsewhere
expect
    in:  flows (as planned), topics ({alias: [topic, ...]}), timeout_seconds
    out: expected_topics ({alias: [topic, ...]}), timeouts ({alias: seconds}),
         min_tasks ({connector: n}), unverified_flows
orphans
    in:  existing ({name: connector_info entry}), managed_pattern, desired_names
    out: orphans (names of connectors this role made that no flow asks for any more)

Nothing here talks to Kafka: every function is a pure transformation, so the unit tests
exercise the same code the role runs.
"""

from __future__ import annotations

import json
import posixpath
import re
import sys
from typing import Any, Dict, Iterable, List, Mapping, Optional, Set, Tuple

CONNECTOR_KINDS = ('source', 'checkpoint', 'heartbeat')
MIRROR_CLASSES = {
    'source': 'org.apache.kafka.connect.mirror.MirrorSourceConnector',
    'checkpoint': 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector',
    'heartbeat': 'org.apache.kafka.connect.mirror.MirrorHeartbeatConnector',
}
POLICY_CLASSES = {
    'default': 'org.apache.kafka.connect.mirror.DefaultReplicationPolicy',
    'identity': 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy',
}
BYTE_ARRAY_CONVERTER = 'org.apache.kafka.connect.converters.ByteArrayConverter'
CONVERTER_KEYS = ('key.converter', 'value.converter', 'header.converter')

SECURITY_PROTOCOLS = ('PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL')
LOGIN_MODULES = {
    'PLAIN': 'org.apache.kafka.common.security.plain.PlainLoginModule',
    'SCRAM-SHA-256': 'org.apache.kafka.common.security.scram.ScramLoginModule',
    'SCRAM-SHA-512': 'org.apache.kafka.common.security.scram.ScramLoginModule',
}
# Secrets are referenced, never given: (file option, key option, default key, Kafka setting).
# The SASL password has no Kafka setting of its own: it goes into the JAAS line.
SECRET_REFERENCES = (
    ('sasl_password_file', 'sasl_password_key', 'sasl.password', None),
    ('sasl_jaas_config_file', 'sasl_jaas_config_key', 'sasl.jaas.config', 'sasl.jaas.config'),
    ('ssl_truststore_password_file', 'ssl_truststore_password_key', 'ssl.truststore.password', 'ssl.truststore.password'),
    ('ssl_keystore_password_file', 'ssl_keystore_password_key', 'ssl.keystore.password', 'ssl.keystore.password'),
    ('ssl_key_password_file', 'ssl_key_password_key', 'ssl.key.password', 'ssl.key.password'),
)
# Plain cluster options rendered as the Kafka client setting of the same name.
PLAIN_CLUSTER_SETTINGS = {
    'sasl_mechanism': 'sasl.mechanism',
    'sasl_jaas_config': 'sasl.jaas.config',
    'ssl_truststore_location': 'ssl.truststore.location',
    'ssl_truststore_type': 'ssl.truststore.type',
    'ssl_keystore_location': 'ssl.keystore.location',
    'ssl_keystore_type': 'ssl.keystore.type',
    'ssl_endpoint_identification_algorithm': 'ssl.endpoint.identification.algorithm',
}
CLUSTER_OPTIONS = frozenset(
    {'bootstrap_servers', 'security_protocol', 'sasl_username', 'client_config'}
    | set(PLAIN_CLUSTER_SETTINGS)
    | {reference[0] for reference in SECRET_REFERENCES}
    | {reference[1] for reference in SECRET_REFERENCES}
)
# MM2 keeps only these client settings under source.cluster.* / target.cluster.*.
CONNECTION_SETTING_PREFIXES = ('ssl.', 'sasl.')
# Producer and consumer tuning may not redefine where or how to connect.
CONNECTION_KEYS = frozenset({'bootstrap.servers', 'security.protocol'})

FLOW_REQUIRED_OPTIONS = ('source', 'target')
BOOLEAN_FLOW_OPTIONS = (
    'sync_topic_configs', 'sync_topic_acls', 'refresh_topics', 'refresh_groups',
    'emit_checkpoints', 'sync_group_offsets', 'emit_heartbeats', 'exactly_once',
)
INTERVAL_FLOW_OPTIONS = (
    'sync_topic_configs_interval_seconds', 'sync_topic_acls_interval_seconds',
    'refresh_topics_interval_seconds', 'refresh_groups_interval_seconds',
    'emit_checkpoints_interval_seconds', 'sync_group_offsets_interval_seconds',
    'emit_heartbeats_interval_seconds',
)
REPLICATION_FACTOR_OPTIONS = ('replication_factor', 'internal_topic_replication_factor')
PATTERN_LIST_OPTIONS = ('topics', 'topics_exclude', 'groups', 'groups_exclude')
TUNING_OPTIONS = ('consumer', 'producer')

# MM2 (Kafka 4) defaults, used to predict remote topics when a flow keeps them.
MM2_DEFAULT_TOPICS_EXCLUDE = ('mm2.*\\.internal', '.*\\.replica', '__.*')
HEARTBEATS_TOPIC = 'heartbeats'

ALIAS_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_-]*$')
FLOW_NAME_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._-]*$')
BOOTSTRAP_ENTRY_RE = re.compile(r'^(\[[0-9A-Fa-f:.]+\]|[^\s:,;\[\]]+):([0-9]{1,5})$')
JAAS_UNSAFE_RE = re.compile(r'["\\;\n\r]')


class PlanErrors:
    """Collects every problem of the model so one run reports them all."""

    def __init__(self) -> None:
        self.messages: List[str] = []

    def add(self, where: str, message: str) -> None:
        self.messages.append('%s: %s' % (where, message))


# ---- small value helpers ------------------------------------------------------

def as_text(value: Any) -> str:
    """A connector config value as Connect stores it."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, (list, tuple)):
        return ','.join(as_text(item) for item in value)
    return str(value)


def as_bool(value: Any) -> Optional[bool]:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ('true', 'false', 'yes', 'no'):
        return value.strip().lower() in ('true', 'yes')
    return None


def as_int(value: Any) -> Optional[int]:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.match(r'^\s*-?[0-9]+\s*$', value):
        return int(value)
    return None


def as_pattern_list(value: Any) -> Optional[List[str]]:
    """Topic and group patterns: a list, or one comma-separated string as Connect reads it."""
    if isinstance(value, str):
        return [item.strip() for item in value.split(',') if item.strip()]
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return [item.strip() for item in value]
    return None


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> Dict[str, Any]:
    """Mappings merge key by key; any other value replaces the one below it."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def without_nulls(settings: Mapping[str, Any]) -> Dict[str, Any]:
    """A null value removes a setting (e.g. a built-in producer default)."""
    return {key: value for key, value in settings.items() if value is not None}


def prefixed(prefix: str, settings: Mapping[str, Any]) -> Dict[str, str]:
    return {prefix + key: as_text(value) for key, value in settings.items()}


# ---- clusters -------------------------------------------------------------------

def bootstrap_entries(value: Any) -> Optional[List[str]]:
    if isinstance(value, str):
        return [entry.strip() for entry in value.split(',') if entry.strip()]
    if isinstance(value, (list, tuple)) and all(isinstance(entry, str) for entry in value):
        return [entry.strip() for entry in value if entry.strip()]
    return None


def secret_path(secrets_dir: str, file_name: str) -> str:
    base = secrets_dir.rstrip('/') or '/'
    return posixpath.normpath(file_name if file_name.startswith('/') else posixpath.join(base, file_name))


def secret_placeholder(path: str, key: str) -> str:
    """Resolved by the workers' FileConfigProvider; GET /config shows it unresolved."""
    return '${file:%s:%s}' % (path, key)


def check_secret_reference(where: str, option: str, path: str, key: str, secrets_dir: str, errors: PlanErrors) -> None:
    base = posixpath.normpath(secrets_dir).rstrip('/')
    if not path.startswith(base + '/'):
        errors.add(where, '%s must name a file in %s (the only directory the workers\' config providers may read), got %s'
                   % (option, base or '/', path))
    if re.search(r'[:{}\s]', path):
        errors.add(where, '%s must not contain ":", "{", "}" or spaces (it goes into a ${file:...} placeholder): %s' % (option, path))
    if not key or re.search(r'[{}\s]', key):
        errors.add(where, 'the key for %s must be a non-empty properties key without braces or spaces, got %r' % (option, key))


def check_cluster_options(where: str, cluster: Mapping[str, Any], errors: PlanErrors) -> None:
    unknown = sorted(set(cluster) - CLUSTER_OPTIONS)
    if unknown:
        errors.add(where, 'unknown option(s) %s; known: %s' % (', '.join(unknown), ', '.join(sorted(CLUSTER_OPTIONS))))
    for option, value in cluster.items():
        if option in ('bootstrap_servers', 'client_config') or value is None:
            continue
        if not isinstance(value, str):
            errors.add(where, '%s must be a string, got %r' % (option, value))


def check_bootstrap(where: str, cluster: Mapping[str, Any], errors: PlanErrors) -> List[str]:
    entries = bootstrap_entries(cluster.get('bootstrap_servers'))
    if not entries:
        errors.add(where, 'bootstrap_servers is required: a list of host:port or one comma-separated string')
        return []
    malformed = [entry for entry in entries if not BOOTSTRAP_ENTRY_RE.match(entry)]
    if malformed:
        errors.add(where, 'bootstrap_servers entries must be host:port, separated by commas (not semicolons): %s'
                   % ', '.join(malformed))
    return entries


def sasl_settings(where: str, cluster: Mapping[str, Any], secrets_dir: str, errors: PlanErrors) -> Dict[str, str]:
    """sasl.mechanism and sasl.jaas.config, the password only as a ${file:...} placeholder."""
    mechanism = cluster.get('sasl_mechanism')
    if not mechanism:
        errors.add(where, 'security_protocol %s needs sasl_mechanism' % cluster.get('security_protocol'))
        return {}
    settings = {'sasl.mechanism': str(mechanism)}
    jaas_given = cluster.get('sasl_jaas_config') or cluster.get('sasl_jaas_config_file')
    if jaas_given:
        if cluster.get('sasl_password_file'):
            errors.add(where, 'give either sasl_username with sasl_password_file or a JAAS config, not both')
        return settings
    module = LOGIN_MODULES.get(str(mechanism))
    if module is None:
        errors.add(where, 'sasl_mechanism %s needs sasl_jaas_config_file (or sasl_jaas_config without secrets)' % mechanism)
        return settings
    username = cluster.get('sasl_username')
    password_file = cluster.get('sasl_password_file')
    if not username or not password_file:
        errors.add(where, 'sasl_mechanism %s needs sasl_username and sasl_password_file (a file in %s)' % (mechanism, secrets_dir))
        return settings
    if JAAS_UNSAFE_RE.search(str(username)):
        errors.add(where, 'sasl_username must not contain quotes, backslashes, semicolons or line breaks')
    path = secret_path(secrets_dir, str(password_file))
    key = str(cluster.get('sasl_password_key') or 'sasl.password')
    settings['sasl.jaas.config'] = '%s required username="%s" password="%s";' % (
        module, username, secret_placeholder(path, key))
    return settings


def secret_settings(where: str, cluster: Mapping[str, Any], secrets_dir: str, errors: PlanErrors) -> Dict[str, str]:
    """Kafka settings that hold a secret, each as a ${file:...} placeholder."""
    settings: Dict[str, str] = {}
    for file_option, key_option, default_key, kafka_setting in SECRET_REFERENCES:
        file_name = cluster.get(file_option)
        if not file_name:
            if cluster.get(key_option):
                errors.add(where, '%s is set without %s' % (key_option, file_option))
            continue
        path = secret_path(secrets_dir, str(file_name))
        key = str(cluster.get(key_option) or default_key)
        check_secret_reference(where, file_option, path, key, secrets_dir, errors)
        if kafka_setting:
            settings[kafka_setting] = secret_placeholder(path, key)
    return settings


def client_config_settings(where: str, cluster: Mapping[str, Any], errors: PlanErrors) -> Dict[str, str]:
    extra = cluster.get('client_config') or {}
    if not isinstance(extra, Mapping):
        errors.add(where, 'client_config must be a mapping of Kafka client settings')
        return {}
    dropped = sorted(key for key in extra if not str(key).startswith(CONNECTION_SETTING_PREFIXES))
    if dropped:
        errors.add(where, 'client_config may only hold ssl.* and sasl.* connection settings (MM2 drops anything else under '
                   'source.cluster.*/target.cluster.*): %s; put consumer tuning in the flow\'s consumer, producer tuning '
                   'in its producer' % ', '.join(dropped))
    return {str(key): as_text(value) for key, value in without_nulls(extra).items()}


def cluster_connection(alias: str, cluster: Any, secrets_dir: str, errors: PlanErrors) -> Dict[str, str]:
    """Connection settings of one cluster: bootstrap, security protocol, TLS and SASL (secrets as placeholders)."""
    where = 'cluster %s' % alias
    if not ALIAS_RE.match(alias):
        errors.add(where, 'aliases may hold letters, digits, "_" and "-" only (they prefix remote topic names)')
    if not isinstance(cluster, Mapping):
        errors.add(where, 'must be a mapping with at least bootstrap_servers')
        return {}
    check_cluster_options(where, cluster, errors)
    protocol = str(cluster.get('security_protocol') or 'PLAINTEXT')
    if protocol not in SECURITY_PROTOCOLS:
        errors.add(where, 'security_protocol must be one of %s, got %s' % (', '.join(SECURITY_PROTOCOLS), protocol))
    settings = {'bootstrap.servers': ','.join(check_bootstrap(where, cluster, errors)), 'security.protocol': protocol}
    uses_sasl = protocol.startswith('SASL_')
    sasl_options = sorted(option for option in cluster if option.startswith('sasl_') and cluster.get(option))
    if sasl_options and not uses_sasl:
        errors.add(where, '%s set but security_protocol %s does not use SASL' % (', '.join(sasl_options), protocol))
    for option, kafka_setting in PLAIN_CLUSTER_SETTINGS.items():
        if cluster.get(option) not in (None, ''):
            settings[kafka_setting] = as_text(cluster[option])
    if uses_sasl:
        settings.update(sasl_settings(where, cluster, secrets_dir, errors))
    settings.update(secret_settings(where, cluster, secrets_dir, errors))
    settings.update(client_config_settings(where, cluster, errors))
    return settings


# ---- flows ----------------------------------------------------------------------

def flow_label(index: int, given: Any) -> str:
    if isinstance(given, Mapping):
        return 'flow #%d (%s -> %s)' % (index + 1, given.get('source', '?'), given.get('target', '?'))
    return 'flow #%d' % (index + 1)


def effective_flow(given: Mapping[str, Any], builtin_defaults: Mapping[str, Any], site_defaults: Mapping[str, Any]) -> Dict[str, Any]:
    return deep_merge(deep_merge(builtin_defaults, site_defaults), given)


def check_flow_options(where: str, given: Mapping[str, Any], known: Iterable[str], errors: PlanErrors) -> None:
    known_options = set(known) | set(FLOW_REQUIRED_OPTIONS)
    unknown = sorted(set(given) - known_options)
    if unknown:
        errors.add(where, 'unknown option(s) %s; known: %s' % (', '.join(unknown), ', '.join(sorted(known_options))))


def check_endpoints(where: str, flow: Mapping[str, Any], clusters: Mapping[str, Any], errors: PlanErrors) -> None:
    for side in FLOW_REQUIRED_OPTIONS:
        alias = flow.get(side)
        if not alias:
            errors.add(where, '%s (a cluster alias) is required' % side)
        elif alias not in clusters:
            errors.add(where, '%s "%s" is not a cluster alias of mm2_clusters (known: %s)'
                       % (side, alias, ', '.join(sorted(clusters)) or 'none'))
    if flow.get('source') and flow.get('source') == flow.get('target'):
        errors.add(where, 'source and target are the same cluster "%s"; a flow replicates between two clusters' % flow['source'])


def check_choices(where: str, flow: Mapping[str, Any], errors: PlanErrors) -> None:
    if flow.get('replication_policy') not in POLICY_CLASSES:
        errors.add(where, 'replication_policy must be "default" or "identity", got %r (a custom policy class goes in '
                   'extra_config as replication.policy.class on all three connectors)' % flow.get('replication_policy'))
    if flow.get('offset_syncs_topic_location') not in ('source', 'target'):
        errors.add(where, 'offset_syncs_topic_location must be "source" or "target", got %r' % flow.get('offset_syncs_topic_location'))
    separator = flow.get('separator')
    if not isinstance(separator, str) or not separator:
        errors.add(where, 'separator must be a non-empty string, got %r' % separator)
    else:
        for side in FLOW_REQUIRED_OPTIONS:
            if separator in str(flow.get(side) or ''):
                errors.add(where, 'the %s alias "%s" contains the separator "%s"; remote topic names could not be traced '
                           'back to their cluster (cycle detection breaks)' % (side, flow.get(side), separator))


def check_scalars(where: str, flow: Mapping[str, Any], errors: PlanErrors) -> Dict[str, Any]:
    """Booleans and integers, normalised; wrong types are errors."""
    normalised: Dict[str, Any] = {}
    for option in BOOLEAN_FLOW_OPTIONS:
        value = as_bool(flow.get(option))
        if value is None:
            errors.add(where, '%s must be true or false, got %r' % (option, flow.get(option)))
        normalised[option] = bool(value)
    for option in INTERVAL_FLOW_OPTIONS:
        value = as_int(flow.get(option))
        if value is None or value < 1:
            errors.add(where, '%s must be a whole number of seconds >= 1, got %r' % (option, flow.get(option)))
        normalised[option] = value
    for option in REPLICATION_FACTOR_OPTIONS:
        value = as_int(flow.get(option))
        if value is None or value == 0 or value < -1:
            errors.add(where, '%s must be -1 (the broker default) or >= 1, got %r' % (option, flow.get(option)))
        normalised[option] = value
    lag = as_int(flow.get('offset_lag_max'))
    if lag is None or lag < 0:
        errors.add(where, 'offset_lag_max must be a whole number >= 0, got %r' % flow.get('offset_lag_max'))
    normalised['offset_lag_max'] = lag
    if normalised['sync_group_offsets'] and not normalised['emit_checkpoints']:
        errors.add(where, 'sync_group_offsets needs emit_checkpoints: the checkpoint tasks write the group offsets')
    return normalised


def check_patterns(where: str, flow: Mapping[str, Any], errors: PlanErrors) -> Dict[str, Optional[List[str]]]:
    patterns: Dict[str, Optional[List[str]]] = {}
    for option in PATTERN_LIST_OPTIONS:
        raw = flow.get(option)
        if raw is None and option.endswith('_exclude'):
            patterns[option] = None
            continue
        items = as_pattern_list(raw)
        if items is None or (not items and not option.endswith('_exclude')):
            errors.add(where, '%s must be a non-empty list of regular expressions, got %r' % (option, raw))
            patterns[option] = []
            continue
        for item in items:
            if ',' in item:
                errors.add(where, '%s pattern %r contains a comma; Kafka splits list settings on commas' % (option, item))
            try:
                re.compile(item)
            except re.error as exc:
                errors.add(where, '%s pattern %r is not a valid regular expression: %s' % (option, item, exc))
        patterns[option] = items
    return patterns


def check_tasks_max(where: str, flow: Mapping[str, Any], errors: PlanErrors) -> Dict[str, int]:
    given = flow.get('tasks_max')
    if not isinstance(given, Mapping):
        errors.add(where, 'tasks_max must be a mapping with source, checkpoint and heartbeat, got %r' % given)
        return {kind: 1 for kind in CONNECTOR_KINDS}
    unknown = sorted(set(given) - set(CONNECTOR_KINDS))
    if unknown:
        errors.add(where, 'tasks_max keys must be source, checkpoint or heartbeat; unknown: %s' % ', '.join(unknown))
    tasks: Dict[str, int] = {}
    for kind in CONNECTOR_KINDS:
        value = as_int(given.get(kind))
        if value is None or value < 1:
            errors.add(where, 'tasks_max.%s must be a whole number >= 1, got %r' % (kind, given.get(kind)))
            value = 1
        tasks[kind] = value
    return tasks


def check_tuning(where: str, flow: Mapping[str, Any], errors: PlanErrors) -> Dict[str, Dict[str, Any]]:
    tuning: Dict[str, Dict[str, Any]] = {}
    for option in TUNING_OPTIONS:
        settings = flow.get(option) or {}
        if not isinstance(settings, Mapping):
            errors.add(where, '%s must be a mapping of client settings, got %r' % (option, settings))
            settings = {}
        misplaced = sorted(key for key in settings
                           if key in CONNECTION_KEYS or str(key).startswith(CONNECTION_SETTING_PREFIXES + ('consumer.', 'producer.')))
        if misplaced:
            errors.add(where, '%s holds tuning only, without a prefix; connection settings come from mm2_clusters: %s'
                       % (option, ', '.join(misplaced)))
        tuning[option] = without_nulls(settings)
    return tuning


def check_extra_config(where: str, flow: Mapping[str, Any], errors: PlanErrors) -> Dict[str, Dict[str, Any]]:
    given = flow.get('extra_config') or {}
    if not isinstance(given, Mapping):
        errors.add(where, 'extra_config must map source, checkpoint and heartbeat to raw connector settings')
        return {kind: {} for kind in CONNECTOR_KINDS}
    unknown = sorted(set(given) - set(CONNECTOR_KINDS))
    if unknown:
        errors.add(where, 'extra_config keys must be source, checkpoint or heartbeat; unknown: %s' % ', '.join(unknown))
    extra: Dict[str, Dict[str, Any]] = {}
    for kind in CONNECTOR_KINDS:
        settings = given.get(kind) or {}
        if not isinstance(settings, Mapping):
            errors.add(where, 'extra_config.%s must be a mapping of connector settings' % kind)
            settings = {}
        extra[kind] = dict(settings)
    return extra


def flow_base_name(flow: Mapping[str, Any], where: str, errors: PlanErrors) -> str:
    name = flow.get('name') or '%s-%s' % (flow.get('source'), flow.get('target'))
    if not FLOW_NAME_RE.match(str(name)):
        errors.add(where, 'name %r may hold letters, digits, ".", "_" and "-" only' % name)
    return str(name)


def connect_cluster_hosts(where: str, flow: Mapping[str, Any], groups: Mapping[str, List[str]], errors: PlanErrors) -> Optional[List[str]]:
    group = flow.get('connect_cluster')
    if group in (None, ''):
        return None
    hosts = groups.get(str(group))
    if not hosts:
        errors.add(where, 'connect_cluster "%s" is not an inventory group with hosts' % group)
        return []
    return list(hosts)


# ---- connector configs ------------------------------------------------------------

def common_settings(flow: Mapping[str, Any], kind: str, tasks_max: int,
                    source_connection: Mapping[str, str], target_connection: Mapping[str, str]) -> Dict[str, str]:
    """What all three connectors share: aliases, both clusters, the naming policy and byte-exact converters.

    producer.override.* points the worker's producer at the flow's target, so records land there
    whichever Kafka cluster backs the Connect workers.
    """
    settings = {
        'connector.class': MIRROR_CLASSES[kind],
        'source.cluster.alias': str(flow['source']),
        'target.cluster.alias': str(flow['target']),
        'replication.policy.class': POLICY_CLASSES[flow['replication_policy']],
        'replication.policy.separator': str(flow['separator']),
        'tasks.max': str(tasks_max),
    }
    settings.update({key: BYTE_ARRAY_CONVERTER for key in CONVERTER_KEYS})
    settings.update(prefixed('source.cluster.', source_connection))
    settings.update(prefixed('target.cluster.', target_connection))
    settings.update(prefixed('producer.override.', target_connection))
    return settings


def topic_filter_settings(patterns: Mapping[str, Optional[List[str]]]) -> Dict[str, str]:
    settings = {'topics': as_text(patterns['topics'])}
    if patterns['topics_exclude'] is not None:
        settings['topics.exclude'] = as_text(patterns['topics_exclude'])
    return settings


def source_settings(flow: Mapping[str, Any], scalars: Mapping[str, Any], patterns: Mapping[str, Optional[List[str]]],
                    tuning: Mapping[str, Mapping[str, Any]]) -> Dict[str, str]:
    settings = topic_filter_settings(patterns)
    settings.update({
        'replication.factor': as_text(scalars['replication_factor']),
        'offset-syncs.topic.replication.factor': as_text(scalars['internal_topic_replication_factor']),
        'offset-syncs.topic.location': str(flow['offset_syncs_topic_location']),
        'offset.lag.max': as_text(scalars['offset_lag_max']),
        'sync.topic.configs.enabled': as_text(scalars['sync_topic_configs']),
        'sync.topic.configs.interval.seconds': as_text(scalars['sync_topic_configs_interval_seconds']),
        'sync.topic.acls.enabled': as_text(scalars['sync_topic_acls']),
        'sync.topic.acls.interval.seconds': as_text(scalars['sync_topic_acls_interval_seconds']),
        'refresh.topics.enabled': as_text(scalars['refresh_topics']),
        'refresh.topics.interval.seconds': as_text(scalars['refresh_topics_interval_seconds']),
    })
    settings.update(prefixed('consumer.', tuning['consumer']))
    settings.update(prefixed('producer.override.', tuning['producer']))
    if scalars['exactly_once']:
        # KIP-618: the workers need exactly.once.source.support=enabled; validation fails otherwise.
        settings['exactly.once.support'] = 'required'
        settings['consumer.isolation.level'] = 'read_committed'
    return settings


def checkpoint_settings(flow: Mapping[str, Any], scalars: Mapping[str, Any], patterns: Mapping[str, Optional[List[str]]]) -> Dict[str, str]:
    settings = topic_filter_settings(patterns)
    settings['groups'] = as_text(patterns['groups'])
    if patterns['groups_exclude'] is not None:
        settings['groups.exclude'] = as_text(patterns['groups_exclude'])
    settings.update({
        'checkpoints.topic.replication.factor': as_text(scalars['internal_topic_replication_factor']),
        'offset-syncs.topic.location': str(flow['offset_syncs_topic_location']),
        'emit.checkpoints.enabled': as_text(scalars['emit_checkpoints']),
        'emit.checkpoints.interval.seconds': as_text(scalars['emit_checkpoints_interval_seconds']),
        'sync.group.offsets.enabled': as_text(scalars['sync_group_offsets']),
        'sync.group.offsets.interval.seconds': as_text(scalars['sync_group_offsets_interval_seconds']),
        'refresh.groups.enabled': as_text(scalars['refresh_groups']),
        'refresh.groups.interval.seconds': as_text(scalars['refresh_groups_interval_seconds']),
    })
    return settings


def heartbeat_settings(scalars: Mapping[str, Any]) -> Dict[str, str]:
    return {
        'heartbeats.topic.replication.factor': as_text(scalars['internal_topic_replication_factor']),
        'emit.heartbeats.enabled': as_text(scalars['emit_heartbeats']),
        'emit.heartbeats.interval.seconds': as_text(scalars['emit_heartbeats_interval_seconds']),
    }


def apply_extra_config(config: Dict[str, str], extra: Mapping[str, Any]) -> Dict[str, str]:
    """Raw settings go last; a null value removes a key the role would set."""
    merged = dict(config)
    for key, value in extra.items():
        if value is None:
            merged.pop(str(key), None)
        else:
            merged[str(key)] = as_text(value)
    return merged


def secret_files_in(config: Mapping[str, str]) -> List[str]:
    return sorted(set(re.findall(r'\$\{file:([^:}]+):', ' '.join(config.values()))))


def relative_to(base: str, paths: Iterable[str]) -> List[str]:
    """Secret file names as mirrormaker_secret_files spells them (relative to the secrets directory)."""
    prefix = posixpath.normpath(base).rstrip('/') + '/'
    return sorted(path[len(prefix):] if path.startswith(prefix) else path for path in paths)


def check_secret_file_names(names: Any, errors: PlanErrors) -> None:
    for name in names or []:
        if not isinstance(name, str) or not re.match(r'^[A-Za-z0-9][A-Za-z0-9._-]*$', name):
            errors.add('mirrormaker_secret_files', 'file names must be plain names inside the secrets directory '
                       '(letters, digits, ".", "_", "-"), got %r' % (name,))


# ---- planning ----------------------------------------------------------------------

def checked_flow(where: str, given: Mapping[str, Any], request: Mapping[str, Any], errors: PlanErrors) -> Dict[str, Any]:
    """The flow merged over its defaults, with every option checked and normalised."""
    builtin = request.get('builtin_defaults') or {}
    check_flow_options(where, given, builtin, errors)
    for option in ('name', 'connect_cluster'):
        if given.get(option) is not None and not isinstance(given.get(option), str):
            errors.add(where, '%s must be a string, got %r' % (option, given.get(option)))
    flow = effective_flow(given, builtin, request.get('site_defaults') or {})
    check_endpoints(where, flow, request.get('clusters') or {}, errors)
    check_choices(where, flow, errors)
    return {
        'flow': flow,
        'scalars': check_scalars(where, flow, errors),
        'patterns': check_patterns(where, flow, errors),
        'tasks_max': check_tasks_max(where, flow, errors),
        'tuning': check_tuning(where, flow, errors),
        'extra': check_extra_config(where, flow, errors),
        'base_name': flow_base_name(flow, where, errors),
        'hosts': connect_cluster_hosts(where, flow, request.get('groups') or {}, errors),
    }


def render_connectors(checked: Mapping[str, Any], request: Mapping[str, Any],
                      connections: Mapping[str, Dict[str, str]]) -> List[Dict[str, Any]]:
    """The source, checkpoint and heartbeat connector of one checked flow, in deploy order."""
    flow, scalars, patterns = checked['flow'], checked['scalars'], checked['patterns']
    specific = {
        'source': source_settings(flow, scalars, patterns, checked['tuning']),
        'checkpoint': checkpoint_settings(flow, scalars, patterns),
        'heartbeat': heartbeat_settings(scalars),
    }
    connectors = []
    for kind in CONNECTOR_KINDS:
        config = common_settings(flow, kind, checked['tasks_max'][kind], connections[flow['source']], connections[flow['target']])
        config.update(specific[kind])
        config = apply_extra_config(config, checked['extra'][kind])
        secret_files = secret_files_in(config)
        connectors.append({
            'name': '%s%s-%s' % (request.get('connector_prefix', 'mm2-'), checked['base_name'], kind),
            'kind': kind,
            'flow': checked['base_name'],
            'config': config,
            'secret_files': secret_files,
            'secret_file_names': relative_to(str(request.get('secrets_dir') or ''), secret_files),
        })
    return connectors


def plan_flow(index: int, given: Any, request: Mapping[str, Any], connections: Mapping[str, Dict[str, str]],
              errors: PlanErrors) -> Optional[Dict[str, Any]]:
    """One flow with its connectors, or None when the model has errors (they are collected)."""
    where = flow_label(index, given)
    if not isinstance(given, Mapping):
        errors.add(where, 'must be a mapping with at least source and target')
        return None
    checked = checked_flow(where, given, request, errors)
    flow = checked['flow']
    if errors.messages or flow.get('source') not in connections or flow.get('target') not in connections:
        return None
    return {
        'name': checked['base_name'],
        'source': flow['source'],
        'target': flow['target'],
        'connect_cluster': flow.get('connect_cluster') or None,
        'deploy_here': checked['hosts'] is None or request.get('deploy_host') in checked['hosts'],
        'connectors': render_connectors(checked, request, connections),
    }


def identity_cycle_warnings(flows: List[Dict[str, Any]]) -> List[str]:
    identity_pairs = {(flow['source'], flow['target']) for flow in flows
                      if flow['connectors'][0]['config'].get('replication.policy.class') == POLICY_CLASSES['identity']}
    return ['flows %s -> %s and %s -> %s both keep topic names (IdentityReplicationPolicy): MM2 cannot detect loops, '
            'so their topic sets must not overlap' % (source, target, target, source)
            for source, target in sorted(identity_pairs) if (target, source) in identity_pairs and source < target]


def check_unique_names(flows: List[Dict[str, Any]], errors: PlanErrors) -> None:
    seen: Dict[str, str] = {}
    for flow in flows:
        for connector in flow['connectors']:
            owner = '%s -> %s' % (flow['source'], flow['target'])
            if connector['name'] in seen:
                errors.add('flow %s' % owner, 'connector name %s is also used by flow %s; give one of them a distinct name'
                           % (connector['name'], seen[connector['name']]))
            seen[connector['name']] = owner


def check_offset_syncs_topics(flows: List[Dict[str, Any]], errors: PlanErrors) -> None:
    """Two directions must not share an offset-syncs topic: with mixed locations, A -> B (on A, named
    after B) and B -> A (on its target A, named after its source B) would both write mm2-offset-syncs.B.internal
    on A, and each checkpoint connector would translate with the other's syncs."""
    writers: Dict[Tuple[str, str], Set[Tuple[str, str]]] = {}
    for flow in flows:
        rules = NamingRules(flow['connectors'][0]['config'])
        if rules.emits_offset_syncs:
            writers.setdefault(rules.offset_syncs_topic(), set()).add((flow['source'], flow['target']))
    for (alias, topic), pairs in sorted(writers.items()):
        if len(pairs) > 1:
            errors.add('flows %s' % ', '.join('%s -> %s' % pair for pair in sorted(pairs)),
                       'would share the offset-syncs topic %s on cluster %s; give them the same '
                       'offset_syncs_topic_location' % (topic, alias))


def cluster_summary(connection: Mapping[str, str], secrets_dir: str) -> Dict[str, Any]:
    """What the role needs per cluster: endpoints to probe and client settings for the topic checks."""
    endpoints = []
    for entry in connection['bootstrap.servers'].split(','):
        host, _separator, port = entry.rpartition(':')
        endpoints.append({'host': host.strip('[]'), 'port': int(port)})
    client_properties = dict(connection)
    client_properties.update({
        'config.providers': 'file',
        'config.providers.file.class': 'org.apache.kafka.common.config.provider.FileConfigProvider',
        'config.providers.file.param.allowed.paths': secrets_dir,
    })
    return {'bootstrap_servers': connection['bootstrap.servers'], 'endpoints': endpoints,
            'client_properties': client_properties}


def plan(request: Mapping[str, Any]) -> Dict[str, Any]:
    errors = PlanErrors()
    clusters = request.get('clusters')
    flows = request.get('flows')
    secrets_dir = str(request.get('secrets_dir') or '/etc/kafka/connect/secrets')
    if not isinstance(clusters, Mapping):
        errors.add('mm2_clusters', 'must be a mapping of cluster alias to connection settings')
        clusters = {}
    if not isinstance(flows, list):
        errors.add('mm2_flows', 'must be a list of flows')
        flows = []
    site_defaults = request.get('site_defaults') or {}
    if not isinstance(site_defaults, Mapping):
        errors.add('mm2_flow_defaults', 'must be a mapping of flow options')
        site_defaults = {}
    check_flow_options('mm2_flow_defaults', site_defaults, request.get('builtin_defaults') or {}, errors)
    check_secret_file_names(request.get('secret_file_names'), errors)
    connections: Dict[str, Dict[str, str]] = {}
    for alias in sorted(clusters):
        connections[str(alias)] = cluster_connection(str(alias), clusters[alias], secrets_dir, errors)
    flow_request = dict(request, clusters=clusters, site_defaults=site_defaults)
    planned = [plan_flow(index, given, flow_request, connections, errors) for index, given in enumerate(flows)]
    planned_flows = [flow for flow in planned if flow is not None]
    check_unique_names(planned_flows, errors)
    check_offset_syncs_topics(planned_flows, errors)
    here = [flow for flow in planned_flows if flow['deploy_here']]
    aliases_here = sorted({alias for flow in here for alias in (flow['source'], flow['target'])})
    connectors = [connector for flow in here for connector in flow['connectors']]
    prefix = str(request.get('connector_prefix', 'mm2-'))
    return {
        'errors': errors.messages,
        'warnings': identity_cycle_warnings(planned_flows),
        'flows': here,
        'connectors': connectors,
        'desired_names': [connector['name'] for connector in connectors],
        'managed_pattern': '^%s.+-(%s)$' % (re.escape(prefix), '|'.join(CONNECTOR_KINDS)),
        'clusters': {alias: cluster_summary(connections[alias], secrets_dir) for alias in aliases_here if not errors.messages},
        'endpoints': [dict(endpoint, alias=alias) for alias in aliases_here if not errors.messages
                      for endpoint in cluster_summary(connections[alias], secrets_dir)['endpoints']],
        'source_aliases': sorted({flow['source'] for flow in here}),
        'secret_files': sorted({path for connector in connectors for path in connector['secret_files']}),
        'flows_elsewhere': ['%s (Connect cluster %s)' % (flow['name'], flow['connect_cluster'])
                            for flow in planned_flows if not flow['deploy_here']],
    }


# ---- expected topics ------------------------------------------------------------------

class NamingRules:
    """How one flow's MM2 names and selects topics, read from its rendered source connector config."""

    def __init__(self, config: Mapping[str, str]) -> None:
        self.source_alias = config['source.cluster.alias']
        self.target_alias = config['target.cluster.alias']
        self.policy_class = config.get('replication.policy.class', POLICY_CLASSES['default'])
        self.separator = config.get('replication.policy.separator', '.')
        internal_separator_enabled = config.get('replication.policy.internal.topic.separator.enabled', 'true') == 'true'
        self.internal_separator = self.separator if internal_separator_enabled else '.'
        self.include = as_pattern_list(config.get('topics', '.*')) or []
        excluded = config.get('topics.exclude')
        self.exclude = as_pattern_list(excluded) if excluded is not None else list(MM2_DEFAULT_TOPICS_EXCLUDE)
        self.replicate_heartbeats = config.get('heartbeats.replication.enabled', 'true') == 'true'
        self.offset_syncs_location = config.get('offset-syncs.topic.location', 'source')
        self.emits_offset_syncs = config.get('emit.offset-syncs.enabled', 'true') == 'true'
        self.custom_filter = 'topic.filter.class' in config and not config['topic.filter.class'].endswith('.DefaultTopicFilter')

    @property
    def predictable(self) -> bool:
        return self.policy_class in POLICY_CLASSES.values() and not self.custom_filter

    @property
    def identity(self) -> bool:
        return self.policy_class == POLICY_CLASSES['identity']

    # ReplicationPolicy, as DefaultReplicationPolicy and IdentityReplicationPolicy implement it.
    def topic_source(self, topic: str) -> Optional[str]:
        if self.identity and not self.is_heartbeats(topic):
            return None
        parts = topic.split(self.separator)
        return parts[0] if len(parts) >= 2 else None

    def upstream_topic(self, topic: str) -> Optional[str]:
        source = self.topic_source(topic)
        if source is None:
            return topic if self.identity else None
        return topic[len(source) + len(self.separator):]

    def original_topic(self, topic: str) -> str:
        parts = topic.split(self.separator)
        original = topic
        while len(parts) >= 2:
            original = self.separator.join(parts[1:])
            parts = parts[1:]
        return original

    def is_heartbeats(self, topic: str) -> bool:
        return self.original_topic(topic) == HEARTBEATS_TOPIC

    def is_internal(self, topic: str) -> bool:
        return (topic.endswith(self.internal_separator + 'internal') or topic.endswith('.internal')
                or topic.endswith('-internal') or topic.startswith('__') or topic.startswith('.'))

    def is_cycle(self, topic: str) -> bool:
        seen: Set[str] = set()
        while topic not in seen:
            seen.add(topic)
            source = self.topic_source(topic)
            if source is None:
                return False
            if source == self.target_alias:
                return True
            upstream = self.upstream_topic(topic)
            if upstream is None or upstream == topic:
                return False
            topic = upstream
        return False

    def passes_filter(self, topic: str) -> bool:
        included = bool(self.include) and re.fullmatch('|'.join(self.include), topic) is not None
        excluded = bool(self.exclude) and re.fullmatch('|'.join(self.exclude), topic) is not None
        return included and not excluded

    def replicates(self, topic: str) -> bool:
        wanted = self.passes_filter(topic) or (self.replicate_heartbeats and self.is_heartbeats(topic))
        return wanted and not self.is_internal(topic) and not self.is_cycle(topic)

    def remote_topic(self, topic: str) -> str:
        if self.identity and not self.is_heartbeats(topic):
            return topic
        return self.source_alias + self.separator + topic

    def checkpoints_topic(self) -> str:
        return self.source_alias + self.internal_separator + 'checkpoints' + self.internal_separator + 'internal'

    def offset_syncs_topic(self) -> Tuple[str, str]:
        """(cluster alias holding it, topic name): named after the other cluster of the flow."""
        if self.offset_syncs_location == 'target':
            return self.target_alias, 'mm2-offset-syncs' + self.internal_separator + self.source_alias + self.internal_separator + 'internal'
        return self.source_alias, 'mm2-offset-syncs' + self.internal_separator + self.target_alias + self.internal_separator + 'internal'


def connector_of(flow: Mapping[str, Any], kind: str) -> Optional[Mapping[str, Any]]:
    return next((connector for connector in flow['connectors'] if connector['kind'] == kind), None)


def expect(request: Mapping[str, Any]) -> Dict[str, Any]:
    listings: Mapping[str, List[str]] = request.get('topics') or {}
    base_timeout = int(request.get('timeout_seconds') or 120)
    expected: Dict[str, Set[str]] = {}
    timeouts: Dict[str, int] = {}
    min_tasks: Dict[str, int] = {}
    unverified: List[str] = []

    def want(alias: str, topic: str, timeout: int) -> None:
        expected.setdefault(alias, set()).add(topic)
        timeouts[alias] = max(timeouts.get(alias, base_timeout), timeout)

    for flow in request.get('flows') or []:
        source = connector_of(flow, 'source')
        checkpoint = connector_of(flow, 'checkpoint')
        heartbeat = connector_of(flow, 'heartbeat')
        rules = NamingRules(source['config'])
        refresh = as_int(source['config'].get('refresh.topics.interval.seconds')) or 600
        remote: List[str] = []
        if not rules.predictable:
            unverified.append(flow['name'])
        else:
            remote = sorted({rules.remote_topic(topic) for topic in listings.get(flow['source'], []) if rules.replicates(topic)})
            for topic in remote:
                want(flow['target'], topic, base_timeout + refresh)
            if rules.emits_offset_syncs:
                want(*rules.offset_syncs_topic(), timeout=base_timeout)
            want(flow['target'], NamingRules(checkpoint['config']).checkpoints_topic(), base_timeout)
            want(flow['target'], HEARTBEATS_TOPIC, base_timeout)
        min_tasks[source['name']] = 1 if remote else 0
        min_tasks[checkpoint['name']] = 0
        min_tasks[heartbeat['name']] = 1 if heartbeat['config'].get('emit.heartbeats.enabled', 'true') == 'true' else 0
    return {
        'expected_topics': {alias: sorted(topics) for alias, topics in sorted(expected.items())},
        'timeouts': timeouts,
        'min_tasks': min_tasks,
        'unverified_flows': unverified,
    }


# ---- pruning ------------------------------------------------------------------------------

def orphans(request: Mapping[str, Any]) -> Dict[str, Any]:
    """Connectors to remove: named like this role's, running one of the three Mirror* classes
    matching the name's suffix, and wanted by no flow any more."""
    pattern = re.compile(str(request['managed_pattern']))
    desired = set(request.get('desired_names') or [])
    found: List[str] = []
    for name, entry in sorted((request.get('existing') or {}).items()):
        match = pattern.match(name)
        config = (entry or {}).get('config') or {}
        if not match or name in desired:
            continue
        if str(config.get('connector.class', '')).strip() == MIRROR_CLASSES[match.group(1)]:
            found.append(name)
    return {'orphans': found}


COMMANDS = {'plan': plan, 'expect': expect, 'orphans': orphans}


def main(argv: List[str]) -> int:
    if len(argv) != 2 or argv[1] not in COMMANDS:
        sys.stderr.write('usage: mirrormaker_plan.py {%s} < request.json\n' % '|'.join(sorted(COMMANDS)))
        return 2
    request = json.load(sys.stdin)
    json.dump(COMMANDS[argv[1]](request), sys.stdout, sort_keys=True)
    sys.stdout.write('\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
