# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The action plugin kafka_dr.mm2.mm2_plan, run in process with a real Task: what a role's task gets back."""

from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, Optional

import pytest
import yaml
from ansible.errors import AnsibleActionFail
from ansible.parsing.dataloader import DataLoader
from ansible.playbook.block import Block
from ansible.playbook.play import Play
from ansible.playbook.play_context import PlayContext
from ansible.playbook.task import Task
from ansible.template import Templar

from ansible_collections.kafka_dr.mm2.plugins.action import mm2_plan as action_plugin

ROLE_DEFAULTS = yaml.safe_load(
    (Path(__file__).resolve().parents[4] / 'roles' / 'mirrormaker' / 'defaults' / 'main.yml').read_text())
CLUSTERS = {'src': {'bootstrap_servers': 'src-kafka-1:9092'}, 'dst': {'bootstrap_servers': ['dst-kafka-1:9092']}}
FLOWS = [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*']}]
TASK_VARS = {'inventory_hostname': 'task-1-1', 'groups': {'all': ['task-1-1'], 'connect_dr': ['task-2-1']}}


def run(args: Dict[str, Any], task_vars: Optional[Dict[str, Any]] = None, play_hosts: Optional[str] = None) -> Dict[str, Any]:
    loader = DataLoader()
    task = Task() if play_hosts is None else Task(block=Block(play=Play.load({'hosts': play_hosts, 'tasks': []}, loader=loader)))
    task.args = copy.deepcopy(args)
    connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir=None))
    action = action_plugin.ActionModule(task, connection, PlayContext(), loader, Templar(loader=loader))
    return action.run(task_vars=TASK_VARS if task_vars is None else task_vars)


def plan_args(**parts: Any) -> Dict[str, Any]:
    args = {'clusters': CLUSTERS, 'flows': FLOWS, 'builtin_defaults': ROLE_DEFAULTS['mirrormaker_flow_builtin_defaults']}
    args.update(parts)
    return args


def test_plan_returns_the_connectors_and_changes_nothing() -> None:
    result = run(plan_args())
    assert not result.get('failed') and result['changed'] is False
    assert result['errors'] == []
    assert result['desired_names'] == ['mm2-src-dst-source', 'mm2-src-dst-checkpoint', 'mm2-src-dst-heartbeat']
    assert result['connectors'][0]['config']['replication.policy.separator'] == '.'


def test_the_inventory_host_and_groups_decide_which_flows_are_planned_here() -> None:
    flows = FLOWS + [{'source': 'dst', 'target': 'src', 'connect_cluster': 'connect_dr'}]
    result = run(plan_args(flows=flows))
    assert [flow['name'] for flow in result['flows']] == ['src-dst']
    assert result['flows_elsewhere'] == ['dst-src (Connect cluster connect_dr)']
    # A flow without connect_cluster runs on the hosts of the play, whichever they are.
    on_dr = run(plan_args(flows=flows, deploy_host='task-2-1'))
    assert [flow['name'] for flow in on_dr['flows']] == ['src-dst', 'dst-src'] and on_dr['flows_elsewhere'] == []


def test_a_bad_model_fails_the_task_with_every_problem() -> None:
    result = run(plan_args(flows=[{'source': 'src', 'target': 'src'}, {'source': 'src', 'target': 'elsewhere'}]))
    assert result['failed'] is True
    assert result['msg'].startswith('the MirrorMaker 2 model is invalid; nothing was changed (2 problems):')
    assert 'source and target are the same cluster "src"' in result['msg']
    assert 'target "elsewhere" is not a cluster alias' in result['msg']
    assert len(result['errors']) == 2 and result['connectors'] == []


def test_model_warnings_become_task_warnings() -> None:
    flows = [{'source': 'src', 'target': 'dst', 'replication_policy': 'identity'},
             {'source': 'dst', 'target': 'src', 'replication_policy': 'identity'}]
    result = run(plan_args(flows=flows))
    assert not result.get('failed')
    assert len(result['warnings']) == 1 and 'cannot detect loops' in result['warnings'][0]


def test_a_connect_cluster_of_one_worker_is_a_task_warning() -> None:
    one_worker = dict(TASK_VARS, ansible_play_hosts_all=['task-1-1'])
    result = run(plan_args(), task_vars=one_worker)
    assert not result.get('failed')
    assert result['warnings'] == ["Connect cluster of the play's hosts has one worker, task-1-1: it is not highly available; "
                                  'while that worker is down, flow src-dst replicates nothing. Give it a second worker.']
    assert result['connect_clusters'] == [{'name': None, 'workers': ['task-1-1'], 'flows': ['src-dst']}]
    two_workers = dict(TASK_VARS, ansible_play_hosts_all=['task-1-1', 'task-1-2'])
    assert run(plan_args(), task_vars=two_workers)['warnings'] == []
    # play_hosts given to the task wins over the play's.
    assert run(plan_args(play_hosts=['task-1-1', 'task-1-2']), task_vars=one_worker)['warnings'] == []


def test_a_run_limited_to_a_new_worker_counts_the_cluster_it_joins() -> None:
    groups = {'all': ['task-1-1', 'task-1-2', 'task-1-3'], 'connect_workers': ['task-1-1', 'task-1-2', 'task-1-3']}
    limited = dict(TASK_VARS, groups=groups, ansible_play_hosts_all=['task-1-3'],
                   hostvars={'task-1-1': {'connect_worker_state': 'absent'}, 'task-1-2': {}, 'task-1-3': {}})
    result = run(plan_args(), task_vars=limited, play_hosts='connect_workers')
    assert result['warnings'] == []
    assert result['connect_clusters'][0]['workers'] == ['task-1-2', 'task-1-3']
    # The drained workers do not count: one left is a warning, whatever the limit.
    limited['hostvars']['task-1-2'] = {'connect_worker_state': 'absent'}
    result = run(plan_args(), task_vars=limited, play_hosts='connect_workers')
    assert result['connect_clusters'][0]['workers'] == ['task-1-3'] and len(result['warnings']) == 1
    # A pattern it does not resolve: the play's own hosts.
    assert run(plan_args(), task_vars=limited, play_hosts='connect_workers:!task-1-1')['connect_clusters'][0]['workers'] == ['task-1-3']


def test_expect_and_orphans_read_a_plan() -> None:
    planned = run(plan_args())
    expected = run({'operation': 'expect', 'plan': planned, 'topics': {'src': ['foo.orders', 'bar']}, 'timeout_seconds': 30})
    # Heartbeats are written on the source and replicated to the target (heartbeats_topic_location: source).
    assert expected['expected_topics'] == {
        'dst': ['src.checkpoints.internal', 'src.foo.orders', 'src.heartbeats'],
        'src': ['heartbeats', 'mm2-offset-syncs.dst.internal']}
    assert expected['timeouts'] == {'dst': 630, 'src': 30}
    assert expected['log_append_time_topics'] == {'dst': ['src.heartbeats']}
    assert expected['log_append_time_patterns'] == {'dst': r'src\.heartbeats'}
    mirror_source = {'config': {'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector'}}
    existing = {'mm2-src-dst-source': mirror_source, 'mm2-old-dst-source': mirror_source}
    assert run({'operation': 'orphans', 'plan': planned, 'existing': existing})['orphans'] == ['mm2-old-dst-source']


def test_describe_flow_fails_on_an_unknown_flow() -> None:
    result = run({'operation': 'describe_flow', 'flow': 'dst->src', 'clusters': CLUSTERS, 'flows': FLOWS})
    assert result['failed'] is True
    assert result['msg'].startswith('the MirrorMaker 2 flow cannot be described (1 problem):')
    described = run({'operation': 'describe_flow', 'flow': 'src->dst', 'clusters': CLUSTERS, 'flows': FLOWS})
    assert described['offset_syncs_topic'] == 'mm2-offset-syncs.dst.internal'


def test_log_append_time_lists_the_topics_to_alter() -> None:
    described = ('Topic: src.heartbeats\tTopicId: x\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: cleanup.policy=compact\n'
                 '\tTopic: src.heartbeats\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\n')
    result = run({'operation': 'log_append_time', 'wanted': {'dst': ['src.heartbeats']}, 'described': {'dst': described}})
    assert not result.get('failed') and result['changed'] is False
    assert result['to_alter'] == [{'alias': 'dst', 'topic': 'src.heartbeats'}] and result['absent'] == {}


@pytest.mark.parametrize(('args', 'message'), [
    ({'operation': 'plan', 'clusters': CLUSTERS}, 'missing: flows, builtin_defaults'),
    ({'operation': 'expect'}, 'missing: plan'),
    ({'operation': 'describe_flow', 'clusters': CLUSTERS, 'flows': FLOWS}, 'missing: flow'),
    ({'operation': 'log_append_time'}, 'missing: wanted'),
    ({'operation': 'deploy'}, 'value of operation must be one of'),
    ({'operation': 'plan', 'clusters': CLUSTERS, 'flows': FLOWS, 'builtin_defaults': {}, 'flow_default': {}},
     'Unsupported parameters'),
])
def test_task_arguments_are_checked_before_anything_runs(args: Dict[str, Any], message: str) -> None:
    with pytest.raises(AnsibleActionFail, match=message):
        run(args)


def test_a_bug_fails_cleanly_with_the_traceback_kept_for_verbose_output(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(request: Dict[str, Any]) -> Dict[str, Any]:
        raise KeyError('connectors')
    monkeypatch.setattr(action_plugin, 'plan', broken)
    result = run(plan_args())
    assert result['failed'] is True
    assert result['msg'] == "mm2_plan plan failed unexpectedly (a bug in the collection, not in the model): KeyError: 'connectors'"
    assert 'Traceback' in result['exception']


def test_failover_takes_the_flow_from_a_plan() -> None:
    planned = run(plan_args())
    result = run(plan_args(operation='failover', flow='src->dst', plan=planned))
    assert not result.get('failed') and result['changed'] is False
    assert result['flow_connectors'] == planned['desired_names']
    assert result['source_client']['bootstrap.servers'] == 'src-kafka-1:9092'
    refused = run(plan_args(operation='failover', flow='dst->src', plan=planned))
    assert refused['failed'] is True
    assert refused['msg'].startswith('the MirrorMaker 2 flow cannot be failed over; nothing was changed')


def test_readiness_takes_the_flow_from_a_plan() -> None:
    planned = run(plan_args())
    result = run(plan_args(operation='readiness', flow='src->dst', plan=planned))
    assert not result.get('failed'), result.get('msg')
    assert result['offset_syncs_topic'] == 'mm2-offset-syncs.dst.internal' and result['consumers'] == []
    refused = run(plan_args(operation='readiness', flow='dst->src', plan=planned))
    assert refused['failed'] and refused['msg'].startswith('the readiness of the MirrorMaker 2 flow cannot be checked')
