# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The MirrorMaker 2 plan: clusters and flows in, connector configs out, every problem at once.

plan(request) takes

    clusters, flows, builtin_defaults, site_defaults, connector_prefix, secrets_dir,
    secret_file_names, deploy_host, groups, config_providers, inline_secrets, secret_values

and returns

    errors, warnings, flows, connectors, desired_names, managed_pattern, clusters, endpoints,
    source_aliases, secret_files, flows_elsewhere, connect_clusters, inline_configs

The connectors' configs hold secrets as ${file:...} placeholders; with inline_secrets, the configs
to deploy, the values put in, are in inline_configs (mm2_secrets.py), and no other part holds one.

With errors, nothing else is to be used: the model is wrong and nothing may change.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Set, Tuple

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_clusters import (
    broker_probe,
    check_secret_file_names,
    cluster_connections,
    cluster_summary,
    secret_files_in,
)
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_common import CONNECTOR_KINDS, ModelErrors
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_connect_clusters import connect_clusters_of, single_worker_warnings
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_connectors import render_connectors
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_flows import check_flow, check_flow_options, flow_label, heartbeats_alias
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_literal_secrets import check_literal_secrets
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_secrets import SecretSources
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_naming import OFFSET_SYNCS_LOCATION_KEY, ReplicationNaming

DEFAULT_SECRETS_DIR = '/etc/kafka/connect/secrets'
DEFAULT_CONNECTOR_PREFIX = 'mm2-'


def connector_of(flow: Mapping[str, Any], kind: str) -> Mapping[str, Any]:
    """The planned connector of one kind (source, checkpoint or heartbeat) of a planned flow."""
    return next(connector for connector in flow['connectors'] if connector['kind'] == kind)


def plan_flow(index: int, given: Any, request: Mapping[str, Any], connections: Mapping[str, Dict[str, str]],
              errors: ModelErrors, warnings: Optional[List[str]] = None) -> Optional[Dict[str, Any]]:
    """One flow with its connectors, or None when the model has errors (they are collected, and
    the flow's warnings go to `warnings`)."""
    where = flow_label(index, given)
    if not isinstance(given, Mapping):
        errors.add(where, 'must be a mapping with at least source and target')
        return None
    checked = check_flow(where, given, request['clusters'], request['builtin_defaults'], request['site_defaults'],
                         request.get('groups') or {}, errors)
    if warnings is not None:
        warnings.extend(checked.warnings)
    flow = checked.flow
    if errors or flow.get('source') not in connections or flow.get('target') not in connections:
        return None
    connectors = render_connectors(where, checked, request['connector_prefix'], request['secrets_dir'], connections, errors)
    return {
        'name': checked.base_name,
        'source': flow['source'],
        'target': flow['target'],
        'connect_cluster': flow.get('connect_cluster') or None,
        'deploy_here': checked.hosts is None or request.get('deploy_host') in checked.hosts,
        # The cluster holding the heartbeats topic the flow's heartbeat connector writes.
        'heartbeats_cluster': heartbeats_alias(flow),
        'connectors': connectors,
    }


def flow_naming(flow: Mapping[str, Any]) -> Optional[ReplicationNaming]:
    """The naming of a planned flow, read from its source connector (None for a custom policy)."""
    return ReplicationNaming.from_config(connector_of(flow, 'source')['config'])


def identity_cycle_warnings(flows: List[Dict[str, Any]]) -> List[str]:
    identity_pairs = {(flow['source'], flow['target']) for flow in flows
                      if (flow_naming(flow) or ReplicationNaming()).identity}
    return ['flows %s -> %s and %s -> %s both keep topic names (IdentityReplicationPolicy): MM2 cannot detect loops, '
            'so their topic sets must not overlap' % (source, target, target, source)
            for source, target in sorted(identity_pairs) if (target, source) in identity_pairs and source < target]


def check_unique_names(flows: List[Dict[str, Any]], errors: ModelErrors) -> None:
    seen: Dict[str, str] = {}
    for flow in flows:
        for connector in flow['connectors']:
            owner = '%s -> %s' % (flow['source'], flow['target'])
            if connector['name'] in seen:
                errors.add('flow %s' % owner, 'connector name %s is also used by flow %s; give one of them a distinct name'
                           % (connector['name'], seen[connector['name']]))
            seen[connector['name']] = owner


def emits_offset_syncs(config: Mapping[str, str]) -> bool:
    return config.get('emit.offset-syncs.enabled', 'true') == 'true'


def offset_syncs_placement(flow: Mapping[str, Any]) -> Optional[Tuple[str, str]]:
    """(cluster alias, topic) of the offset syncs a planned flow writes; None when it writes none
    or uses a custom policy."""
    config = connector_of(flow, 'source')['config']
    naming = flow_naming(flow)
    if naming is None or not emits_offset_syncs(config):
        return None
    return naming.offset_syncs_placement(flow['source'], flow['target'], config.get(OFFSET_SYNCS_LOCATION_KEY, 'source'))


def check_offset_syncs_topics(flows: List[Dict[str, Any]], errors: ModelErrors) -> None:
    """Two directions must not share an offset-syncs topic: with mixed locations, A -> B (on A, named
    after B) and B -> A (on its target A, named after its source B) would both write mm2-offset-syncs.B.internal
    on A, and each checkpoint connector would translate with the other's syncs."""
    writers: Dict[Tuple[str, str], Set[Tuple[str, str]]] = {}
    for flow in flows:
        placement = offset_syncs_placement(flow)
        if placement is not None:
            writers.setdefault(placement, set()).add((flow['source'], flow['target']))
    for (alias, topic), pairs in sorted(writers.items()):
        if len(pairs) > 1:
            errors.add('flows %s' % ', '.join('%s -> %s' % pair for pair in sorted(pairs)),
                       'would share the offset-syncs topic %s on cluster %s; give them the same '
                       'offset_syncs_topic_location' % (topic, alias))


# Containers of a plan request: (key, the variable an operator knows it by, what it must be, default when unset).
_REQUEST_PARTS = (
    ('clusters', 'mm2_clusters', Mapping, None, 'must be a mapping of cluster alias to connection settings'),
    ('flows', 'mm2_flows', list, None, 'must be a list of flows'),
    ('site_defaults', 'mm2_flow_defaults', Mapping, {}, 'must be a mapping of flow options'),
    ('builtin_defaults', 'mirrormaker_flow_builtin_defaults', Mapping, {}, 'must be a mapping of flow options'),
)


def normalised_request(request: Mapping[str, Any], errors: ModelErrors) -> Dict[str, Any]:
    """The request with its parts checked: a part of the wrong type is an error and planned as empty."""
    normalised = dict(request)
    normalised['secrets_dir'] = str(request.get('secrets_dir') or DEFAULT_SECRETS_DIR)
    prefix = request.get('connector_prefix')
    normalised['connector_prefix'] = DEFAULT_CONNECTOR_PREFIX if prefix is None else str(prefix)
    for key, where, expected, unset, problem in _REQUEST_PARTS:
        value = request.get(key)
        if value is None and unset is not None:
            value = unset
        if not isinstance(value, expected):
            errors.add(where, problem)
            value = [] if expected is list else {}
        normalised[key] = value
    return normalised


def plan(request: Mapping[str, Any]) -> Dict[str, Any]:
    errors = ModelErrors()
    request = normalised_request(request, errors)
    secrets_dir = request['secrets_dir']
    check_flow_options('mm2_flow_defaults', request['site_defaults'], request['builtin_defaults'], errors)
    check_secret_file_names(request.get('secret_file_names'), errors)
    secret_sources = SecretSources(request, errors)
    # Passwords written in clear where a reference belongs: refused, or accepted with a warning when opted in.
    literal_warnings = check_literal_secrets(request, secret_sources.inline, errors)
    connections = cluster_connections(request['clusters'], secrets_dir, errors)
    flow_warnings: List[str] = []
    planned = [plan_flow(index, given, request, connections, errors, flow_warnings) for index, given in enumerate(request['flows'])]
    planned_flows = [flow for flow in planned if flow is not None]
    check_unique_names(planned_flows, errors)
    check_offset_syncs_topics(planned_flows, errors)
    # A model with errors plans nothing: no connector of it may be deployed.
    here = [] if errors else [flow for flow in planned_flows if flow['deploy_here']]
    # The secrets of those connectors: resolved by the workers' provider, or put in (refused when neither can be).
    secrets = secret_sources.apply(here, connections, errors)
    if errors:
        here, secrets = [], {'inline_configs': {}, 'warnings': []}
    aliases_here = sorted({alias for flow in here for alias in (flow['source'], flow['target'])})
    summaries = {alias: cluster_summary(connections[alias], secrets_dir, request['clusters'][alias]) for alias in aliases_here}
    connectors = [connector for flow in here for connector in flow['connectors']]
    # The Connect clusters of those flows (play_hosts: the workers of the flows without connect_cluster).
    connect_clusters = connect_clusters_of(here, request.get('groups') or {}, request.get('play_hosts'))
    return {
        'errors': errors.messages,
        'warnings': (flow_warnings + identity_cycle_warnings(planned_flows) + literal_warnings + secrets['warnings']
                     + single_worker_warnings(connect_clusters)),
        'flows': here,
        'connectors': connectors,
        'desired_names': [connector['name'] for connector in connectors],
        'managed_pattern': '^%s.+-(%s)$' % (re.escape(request['connector_prefix']), '|'.join(CONNECTOR_KINDS)),
        'clusters': summaries,
        'endpoints': [dict(endpoint, alias=alias) for alias in aliases_here for endpoint in summaries[alias]['endpoints']],
        # What module kafka_broker_versions needs to ask each cluster's brokers for their release.
        'broker_probes': [broker_probe(alias, connections[alias]) for alias in aliases_here],
        'source_aliases': sorted({flow['source'] for flow in here}),
        # What the deployed configs read on the workers, and what the role's own Kafka tools read there.
        'secret_files': sorted({path for connector in connectors for path in connector['secret_files']}
                               | {path for summary in summaries.values() for path in secret_files_in(summary['client_properties'])}),
        'store_files': [dict(store, alias=alias) for alias in aliases_here for store in summaries[alias]['store_files']],
        'flows_elsewhere': ['%s (Connect cluster %s)' % (flow['name'], flow['connect_cluster'])
                            for flow in planned_flows if not flow['deploy_here']],
        'connect_clusters': connect_clusters,
        'inline_configs': secrets['inline_configs'],
    }
