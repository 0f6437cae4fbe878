# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One flow described for a replication check: clusters, topics and MM2's names for it."""

from __future__ import annotations

import re
from typing import Any, Dict, List

import pytest

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_describe import MM2_FLOW_DEFAULTS, describe_flow

CLUSTERS = {
    'src': {'bootstrap_servers': ['src-kafka-1:9094', 'src-kafka-2:9094'], 'security_protocol': 'SASL_SSL'},
    'dst': {'bootstrap_servers': 'dst-kafka-1:9094'},
}


def describe(flow: str = 'src->dst', flows: Any = None, **parts: Any) -> Dict[str, Any]:
    request = {'flow': flow, 'clusters': CLUSTERS, 'site_defaults': {},
               'flows': [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*']}] if flows is None else flows}
    request.update(parts)
    return describe_flow(request)


def described(**parts: Any) -> Dict[str, Any]:
    result = describe(**parts)
    assert result['errors'] == []
    return result


def selected(regex: str, topics: List[str]) -> List[str]:
    return [topic for topic in topics if re.fullmatch(regex, topic)]


def test_the_lab_flow_gives_aliases_bootstraps_and_names() -> None:
    result = described()
    assert {key: result[key] for key in ('source_alias', 'target_alias', 'source_bootstrap', 'target_bootstrap')} == {
        'source_alias': 'src', 'target_alias': 'dst',
        'source_bootstrap': 'src-kafka-1:9094,src-kafka-2:9094', 'target_bootstrap': 'dst-kafka-1:9094'}
    assert result['replication_policy'] == 'default' and result['separator'] == '.'
    assert result['checkpoints_topic'] == 'src.checkpoints.internal'
    assert result['offset_syncs_location'] == 'source'
    assert result['offset_syncs_topic'] == 'mm2-offset-syncs.dst.internal'
    assert result['offset_syncs_bootstrap'] == 'src-kafka-1:9094,src-kafka-2:9094'
    assert result['heartbeats_topic'] == 'heartbeats' and result['remote_heartbeats_topic'] == 'src.heartbeats'
    assert (result['heartbeats_location'], result['heartbeats_alias']) == ('source', 'src')


def test_heartbeats_kept_on_the_target_are_described_there() -> None:
    result = described(site_defaults={'heartbeats_topic_location': 'target'})
    assert (result['heartbeats_location'], result['heartbeats_alias']) == ('target', 'dst')
    assert result['remote_heartbeats_topic'] == 'src.heartbeats'


def test_a_bad_heartbeats_location_is_refused() -> None:
    result = describe(site_defaults={'heartbeats_topic_location': 'nowhere'})
    assert any('heartbeats_topic_location must be "source"' in error for error in result['errors'])


def test_offset_syncs_on_the_target_are_read_from_the_target() -> None:
    result = described(site_defaults={'offset_syncs_topic_location': 'target'})
    assert result['offset_syncs_location'] == 'target'
    assert result['offset_syncs_topic'] == 'mm2-offset-syncs.src.internal'
    assert result['offset_syncs_bootstrap'] == 'dst-kafka-1:9094'


@pytest.mark.parametrize('separator', ['_', '-'])
def test_a_custom_separator_shapes_every_name(separator: str) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'separator': separator, 'offset_syncs_topic_location': 'target'}]
    result = described(flows=flows)
    assert result['separator'] == separator
    assert result['checkpoints_topic'] == 'src{0}checkpoints{0}internal'.format(separator)
    assert result['offset_syncs_topic'] == 'mm2-offset-syncs{0}src{0}internal'.format(separator)
    assert result['remote_heartbeats_topic'] == 'src%sheartbeats' % separator


def test_identity_policy_and_connector_overrides_are_followed() -> None:
    flows = [{'source': 'src', 'target': 'dst', 'replication_policy': 'identity', 'separator': '_', 'extra_config': {
        'source': {'replication.policy.internal.topic.separator.enabled': False},
        'checkpoint': {'replication.policy.internal.topic.separator.enabled': 'false'}}}]
    result = described(flows=flows)
    assert result['replication_policy'] == 'identity'
    assert result['checkpoints_topic'] == 'src.checkpoints.internal'
    assert result['offset_syncs_topic'] == 'mm2-offset-syncs.dst.internal'


def test_topics_regex_is_the_flow_selection_as_mm2_makes_it() -> None:
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*', 'bar'], 'topics_exclude': ['foo\\.tmp\\..*']}]
    regex = described(flows=flows)['topics_regex']
    topics = ['foo.orders', 'bar', 'barn', 'foo.tmp.x', 'xfoo.orders', 'foo.x.internal', 'dst.foo.orders']
    assert selected(regex, topics) == ['foo.orders', 'bar']


def test_default_selection_skips_internal_topics_and_what_came_from_the_target() -> None:
    regex = described(flows=[{'source': 'src', 'target': 'dst'}])['topics_regex']
    topics = ['orders', '__consumer_offsets', 'mm2-offset-syncs.dst.internal', 'orders.replica', 'connect-offsets-internal',
              'dst.orders', 'other.dst.orders', 'other.orders', 'dstx.orders']
    assert selected(regex, topics) == ['orders', 'other.orders', 'dstx.orders']


def test_identity_selection_keeps_topics_named_like_the_target() -> None:
    regex = described(flows=[{'source': 'src', 'target': 'dst', 'replication_policy': 'identity'}])['topics_regex']
    assert selected(regex, ['dst.orders', 'orders']) == ['dst.orders', 'orders']


def test_a_flow_is_found_by_its_name_when_two_join_the_same_clusters() -> None:
    flows = [{'source': 'src', 'target': 'dst', 'name': 'orders', 'topics': ['orders\\..*']},
             {'source': 'src', 'target': 'dst', 'name': 'audit', 'topics': ['audit\\..*']}]
    assert 'name one by its name' in '\n'.join(describe(flows=flows)['errors'])
    result = described(flow='audit', flows=flows)
    assert result['name'] == 'audit' and selected(result['topics_regex'], ['audit.x', 'orders.x']) == ['audit.x']
    assert described(flow=' src -> dst ', flows=flows[:1])['name'] == 'orders'


@pytest.mark.parametrize(('parts', 'message'), [
    ({'flow': 'dst->src'}, 'no flow of mm2_flows is "<source>-><target>" or named so (flows: src->dst (src-dst))'),
    ({'flows': [{'source': 'src', 'target': 'nowhere'}], 'flow': 'src->nowhere'}, 'target "nowhere" is not a cluster alias'),
    ({'flows': [{'source': 'src', 'target': 'dst', 'separator': ''}]}, 'separator must be a non-empty string'),
    ({'flows': [{'source': 'src', 'target': 'dst', 'topics': ['foo(']}]}, 'is not a valid regular expression'),
    ({'flows': [{'source': 'src', 'target': 'dst', 'extra_config': {
        'source': {'replication.policy.class': 'com.example.RenamingPolicy'}}}]}, 'uses the custom replication policy'),
    ({'flows': [{'source': 'src', 'target': 'dst', 'extra_config': {
        'source': {'offset-syncs.topic.location': 'middle'}}}]}, "sets offset-syncs.topic.location to 'middle'"),
    ({'clusters': {'src': {'bootstrap_servers': 'a;b'}, 'dst': {'bootstrap_servers': 'dst:9092'}}},
     'must be host:port, separated by commas'),
    ({'flows': 'src->dst'}, 'mm2_flows: must be a list of flows'),
])
def test_problems_are_reported(parts: Dict[str, Any], message: str) -> None:
    result = describe(**parts)
    assert message in '\n'.join(result['errors'])
    assert set(result) == {'errors'}


def test_built_in_defaults_agree_with_mm2_defaults(builtin_defaults: Dict[str, Any]) -> None:
    """Without the mirrormaker role's built-in defaults the description falls back to MM2's: they must agree."""
    for option, value in MM2_FLOW_DEFAULTS.items():
        assert builtin_defaults[option] == value, option
    with_role_defaults = described(builtin_defaults=builtin_defaults)
    assert with_role_defaults == described()


@pytest.mark.parametrize(('flow_options', 'exactly_once'), [
    ({}, False),
    ({'exactly_once': True}, True),
    ({'exactly_once': 'yes'}, True),
    ({'exactly_once': False}, False),
    ({'extra_config': {'source': {'exactly.once.support': 'required'}}}, True),
    ({'exactly_once': True, 'extra_config': {'source': {'exactly.once.support': 'requested'}}}, False),
])
def test_the_delivery_guarantee_follows_the_flow(flow_options: Dict[str, Any], exactly_once: bool) -> None:
    flows = [dict({'source': 'src', 'target': 'dst'}, **flow_options)]
    assert described(flows=flows)['exactly_once'] is exactly_once


def test_site_defaults_can_make_every_flow_exactly_once() -> None:
    assert described(site_defaults={'exactly_once': True})['exactly_once'] is True
    assert MM2_FLOW_DEFAULTS['exactly_once'] is False
