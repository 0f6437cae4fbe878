# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One flow of the MirrorMaker 2 model seen from outside MM2: the clusters, topics and names a
tool needs to check that flow's replication (the replication_check role's inputs).

describe_flow(request) takes

    flow ("<source>-><target>", or the flow's name), clusters, flows, site_defaults,
    builtin_defaults (optional: MM2's own defaults apply)

and returns errors, or the flow's source/target aliases and bootstrap servers, a regular
expression of the source topics it replicates, its replication policy and separator, and
the names and place of its checkpoints, offset-syncs and heartbeats topics (the heartbeats of a
flow with heartbeats_topic_location source are written on the source and replicated to the
target as remote_heartbeats_topic; with target, on the target, and nothing replicates them),
and whether the flow delivers exactly once (exactly_once), which decides how duplicates are judged.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_clusters import check_bootstrap
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_common import ModelErrors, as_bool, deep_merge
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_connectors import apply_extra_config, naming_settings
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_expect import MM2_DEFAULT_TOPICS_EXCLUDE
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_flows import (
    TOPIC_PATTERN_OPTIONS,
    check_choices,
    check_endpoints,
    check_extra_config,
    check_patterns,
    effective_flow,
    flow_name,
    heartbeats_alias,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_naming import (
    OFFSET_SYNCS_LOCATION_KEY,
    OFFSET_SYNCS_LOCATIONS,
    SOURCE_ALIAS_KEY,
    ReplicationNaming,
)

# Defaults of the options that decide names and topics (MM2's own, which the mirrormaker role's
# built-in flow defaults keep, but for the heartbeats' place): used when no built-in defaults are given.
MM2_FLOW_DEFAULTS: Dict[str, Any] = {
    'topics': ['.*'],
    'topics_exclude': None,
    'replication_policy': 'default',
    'separator': '.',
    'offset_syncs_topic_location': 'source',
    # Not MM2's own (it writes heartbeats to the target): the role's, so that flows it deployed are described as they run.
    'heartbeats_topic_location': 'source',
    # Decides how a check judges duplicates: MM2 delivers at least once unless told otherwise.
    'exactly_once': False,
}
EXACTLY_ONCE_SUPPORT_KEY = 'exactly.once.support'


def delivers_exactly_once(flow: Mapping[str, Any], source_extra: Mapping[str, Any]) -> bool:
    """Whether the flow's source connector runs with exactly-once support (KIP-618): the flow's
    exactly_once option, unless its source connector's extra_config sets exactly.once.support, which
    then decides (requested may fall back to at-least-once, so only required counts)."""
    if EXACTLY_ONCE_SUPPORT_KEY in source_extra:
        return str(source_extra[EXACTLY_ONCE_SUPPORT_KEY]).strip().lower() == 'required'
    return as_bool(flow.get('exactly_once')) is True


FLOW_ARROW = '->'


def flow_endpoints(flow: Mapping[str, Any]) -> Tuple[str, str]:
    return str(flow.get('source')), str(flow.get('target'))


def find_flow(reference: str, flows: Sequence[Mapping[str, Any]], errors: ModelErrors) -> Optional[Mapping[str, Any]]:
    """The flow `reference` names: "<source>-><target>", or a flow's name (its connectors' middle part)."""
    where = 'flow %s' % reference
    if FLOW_ARROW in reference:
        source, _arrow, target = reference.partition(FLOW_ARROW)
        matches = [flow for flow in flows if flow_endpoints(flow) == (source.strip(), target.strip())]
    else:
        matches = [flow for flow in flows if flow_name(flow) == reference.strip()]
    if not matches:
        known = ', '.join('%s->%s (%s)' % (flow_endpoints(flow) + (flow_name(flow),)) for flow in flows) or 'none'
        errors.add(where, 'no flow of mm2_flows is "<source>-><target>" or named so (flows: %s)' % known)
        return None
    if len(matches) > 1:
        errors.add(where, '%d flows replicate between these clusters (%s); name one by its name'
                   % (len(matches), ', '.join(flow_name(flow) for flow in matches)))
        return None
    return matches[0]


def connector_naming(where: str, flow: Mapping[str, Any], kind: str, extra: Mapping[str, Any],
                     errors: ModelErrors) -> Optional[ReplicationNaming]:
    """The naming one connector of the flow configures (its extra_config may override the policy)."""
    config = dict(naming_settings(flow), **{SOURCE_ALIAS_KEY: str(flow['source'])})
    config = apply_extra_config(where, kind, config, extra, errors)
    naming = ReplicationNaming.from_config(config)
    if naming is None:
        errors.add(where, 'uses the custom replication policy %s: its topic names cannot be derived; give the names '
                   'explicitly instead of the flow' % config.get('replication.policy.class'))
    return naming


def topics_regex(include: List[str], exclude: Optional[List[str]], naming: ReplicationNaming, target_alias: str) -> str:
    """One regular expression (matched against whole names) of the source topics the flow replicates:
    its topics, minus its excludes (MM2's default ones when unset), internal topics and, under the
    default policy, topics that came from the target (MM2 never sends them back)."""
    excluded = list(MM2_DEFAULT_TOPICS_EXCLUDE if exclude is None else exclude)
    excluded += ['__.*', r'\..*', r'.*\.internal', '.*-internal', '.*' + re.escape(naming.internal_separator + 'internal')]
    if not naming.identity:
        separator = re.escape(naming.separator)
        excluded.append('(?:.*%s)?%s%s.*' % (separator, re.escape(target_alias), separator))
    return r'(?!(?:%s)\Z)(?:%s)' % ('|'.join(excluded), '|'.join(include))


def cluster_bootstrap(where: str, alias: str, clusters: Mapping[str, Any], errors: ModelErrors) -> str:
    cluster = clusters.get(alias)
    if not isinstance(cluster, Mapping):
        errors.add(where, 'cluster %s must be a mapping with at least bootstrap_servers' % alias)
        return ''
    return ','.join(check_bootstrap('cluster %s' % alias, cluster, errors))


def describe_flow(request: Mapping[str, Any]) -> Dict[str, Any]:
    errors = ModelErrors()
    clusters, flows = request.get('clusters'), request.get('flows')
    if not isinstance(clusters, Mapping):
        errors.add('mm2_clusters', 'must be a mapping of cluster alias to connection settings')
    if not isinstance(flows, list) or not all(isinstance(flow, Mapping) for flow in flows):
        errors.add('mm2_flows', 'must be a list of flows (mappings)')
    if errors:
        return {'errors': errors.messages}
    given = find_flow(str(request.get('flow') or ''), flows, errors)
    if given is None:
        return {'errors': errors.messages}
    defaults = deep_merge(MM2_FLOW_DEFAULTS, request.get('builtin_defaults') or {})
    flow = effective_flow(given, defaults, request.get('site_defaults') or {})
    where = 'flow %s -> %s' % flow_endpoints(flow)
    check_endpoints(where, flow, clusters, errors)
    check_choices(where, flow, errors)
    patterns = check_patterns(where, flow, errors, TOPIC_PATTERN_OPTIONS)
    extra = check_extra_config(where, flow, errors)
    if errors:
        return {'errors': errors.messages}
    source, target = flow_endpoints(flow)
    bootstrap = {alias: cluster_bootstrap(where, alias, clusters, errors) for alias in (source, target)}
    naming = connector_naming(where, flow, 'source', extra['source'], errors)
    checkpoint_naming = connector_naming(where, flow, 'checkpoint', extra['checkpoint'], errors)
    location = str(extra['source'].get(OFFSET_SYNCS_LOCATION_KEY) or flow['offset_syncs_topic_location']).strip()
    if location not in OFFSET_SYNCS_LOCATIONS:
        errors.add(where, 'extra_config.source sets %s to %r; MM2 knows source and target' % (OFFSET_SYNCS_LOCATION_KEY, location))
    if errors or naming is None or checkpoint_naming is None:
        return {'errors': errors.messages}
    offset_syncs_alias, offset_syncs_topic = naming.offset_syncs_placement(source, target, location)
    regex = topics_regex(patterns['topics'] or [], patterns['topics_exclude'], naming, target)
    try:
        re.compile(regex)
    except re.error as exc:
        return {'errors': ['%s: its topic patterns do not combine into one regular expression: %s' % (where, exc)]}
    return {
        'errors': [],
        'name': flow_name(flow),
        'source_alias': source,
        'target_alias': target,
        'source_bootstrap': bootstrap[source],
        'target_bootstrap': bootstrap[target],
        'topics_regex': regex,
        'replication_policy': naming.policy,
        'separator': naming.separator,
        'checkpoints_topic': checkpoint_naming.checkpoints_topic(source),
        'offset_syncs_location': location,
        'offset_syncs_topic': offset_syncs_topic,
        'offset_syncs_bootstrap': bootstrap[offset_syncs_alias],
        'heartbeats_topic': naming.heartbeats_topic,
        'heartbeats_location': str(flow['heartbeats_topic_location']),
        'heartbeats_alias': heartbeats_alias(flow),
        'remote_heartbeats_topic': naming.remote_heartbeats_topic(source),
        'exactly_once': delivers_exactly_once(flow, extra['source']),
    }
