# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the readiness check of one flow needs, taken from the MirrorMaker 2 model and its plan.

readiness_inputs(request) takes what failover_inputs takes (flow, clusters, flows, site_defaults,
builtin_defaults, plan) and returns errors, or everything failover_inputs returns plus: the
offset-syncs topic and the cluster holding it, the group filter MM2 runs with (the checkpoint
connector's groups and groups.exclude, MM2's default exclusions when unset), the source
connector's offset.lag.max, the flow's application principals (consumers, producers), and the
internal topics to check (internal_topics): MM2's checkpoints, offset-syncs and heartbeats topics
with the replication factors the planned connectors configure, and, given connect_properties (the
worker's connect-distributed.properties as role connect_worker renders them), the Connect cluster's
config, offsets and status topics with their replication factors, read with the workers' own
Kafka client (connect_client).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping

from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_readiness import MM2_DEFAULT_GROUPS_EXCLUDE
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_common import ModelErrors, deep_merge
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_describe import MM2_FLOW_DEFAULTS, describe_flow, find_flow
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_failover_inputs import failover_inputs, planned_flow
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_flows import check_app_principals, effective_flow

# Names MM2 has read the group exclusions under (groups.blacklist before Kafka 2.8's rename, gone in 4.0).
GROUPS_EXCLUDE_KEYS = ('groups.exclude', 'groups.blacklist')
MM2_DEFAULT_OFFSET_LAG_MAX = 100
# The replication factor MM2 and Connect give their internal topics when the setting is absent.
DEFAULT_INTERNAL_REPLICATION_FACTOR = 3
# Connect's internal topics: kind -> (topic setting, replication factor setting) of the worker's properties.
CONNECT_TOPIC_SETTINGS = {
    'config': ('config.storage.topic', 'config.storage.replication.factor'),
    'offset': ('offset.storage.topic', 'offset.storage.replication.factor'),
    'status': ('status.storage.topic', 'status.storage.replication.factor'),
}
# The worker's settings that its own Kafka clients (and so an admin client like it) connect with.
CLIENT_PREFIXES = ('security.', 'sasl.', 'ssl.')
CLIENT_KEYS = ('bootstrap.servers', 'client.dns.lookup')


def split_list(value: Any) -> List[str]:
    """A Connect LIST value: comma-separated, items trimmed, empty ones dropped."""
    return [item.strip() for item in str(value).split(',') if item.strip()]


def connector_config(flow: Mapping[str, Any], kind: str) -> Dict[str, str]:
    return next((dict(connector['config']) for connector in flow['connectors'] if connector['kind'] == kind), {})


def replication_factor(config: Mapping[str, Any], key: str) -> int:
    """A replication factor setting as an int; absent: the default of MM2 and Connect (3)."""
    value = str(config.get(key, DEFAULT_INTERNAL_REPLICATION_FACTOR)).strip()
    try:
        return int(value)
    except ValueError:
        return -1


def mm2_internal_topics(described: Mapping[str, Any], planned: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """MM2's internal topics of the flow, on the side that holds each, with the replication factors the plan sets."""
    kinds = {connector['kind'] for connector in planned['connectors']}
    topics = []
    if 'checkpoint' in kinds:
        key = 'checkpoints.topic.replication.factor'
        topics.append({'name': described['checkpoints_topic'], 'side': 'target', 'kind': 'checkpoints', 'compacted': True,
                       'replication_factor': replication_factor(connector_config(planned, 'checkpoint'), key), 'setting': key})
    key = 'offset-syncs.topic.replication.factor'
    topics.append({'name': described['offset_syncs_topic'], 'side': described['offset_syncs_location'],
                   'kind': 'offset-syncs', 'compacted': True,
                   'replication_factor': replication_factor(connector_config(planned, 'source'), key), 'setting': key})
    if 'heartbeat' in kinds:
        key = 'heartbeats.topic.replication.factor'
        side = 'source' if described['heartbeats_alias'] == described['source_alias'] else 'target'
        # MM2 may create it compacted, but nothing is lost when it is not: no cleanup.policy rule.
        topics.append({'name': described['heartbeats_topic'], 'side': side, 'kind': 'heartbeats', 'compacted': False,
                       'replication_factor': replication_factor(connector_config(planned, 'heartbeat'), key), 'setting': key})
    return topics


def connect_internal_topics(properties: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """The Connect cluster's config, offsets and status topics, as its workers' properties name them."""
    topics = []
    for kind, (topic_key, factor_key) in CONNECT_TOPIC_SETTINGS.items():
        name = str(properties.get(topic_key) or '').strip()
        if name:
            topics.append({'name': name, 'side': 'connect', 'kind': kind, 'compacted': True,
                           'replication_factor': replication_factor(properties, factor_key), 'setting': factor_key})
    return topics


def connect_client(properties: Mapping[str, Any]) -> Dict[str, str]:
    """The workers' own Kafka client settings (secrets as the ${file:...} placeholders the properties hold)."""
    return {str(key): str(value) for key, value in properties.items()
            if value is not None and (key in CLIENT_KEYS or str(key).startswith(CLIENT_PREFIXES))}


def readiness_inputs(request: Mapping[str, Any]) -> Dict[str, Any]:
    answer = failover_inputs(request)
    if answer['errors']:
        return answer
    described = describe_flow(request)
    planned = planned_flow(request.get('plan') or {}, answer['name'])
    errors = ModelErrors()
    given = find_flow(str(request['flow']), request.get('flows') or [], errors)
    if given is None or planned is None:
        return {'errors': errors.messages or ['flow %s is not in the plan' % request['flow']]}
    flow = effective_flow(given, deep_merge(MM2_FLOW_DEFAULTS, request.get('builtin_defaults') or {}),
                          request.get('site_defaults') or {})
    principals = check_app_principals('flow %s' % request['flow'], flow, errors)
    if errors:
        return {'errors': errors.messages}
    source = connector_config(planned, 'source')
    checkpoint = connector_config(planned, 'checkpoint')
    exclude_key = next((key for key in GROUPS_EXCLUDE_KEYS if key in checkpoint), None)
    lag = str(source.get('offset.lag.max', MM2_DEFAULT_OFFSET_LAG_MAX)).strip()
    properties = request.get('connect_properties') or {}
    client = connect_client(properties)
    connect_topics = connect_internal_topics(properties) if client.get('bootstrap.servers') else []
    return dict(
        answer,
        offset_syncs_topic=described['offset_syncs_topic'],
        offset_syncs_location=described['offset_syncs_location'],
        groups=split_list(checkpoint.get('groups', '.*')),
        groups_exclude=split_list(checkpoint[exclude_key]) if exclude_key else list(MM2_DEFAULT_GROUPS_EXCLUDE),
        offset_lag_max=int(lag) if lag.isdigit() else MM2_DEFAULT_OFFSET_LAG_MAX,
        consumers=principals['consumers'],
        producers=principals['producers'],
        internal_topics=connect_topics + mm2_internal_topics(described, planned),
        connect_client=client if connect_topics else {},
    )
