"""topic_names reads the topic names of a TopicCommand output for the roles' topic checks."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.topic_names import topic_names

DESCRIBED = (
    'Topic: src.orders\tTopicId: eYvZB266SCW6JuAmBnXkUQ\tPartitionCount: 2\tReplicationFactor: 1\tConfigs: \n'
    '\tTopic: src.orders\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: \n'
    '\tTopic: src.orders\tPartition: 1\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: \n'
    'Topic: src.heartbeats\tTopicId: _6azyUI5SnCg2Rj7DUivoA\tPartitionCount: 1\tReplicationFactor: 1\t'
    'Configs: message.timestamp.type=LogAppendTime\n'
    '\tTopic: src.heartbeats\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: \n'
)


def test_names_of_a_description_skip_its_partition_lines() -> None:
    assert topic_names(DESCRIBED) == ['src.heartbeats', 'src.orders']


def test_names_of_a_listing_are_its_lines() -> None:
    assert topic_names('src.orders\nsrc.heartbeats\n') == ['src.heartbeats', 'src.orders']


def test_a_result_without_output_is_refused() -> None:
    with pytest.raises(AnsibleFilterError, match='must be a tool'):
        topic_names(['src.orders'])
