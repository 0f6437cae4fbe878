# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kafka_dr.mm2.mm2_readiness run in process: arguments checked before any cluster is contacted, names derived
from the flow, and a whole run against in-memory clusters in place of the JVM clients."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kafka_dr.mm2.plugins.modules import mm2_readiness

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'module_utils'))

from fake_readiness_side import FakeAdminSide  # noqa: E402  pylint: disable=wrong-import-position
from test_mm2_readiness import NOW, lab  # noqa: E402  pylint: disable=wrong-import-position

ARGS = {'source_alias': 'src', 'target_alias': 'dst', 'source_client': {'bootstrap.servers': 'src:9092'},
        'target_client': {'bootstrap.servers': 'dst:9092', 'sasl.jaas.config': 'secret-line'}, 'topics_regex': r'foo\..*'}


def params(**changes: Any) -> Dict[str, Any]:
    values = {name: spec.get('default') for name, spec in mm2_readiness.argument_spec().items()}
    values.update(ARGS, **changes)
    return values


def test_good_arguments_pass() -> None:
    assert mm2_readiness.input_errors(params()) == []


@pytest.mark.parametrize(('changes', 'message'), [
    ({'groups_regex': 'app('}, 'groups_regex is not a regular expression'),
    ({'flow_groups_exclude': ['x[']}, "flow_groups_exclude pattern 'x[' is not a regular expression"),
    ({'target_client': {'security.protocol': 'SSL'}}, 'target_client has no bootstrap.servers'),
    ({'rpo_seconds': -1.0}, 'rpo_seconds must be 0 (off) or more'),
    ({'accepted_log_starts': {'foo.orders': {'zero': 5}}}, 'accepted log starts must map topic -> partition -> offset'),
])
def test_bad_arguments_are_named(changes: Dict[str, Any], message: str) -> None:
    assert any(message in error for error in mm2_readiness.input_errors(params(**changes)))


def test_the_request_names_the_internal_topics_after_the_flow() -> None:
    request = mm2_readiness.build_request(params(separator='_'))
    assert request.checkpoints_topic == 'src_checkpoints_internal'
    assert request.offset_syncs_topic == 'mm2-offset-syncs_dst_internal'
    assert request.remote_topic('orders') == 'src_orders' and request.producer_topic('orders') == 'orders'
    on_target = mm2_readiness.build_request(params(offset_syncs_location='target'))
    assert on_target.offset_syncs_topic == 'mm2-offset-syncs.src.internal' and on_target.flow == 'src->dst'
    identity = mm2_readiness.build_request(params(replication_policy='identity'))
    assert identity.remote_topic('orders') == 'orders' and identity.producer_topic('orders') == 'orders'


class FakeJvm:
    def __init__(self, *_args: Any) -> None:
        pass

    def __enter__(self) -> 'FakeJvm':
        return self

    def __exit__(self, *_exc: object) -> None:
        pass


@pytest.fixture
def clusters(monkeypatch: pytest.MonkeyPatch) -> Iterator[Dict[str, Any]]:
    """The module's JVM and clients replaced by the in-memory clusters of test_mm2_readiness."""
    source, target = lab()
    connect = FakeAdminSide('connect', partitions={'connect-mm2-configs': 1},
                            configs={'connect-mm2-configs': {'cleanup.policy': 'delete'}})
    sides = {'src': source, 'dst': target, 'connect': connect}
    opened: Dict[str, Any] = {'settings': {}, 'closed': []}

    def side(_jvm: Any, name: str, settings: Dict[str, str], _timeout: int, purpose: str = '') -> Any:
        assert purpose == 'readiness'
        opened['settings'][name] = settings
        fake = sides[name]
        fake.close = lambda: opened['closed'].append(name)
        return fake

    monkeypatch.setattr(mm2_readiness, 'PY4J_IMPORT_ERROR', None)
    monkeypatch.setattr(mm2_readiness, 'KafkaJvm', FakeJvm)
    monkeypatch.setattr(mm2_readiness, 'JvmKafkaSide', side)
    monkeypatch.setattr(mm2_readiness.time, 'time', lambda: NOW)
    yield dict(sides, opened=opened)


def run_module(capsys: pytest.CaptureFixture[str], **args: Any) -> Dict[str, Any]:
    with patch_module_args(dict(ARGS, **args)):
        with pytest.raises(SystemExit):
            mm2_readiness.main()
    return json.loads(capsys.readouterr().out)


def test_a_run_reports_figures_verdict_and_text(clusters: Dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    result = run_module(capsys, rpo_seconds=15, consumers=[{'principal': 'User:app'}])
    assert result['changed'] is False and result['ready'] is False and result['verdict'] == 'NOT READY'
    assert any('over the RPO of 15 s' in text for text in result['problems'])
    report = result['report']
    assert report['recovery_point'][0]['uncopied'] == 10 and report['groups'][0]['partitions'][0]['unplanned_rereads'] == 4
    assert report['acls'][0]['notes'] == ['the source runs no authorizer: every topic of the flow is taken as used',
                                          'the target runs no authorizer: nothing is denied there']
    assert result['topic_ids'] == {'foo.orders': 'id-1'} and 'warnings' not in result
    assert result['text'].startswith('Readiness of flow src->dst (src -> dst)')
    assert sorted(clusters['opened']['closed']) == ['dst', 'src']
    assert 'secret-line' not in json.dumps(result)


def test_a_caught_up_flow_is_ready_in_check_mode(clusters: Dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    result = run_module(capsys, rpo_seconds=60, _ansible_check_mode=True, known_topic_ids={'foo.orders': 'id-1'})
    assert result['ready'] is True and result['problems'] == [] and result['verdict'] == 'READY'
    assert result['state_topic_ids'] == {'foo.orders': 'id-1'}


def test_a_recreated_topic_stays_reported_until_accepted(clusters: Dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    result = run_module(capsys, known_topic_ids={'foo.orders': 'id-0'})
    assert any('deleted and re-created since the previous readiness run' in text for text in result['problems'])
    assert result['topic_ids'] == {'foo.orders': 'id-1'} and result['state_topic_ids'] == {'foo.orders': 'id-0'}
    accepted = run_module(capsys, known_topic_ids={'foo.orders': 'id-0'}, accept_recreated=True)
    assert accepted['state_topic_ids'] == {'foo.orders': 'id-1'}


def test_lost_records_stay_reported_until_accepted(clusters: Dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    source = clusters['src']
    source.logs[('foo.orders', 0)] = [record for record in source.logs[('foo.orders', 0)] if record.offset >= 55]
    result = run_module(capsys)
    assert any('5 records lost' in text for text in result['problems']) and result['state_accepted_log_starts'] == {}
    accepted = run_module(capsys, accept_truncated=True)
    assert accepted['state_accepted_log_starts'] == {'foo.orders': {'0': 55}}
    after = run_module(capsys, accepted_log_starts=accepted['state_accepted_log_starts'])
    assert not any('records lost' in text for text in after['problems'])
    assert after['state_accepted_log_starts'] == {'foo.orders': {'0': 55}}


def test_an_unreachable_cluster_fails_naming_it(clusters: Dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    clusters['src'].unreachable = True
    result = run_module(capsys)
    assert result['failed'] and result['cluster'] == 'src'
    assert result['msg'].startswith('Kafka cluster src answered an error (list topics): TimeoutException')
    assert sorted(clusters['opened']['closed']) == ['dst', 'src']


def test_bad_arguments_fail_before_any_cluster_is_contacted(clusters: Dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    result = run_module(capsys, groups_regex='(')
    assert result['failed'] and 'groups_regex is not a regular expression' in result['msg']
    assert clusters['opened']['settings'] == {}


def test_the_connect_clusters_topics_are_read_with_the_workers_client(
        clusters: Dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    topics = [{'name': 'connect-mm2-configs', 'side': 'connect', 'kind': 'config', 'replication_factor': 1,
               'setting': 'config.storage.replication.factor'}]
    result = run_module(capsys, internal_topics=topics,
                        connect_client={'bootstrap.servers': 'dst:9093', 'sasl.jaas.config': 'worker-line'})
    assert result['ready'] is False
    assert any(problem.startswith('connect-mm2-configs (Connect\'s config topic (config.storage.topic) on the Connect '
                                  'cluster\'s Kafka): cleanup.policy delete, must be compact') and
               '--bootstrap-server <bootstrap servers of the Connect cluster\'s Kafka> --command-config' in problem
               for problem in result['problems'])
    assert clusters['opened']['settings']['connect']['bootstrap.servers'] == 'dst:9093'
    assert sorted(clusters['opened']['closed']) == ['connect', 'dst', 'src']
    assert result['report']['internal_topics'][0]['cleanup_policy'] == 'delete'
    assert 'Internal topics: 1 topic wrong' in result['text'] and 'worker-line' not in json.dumps(result)
