# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the readiness check of one flow takes from the model: the failover's inputs, the offset syncs, the
group filter and offset.lag.max MM2 runs with, and the flow's application principals (checked by the plan)."""

from __future__ import annotations

from typing import Any, Callable, Dict

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_plan import plan
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_readiness_inputs import readiness_inputs


def inputs(make_request: Callable[..., Dict[str, Any]], flow: str = 'src->dst', **parts: Any) -> Dict[str, Any]:
    request = make_request(**parts)
    return readiness_inputs(dict(request, flow=flow, plan=plan(request)))


def test_the_flows_defaults_give_mm2s_own_filter_and_no_principals(make_request: Callable[..., Dict[str, Any]]) -> None:
    answer = inputs(make_request)
    assert answer['errors'] == []
    assert (answer['offset_syncs_topic'], answer['offset_syncs_location']) == ('mm2-offset-syncs.dst.internal', 'source')
    assert answer['groups'] == ['.*'] and answer['groups_exclude'] == ['console-consumer-.*', 'connect-.*', '__.*']
    assert answer['offset_lag_max'] == 100 and answer['consumers'] == [] and answer['producers'] == []
    assert answer['checkpoints_topic'] == 'src.checkpoints.internal' and answer['source_client']['bootstrap.servers']


def test_the_flows_options_are_what_mm2_runs_with(make_request: Callable[..., Dict[str, Any]]) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*'], 'groups': ['app-.*', 'orders'],
              'groups_exclude': ['app-test'], 'offset_lag_max': 10, 'offset_syncs_topic_location': 'target',
              'consumers': ['User:app', {'principal': 'User:b', 'groups': ['b-1']}],
              'producers': [{'principal': 'User:w', 'transactional_ids': ['w-tx']}]}]
    answer = inputs(make_request, flows=flows)
    assert answer['errors'] == []
    assert answer['groups'] == ['app-.*', 'orders'] and answer['groups_exclude'] == ['app-test']
    assert answer['offset_lag_max'] == 10
    assert (answer['offset_syncs_topic'], answer['offset_syncs_location']) == ('mm2-offset-syncs.src.internal', 'target')
    assert answer['consumers'] == [{'principal': 'User:app', 'groups': []}, {'principal': 'User:b', 'groups': ['b-1']}]
    assert answer['producers'] == [{'principal': 'User:w', 'transactional_ids': ['w-tx']}]


def test_extra_config_decides_the_lag(make_request: Callable[..., Dict[str, Any]]) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*'], 'extra_config': {'source': {'offset.lag.max': 7}}}]
    answer = inputs(make_request, flows=flows)
    assert answer['errors'] == [] and answer['offset_lag_max'] == 7


def test_bad_principals_are_refused_by_the_plan(plan_errors: Callable[..., str]) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*'],
              'consumers': ['app', {'principal': 'User:x', 'group': ['g']}, 5],
              'producers': 'User:w'}]
    errors = plan_errors(flows=flows)
    assert 'consumers[0]: principal must be Type:name, for example User:app' in errors
    assert "consumers[1]: unknown key(s) group; known: principal, groups" in errors
    assert 'consumers[2] must be a principal or a mapping' in errors
    assert 'producers must be a list of principals' in errors


def test_an_unknown_flow_is_an_error(make_request: Callable[..., Dict[str, Any]]) -> None:
    assert 'no flow of mm2_flows' in inputs(make_request, flow='src->nowhere')['errors'][0]
