# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which replicated heartbeats topics still need LogAppendTime, read from TopicCommand --describe."""

from __future__ import annotations

import re

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_topic_configs import (
    describe_pattern,
    log_append_time,
    parse_topic_configs,
    topic_names,
)

# TopicCommand --describe of Kafka 4.3: a line per topic with the configs not at Kafka's default, then its partitions.
DESCRIBED = (
    'Topic: a.heartbeats\tTopicId: eYvZB266SCW6JuAmBnXkUQ\tPartitionCount: 1\tReplicationFactor: 1\t'
    'Configs: min.insync.replicas=1,message.timestamp.type=LogAppendTime\n'
    '\tTopic: a.heartbeats\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: \n'
    'Topic: src.heartbeats\tTopicId: _6azyUI5SnCg2Rj7DUivoA\tPartitionCount: 1\tReplicationFactor: 1\t'
    'Configs: cleanup.policy=compact,delete,min.insync.replicas=1\n'
    '\tTopic: src.heartbeats\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: \n'
    'Topic: bare.heartbeats\tTopicId: E75l7pv9RbGeXdoaDr9dhA\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n'
)


def test_configs_are_read_per_topic_with_commas_in_values() -> None:
    assert parse_topic_configs(DESCRIBED) == {
        'a.heartbeats': {'min.insync.replicas': '1', 'message.timestamp.type': 'LogAppendTime'},
        'src.heartbeats': {'cleanup.policy': 'compact,delete', 'min.insync.replicas': '1'},
        'bare.heartbeats': {},
    }


def test_only_topics_without_log_append_time_are_altered() -> None:
    wanted = {'dst': ['src.heartbeats', 'a.heartbeats', 'bare.heartbeats', 'late.heartbeats']}
    answer = log_append_time({'wanted': wanted, 'described': {'dst': DESCRIBED}})
    assert answer['to_alter'] == [{'alias': 'dst', 'topic': 'bare.heartbeats'}, {'alias': 'dst', 'topic': 'src.heartbeats'}]
    assert answer['absent'] == {'dst': ['late.heartbeats']}


def test_a_rerun_after_the_change_alters_nothing() -> None:
    described = DESCRIBED.replace('Configs: cleanup.policy=compact,delete,', 'Configs: message.timestamp.type=LogAppendTime,')
    answer = log_append_time({'wanted': {'dst': ['src.heartbeats', 'a.heartbeats']}, 'described': {'dst': described}})
    assert answer == {'errors': [], 'to_alter': [], 'absent': {}}


def test_a_cluster_without_output_has_every_topic_absent() -> None:
    assert log_append_time({'wanted': {'dst': ['src.heartbeats']}})['absent'] == {'dst': ['src.heartbeats']}


def test_the_describe_pattern_matches_exactly_the_wanted_names() -> None:
    pattern = describe_pattern(['src.heartbeats', 'src_heartbeats', 'src.heartbeats'])
    names = ['src.heartbeats', 'src_heartbeats', 'srcXheartbeats', 'src.heartbeats.copy', 'us.src.heartbeats']
    assert [name for name in names if re.fullmatch(pattern, name)] == ['src.heartbeats', 'src_heartbeats']


def test_topic_names_come_from_a_description_or_a_listing() -> None:
    assert topic_names(DESCRIBED) == ['a.heartbeats', 'bare.heartbeats', 'src.heartbeats']
    assert topic_names('src.orders\n__consumer_offsets\n\nsrc.heartbeats\n') == ['__consumer_offsets', 'src.heartbeats', 'src.orders']
    assert topic_names('') == []


def test_a_description_of_the_expected_topics_gives_their_timestamp_types() -> None:
    """The topic check describes every expected topic of a cluster: its output serves both the
    wait for the topics and the heartbeats' timestamp type."""
    pattern = describe_pattern(['src.heartbeats', 'a.heartbeats', 'bare.heartbeats'])
    assert all(re.fullmatch(pattern, name) for name in topic_names(DESCRIBED))
    answer = log_append_time({'wanted': {'dst': ['src.heartbeats']}, 'described': {'dst': DESCRIBED}})
    assert answer['to_alter'] == [{'alias': 'dst', 'topic': 'src.heartbeats'}]
