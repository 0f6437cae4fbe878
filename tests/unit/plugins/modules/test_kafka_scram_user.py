# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Module kafka_scram_user run for real against a fake kafka-run that keeps credentials in a file."""

from __future__ import annotations

import hashlib
import json
import stat
from pathlib import Path
from typing import Any, Dict, List

import pytest

from fake_cluster import FakeCluster

# Characters a properties file treats specially, a non-ASCII letter and one outside the BMP.
PASSWORD = 'p=ss:w#rd! \\ wörd 𝄞'
OTHER_PASSWORD = 'another-secret-value'


def run_scram(run_module: Any, cluster: FakeCluster, tmp_path: Path, users: List[Dict[str, Any]],
              **options: Any) -> Dict[str, Any]:
    modes = {mode: options.pop(mode) for mode in ('check_mode', 'diff') if mode in options}
    args = {'bootstrap_server': 'kafka-1:9095', 'command_config': '/etc/kafka/broker/admin-client.properties',
            'kafka_run': str(cluster.kafka_run), 'state_dir': str(tmp_path / 'state'), 'users': users}
    args.update(options)
    return run_module('kafka_scram_user', **modes, **args)


def alters(cluster: FakeCluster) -> List[List[str]]:
    return [call for call in cluster.calls() if '--alter' in call]


def test_accounts_are_created_through_a_root_only_file(run_module: Any, cluster: FakeCluster, tmp_path: Path) -> None:
    result = run_scram(run_module, cluster, tmp_path, [{'name': 'mm2', 'password': PASSWORD},
                                                       {'name': 'connect', 'password': OTHER_PASSWORD,
                                                        'mechanism': 'SCRAM-SHA-256', 'iterations': 4096}])

    assert result['changed'] is True, result
    assert result['set'] == [{'name': 'mm2', 'mechanism': 'SCRAM-SHA-512'},
                             {'name': 'connect', 'mechanism': 'SCRAM-SHA-256'}]
    state = cluster.load()
    assert state['scram']['mm2'] == {'SCRAM-SHA-512': {'iterations': 8192, 'password': PASSWORD}}
    assert state['scram']['connect'] == {'SCRAM-SHA-256': {'iterations': 4096, 'password': OTHER_PASSWORD}}
    assert state['credential_file_modes'] == ['0o600', '0o600']
    assert result['jvm_runs'] == 3 and len(alters(cluster)) == 2
    # The password never reached a command line, the module's output, or a file left behind.
    assert not [call for call in cluster.calls() if any(PASSWORD in arg or OTHER_PASSWORD in arg for arg in call)]
    assert PASSWORD not in result['_stdout'] and OTHER_PASSWORD not in result['_stdout']
    left = sorted(path.name for path in (tmp_path / 'state').iterdir())
    assert left == ['connect.SCRAM-SHA-256', 'mm2.SCRAM-SHA-512', 'salt']
    assert all(stat.S_IMODE(path.stat().st_mode) == 0o600 for path in (tmp_path / 'state').iterdir())
    assert stat.S_IMODE((tmp_path / 'state').stat().st_mode) == 0o700


def test_a_second_run_lists_once_and_changes_nothing(run_module: Any, cluster: FakeCluster, tmp_path: Path) -> None:
    users = [{'name': 'mm2', 'password': PASSWORD}, {'name': 'connect', 'password': OTHER_PASSWORD}]
    run_scram(run_module, cluster, tmp_path, users)
    cluster.reset_calls()

    again = run_scram(run_module, cluster, tmp_path, users, diff=True)

    assert again['changed'] is False and again['set'] == [] and again['jvm_runs'] == 1
    assert alters(cluster) == []
    assert again['diff'][0]['before'] == again['diff'][0]['after']


@pytest.mark.parametrize('change', [{'password': OTHER_PASSWORD}, {'iterations': 16384}])
def test_a_changed_password_or_iteration_count_is_applied(run_module: Any, cluster: FakeCluster, tmp_path: Path,
                                                          change: Dict[str, Any]) -> None:
    run_scram(run_module, cluster, tmp_path, [{'name': 'mm2', 'password': PASSWORD}])

    result = run_scram(run_module, cluster, tmp_path, [dict({'name': 'mm2', 'password': PASSWORD}, **change)],
                       diff=True)

    assert result['changed'] is True and result['set'] == [{'name': 'mm2', 'mechanism': 'SCRAM-SHA-512'}]
    assert cluster.load()['scram']['mm2']['SCRAM-SHA-512']['password'] == change.get('password', PASSWORD)
    assert '(credential set)' in result['diff'][0]['after'] and PASSWORD not in json.dumps(result['diff'])


def test_an_account_changed_outside_is_set_again(run_module: Any, cluster: FakeCluster, tmp_path: Path) -> None:
    run_scram(run_module, cluster, tmp_path, [{'name': 'mm2', 'password': PASSWORD}])
    state = cluster.load()
    state['scram']['mm2']['SCRAM-SHA-512']['iterations'] = 4096
    cluster.save(state)

    result = run_scram(run_module, cluster, tmp_path, [{'name': 'mm2', 'password': PASSWORD}])

    assert result['changed'] is True
    assert cluster.load()['scram']['mm2']['SCRAM-SHA-512']['iterations'] == 8192


def test_fingerprints_written_by_the_earlier_role_are_honoured(run_module: Any, cluster: FakeCluster,
                                                               tmp_path: Path) -> None:
    """The role's tasks wrote sha512('<salt>:<name>:<mechanism>:<iterations>:<password>'), salt and
    hash without a newline: an upgrade must not re-apply every account."""
    state_dir = tmp_path / 'state'
    state_dir.mkdir(mode=0o700)
    salt = 'Abc123Def456Ghi789Jkl012Mno345Pq'
    (state_dir / 'salt').write_text(salt)
    (state_dir / 'mm2.SCRAM-SHA-512').write_text(
        hashlib.sha512(('%s:mm2:SCRAM-SHA-512:8192:%s' % (salt, PASSWORD)).encode()).hexdigest())
    cluster.update(scram={'mm2': {'SCRAM-SHA-512': {'iterations': 8192, 'password': 'whatever the hash says'}}})

    result = run_scram(run_module, cluster, tmp_path, [{'name': 'mm2', 'password': PASSWORD}])

    assert result['changed'] is False and result['jvm_runs'] == 1


def test_an_absent_account_is_deleted_and_forgotten(run_module: Any, cluster: FakeCluster, tmp_path: Path) -> None:
    run_scram(run_module, cluster, tmp_path, [{'name': 'mm2', 'password': PASSWORD},
                                              {'name': 'old', 'password': OTHER_PASSWORD}])

    result = run_scram(run_module, cluster, tmp_path, [{'name': 'mm2', 'password': PASSWORD},
                                                       {'name': 'old', 'state': 'absent'}])

    assert result['deleted'] == [{'name': 'old', 'mechanism': 'SCRAM-SHA-512'}] and result['set'] == []
    assert cluster.load()['scram']['old'] == {}
    assert not (tmp_path / 'state' / 'old.SCRAM-SHA-512').exists()
    assert '--delete-config' in alters(cluster)[-1]
    again = run_scram(run_module, cluster, tmp_path, [{'name': 'old', 'state': 'absent'}])
    assert again['changed'] is False


def test_check_mode_writes_and_alters_nothing(run_module: Any, cluster: FakeCluster, tmp_path: Path) -> None:
    result = run_scram(run_module, cluster, tmp_path, [{'name': 'mm2', 'password': PASSWORD}], check_mode=True,
                       diff=True)

    assert result['changed'] is True and result['set'] == [{'name': 'mm2', 'mechanism': 'SCRAM-SHA-512'}]
    assert result['diff'][0]['after'] == 'mm2 SCRAM-SHA-512 iterations=8192 (credential set)\n'
    assert cluster.load()['scram'] == {} and alters(cluster) == []
    assert not (tmp_path / 'state').exists()


@pytest.mark.parametrize('user, message', [
    ({'name': 'mm2'}, 'account mm2: a password is required unless the state is absent'),
    ({'name': 'mm2', 'password': PASSWORD, 'iterations': 1000}, 'account mm2: iterations must be at least 4096'),
    ({'name': 'bad name', 'password': PASSWORD}, "account 2: name must be letters, digits"),
])
def test_bad_input_fails_before_any_tool_runs(run_module: Any, cluster: FakeCluster, tmp_path: Path,
                                              user: Dict[str, Any], message: str) -> None:
    result = run_scram(run_module, cluster, tmp_path, [{'name': 'connect', 'password': OTHER_PASSWORD}, user])

    assert result.get('failed') is True and message in result['msg'], result
    assert 'Nothing was changed' in result['msg']
    assert cluster.calls() == [] and PASSWORD not in result['_stdout']


def test_a_failing_alter_shows_the_cause_and_never_the_password(run_module: Any, cluster: FakeCluster,
                                                                tmp_path: Path) -> None:
    cluster.update(fail={'action': '--alter', 'stderr': (
        "Error while executing config command with args '--bootstrap-server kafka-1:9095 --alter'\n"
        'java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.ClusterAuthorizationException: '
        'Cluster authorization failed.\n'
        '\tat org.apache.kafka.common.internals.KafkaFutureImpl.wrapAndThrow(KafkaFutureImpl.java:45)\n'
        'Caused by: org.apache.kafka.common.errors.ClusterAuthorizationException: Cluster authorization failed.\n')})

    result = run_scram(run_module, cluster, tmp_path, [{'name': 'mm2', 'password': PASSWORD}])

    assert result['failed'] is True
    assert result['msg'] == ('kafka_scram_user: setting SCRAM-SHA-512 of account mm2 failed: ExecutionException: '
                             'ClusterAuthorizationException: Cluster authorization failed.')
    assert not (tmp_path / 'state' / 'mm2.SCRAM-SHA-512').exists()
    assert not (tmp_path / 'state' / 'mm2.add-config').exists()
    assert PASSWORD not in result['_stdout']


def test_a_state_directory_others_can_enter_is_made_private_again(run_module: Any, cluster: FakeCluster,
                                                                  tmp_path: Path) -> None:
    users = [{'name': 'mm2', 'password': PASSWORD}]
    run_scram(run_module, cluster, tmp_path, users)
    state_dir = tmp_path / 'state'
    state_dir.chmod(0o755)

    preview = run_scram(run_module, cluster, tmp_path, users, check_mode=True)
    assert preview['changed'] is True and preview['state_dir_corrected'] == 'mode 0755, owner uid %d' % state_dir.stat().st_uid
    assert stat.S_IMODE(state_dir.stat().st_mode) == 0o755 and preview['set'] == []

    corrected = run_scram(run_module, cluster, tmp_path, users, diff=True)
    assert corrected['changed'] is True and corrected['set'] == [] and stat.S_IMODE(state_dir.stat().st_mode) == 0o700
    assert corrected['diff'][1]['before'] == 'mode 0755, owner uid %d\n' % state_dir.stat().st_uid
    assert corrected['diff'][1]['after_header'] == str(state_dir) + ' (directory)'
    assert run_scram(run_module, cluster, tmp_path, users)['changed'] is False


def test_a_state_dir_that_is_a_file_fails_before_any_change(run_module: Any, cluster: FakeCluster, tmp_path: Path) -> None:
    (tmp_path / 'state').write_text('not a directory')
    result = run_scram(run_module, cluster, tmp_path, [{'name': 'mm2', 'password': PASSWORD}])
    assert result['failed'] is True and 'is not a directory. Nothing was changed.' in result['msg']
    assert alters(cluster) == [] and cluster.calls() == []
