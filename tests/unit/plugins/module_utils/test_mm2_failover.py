# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The failover logic against in-memory clusters: translation, safety rules, modes, reruns."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import pytest

from ansible_collections.kafka_dr.mm2.plugins.filter.properties import to_properties
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import KafkaSideError, Member, resolve_file_placeholders
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_failover import (
    METHOD_AFTER_LAST,
    METHOD_CHECKPOINT,
    METHOD_EXACT,
    METHOD_START,
    Failover,
    FailoverError,
    FailoverRequest,
    decide_action,
    decode_checkpoint,
    naming,
    newest_checkpoints,
    render_text,
    replication_gap,
)

from fake_kafka_side import FakeClock, FakeConnectors, FakeSide, checkpoint_record, copies, record, source_log

SRC_TP = ('foo.orders', 0)
DST_TP = ('src.foo.orders', 0)
CHECKPOINTS = ('src.checkpoints.internal', 0)
CONNECTORS = ['mm2-src-dst-source', 'mm2-src-dst-checkpoint', 'mm2-src-dst-heartbeat']
# The target holds source 0..39, then MM2 replayed 30..59 after a task restart.
REPLAYED = list(range(40)) + list(range(30, 60))


def make_request(**changes: Any) -> FailoverRequest:
    remote, source = naming('default', 'src', '.')
    values: Dict[str, Any] = dict(mode='planned', source_alias='src', target_alias='dst', groups=['app'], groups_regex='',
                                  topics_regex=r'foo\..*', checkpoints_topic=CHECKPOINTS[0], remote_topic=remote,
                                  source_topic=source, wait_timeout=30.0, max_scan_records=1000)
    values.update(changes)
    return FailoverRequest(**values)


def lab(committed: int = 45, checkpoint: Optional[Tuple[int, int]] = (45, 20), target_offsets=REPLAYED,
        source_count: int = 60, clock: Optional[FakeClock] = None) -> Tuple[FakeSide, FakeSide, FakeConnectors, FakeClock]:
    clock = clock or FakeClock()
    log = source_log(source_count)
    source = FakeSide('src', logs={SRC_TP: log, ('bar.other', 0): source_log(5)},
                      commits={'app': {SRC_TP: committed, ('bar.other', 0): 3}})
    target = FakeSide('dst', logs={DST_TP: copies(log, target_offsets), CHECKPOINTS: []})
    if checkpoint is not None:
        target.logs[CHECKPOINTS].append(checkpoint_record(0, 'app', DST_TP[0], 0, checkpoint[0], checkpoint[1],
                                                          int((clock.now - 12) * 1000)))
    return source, target, FakeConnectors({name: 'RUNNING' for name in CONNECTORS}), clock


def run(source, target, connectors, clock, **changes: Any) -> Dict[str, Any]:
    failover = Failover(make_request(**changes), target, connectors, source, clock=clock, sleep=clock.sleep)
    return failover.run().as_dict()


def only_partition(report: Dict[str, Any]) -> Dict[str, Any]:
    (group,) = report['groups']
    (part,) = group['partitions']
    return part


def test_planned_translates_to_the_first_copy_of_the_committed_record() -> None:
    source, target, connectors, clock = lab()
    report = run(source, target, connectors, clock)
    part = only_partition(report)
    # Source 45 is first copied at position 40 + 15: everything before it replicates offsets below 45.
    assert (part['translated'], part['method']) == (55, METHOD_EXACT)
    assert part['checkpoint_downstream'] == 20 and part['rereads_avoided'] == 35
    assert part['checkpoint_age_s'] == 12.0
    assert target.writes == [('app', {DST_TP: 55})]
    assert sorted(report['connectors_stopped']) == sorted(CONNECTORS)
    assert report['changed'] and part['action'] == 'set'
    assert part['not_replicated'] == 0 and part['source_end'] == 60
    # Topics outside the flow are reported and left alone.
    assert report['groups'][0]['skipped_topics'] == ['bar.other']


def test_translation_never_skips_a_record_whose_fingerprint_an_earlier_record_shares() -> None:
    clock = FakeClock()
    source, target, connectors, _clock = lab(clock=clock)
    log = source.logs[SRC_TP]
    # Source 35 looks exactly like 45: the scan stops at a copy of 35 (more re-reads, nothing skipped).
    log[35] = record(35, 'value-45', log[45].timestamp)
    target.logs[DST_TP] = copies(log, REPLAYED)
    part = only_partition(run(source, target, connectors, clock))
    assert part['translated'] == 35 and part['method'] == METHOD_EXACT
    assert part['translated'] <= 55


def test_a_group_at_the_end_resumes_after_the_first_copy_of_the_last_record() -> None:
    source, target, connectors, clock = lab(committed=60, checkpoint=(60, 69))
    part = only_partition(run(source, target, connectors, clock))
    # The first copy of source 59 sits at 69 (the last position): resume at 70, the target's end.
    assert (part['translated'], part['method']) == (70, METHOD_AFTER_LAST)


def test_a_group_at_the_end_finds_the_copy_just_below_the_checkpoint() -> None:
    # MM2 translates "upstream 40 after a sync (39 -> 39)" to 40: the copy of 39 sits just below it.
    source, target, connectors, clock = lab(committed=40, checkpoint=(40, 40), target_offsets=list(range(40)),
                                            source_count=40)
    part = only_partition(run(source, target, connectors, clock))
    assert (part['translated'], part['method']) == (40, METHOD_AFTER_LAST)


def test_without_a_copy_within_the_scan_the_checkpoint_is_used_and_said() -> None:
    source, target, connectors, clock = lab()
    part = only_partition(run(source, target, connectors, clock, max_scan_records=10))
    assert (part['translated'], part['method']) == (20, METHOD_CHECKPOINT)
    assert 'within 10 records' in part['method_note']
    assert part['rereads_avoided'] == 0


def test_a_partition_the_group_never_read_starts_at_zero() -> None:
    source, target, connectors, clock = lab(committed=0, checkpoint=None)
    part = only_partition(run(source, target, connectors, clock))
    assert (part['translated'], part['method']) == (0, METHOD_START)


def test_active_members_on_the_source_refuse_naming_their_hosts() -> None:
    source, target, connectors, clock = lab()
    source.members['app'] = [Member('app-1', '10.0.0.7'), Member('app-2', '10.0.0.8')]
    with pytest.raises(FailoverError, match=r'app \(app-1 on 10\.0\.0\.7, app-2 on 10\.0\.0\.8\)'):
        run(source, target, connectors, clock)
    assert connectors.stop_calls == 0 and target.writes == []


def test_planned_refuses_a_flow_that_does_not_run() -> None:
    source, target, connectors, clock = lab()
    connectors.state['mm2-src-dst-checkpoint'] = 'FAILED'
    with pytest.raises(FailoverError, match='mm2-src-dst-checkpoint is FAILED.*unplanned'):
        run(source, target, connectors, clock)
    assert target.writes == []


def test_planned_waits_for_a_checkpoint_that_covers_the_last_commit() -> None:
    source, target, connectors, clock = lab(checkpoint=(30, 18))

    def checkpoint_arrives() -> None:
        if clock.now > 1_700_000_110:
            target.logs[CHECKPOINTS].append(checkpoint_record(1, 'app', DST_TP[0], 0, 45, 20, int(clock.now * 1000)))
            clock.on_sleep = None
    clock.on_sleep = checkpoint_arrives
    report = run(source, target, connectors, clock)
    assert only_partition(report)['translated'] == 55
    assert [step['step'] for step in report['steps']][:3] == [
        'connectors checked', 'groups have no members on the source', 'checkpoints cover the last commits']
    assert report['steps'][2]['elapsed_s'] >= 10


def test_planned_gives_up_on_checkpoints_with_the_lagging_partitions() -> None:
    source, target, connectors, clock = lab(checkpoint=(30, 18))
    with pytest.raises(FailoverError, match=r'within 30 s: app foo\.orders-0 \(committed 45, checkpoint 30\)'):
        run(source, target, connectors, clock)
    assert connectors.stop_calls == 0 and target.writes == []


def test_a_group_ahead_on_the_target_is_not_moved_back_without_force() -> None:
    source, target, connectors, clock = lab()
    target.commits['app'] = {DST_TP: 60}
    part = only_partition(run(source, target, connectors, clock))
    assert part['target_before'] == 60 and part['action'].startswith('kept')
    assert target.writes == []
    source, target, connectors, clock = lab()
    target.commits['app'] = {DST_TP: 60}
    part = only_partition(run(source, target, connectors, clock, force=True))
    assert target.writes == [('app', {DST_TP: 55})] and 'forced' in part['action']


def test_decide_action_only_moves_forward_or_when_forced() -> None:
    assert decide_action(5, None, False) == ('set', True)
    assert decide_action(5, 5, False) == ('unchanged', False)
    assert decide_action(6, 5, False) == ('advanced', True)
    assert decide_action(4, 5, False)[1] is False
    assert decide_action(4, 5, True)[1] is True


def test_a_rerun_after_a_completed_failover_changes_nothing_and_says_so() -> None:
    source, target, connectors, clock = lab()
    first = run(source, target, connectors, clock)
    assert first['changed']
    second = run(source, target, connectors, clock)
    assert not second['changed'] and second['already_done']
    assert second['connectors_stopped'] == [] and connectors.stop_calls == 1
    assert len(target.writes) == 1
    assert 'already done' in render_text(second)


def test_a_half_done_failover_completes_on_rerun_with_the_flow_stopped() -> None:
    source, target, connectors, clock = lab()
    for name in CONNECTORS:
        connectors.state[name] = 'STOPPED'
    report = run(source, target, connectors, clock)
    assert target.writes == [('app', {DST_TP: 55})] and report['changed'] and not report['already_done']


def test_check_mode_reports_without_stopping_or_writing() -> None:
    source, target, connectors, clock = lab()
    report = run(source, target, connectors, clock, check_mode=True)
    assert only_partition(report)['translated'] == 55 and report['changed']
    assert connectors.stop_calls == 0 and target.writes == []


def test_unplanned_uses_the_newest_checkpoints_and_never_touches_the_source() -> None:
    source, target, connectors, clock = lab()
    target.logs[CHECKPOINTS].insert(0, checkpoint_record(0, 'app', DST_TP[0], 0, 10, 5, int((clock.now - 60) * 1000)))
    target.logs[CHECKPOINTS][1] = checkpoint_record(1, 'app', DST_TP[0], 0, 45, 20, int((clock.now - 12) * 1000))
    connectors.state['mm2-src-dst-source'] = 'FAILED'
    source.unreachable = True
    failover = Failover(make_request(mode='unplanned'), target, connectors, None, clock=clock, sleep=clock.sleep)
    report = failover.run().as_dict()
    part = only_partition(report)
    assert (part['translated'], part['method'], part['checkpoint_age_s']) == (20, METHOD_CHECKPOINT, 12.0)
    assert part['topic'] == 'foo.orders' and part['rereads_avoided'] is None
    assert target.writes == [('app', {DST_TP: 20})]
    assert report['summary']['oldest_checkpoint_age_s'] == 12.0


def test_unplanned_refuses_a_group_without_checkpoints() -> None:
    source, target, connectors, clock = lab()
    failover = Failover(make_request(mode='unplanned', groups=['app', 'ghost']), target, connectors, None,
                        clock=clock, sleep=clock.sleep)
    with pytest.raises(FailoverError, match='no checkpoint on the target for group.*ghost'):
        failover.run()
    assert target.writes == [] and connectors.stop_calls == 0


def test_groups_regex_selects_source_groups() -> None:
    source, target, connectors, clock = lab()
    source.commits['other'] = {('bar.other', 0): 1}
    report = run(source, target, connectors, clock, groups=[], groups_regex='ap+')
    assert [group['group'] for group in report['groups']] == ['app']
    with pytest.raises(FailoverError, match='no consumer group'):
        run(*lab(), groups=[], groups_regex='nothing')


def test_an_unreachable_target_fails_before_anything_changes() -> None:
    source, target, connectors, clock = lab()
    target.unreachable = True
    with pytest.raises(KafkaSideError, match='dst'):
        run(source, target, connectors, clock)
    assert connectors.stop_calls == 0


def test_a_group_running_on_the_target_refuses() -> None:
    source, target, connectors, clock = lab()
    target.members['app'] = [Member('app-9', '10.1.0.9')]
    with pytest.raises(FailoverError, match='active there: app \\(app-9 on 10.1.0.9\\)'):
        run(source, target, connectors, clock)
    assert connectors.stop_calls == 0


def test_replication_gap_counts_source_records_without_a_copy() -> None:
    log = source_log(10)
    source = FakeSide('src', logs={SRC_TP: log})
    target = FakeSide('dst', logs={DST_TP: copies(log, [0, 1, 2, 3, 2, 3, 4, 5, 6])})
    assert replication_gap(source, target, SRC_TP, DST_TP, 2, 10, 2, 100) == 3
    assert replication_gap(source, target, SRC_TP, DST_TP, 2, 7, 2, 100) == 0
    assert replication_gap(source, target, SRC_TP, DST_TP, 0, 10, 0, 5) is None


def test_checkpoint_records_decode_and_foreign_ones_are_ignored() -> None:
    good = checkpoint_record(3, 'g', 'src.t', 2, 100, 90, 5000)
    checkpoint = decode_checkpoint(good.key, good.value, good.timestamp)
    assert (checkpoint.group, checkpoint.topic, checkpoint.partition, checkpoint.upstream, checkpoint.downstream) == (
        'g', 'src.t', 2, 100, 90)
    assert decode_checkpoint(good.key, None, 0) is None
    assert decode_checkpoint(b'\x00', b'\x00', 0) is None
    newer = checkpoint_record(4, 'g', 'src.t', 2, 120, 95, 6000)
    assert newest_checkpoints([good, newer])[('g', 'src.t', 2)].upstream == 120


def test_naming_follows_the_replication_policy() -> None:
    remote, source = naming('default', 'src', '_')
    assert remote('orders') == 'src_orders' and source('src_orders') == 'orders' and source('other') is None
    remote, source = naming('identity', 'src', '.')
    assert remote('orders') == 'orders' and source('orders') == 'orders'
    # Kafka's IdentityReplicationPolicy prefixes heartbeats (they would loop otherwise); the
    # target's own heartbeats topic came from nowhere.
    assert remote('heartbeats') == 'src.heartbeats' and source('src.heartbeats') == 'heartbeats'
    assert source('heartbeats') is None


def test_file_placeholders_resolve_from_properties_files() -> None:
    files = {'/s/mm2.properties': {'sasl.password': 's3cret'}}
    resolved = resolve_file_placeholders({'sasl.jaas.config': 'x password="${file:/s/mm2.properties:sasl.password}";',
                                          'bootstrap.servers': 'a:1'}, read_file=files.__getitem__)
    assert resolved == {'sasl.jaas.config': 'x password="s3cret";', 'bootstrap.servers': 'a:1'}
    with pytest.raises(ValueError, match='has no key nope'):
        resolve_file_placeholders({'x': '${file:/s/mm2.properties:nope}'}, read_file=files.__getitem__)


def test_properties_files_are_read_like_java_properties(tmp_path) -> None:
    secret = tmp_path / 'mm2.properties'
    secret.write_text('# a comment\nsasl.password=a=b:c\n\nother : value\n')
    resolved = resolve_file_placeholders({'p': '${file:%s:sasl.password}' % secret, 'o': '${file:%s:other}' % secret})
    assert resolved == {'p': 'a=b:c', 'o': 'value'}
    with pytest.raises(ValueError, match='cannot read secret file'):
        resolve_file_placeholders({'p': '${file:%s:x}' % (tmp_path / 'missing')})


def test_a_password_written_by_to_properties_logs_in_unchanged(tmp_path) -> None:
    # The worker's secret file as the roles render it; Kafka undoes the escapes, so must the module.
    password = 'p@ss=w:rd\\x#\u00e9!'
    secret = tmp_path / 'mm2.properties'
    secret.write_text(to_properties({'sasl.password': password}), encoding='utf-8')
    resolved = resolve_file_placeholders({'sasl.jaas.config': 'x password="${file:%s:sasl.password}";' % secret})
    assert resolved == {'sasl.jaas.config': 'x password="%s";' % password}


def test_the_text_report_has_one_line_per_partition() -> None:
    source, target, connectors, clock = lab()
    text = render_text(run(source, target, connectors, clock))
    lines: List[str] = text.splitlines()
    assert lines[0] == 'planned failover of flow src->dst'
    assert any('src.foo.orders-0' in line and ' 55 ' in line and 'exact' in line for line in lines)
    assert 're-reads avoided against the checkpoints: 35' in text


def test_planned_waits_until_the_target_holds_what_the_source_had() -> None:
    # Source 45..59 are not copied yet; they arrive while the failover waits.
    source, target, connectors, clock = lab(target_offsets=list(range(45)))
    full = copies(source.logs[SRC_TP], REPLAYED)

    def replication_catches_up() -> None:
        if clock.now > 1_700_000_106:
            target.logs[DST_TP] = full
            clock.on_sleep = None
    clock.on_sleep = replication_catches_up
    report = run(source, target, connectors, clock)
    assert only_partition(report)['translated'] == 55
    assert 'the target holds every record the source had' in [step['step'] for step in report['steps']]


def test_planned_refuses_when_replication_does_not_catch_up() -> None:
    source, target, connectors, clock = lab(target_offsets=list(range(50)))
    with pytest.raises(FailoverError, match=r'did not catch up within 30 s.*foo\.orders-0: 10 records'):
        run(source, target, connectors, clock)
    assert connectors.stop_calls == 0 and target.writes == []


def failback_lab(committed_remote: int) -> Tuple[FakeSide, FakeSide, FakeConnectors, FakeClock]:
    """After a failover src -> dst: the group read the remote topic src.foo.orders on dst and the
    topic dst wrote itself (orders2); the reverse flow dst -> src copies orders2 to src as dst.orders2."""
    clock = FakeClock()
    origin_log = source_log(60)
    local_log = source_log(10, start_ts=1_700_000_500_000)
    here = FakeSide('dst', logs={DST_TP: copies(origin_log, REPLAYED), ('orders2', 0): local_log},
                    commits={'app': {DST_TP: committed_remote, ('orders2', 0): 4}})
    back = FakeSide('src', logs={SRC_TP: origin_log, ('dst.orders2', 0): copies(local_log, list(range(10))),
                                 ('dst.checkpoints.internal', 0): [checkpoint_record(
                                     0, 'app', 'dst.orders2', 0, 4, 4, int((clock.now - 3) * 1000))]})
    return here, back, FakeConnectors({'mm2-dst-src-source': 'RUNNING'}), clock


def failback_request(**changes: Any) -> FailoverRequest:
    remote, source = naming('default', 'dst', '.')
    values: Dict[str, Any] = dict(mode='planned', source_alias='dst', target_alias='src', groups=['app'], groups_regex='',
                                  topics_regex=r'orders2', checkpoints_topic='dst.checkpoints.internal',
                                  remote_topic=remote, source_topic=source, max_scan_records=1000,
                                  origin_topic=naming('default', 'src', '.')[1])
    values.update(changes)
    return FailoverRequest(**values)


def test_failback_sends_remote_topic_offsets_back_to_the_original_topic() -> None:
    here, back, connectors, clock = failback_lab(committed_remote=45)
    report = Failover(failback_request(), back, connectors, here, clock=clock, sleep=clock.sleep).run().as_dict()
    parts = {part['remote_topic']: part for part in report['groups'][0]['partitions']}
    # Remote offset 45 holds a replayed copy of 35: everything before 35 was read, so resume there.
    assert (parts['foo.orders']['translated'], parts['foo.orders']['method']) == (35, 'origin')
    assert parts['foo.orders']['topic'] == 'src.foo.orders' and parts['foo.orders']['not_replicated'] is None
    # The topic dst wrote during the outage follows the reverse flow's own translation.
    assert (parts['dst.orders2']['translated'], parts['dst.orders2']['method']) == (4, 'exact')
    assert back.writes == [('app', {('foo.orders', 0): 35, ('dst.orders2', 0): 4})]
    assert report['groups'][0]['skipped_topics'] == []


def test_failback_of_a_group_that_read_everything_resumes_after_the_last_original() -> None:
    here, back, connectors, clock = failback_lab(committed_remote=70)
    report = Failover(failback_request(), back, connectors, here, clock=clock, sleep=clock.sleep).run().as_dict()
    parts = {part['remote_topic']: part for part in report['groups'][0]['partitions']}
    assert parts['foo.orders']['translated'] == 60


def test_without_return_to_origin_remote_topics_are_left_alone() -> None:
    here, back, connectors, clock = failback_lab(committed_remote=45)
    report = Failover(failback_request(origin_topic=None), back, connectors, here, clock=clock,
                      sleep=clock.sleep).run().as_dict()
    assert report['groups'][0]['skipped_topics'] == ['src.foo.orders']
    assert back.writes == [('app', {('dst.orders2', 0): 4})]


def test_an_original_beyond_the_scan_refuses_the_failback() -> None:
    here, back, connectors, clock = failback_lab(committed_remote=45)
    with pytest.raises(FailoverError, match='raise max_scan_records'):
        Failover(failback_request(max_scan_records=20), back, connectors, here, clock=clock, sleep=clock.sleep).run()
    assert back.writes == [] and connectors.stop_calls == 0


# ---- a Connect worker before 3.5: the flow is paused, not stopped -------------------------------------

def paused_flow_lab() -> Tuple[FakeSide, FakeSide, FakeConnectors, FakeClock]:
    source, target, connectors, clock = lab()
    connectors.halted, connectors.worker_version = 'PAUSED', '3.4.1'
    return source, target, connectors, clock


def test_old_worker_flow_is_paused_and_the_report_says_so() -> None:
    source, target, connectors, clock = paused_flow_lab()
    checked = run(source, target, connectors, clock, check_mode=True)
    assert connectors.stop_calls == 0 and target.writes == []
    report = run(source, target, connectors, clock)
    assert checked['degraded'] == report['degraded'] == [{'feature': 'stop', 'worker_version': '3.4.1', 'instead': 'paused instead'}]
    assert set(connectors.state.values()) == {'PAUSED'}
    assert report['connectors_stopped'] == sorted(CONNECTORS) and target.writes == [('app', {DST_TP: 55})]
    assert 'Kafka Connect 3.4.1 has no PUT /connectors/NAME/stop' in render_text(report)


def test_old_worker_rerun_sees_the_paused_flow_as_halted() -> None:
    source, target, connectors, clock = paused_flow_lab()
    run(source, target, connectors, clock)
    again = run(source, target, connectors, clock)
    assert again['already_done'] and not again['changed'] and connectors.stop_calls == 1


def test_new_worker_does_not_take_a_paused_flow_for_a_halted_one() -> None:
    source, target, connectors, clock = lab()
    for name in CONNECTORS:
        connectors.state[name] = 'PAUSED'
    with pytest.raises(FailoverError, match='is PAUSED'):
        run(source, target, connectors, clock)
    assert target.writes == [] and connectors.stop_calls == 0
