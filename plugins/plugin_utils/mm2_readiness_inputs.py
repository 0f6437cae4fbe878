# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the readiness check of one flow needs, taken from the MirrorMaker 2 model and its plan.

readiness_inputs(request) takes what failover_inputs takes (flow, clusters, flows, site_defaults,
builtin_defaults, plan) and returns errors, or everything failover_inputs returns plus: the
offset-syncs topic and the cluster holding it, the group filter MM2 runs with (the checkpoint
connector's groups and groups.exclude, MM2's default exclusions when unset), the source
connector's offset.lag.max, and the flow's application principals (consumers, producers).
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


def split_list(value: Any) -> List[str]:
    """A Connect LIST value: comma-separated, items trimmed, empty ones dropped."""
    return [item.strip() for item in str(value).split(',') if item.strip()]


def connector_config(flow: Mapping[str, Any], kind: str) -> Dict[str, str]:
    return next((dict(connector['config']) for connector in flow['connectors'] if connector['kind'] == kind), {})


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
    return dict(
        answer,
        offset_syncs_topic=described['offset_syncs_topic'],
        offset_syncs_location=described['offset_syncs_location'],
        groups=split_list(checkpoint.get('groups', '.*')),
        groups_exclude=split_list(checkpoint[exclude_key]) if exclude_key else list(MM2_DEFAULT_GROUPS_EXCLUDE),
        offset_lag_max=int(lag) if lag.isdigit() else MM2_DEFAULT_OFFSET_LAG_MAX,
        consumers=principals['consumers'],
        producers=principals['producers'],
    )
