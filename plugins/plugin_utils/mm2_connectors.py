# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The three connector configs of a checked flow: MirrorSourceConnector, MirrorCheckpointConnector
and MirrorHeartbeatConnector, every value in Connect's string form."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_values import connect_string
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_clusters import relative_to, secret_files_in
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_common import (
    CONNECTOR_KINDS,
    MIRROR_CLASSES,
    ModelErrors,
    connect_settings,
)
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_flow_options import settings_of
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_flows import CheckedFlow, Patterns, heartbeats_alias
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_naming import (
    OFFSET_SYNCS_LOCATION_KEY,
    POLICY_CLASS_KEY,
    POLICY_CLASSES,
    SEPARATOR_KEY,
)

BYTE_ARRAY_CONVERTER = 'org.apache.kafka.connect.converters.ByteArrayConverter'
CONVERTER_KEYS = ('key.converter', 'value.converter', 'header.converter')


def naming_settings(flow: Mapping[str, Any]) -> Dict[str, str]:
    """The replication policy, set on all three connectors (MM2 needs it on the checkpoint connector too)."""
    return {
        POLICY_CLASS_KEY: POLICY_CLASSES[flow['replication_policy']],
        SEPARATOR_KEY: str(flow['separator']),
    }


def common_settings(flow: Mapping[str, Any], kind: str, tasks_max: int,
                    source_connection: Mapping[str, str], target_connection: Mapping[str, str]) -> Dict[str, str]:
    """What all three connectors share: aliases, both clusters, the naming policy and byte-exact converters.

    producer.override.* points the worker's producer at target_connection, the cluster the connector
    writes into, whichever Kafka cluster backs the Connect workers.
    """
    settings = {
        'connector.class': MIRROR_CLASSES[kind],
        'source.cluster.alias': str(flow['source']),
        'target.cluster.alias': str(flow['target']),
        'tasks.max': str(tasks_max),
    }
    settings.update(naming_settings(flow))
    settings.update({key: BYTE_ARRAY_CONVERTER for key in CONVERTER_KEYS})
    for prefix, connection in (('source.cluster.', source_connection), ('target.cluster.', target_connection),
                               ('producer.override.', target_connection)):
        settings.update({prefix + key: value for key, value in connection.items()})
    return settings


def topic_filter_settings(patterns: Patterns) -> Dict[str, str]:
    settings = {'topics': connect_string(patterns['topics'])}
    if patterns['topics_exclude'] is not None:
        settings['topics.exclude'] = connect_string(patterns['topics_exclude'])
    return settings


def source_settings(where: str, checked: CheckedFlow, errors: ModelErrors) -> Dict[str, str]:
    flow, scalars = checked.flow, checked.scalars
    settings = topic_filter_settings(checked.patterns)
    settings.update({
        'replication.factor': connect_string(scalars['replication_factor']),
        'offset-syncs.topic.replication.factor': connect_string(scalars['internal_topic_replication_factor']),
        OFFSET_SYNCS_LOCATION_KEY: str(flow['offset_syncs_topic_location']),
        'offset.lag.max': connect_string(scalars['offset_lag_max']),
        'sync.topic.configs.enabled': connect_string(scalars['sync_topic_configs']),
        'sync.topic.configs.interval.seconds': connect_string(scalars['sync_topic_configs_interval_seconds']),
        'sync.topic.acls.enabled': connect_string(scalars['sync_topic_acls']),
        'sync.topic.acls.interval.seconds': connect_string(scalars['sync_topic_acls_interval_seconds']),
        'refresh.topics.enabled': connect_string(scalars['refresh_topics']),
        'refresh.topics.interval.seconds': connect_string(scalars['refresh_topics_interval_seconds']),
    })
    settings.update(connect_settings(where, 'consumer', checked.tuning['consumer'], errors, prefix='consumer.'))
    settings.update(connect_settings(where, 'producer', checked.tuning['producer'], errors, prefix='producer.override.'))
    if scalars['exactly_once']:
        # KIP-618: the workers need exactly.once.source.support=enabled; validation fails otherwise.
        settings['exactly.once.support'] = 'required'
        settings['consumer.isolation.level'] = 'read_committed'
    return settings


def checkpoint_settings(checked: CheckedFlow) -> Dict[str, str]:
    flow, scalars, patterns = checked.flow, checked.scalars, checked.patterns
    settings = topic_filter_settings(patterns)
    settings['groups'] = connect_string(patterns['groups'])
    if patterns['groups_exclude'] is not None:
        settings['groups.exclude'] = connect_string(patterns['groups_exclude'])
    settings.update({
        'checkpoints.topic.replication.factor': connect_string(scalars['internal_topic_replication_factor']),
        OFFSET_SYNCS_LOCATION_KEY: str(flow['offset_syncs_topic_location']),
        'emit.checkpoints.enabled': connect_string(scalars['emit_checkpoints']),
        'emit.checkpoints.interval.seconds': connect_string(scalars['emit_checkpoints_interval_seconds']),
        'sync.group.offsets.enabled': connect_string(scalars['sync_group_offsets']),
        'sync.group.offsets.interval.seconds': connect_string(scalars['sync_group_offsets_interval_seconds']),
        'refresh.groups.enabled': connect_string(scalars['refresh_groups']),
        'refresh.groups.interval.seconds': connect_string(scalars['refresh_groups_interval_seconds']),
    })
    return settings


def heartbeat_settings(checked: CheckedFlow) -> Dict[str, str]:
    scalars = checked.scalars
    return {
        'heartbeats.topic.replication.factor': connect_string(scalars['internal_topic_replication_factor']),
        'emit.heartbeats.enabled': connect_string(scalars['emit_heartbeats']),
        'emit.heartbeats.interval.seconds': connect_string(scalars['emit_heartbeats_interval_seconds']),
    }


def apply_extra_config(where: str, kind: str, config: Mapping[str, str], extra: Mapping[str, Any],
                       errors: ModelErrors) -> Dict[str, str]:
    """Raw settings go last; a null value removes a key the role would set."""
    merged = dict(config)
    for key in [key for key, value in extra.items() if value is None]:
        merged.pop(str(key), None)
    merged.update(connect_settings(where, 'extra_config.%s' % kind,
                                   {key: value for key, value in extra.items() if value is not None}, errors))
    return merged


def written_cluster(flow: Mapping[str, Any], kind: str) -> str:
    """Alias of the cluster a connector writes into: the flow's target, except for heartbeats kept on the source.

    MirrorHeartbeatConnector creates its topic with its target.cluster.* admin client and Connect's
    producer writes the records; both then reach the source, while the aliases stay the flow's, so
    every heartbeat says <source> -> <target> and the source connector mirrors them to the target.
    """
    return heartbeats_alias(flow) if kind == 'heartbeat' else str(flow['target'])


def render_connectors(where: str, checked: CheckedFlow, connector_prefix: str, secrets_dir: str,
                      connections: Mapping[str, Mapping[str, str]], errors: ModelErrors) -> List[Dict[str, Any]]:
    """The source, checkpoint and heartbeat connector of one checked flow, in deploy order."""
    flow = checked.flow
    specific = {
        'source': source_settings(where, checked, errors),
        'checkpoint': checkpoint_settings(checked),
        'heartbeat': heartbeat_settings(checked),
    }
    connectors = []
    for kind in CONNECTOR_KINDS:
        written = written_cluster(flow, kind)
        config = common_settings(flow, kind, checked.tasks_max[kind], connections[flow['source']], connections[written])
        config.update(specific[kind])
        # The flow's own MM2 settings (mm2_flow_options): filters, timeouts, internal topics, client overrides.
        config.update(settings_of(checked.options, kind))
        config = apply_extra_config(where, kind, config, checked.extra[kind], errors)
        secret_files = secret_files_in(config)
        connectors.append({
            'name': '%s%s-%s' % (connector_prefix, checked.base_name, kind),
            'kind': kind,
            'flow': checked.base_name,
            'config': config,
            'secret_files': secret_files,
            'secret_file_names': relative_to(secrets_dir, secret_files),
        })
    return connectors
