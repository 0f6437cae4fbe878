# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The internal-topic hygiene of the readiness check: the rules on one topic (cleanup.policy, replication factor,
min.insync.replicas) with their fix commands, and a run over in-memory clusters, the Connect cluster's included."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import KafkaSideError, TopicInfo
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_readiness import (
    NOT_READY,
    READY,
    InternalTopic,
    Readiness,
    build_request,
    check_internal_topic,
    input_errors,
    render_text,
)

from fake_kafka_side import FakeClock
from fake_readiness_side import FakeAdminSide
from test_mm2_readiness import CHECKPOINTS_TOPIC, NOW, SYNCS_TOPIC, lab, request

CONFIGS_TOPIC = 'connect-mm2-configs'
CONNECT_BOOTSTRAP = "<bootstrap servers of the Connect cluster's Kafka>"
COMPACT = {'cleanup.policy': 'compact'}


def check(kind: str = 'config', compacted: bool = True, factor: int = -1, replicas: int = 3,
          broker: Optional[Dict[str, str]] = None, **config: str) -> Any:
    spec = InternalTopic(CONFIGS_TOPIC, 'connect', kind, compacted, factor, 'config.storage.replication.factor')
    values = {'cleanup.policy': 'compact', 'min.insync.replicas': '2'}
    values.update({key.replace('_', '.'): value for key, value in config.items()})
    return check_internal_topic(spec, 'connect', TopicInfo(CONFIGS_TOPIC, 'id', 1, replicas), values,
                                {'default.replication.factor': '3'} if broker is None else broker)


def settings(found: Any) -> List[tuple]:
    return [(finding.setting, finding.severity) for finding in found.findings]


def test_a_compacted_topic_with_three_replicas_and_two_in_sync_is_right() -> None:
    found = check()
    assert found.findings == [] and found.exists is True
    assert (found.cleanup_policy, found.replication_factor, found.expected_replication_factor, found.min_insync_replicas) == \
        ('compact', 3, 3, 2)


@pytest.mark.parametrize('policy', ['delete', 'compact,delete', 'delete,compact'])
def test_a_policy_other_than_compact_is_a_problem_with_its_fix(policy: str) -> None:
    found = check(cleanup_policy=policy)
    assert settings(found) == [('cleanup.policy', 'problem')]
    finding = found.findings[0]
    assert finding.message.startswith('connect-mm2-configs (Connect\'s config topic (config.storage.topic) on the Connect '
                                      'cluster\'s Kafka): cleanup.policy %s, must be compact: retention deletes connector '
                                      'configurations' % policy)
    assert finding.fix == ('kafka-configs.sh --bootstrap-server ' + CONNECT_BOOTSTRAP + ' --command-config <client properties> '
                           '--entity-type topics --entity-name connect-mm2-configs --alter --add-config cleanup.policy=compact')


def test_the_heartbeats_topic_may_have_any_policy() -> None:
    assert check(kind='heartbeats', compacted=False, cleanup_policy='delete').findings == []


def test_fewer_replicas_than_configured_is_a_warning_with_the_reassignment() -> None:
    found = check(factor=3, replicas=2, min_insync_replicas='1')
    assert settings(found) == [('replication.factor', 'warning'), ('min.insync.replicas', 'warning')]
    assert 'replication factor 2, config.storage.replication.factor asks for 3' in found.findings[0].message
    assert found.findings[0].fix.startswith('kafka-reassign-partitions.sh --bootstrap-server ' + CONNECT_BOOTSTRAP + ' '
                                            '--command-config <client properties> --reassignment-json-file')
    assert found.findings[0].fix.endswith('connect-mm2-configs 3 replicas on distinct brokers> --execute')


def test_minus_one_means_the_brokers_default_replication_factor() -> None:
    found = check(factor=-1, replicas=1, broker={'default.replication.factor': '3'}, min_insync_replicas='1')
    assert settings(found) == [('replication.factor', 'warning')]
    assert '(-1: the broker\'s default.replication.factor)' in found.findings[0].message
    # A one-broker lab: the broker default is 1, and one replica with min.insync.replicas 1 is all it can do.
    assert check(factor=-1, replicas=1, broker={'default.replication.factor': '1'}, min_insync_replicas='1').findings == []
    # Without the broker's defaults the expected factor is unknown and not judged.
    unknown = check(factor=-1, replicas=1, broker={}, min_insync_replicas='1')
    assert unknown.findings == [] and unknown.expected_replication_factor is None


def test_min_insync_replicas_above_the_replication_factor_is_a_problem() -> None:
    found = check(factor=2, replicas=2, min_insync_replicas='3')
    assert settings(found) == [('min.insync.replicas', 'problem')]
    assert 'min.insync.replicas 3 is above its replication factor 2: every write with acks=all fails' in found.findings[0].message
    assert found.findings[0].fix.endswith('--entity-name connect-mm2-configs --alter --add-config min.insync.replicas=1')


@pytest.mark.parametrize(('replicas', 'isr', 'text', 'fix'), [
    (3, '1', 'min.insync.replicas 1 with 3 replicas', '--add-config min.insync.replicas=2'),
    (3, '3', 'min.insync.replicas 3 equals its replication factor', '--add-config min.insync.replicas=2'),
    (2, '1', 'min.insync.replicas 1 with 2 replicas', '3 replicas on distinct brokers> --execute, then kafka-configs.sh'),
    (2, '2', 'min.insync.replicas 2 equals its replication factor', '3 replicas on distinct brokers> --execute, then'),
])
def test_min_insync_replicas_of_one_or_all_replicas_is_a_warning(replicas: int, isr: str, text: str, fix: str) -> None:
    found = check(factor=replicas, replicas=replicas, min_insync_replicas=isr)
    assert settings(found) == [('min.insync.replicas', 'warning')]
    assert text in found.findings[0].message and fix in found.findings[0].fix


# ---- a run over the clusters -------------------------------------------------------------------

CONNECT_TOPICS = [InternalTopic(CONFIGS_TOPIC, 'connect', 'config', True, -1, 'config.storage.replication.factor'),
                  InternalTopic('connect-mm2-offsets', 'connect', 'offset', True, -1, 'offset.storage.replication.factor'),
                  InternalTopic('connect-mm2-status', 'connect', 'status', True, -1, 'status.storage.replication.factor')]
MM2_TOPICS = [InternalTopic(CHECKPOINTS_TOPIC, 'target', 'checkpoints', True, -1, 'checkpoints.topic.replication.factor'),
              InternalTopic(SYNCS_TOPIC, 'source', 'offset-syncs', True, -1, 'offset-syncs.topic.replication.factor'),
              InternalTopic('heartbeats', 'source', 'heartbeats', False, -1, 'heartbeats.topic.replication.factor')]


def clusters() -> Dict[str, FakeAdminSide]:
    """The readiness lab with its internal topics compacted, and the Connect cluster's Kafka."""
    source, target = lab(copied=range(60), syncs=[('foo.orders', 0, 0, 0), ('foo.orders', 0, 59, 59)],
                         checkpoints=(('app', 45, 45, 3.0),))
    source.partitions['heartbeats'] = 1
    source.configs.update({SYNCS_TOPIC: dict(COMPACT), 'heartbeats': {}})
    target.configs[CHECKPOINTS_TOPIC] = dict(COMPACT)
    connect = FakeAdminSide('connect', partitions={topic.name: 1 for topic in CONNECT_TOPICS},
                            configs={topic.name: dict(COMPACT) for topic in CONNECT_TOPICS})
    return {'source': source, 'target': target, 'connect': connect}


def run(sides: Dict[str, FakeAdminSide], topics: Any = None, **changes: Any) -> Dict[str, Any]:
    wanted = CONNECT_TOPICS + MM2_TOPICS if topics is None else topics
    report = Readiness(request(internal_topics=wanted, **changes), sides['source'], sides['target'],
                       clock=FakeClock(NOW), connect=sides.get('connect')).run().as_dict()
    json.dumps(report)  # the JSON document
    return report


def test_right_internal_topics_keep_the_flow_ready() -> None:
    report = run(clusters())
    assert report['verdict'] == READY and report['warnings'] == []
    assert [(entry['topic'], entry['side'], entry['exists'], entry['findings']) for entry in report['internal_topics']] == [
        (CONFIGS_TOPIC, 'connect', True, []), ('connect-mm2-offsets', 'connect', True, []),
        ('connect-mm2-status', 'connect', True, []), (CHECKPOINTS_TOPIC, 'target', True, []),
        (SYNCS_TOPIC, 'source', True, []), ('heartbeats', 'source', True, [])]
    assert report['summary']['internal_topic_problems'] == 0
    assert 'Internal topics: as they should be' in render_text(report)


def test_a_connect_topic_set_to_delete_is_a_problem_named_with_its_fix() -> None:
    sides = clusters()
    sides['connect'].configs[CONFIGS_TOPIC] = {'cleanup.policy': 'delete'}
    report = run(sides)
    assert report['verdict'] == NOT_READY and report['summary']['internal_topic_problems'] == 1
    (problem,) = report['problems']
    assert problem.startswith('connect-mm2-configs (Connect\'s config topic (config.storage.topic) on the Connect '
                              'cluster\'s Kafka): cleanup.policy delete, must be compact')
    assert problem.endswith('; fix: kafka-configs.sh --bootstrap-server ' + CONNECT_BOOTSTRAP + ' --command-config <client properties> '
                            '--entity-type topics --entity-name connect-mm2-configs --alter --add-config cleanup.policy=compact')
    entry = report['internal_topics'][0]
    assert (entry['cleanup_policy'], entry['findings'][0]['setting'], entry['findings'][0]['severity']) == \
        ('delete', 'cleanup.policy', 'problem')
    text = render_text(report)
    assert 'Internal topics: 1 topic wrong' in text
    assert 'connect-mm2-configs            config        connect  delete          1         1         1           PROBLEM' in text
    assert '    fix: kafka-configs.sh --bootstrap-server ' + CONNECT_BOOTSTRAP in text


def test_mm2_topics_set_to_delete_are_problems_on_their_own_cluster() -> None:
    sides = clusters()
    sides['target'].configs[CHECKPOINTS_TOPIC] = {'cleanup.policy': 'delete'}
    sides['source'].configs[SYNCS_TOPIC] = {'cleanup.policy': 'compact,delete'}
    report = run(sides, topics=MM2_TOPICS)
    assert report['verdict'] == NOT_READY
    assert [problem.split(' (')[0] for problem in report['problems']] == [CHECKPOINTS_TOPIC, SYNCS_TOPIC]
    assert 'on dst): cleanup.policy delete' in report['problems'][0]
    assert '--bootstrap-server <bootstrap servers of src> --command-config' in report['problems'][1]


def test_low_durability_only_warns() -> None:
    sides = clusters()
    sides['connect'].broker = {'default.replication.factor': '3'}
    sides['connect'].replication = {topic.name: 3 for topic in CONNECT_TOPICS}
    sides['connect'].configs = {topic.name: dict(COMPACT, **{'min.insync.replicas': '2'}) for topic in CONNECT_TOPICS}
    sides['connect'].configs['connect-mm2-status']['min.insync.replicas'] = '1'
    report = run(sides, topics=CONNECT_TOPICS)
    assert report['verdict'] == READY
    assert len(report['warnings']) == 1 and report['warnings'][0].startswith(
        'connect-mm2-status (Connect\'s status topic (status.storage.topic) on the Connect cluster\'s Kafka): '
        'min.insync.replicas 1 with 3 replicas')


def test_missing_and_unreadable_internal_topics_are_warnings_once() -> None:
    sides = clusters()
    del sides['connect'].partitions['connect-mm2-status']
    del sides['source'].logs[(SYNCS_TOPIC, 0)]

    describe = sides['source'].describe_topics

    def refused(names: Any) -> Any:
        if 'heartbeats' in names:
            raise KafkaSideError('src', 'describe topics', 'TopicAuthorizationException: Not authorized to access topics')
        return describe(names)

    report = run(sides)
    assert report['problems'] == []
    missing = [text for text in report['warnings'] if 'does not exist' in text]
    assert missing == ['the offset-syncs topic mm2-offset-syncs.dst.internal does not exist on cluster src',
                       'Connect\'s status topic (status.storage.topic) connect-mm2-status does not exist on the '
                       'Connect cluster\'s Kafka']
    assert [entry['exists'] for entry in report['internal_topics']] == [True, True, False, True, False, True]
    sides['source'].describe_topics = refused  # type: ignore[method-assign]
    unread = run(sides, topics=MM2_TOPICS[2:])
    assert [entry['note'] for entry in unread['internal_topics']] == ['not checked: the account may not read it']
    assert sum('internal topic heartbeats on src: not checked, the account is not allowed to read it' in text
               for text in unread['warnings']) == 1


def test_without_a_client_for_the_connect_cluster_its_topics_are_not_checked() -> None:
    sides = clusters()
    del sides['connect']
    report = run(sides, topics=CONNECT_TOPICS[:1])
    assert report['internal_topics'][0]['note'] == 'not checked: no client for the Connect cluster\'s Kafka'
    assert report['verdict'] == READY


def test_the_module_arguments_make_the_specs() -> None:
    params = {name: None for name in ('flow', 'checkpoints_topic', 'offset_syncs_topic', 'last_failover_report')}
    params.update(source_alias='src', target_alias='dst', replication_policy='default', separator='.',
                  offset_syncs_location='source', topics_regex='', groups=[], groups_regex='', flow_groups=['.*'],
                  flow_groups_exclude=[], offset_lag_max=100, rpo_seconds=60.0, rto_seconds=0.0, consumers=[],
                  producers=[], known_topic_ids={}, last_failover_report_path='', max_scan_records=10,
                  source_client={'bootstrap.servers': 'src:9092'}, target_client={'bootstrap.servers': 'dst:9092'},
                  connect_client={'bootstrap.servers': 'dst:9093'},
                  internal_topics=[{'name': CONFIGS_TOPIC, 'side': 'connect', 'kind': 'config', 'compacted': True,
                                    'replication_factor': 3, 'setting': 'config.storage.replication.factor'}])
    built = build_request(params)
    assert built.internal_topics == [InternalTopic(CONFIGS_TOPIC, 'connect', 'config', True, 3,
                                                   'config.storage.replication.factor')]
    assert input_errors(params) == []
    assert input_errors(dict(params, connect_client={})) == [
        'internal topic connect-mm2-configs of the Connect cluster needs connect_client with bootstrap.servers']
