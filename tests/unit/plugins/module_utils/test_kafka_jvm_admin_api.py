# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Java API the readiness reads call exists in the Kafka client jars, spelled as kafka_jvm calls it
(a cluster is not needed to find a missing method: py4j resolves names by reflection)."""

from __future__ import annotations

from typing import Any, List

import pytest

pytestmark = pytest.mark.spark  # starts a JVM (fixture jvm of tests/unit/conftest.py)


def methods(jvm: Any, class_name: str) -> List[str]:
    return sorted({str(method.getName()) for method in jvm.java.lang.Class.forName(class_name).getMethods()})


def test_the_admin_and_consumer_methods_exist(jvm: Any) -> None:
    admin = methods(jvm, 'org.apache.kafka.clients.admin.Admin')
    for name in ('listTopics', 'describeTopics', 'describeConfigs', 'describeCluster', 'describeAcls'):
        assert name in admin, name
    assert 'beginningOffsets' in methods(jvm, 'org.apache.kafka.clients.consumer.KafkaConsumer')
    described = methods(jvm, 'org.apache.kafka.clients.admin.DescribeTopicsResult')
    assert 'topicNameValues' in described or 'values' in described
    assert 'topicId' in methods(jvm, 'org.apache.kafka.clients.admin.TopicDescription')
    assert 'idString' in methods(jvm, 'org.apache.kafka.common.Node')


def test_the_enums_and_constants_resolve(jvm: Any) -> None:
    kinds = jvm.org.apache.kafka.common.config.ConfigResource.Type
    assert str(kinds.TOPIC.toString()) == 'TOPIC' and str(kinds.BROKER.toString()) == 'BROKER'
    assert jvm.org.apache.kafka.common.acl.AclBindingFilter.ANY is not None
    # The spellings kafka_acls compares with: the enums' names.
    assert str(jvm.org.apache.kafka.common.acl.AclOperation.DESCRIBE_CONFIGS.toString()) == 'DESCRIBE_CONFIGS'
    assert str(jvm.org.apache.kafka.common.resource.PatternType.PREFIXED.toString()) == 'PREFIXED'
    assert str(jvm.org.apache.kafka.common.resource.ResourceType.TRANSACTIONAL_ID.toString()) == 'TRANSACTIONAL_ID'
