# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Module kafka_acl run for real against a fake kafka-run that keeps ACLs in a file."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any, Dict, List

import pytest

from fake_cluster import FakeCluster

MM2_READ = {'principal': 'User:mm2', 'resource_type': 'topic', 'name': '*', 'operations': ['Read', 'Describe']}
MM2_GROUP = {'principal': 'User:mm2', 'resource_type': 'group', 'name': '*', 'operations': ['Read', 'Describe']}
MM2_CLUSTER = {'principal': 'User:mm2', 'resource_type': 'cluster', 'operations': ['Describe']}
MM2_REMOTE = {'principal': 'User:mm2', 'resource_type': 'topic', 'name': 'src.', 'pattern_type': 'prefixed',
              'operations': ['Create', 'Write', 'DescribeConfigs']}
ERROR_LISTING = (
    'Error while executing ACL command: org.apache.kafka.common.errors.SecurityDisabledException: '
    'No Authorizer is configured.\n'
    'java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.SecurityDisabledException: '
    'No Authorizer is configured.\n'
    '\tat java.base/java.util.concurrent.CompletableFuture.reportGet(CompletableFuture.java:396)\n'
    'Caused by: org.apache.kafka.common.errors.SecurityDisabledException: No Authorizer is configured.\n'
)


def run_acl(run_module: Any, cluster: FakeCluster, tmp_path: Path, bindings: List[Dict[str, Any]],
            **options: Any) -> Dict[str, Any]:
    args = {'bootstrap_server': 'kafka-1:9095', 'command_config': '/etc/kafka/broker/admin-client.properties',
            'kafka_run': str(cluster.kafka_run), 'state_file': str(tmp_path / 'state' / 'acl-bindings.json'),
            'bindings': bindings}
    modes = {mode: options.pop(mode) for mode in ('check_mode', 'diff') if mode in options}
    args.update(options)
    return run_module('kafka_acl', **modes, **args)


def actions(cluster: FakeCluster) -> List[str]:
    return [next(arg for arg in call if arg in ('--list', '--add', '--remove')) for call in cluster.calls()]


def recorded(tmp_path: Path) -> List[Dict[str, str]]:
    return json.loads((tmp_path / 'state' / 'acl-bindings.json').read_text())['bindings']


def test_missing_bindings_are_added_and_operations_grouped(run_module: Any, cluster: FakeCluster,
                                                           tmp_path: Path) -> None:
    result = run_acl(run_module, cluster, tmp_path, [MM2_READ, MM2_GROUP, MM2_CLUSTER, MM2_REMOTE])

    assert result['changed'] is True, result
    assert len(result['added']) == 8 and result['removed'] == []
    assert ['TOPIC', '*', 'LITERAL', 'User:mm2', '*', 'READ', 'ALLOW'] in cluster.acls()
    assert ['CLUSTER', 'kafka-cluster', 'LITERAL', 'User:mm2', '*', 'DESCRIBE', 'ALLOW'] in cluster.acls()
    assert ['TOPIC', 'src.', 'PREFIXED', 'User:mm2', '*', 'DESCRIBE_CONFIGS', 'ALLOW'] in cluster.acls()
    # Topic * and group * need the same operations: one run; the cluster and the prefixed topic one each.
    assert actions(cluster) == ['--list', '--add', '--add', '--add']
    assert result['jvm_runs'] == 4
    shared = next(call for call in cluster.calls() if '--group' in call)
    assert shared[shared.index('--topic') + 1] == '*' and shared[shared.index('--group') + 1] == '*'
    assert '--operation=Read' in shared and '--operation=Describe' in shared
    assert shared[1:5] == ['--bootstrap-server', 'kafka-1:9095', '--command-config',
                           '/etc/kafka/broker/admin-client.properties']


def test_a_second_run_lists_once_and_changes_nothing(run_module: Any, cluster: FakeCluster, tmp_path: Path) -> None:
    bindings = [MM2_READ, MM2_GROUP, MM2_CLUSTER, MM2_REMOTE]
    run_acl(run_module, cluster, tmp_path, bindings)
    cluster.reset_calls()

    again = run_acl(run_module, cluster, tmp_path, bindings, diff=True)

    assert again['changed'] is False, again
    assert again['added'] == [] and again['removed'] == [] and again['record_changed'] is False
    assert actions(cluster) == ['--list'] and again['jvm_runs'] == 1


def test_only_missing_operations_are_added(run_module: Any, cluster: FakeCluster, tmp_path: Path) -> None:
    cluster.update(acls=[['TOPIC', '*', 'LITERAL', 'User:mm2', '*', 'READ', 'ALLOW']])

    result = run_acl(run_module, cluster, tmp_path, [MM2_READ])

    assert [item['operation'] for item in result['added']] == ['Describe']
    added_call = cluster.calls()[1]
    assert '--operation=Describe' in added_call and '--operation=Read' not in added_call


def test_check_mode_predicts_without_changing_anything(run_module: Any, cluster: FakeCluster, tmp_path: Path) -> None:
    result = run_acl(run_module, cluster, tmp_path, [MM2_READ, MM2_CLUSTER], check_mode=True,
                     diff=True)

    assert result['changed'] is True and len(result['added']) == 3
    assert cluster.acls() == [] and actions(cluster) == ['--list']
    assert not (tmp_path / 'state').exists()
    cluster_diff = result['diff'][0]
    assert cluster_diff['before'] == ''
    assert 'User:mm2 ALLOW DESCRIBE on CLUSTER:LITERAL:kafka-cluster from *\n' in cluster_diff['after']
    assert '"operation": "Read"' in result['diff'][1]['after']


def test_state_absent_removes_only_the_present_operations(run_module: Any, cluster: FakeCluster,
                                                          tmp_path: Path) -> None:
    cluster.update(acls=[['TOPIC', '*', 'LITERAL', 'User:mm2', '*', 'READ', 'ALLOW'],
                         ['TOPIC', '*', 'LITERAL', 'User:other', '*', 'READ', 'ALLOW']])

    result = run_acl(run_module, cluster, tmp_path, [dict(MM2_READ, state='absent')])

    assert [item['operation'] for item in result['removed']] == ['Read'] and result['pruned'] == []
    assert cluster.acls() == [['TOPIC', '*', 'LITERAL', 'User:other', '*', 'READ', 'ALLOW']]
    removal = cluster.calls()[1]
    assert '--remove' in removal and '--force' in removal and '--operation=Describe' not in removal


def test_without_prune_an_undeclared_binding_stays_and_stays_recorded(run_module: Any, cluster: FakeCluster,
                                                                      tmp_path: Path) -> None:
    run_acl(run_module, cluster, tmp_path, [MM2_READ, MM2_CLUSTER])

    result = run_acl(run_module, cluster, tmp_path, [MM2_READ])

    assert result['changed'] is False and result['removed'] == []
    assert ['CLUSTER', 'kafka-cluster', 'LITERAL', 'User:mm2', '*', 'DESCRIBE', 'ALLOW'] in cluster.acls()
    assert {'principal': 'User:mm2', 'resource_type': 'cluster', 'name': 'kafka-cluster', 'pattern_type': 'literal',
            'operation': 'Describe', 'permission': 'allow', 'host': '*'} in recorded(tmp_path)


def test_prune_removes_what_the_collection_created_and_nothing_else(run_module: Any, cluster: FakeCluster,
                                                                    tmp_path: Path) -> None:
    run_acl(run_module, cluster, tmp_path, [MM2_READ, MM2_CLUSTER])
    by_hand = ['GROUP', 'manual', 'LITERAL', 'User:mm2', '*', 'READ', 'ALLOW']
    cluster.update(acls=cluster.acls() + [by_hand])
    cluster.reset_calls()

    result = run_acl(run_module, cluster, tmp_path, [MM2_READ], prune=True)

    assert result['changed'] is True
    pruned = [{'principal': 'User:mm2', 'resource_type': 'cluster', 'name': 'kafka-cluster', 'pattern_type': 'literal',
               'operation': 'Describe', 'permission': 'allow', 'host': '*'}]
    assert result['removed'] == pruned and result['pruned'] == pruned
    assert by_hand in cluster.acls()
    assert ['CLUSTER', 'kafka-cluster', 'LITERAL', 'User:mm2', '*', 'DESCRIBE', 'ALLOW'] not in cluster.acls()
    assert actions(cluster) == ['--list', '--remove']
    assert all(item['resource_type'] == 'topic' for item in recorded(tmp_path))


def test_prune_in_check_mode_lists_what_would_go(run_module: Any, cluster: FakeCluster, tmp_path: Path) -> None:
    run_acl(run_module, cluster, tmp_path, [MM2_READ, MM2_CLUSTER])
    before = cluster.acls()

    result = run_acl(run_module, cluster, tmp_path, [MM2_READ, MM2_GROUP], prune=True, check_mode=True,
                     diff=True)

    assert [item['resource_type'] for item in result['pruned']] == ['cluster']
    assert {item['resource_type'] for item in result['added']} == {'group'}
    assert cluster.acls() == before
    assert 'CLUSTER' in result['diff'][0]['before'] and 'CLUSTER' not in result['diff'][0]['after']


def test_prune_scope_claims_every_binding_of_a_principal(run_module: Any, cluster: FakeCluster,
                                                         tmp_path: Path) -> None:
    cluster.update(acls=[['GROUP', 'manual', 'LITERAL', 'User:mm2', '*', 'READ', 'ALLOW'],
                         ['GROUP', 'manual', 'LITERAL', 'User:other', '*', 'READ', 'ALLOW']])

    result = run_acl(run_module, cluster, tmp_path, [MM2_READ], prune=True, prune_scope=['User:mm2'])

    assert [item['name'] for item in result['pruned']] == ['manual']
    assert ['GROUP', 'manual', 'LITERAL', 'User:other', '*', 'READ', 'ALLOW'] in cluster.acls()
    assert not [acl for acl in cluster.acls() if acl[0] == 'GROUP' and acl[3] == 'User:mm2']


def test_prune_with_no_bindings_left_removes_every_recorded_binding(run_module: Any, cluster: FakeCluster,
                                                                    tmp_path: Path) -> None:
    run_acl(run_module, cluster, tmp_path, [MM2_READ])

    result = run_acl(run_module, cluster, tmp_path, [], prune=True)

    assert len(result['pruned']) == 2 and cluster.acls() == []
    assert recorded(tmp_path) == []


def test_the_record_is_root_only(run_module: Any, cluster: FakeCluster, tmp_path: Path) -> None:
    run_acl(run_module, cluster, tmp_path, [MM2_READ])

    record = tmp_path / 'state' / 'acl-bindings.json'
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert stat.S_IMODE(record.parent.stat().st_mode) == 0o700
    assert [item['operation'] for item in recorded(tmp_path)] == ['Describe', 'Read']


def test_kafka_3_listing_and_class(run_module: Any, cluster: FakeCluster, tmp_path: Path) -> None:
    cluster.update(listing_format=3, acl_class='kafka.admin.AclCommand')
    options = {'acl_command_class': 'kafka.admin.AclCommand'}
    run_acl(run_module, cluster, tmp_path, [MM2_READ, MM2_CLUSTER], **options)
    cluster.reset_calls()

    again = run_acl(run_module, cluster, tmp_path, [MM2_READ, MM2_CLUSTER], **options)

    assert again['changed'] is False and actions(cluster) == ['--list']


@pytest.mark.parametrize('binding, message', [
    (dict(MM2_READ, operations=['Read', 'Fly']), 'unknown operation Fly'),
    (dict(MM2_CLUSTER, name='kafka-cluster'), 'a cluster binding takes no name'),
    (dict(MM2_CLUSTER, pattern_type='prefixed'), 'a cluster binding is literal'),
    (dict(MM2_CLUSTER, operations=['Read']), 'a cluster binding cannot grant Read'),
    ({'principal': 'User:mm2', 'resource_type': 'group', 'operations': ['Read']}, 'name is required'),
    (dict(MM2_READ, principal='mm2'), 'principal must be Type:name'),
    (dict(MM2_READ, operations=[]), 'operations must list at least one'),
])
def test_bad_input_fails_before_any_tool_runs(run_module: Any, cluster: FakeCluster, tmp_path: Path,
                                              binding: Dict[str, Any], message: str) -> None:
    result = run_acl(run_module, cluster, tmp_path, [MM2_GROUP, binding])

    assert result.get('failed') is True, result
    assert message in result['msg'] and 'binding 2' in result['msg'] and 'Nothing was changed' in result['msg']
    assert cluster.calls() == []


def test_a_binding_both_present_and_absent_is_refused(run_module: Any, cluster: FakeCluster, tmp_path: Path) -> None:
    result = run_acl(run_module, cluster, tmp_path, [MM2_READ, dict(MM2_READ, operations=['Read'], state='absent')])

    assert result['failed'] is True and 'declared both present and absent' in result['msg']
    assert cluster.calls() == []


def test_a_listing_error_shows_the_exception_and_its_cause(run_module: Any, cluster: FakeCluster,
                                                           tmp_path: Path) -> None:
    cluster.update(fail={'action': '--list', 'stdout': ERROR_LISTING})

    result = run_acl(run_module, cluster, tmp_path, [MM2_READ])

    assert result['failed'] is True
    assert result['msg'] == ('kafka_acl: listing the ACLs failed: SecurityDisabledException: No Authorizer is '
                             'configured.. Nothing was changed.')
    assert result['jvm_runs'] == 1 and result['changed'] is False


def test_a_failed_grant_reports_and_records_what_was_applied_before(run_module: Any, cluster: FakeCluster,
                                                                    tmp_path: Path) -> None:
    # Two runs are needed (the cluster's Describe, then the topic's Read and Describe); the second fails.
    cluster.update(fail={'action': '--add', 'skip': 1, 'stdout': 'Error while executing ACL command: '
                                                                 'org.apache.kafka.common.errors.InvalidRequestException: bad\n'})

    result = run_acl(run_module, cluster, tmp_path, [MM2_READ, MM2_CLUSTER])

    assert result['failed'] is True and result['changed'] is True
    assert result['msg'].startswith('kafka_acl: adding User:mm2 ALLOW DESCRIBE on TOPIC:LITERAL:* from *, ')
    assert result['msg'].endswith('failed: InvalidRequestException: bad')
    cluster_describe = {'principal': 'User:mm2', 'resource_type': 'cluster', 'name': 'kafka-cluster',
                        'pattern_type': 'literal', 'operation': 'Describe', 'permission': 'allow', 'host': '*'}
    assert result['added'] == [cluster_describe] and result['jvm_runs'] == 3
    assert recorded(tmp_path) == [cluster_describe]


def test_a_missing_class_names_the_kafka_3_class(run_module: Any, cluster: FakeCluster, tmp_path: Path) -> None:
    cluster.update(acl_class='kafka.admin.AclCommand')

    result = run_acl(run_module, cluster, tmp_path, [MM2_READ])

    assert result['failed'] is True
    assert 'no class org.apache.kafka.tools.AclCommand (Kafka 3.x names it kafka.admin.AclCommand)' in result['msg']


def test_an_unreadable_record_stops_before_the_listing(run_module: Any, cluster: FakeCluster, tmp_path: Path) -> None:
    (tmp_path / 'state').mkdir()
    (tmp_path / 'state' / 'acl-bindings.json').write_text('{not json')

    result = run_acl(run_module, cluster, tmp_path, [MM2_READ], prune=True)

    assert result['failed'] is True and 'cannot read the ACL state record' in result['msg']
    assert cluster.calls() == []


def test_the_record_directory_is_made_private_again(run_module: Any, cluster: FakeCluster, tmp_path: Path) -> None:
    bindings = [MM2_READ]
    run_acl(run_module, cluster, tmp_path, bindings)
    state_dir = tmp_path / 'state'
    assert stat.S_IMODE(state_dir.stat().st_mode) == 0o700
    state_dir.chmod(0o750)

    preview = run_acl(run_module, cluster, tmp_path, bindings, check_mode=True)
    assert preview['changed'] is True and preview['state_dir_corrected'].startswith('mode 0750')
    assert stat.S_IMODE(state_dir.stat().st_mode) == 0o750

    corrected = run_acl(run_module, cluster, tmp_path, bindings)
    assert corrected['changed'] is True and corrected['added'] == [] and corrected['record_changed'] is False
    assert stat.S_IMODE(state_dir.stat().st_mode) == 0o700
    assert run_acl(run_module, cluster, tmp_path, bindings)['changed'] is False
