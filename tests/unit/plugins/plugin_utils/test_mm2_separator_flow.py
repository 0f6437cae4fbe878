# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One flow with separator "_" through the whole model: the connectors the plan renders, the topics
the role then waits for, and the inputs the replication check derives all use MM2's "_" names."""

from __future__ import annotations

import re
from typing import Any, Callable, Dict

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_describe import describe_flow
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_expect import expect

FLOW = {'source': 'src', 'target': 'dst', 'separator': '_', 'topics': ['foo_.*'], 'offset_syncs_topic_location': 'target'}


def test_separator_underscore_from_plan_to_validator_inputs(
        plan_ok: Callable[..., Dict[str, Any]], lab_clusters: Dict[str, Any], builtin_defaults: Dict[str, Any]) -> None:
    planned = plan_ok(flows=[FLOW])
    for connector in planned['connectors']:
        assert connector['config']['replication.policy.separator'] == '_', connector['name']

    expected = expect({'flows': planned['flows'], 'topics': {'src': ['foo_orders', 'dst_foo_orders', 'bar']},
                       'timeout_seconds': 60})
    # Heartbeats are written on src under their own name and replicated with the separator.
    assert expected['expected_topics'] == {
        'dst': ['mm2-offset-syncs_src_internal', 'src_checkpoints_internal', 'src_foo_orders', 'src_heartbeats'],
        'src': ['heartbeats'],
    }
    assert expected['log_append_time_topics'] == {'dst': ['src_heartbeats']}

    inputs = describe_flow({'flow': 'src->dst', 'clusters': lab_clusters, 'flows': [FLOW], 'site_defaults': {},
                            'builtin_defaults': builtin_defaults})
    assert inputs['errors'] == []
    assert inputs['separator'] == '_'
    assert inputs['checkpoints_topic'] == 'src_checkpoints_internal'
    assert inputs['offset_syncs_topic'] == 'mm2-offset-syncs_src_internal'
    assert inputs['offset_syncs_bootstrap'] == inputs['target_bootstrap'] == 'dst-kafka-1:9092'
    assert inputs['remote_heartbeats_topic'] == 'src_heartbeats'
    assert (inputs['heartbeats_location'], inputs['heartbeats_alias']) == ('source', 'src')
    assert inputs['remote_heartbeats_topic'] in expected['expected_topics']['dst']
    # The check validates exactly the source topics whose copies the role waits for.
    source_topics = ['foo_orders', 'dst_foo_orders', 'bar', 'foo_x_internal']
    assert [topic for topic in source_topics if re.fullmatch(inputs['topics_regex'], topic)] == ['foo_orders']
    # Both sides name the internal topics alike.
    assert {inputs['checkpoints_topic'], inputs['offset_syncs_topic']} <= set(expected['expected_topics']['dst'])
