# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a failover of one flow needs, taken from the MirrorMaker 2 model and its plan.

failover_inputs(request) takes

    flow ("<source>-><target>" or the flow's name), clusters, flows, site_defaults,
    builtin_defaults, plan (the answer of plan() for the play's Connect cluster)

and returns errors, or the flow's aliases, the connection settings of MM2's own clients
for each side (the `source.cluster.*` and `target.cluster.*` settings of its source
connector, secrets still as ${file:...} placeholders that the workers resolve), the
names of the flow's connectors, its topics as one regular expression, its naming and
its checkpoints topic.

reverse_flow(request) takes flow and flows and returns the flow that copies back what the
target cluster wrote while it was the primary: source and target swapped, the same topic
patterns, groups and options. Under the default replication policy its remote topics are
distinct (`<target>.<topic>` on the old source) and MM2 does not copy the old source's own
topics back, so nothing loops and nothing is duplicated.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_common import ModelErrors
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_describe import FLOW_ARROW, describe_flow, find_flow

ALIAS_KEY = 'alias'


def cluster_client(config: Mapping[str, str], side: str) -> Dict[str, str]:
    """The `<side>.cluster.*` connection settings of a connector config, without the prefix and the alias."""
    prefix = '%s.cluster.' % side
    return {key[len(prefix):]: value for key, value in config.items()
            if key.startswith(prefix) and key[len(prefix):] != ALIAS_KEY}


def planned_flow(plan: Mapping[str, Any], name: str) -> Optional[Mapping[str, Any]]:
    return next((flow for flow in plan.get('flows') or [] if flow.get('name') == name), None)


def failover_inputs(request: Mapping[str, Any]) -> Dict[str, Any]:
    described = describe_flow(request)
    if described['errors']:
        return {'errors': described['errors']}
    flow = planned_flow(request.get('plan') or {}, described['name'])
    if flow is None:
        elsewhere = ', '.join((request.get('plan') or {}).get('flows_elsewhere') or []) or 'none'
        return {'errors': ['flow %s is not run by the Connect cluster of this play (flows of other Connect clusters: %s); '
                           'run the failover on the workers that run it' % (request['flow'], elsewhere)]}
    source_config = next(connector['config'] for connector in flow['connectors'] if connector['kind'] == 'source')
    return {
        'errors': [],
        'name': described['name'],
        'source_alias': described['source_alias'],
        'target_alias': described['target_alias'],
        'source_client': cluster_client(source_config, 'source'),
        'target_client': cluster_client(source_config, 'target'),
        'flow_connectors': [connector['name'] for connector in flow['connectors']],
        'topics_regex': described['topics_regex'],
        'replication_policy': described['replication_policy'],
        'separator': described['separator'],
        'checkpoints_topic': described['checkpoints_topic'],
    }


# Options of a flow that belong to one direction only and are not carried over to its reverse.
ONE_WAY_OPTIONS = ('source', 'target', 'name')
REVERSE_SUFFIX = '-back'


def reverse_flow(request: Mapping[str, Any]) -> Dict[str, Any]:
    errors = ModelErrors()
    flows = request.get('flows') or []
    flow = find_flow(str(request['flow']), flows, errors)
    if flow is None:
        return {'errors': errors.messages}
    if str(flow.get('replication_policy', 'default')) == 'identity':
        return {'errors': ['flow %s keeps topic names (identity policy): its reverse would loop; fail back with a '
                           'flow of your own' % request['flow']]}
    reverse = {key: value for key, value in flow.items() if key not in ONE_WAY_OPTIONS}
    reverse.update(source=flow['target'], target=flow['source'])
    if flow.get('name'):
        reverse['name'] = str(flow['name']) + REVERSE_SUFFIX
    existing = [given for given in flows if (given.get('source'), given.get('target')) == (flow['target'], flow['source'])]
    return {'errors': [], 'reverse_flow': existing[0] if existing else reverse, 'declared': bool(existing),
            'reference': '%s%s%s' % (flow['target'], FLOW_ARROW, flow['source'])}
