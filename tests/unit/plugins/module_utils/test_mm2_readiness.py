# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The readiness figures against in-memory clusters: recovery point, failover cost, untranslated groups,
sentinels, topic configs, ACLs, recovery time and the verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_acls import AclBinding, AclNeed, allowed, parse_acl_listing
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import KafkaRecord, Member, TopicInfo
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_failover import Checkpoint, naming
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_readiness import (
    METHOD_AFTER_DRAIN,
    NOT_READY,
    READY,
    RP_NOTHING_COPIED,
    RP_OFFSET_SYNC,
    RP_RECORD,
    RP_UNKNOWN,
    PrincipalSpec,
    Readiness,
    ReadinessRequest,
    RecoveryPoint,
    Sync,
    check_principal,
    compare_topic,
    estimate_newest_copied,
    group_filter_reason,
    offset_syncs,
    recovery_point,
    recovery_time,
    render_text,
    resync_sentinels,
    sync_floor,
    topic_id_sentinels,
    truncation_sentinel,
    uncopied_counts,
    unplanned_cost,
    untranslated_reason,
)

from fake_kafka_side import FakeClock, checkpoint_record
from fake_readiness_side import FakeAdminSide, sync_log

NOW = 1_700_000_100.0
SRC_TP = ('foo.orders', 0)
DST_TP = ('src.foo.orders', 0)
SYNCS_TOPIC = 'mm2-offset-syncs.dst.internal'
CHECKPOINTS_TOPIC = 'src.checkpoints.internal'
FIXTURES = Path(__file__).resolve().parents[1] / 'fixtures'


def log(count: int, first: int = 0, newest_age_s: float = 10.0) -> List[KafkaRecord]:
    """Source records first..count-1, one second apart, the last one `newest_age_s` old."""
    last = count - 1
    return [KafkaRecord(offset, int((NOW - newest_age_s - (last - offset)) * 1000), b'k', b'value-%d' % offset, (('h', b'v'),))
            for offset in range(first, count)]


def copies(source: Sequence[KafkaRecord], offsets: Sequence[int], first_position: int = 0) -> List[KafkaRecord]:
    by_offset = {record.offset: record for record in source}
    return [KafkaRecord(first_position + position, by_offset[o].timestamp, by_offset[o].key, by_offset[o].value,
                        by_offset[o].headers) for position, o in enumerate(offsets)]


def request(**changes: Any) -> ReadinessRequest:
    remote, source = naming('default', 'src', '.')
    values: Dict[str, Any] = dict(flow='src->dst', source_alias='src', target_alias='dst', topics_regex=r'foo\..*',
                                  checkpoints_topic=CHECKPOINTS_TOPIC, offset_syncs_topic=SYNCS_TOPIC,
                                  offset_syncs_location='source', remote_topic=remote, source_topic=source,
                                  producer_topic=lambda topic: topic, rpo_seconds=60.0, max_scan_records=1000)
    values.update(changes)
    return ReadinessRequest(**values)


def lab(source_count: int = 60, copied: Sequence[int] = tuple(range(50)),
        syncs: Sequence[Tuple[str, int, int, int]] = (('foo.orders', 0, 0, 0), ('foo.orders', 0, 40, 40)),
        commits: Optional[Dict[str, Dict[Tuple[str, int], int]]] = None,
        checkpoints: Sequence[Tuple[str, int, int, float]] = (('app', 45, 41, 12.0),),
        first: int = 0) -> Tuple[FakeAdminSide, FakeAdminSide]:
    """Source foo.orders-0 with `source_count` records (the first `first` deleted), the target with copies of
    `copied`, offset syncs on the source, checkpoints (group, upstream, downstream, age) on the target."""
    source_records = log(source_count)
    source = FakeAdminSide('src', logs={SRC_TP: [r for r in source_records if r.offset >= first],
                                        (SYNCS_TOPIC, 0): sync_log(syncs)},
                           commits={'app': {SRC_TP: 45}} if commits is None else commits,
                           ends={SRC_TP: source_count}, topic_ids={'foo.orders': 'id-1'})
    target = FakeAdminSide('dst', logs={DST_TP: copies(source_records, copied), (CHECKPOINTS_TOPIC, 0): []},
                           partitions={'src.foo.orders': 1})
    for offset, (group, upstream, downstream, age) in enumerate(checkpoints):
        target.logs[(CHECKPOINTS_TOPIC, 0)].append(checkpoint_record(offset, group, DST_TP[0], 0, upstream, downstream,
                                                                     int((NOW - age) * 1000)))
    return source, target


def run(source: FakeAdminSide, target: FakeAdminSide, **changes: Any) -> Dict[str, Any]:
    report = Readiness(request(**changes), source, target, clock=FakeClock(NOW)).run().as_dict()
    json.dumps(report)  # the JSON document
    return report


def only_group_partition(report: Dict[str, Any], group: str = 'app') -> Dict[str, Any]:
    (found,) = [entry for entry in report['groups'] if entry['group'] == group]
    (part,) = found['partitions']
    return part


# ---- offset syncs and the recovery point -------------------------------------------------------

def test_offset_syncs_are_kept_per_partition_in_order_and_foreign_records_skipped() -> None:
    records = sync_log([('a', 0, 0, 0), ('a', 1, 5, 2), ('a', 0, 10, 7)]) + [KafkaRecord(3, 0, b'junk', b'x', ())]
    assert offset_syncs(records) == {('a', 0): [Sync(0, 0), Sync(10, 7)], ('a', 1): [Sync(5, 2)]}


def test_sync_floor_is_the_newest_sync_at_or_below_the_commit() -> None:
    syncs = [Sync(0, 0), Sync(40, 40), Sync(30, 50)]  # a replay after a restart wrote 30 at 50
    assert sync_floor(syncs, 45) == 50 and sync_floor(syncs, 35) == 50 and sync_floor(syncs, 20) == 0
    assert sync_floor([Sync(10, 5)], 3) == 0


@pytest.mark.parametrize(('source_end', 'target_end', 'sync', 'expected'), [
    (60, 50, Sync(40, 40), 49),      # 9 target records after the copy of 40: 41..49
    (60, 41, Sync(40, 40), 40),      # nothing after the sync
    (45, 50, Sync(40, 40), 44),      # capped at the source's last offset (target extras: markers, replays)
    (30, 50, Sync(40, 40), None),    # the source ends before the synced record: re-created or truncated
    (60, 40, Sync(40, 40), None),    # the target ends before the sync's downstream offset
])
def test_the_estimate_from_the_newest_sync(source_end: int, target_end: int, sync: Sync, expected: Optional[int]) -> None:
    estimate, why = estimate_newest_copied(source_end, target_end, sync)
    assert estimate == expected and bool(why) == (expected is None)


def test_uncopied_counts_and_their_bound() -> None:
    assert uncopied_counts(0, 60, 49, Sync(40, 40)) == (10, 19, 50)
    assert uncopied_counts(55, 60, 49, Sync(40, 40)) == (5, 5, 55)  # deleted records count as lost, not here
    assert uncopied_counts(0, 60, None, None) == (60, 60, 0)
    assert uncopied_counts(0, 60, 59, Sync(59, 80)) == (0, 0, 60)


def test_recovery_point_finds_the_targets_last_record_on_the_source() -> None:
    source, target = lab()
    point = recovery_point(source, target, SRC_TP, DST_TP, 0, 60, 50, [Sync(0, 0), Sync(40, 40)], NOW, 1000)
    assert (point.method, point.newest_copied, point.uncopied, point.uncopied_max, point.first_uncopied) == (
        RP_RECORD, 49, 10, 19, 50)
    assert point.seconds == 19.0  # record 50 is 9 s older than the newest (59), which is 10 s old


def test_recovery_point_after_a_replay_counts_from_the_replayed_tail() -> None:
    # MM2 copied 0..49, restarted and replayed 40..44: the target's last record is a copy of 44.
    source, target = lab(copied=list(range(50)) + list(range(40, 45)), syncs=[('foo.orders', 0, 40, 40), ('foo.orders', 0, 40, 50)])
    point = recovery_point(source, target, SRC_TP, DST_TP, 0, 60, 55, [Sync(40, 40), Sync(40, 50)], NOW, 1000)
    assert (point.method, point.newest_copied, point.uncopied) == (RP_RECORD, 44, 15)  # never fewer than the truth (10)


def test_recovery_point_without_a_match_uses_the_sync_arithmetic() -> None:
    source, target = lab()
    target.logs[DST_TP].append(KafkaRecord(50, 0, b'other', b'written on the target', ()))
    point = recovery_point(source, target, SRC_TP, DST_TP, 0, 60, 51, [Sync(40, 40)], NOW, 1000)
    # 10 records after the sync's copy: the estimate says 50 copied, one more than the truth.
    assert (point.method, point.newest_copied, point.uncopied, point.uncopied_max) == (RP_OFFSET_SYNC, 50, 9, 19)


def test_recovery_point_of_an_empty_or_uncopied_partition() -> None:
    source, target = lab(copied=[])
    empty = recovery_point(source, target, SRC_TP, DST_TP, 60, 60, 0, [], NOW, 1000)
    assert (empty.method, empty.uncopied, empty.seconds) == ('empty', 0, 0.0)
    nothing = recovery_point(source, target, SRC_TP, DST_TP, 0, 60, 0, [], NOW, 1000)
    assert (nothing.method, nothing.uncopied, nothing.first_uncopied, nothing.seconds) == (RP_NOTHING_COPIED, 60, 0, 69.0)
    absent = recovery_point(source, target, SRC_TP, DST_TP, 0, 60, None, [], NOW, 1000)
    assert absent.method == RP_NOTHING_COPIED and 'does not exist on the target' in absent.note


def test_recovery_point_without_syncs_matches_the_tail_or_says_unknown() -> None:
    source, target = lab()
    point = recovery_point(source, target, SRC_TP, DST_TP, 0, 60, 50, [], NOW, 1000)
    assert (point.method, point.uncopied) == (RP_RECORD, 10)
    short = recovery_point(source, target, SRC_TP, DST_TP, 0, 60, 50, [], NOW, 5)  # the copy of 49 is not in the last 5
    assert (short.method, short.uncopied) == (RP_UNKNOWN, None) and 'no offset sync' in short.note


# ---- sentinels ------------------------------------------------------------------------------------

def test_truncation_past_the_newest_copy_counts_the_lost_records() -> None:
    source, target = lab(first=55)  # retention deleted 0..54; MM2 had copied 0..49
    report = run(source, target)
    (lost,) = [sentinel for sentinel in report['sentinels'] if sentinel['kind'] == 'truncated']
    assert lost['lost'] == 5
    assert lost['offsets'] == {'source_start': 55, 'newest_copied': 49, 'first_lost': 50, 'method': RP_OFFSET_SYNC}
    assert '5 records lost' in lost['message'] and 'offsets 50 to 54' in lost['message']
    assert 'retention' in lost['fix']
    assert report['summary']['lost_records'] == 5 and report['verdict'] == NOT_READY
    point = report['recovery_point'][0]
    assert (point['uncopied'], point['first_uncopied']) == (5, 55)


def test_no_truncation_sentinel_when_the_start_is_within_the_copied_records() -> None:
    point = RecoveryPoint('t', 0, 'src.t', 50, 60, 50, newest_copied=49)
    assert truncation_sentinel(point) is None
    point.source_start = 51
    assert truncation_sentinel(point).lost == 1


def test_a_source_that_ends_before_the_synced_offset_was_recreated() -> None:
    source, target = lab(source_count=10, copied=list(range(10)), syncs=[('foo.orders', 0, 0, 0), ('foo.orders', 0, 40, 40)],
                         commits={}, checkpoints=())
    # The old topic's 50 records are still on the target; the new one has 10.
    target.logs[DST_TP] = copies(log(60), range(50))
    report = run(source, target)
    kinds = [sentinel['kind'] for sentinel in report['sentinels']]
    assert 'recreated' in kinds
    (recreated,) = [sentinel for sentinel in report['sentinels'] if sentinel['kind'] == 'recreated']
    assert recreated['offsets'] == {'source_end': 10, 'sync_upstream': 40} and 'delete the remote topic' in recreated['fix']
    assert report['recovery_point'][0]['method'] == RP_UNKNOWN


def test_a_target_behind_the_synced_downstream_offset_is_reported() -> None:
    point = RecoveryPoint('t', 0, 'src.t', 0, 60, 10, sync_upstream=40, sync_downstream=40)
    (sentinel,) = resync_sentinels(point)
    assert sentinel.kind == 'target-truncated' and 'src.t-0' in sentinel.message


def test_a_changed_topic_id_is_a_recreation() -> None:
    (found,) = topic_id_sentinels({'foo.orders': 'old-id', 'gone': 'x'}, {'foo.orders': 'new-id', 'new': 'y'})
    assert found.kind == 'recreated' and found.partition is None and 'old-id' in found.message
    assert topic_id_sentinels({'foo.orders': 'id-1'}, {'foo.orders': 'id-1'}) == []
    assert topic_id_sentinels({'foo.orders': 'id-1'}, {'foo.orders': None}) == []  # a broker without topic ids


def test_the_run_reports_the_topic_ids_for_the_state_file_and_compares_them() -> None:
    source, target = lab()
    report = run(source, target, known_topic_ids={'foo.orders': 'id-0'})
    assert report['topic_ids'] == {'foo.orders': 'id-1'}
    assert any(sentinel['kind'] == 'recreated' and sentinel['partition'] is None for sentinel in report['sentinels'])


# ---- consumer groups ----------------------------------------------------------------------------

def test_failover_cost_of_a_group_planned_exact_and_unplanned_from_the_checkpoint() -> None:
    source, target = lab()
    report = run(source, target)
    part = only_group_partition(report)
    assert (part['committed'], part['exact_offset'], part['exact_method'], part['planned_rereads']) == (45, 45, 'exact', 0)
    assert (part['checkpoint_upstream'], part['checkpoint_downstream'], part['checkpoint_age_s']) == (45, 41, 12.0)
    assert (part['unplanned_offset'], part['unplanned_rereads'], part['unplanned_skipped']) == (41, 4, 0)
    assert part['commits_after_checkpoint'] == 0 and part['untranslated'] == ''
    (group,) = report['groups']
    assert group['translated'] == 'all' and group['planned_rereads'] == 0 and group['unplanned_rereads'] == 4


def test_a_commit_newer_than_the_checkpoint_costs_the_records_read_since() -> None:
    source, target = lab(commits={'app': {SRC_TP: 48}})
    part = only_group_partition(run(source, target))
    assert (part['exact_offset'], part['commits_after_checkpoint'], part['unplanned_rereads']) == (48, 3, 7)


def test_a_checkpoint_past_the_copy_would_skip_records() -> None:
    assert unplanned_cost(45, Checkpoint('g', 't', 0, 45, 47, 0)) == (0, 2)
    assert unplanned_cost(45, Checkpoint('g', 't', 0, 45, 41, 0)) == (4, 0)
    assert unplanned_cost(None, Checkpoint('g', 't', 0, 45, 41, 0)) == (None, None)
    assert unplanned_cost(45, None) == (None, None)


def test_a_commit_not_copied_yet_is_translated_after_the_drain() -> None:
    source, target = lab(commits={'app': {SRC_TP: 55}}, checkpoints=(('app', 45, 41, 12.0),))
    report = run(source, target)
    part = only_group_partition(report)
    assert (part['exact_offset'], part['exact_method'], part['planned_rereads']) == (None, METHOD_AFTER_DRAIN, 0)
    assert 'not on the target yet' in part['exact_note']
    assert part['unplanned_rereads'] == 50 - 41  # the whole tail after the checkpoint


@pytest.mark.parametrize(('group', 'include', 'exclude', 'reason'), [
    ('app', ['.*'], ['console-consumer-.*', 'connect-.*', '__.*'], ''),
    ('console-consumer-1', ['.*'], ['console-consumer-.*', 'connect-.*', '__.*'], 'groups_exclude console-consumer-.*'),
    ('other', ['app-.*', 'orders'], [], 'matches none of its groups (app-.*, orders)'),
    ('app-x', ['app'], [], 'matches none'),  # whole names only
])
def test_group_filter_reason_follows_mm2s_whole_name_match(group: str, include: List[str], exclude: List[str], reason: str) -> None:
    found = group_filter_reason(group, include, exclude)
    assert (reason in found) and (bool(found) == bool(reason))


def test_untranslated_reasons_name_the_cause() -> None:
    assert untranslated_reason(None, 60, [], 100) == 'no commit on the source'
    assert 'no offset sync' in untranslated_reason(5, 60, [], 100)
    far = untranslated_reason(5, 60, [Sync(20, 20), Sync(40, 40)], 100)
    assert 'commit too far behind' in far and 'offset.lag.max (100)' in far and '55 records behind' in far
    assert 'source offset 20' in far
    assert 'not checkpointed yet' in untranslated_reason(30, 60, [Sync(20, 20)], 100)


def test_untranslated_groups_with_their_reasons_make_it_not_ready() -> None:
    commits = {'app': {SRC_TP: 45}, 'slow': {SRC_TP: 5}, 'console-consumer-7': {SRC_TP: 50}, 'busy': {SRC_TP: 45}}
    source, target = lab(commits=commits, syncs=[('foo.orders', 0, 20, 20), ('foo.orders', 0, 40, 40)],
                         checkpoints=(('app', 45, 41, 12.0), ('busy', 45, 41, 30.0)))
    target.members['busy'] = [Member('consumer-1', '10.0.0.9')]
    report = run(source, target)
    groups = {group['group']: group for group in report['groups']}
    assert groups['slow']['translated'] == 'none'
    assert 'commit too far behind' in groups['slow']['partitions'][0]['untranslated']
    assert groups['console-consumer-7']['filtered'] and not groups['console-consumer-7']['selected']
    assert groups['busy']['target_members'] == ['consumer-1 on 10.0.0.9']
    problems = '\n'.join(report['problems'])
    assert 'group slow foo.orders-0 not translated by MM2: commit too far behind' in problems
    assert 'group busy has active members on the target (consumer-1 on 10.0.0.9)' in problems
    # A group the flow leaves out on purpose is a warning unless the operator asked for it.
    assert 'console-consumer-7' not in problems and any('console-consumer-7' in text for text in report['warnings'])
    assert report['summary']['groups_untranslated'] == ['console-consumer-7', 'slow']
    chosen = run(source, target, groups=['console-consumer-7'])
    assert [group['group'] for group in chosen['groups']] == ['console-consumer-7']
    assert any('console-consumer-7: filtered out by the flow' in text for text in chosen['problems'])


def test_groups_by_regex_and_a_named_group_without_commits() -> None:
    source, target = lab(commits={'app': {SRC_TP: 45}, 'app-2': {SRC_TP: 10}, 'other': {SRC_TP: 1}})
    report = run(source, target, groups=['ghost'], groups_regex='app.*')
    assert [group['group'] for group in report['groups']] == ['app', 'app-2', 'ghost']
    ghost = report['groups'][2]
    assert ghost['translated'] == 'n/a' and ghost['reasons'] == ["no commit on the source for the flow's topics"]
    assert any(text.startswith('group ghost:') for text in report['problems'])


def test_a_group_only_in_the_checkpoints_is_reported_from_them() -> None:
    source, target = lab(commits={}, checkpoints=(('gone', 30, 30, 500.0),))
    report = run(source, target)
    (group,) = report['groups']
    assert group['group'] == 'gone' and group['translated'] == 'all'
    assert group['partitions'][0]['unplanned_offset'] == 30 and group['partitions'][0]['committed'] is None


def test_groups_of_other_topics_are_left_out() -> None:
    source, target = lab(commits={'app': {SRC_TP: 45}, 'bar': {('bar.other', 0): 3}})
    assert [group['group'] for group in run(source, target)['groups']] == ['app']


# ---- topic configs ------------------------------------------------------------------------------

def info(partitions: int = 3, replicas: int = 3) -> TopicInfo:
    return TopicInfo('t', 'id', partitions, replicas)


SOURCE_CONFIG = {'cleanup.policy': 'delete', 'max.message.bytes': '2000000', 'min.insync.replicas': '2',
                 'retention.ms': '604800000', 'retention.bytes': '-1'}


def findings(target_info: Optional[TopicInfo] = None, broker: Optional[Dict[str, str]] = None, **target: str) -> Dict[str, Any]:
    config = dict(SOURCE_CONFIG, **{key.replace('_', '.'): value for key, value in target.items()})
    found = compare_topic('orders', 'src.orders', info(), SOURCE_CONFIG, target_info or info(), config,
                          broker or {'default.replication.factor': '3'})
    return {finding.setting: finding for finding in found}


def test_identical_topics_have_no_finding() -> None:
    assert findings() == {}


def test_what_breaks_applications() -> None:
    assert findings(target_info=info(partitions=2))['partitions'].breaks
    assert not findings(target_info=info(partitions=4))['partitions'].breaks
    assert findings(cleanup_policy='compact')['cleanup.policy'].breaks
    assert findings(cleanup_policy='delete') == {}
    assert findings(max_message_bytes='1048588')['max.message.bytes'].breaks
    assert findings(min_insync_replicas='4')['min.insync.replicas'].breaks
    missing = compare_topic('orders', 'src.orders', info(), SOURCE_CONFIG, None, {}, {})
    assert [finding.setting for finding in missing] == ['exists'] and missing[0].breaks


def test_what_only_warns() -> None:
    smaller = findings(retention_ms='86400000')['retention.ms']
    assert not smaller.breaks and 'keeps less history' in smaller.message
    assert not findings(retention_bytes='1000')['retention.bytes'].breaks  # unlimited on the source
    assert findings(retention_ms='-1') == {}
    weaker = findings(min_insync_replicas='1')['min.insync.replicas']
    assert not weaker.breaks and 'less durable' in weaker.message
    rf = findings(target_info=info(replicas=2))['replication.factor']
    assert not rf.breaks and "default.replication.factor 3" in rf.message
    equal = findings(target_info=info(replicas=2), broker={'default.replication.factor': '2'})
    assert not equal['min.insync.replicas'].breaks and 'one broker down' in equal['min.insync.replicas'].message


def test_the_run_compares_every_topic_and_a_missing_remote_topic_breaks() -> None:
    source, target = lab()
    source.partitions['foo.new'] = 1
    target.configs['src.foo.orders'] = {'max.message.bytes': '1000'}
    report = run(source, target)
    settings = sorted((finding['topic'], finding['setting'], finding['breaks']) for finding in report['configs'])
    assert settings == [('foo.new', 'exists', True), ('foo.orders', 'max.message.bytes', True)]
    assert report['summary']['config_breaks'] == 2


# ---- ACLs ---------------------------------------------------------------------------------------

SOURCE_LISTING = '''Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=foo.orders, patternType=LITERAL)`:
 \t(principal=User:app, host=*, operation=READ, permissionType=ALLOW)
 \t(principal=User:writer, host=*, operation=WRITE, permissionType=ALLOW)

Current ACLs for resource `ResourcePattern(resourceType=GROUP, name=app, patternType=PREFIXED)`:
 \t(principal=User:app, host=*, operation=READ, permissionType=ALLOW)

Current ACLs for resource `ResourcePattern(resourceType=TRANSACTIONAL_ID, name=writer-, patternType=PREFIXED)`:
 \t(principal=User:writer, host=*, operation=WRITE, permissionType=ALLOW)
'''
TARGET_LISTING = '''Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=src., patternType=PREFIXED)`:
 \t(principal=User:app, host=*, operation=READ, permissionType=ALLOW)

Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=*, patternType=LITERAL)`:
 \t(principal=User:writer, host=*, operation=ALL, permissionType=ALLOW)
'''


def test_the_authorizer_rules() -> None:
    bindings = list(parse_acl_listing(TARGET_LISTING)) + [
        AclBinding('TOPIC', 'src.secret', 'LITERAL', 'User:app', '*', 'READ', 'DENY'),
        AclBinding('GROUP', 'g', 'LITERAL', 'User:*', '*', 'READ', 'ALLOW'),
        AclBinding('GROUP', 'h', 'LITERAL', 'User:app', '10.0.0.1', 'READ', 'ALLOW')]
    assert allowed(bindings, AclNeed('User:app', 'TOPIC', 'src.orders', 'READ'))
    assert allowed(bindings, AclNeed('User:app', 'TOPIC', 'src.orders', 'DESCRIBE'))  # READ implies DESCRIBE
    assert not allowed(bindings, AclNeed('User:app', 'TOPIC', 'src.orders', 'WRITE'))
    assert not allowed(bindings, AclNeed('User:app', 'TOPIC', 'orders', 'READ'))
    assert not allowed(bindings, AclNeed('User:app', 'TOPIC', 'src.secret', 'READ'))  # DENY wins
    assert allowed(bindings, AclNeed('User:app', 'GROUP', 'g', 'READ'))  # User:*
    assert not allowed(bindings, AclNeed('User:app', 'GROUP', 'h', 'READ'))  # from another host only
    assert allowed(bindings, AclNeed('User:app', 'GROUP', 'h', 'READ', host='10.0.0.1'))
    assert allowed(bindings, AclNeed('User:writer', 'TRANSACTIONAL_ID', 'w-', 'WRITE', 'PREFIXED')) is False
    assert allowed(bindings, AclNeed('User:app', 'TOPIC', 'src.o', 'READ', 'PREFIXED'))
    assert not allowed(bindings, AclNeed('User:app', 'TOPIC', 'src.', 'READ', 'PREFIXED'))  # src.secret is denied


def test_each_principal_gets_what_the_source_grants_it_named_when_missing() -> None:
    source = sorted(parse_acl_listing(SOURCE_LISTING))
    target = sorted(parse_acl_listing(TARGET_LISTING))
    remote = naming('default', 'src', '.')[0]
    specs = [PrincipalSpec('User:app', 'consumer'), PrincipalSpec('User:writer', 'producer')]
    answers = {entry.principal: entry for entry in check_principal(
        specs, source, target, ['foo.orders'], ['app', 'app-2', 'other'], remote, lambda topic: topic, {'src.foo.orders'})}
    app = answers['User:app']
    assert app.missing == ['User:app ALLOW READ on GROUP:LITERAL:app from *', 'User:app ALLOW READ on GROUP:LITERAL:app-2 from *']
    assert 'User:app ALLOW READ on TOPIC:LITERAL:src.foo.orders from *' in app.needed
    assert any('GROUP:PREFIXED:app' in line for line in app.source_bindings)
    writer = answers['User:writer']
    assert writer.missing == ['User:writer ALLOW DESCRIBE on TRANSACTIONAL_ID:PREFIXED:writer- from *',
                              'User:writer ALLOW WRITE on TRANSACTIONAL_ID:PREFIXED:writer- from *']
    assert any('foo.orders' in note and 'do not exist on the target' in note for note in writer.notes)


def test_without_authorizers() -> None:
    remote = naming('default', 'src', '.')[0]
    (open_source,) = check_principal([PrincipalSpec('User:app', 'consumer', groups=('app',))], None, [], ['foo.orders'],
                                     [], remote, lambda topic: topic)
    assert len(open_source.missing) == 3 and any('no authorizer' in note for note in open_source.notes)
    (open_target,) = check_principal([PrincipalSpec('User:app', 'consumer')], None, None, ['foo.orders'], [], remote,
                                     lambda topic: topic)
    assert open_target.missing == [] and any('target runs no authorizer' in note for note in open_target.notes)


def test_the_lab_listing_parses_into_bindings_the_checks_take() -> None:
    bindings = sorted(parse_acl_listing((FIXTURES / 'acl_listing_kafka4.txt').read_text(encoding='utf-8')))
    assert allowed(bindings, AclNeed('User:validator', 'TOPIC', 'anything', 'READ'))


def test_the_run_checks_the_named_principals() -> None:
    source, target = lab()
    source.bindings = sorted(parse_acl_listing(SOURCE_LISTING))
    target.bindings = sorted(parse_acl_listing(TARGET_LISTING))
    report = run(source, target, principals=[PrincipalSpec('User:app', 'consumer')])
    (entry,) = report['acls']
    assert entry['missing'] == ['User:app ALLOW READ on GROUP:LITERAL:app from *']
    assert any(text.startswith('User:app lacks on the target: User:app ALLOW READ on GROUP') for text in report['problems'])


# ---- recovery time, verdict, output --------------------------------------------------------------

def test_recovery_time_is_measured_by_a_failover_report_or_not_at_all() -> None:
    missing = recovery_time(None, '', 300)
    assert missing['measured_s'] is None and 'not measured' in missing['note'] and missing['target_s'] == 300
    report = {'mode': 'planned', 'steps': [{'step': 'a', 'at': '2026-11-27T10:00:00.000Z', 'elapsed_s': 0.0},
                                           {'step': 'b', 'at': '2026-11-27T10:00:42.000Z', 'elapsed_s': 42.0}],
              'summary': {'duration_s': 42.0}}
    found = recovery_time(report, 'reports/failover-src_to_dst-planned.json', 0)
    assert (found['measured_s'], found['mode'], found['at'], found['target_s']) == (42.0, 'planned', '2026-11-27T10:00:00.000Z', None)


def test_a_caught_up_flow_is_ready() -> None:
    source, target = lab(copied=range(60), syncs=[('foo.orders', 0, 0, 0), ('foo.orders', 0, 59, 59)],
                         checkpoints=(('app', 45, 45, 3.0),))
    report = run(source, target)
    assert report['verdict'] == READY and report['ready'] and report['problems'] == []
    assert report['summary']['uncopied_records'] == 0 and report['summary']['recovery_point_s'] == 0.0
    assert report['recovery_point'][0]['method'] == RP_RECORD


def test_the_rpo_decides_and_the_rto_is_judged_only_when_measured() -> None:
    source, target = lab()
    late = run(source, target, rpo_seconds=15.0)
    assert late['verdict'] == NOT_READY
    assert any('recovery point of foo.orders-0 is 19.0 s (10 records not on the target), over the RPO of 15 s' in text
               for text in late['problems'])
    assert run(source, target, rpo_seconds=30.0)['verdict'] == READY
    unmeasured = run(source, target, rpo_seconds=30.0, rto_seconds=60.0)
    assert unmeasured['verdict'] == READY and any('recovery time not measured' in text for text in unmeasured['warnings'])
    slow = run(source, target, rpo_seconds=30.0, rto_seconds=60.0, last_failover={'summary': {'duration_s': 90.5}, 'steps': []},
               last_failover_path='reports/x.json')
    assert slow['verdict'] == NOT_READY and any('took 90.5 s' in text for text in slow['problems'])


def test_missing_internal_topics_are_warnings() -> None:
    source, target = lab()
    del source.logs[(SYNCS_TOPIC, 0)]
    report = run(source, target)
    assert any('offset-syncs topic mm2-offset-syncs.dst.internal does not exist on cluster src' in text
               for text in report['warnings'])
    assert report['recovery_point'][0]['method'] == RP_RECORD  # the tail match still works


def test_offset_syncs_on_the_target() -> None:
    source, target = lab()
    target.logs[('mm2-offset-syncs.src.internal', 0)] = source.logs.pop((SYNCS_TOPIC, 0))
    report = run(source, target, offset_syncs_topic='mm2-offset-syncs.src.internal', offset_syncs_location='target')
    assert report['recovery_point'][0]['sync_upstream'] == 40


def test_the_text_screen_shows_every_figure() -> None:
    source, target = lab(commits={'app': {SRC_TP: 45}, 'slow': {SRC_TP: 5}},
                         syncs=[('foo.orders', 0, 20, 20), ('foo.orders', 0, 40, 40)])
    source.bindings = sorted(parse_acl_listing(SOURCE_LISTING))
    target.bindings = []
    target.configs['src.foo.orders'] = {'max.message.bytes': '1000'}
    report = run(source, target, principals=[PrincipalSpec('User:app', 'consumer')], rpo_seconds=15.0)
    text = render_text(report)
    assert text.startswith('Readiness of flow src->dst (src -> dst) at 2023-11-14T22:15:00.000Z: NOT READY')
    for expected in ('foo.orders-0', '19.0 s', 'record', 'src.foo.orders-0', 'NOT TRANSLATED', 'slow (none translated)',
                     'BREAKS src.foo.orders: max.message.bytes 1000', 'ACLs of User:app (consumer)',
                     'missing: User:app ALLOW READ on TOPIC:LITERAL:src.foo.orders from *', 'Silent-loss sentinels: none',
                     'Recovery time: not measured', 'NOT READY: '):
        assert expected in text, expected


def test_a_recreated_topic_keeps_its_old_id_until_accepted() -> None:
    from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_readiness import state_topic_ids
    current = {'a': 'new', 'b': 'same', 'c': None, 'd': 'first'}
    known = {'a': 'old', 'b': 'same', 'c': 'x'}
    assert state_topic_ids(current, known, accept=False) == {'a': 'old', 'b': 'same', 'c': None, 'd': 'first'}
    assert state_topic_ids(current, known, accept=True) == current


def test_reads_mm2s_account_may_not_do_are_warnings() -> None:
    from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import KafkaSideError
    source, target = lab()

    def refused() -> Any:
        raise KafkaSideError('dst', 'describe ACLs', 'ClusterAuthorizationException: Cluster authorization failed.')

    target.acls = refused  # type: ignore[method-assign]
    target.broker_config = refused  # type: ignore[method-assign]
    report = run(source, target, principals=[PrincipalSpec('User:app', 'consumer')])
    assert report['acls'] == [] and report['verdict'] == READY
    assert sum('does not let MM2\'s account read' in text for text in report['warnings']) == 2
    source.unreachable = True
    with pytest.raises(KafkaSideError):
        run(source, target)
