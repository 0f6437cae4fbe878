# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kafka_dr.mm2.mm2_failover: arguments checked before any cluster is contacted, and the REST side."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_client import ConnectApiError
from ansible_collections.kafka_dr.mm2.plugins.modules import mm2_failover


def params(**changes: Any) -> Dict[str, Any]:
    values = {name: spec.get('default') for name, spec in mm2_failover.argument_spec().items()}
    values.update(mode='planned', source_alias='src', target_alias='dst', groups=['app'],
                  source_client={'bootstrap.servers': 'src:9092'}, target_client={'bootstrap.servers': 'dst:9092'})
    values.update(changes)
    return values


def test_good_arguments_pass() -> None:
    assert mm2_failover.input_errors(params()) == []
    assert mm2_failover.input_errors(params(mode='unplanned', source_client=None)) == []


@pytest.mark.parametrize(('changes', 'message'), [
    ({'source_client': None}, 'mode planned needs source_client'),
    ({'groups': [], 'groups_regex': ''}, 'name the groups to fail over'),
    ({'groups_regex': 'app('}, 'groups_regex is not a regular expression'),
    ({'target_client': {'security.protocol': 'SSL'}}, 'target_client has no bootstrap.servers'),
])
def test_bad_arguments_are_named(changes: Dict[str, Any], message: str) -> None:
    assert any(message in error for error in mm2_failover.input_errors(params(**changes)))


def test_the_request_names_topics_and_checkpoints_after_the_flow() -> None:
    request = mm2_failover.build_request(params(separator='_'), check_mode=True)
    assert request.checkpoints_topic == 'src_checkpoints_internal'
    assert request.remote_topic('orders') == 'src_orders' and request.check_mode


class FakeClient:
    """Connect REST statuses that move to STOPPED one poll after the stop request."""

    def __init__(self, states: Dict[str, Optional[str]], failed_task: Optional[str] = None) -> None:
        self.states = states
        self.failed_task = failed_task
        self.stopped: List[str] = []

    def get_status(self, name: str) -> Optional[Dict[str, Any]]:
        state = self.states[name]
        if state is None:
            return None
        tasks = [{'id': 0, 'state': 'FAILED' if name == self.failed_task else 'RUNNING'}]
        return {'connector': {'state': state}, 'tasks': [] if state == 'STOPPED' else tasks}

    def stop(self, name: str) -> None:
        self.stopped.append(name)
        self.states[name] = 'STOPPED'


def test_connector_states_name_a_failed_task_and_a_missing_connector() -> None:
    client = FakeClient({'a': 'RUNNING', 'b': None, 'c': 'RUNNING'}, failed_task='c')
    states = mm2_failover.RestConnectors(client, ['a', 'b', 'c'], 5).states()
    assert states == {'a': 'RUNNING', 'b': 'absent', 'c': 'RUNNING with task 0 not running'}


def test_stop_stops_what_runs_and_waits_for_stopped() -> None:
    client = FakeClient({'a': 'RUNNING', 'b': 'STOPPED', 'c': 'FAILED'})
    assert mm2_failover.RestConnectors(client, ['a', 'b', 'c'], 5).stop() == ['a', 'c']
    assert client.stopped == ['a', 'c']


def test_stop_gives_up_with_the_names_still_running(monkeypatch: pytest.MonkeyPatch) -> None:
    client = FakeClient({'a': 'RUNNING'})
    client.stop = lambda name: None  # the worker never stops it
    monkeypatch.setattr(mm2_failover.time, 'sleep', lambda seconds: None)
    clock = iter(range(0, 1000, 3))
    monkeypatch.setattr(mm2_failover.time, 'time', lambda: next(clock))
    with pytest.raises(ConnectApiError, match='still not stopped after 5 s: a'):
        mm2_failover.RestConnectors(client, ['a'], 5).stop()


def test_return_to_origin_needs_the_default_policy_and_planned_mode() -> None:
    errors = mm2_failover.input_errors(params(return_to_origin=True, replication_policy='identity'))
    assert any('needs the default replication policy' in error for error in errors)
    errors = mm2_failover.input_errors(params(return_to_origin=True, mode='unplanned'))
    assert any('needs mode planned' in error for error in errors)
    request = mm2_failover.build_request(params(return_to_origin=True), check_mode=False)
    assert request.origin_topic('dst.orders') == 'orders' and request.origin_topic('src.orders') is None
