# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The truncation sentinel in every way the source's log start can pass records MM2 never copied:
an emptied partition, a partition whose uncopied records are all gone, one MM2 copied nothing of,
one without an offset sync; an empty partition says why it is empty; accepted losses count once."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import KafkaRecord
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_readiness import (
    EMPTY_COPIED,
    EMPTY_NEVER_WRITTEN,
    EMPTY_TRUNCATED,
    NOT_READY,
    READY,
    RP_EMPTY,
    RP_NOTHING_COPIED,
    RP_OFFSET_SYNC,
    RP_RECORD,
    RP_TARGET_COUNT,
    Readiness,
    accepted_starts_document,
    accepted_starts_of,
    readiness_state,
    readiness_state_accepted,
    readiness_state_ids,
    render_text,
    state_accepted_starts,
    RecoveryPoint,
)

from fake_kafka_side import FakeClock
from fake_readiness_side import FakeAdminSide, sync_log
from test_mm2_readiness import request

NOW = 1_700_000_100.0
TOPIC, REMOTE = 'foo.orders', 'src.foo.orders'
SRC_TP, DST_TP = (TOPIC, 0), (REMOTE, 0)
SYNCS_TOPIC = 'mm2-offset-syncs.dst.internal'
CHECKPOINTS_TOPIC = 'src.checkpoints.internal'


def record(offset: int) -> KafkaRecord:
    return KafkaRecord(offset, int((NOW - 1000 + offset) * 1000), b'k%d' % offset, b'value-%d' % offset, (('n', b'%d' % offset),))


def copy(source_offset: int, target_offset: int) -> KafkaRecord:
    original = record(source_offset)
    return KafkaRecord(target_offset, original.timestamp, original.key, original.value, original.headers)


def clusters(produced: int, log_start: int, copied: int, syncs: Sequence[Tuple[int, int]] = ((0, 0),),
             remote: bool = True) -> Tuple[FakeAdminSide, FakeAdminSide]:
    """Source TOPIC-0 that received `produced` records, those below `log_start` deleted; MM2 copied the first
    `copied` of them once (target offset = source offset), with offset syncs (upstream, downstream)."""
    source = FakeAdminSide('src', logs={SRC_TP: [record(o) for o in range(log_start, produced)],
                                        (SYNCS_TOPIC, 0): sync_log([(TOPIC, 0, up, down) for up, down in syncs])},
                           ends={SRC_TP: produced}, partitions={TOPIC: 1}, topic_ids={TOPIC: 'id-1'})
    target_logs: Dict[Tuple[str, int], List[KafkaRecord]] = {(CHECKPOINTS_TOPIC, 0): []}
    if remote:
        target_logs[DST_TP] = [copy(o, o) for o in range(copied)]
    target = FakeAdminSide('dst', logs=target_logs, partitions={REMOTE: 1} if remote else {})
    return source, target


def readiness(source: FakeAdminSide, target: FakeAdminSide, **changes: Any) -> Dict[str, Any]:
    report = Readiness(request(**changes), source, target, clock=FakeClock(NOW)).run().as_dict()
    json.dumps(report)
    return report


def truncated(report: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    found = [entry for entry in report['sentinels'] if entry['kind'] == 'truncated']
    assert len(found) <= 1, found
    return found[0] if found else None


def test_an_emptied_partition_counts_every_record_mm2_had_not_copied() -> None:
    # MM2 copied 0..199 (newest sync 150 -> 150), then 500 more were written and all 700 deleted.
    source, target = clusters(700, 700, 200, syncs=[(0, 0), (150, 150)])
    report = readiness(source, target)
    point = report['recovery_point'][0]
    assert (point['method'], point['empty_because'], point['lost']) == (RP_EMPTY, EMPTY_TRUNCATED, 500)
    assert (point['uncopied'], point['newest_copied']) == (0, 199)
    sentinel = truncated(report)
    assert sentinel is not None and sentinel['lost'] == 500
    assert 'offsets 200 to 699' in sentinel['message'] and 'empty now' in sentinel['message']
    assert report['summary']['lost_records'] == 500 and report['verdict'] == NOT_READY
    assert 'empty (truncated), 500 records LOST' in render_text(report)


def test_an_empty_partition_whose_records_were_all_copied_says_so_and_loses_nothing() -> None:
    source, target = clusters(700, 700, 700, syncs=[(0, 0), (650, 650)])
    report = readiness(source, target)
    point = report['recovery_point'][0]
    assert (point['method'], point['empty_because'], point['lost'], point['newest_copied']) == (RP_EMPTY, EMPTY_COPIED, 0, 699)
    assert truncated(report) is None and report['verdict'] == READY
    assert 'empty (copied)' in render_text(report)


def test_a_partition_never_written_to_is_empty_with_nothing_lost() -> None:
    source, target = clusters(0, 0, 0, syncs=[])
    point = readiness(source, target)['recovery_point'][0]
    assert (point['method'], point['empty_because'], point['lost']) == (RP_EMPTY, EMPTY_NEVER_WRITTEN, 0)


def test_a_partition_whose_uncopied_records_are_all_gone_and_new_ones_arrived() -> None:
    # Copied 0..199; 200..599 written and deleted while MM2 stood still; 600..649 written after the delete.
    source, target = clusters(650, 600, 200, syncs=[(0, 0), (199, 199)])
    report = readiness(source, target)
    point = report['recovery_point'][0]
    # The target's last copy is gone from the source: the newest sync's estimate stands.
    assert (point['method'], point['newest_copied'], point['lost'], point['uncopied']) == (RP_OFFSET_SYNC, 199, 400, 50)
    assert truncated(report)['lost'] == 400


def test_a_partition_mm2_copied_nothing_of_lost_everything_below_its_log_start() -> None:
    # An empty remote partition, no offset sync: 300 records written and deleted.
    source, target = clusters(300, 300, 0, syncs=[])
    report = readiness(source, target)
    point = report['recovery_point'][0]
    assert (point['method'], point['empty_because'], point['lost'], point['newest_copied']) == (RP_EMPTY, EMPTY_TRUNCATED, 300, None)
    sentinel = truncated(report)
    assert sentinel['lost'] == 300 and 'copied none' in sentinel['message']
    assert 'readiness_accept_truncated=true' in sentinel['fix']


def test_a_topic_whose_remote_topic_was_never_created_lost_what_it_deleted() -> None:
    # Written while the flow was paused, before MM2 created the remote topic: 100 deleted, 20 still there.
    source, target = clusters(120, 100, 0, syncs=[], remote=False)
    report = readiness(source, target)
    point = report['recovery_point'][0]
    assert (point['method'], point['lost'], point['uncopied']) == (RP_NOTHING_COPIED, 100, 20)
    assert truncated(report)['lost'] == 100


def test_a_partition_without_an_offset_sync_counts_the_target_records_as_copies() -> None:
    # MM2 copied 0..149 but no offset sync is there (the syncs topic lost or emitting off); 400 more deleted.
    source, target = clusters(550, 550, 150, syncs=[])
    report = readiness(source, target)
    point = report['recovery_point'][0]
    assert (point['method'], point['newest_copied'], point['lost']) == (RP_EMPTY, 149, 400)
    assert 'no offset sync' in point['note']
    assert truncated(report)['lost'] == 400
    # The same with records written after the delete: the target's last copy is not on the source any more.
    source, target = clusters(600, 550, 150, syncs=[])
    point = readiness(source, target)['recovery_point'][0]
    assert (point['method'], point['newest_copied'], point['lost'], point['uncopied']) == (RP_TARGET_COUNT, 149, 400, 50)


def test_a_partition_without_an_offset_sync_whose_copy_is_still_on_the_source_is_exact() -> None:
    source, target = clusters(300, 100, 250, syncs=[])
    point = readiness(source, target)['recovery_point'][0]
    assert (point['method'], point['newest_copied'], point['lost'], point['uncopied']) == (RP_RECORD, 249, 0, 50)


def test_an_accepted_loss_counts_only_what_is_lost_after_it() -> None:
    source, target = clusters(300, 300, 0, syncs=[])
    first = readiness(source, target)
    accepted = state_accepted_starts([RecoveryPoint(**point) for point in first['recovery_point']], {}, accept=True)
    assert accepted == {SRC_TP: 300}
    again = readiness(source, target, accepted_log_starts=accepted)
    assert truncated(again) is None and again['recovery_point'][0]['lost'] == 0
    # 50 more written and deleted after the acceptance: those count.
    source, target = clusters(350, 350, 0, syncs=[])
    later = readiness(source, target, accepted_log_starts=accepted)
    assert truncated(later)['lost'] == 50 and truncated(later)['offsets']['accepted_start'] == 300


def test_accepted_starts_are_kept_until_the_partition_starts_lower_and_not_taken_without_accept() -> None:
    point = RecoveryPoint(TOPIC, 0, REMOTE, 300, 300, 0, lost=300)
    assert state_accepted_starts([point], {}, accept=False) == {}
    assert state_accepted_starts([point], {SRC_TP: 200, ('gone', 0): 5}, accept=False) == {SRC_TP: 200}
    recreated = RecoveryPoint(TOPIC, 0, REMOTE, 0, 10, 0, lost=0)
    assert state_accepted_starts([recreated], {SRC_TP: 200}, accept=False) == {}


def test_the_state_file_keeps_the_accepted_starts_beside_the_topic_ids() -> None:
    text = readiness_state({TOPIC: 'id-1'}, 'src->dst', 'now', accepted_starts_document({SRC_TP: 300}))
    assert readiness_state_ids(text) == {TOPIC: 'id-1'}
    assert readiness_state_accepted(text) == {TOPIC: {'0': 300}}
    assert accepted_starts_of(readiness_state_accepted(text)) == {SRC_TP: 300}
    assert readiness_state_accepted(readiness_state({TOPIC: 'id-1'}, 'src->dst', 'now')) == {}
    assert readiness_state_accepted('') == {}
