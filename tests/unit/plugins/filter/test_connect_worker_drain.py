# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Workers that leave (connect_worker_state absent): which workers remain, whether the drain may go on, where it
asks the Connect cluster, which systemd calls it makes, and what the cluster still gives to the drained worker."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.connect_worker_assignments import connect_worker_assignments
from ansible_collections.kafka_dr.mm2.plugins.filter.connect_worker_drain import connect_worker_drain
from ansible_collections.kafka_dr.mm2.plugins.filter.connect_workers_present import connect_workers_present
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.connect_worker_scale import PEER_SETTINGS

ROLE = Path(__file__).resolve().parents[4] / 'roles' / 'connect_worker'
PEER_DEFAULTS = {'connect_worker_state': 'present', 'connect_worker_cluster_name': 'mm2', 'connect_worker_rest_scheme': 'http',
                 'connect_worker_rest_port': 8083, 'connect_worker_properties': {}}
RUNNING = {'active.kafka-connect': 'active', 'enabled.kafka-connect': 'enabled',
           'active.kafka-connect-watchdog': 'active', 'enabled.kafka-connect-watchdog': 'enabled'}
STOPPED = {'active.kafka-connect': 'inactive', 'enabled.kafka-connect': 'disabled',
           'active.kafka-connect-watchdog': 'inactive', 'enabled.kafka-connect-watchdog': 'disabled'}


def drain_input(host: str = 'c3', **overrides: Any) -> Dict[str, Any]:
    settings: Dict[str, Any] = {
        'host': host, 'hosts': ['c1', 'c2', 'c3'], 'group': 'connect_workers', 'cluster_name': 'mm2', 'rest_scheme': 'http',
        'rest_port': 8083, 'rest_advertised_host': host, 'properties': {}, 'peer_defaults': PEER_DEFAULTS,
        'host_state': RUNNING, 'service': 'kafka-connect', 'watchdog_service': 'kafka-connect-watchdog',
    }
    settings.update(overrides)
    return settings


def test_the_other_workers_of_the_cluster_remain_and_are_asked_by_their_advertised_names() -> None:
    hostvars = {'c1': {'connect_worker_rest_advertised_host': 'connect-1.example.com'},
                'c2': {'connect_worker_rest_port': 8443, 'connect_worker_rest_scheme': 'https',
                       'connect_worker_properties': {'rest.advertised.host.name': 'connect-2.example.com'}},
                'c3': {'connect_worker_state': 'absent'}}
    plan = connect_worker_drain(drain_input(), hostvars)
    assert plan['errors'] == []
    assert plan['cluster'] == 'mm2'
    assert plan['remaining'] == ['c1', 'c2']
    assert plan['urls'] == ['http://connect-1.example.com:8083', 'https://connect-2.example.com:8443']
    assert plan['worker_id'] == 'c3:8083'


def test_workers_of_another_connect_cluster_do_not_count() -> None:
    hostvars = {'c1': {'connect_worker_cluster_name': 'other'}, 'c2': {'connect_worker_cluster_name': 'other'}}
    plan = connect_worker_drain(drain_input(), hostvars)
    assert plan['remaining'] == []
    assert plan['errors'] == [
        "connect_worker: c3 is the last worker of Connect cluster 'mm2' (no other host of group connect_workers has that "
        'connect_worker_cluster_name); draining it would stop every connector and task of the cluster. Keep '
        'connect_worker_state present on one of its workers, or add a worker first. Nothing was changed.']


def test_the_last_worker_is_refused_when_the_others_are_drained_too() -> None:
    hostvars = {name: {'connect_worker_state': 'absent'} for name in ('c1', 'c2', 'c3')}
    for host in ('c1', 'c2', 'c3'):
        plan = connect_worker_drain(drain_input(host), hostvars)
        others = ', '.join(name for name in ('c1', 'c2', 'c3') if name != host)
        assert len(plan['errors']) == 1
        assert "%s is the last worker of Connect cluster 'mm2'" % host in plan['errors'][0]
        assert 'the other workers of that cluster (%s) are drained too' % others in plan['errors'][0]


def test_the_peers_settings_fall_back_to_the_role_defaults() -> None:
    """hostvars hold the inventory's values only; a peer without any is a worker of the default cluster 'mm2'."""
    plan = connect_worker_drain(drain_input(hosts=['c3', 'c4', 'c4']), {})
    assert plan['remaining'] == ['c4']
    assert plan['urls'] == ['http://c4:8083']
    other_default = dict(PEER_DEFAULTS, connect_worker_cluster_name='dr')
    assert connect_worker_drain(drain_input(hosts=['c3', 'c4'], peer_defaults=other_default), {})['remaining'] == []


def test_this_workers_id_follows_its_advertised_settings() -> None:
    plan = connect_worker_drain(drain_input(rest_advertised_host='connect-3.example.com',
                                            properties={'rest.advertised.port': '9083'}), {})
    assert plan['worker_id'] == 'connect-3.example.com:9083'


@pytest.mark.parametrize('state, steps', [
    (RUNNING, {'worker_installed': True, 'stop_worker': True, 'disable_worker': True,
               'watchdog_installed': True, 'stop_watchdog': True, 'disable_watchdog': True}),
    (STOPPED, {'worker_installed': True, 'stop_worker': False, 'disable_worker': False,
               'watchdog_installed': True, 'stop_watchdog': False, 'disable_watchdog': False}),
    # A worker that was stopped by hand but still starts at boot; a watchdog that was never installed.
    ({'active.kafka-connect': 'failed', 'enabled.kafka-connect': 'enabled',
      'active.kafka-connect-watchdog': 'inactive', 'enabled.kafka-connect-watchdog': 'not-found'},
     {'worker_installed': True, 'stop_worker': False, 'disable_worker': True,
      'watchdog_installed': False, 'stop_watchdog': False, 'disable_watchdog': False}),
    # A host that never ran a worker (older systemd prints nothing for a unit it does not know).
    ({'active.kafka-connect': 'inactive', 'enabled.kafka-connect': '',
      'active.kafka-connect-watchdog': 'inactive', 'enabled.kafka-connect-watchdog': ''},
     {'worker_installed': False, 'stop_worker': False, 'disable_worker': False,
      'watchdog_installed': False, 'stop_watchdog': False, 'disable_watchdog': False}),
], ids=['running', 'drained before', 'stopped by hand', 'never installed'])
def test_only_the_systemd_calls_that_change_something(state: Dict[str, str], steps: Dict[str, bool]) -> None:
    plan = connect_worker_drain(drain_input(host_state=state), {})
    assert {key: plan[key] for key in steps} == steps


@pytest.mark.parametrize('drain, hostvars, message', [
    (drain_input(hosts='c1'), {}, 'list of host names'),
    (drain_input(), {'c1': {'connect_worker_state': 'stopped'}}, "connect_worker_state of c1 must be present or absent, got 'stopped'"),
    (drain_input(host_state={'active.kafka-connect': 'active'}), {}, 'the host state has no enabled.kafka-connect'),
    ({'host': 'c3'}, {}, 'connect_worker_drain is missing hosts'),
    (drain_input(peer_defaults={}), {}, 'peer_defaults is missing connect_worker_state'),
    (drain_input(properties=''), {}, 'connect_worker_properties must be a mapping'),
])
def test_bad_input_is_refused(drain: Dict[str, Any], hostvars: Dict[str, Any], message: str) -> None:
    with pytest.raises(AnsibleFilterError, match=message):
        connect_worker_drain(drain, hostvars)


def test_the_peer_defaults_are_the_role_defaults() -> None:
    """vars/main.yml repeats defaults/main.yml for the hosts whose hostvars do not set these."""
    defaults = yaml.safe_load((ROLE / 'defaults' / 'main.yml').read_text(encoding='utf-8'))
    role_vars = yaml.safe_load((ROLE / 'vars' / 'main.yml').read_text(encoding='utf-8'))
    peer_defaults = role_vars['__connect_worker_peer_defaults']
    assert sorted(peer_defaults) == sorted(PEER_SETTINGS)
    assert peer_defaults == {name: defaults[name] for name in PEER_SETTINGS}


STATUSES = {
    'mm2-msc': {'name': 'mm2-msc', 'status': {
        'connector': {'state': 'RUNNING', 'worker_id': 'c1:8083'},
        'tasks': [{'id': 0, 'state': 'RUNNING', 'worker_id': 'c3:8083'}, {'id': 1, 'state': 'UNASSIGNED', 'worker_id': 'c3:8083'},
                  {'id': 2, 'state': 'RUNNING', 'worker_id': 'c2:8083'}]}},
    'mm2-cpc': {'name': 'mm2-cpc', 'status': {'connector': {'state': 'RUNNING', 'worker_id': 'c3:8083'}, 'tasks': []}},
    'mm2-hbc': {'name': 'mm2-hbc', 'status': {'connector': {'state': 'RUNNING', 'worker_id': 'c2:8083'},
                                              'tasks': [{'id': 0, 'state': 'RUNNING', 'worker_id': 'c1:8083'}]}},
}


def test_assignments_still_on_the_drained_worker_unassigned_ones_included() -> None:
    assert connect_worker_assignments(STATUSES, 'c3:8083') == [
        'connector mm2-cpc (RUNNING)', 'task mm2-msc-0 (RUNNING)', 'task mm2-msc-1 (UNASSIGNED)']


def test_nothing_left_once_the_cluster_moved_the_work() -> None:
    assert connect_worker_assignments(STATUSES, 'c4:8083') == []
    assert connect_worker_assignments({}, 'c3:8083') == []
    # A connector without a status yet (just created) holds nothing.
    assert connect_worker_assignments({'new': {'name': 'new', 'status': {}}}, 'c3:8083') == []


@pytest.mark.parametrize('connectors, worker, message', [
    ([], 'c3:8083', 'expects the connectors of module connector_info'),
    ({}, ' ', 'needs the worker_id'),
])
def test_assignments_refuse_bad_input(connectors: Any, worker: str, message: str) -> None:
    with pytest.raises(AnsibleFilterError, match=message):
        connect_worker_assignments(connectors, worker)


def test_present_workers_leave_out_the_drained_ones_in_order() -> None:
    hostvars = {'c1': {'connect_worker_state': 'absent'}, 'c2': {}, 'c3': {'connect_worker_state': 'present'}}
    assert connect_workers_present(['c3', 'c1', 'c2', 'c3', 'c4'], hostvars) == ['c3', 'c2', 'c4']
    with pytest.raises(AnsibleFilterError, match="connect_worker_state of c2 must be present or absent, got 'off'"):
        connect_workers_present(['c2'], {'c2': {'connect_worker_state': 'off'}})
    with pytest.raises(AnsibleFilterError, match='list of host names'):
        connect_workers_present('c1', hostvars)
