# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Topics each cluster must hold once a flow runs, and which connectors need tasks."""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils import mm2_expect

PlanOk = Callable[..., Dict[str, Any]]


def expect(result: Dict[str, Any], topics: Dict[str, List[str]]) -> Dict[str, Any]:
    return mm2_expect.expect({'flows': result['flows'], 'topics': topics, 'timeout_seconds': 60})


def test_default_policy_names_remote_topics_and_internal_topics(plan_ok: PlanOk) -> None:
    source_topics = ['foo.orders', 'foo.late', 'bar.orders', '__consumer_offsets', 'foo.x.internal',
                     'mm2-offset-syncs.dst.internal', 'foo.copy.replica']
    expected = expect(plan_ok(), {'src': source_topics})
    # Heartbeats are written on the source (heartbeats_topic_location: source) and mirrored to the target.
    assert expected['expected_topics'] == {
        'dst': ['src.checkpoints.internal', 'src.foo.late', 'src.foo.orders', 'src.heartbeats'],
        'src': ['heartbeats', 'mm2-offset-syncs.dst.internal'],
    }
    assert expected['min_tasks'] == {'mm2-src-dst-source': 1, 'mm2-src-dst-checkpoint': 0, 'mm2-src-dst-heartbeat': 1}
    assert expected['log_append_time_topics'] == {'dst': ['src.heartbeats']}


def test_heartbeats_on_the_target_are_stock_mm2(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'heartbeats_topic_location': 'target'}]
    expected = expect(plan_ok(flows=flows), {'src': ['foo.orders']})
    assert expected['expected_topics'] == {
        'dst': ['heartbeats', 'src.checkpoints.internal', 'src.foo.orders'],
        'src': ['mm2-offset-syncs.dst.internal'],
    }
    assert expected['log_append_time_topics'] == {} and expected['log_append_time_patterns'] == {}
    # Heartbeats some other writer keeps on the source are still mirrored, and still get broker timestamps.
    expected = expect(plan_ok(flows=flows), {'src': ['foo.orders', 'heartbeats']})
    assert 'src.heartbeats' in expected['expected_topics']['dst']
    assert expected['log_append_time_topics'] == {'dst': ['src.heartbeats']}


def test_remote_heartbeats_are_expected_only_when_emitted_and_replicated(plan_ok: PlanOk) -> None:
    silent = [{'source': 'src', 'target': 'dst', 'emit_heartbeats': False}]
    expected = expect(plan_ok(flows=silent), {'src': ['foo.orders']})
    # The connector still creates its (empty) topic when it starts.
    assert 'heartbeats' in expected['expected_topics']['src']
    assert 'src.heartbeats' not in expected['expected_topics']['dst'] and expected['log_append_time_topics'] == {}
    # Without heartbeats.replication.enabled only the topic filter decides (".*" would still take heartbeats).
    unreplicated = [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*'],
                     'extra_config': {'source': {'heartbeats.replication.enabled': False}}}]
    expected = expect(plan_ok(flows=unreplicated), {'src': ['foo.orders', 'heartbeats']})
    assert 'src.heartbeats' not in expected['expected_topics']['dst']


def test_remote_heartbeats_wait_for_the_refresh_interval(plan_ok: PlanOk) -> None:
    # The source listing predates the heartbeats topic: the source connector finds it at its next refresh.
    flows = [{'source': 'src', 'target': 'dst', 'refresh_topics_interval_seconds': 300}]
    expected = expect(plan_ok(flows=flows), {'src': []})
    assert expected['expected_topics']['dst'] == ['src.checkpoints.internal', 'src.heartbeats']
    assert expected['timeouts'] == {'dst': 360, 'src': 60}
    assert expected['min_tasks']['mm2-src-dst-source'] == 0


def test_bidirectional_heartbeats_do_not_loop(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['.*']}, {'source': 'dst', 'target': 'src', 'topics': ['.*']}]
    listings = {'src': ['heartbeats', 'dst.heartbeats'], 'dst': ['heartbeats', 'src.heartbeats']}
    expected = expect(plan_ok(flows=flows), listings)
    assert [topic for topic in expected['expected_topics']['dst'] if topic.endswith('heartbeats')] == ['heartbeats', 'src.heartbeats']
    assert [topic for topic in expected['expected_topics']['src'] if topic.endswith('heartbeats')] == ['dst.heartbeats', 'heartbeats']
    assert expected['log_append_time_topics'] == {'dst': ['src.heartbeats'], 'src': ['dst.heartbeats']}


def test_heartbeats_are_mirrored_and_cycles_are_not(plan_ok: PlanOk) -> None:
    # src holds its own heartbeats and topics that came from dst (dst.foo.*) or through dst (x.dst.foo.*).
    source_topics = ['heartbeats', 'dst.foo.orders', 'other.dst.foo.orders', 'other.foo.orders', 'dst.heartbeats']
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['.*foo\\..*']}]
    expected = expect(plan_ok(flows=flows), {'src': source_topics})
    remote = [topic for topic in expected['expected_topics']['dst'] if topic.startswith('src.') and not topic.endswith('.internal')]
    assert remote == ['src.heartbeats', 'src.other.foo.orders']


def test_identity_policy_keeps_names_except_heartbeats(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'replication_policy': 'identity', 'offset_syncs_topic_location': 'target'}]
    expected = expect(plan_ok(flows=flows), {'src': ['orders', 'heartbeats']})
    assert expected['expected_topics'] == {
        'dst': ['mm2-offset-syncs.src.internal', 'orders', 'src.checkpoints.internal', 'src.heartbeats'],
        'src': ['heartbeats'],
    }
    # The identity policy prefixes heartbeats too: broker timestamps go on src.heartbeats all the same.
    assert expected['log_append_time_topics'] == {'dst': ['src.heartbeats']}


def test_custom_separator_shapes_remote_and_internal_names(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'separator': '_', 'topics': ['foo_.*']}]
    expected = expect(plan_ok(flows=flows), {'src': ['foo_orders', 'dst_foo_orders']})
    assert expected['expected_topics'] == {
        'dst': ['src_checkpoints_internal', 'src_foo_orders', 'src_heartbeats'],
        'src': ['heartbeats', 'mm2-offset-syncs_dst_internal'],
    }
    assert expected['log_append_time_patterns'] == {'dst': 'src_heartbeats'}
    # One describe run per cluster shows exactly its expected topics.
    for alias, topics in expected['expected_topics'].items():
        candidates = topics + ['src.checkpoints.internal', 'src_foo_orders_copy', 'foo_orders']
        assert sorted({name for name in candidates if re.fullmatch(expected['expected_patterns'][alias], name)}) == topics


def test_explicit_exclude_replaces_mm2_default(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['.*'], 'topics_exclude': ['tmp\\..*']}]
    expected = expect(plan_ok(flows=flows), {'src': ['orders', 'tmp.orders', 'orders.replica']})
    assert 'src.orders.replica' in expected['expected_topics']['dst']
    assert 'src.tmp.orders' not in expected['expected_topics']['dst']


def test_no_matching_topic_means_no_source_task_yet(plan_ok: PlanOk) -> None:
    expected = expect(plan_ok(), {'src': ['bar.orders']})
    assert expected['min_tasks']['mm2-src-dst-source'] == 0
    flows = [{'source': 'src', 'target': 'dst', 'emit_heartbeats': False}]
    assert expect(plan_ok(flows=flows), {'src': []})['min_tasks']['mm2-src-dst-heartbeat'] == 0


def test_remote_topics_wait_for_the_refresh_interval(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'refresh_topics_interval_seconds': 300}]
    expected = expect(plan_ok(flows=flows), {'src': ['foo.orders']})
    assert expected['timeouts'] == {'dst': 360, 'src': 60}


def test_custom_policy_or_filter_skips_topic_checks(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'extra_config': {
        'source': {'replication.policy.class': 'com.example.RenamingPolicy'}}}]
    expected = expect(plan_ok(flows=flows), {'src': ['foo.orders']})
    assert expected['unverified_flows'] == ['src-dst'] and expected['expected_topics'] == {}


def test_present_topics_give_what_each_cluster_lacks(plan_ok) -> None:
    from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_expect import expect
    planned = plan_ok()
    answer = expect({'flows': planned['flows'], 'topics': {'src': ['foo.a', 'foo.b', 'bar']},
                     'present': {'dst': ['src.foo.a', 'src.heartbeats', 'src.checkpoints.internal']}})
    assert answer['missing_topics'] == {'dst': ['src.foo.b']}
    # A topic the source no longer holds is no longer expected.
    answer = expect({'flows': planned['flows'], 'topics': {'src': ['foo.a']},
                     'present': {'dst': ['src.foo.a', 'src.heartbeats', 'src.checkpoints.internal']}})
    assert answer['missing_topics'] == {'dst': []}
