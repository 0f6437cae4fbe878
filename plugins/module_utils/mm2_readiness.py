# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Readiness of one MirrorMaker 2 flow for a failover: what a failover now would cost, how much
would be lost, whether the applications would work on the target, and a verdict.

Every figure is computed by a pure function of what the clusters answered (offsets, offset syncs,
checkpoints, topic descriptions and configs, ACL bindings), so each one is tested with plain
data; `Readiness` does the reading, through the failover's `KafkaSide` and its own readers.
docs/readiness.md defines each figure and its error bound.

Recovery point of a source partition. MM2 writes an offset sync (upstream U, downstream D) when
it copied source record U to target offset D; between two syncs of a partition the source
offsets it copied are consecutive (a gap in them makes MM2 write a sync) and at most
offset.lag.max target offsets pass. So with the newest sync (U, D) and the target's end offset
E, the newest copied source offset is about U + (E - 1 - D). Where the source answers this is
made exact: the target's last record is looked up on the source from U on by its fingerprint
(key, value, headers, timestamp); the first match is at or below the true offset, so the
records counted as not copied are never fewer than the true count. The age of the oldest
record not copied (its timestamp, read on the source) is the recovery point in seconds.

Silent loss. Records below the source's log start that MM2 had not copied are lost: log start
minus (newest copied + 1), whether the partition still holds records or is empty now. An empty
partition has no record to match, so the newest sync's estimate stands. Without any offset sync
the target's record count stands in for one (the n-th copy is of source offset n - 1), and a
partition MM2 copied nothing of has lost everything below its log start. Those two cannot tell
records deleted before the flow began: the operator accepts them once (accepted log starts, in
the state file), and only what is lost after that counts.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Protocol, Sequence, Set, Tuple

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_acls import AclBinding, AclNeed, allowed, granting
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import KafkaRecord, KafkaSide, KafkaSideError, TopicInfo, TopicPartition
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_failover import (
    METHOD_START,
    Checkpoint,
    FailoverError,
    Translation,
    Wanted,
    checkpoint_age_s,
    iso_time,
    naming,
    proven_rereads,
    read_checkpoints,
    translate_partition,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_naming import ReplicationNaming
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_records import RecordFormatError, decode_offset_sync

READY = 'READY'
NOT_READY = 'NOT READY'
# How the newest copied source offset of a partition was found.
RP_RECORD = 'record'              # the target's last record found on the source
RP_OFFSET_SYNC = 'offset-sync'    # newest offset sync plus the target records after it
RP_NOTHING_COPIED = 'nothing-copied'  # no sync and an empty remote partition
RP_EMPTY = 'empty'                # the source partition holds no record (empty_because says why)
RP_TARGET_COUNT = 'target-count'  # no offset sync and the target's last record gone from the source: counted
RP_UNKNOWN = 'unknown'
# A group whose committed record MM2 has not copied yet: a planned failover drains, then translates exactly.
METHOD_AFTER_DRAIN = 'after-drain'
# Records of the target's tail read to find its last data record (a transaction marker has none).
TARGET_TAIL = 50
# MM2's groups.exclude when the flow leaves it unset.
MM2_DEFAULT_GROUPS_EXCLUDE = ('console-consumer-.*', 'connect-.*', '__.*')
# Topic settings compared between a source topic and its remote topic.
RETENTION_SETTINGS = ('retention.ms', 'retention.bytes')
# Why a source partition holds no record (RecoveryPoint.empty_because).
EMPTY_NEVER_WRITTEN = 'never-written'  # its log starts at 0: nothing was ever written to it
EMPTY_COPIED = 'copied'                # every record it held is on the target
EMPTY_TRUNCATED = 'truncated'          # it lost records before MM2 copied them (a truncated sentinel)
EMPTY_UNKNOWN = 'unknown'              # the offsets contradict each other (see the sentinels)


class ReadinessSide(KafkaSide, Protocol):
    """One cluster as the readiness reads it: the failover's reads and the admin reads."""

    def start_offsets(self, partitions: Sequence[TopicPartition]) -> Dict[TopicPartition, int]: ...

    def topics(self) -> List[str]: ...

    def describe_topics(self, names: Sequence[str]) -> Dict[str, TopicInfo]: ...

    def topic_configs(self, names: Sequence[str]) -> Dict[str, Dict[str, str]]: ...

    def broker_config(self) -> Dict[str, str]: ...

    def acls(self) -> Optional[List[AclBinding]]: ...


# ---- the request ------------------------------------------------------------------------------

@dataclass(frozen=True)
class PrincipalSpec:
    """A principal the inventory names as a consumer or producer of the flow's topics."""

    principal: str
    role: str  # consumer or producer
    groups: Tuple[str, ...] = ()
    transactional_ids: Tuple[str, ...] = ()


@dataclass(frozen=True)
class InternalTopic:
    """An internal topic of the flow's Connect cluster or of MM2, as the plan configures it."""

    name: str
    side: str  # the client that reads it: source, target or connect (the Connect cluster's own Kafka client)
    kind: str  # one of INTERNAL_KINDS
    compacted: bool  # must be cleanup.policy=compact
    # As configured; -1 (or 0): the broker's default.replication.factor.
    replication_factor: int = -1
    # The setting that configures it, named in a finding.
    setting: str = ''


@dataclass
class ReadinessRequest:
    flow: str
    source_alias: str
    target_alias: str
    topics_regex: str
    checkpoints_topic: str
    offset_syncs_topic: str
    offset_syncs_location: str  # source or target
    remote_topic: Callable[[str], str]
    source_topic: Callable[[str], Optional[str]]
    # The name a producer writes on the target: the remote topic under the identity policy, the source name otherwise.
    producer_topic: Callable[[str], str]
    # The operator's choice of groups; both empty: every group the flow concerns.
    groups: List[str] = field(default_factory=list)
    groups_regex: str = ''
    # The flow's own group filter (MM2's groups and groups.exclude).
    flow_groups: List[str] = field(default_factory=lambda: ['.*'])
    flow_groups_exclude: List[str] = field(default_factory=lambda: list(MM2_DEFAULT_GROUPS_EXCLUDE))
    offset_lag_max: int = 100
    rpo_seconds: float = 0.0
    rto_seconds: float = 0.0
    principals: List[PrincipalSpec] = field(default_factory=list)
    # Topic ids seen by the previous run (state file on the controller): topic -> id.
    known_topic_ids: Dict[str, str] = field(default_factory=dict)
    # Log starts up to which the operator accepted a truncation (state file): records below are not counted again.
    accepted_log_starts: Dict[TopicPartition, int] = field(default_factory=dict)
    # The newest failover report of the flow (its JSON) and where it was read.
    last_failover: Optional[Mapping[str, Any]] = None
    last_failover_path: str = ''
    max_scan_records: int = 100000
    # The internal topics to check (docs/readiness.md, "Internal topics"); none: no check.
    internal_topics: List[InternalTopic] = field(default_factory=list)


# ---- offset syncs ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Sync:
    upstream: int
    downstream: int


def offset_syncs(records: Iterable[KafkaRecord]) -> Dict[TopicPartition, List[Sync]]:
    """Every offset sync per source partition, in the order MM2 wrote them (records in offset order)."""
    syncs: Dict[TopicPartition, List[Sync]] = {}
    for record in records:
        if record.key is None or record.value is None:
            continue
        try:
            sync = decode_offset_sync(record.key, record.value)
        except RecordFormatError:
            continue
        syncs.setdefault((sync.topic, sync.partition), []).append(Sync(sync.upstream_offset, sync.downstream_offset))
    return syncs


def read_offset_syncs(side: KafkaSide, topic: str) -> Dict[TopicPartition, List[Sync]]:
    tp = (topic, 0)
    end = side.end_offsets([tp]).get(tp, 0)
    return offset_syncs(side.read(tp, 0, max(end, 0)))


def sync_floor(syncs: Sequence[Sync], committed: int) -> int:
    """A target offset at or before the first copy of source offset `committed`: the downstream
    offset of the newest sync whose upstream offset is at or below it (0 without one)."""
    for sync in reversed(syncs):
        if sync.upstream <= committed:
            return sync.downstream
    return 0


# ---- the recovery point ------------------------------------------------------------------------

@dataclass
class RecoveryPoint:
    """Per source partition: what the target lacks now, and since when."""

    topic: str
    partition: int
    remote_topic: str
    source_start: int
    source_end: int
    target_end: Optional[int]
    sync_upstream: Optional[int] = None
    sync_downstream: Optional[int] = None
    # Source offset of the newest record on the target.
    newest_copied: Optional[int] = None
    method: str = RP_UNKNOWN
    # Source records not on the target, and the most it can be.
    uncopied: Optional[int] = None
    uncopied_max: Optional[int] = None
    first_uncopied: Optional[int] = None
    # Seconds since the timestamp of the oldest record not on the target (0 when all are there).
    seconds: Optional[float] = None
    note: str = ''
    # Records the source deleted before MM2 copied them (0: none; None: unknown), and for method
    # empty, why the partition holds no record (EMPTY_*).
    lost: Optional[int] = None
    empty_because: str = ''
    # The log start up to which the operator accepted a loss (0: none accepted).
    accepted_start: int = 0


def estimate_newest_copied(source_end: int, target_end: int, sync: Sync) -> Tuple[Optional[int], str]:
    """The source offset of the newest copied record from the newest offset sync alone (see the module docstring)."""
    if sync.upstream >= source_end:
        return None, ('the newest offset sync copied source offset %d but the source ends at %d (topic re-created, or '
                      'its log truncated)' % (sync.upstream, source_end))
    after = target_end - 1 - sync.downstream
    if after < 0:
        return None, ('the target ends at %d, below the newest offset sync\'s downstream offset %d (remote topic '
                      're-created or truncated)' % (target_end, sync.downstream))
    return min(sync.upstream + after, source_end - 1), ''


def uncopied_counts(source_start: int, source_end: int, newest_copied: Optional[int],
                    sync: Optional[Sync]) -> Tuple[int, Optional[int], int]:
    """(records not copied, their most, first offset not copied) for a known newest copied offset
    (None: nothing copied). Records that retention removed on the source count as lost, not here."""
    first = source_start if newest_copied is None else max(newest_copied + 1, source_start)
    uncopied = max(source_end - first, 0)
    most = None
    if sync is not None:
        most = max(source_end - max(sync.upstream + 1, source_start), 0)
    elif newest_copied is None:
        most = uncopied
    return uncopied, most, first


def last_record(records: Iterable[KafkaRecord]) -> Optional[KafkaRecord]:
    found = None
    for record in records:
        found = record
    return found


def find_on_source(wanted: Wanted, records: Iterable[KafkaRecord]) -> Optional[int]:
    """Offset of the first source record with this fingerprint."""
    for record in records:
        if wanted.matches(record):
            return record.offset
    return None


def recovery_point(source: KafkaSide, target: KafkaSide, source_tp: TopicPartition, remote_tp: TopicPartition,
                   source_start: int, source_end: int, target_end: Optional[int], syncs: Sequence[Sync],
                   now: float, max_scan: int, accepted_start: int = 0) -> RecoveryPoint:
    """The recovery point of one source partition (see the module docstring)."""
    point = RecoveryPoint(source_tp[0], source_tp[1], remote_tp[0], source_start, source_end, target_end,
                          accepted_start=max(accepted_start, 0))
    newest_sync = syncs[-1] if syncs else None
    if newest_sync is not None:
        point.sync_upstream, point.sync_downstream = newest_sync.upstream, newest_sync.downstream
    if source_end <= source_start:
        return _empty_point(point, newest_sync)
    if target_end is None:
        point.note = 'the remote topic %s does not exist on the target' % remote_tp[0]
        point.newest_copied = None
        point.method = RP_NOTHING_COPIED
    elif newest_sync is not None:
        estimate, why = estimate_newest_copied(source_end, target_end, newest_sync)
        if estimate is None:
            point.note = why
            return point
        point.newest_copied, point.method = estimate, RP_OFFSET_SYNC
        matched = _match_tail(source, target, source_tp, remote_tp, max(newest_sync.upstream, source_start),
                              newest_sync.downstream, target_end, max_scan)
        if matched is not None:
            point.newest_copied, point.method = matched, RP_RECORD
    elif target_end == 0:
        point.method = RP_NOTHING_COPIED
    else:
        matched = _match_tail(source, target, source_tp, remote_tp, max(source_start, source_end - max_scan), 0,
                              target_end, max_scan)
        if matched is not None:
            point.newest_copied, point.method = matched, RP_RECORD
        elif source_end - max_scan <= source_start:
            # Every retained record was searched: the target's last copy is of a record the source deleted since.
            point.newest_copied, point.method = counted_newest_copied(target_end, source_start), RP_TARGET_COUNT
            point.note = counted_note(target_end)
        else:
            point.note = ('no offset sync for the partition and the target\'s last record is not among the source\'s '
                          'last %d records' % max_scan)
            return point
    point.uncopied, point.uncopied_max, point.first_uncopied = uncopied_counts(
        source_start, source_end, point.newest_copied, newest_sync)
    point.lost = lost_records(point, point.newest_copied if target_end is not None or newest_sync is None
                              else newest_sync.upstream)
    point.seconds = 0.0
    if point.uncopied:
        oldest = next(iter(source.read(source_tp, point.first_uncopied, 1)), None)
        point.seconds = None if oldest is None else round(max(now - oldest.timestamp / 1000.0, 0.0), 1)
    return point


def counted_newest_copied(target_end: int, source_start: int) -> Optional[int]:
    """Without an offset sync and with the source's copies gone: the newest copied source offset as if MM2 had
    copied the partition once from offset 0, so that its n-th target record copies source offset n - 1.
    Capped below the log start, as the copy is not among the retained records. None: nothing copied."""
    newest = min(target_end, source_start) - 1
    return newest if newest >= 0 else None


def counted_note(target_end: int) -> str:
    return ('no offset sync: the target\'s %d records taken as copies of source offsets 0 to %d (exact when MM2 copied '
            'the partition once from its first offset)' % (target_end, target_end - 1))


def _empty_point(point: RecoveryPoint, sync: Optional[Sync]) -> RecoveryPoint:
    """A source partition that holds no record: nothing is left to copy, but what it held may never have been
    copied. The newest offset sync (or, without one, the target's record count) tells how far MM2 got."""
    point.method = RP_EMPTY
    point.uncopied, point.uncopied_max, point.seconds = 0, 0, 0.0
    if point.source_start == 0:
        point.empty_because, point.lost = EMPTY_NEVER_WRITTEN, 0
        return point
    if sync is not None and point.target_end is None:
        copied: Optional[int] = sync.upstream
        point.note = 'the remote topic %s does not exist on the target' % point.remote_topic
    elif sync is not None:
        copied, why = estimate_newest_copied(point.source_end, point.target_end or 0, sync)
        if copied is None:
            point.empty_because, point.note = EMPTY_UNKNOWN, why
            return point
    else:
        copied = counted_newest_copied(point.target_end or 0, point.source_start)
        if point.target_end:
            point.note = counted_note(point.target_end)
    point.newest_copied = copied
    point.lost = lost_records(point, copied)
    point.empty_because = EMPTY_TRUNCATED if point.lost else EMPTY_COPIED
    return point


def lost_records(point: RecoveryPoint, copied: Optional[int]) -> int:
    """Source records below the log start that MM2 had not copied (copied: the newest source offset it copied,
    None when none), less those the operator accepted."""
    first_not_copied = 0 if copied is None else copied + 1
    return max(point.source_start - max(first_not_copied, point.accepted_start), 0)


def _match_tail(source: KafkaSide, target: KafkaSide, source_tp: TopicPartition, remote_tp: TopicPartition,
                source_from: int, target_floor: int, target_end: int, max_scan: int) -> Optional[int]:
    """Source offset of the target's last data record, searched from source_from on; None when not found."""
    tail = last_record(target.read(remote_tp, max(target_end - TARGET_TAIL, target_floor, 0), TARGET_TAIL))
    if tail is None:
        return None
    return find_on_source(Wanted.of(tail), source.read(source_tp, source_from, max_scan))


# ---- silent-loss sentinels ------------------------------------------------------------------

@dataclass
class Sentinel:
    kind: str  # truncated, recreated, target-truncated
    topic: str
    partition: Optional[int]
    message: str
    fix: str
    lost: Optional[int] = None
    offsets: Dict[str, Any] = field(default_factory=dict)


TRUNCATED_FIX = ('the records are gone from the source and were never on the target: tell the owners of the data; '
                 'raise the source topic\'s retention.ms/retention.bytes above the worst replication lag, and fix what '
                 'keeps MM2 behind (playbooks/status.yml)')
RECREATED_FIX = ('the remote topic holds the old topic\'s records before the new one\'s, and the offset syncs and '
                 'checkpoints of the old topic translate the new offsets wrongly: stop the flow, delete the remote '
                 'topic on the target (and its offset syncs go stale with it), restart the flow so MM2 copies the new '
                 'topic from its start, and wait for fresh checkpoints before any failover')
TARGET_TRUNCATED_FIX = ('the remote topic was re-created or truncated on the target behind MM2: its offset syncs no '
                        'longer match it; restart the flow\'s source connector so that MM2 syncs again, and check '
                        'that the target holds what consumers need')


def truncation_sentinel(point: RecoveryPoint) -> Optional[Sentinel]:
    """Records the source deleted (retention, DeleteRecords) before MM2 copied them: whether the partition still
    holds records or none, and whether MM2 copied some of it or nothing (see the module docstring)."""
    lost = point.lost
    if lost is None and point.newest_copied is not None:
        lost = lost_records(point, point.newest_copied)
    if not lost:
        return None
    first_lost = point.source_start - lost
    where = '%s-%d' % (point.topic, point.partition)
    if point.newest_copied is None:
        evidence = 'MM2 copied none of the partition\'s records'
    else:
        evidence = 'newest copied %d' % point.newest_copied
    if point.method == RP_EMPTY:
        evidence += '; the partition is empty now'
    message = ('%s: %d records lost: the source deleted offsets %d to %d before MM2 copied them (log start %d, %s)'
               % (where, lost, first_lost, point.source_start - 1, point.source_start, evidence))
    fix = TRUNCATED_FIX
    if point.newest_copied is None or point.method == RP_TARGET_COUNT:
        fix += ('; if those records were deleted before the flow first ran, accept the loss with '
                'readiness_accept_truncated=true')
    offsets = {'source_start': point.source_start, 'newest_copied': point.newest_copied, 'first_lost': first_lost,
               'method': point.method}
    if point.accepted_start:
        offsets['accepted_start'] = point.accepted_start
    return Sentinel('truncated', point.topic, point.partition, message, fix, lost, offsets)


def resync_sentinels(point: RecoveryPoint) -> List[Sentinel]:
    """Offset syncs that no longer match the source or the target (re-created or truncated topics)."""
    found = []
    if point.sync_upstream is not None and point.sync_upstream >= point.source_end:
        found.append(Sentinel('recreated', point.topic, point.partition,
                              '%s-%d: the source ends at offset %d, but MM2 copied offset %d of it (newest offset sync): '
                              'the topic was deleted and re-created, or an unclean leader election truncated it'
                              % (point.topic, point.partition, point.source_end, point.sync_upstream),
                              RECREATED_FIX, None,
                              {'source_end': point.source_end, 'sync_upstream': point.sync_upstream}))
    if point.sync_downstream is not None and point.target_end is not None and point.target_end <= point.sync_downstream:
        found.append(Sentinel('target-truncated', point.topic, point.partition,
                              '%s-%d: the target ends at offset %d, but MM2 wrote offset %d there (newest offset sync)'
                              % (point.remote_topic, point.partition, point.target_end, point.sync_downstream),
                              TARGET_TRUNCATED_FIX, None,
                              {'target_end': point.target_end, 'sync_downstream': point.sync_downstream}))
    return found


def topic_id_sentinels(known: Mapping[str, str], current: Mapping[str, Optional[str]]) -> List[Sentinel]:
    """Source topics whose id differs from the one the previous run saw: deleted and re-created since."""
    found = []
    for topic, topic_id in sorted(current.items()):
        before = known.get(topic)
        if before and topic_id and before != topic_id:
            found.append(Sentinel('recreated', topic, None,
                                  '%s: deleted and re-created since the previous readiness run (topic id %s, was %s)'
                                  % (topic, topic_id, before), RECREATED_FIX, None,
                                  {'topic_id': topic_id, 'previous_topic_id': before}))
    return found


def state_topic_ids(current: Mapping[str, Optional[str]], known: Mapping[str, str], accept: bool) -> Dict[str, Optional[str]]:
    """The topic ids to remember: the current ones, but a re-created topic keeps the id it had until the
    operator accepts the new one, so that the finding stays until then."""
    if accept:
        return dict(current)
    return {topic: known[topic] if known.get(topic) and topic_id and known[topic] != topic_id else topic_id
            for topic, topic_id in current.items()}


def state_accepted_starts(points: Sequence[RecoveryPoint], known: Mapping[TopicPartition, int],
                          accept: bool) -> Dict[TopicPartition, int]:
    """The accepted log starts to remember: the known ones of partitions still there (a log start below one is a
    re-created topic: dropped), and with `accept` the log start of every partition that lost records now, so
    that the next run counts only what is lost after it."""
    starts = {(point.topic, point.partition): point.source_start for point in points}
    kept = {tp: start for tp, start in known.items() if tp in starts and starts[tp] >= start}
    if accept:
        for point in points:
            if point.lost:
                kept[(point.topic, point.partition)] = point.source_start
    return kept


def accepted_starts_document(starts: Mapping[TopicPartition, int]) -> Dict[str, Dict[str, int]]:
    """Accepted log starts as JSON: topic -> partition (a string) -> offset."""
    document: Dict[str, Dict[str, int]] = {}
    for (topic, partition), start in sorted(starts.items()):
        document.setdefault(str(topic), {})[str(partition)] = int(start)
    return document


def accepted_starts_of(document: Any) -> Dict[TopicPartition, int]:
    """The accepted log starts of a JSON document (accepted_starts_document); an entry that is not one is an error."""
    if not document:
        return {}
    starts: Dict[TopicPartition, int] = {}
    try:
        for topic, partitions in dict(document).items():
            for partition, start in dict(partitions).items():
                starts[(str(topic), int(partition))] = int(start)
    except (TypeError, ValueError) as exc:
        raise ValueError('accepted log starts must map topic -> partition -> offset (%s)' % exc) from exc
    return starts


# The state file (the source topic ids a run saw, the truncations the operator accepted): on the controller
# for playbooks/readiness.yml, in the readiness exporter's state directory for the exporter.
STATE_FORMAT = 1


def _state_document(text: Any) -> Dict[str, Any]:
    if text is None or not str(text).strip():
        return {}
    try:
        document = json.loads(str(text))
    except ValueError as exc:
        raise ValueError('the readiness state file is not JSON (%s); remove it to start afresh' % exc) from exc
    if not isinstance(document, dict) or document.get('format') != STATE_FORMAT or not isinstance(document.get('topic_ids'), dict):
        raise ValueError('the readiness state file is not in format %d; remove it to start afresh' % STATE_FORMAT)
    return document


def readiness_state_ids(text: Any) -> Dict[str, str]:
    """The topic ids a state file holds; none for an empty text. A file that is not one is an error."""
    document = _state_document(text)
    return {str(topic): str(topic_id) for topic, topic_id in (document.get('topic_ids') or {}).items() if topic_id}


def readiness_state_accepted(text: Any) -> Dict[str, Dict[str, int]]:
    """The accepted log starts a state file holds (accepted_starts_document's form); none for an empty text."""
    document = _state_document(text)
    return accepted_starts_document(accepted_starts_of(document.get('accepted_log_starts')))


def readiness_state(topic_ids: Mapping[str, Any], flow: str, measured_at: str,
                    accepted_log_starts: Optional[Mapping[str, Any]] = None) -> str:
    """The state file's text: the topic ids this run saw, and the accepted log starts (accepted_starts_document)."""
    document: Dict[str, Any] = {'format': STATE_FORMAT, 'flow': flow, 'measured_at': measured_at,
                                'topic_ids': {str(topic): topic_id for topic, topic_id in topic_ids.items()}}
    if accepted_log_starts:
        document['accepted_log_starts'] = accepted_starts_document(accepted_starts_of(accepted_log_starts))
    return json.dumps(document, indent=2, sort_keys=True) + '\n'


# ---- consumer groups --------------------------------------------------------------------------

@dataclass
class GroupPartition:
    topic: str
    partition: int
    remote_topic: str
    committed: Optional[int] = None
    source_end: Optional[int] = None
    checkpoint_upstream: Optional[int] = None
    checkpoint_downstream: Optional[int] = None
    checkpoint_age_s: Optional[float] = None
    # Source records committed after the newest checkpoint's (what it does not cover yet).
    commits_after_checkpoint: Optional[int] = None
    # Where a planned failover now would set the group: the first target copy of the committed record.
    exact_offset: Optional[int] = None
    exact_method: str = ''
    exact_note: str = ''
    planned_rereads: Optional[int] = None
    # An unplanned failover sets the newest checkpoint's downstream offset.
    unplanned_offset: Optional[int] = None
    unplanned_rereads: Optional[int] = None
    unplanned_skipped: Optional[int] = None
    # Why MM2 has no checkpoint for it ('' when it has one).
    untranslated: str = ''


@dataclass
class GroupReadiness:
    group: str
    # all, partly or none of its partitions have a checkpoint; n/a without a commit on the flow's topics.
    translated: str = 'none'
    reasons: List[str] = field(default_factory=list)
    selected: bool = False  # named by the operator (names or regex)
    filtered: bool = False  # outside the flow's groups / groups_exclude
    target_members: List[str] = field(default_factory=list)
    partitions: List[GroupPartition] = field(default_factory=list)
    planned_rereads: Optional[int] = None
    unplanned_rereads: Optional[int] = None
    unplanned_skipped: int = 0
    oldest_checkpoint_age_s: Optional[float] = None


def full_match(patterns: Sequence[str], name: str) -> Optional[str]:
    """The first pattern that matches the whole name (MM2 joins them with | and matches whole names)."""
    return next((pattern for pattern in patterns if re.fullmatch(pattern, name)), None)


def group_filter_reason(group: str, include: Sequence[str], exclude: Sequence[str]) -> str:
    """Why the flow's checkpoint connector leaves the group alone ('' when it does not)."""
    if full_match(include, group) is None:
        return 'filtered out by the flow: matches none of its groups (%s)' % ', '.join(include)
    excluded = full_match(exclude, group)
    if excluded is not None:
        return 'filtered out by the flow: matches its groups_exclude %s' % excluded
    return ''


def untranslated_reason(committed: Optional[int], source_end: Optional[int], syncs: Sequence[Sync],
                        offset_lag_max: int) -> str:
    """Why a partition of a group in the flow's filter has no checkpoint."""
    if committed is None:
        return 'no commit on the source'
    if not syncs:
        return 'no offset sync for the partition: MM2 has not copied any record of it yet'
    oldest = min(sync.upstream for sync in syncs)
    if committed < oldest:
        behind = '' if source_end is None else ', %d records behind the end' % (source_end - committed)
        text = ('commit too far behind: committed offset %d is below the oldest offset sync MM2 keeps for the '
                'partition (source offset %d%s). MM2 writes a sync only every offset.lag.max (%d) records or at a gap, '
                'keeps few for old positions and, once the offset-syncs topic is compacted, only the newest; it cannot '
                'translate an older position until the group reads past %d')
        return text % (committed, oldest, behind, offset_lag_max, oldest)
    return ('not checkpointed yet although offset syncs cover it: the checkpoint connector has not run since the '
            'commit (emit.checkpoints.interval.seconds), is not running, or does not list the group')


def not_copied_yet(committed: int, point: RecoveryPoint) -> bool:
    """The record at the committed offset (or the last one, for a group at the end) is not on the target yet."""
    needed = committed if committed < point.source_end else committed - 1
    if point.newest_copied is None:
        return point.method == RP_NOTHING_COPIED and needed >= point.source_start
    return needed > point.newest_copied


def unplanned_cost(exact: Optional[int], checkpoint: Optional[Checkpoint]) -> Tuple[Optional[int], Optional[int]]:
    """(records re-read, records skipped) from the newest checkpoint instead of the exact position."""
    if checkpoint is None or exact is None:
        return None, None
    if checkpoint.downstream <= exact:
        return exact - checkpoint.downstream, 0
    return 0, checkpoint.downstream - exact


def group_totals(group: GroupReadiness) -> None:
    parts = group.partitions
    planned = [part.planned_rereads for part in parts if part.committed is not None]
    group.planned_rereads = None if not planned or any(value is None for value in planned) else sum(
        value for value in planned if value is not None)
    unplanned = [part.unplanned_rereads for part in parts]
    group.unplanned_rereads = None if not parts or any(value is None for value in unplanned) else sum(
        value for value in unplanned if value is not None)
    group.unplanned_skipped = sum(part.unplanned_skipped or 0 for part in parts)
    ages = [part.checkpoint_age_s for part in parts if part.checkpoint_age_s is not None]
    group.oldest_checkpoint_age_s = max(ages) if ages else None
    with_commit = [part for part in parts if part.committed]
    checkpointed = [part for part in with_commit if part.checkpoint_downstream is not None]
    if not with_commit:
        group.translated = 'all' if parts and all(part.checkpoint_downstream is not None for part in parts) else 'n/a'
    elif len(checkpointed) == len(with_commit):
        group.translated = 'all'
    else:
        group.translated = 'partly' if checkpointed else 'none'


# ---- topic configs ----------------------------------------------------------------------------

@dataclass
class ConfigFinding:
    topic: str
    remote_topic: str
    setting: str
    source: Any
    target: Any
    breaks: bool
    message: str


def _number(value: Any) -> Optional[int]:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def _limit_smaller(target: Optional[int], source: Optional[int]) -> bool:
    """A retention limit on the target below the source's (-1: none)."""
    if target is None or source is None or target < 0:
        return False
    return source < 0 or target < source


def compare_topic(topic: str, remote: str, source_info: TopicInfo, source_config: Mapping[str, str],
                  target_info: Optional[TopicInfo], target_config: Mapping[str, str],
                  target_broker: Mapping[str, str]) -> List[ConfigFinding]:
    """What differs between a source topic and its remote topic in ways applications notice."""
    found: List[ConfigFinding] = []

    def add(setting: str, source: Any, target: Any, breaks: bool, message: str) -> None:
        found.append(ConfigFinding(topic, remote, setting, source, target, breaks, '%s: %s' % (remote, message)))

    if target_info is None:
        add('exists', True, False, True, 'does not exist on the target: nothing of %s is replicated yet' % topic)
        return found
    if target_info.partitions < source_info.partitions:
        add('partitions', source_info.partitions, target_info.partitions, True,
            '%d partitions, %d on the source: records of the missing partitions are not on the target (MM2 adds '
            'partitions at its next topic refresh)' % (target_info.partitions, source_info.partitions))
    elif target_info.partitions > source_info.partitions:
        add('partitions', source_info.partitions, target_info.partitions, False,
            '%d partitions, %d on the source: producers on the target spread keys differently'
            % (target_info.partitions, source_info.partitions))
    policy = (source_config.get('cleanup.policy'), target_config.get('cleanup.policy'))
    if policy[0] is not None and policy[1] is not None and sorted(policy[0].split(',')) != sorted(policy[1].split(',')):
        add('cleanup.policy', policy[0], policy[1], True,
            'cleanup.policy %s, %s on the source: the log is kept otherwise than applications expect' % (policy[1], policy[0]))
    size = (_number(source_config.get('max.message.bytes')), _number(target_config.get('max.message.bytes')))
    if size[0] is not None and size[1] is not None and size[1] < size[0]:
        add('max.message.bytes', size[0], size[1], True,
            'max.message.bytes %d, %d on the source: batches the source accepts are refused on the target (MM2 fails '
            'on them, and so do producers)' % (size[1], size[0]))
    for setting in RETENTION_SETTINGS:
        values = (_number(source_config.get(setting)), _number(target_config.get(setting)))
        if _limit_smaller(values[1], values[0]):
            add(setting, values[0], values[1], False, '%s %d, %s on the source: the target keeps less history'
                % (setting, values[1], 'unlimited' if values[0] is not None and values[0] < 0 else values[0]))
    found.extend(_durability_findings(topic, remote, source_info, source_config, target_info, target_config, target_broker))
    return found


def _durability_findings(topic: str, remote: str, source_info: TopicInfo, source_config: Mapping[str, str],
                         target_info: TopicInfo, target_config: Mapping[str, str],
                         target_broker: Mapping[str, str]) -> List[ConfigFinding]:
    found: List[ConfigFinding] = []

    def add(setting: str, source: Any, target: Any, breaks: bool, message: str) -> None:
        found.append(ConfigFinding(topic, remote, setting, source, target, breaks, '%s: %s' % (remote, message)))

    replicas = target_info.replication_factor
    isr = (_number(source_config.get('min.insync.replicas')), _number(target_config.get('min.insync.replicas')))
    if isr[1] is not None and isr[1] > replicas:
        add('min.insync.replicas', isr[0], isr[1], True,
            'min.insync.replicas %d is above its replication factor %d: producers with acks=all always fail '
            '(NotEnoughReplicas)' % (isr[1], replicas))
    elif isr[1] is not None and isr[1] == replicas and replicas > 1:
        add('min.insync.replicas', isr[0], isr[1], False,
            'min.insync.replicas %d equals its replication factor: one broker down stops producers with acks=all'
            % isr[1])
    if isr[0] is not None and isr[1] is not None and isr[1] < isr[0]:
        add('min.insync.replicas', isr[0], isr[1], False,
            'min.insync.replicas %d, %d on the source: acknowledged writes are less durable' % (isr[1], isr[0]))
    default_rf = _number(target_broker.get('default.replication.factor'))
    if default_rf is not None and replicas < default_rf:
        add('replication.factor', source_info.replication_factor, replicas, False,
            'replication factor %d, below the target\'s default.replication.factor %d' % (replicas, default_rf))
    elif replicas < source_info.replication_factor:
        add('replication.factor', source_info.replication_factor, replicas, False,
            'replication factor %d, %d on the source' % (replicas, source_info.replication_factor))
    return found


# ---- internal topics --------------------------------------------------------------------------

# What each internal topic holds, and what a non-compacted one loses (docs/readiness.md, "Internal topics").
INTERNAL_KINDS: Dict[str, Tuple[str, str]] = {
    'config': ('Connect\'s config topic (config.storage.topic)',
               'retention deletes connector configurations: the connectors are gone once the workers re-read the topic, '
               'and the workers refuse to start on a config topic that is not compacted'),
    'offset': ('Connect\'s offsets topic (offset.storage.topic)',
               'retention deletes the source connectors\' offsets: MM2 then resumes from its consumer\'s reset, copying '
               'records again or skipping them, and the workers refuse to start on an offsets topic that is not compacted'),
    'status': ('Connect\'s status topic (status.storage.topic)',
               'retention deletes connector and task states, and the workers refuse to start on a status topic that is '
               'not compacted'),
    'checkpoints': ('MM2\'s checkpoints topic',
                    'retention deletes the checkpoints of groups that commit rarely: a failover finds no translated '
                    'offset for them'),
    'offset-syncs': ('MM2\'s offset-syncs topic',
                     'retention deletes the offset syncs of partitions MM2 has not synced since: their groups\' offsets '
                     'are no longer translated'),
    'heartbeats': ('MM2\'s heartbeats topic', ''),
}
PROBLEM = 'problem'
WARNING = 'warning'
COMMAND_CONFIG = '<client properties>'


@dataclass
class InternalFinding:
    setting: str  # cleanup.policy, replication.factor or min.insync.replicas
    severity: str  # problem or warning
    message: str
    fix: str


@dataclass
class InternalTopicCheck:
    """One internal topic as found, and what is wrong with it."""

    topic: str
    kind: str
    side: str
    cluster: str
    # None when the topic could not be read (note says why).
    exists: Optional[bool] = None
    cleanup_policy: Optional[str] = None
    replication_factor: Optional[int] = None
    expected_replication_factor: Optional[int] = None
    min_insync_replicas: Optional[int] = None
    findings: List[InternalFinding] = field(default_factory=list)
    note: str = ''


# The fix commands name the cluster's bootstrap servers and the client properties as placeholders: the module
# hides every value of its client settings (bootstrap.servers too), and the properties file holds secrets.
def bootstrap_placeholder(side: str, cluster: str) -> str:
    return '<bootstrap servers of %s>' % ('the Connect cluster\'s Kafka' if side == 'connect' else cluster)


def configs_fix(bootstrap: str, topic: str, setting: str, value: Any) -> str:
    return ('kafka-configs.sh --bootstrap-server %s --command-config %s --entity-type topics --entity-name %s '
            '--alter --add-config %s=%s' % (bootstrap, COMMAND_CONFIG, topic, setting, value))


def reassign_fix(bootstrap: str, topic: str, replicas: int) -> str:
    return ('kafka-reassign-partitions.sh --bootstrap-server %s --command-config %s --reassignment-json-file '
            '<file giving each partition of %s %d replicas on distinct brokers> --execute'
            % (bootstrap, COMMAND_CONFIG, topic, replicas))


def cluster_words(side: str, cluster: str) -> str:
    return 'the Connect cluster\'s Kafka' if side == 'connect' else cluster


def expected_replicas(spec: InternalTopic, broker: Mapping[str, str]) -> Optional[int]:
    """The configured replication factor; the broker's default for -1 (None when it cannot be read)."""
    if spec.replication_factor > 0:
        return spec.replication_factor
    return _number(broker.get('default.replication.factor'))


def check_internal_topic(spec: InternalTopic, cluster: str, info: TopicInfo, config: Mapping[str, str],
                         broker: Mapping[str, str]) -> InternalTopicCheck:
    """The rules of docs/readiness.md, "Internal topics", on one topic that exists."""
    bootstrap = bootstrap_placeholder(spec.side, cluster)
    check = InternalTopicCheck(spec.name, spec.kind, spec.side, cluster, True, config.get('cleanup.policy'),
                               info.replication_factor, expected_replicas(spec, broker),
                               _number(config.get('min.insync.replicas')))
    what, loss = INTERNAL_KINDS.get(spec.kind, (spec.kind, ''))
    where = '%s (%s on %s)' % (spec.name, what, cluster_words(spec.side, cluster))

    def add(setting: str, severity: str, message: str, fix: str) -> None:
        check.findings.append(InternalFinding(setting, severity, '%s: %s' % (where, message), fix))

    policy = sorted(part.strip() for part in (check.cleanup_policy or '').split(',') if part.strip())
    if spec.compacted and check.cleanup_policy is not None and policy != ['compact']:
        add('cleanup.policy', PROBLEM, 'cleanup.policy %s, must be compact: %s' % (check.cleanup_policy, loss),
            configs_fix(bootstrap, spec.name, 'cleanup.policy', 'compact'))
    replicas, wanted = info.replication_factor, check.expected_replication_factor
    if wanted is not None and replicas < wanted:
        source = spec.setting or 'its replication factor setting'
        if spec.replication_factor <= 0:
            source += ' (-1: the broker\'s default.replication.factor)'
        add('replication.factor', WARNING, 'replication factor %d, %s asks for %d: fewer broker failures lose it'
            % (replicas, source, wanted), reassign_fix(bootstrap, spec.name, wanted))
    isr = check.min_insync_replicas
    if isr is None:
        return check
    if isr > replicas:
        add('min.insync.replicas', PROBLEM, 'min.insync.replicas %d is above its replication factor %d: every write '
            'with acks=all fails (NotEnoughReplicas), and Connect and MM2 write their internal topics so'
            % (isr, replicas), configs_fix(bootstrap, spec.name, 'min.insync.replicas', max(replicas - 1, 1)))
    elif replicas > 1 and isr in (1, replicas):
        if isr == 1:
            message = 'min.insync.replicas 1 with %d replicas: an acknowledged write may be on one broker only' % replicas
        else:
            message = 'min.insync.replicas %d equals its replication factor: one broker down stops every write' % isr
        fix = (configs_fix(bootstrap, spec.name, 'min.insync.replicas', 2) if replicas >= 3 else
               '%s, then %s' % (reassign_fix(bootstrap, spec.name, 3), configs_fix(bootstrap, spec.name, 'min.insync.replicas', 2)))
        add('min.insync.replicas', WARNING, message, fix)
    return check


# ---- ACLs -------------------------------------------------------------------------------------

@dataclass
class PrincipalAcls:
    principal: str
    roles: List[str]
    source_bindings: List[str] = field(default_factory=list)
    needed: List[str] = field(default_factory=list)
    missing: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)


def describe_need(need: AclNeed) -> str:
    return '%s ALLOW %s on %s:%s:%s from %s' % (need.principal, need.operation, need.resource_type, need.pattern_type,
                                                need.name, need.host)


def _hosts(bindings: Sequence[AclBinding]) -> List[str]:
    hosts = sorted({binding.host for binding in bindings})
    return ['*'] if '*' in hosts or not hosts else hosts


def principal_needs(spec: PrincipalSpec, source_acls: Optional[Sequence[AclBinding]], topics: Sequence[str],
                    groups: Sequence[str], remote_topic: Callable[[str], str],
                    producer_topic: Callable[[str], str]) -> Tuple[List[AclNeed], List[AclBinding], List[str]]:
    """(what the principal needs on the target, its source bindings that say so, notes).

    With an authorizer on the source the needs follow what the source allows the principal (from the
    same hosts); without one, a consumer needs every topic of the flow, a producer writes every topic."""
    needs: List[AclNeed] = []
    used: Set[AclBinding] = set()
    notes: List[str] = []
    principal = spec.principal
    operation = 'READ' if spec.role == 'consumer' else 'WRITE'
    for topic in topics:
        name = remote_topic(topic) if spec.role == 'consumer' else producer_topic(topic)
        if source_acls is None:
            hosts = ['*']
        else:
            grants = granting(source_acls, principal, 'TOPIC', topic, operation)
            if not grants:
                continue
            used.update(grants)
            hosts = _hosts(grants)
        for host in hosts:
            needs += [AclNeed(principal, 'TOPIC', name, operation, host=host), AclNeed(principal, 'TOPIC', name, 'DESCRIBE', host=host)]
    if source_acls is None:
        notes.append('the source runs no authorizer: every topic of the flow is taken as used')
    if spec.role == 'consumer':
        wanted = set(spec.groups)
        if source_acls is not None:
            for group in groups:
                grants = granting(source_acls, principal, 'GROUP', group, 'READ')
                if grants:
                    used.update(grants)
                    wanted.add(group)
        needs += [AclNeed(principal, 'GROUP', group, 'READ') for group in sorted(wanted)]
    else:
        ids: Set[Tuple[str, str, str]] = {('LITERAL', name, '*') for name in spec.transactional_ids}
        for binding in source_acls or []:
            if (binding.resource_type == 'TRANSACTIONAL_ID' and binding.permission == 'ALLOW'
                    and binding.principal == principal and binding.operation in ('WRITE', 'ALL')):
                used.add(binding)
                ids.add((binding.pattern_type, binding.name, binding.host))
        for pattern_type, name, host in sorted(ids):
            needs += [AclNeed(principal, 'TRANSACTIONAL_ID', name, 'WRITE', pattern_type, host),
                      AclNeed(principal, 'TRANSACTIONAL_ID', name, 'DESCRIBE', pattern_type, host)]
    return needs, sorted(used), notes


def check_principal(spec_list: Sequence[PrincipalSpec], source_acls: Optional[Sequence[AclBinding]],
                    target_acls: Optional[Sequence[AclBinding]], topics: Sequence[str], groups: Sequence[str],
                    remote_topic: Callable[[str], str], producer_topic: Callable[[str], str],
                    target_topics: Optional[Set[str]] = None) -> List[PrincipalAcls]:
    """Per principal: its source bindings for the flow, what it needs on the target, and what is missing there."""
    by_principal: Dict[str, List[PrincipalSpec]] = {}
    for spec in spec_list:
        by_principal.setdefault(spec.principal, []).append(spec)
    answers = []
    for principal, specs in sorted(by_principal.items()):
        answer = PrincipalAcls(principal, sorted({spec.role for spec in specs}))
        needs: List[AclNeed] = []
        used: Set[AclBinding] = set()
        for spec in specs:
            spec_needs, spec_used, notes = principal_needs(spec, source_acls, topics, groups, remote_topic, producer_topic)
            needs += spec_needs
            used.update(spec_used)
            answer.notes += [note for note in notes if note not in answer.notes]
            if spec.role == 'producer' and target_topics is not None:
                absent = sorted({producer_topic(topic) for topic in topics} - target_topics)
                if absent:
                    answer.notes.append('topics producers write do not exist on the target: %s' % ', '.join(absent))
        unique = sorted(set(needs))
        answer.source_bindings = [binding.describe() for binding in sorted(used)]
        answer.needed = [describe_need(need) for need in unique]
        if target_acls is None:
            answer.notes.append('the target runs no authorizer: nothing is denied there')
        else:
            answer.missing = [describe_need(need) for need in unique if not allowed(target_acls, need)]
        if not unique:
            answer.notes.append('the source grants it nothing on the flow\'s topics: nothing to check')
        answers.append(answer)
    return answers


# ---- recovery time ----------------------------------------------------------------------------

def recovery_time(report: Optional[Mapping[str, Any]], path: str, target_s: float) -> Dict[str, Any]:
    """The duration of the newest failover of the flow, as its report measured it; nothing is estimated."""
    figure: Dict[str, Any] = {'target_s': target_s or None, 'measured_s': None, 'report': path or None, 'mode': None,
                              'at': None}
    if not report:
        figure['note'] = ('not measured: no failover report of this flow (run a failover drill: playbooks/failover.yml '
                          'writes one); the failover\'s duration depends on how long MM2 takes to checkpoint and to '
                          'drain, which no figure here predicts')
        return figure
    steps = report.get('steps') or []
    summary = report.get('summary') or {}
    figure['measured_s'] = summary.get('duration_s', steps[-1].get('elapsed_s') if steps else None)
    figure['mode'] = report.get('mode')
    figure['at'] = steps[0].get('at') if steps else None
    figure['note'] = ('the duration the newest failover report measured, from its first step to offsets written; '
                      'restarting the applications on the target comes on top')
    return figure


# ---- the report -------------------------------------------------------------------------------

@dataclass
class ReadinessReport:
    flow: str
    source: str
    target: str
    measured_at: str = ''
    ready: bool = False
    verdict: str = NOT_READY
    problems: List[str] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)
    recovery_point: List[RecoveryPoint] = field(default_factory=list)
    groups: List[GroupReadiness] = field(default_factory=list)
    configs: List[ConfigFinding] = field(default_factory=list)
    acls: List[PrincipalAcls] = field(default_factory=list)
    sentinels: List[Sentinel] = field(default_factory=list)
    internal_topics: List[InternalTopicCheck] = field(default_factory=list)
    recovery_time: Dict[str, Any] = field(default_factory=dict)
    topic_ids: Dict[str, Optional[str]] = field(default_factory=dict)
    targets: Dict[str, Any] = field(default_factory=dict)
    duration_s: float = 0.0

    def as_dict(self) -> Dict[str, Any]:
        data = asdict(self)
        data['summary'] = summary(self)
        return data


def summary(report: ReadinessReport) -> Dict[str, Any]:
    points = report.recovery_point
    known = [point for point in points if point.uncopied is not None]
    seconds = [point.seconds for point in points if point.seconds is not None]
    groups = report.groups
    planned = [group.planned_rereads for group in groups if group.planned_rereads is not None]
    unplanned = [group.unplanned_rereads for group in groups if group.unplanned_rereads is not None]
    ages = [group.oldest_checkpoint_age_s for group in groups if group.oldest_checkpoint_age_s is not None]
    return {
        'partitions': len(points),
        'uncopied_records': sum(point.uncopied or 0 for point in known),
        'recovery_point_s': max(seconds) if seconds else None,
        'recovery_point_unknown': len(points) - len(known),
        'lost_records': sum(sentinel.lost or 0 for sentinel in report.sentinels if sentinel.kind == 'truncated'),
        'groups': len(groups),
        'groups_untranslated': sorted(group.group for group in groups if group.translated in ('none', 'partly')),
        'planned_rereads': sum(planned) if planned else None,
        'unplanned_rereads': sum(unplanned) if unplanned else None,
        'unplanned_skipped': sum(group.unplanned_skipped for group in groups),
        'oldest_checkpoint_age_s': max(ages) if ages else None,
        'missing_acls': sum(len(entry.missing) for entry in report.acls),
        'config_breaks': sum(1 for finding in report.configs if finding.breaks),
        'recovery_time_s': report.recovery_time.get('measured_s'),
        'internal_topic_problems': sum(1 for check in report.internal_topics for finding in check.findings
                                       if finding.severity == PROBLEM),
    }


# ---- the verdict ------------------------------------------------------------------------------

def verdict(report: ReadinessReport, rpo_seconds: float, rto_seconds: float, read_warnings: Sequence[str] = ()) -> None:
    """Problems (NOT READY) and warnings from the figures; sets ready and verdict. `read_warnings`:
    what the reads found missing (an internal topic that does not exist)."""
    problems: List[str] = []
    warnings: List[str] = list(read_warnings)
    for point in report.recovery_point:
        where = '%s-%d' % (point.topic, point.partition)
        if point.uncopied is None:
            (problems if rpo_seconds else warnings).append('recovery point of %s unknown: %s' % (where, point.note))
        elif rpo_seconds and point.seconds is not None and point.seconds > rpo_seconds:
            problems.append('recovery point of %s is %.1f s (%d records not on the target), over the RPO of %g s'
                            % (where, point.seconds, point.uncopied, rpo_seconds))
    for sentinel in report.sentinels:
        problems.append('%s; fix: %s' % (sentinel.message, sentinel.fix))
    for group in report.groups:
        _group_findings(group, problems, warnings)
    for finding in report.configs:
        (problems if finding.breaks else warnings).append(finding.message)
    for check in report.internal_topics:
        for finding in check.findings:
            (problems if finding.severity == PROBLEM else warnings).append('%s; fix: %s' % (finding.message, finding.fix))
    for entry in report.acls:
        if entry.missing:
            problems.append('%s lacks on the target: %s' % (entry.principal, '; '.join(entry.missing)))
    measured = report.recovery_time.get('measured_s')
    if rto_seconds and measured is not None and measured > rto_seconds:
        problems.append('the newest failover took %.1f s (%s), over the RTO of %g s'
                        % (measured, report.recovery_time.get('report'), rto_seconds))
    elif rto_seconds and measured is None:
        warnings.append('recovery time not measured: no failover report of this flow; run a failover drill')
    report.problems, report.warnings = problems, warnings
    report.ready = not problems
    report.verdict = READY if report.ready else NOT_READY


def _group_findings(group: GroupReadiness, problems: List[str], warnings: List[str]) -> None:
    name = 'group %s' % group.group
    if group.filtered:
        # The flow leaves the group out on purpose unless the operator asked for it.
        (problems if group.selected else warnings).append('%s: %s' % (name, '; '.join(group.reasons)))
        return
    if group.target_members:
        problems.append('%s has active members on the target (%s): MM2 does not sync its offsets there and a failover '
                        'refuses it' % (name, ', '.join(group.target_members)))
    if group.translated == 'n/a':
        (problems if group.selected else warnings).append('%s: %s' % (name, '; '.join(group.reasons) or 'no commit'))
        return
    for part in group.partitions:
        where = '%s %s-%d' % (name, part.topic, part.partition)
        if part.untranslated and part.committed:
            problems.append('%s not translated by MM2: %s' % (where, part.untranslated))
        if part.unplanned_skipped:
            problems.append('%s: an unplanned failover would skip %d records (the newest checkpoint, %d, is past the copy '
                            'of the committed record, %s)' % (where, part.unplanned_skipped, part.unplanned_offset,
                                                              part.exact_offset))
        if part.committed and part.planned_rereads is None:
            warnings.append('%s: no exact position on the target (%s)' % (where, part.exact_note or 'unknown'))


# ---- the run ------------------------------------------------------------------------------------

class Readiness:
    """One readiness run of a flow over its two clusters; reads only."""

    def __init__(self, request: ReadinessRequest, source: ReadinessSide, target: ReadinessSide,
                 clock: Callable[[], float] = time.time, connect: Optional[ReadinessSide] = None) -> None:
        """`connect`: the Kafka cluster of the Connect cluster, read with the workers' own client (its internal topics)."""
        self.request = request
        self.source = source
        self.target = target
        self.connect = connect
        self.clock = clock
        self.report = ReadinessReport('%s' % request.flow, request.source_alias, request.target_alias)
        self.report.targets = {'rpo_seconds': request.rpo_seconds or None, 'rto_seconds': request.rto_seconds or None}
        self.syncs: Dict[TopicPartition, List[Sync]] = {}
        self.ends: Dict[TopicPartition, int] = {}
        self.points: Dict[TopicPartition, RecoveryPoint] = {}
        self.read_warnings: List[str] = []

    @property
    def _syncs_side(self) -> ReadinessSide:
        return self.target if self.request.offset_syncs_location == 'target' else self.source

    def run(self) -> ReadinessReport:
        started = self.clock()
        self.report.measured_at = iso_time(started)
        request = self.request
        pattern = re.compile(request.topics_regex) if request.topics_regex else None
        topics = [name for name in self.source.topics() if pattern is None or pattern.fullmatch(name)]
        described = self.source.describe_topics(topics)
        topics = sorted(described)
        remote = {topic: request.remote_topic(topic) for topic in topics}
        remote_described = self.target.describe_topics(sorted(set(remote.values())))
        self.report.topic_ids = {topic: described[topic].topic_id for topic in topics}
        self.report.sentinels += topic_id_sentinels(request.known_topic_ids, self.report.topic_ids)
        self.syncs = self._read_internal(self._syncs_side, request.offset_syncs_topic, read_offset_syncs, 'offset-syncs')
        self._recovery_points(topics, described, remote, remote_described)
        self._groups(topics)
        self._configs(topics, described, remote, remote_described)
        self._internal_topics()
        if request.principals:
            self._acls(topics, set(self.target.topics()))
        self.report.recovery_time = recovery_time(request.last_failover, request.last_failover_path, request.rto_seconds)
        verdict(self.report, request.rpo_seconds, request.rto_seconds, self.read_warnings)
        self.report.duration_s = round(self.clock() - started, 3)
        return self.report

    def _read_internal(self, side: ReadinessSide, topic: str, reader: Callable[[KafkaSide, str], Any], what: str) -> Any:
        if topic not in side.describe_topics([topic]):
            self.read_warnings.append('the %s topic %s does not exist on cluster %s' % (what, topic, side.name))
            return {}
        return reader(side, topic)

    def _recovery_points(self, topics: Sequence[str], described: Mapping[str, TopicInfo], remote: Mapping[str, str],
                         remote_described: Mapping[str, TopicInfo]) -> None:
        source_tps = [(topic, partition) for topic in topics for partition in range(described[topic].partitions)]
        remote_tps = [(remote[topic], partition) for topic, partition in source_tps if remote[topic] in remote_described
                      and partition < remote_described[remote[topic]].partitions]
        starts = self.source.start_offsets(source_tps)
        self.ends = self.source.end_offsets(source_tps)
        target_ends = self.target.end_offsets(remote_tps)
        now = self.clock()
        for tp in source_tps:
            remote_tp = (remote[tp[0]], tp[1])
            point = recovery_point(self.source, self.target, tp, remote_tp, starts.get(tp, 0), self.ends.get(tp, 0),
                                   target_ends.get(remote_tp), self.syncs.get(tp, []), now,
                                   self.request.max_scan_records, self.request.accepted_log_starts.get(tp, 0))
            self.report.recovery_point.append(point)
            self.points[tp] = point
            truncated = truncation_sentinel(point)
            if truncated is not None:
                self.report.sentinels.append(truncated)
            self.report.sentinels += resync_sentinels(point)

    # Groups.

    def _selected(self, candidates: Iterable[str]) -> Tuple[List[str], bool]:
        request = self.request
        if not request.groups and not request.groups_regex:
            return sorted(set(candidates)), False
        names = set(request.groups)
        if request.groups_regex:
            chosen = re.compile(request.groups_regex)
            names.update(name for name in candidates if chosen.fullmatch(name))
        return sorted(names), True

    def _groups(self, topics: Sequence[str]) -> None:
        request = self.request
        checkpoints = self._read_internal(self.target, request.checkpoints_topic, read_checkpoints, 'checkpoints')
        flow_topics = set(topics)
        by_group: Dict[str, Dict[TopicPartition, Checkpoint]] = {}
        for (group, remote, partition), checkpoint in checkpoints.items():
            topic = request.source_topic(remote)
            if topic is not None and topic in flow_topics:
                by_group.setdefault(group, {})[(topic, partition)] = checkpoint
        source_groups = self.source.groups()
        names, chosen = self._selected(set(source_groups) | set(by_group))
        present = set(source_groups)
        for name in names:
            commits = {} if name not in present else {
                tp: offset for tp, offset in self.source.committed_offsets(name).items() if tp[0] in flow_topics}
            if not chosen and not commits and name not in by_group:
                continue
            self.report.groups.append(self._group(name, chosen, commits, by_group.get(name, {})))

    def _group(self, name: str, chosen: bool, commits: Mapping[TopicPartition, int],
               checkpoints: Mapping[TopicPartition, Checkpoint]) -> GroupReadiness:
        request = self.request
        group = GroupReadiness(name, selected=chosen)
        reason = group_filter_reason(name, request.flow_groups, request.flow_groups_exclude)
        if reason:
            group.filtered = True
            group.reasons.append(reason)
        if not commits:
            group.reasons.append('no commit on the source for the flow\'s topics')
        group.target_members = ['%s on %s' % (member.client_id, member.host) for member in self.target.group_members(name)]
        if group.target_members:
            group.reasons.append('active members on the target')
        now = self.clock()
        for tp in sorted(set(commits) | set(checkpoints)):
            group.partitions.append(self._group_partition(tp, commits.get(tp), checkpoints.get(tp), now, filtered=reason))
        group_totals(group)
        return group

    def _group_partition(self, tp: TopicPartition, committed: Optional[int], checkpoint: Optional[Checkpoint],
                         now: float, filtered: str) -> GroupPartition:
        """`filtered`: why the flow leaves the group out ('' when it does not)."""
        request = self.request
        remote_tp = (request.remote_topic(tp[0]), tp[1])
        syncs = self.syncs.get(tp, [])
        part = GroupPartition(tp[0], tp[1], remote_tp[0], committed, self.ends.get(tp))
        if checkpoint is not None:
            part.checkpoint_upstream, part.checkpoint_downstream = checkpoint.upstream, checkpoint.downstream
            part.checkpoint_age_s = checkpoint_age_s(checkpoint, now)
            part.unplanned_offset = checkpoint.downstream
            if committed is not None:
                part.commits_after_checkpoint = committed - checkpoint.upstream
        elif committed:
            part.untranslated = filtered or untranslated_reason(committed, part.source_end, syncs, request.offset_lag_max)
        if committed is None:
            return part
        translation, part.exact_note = self._exact(tp, remote_tp, committed, checkpoint, syncs)
        if translation is not None:
            part.exact_offset, part.exact_method = translation.offset, translation.method
            part.planned_rereads = proven_rereads(translation.method)
        part.unplanned_rereads, part.unplanned_skipped = unplanned_cost(part.exact_offset, checkpoint)
        point = self.points.get(tp)
        if translation is None and point is not None and not_copied_yet(committed, point):
            # A planned failover drains first and then finds the copy; an unplanned one re-reads the whole tail.
            part.exact_method, part.planned_rereads = METHOD_AFTER_DRAIN, 0
            part.exact_note = ('the committed record (source offset %d) is not on the target yet; a planned failover waits '
                               'until it is (drain) and resumes at its copy' % committed)
            if checkpoint is not None and point.target_end is not None:
                part.unplanned_rereads, part.unplanned_skipped = max(point.target_end - checkpoint.downstream, 0), 0
        if checkpoint is None and committed == 0:
            part.unplanned_rereads, part.unplanned_skipped = 0, 0
        return part

    def _exact(self, tp: TopicPartition, remote_tp: TopicPartition, committed: int, checkpoint: Optional[Checkpoint],
               syncs: Sequence[Sync]) -> Tuple[Optional[Translation], str]:
        """The failover's exact translation of the commit, or None and why there is none."""
        if committed <= 0:
            return Translation(0, METHOD_START), ''
        try:
            translation = translate_partition(self.source, self.target, tp, remote_tp, committed,
                                              self.ends.get(tp, committed), checkpoint, self.request.max_scan_records,
                                              scan_floor=sync_floor(syncs, committed))
        except FailoverError as exc:
            return None, str(exc)
        return translation, translation.note

    # Configs and ACLs.

    def _configs(self, topics: Sequence[str], described: Mapping[str, TopicInfo], remote: Mapping[str, str],
                 remote_described: Mapping[str, TopicInfo]) -> None:
        source_configs = self.source.topic_configs(list(topics))
        existing = sorted({remote[topic] for topic in topics if remote[topic] in remote_described})
        target_configs = self.target.topic_configs(existing)
        broker = self._allowed_read(self.target, self.target.broker_config, {}, 'its broker defaults', 'DescribeConfigs') \
            if existing else {}
        for topic in topics:
            self.report.configs += compare_topic(topic, remote[topic], described[topic], source_configs.get(topic, {}),
                                                 remote_described.get(remote[topic]),
                                                 target_configs.get(remote[topic], {}), broker)

    def _acls(self, topics: Sequence[str], target_topics: Set[str]) -> None:
        request = self.request
        groups = [group.group for group in self.report.groups]
        unread = object()
        acls = [self._allowed_read(side, side.acls, unread, 'its ACLs', 'Describe') for side in (self.source, self.target)]
        if unread in acls:
            return
        self.report.acls = check_principal(request.principals, acls[0], acls[1], topics, groups, request.remote_topic,
                                           request.producer_topic, target_topics)

    # Internal topics.

    def _internal_topics(self) -> None:
        sides = {'source': self.source, 'target': self.target, 'connect': self.connect}
        labels = {'source': self.request.source_alias, 'target': self.request.target_alias, 'connect': 'connect'}
        brokers: Dict[str, Mapping[str, str]] = {}
        for spec in self.request.internal_topics:
            side, label = sides.get(spec.side), labels.get(spec.side, spec.side)
            if side is None:
                self.report.internal_topics.append(InternalTopicCheck(
                    spec.name, spec.kind, spec.side, label, note='not checked: no client for %s' % cluster_words(spec.side, label)))
                continue
            self.report.internal_topics.append(self._internal_topic(spec, side, label, brokers))

    def _internal_topic(self, spec: InternalTopic, side: ReadinessSide, label: str,
                        brokers: Dict[str, Mapping[str, str]]) -> InternalTopicCheck:
        check = InternalTopicCheck(spec.name, spec.kind, spec.side, label)
        try:
            described = side.describe_topics([spec.name])
            if spec.name not in described:
                check.exists, check.note = False, 'does not exist'
                # The checkpoints and offset-syncs topics are reported missing where they are read.
                if spec.kind not in ('checkpoints', 'offset-syncs'):
                    self.read_warnings.append('%s %s does not exist on %s' % (
                        INTERNAL_KINDS.get(spec.kind, (spec.kind, ''))[0], spec.name, cluster_words(spec.side, label)))
                return check
            config = side.topic_configs([spec.name]).get(spec.name, {})
        except KafkaSideError as exc:
            if 'AuthorizationException' not in exc.message:
                raise
            check.note = 'not checked: the account may not read it'
            self.read_warnings.append('internal topic %s on %s: not checked, the account is not allowed to read it '
                                      '(Describe and DescribeConfigs on the topic); %s'
                                      % (spec.name, cluster_words(spec.side, label), exc.message))
            return check
        if spec.side not in brokers:
            brokers[spec.side] = self._broker_defaults(side, spec.side)
        return check_internal_topic(spec, label, described[spec.name], config, brokers[spec.side])

    def _broker_defaults(self, side: ReadinessSide, which: str) -> Mapping[str, str]:
        """The broker defaults (default.replication.factor for a factor of -1); none when the account may not read them."""
        if which != 'connect':
            return self._allowed_read(side, side.broker_config, {}, 'its broker defaults', 'DescribeConfigs')
        try:
            return side.broker_config()
        except KafkaSideError as exc:
            if 'AuthorizationException' not in exc.message:
                raise
            self.read_warnings.append('the Connect workers\' account may not read the broker defaults of their Kafka cluster '
                                      '(DescribeConfigs on the cluster): a replication factor of -1 is not checked; %s'
                                      % exc.message)
            return {}

    def _allowed_read(self, side: ReadinessSide, read: Callable[[], Any], instead: Any, what: str, operation: str) -> Any:
        """A read that needs a cluster permission MM2's account may lack: without it, a warning and `instead`."""
        try:
            return read()
        except KafkaSideError as exc:
            if 'AuthorizationException' not in exc.message:
                raise
            warning = ('cluster %s does not let MM2\'s account read %s (%s on the cluster): not checked; %s'
                       % (side.name, what, operation, exc.message))
            if warning not in self.read_warnings:
                self.read_warnings.append(warning)
            return instead


# ---- the request from the module's arguments (also the readiness exporter's) -------------------

def input_errors(params: Dict[str, Any]) -> List[str]:
    """Problems of the arguments alone, found before any cluster is contacted."""
    errors = []
    for option in ('topics_regex', 'groups_regex'):
        try:
            re.compile(params[option])
        except re.error as exc:
            errors.append('%s is not a regular expression: %s' % (option, exc))
    for option in ('flow_groups', 'flow_groups_exclude'):
        for pattern in params[option]:
            try:
                re.compile(pattern)
            except re.error as exc:
                errors.append('%s pattern %r is not a regular expression: %s' % (option, pattern, exc))
    for option in ('source_client', 'target_client'):
        if not params[option].get('bootstrap.servers'):
            errors.append('%s has no bootstrap.servers' % option)
    for option in ('rpo_seconds', 'rto_seconds'):
        if params[option] < 0:
            errors.append('%s must be 0 (off) or more' % option)
    if params['max_scan_records'] < 1:
        errors.append('max_scan_records must be 1 or more')
    try:
        accepted_starts_of(params.get('accepted_log_starts'))
    except ValueError as exc:
        errors.append(str(exc))
    for entry in params.get('internal_topics') or []:
        if entry.get('side') not in INTERNAL_SIDES or not entry.get('name') or entry.get('kind') not in INTERNAL_KINDS:
            errors.append('internal_topics entry %s needs a name, a side (%s) and a kind (%s)'
                          % (entry, ', '.join(INTERNAL_SIDES), ', '.join(INTERNAL_KINDS)))
        elif entry['side'] == 'connect' and not (params.get('connect_client') or {}).get('bootstrap.servers'):
            errors.append('internal topic %s of the Connect cluster needs connect_client with bootstrap.servers' % entry['name'])
    return errors


def known_ids(params: Dict[str, Any]) -> Dict[str, str]:
    return {str(key): str(value) for key, value in params['known_topic_ids'].items() if value}


def build_request(params: Dict[str, Any]) -> ReadinessRequest:
    source, target = params['source_alias'], params['target_alias']
    rules = ReplicationNaming(policy=params['replication_policy'], separator=params['separator'], source_alias=source)
    remote_topic, source_topic = naming(params['replication_policy'], source, params['separator'])
    # After a failover producers write under the same name: the remote topic itself only under the identity policy.
    producer_topic = remote_topic if rules.identity else (lambda topic: topic)
    syncs_topic = params['offset_syncs_topic'] or rules.offset_syncs_placement(source, target, params['offset_syncs_location'])[1]
    principals = [PrincipalSpec(entry['principal'].strip(), 'consumer', groups=tuple(entry['groups'] or ()))
                  for entry in params['consumers']]
    principals += [PrincipalSpec(entry['principal'].strip(), 'producer', transactional_ids=tuple(entry['transactional_ids'] or ()))
                   for entry in params['producers']]
    return ReadinessRequest(
        flow=params['flow'] or '%s->%s' % (source, target),
        source_alias=source,
        target_alias=target,
        topics_regex=params['topics_regex'],
        checkpoints_topic=params['checkpoints_topic'] or rules.checkpoints_topic(source),
        offset_syncs_topic=syncs_topic,
        offset_syncs_location=params['offset_syncs_location'],
        remote_topic=remote_topic,
        source_topic=source_topic,
        producer_topic=producer_topic,
        groups=params['groups'],
        groups_regex=params['groups_regex'],
        flow_groups=params['flow_groups'],
        flow_groups_exclude=params['flow_groups_exclude'],
        offset_lag_max=params['offset_lag_max'],
        rpo_seconds=float(params['rpo_seconds']),
        rto_seconds=float(params['rto_seconds']),
        principals=principals,
        known_topic_ids=known_ids(params),
        accepted_log_starts=accepted_starts_of(params.get('accepted_log_starts')),
        last_failover=params['last_failover_report'],
        last_failover_path=params['last_failover_report_path'],
        max_scan_records=params['max_scan_records'],
        internal_topics=internal_topic_specs(params.get('internal_topics') or []),
    )


INTERNAL_SIDES = ('source', 'target', 'connect')


def internal_topic_specs(entries: Sequence[Mapping[str, Any]]) -> List[InternalTopic]:
    """The internal_topics argument (mm2_plan's readiness answer) as specs."""
    return [InternalTopic(str(entry['name']), str(entry['side']), str(entry['kind']), bool(entry.get('compacted', True)),
                          int(entry.get('replication_factor', -1)), str(entry.get('setting') or ''))
            for entry in entries]


# ---- the text screen ----------------------------------------------------------------------------

def _dash(value: Any, unit: str = '') -> str:
    return '-' if value is None else '%s%s' % (value, unit)


def _table(rows: Sequence[Sequence[str]], indent: str = '  ') -> List[str]:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    return [(indent + '  '.join(cell.ljust(width) for cell, width in zip(row, widths)) + '  ' + row[-1]).rstrip()
            for row in rows]


def _counted(count: int, noun: str) -> str:
    return '%d %s%s' % (count, noun, '' if count == 1 else 's')


def _recovery_lines(report: Mapping[str, Any]) -> List[str]:
    rpo = report['targets'].get('rpo_seconds')
    lines = ['Recovery point now (source records not on the target; RPO %s)' % ('%g s' % rpo if rpo else 'not set')]
    rows = [('partition', 'not copied', 'at most', 'oldest not copied', 'newest copied', 'method')]
    for point in report['recovery_point']:
        method = point_method(point)
        rows.append(('%s-%d' % (point['topic'], point['partition']), _dash(point['uncopied']), _dash(point['uncopied_max']),
                     _dash(point['seconds'], ' s'), _dash(point['newest_copied']), method))
    lines += _table(rows) if len(rows) > 1 else ['  no source partition matches the flow\'s topics']
    totals = report['summary']
    lines.append('  total %s not copied, the oldest %s old%s' % (
        _counted(totals['uncopied_records'], 'record'), _dash(totals['recovery_point_s'], ' s'),
        '; %d partitions unknown' % totals['recovery_point_unknown'] if totals['recovery_point_unknown'] else ''))
    return lines


def point_method(point: Mapping[str, Any]) -> str:
    """The method column: how newest_copied was found, why an empty partition is empty, what was lost."""
    method = point['method']
    if point.get('empty_because'):
        method += ' (%s)' % point['empty_because']
    if point.get('lost'):
        method += ', %s LOST' % _counted(point['lost'], 'record')
    return method + (' (%s)' % point['note'] if point['note'] else '')


def _group_lines(report: Mapping[str, Any]) -> List[str]:
    lines = ['Failover cost now (records a consumer group would read again)']
    rows = [('group', 'partition', 'committed', 'exact', 're-read planned', 'checkpoint', 'age', 're-read unplanned', 'note')]
    for group in report['groups']:
        for part in group['partitions']:
            unplanned = _dash(part['unplanned_rereads'])
            if part['unplanned_skipped']:
                unplanned = 'SKIPS %d' % part['unplanned_skipped']
            rows.append((group['group'], '%s-%d' % (part['remote_topic'], part['partition']), _dash(part['committed']),
                         _dash(part['exact_offset']), _dash(part['planned_rereads']), _dash(part['checkpoint_downstream']),
                         _dash(part['checkpoint_age_s'], ' s'), unplanned,
                         part['exact_method'] if not part['untranslated'] else 'NOT TRANSLATED'))
    lines += _table(rows) if len(rows) > 1 else ['  no consumer group reads the flow\'s topics']
    for group in report['groups']:
        reasons = list(group['reasons']) + sorted({part['untranslated'] for part in group['partitions']
                                                   if part['untranslated'] and part['untranslated'] not in group['reasons']})
        if group['translated'] != 'all' and reasons:
            lines.append('  %s (%s translated): %s' % (group['group'], group['translated'], '; '.join(reasons)))
    if not report['groups']:
        return lines
    totals = report['summary']
    lines.append('  planned: %s re-read; unplanned: %s re-read, %s skipped; oldest checkpoint %s old' % (
        _dash(totals['planned_rereads']), _dash(totals['unplanned_rereads']), totals['unplanned_skipped'],
        _dash(totals['oldest_checkpoint_age_s'], ' s')))
    return lines


def _apps_lines(report: Mapping[str, Any]) -> List[str]:
    lines = ['Applications on the target']
    breaking = [finding for finding in report['configs'] if finding['breaks']]
    differences = '%s, %d that break applications' % (_counted(len(report['configs']), 'difference'), len(breaking))
    lines.append('  topic configs: %s' % (differences if report['configs'] else 'as on the source'))
    for finding in report['configs']:
        lines.append('    %s %s' % ('BREAKS' if finding['breaks'] else 'warns ', finding['message']))
    if not report['acls']:
        lines.append('  ACLs: no consumer or producer principal named for the flow (consumers, producers)')
    for entry in report['acls']:
        lines.append('  ACLs of %s (%s): %d needed, %d missing'
                     % (entry['principal'], ', '.join(entry['roles']), len(entry['needed']), len(entry['missing'])))
        lines += ['    missing: %s' % item for item in entry['missing']]
        lines += ['    note: %s' % item for item in entry['notes']]
    return lines


def _internal_lines(report: Mapping[str, Any]) -> List[str]:
    checks = report.get('internal_topics') or []
    if not checks:
        return []
    wrong = [check for check in checks if check['findings']]
    lines = ['Internal topics: %s' % ('as they should be' if not wrong else '%s wrong' % _counted(len(wrong), 'topic'))]
    rows = [('topic', 'kind', 'cluster', 'cleanup.policy', 'replicas', 'expected', 'min.insync', 'state')]
    for check in checks:
        severities = {finding['severity'] for finding in check['findings']}
        state = 'PROBLEM' if PROBLEM in severities else 'warns' if severities else (check['note'] or 'ok')
        rows.append((check['topic'], check['kind'], check['cluster'], _dash(check['cleanup_policy']),
                     _dash(check['replication_factor']), _dash(check['expected_replication_factor']),
                     _dash(check['min_insync_replicas']), state))
    lines += _table(rows)
    for check in wrong:
        for finding in check['findings']:
            lines.append('  %s: %s' % (finding['severity'], finding['message']))
            lines.append('    fix: %s' % finding['fix'])
    return lines


def render_text(report: Mapping[str, Any]) -> str:
    """The report on one screen: each figure, then the verdict with every finding."""
    lines = ['Readiness of flow %s (%s -> %s) at %s: %s'
             % (report['flow'], report['source'], report['target'], report['measured_at'], report['verdict']), '']
    lines += _recovery_lines(report) + ['']
    lines += _group_lines(report) + ['']
    lines += _apps_lines(report) + ['']
    internal = _internal_lines(report)
    lines += internal + [''] if internal else []
    lines.append('Silent-loss sentinels: %s' % ('none' if not report['sentinels'] else _counted(len(report['sentinels']), 'finding')))
    for sentinel in report['sentinels']:
        lines.append('  %s' % sentinel['message'])
        lines.append('    fix: %s' % sentinel['fix'])
    lines.append('')
    rto = report['recovery_time']
    measured = rto.get('measured_s')
    target = ', RTO %g s' % rto['target_s'] if rto.get('target_s') else ''
    if measured is None:
        lines.append('Recovery time: %s%s' % (rto.get('note', 'not measured'), target))
    else:
        lines.append('Recovery time: %s s measured by %s (%s failover at %s)%s'
                     % (measured, rto.get('report'), rto.get('mode'), rto.get('at'), target))
    lines.append('')
    lines.append('%s: %s, %s' % (report['verdict'], _counted(len(report['problems']), 'problem'),
                                 _counted(len(report['warnings']), 'warning')))
    lines += ['  problem: %s' % text for text in report['problems']]
    lines += ['  warning: %s' % text for text in report['warnings']]
    return '\n'.join(lines)
