# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Flows of the MirrorMaker 2 model (mm2_flows): merged over their defaults, every option checked.

A flow's options come from the built-in defaults, then the site's defaults
(mm2_flow_defaults), then the flow itself; mappings merge key by key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_values import as_int
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_acls import PRINCIPAL
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_common import (
    CONNECTOR_KINDS,
    ModelErrors,
    as_bool,
    as_pattern_list,
    deep_merge,
    without_nulls,
)
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_flow_options import (
    OptionSettings,
    check_extra_config_conflicts,
    check_tuning_keys,
    flow_option_warnings,
    option_settings,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_naming import HEARTBEATS_LOCATIONS, OFFSET_SYNCS_LOCATIONS, POLICY_CLASSES

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
TOPIC_PATTERN_OPTIONS = ('topics', 'topics_exclude')
PATTERN_LIST_OPTIONS = TOPIC_PATTERN_OPTIONS + ('groups', 'groups_exclude')
TUNING_OPTIONS = ('consumer', 'producer')
# Producer and consumer tuning may not redefine where or how to connect.
CONNECTION_KEYS = frozenset({'bootstrap.servers', 'security.protocol'})
CONNECTION_SETTING_PREFIXES = ('ssl.', 'sasl.')

FLOW_NAME_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._-]*$')
# The applications of a flow's topics, for the readiness checks (playbooks/readiness.yml): option -> the
# resource names an entry may add to what the source's ACLs say the principal uses.
APP_PRINCIPAL_OPTIONS = {'consumers': 'groups', 'producers': 'transactional_ids'}

Patterns = Dict[str, Optional[List[str]]]


@dataclass
class CheckedFlow:
    """A flow merged over its defaults, with every option checked and normalised."""

    flow: Dict[str, Any]
    scalars: Dict[str, Any]
    patterns: Patterns
    tasks_max: Dict[str, int]
    tuning: Dict[str, Dict[str, Any]]
    extra: Dict[str, Dict[str, Any]]
    base_name: str
    # Hosts of the flow's Connect cluster; None: the hosts of the play run it.
    hosts: Optional[List[str]]
    # MM2 settings of the options mm2_flow_options checks, per connector: setting -> (value, option).
    options: OptionSettings = field(default_factory=dict)
    warnings: List[str] = field(default_factory=list)
    # consumers and producers: [{principal, groups | transactional_ids}].
    app_principals: Dict[str, List[Dict[str, Any]]] = field(default_factory=dict)


def flow_label(index: int, given: Any) -> str:
    if isinstance(given, Mapping):
        return 'flow #%d (%s -> %s)' % (index + 1, given.get('source', '?'), given.get('target', '?'))
    return 'flow #%d' % (index + 1)


def effective_flow(given: Mapping[str, Any], builtin_defaults: Mapping[str, Any], site_defaults: Mapping[str, Any]) -> Dict[str, Any]:
    return deep_merge(deep_merge(builtin_defaults, site_defaults), given)


def check_flow_options(where: str, given: Mapping[str, Any], known: Iterable[str], errors: ModelErrors) -> None:
    known_options = set(known) | set(FLOW_REQUIRED_OPTIONS)
    unknown = sorted(set(given) - known_options)
    if unknown:
        errors.add(where, 'unknown option(s) %s; known: %s' % (', '.join(unknown), ', '.join(sorted(known_options))))


def check_endpoints(where: str, flow: Mapping[str, Any], clusters: Mapping[str, Any], errors: ModelErrors) -> None:
    for side in FLOW_REQUIRED_OPTIONS:
        alias = flow.get(side)
        if not alias:
            errors.add(where, '%s (a cluster alias) is required' % side)
        elif alias not in clusters:
            errors.add(where, '%s "%s" is not a cluster alias of mm2_clusters (known: %s)'
                       % (side, alias, ', '.join(sorted(clusters)) or 'none'))
    if flow.get('source') and flow.get('source') == flow.get('target'):
        errors.add(where, 'source and target are the same cluster "%s"; a flow replicates between two clusters' % flow['source'])


def check_choices(where: str, flow: Mapping[str, Any], errors: ModelErrors) -> None:
    if flow.get('replication_policy') not in POLICY_CLASSES:
        errors.add(where, 'replication_policy must be "default" or "identity", got %r (a custom policy class goes in '
                   'extra_config as replication.policy.class on all three connectors)' % flow.get('replication_policy'))
    if flow.get('offset_syncs_topic_location') not in OFFSET_SYNCS_LOCATIONS:
        errors.add(where, 'offset_syncs_topic_location must be "source" or "target", got %r' % flow.get('offset_syncs_topic_location'))
    if flow.get('heartbeats_topic_location') not in HEARTBEATS_LOCATIONS:
        errors.add(where, 'heartbeats_topic_location must be "source" (heartbeats replicated to the target, latency measurable) '
                   'or "target" (stock MM2), got %r' % flow.get('heartbeats_topic_location'))
    separator = flow.get('separator')
    if not isinstance(separator, str) or not separator:
        errors.add(where, 'separator must be a non-empty string, got %r' % separator)
    else:
        for side in FLOW_REQUIRED_OPTIONS:
            if separator in str(flow.get(side) or ''):
                errors.add(where, 'the %s alias "%s" contains the separator "%s"; remote topic names could not be traced '
                           'back to their cluster (cycle detection breaks)' % (side, flow.get(side), separator))


def check_scalars(where: str, flow: Mapping[str, Any], errors: ModelErrors) -> Dict[str, Any]:
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


def check_patterns(where: str, flow: Mapping[str, Any], errors: ModelErrors,
                   options: Iterable[str] = PATTERN_LIST_OPTIONS) -> Patterns:
    """Lists of regular expressions; an unset *_exclude keeps MM2's default (None)."""
    patterns: Patterns = {}
    for option in options:
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


def check_tasks_max(where: str, flow: Mapping[str, Any], errors: ModelErrors) -> Dict[str, int]:
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


def check_tuning(where: str, flow: Mapping[str, Any], errors: ModelErrors) -> Dict[str, Dict[str, Any]]:
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


def check_extra_config(where: str, flow: Mapping[str, Any], errors: ModelErrors) -> Dict[str, Dict[str, Any]]:
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


def check_app_principals(where: str, flow: Mapping[str, Any], errors: ModelErrors) -> Dict[str, List[Dict[str, Any]]]:
    """consumers and producers: principals (User:app), or mappings with principal and the groups (consumers) or
    transactional ids (producers) the application uses on top of what the source's ACLs grant it."""
    checked: Dict[str, List[Dict[str, Any]]] = {}
    for option, names_key in APP_PRINCIPAL_OPTIONS.items():
        given = flow.get(option)
        checked[option] = []
        if given is None:
            continue
        if not isinstance(given, list):
            errors.add(where, '%s must be a list of principals (User:app) or of mappings with principal and %s, got %r'
                       % (option, names_key, given))
            continue
        for index, entry in enumerate(given):
            item = {'principal': entry} if isinstance(entry, str) else entry
            label = '%s[%d]' % (option, index)
            if not isinstance(item, Mapping):
                errors.add(where, '%s must be a principal or a mapping, got %r' % (label, entry))
                continue
            unknown = sorted(set(item) - {'principal', names_key})
            if unknown:
                errors.add(where, '%s: unknown key(s) %s; known: principal, %s' % (label, ', '.join(map(str, unknown)), names_key))
            principal = item.get('principal')
            if not isinstance(principal, str) or not PRINCIPAL.match(principal.strip()):
                errors.add(where, '%s: principal must be Type:name, for example User:app (got %r)' % (label, principal))
                continue
            names = item.get(names_key) or []
            if not isinstance(names, list) or not all(isinstance(name, str) and name.strip() for name in names):
                errors.add(where, '%s: %s must be a list of names, got %r' % (label, names_key, names))
                names = []
            checked[option].append({'principal': principal.strip(), names_key: [name.strip() for name in names]})
    return checked


def heartbeats_alias(flow: Mapping[str, Any]) -> str:
    """Alias of the cluster whose heartbeats topic the flow's heartbeat connector writes."""
    return str(flow['source'] if flow.get('heartbeats_topic_location') == 'source' else flow['target'])


def flow_name(flow: Mapping[str, Any]) -> str:
    """Middle part of the connector names: the flow's name, else <source>-<target>."""
    return str(flow.get('name') or '%s-%s' % (flow.get('source'), flow.get('target')))


def flow_base_name(flow: Mapping[str, Any], where: str, errors: ModelErrors) -> str:
    name = flow_name(flow)
    if not FLOW_NAME_RE.match(name):
        errors.add(where, 'name %r may hold letters, digits, ".", "_" and "-" only' % name)
    return name


def connect_cluster_hosts(where: str, flow: Mapping[str, Any], groups: Mapping[str, List[str]], errors: ModelErrors) -> Optional[List[str]]:
    group = flow.get('connect_cluster')
    if group in (None, ''):
        return None
    hosts = groups.get(str(group))
    if not hosts:
        errors.add(where, 'connect_cluster "%s" is not an inventory group with hosts' % group)
        return []
    return list(hosts)


def check_flow(where: str, given: Mapping[str, Any], clusters: Mapping[str, Any], builtin_defaults: Mapping[str, Any],
               site_defaults: Mapping[str, Any], groups: Mapping[str, List[str]], errors: ModelErrors) -> CheckedFlow:
    """The flow merged over its defaults, with every option checked and normalised (problems go to errors)."""
    check_flow_options(where, given, builtin_defaults, errors)
    for option in ('name', 'connect_cluster'):
        if given.get(option) is not None and not isinstance(given.get(option), str):
            errors.add(where, '%s must be a string, got %r' % (option, given.get(option)))
    flow = effective_flow(given, builtin_defaults, site_defaults)
    check_endpoints(where, flow, clusters, errors)
    check_choices(where, flow, errors)
    tuning = check_tuning(where, flow, errors)
    check_tuning_keys(where, tuning, errors)
    extra = check_extra_config(where, flow, errors)
    options = option_settings(where, flow, errors)
    check_extra_config_conflicts(where, options, extra, errors)
    return CheckedFlow(
        flow=flow,
        scalars=check_scalars(where, flow, errors),
        patterns=check_patterns(where, flow, errors),
        tasks_max=check_tasks_max(where, flow, errors),
        tuning=tuning,
        extra=extra,
        base_name=flow_base_name(flow, where, errors),
        hosts=connect_cluster_hosts(where, flow, groups, errors),
        options=options,
        warnings=flow_option_warnings(where, flow, options),
        app_principals=check_app_principals(where, flow, errors),
    )
