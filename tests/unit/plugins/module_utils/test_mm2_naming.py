# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""MM2's topic names under DefaultReplicationPolicy and IdentityReplicationPolicy, for any separator."""

from __future__ import annotations

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_naming import (
    DEFAULT_POLICY_CLASS,
    IDENTITY_POLICY_CLASS,
    ReplicationNaming,
    policy_name,
)

SEPARATORS = ['.', '_', '-']
POLICIES = ['default', 'identity']


@pytest.mark.parametrize('separator', SEPARATORS)
def test_default_policy_prefixes_remote_topics_with_the_source_alias(separator: str) -> None:
    naming = ReplicationNaming('default', separator)
    assert naming.remote_topic('src', 'orders') == 'src%sorders' % separator
    assert naming.remote_topic('src', 'heartbeats') == 'src%sheartbeats' % separator
    remote = 'src%sfoo%sorders' % (separator, separator)
    assert naming.topic_source(remote) == 'src'
    assert naming.upstream_topic(remote) == 'foo%sorders' % separator
    assert naming.topic_source('orders') is None and naming.upstream_topic('orders') is None


@pytest.mark.parametrize('separator', SEPARATORS)
def test_identity_policy_keeps_names_but_prefixes_heartbeats(separator: str) -> None:
    naming = ReplicationNaming('identity', separator)
    assert naming.remote_topic('src', 'orders') == 'orders'
    assert naming.remote_topic('src', 'heartbeats') == 'src%sheartbeats' % separator
    # IdentityReplicationPolicy's test is "ends with the heartbeats topic name".
    assert naming.remote_topic('src', 'app-heartbeats') == 'src%sapp-heartbeats' % separator
    assert naming.upstream_topic('orders') == 'orders'
    assert naming.topic_source('src%sheartbeats' % separator) == 'src'
    assert naming.remote_heartbeats_topic('src') == 'src%sheartbeats' % separator


def test_identity_policy_answers_its_configured_source_for_any_other_topic() -> None:
    naming = ReplicationNaming.from_config({'replication.policy.class': IDENTITY_POLICY_CLASS, 'source.cluster.alias': 'src'})
    assert naming is not None and naming.topic_source('orders') == 'src'
    assert not naming.is_cycle('orders', 'dst')


@pytest.mark.parametrize('policy', POLICIES)
@pytest.mark.parametrize('separator', SEPARATORS)
def test_internal_topics_carry_the_separator_under_both_policies(policy: str, separator: str) -> None:
    naming = ReplicationNaming(policy, separator)
    assert naming.checkpoints_topic('src') == 'src{0}checkpoints{0}internal'.format(separator)
    assert naming.offset_syncs_topic('dst') == 'mm2-offset-syncs{0}dst{0}internal'.format(separator)
    assert naming.heartbeats_topic == 'heartbeats'
    assert naming.is_internal_topic('src{0}checkpoints{0}internal'.format(separator))


@pytest.mark.parametrize('separator', SEPARATORS)
def test_internal_topics_keep_dots_when_the_internal_separator_is_disabled(separator: str) -> None:
    naming = ReplicationNaming.from_config({
        'replication.policy.separator': separator,
        'replication.policy.internal.topic.separator.enabled': 'false',
    })
    assert naming is not None
    assert naming.checkpoints_topic('src') == 'src.checkpoints.internal'
    assert naming.offset_syncs_topic('dst') == 'mm2-offset-syncs.dst.internal'
    assert naming.remote_topic('src', 'orders') == 'src%sorders' % separator


@pytest.mark.parametrize('policy', POLICIES)
@pytest.mark.parametrize('separator', SEPARATORS)
@pytest.mark.parametrize(('location', 'holder', 'named_after'), [('source', 'src', 'dst'), ('target', 'dst', 'src')])
def test_offset_syncs_topic_is_named_after_the_cluster_it_does_not_live_on(
        policy: str, separator: str, location: str, holder: str, named_after: str) -> None:
    naming = ReplicationNaming(policy, separator)
    assert naming.offset_syncs_placement('src', 'dst', location) == (
        holder, 'mm2-offset-syncs{0}{1}{0}internal'.format(separator, named_after))


def test_unknown_offset_syncs_location_and_policy_are_refused() -> None:
    with pytest.raises(ValueError, match='source or target'):
        ReplicationNaming().offset_syncs_placement('src', 'dst', 'middle')
    with pytest.raises(ValueError, match='default, identity'):
        ReplicationNaming('renaming')
    with pytest.raises(ValueError, match='must not be empty'):
        ReplicationNaming('default', '')


def test_original_topic_follows_every_hop() -> None:
    naming = ReplicationNaming()
    assert naming.original_topic('a.b.orders') == 'orders'
    assert naming.is_heartbeats_topic('heartbeats') and naming.is_heartbeats_topic('a.b.heartbeats')
    assert not naming.is_heartbeats_topic('heartbeats.audit')


def test_trailing_separators_are_dropped_as_java_splits() -> None:
    naming = ReplicationNaming()
    assert naming.topic_source('src.') is None
    assert naming.topic_source('src..') is None


def test_cycles_are_topics_that_came_from_the_target_at_any_hop() -> None:
    naming = ReplicationNaming()
    assert naming.is_cycle('dst.orders', 'dst')
    assert naming.is_cycle('other.dst.orders', 'dst')
    assert not naming.is_cycle('other.orders', 'dst')
    assert not naming.is_cycle('orders', 'dst')


def test_policy_classes_are_recognised_and_custom_ones_are_not() -> None:
    assert policy_name(' ' + DEFAULT_POLICY_CLASS) == 'default'
    assert policy_name(IDENTITY_POLICY_CLASS) == 'identity'
    assert policy_name('com.example.RenamingPolicy') is None
    assert ReplicationNaming.from_config({'replication.policy.class': 'com.example.RenamingPolicy'}) is None
    assert ReplicationNaming.from_config({}) == ReplicationNaming()


def test_a_renamed_heartbeats_topic_is_followed() -> None:
    naming = ReplicationNaming.from_config({'default.replication.policy.heartbeats.topic.name': 'beats'})
    assert naming is not None and naming.heartbeats_topic == 'beats'
    assert naming.is_heartbeats_topic('src.beats') and not naming.is_heartbeats_topic('src.heartbeats')
