# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kafka_dr.mm2.mm2_failover: arguments checked before any cluster is contacted, and the REST side on every
Kafka Connect version."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import pytest

from versioned_connect import UNPARSEABLE, VERSIONS, at_least

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
    """Connect REST statuses that move to STOPPED (or PAUSED) at the stop (or pause) request; a worker
    before 3.5 has no stop endpoint."""

    def __init__(self, states: Dict[str, Optional[str]], failed_task: Optional[str] = None, version: str = '3.9.1') -> None:
        self.states = states
        self.failed_task = failed_task
        self.version = version
        self.stopped: List[str] = []
        self.paused: List[str] = []
        self.info_reads = 0

    def worker_info(self) -> Dict[str, Any]:
        self.info_reads += 1
        return {'version': self.version, 'commit': 'abc'}

    def get_status(self, name: str) -> Optional[Dict[str, Any]]:
        state = self.states[name]
        if state is None:
            return None
        tasks = [{'id': 0, 'state': 'FAILED' if name == self.failed_task else state}]
        return {'connector': {'state': state}, 'tasks': [] if state == 'STOPPED' else tasks}

    def stop(self, name: str) -> None:
        if not at_least(self.version, (3, 5)):
            raise ConnectApiError(404, 'HTTP 404 Not Found', 'PUT', '/connectors/%s/stop' % name)
        self.stopped.append(name)
        self.states[name] = 'STOPPED'

    def pause(self, name: str) -> None:
        self.paused.append(name)
        self.states[name] = 'PAUSED'


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


@pytest.mark.parametrize('version', VERSIONS)
def test_stop_pauses_on_workers_before_35_reading_the_version_once(version: str) -> None:
    client = FakeClient({'a': 'RUNNING', 'b': 'RUNNING'}, version=version)
    connectors = mm2_failover.RestConnectors(client, ['a', 'b'], 5)
    assert connectors.stop() == ['a', 'b']
    degraded = connectors.degradations()
    if at_least(version, (3, 5)):
        assert client.stopped == ['a', 'b'] and client.paused == []
        assert connectors.halted_state() == 'STOPPED' and degraded == []
    else:
        assert client.paused == ['a', 'b'] and client.stopped == []
        assert connectors.halted_state() == 'PAUSED'
        assert degraded == [{'feature': 'stop', 'worker_version': version, 'instead': degraded[0]['instead']}]
        assert 'tasks assigned' in degraded[0]['instead']
        assert any('paused instead' in warning for warning in connectors.warnings())
    assert any('not an Apache Kafka version' in warning for warning in connectors.warnings()) is (version == UNPARSEABLE)
    assert client.info_reads == 1
    assert connectors.stop() == []  # halted already: nothing to do
    assert client.info_reads == 1


def test_pause_wait_gives_up_with_the_names_still_running(monkeypatch: pytest.MonkeyPatch) -> None:
    client = FakeClient({'a': 'RUNNING'}, version='2.4.1')
    client.pause = lambda name: None  # the worker never pauses it
    monkeypatch.setattr(mm2_failover.time, 'sleep', lambda seconds: None)
    clock = iter(range(0, 1000, 3))
    monkeypatch.setattr(mm2_failover.time, 'time', lambda: next(clock))
    with pytest.raises(ConnectApiError, match='still not paused after 5 s: a'):
        mm2_failover.RestConnectors(client, ['a'], 5).stop()


def test_no_connectors_no_version_read() -> None:
    client = FakeClient({}, version='2.4.1')
    connectors = mm2_failover.RestConnectors(client, [], 5)
    assert connectors.stop() == [] and connectors.degradations() == [] and connectors.warnings() == []
    assert client.info_reads == 0
