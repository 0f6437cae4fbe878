# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Failover of consumer groups from a flow's source cluster to its target.

Every read happens before anything changes: groups and their members, committed offsets,
checkpoints, the translation of each partition. Only then are the flow's connectors
stopped and the target offsets written, each step timestamped in the report.

Translation. A checkpoint says: group G, committed at upstream offset U, may resume at
downstream offset D on the target. MM2 keeps few offset syncs for older positions, so D
can lie far below the copy of U (a group far behind re-reads thousands of records). With
the source answering, the copy of the record at U is found on the target by its
fingerprint (key, value, headers, timestamp: what MM2 preserves), scanning forward from
D. Within one partition MM2 writes in source order and replays only go back, so the
first target record at or after D that is a copy of anything at or above U is the copy
of U itself: every record before it replicates an offset below U, and starting there
skips nothing. A fingerprint shared with an earlier record can only stop the scan early,
which re-reads more and never skips. A group at the source's end translates to just
after the first copy of its last record. Without a proof the checkpoint's D is used, and
the report says which method each partition used.
"""

from __future__ import annotations

import functools
import hashlib
import re
import struct
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Protocol, Sequence, Tuple

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_features import degradation_warning
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import (
    KafkaRecord,
    KafkaSide,
    KafkaSideError,
    TopicPartition,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_records import RecordFormatError
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_records import decode_checkpoint as decode_checkpoint_record
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_naming import ReplicationNaming

PLANNED = 'planned'
UNPLANNED = 'unplanned'
# How a partition's target offset was found.
METHOD_EXACT = 'exact'            # the first target copy of the record at the committed offset
METHOD_AFTER_LAST = 'after-last'  # the group had read everything: just after the copy of the last record
METHOD_CHECKPOINT = 'checkpoint'  # MM2's newest checkpoint
METHOD_START = 'start'            # the group had read nothing of the partition
METHOD_ORIGIN = 'origin'          # back to the original topic: the original of the next record to read


class FailoverError(Exception):
    """Input or cluster state that stops the failover before anything changed."""


class Connectors(Protocol):
    """The flow's connectors on its Connect cluster."""

    def states(self) -> Dict[str, str]: ...

    # The state `stop` leaves them in: STOPPED, or PAUSED on a worker without STOPPED (before 3.5).
    def halted_state(self) -> str: ...

    # Features the worker lacks for halting the flow, with what is done instead (connect_features entries).
    def degradations(self) -> List[Dict[str, str]]: ...

    def stop(self) -> List[str]: ...


@dataclass(frozen=True)
class Checkpoint:
    group: str
    topic: str  # the remote topic on the target
    partition: int
    upstream: int
    downstream: int
    timestamp_ms: int


@dataclass
class FailoverRequest:
    mode: str
    source_alias: str
    target_alias: str
    groups: List[str]
    groups_regex: str
    topics_regex: str
    checkpoints_topic: str
    remote_topic: Callable[[str], str]
    source_topic: Callable[[str], Optional[str]]
    wait_timeout: float = 300.0
    max_scan_records: int = 100000
    exact: bool = True
    # Planned: wait until the target holds every record the source had when the groups stopped.
    drain: bool = True
    # Failback: a group's offsets on remote topics that came from the target (their origin) go back
    # to the original topics there. Maps such a remote topic to its origin topic, or None.
    origin_topic: Optional[Callable[[str], Optional[str]]] = None
    force: bool = False
    check_mode: bool = False


@dataclass
class PartitionReport:
    topic: str
    partition: int
    remote_topic: str
    source_committed: Optional[int] = None
    checkpoint_upstream: Optional[int] = None
    checkpoint_downstream: Optional[int] = None
    checkpoint_age_s: Optional[float] = None
    translated: Optional[int] = None
    method: str = METHOD_CHECKPOINT
    method_note: str = ''
    # Records a consumer reads a second time from this offset (None: unknown, the checkpoint's
    # distance to the copy of the committed record could not be proven).
    rereads: Optional[int] = None
    # Records the checkpoint alone would have made it read a second time, and this offset does not.
    rereads_avoided: Optional[int] = None
    target_before: Optional[int] = None
    action: str = ''
    source_end: Optional[int] = None
    not_replicated: Optional[int] = None
    newest_replicated_age_s: Optional[float] = None


@dataclass
class GroupReport:
    group: str
    partitions: List[PartitionReport] = field(default_factory=list)
    skipped_topics: List[str] = field(default_factory=list)
    changed: bool = False


@dataclass
class FailoverReport:
    mode: str
    flow: str
    groups: List[GroupReport] = field(default_factory=list)
    steps: List[Dict[str, Any]] = field(default_factory=list)
    connectors_stopped: List[str] = field(default_factory=list)
    degraded: List[Dict[str, str]] = field(default_factory=list)
    already_done: bool = False
    changed: bool = False
    started_at: float = 0.0

    def step(self, name: str, clock: Callable[[], float], **detail: Any) -> None:
        now = clock()
        self.steps.append(dict({'step': name, 'at': iso_time(now), 'elapsed_s': round(now - self.started_at, 3)}, **detail))

    def as_dict(self) -> Dict[str, Any]:
        data = asdict(self)
        data['summary'] = summary(self)
        return data


def iso_time(epoch: float) -> str:
    return time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(epoch)) + '.%03dZ' % int((epoch % 1) * 1000)


# ---- records ---------------------------------------------------------------------------

def fingerprint(record: KafkaRecord) -> bytes:
    """What MM2 preserves of a record, in one self-delimiting encoding, hashed."""
    digest = hashlib.sha256()

    def field_bytes(data: Optional[bytes]) -> None:
        if data is None:
            digest.update(b'\x00')
        else:
            digest.update(b'\x01' + struct.pack('>I', len(data)) + data)

    digest.update(struct.pack('>q', record.timestamp))
    field_bytes(record.key)
    field_bytes(record.value)
    digest.update(struct.pack('>I', len(record.headers)))
    for name, value in record.headers:
        field_bytes(name.encode('utf-8'))
        field_bytes(value)
    return digest.digest()


def decode_checkpoint(key: Optional[bytes], value: Optional[bytes], timestamp_ms: int) -> Optional[Checkpoint]:
    """A checkpoint record (MM2's schema, version 0), or None for a tombstone or a foreign record."""
    if key is None or value is None:
        return None
    try:
        record = decode_checkpoint_record(key, value)
    except RecordFormatError:
        return None
    return Checkpoint(record.group, record.topic, record.partition, record.upstream_offset, record.downstream_offset,
                      timestamp_ms)


def newest_checkpoints(records: Iterable[KafkaRecord]) -> Dict[Tuple[str, str, int], Checkpoint]:
    """The newest checkpoint per group, remote topic and partition (records in offset order)."""
    newest: Dict[Tuple[str, str, int], Checkpoint] = {}
    for record in records:
        checkpoint = decode_checkpoint(record.key, record.value, record.timestamp)
        if checkpoint is not None:
            newest[(checkpoint.group, checkpoint.topic, checkpoint.partition)] = checkpoint
    return newest


def read_checkpoints(target: KafkaSide, topic: str) -> Dict[Tuple[str, str, int], Checkpoint]:
    """The newest checkpoint per group, remote topic and partition, read whole from MM2's checkpoints topic."""
    tp = (topic, 0)
    ends = target.end_offsets([tp])
    return newest_checkpoints(target.read(tp, 0, max(ends.get(tp, 0), 0)))


def checkpoint_age_s(checkpoint: Checkpoint, now: float) -> float:
    """Seconds since MM2 wrote the checkpoint (its record's timestamp), to a tenth."""
    return round(max(now - checkpoint.timestamp_ms / 1000.0, 0.0), 1)


@dataclass(frozen=True)
class Wanted:
    """A record to find: its timestamp (compared first, it is cheap) and its fingerprint."""

    timestamp: int
    fingerprint: bytes

    @classmethod
    def of(cls, record: KafkaRecord) -> 'Wanted':
        return cls(record.timestamp, fingerprint(record))

    def matches(self, record: KafkaRecord) -> bool:
        return record.timestamp == self.timestamp and fingerprint(record) == self.fingerprint


def first_copy(wanted: Wanted, target: Iterable[KafkaRecord]) -> Optional[int]:
    """Offset of the first target record with this fingerprint."""
    for record in target:
        if wanted.matches(record):
            return record.offset
    return None


# ---- translation -----------------------------------------------------------------------

@dataclass(frozen=True)
class Translation:
    offset: int
    method: str
    note: str = ''


def translate_partition(source: KafkaSide, target: KafkaSide, source_tp: TopicPartition, target_tp: TopicPartition,
                        committed: int, source_end: int, checkpoint: Optional[Checkpoint], max_scan: int,
                        scan_floor: int = 0) -> Translation:
    """The target offset for a group committed at `committed` on source_tp (see the module docstring).

    The scan for the copy starts at the checkpoint's downstream offset when the checkpoint covers
    the commit, else at `scan_floor`: a target offset at or before the first copy of the committed
    record, such as the downstream offset of an offset sync whose upstream offset is at or below it.
    """
    if committed <= 0:
        return Translation(0, METHOD_START)
    scan_from = scan_floor
    if checkpoint is not None and checkpoint.upstream == committed:
        scan_from = max(checkpoint.downstream, scan_floor)
    if committed < source_end:
        record = next(iter(source.read(source_tp, committed, 1)), None)
        if record is not None:
            found = first_copy(Wanted.of(record), target.read(target_tp, scan_from, max_scan))
            if found is not None:
                return Translation(found, METHOD_EXACT, 'copy of source offset %d' % record.offset)
    else:
        record = next(iter(source.read(source_tp, committed - 1, 1)), None)
        if record is not None and record.offset == committed - 1:
            found = first_copy(Wanted.of(record), target.read(target_tp, max(scan_from - 1, 0), max_scan))
            if found is not None:
                return Translation(found + 1, METHOD_AFTER_LAST, 'after the copy of source offset %d' % record.offset)
    if checkpoint is not None and checkpoint.upstream == committed:
        return Translation(checkpoint.downstream, METHOD_CHECKPOINT,
                           'no copy of the committed record within %d records of the checkpoint' % max_scan)
    raise FailoverError('%s-%d: no checkpoint covers committed offset %d and no copy of the record proves a '
                        'position on the target' % (source_tp[0], source_tp[1], committed))


def translate_to_origin(here: KafkaSide, origin: KafkaSide, remote_tp: TopicPartition, origin_tp: TopicPartition,
                        committed: int, max_scan: int) -> Translation:
    """Where a group that read a remote topic up to `committed` resumes on the original topic.

    The next record it would read is a copy of some original offset U; copies come in order and
    replays only go back, so every original record before U was copied (and read) before it.
    A group that read everything resumes after the original of the last record. Identical
    originals stop the search early: more re-reads, never a skip.
    """
    if committed <= 0:
        return Translation(0, METHOD_START)
    end = here.end_offsets([remote_tp]).get(remote_tp, 0)
    at_end = committed >= end
    record = next(iter(here.read(remote_tp, end - 1 if at_end else committed, 1)), None)
    if record is not None:
        found = first_copy(Wanted.of(record), origin.read(origin_tp, 0, max_scan))
        if found is not None:
            if at_end:
                return Translation(found + 1, METHOD_ORIGIN, 'after the original of remote offset %d' % record.offset)
            return Translation(found, METHOD_ORIGIN, 'the original of remote offset %d' % record.offset)
    raise FailoverError('%s-%d: the original of remote offset %d is not within the first %d records of %s-%d; '
                        'raise max_scan_records' % (remote_tp + (committed, max_scan) + origin_tp))


def replication_gap(source: KafkaSide, target: KafkaSide, source_tp: TopicPartition, target_tp: TopicPartition,
                    source_from: int, source_end: int, target_from: int, max_scan: int) -> Optional[int]:
    """Source records in [source_from, source_end) with no copy on the target after target_from.

    MM2 copies a partition in order (replays only go back), so the copies are a
    subsequence of the target log: match greedily. None when the range is too long to read.
    """
    if source_end - source_from > max_scan:
        return None
    if source_from >= source_end:
        return 0
    wanted = [Wanted.of(record) for record in source.read(source_tp, source_from, source_end - source_from)]
    matched = 0
    for record in target.read(target_tp, target_from, max_scan):
        if matched < len(wanted) and wanted[matched].matches(record):
            matched += 1
            if matched == len(wanted):
                break
    return len(wanted) - matched


def proven_rereads(method: str) -> Optional[int]:
    """Re-reads a method guarantees: none beyond MM2's own replays, except for a bare checkpoint."""
    return None if method == METHOD_CHECKPOINT else 0


def decide_action(translated: int, current: Optional[int], force: bool) -> Tuple[str, bool]:
    """What to do with a target partition: (action, write?). Never backwards without force."""
    if current is None:
        return 'set', True
    if translated == current:
        return 'unchanged', False
    if translated > current:
        return 'advanced', True
    if force:
        return 'moved back (forced)', True
    return 'kept (target ahead; force moves it back)', False


# ---- the run -----------------------------------------------------------------------------

class Failover:
    """One failover run over the clusters and connectors it is given."""

    def __init__(self, request: FailoverRequest, target: KafkaSide, connectors: Connectors,
                 source: Optional[KafkaSide] = None, clock: Callable[[], float] = time.time,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.request = request
        self.source = source
        self.target = target
        self.connectors = connectors
        self.clock = clock
        self.sleep = sleep
        self.report = FailoverReport(request.mode, '%s->%s' % (request.source_alias, request.target_alias))
        self.report.started_at = clock()

    # The source's view of the groups (planned mode only).

    def _group_names(self, candidates: Iterable[str]) -> List[str]:
        names = set(self.request.groups)
        if self.request.groups_regex:
            pattern = re.compile(self.request.groups_regex)
            names.update(name for name in candidates if pattern.fullmatch(name))
        if not names:
            raise FailoverError('no consumer group is named or matches groups_regex %r' % self.request.groups_regex)
        return sorted(names)

    def _check_members(self, groups: Sequence[str]) -> None:
        busy = {group: self.source.group_members(group) for group in groups}
        busy = {group: members for group, members in busy.items() if members}
        if busy:
            raise FailoverError('planned failover needs the groups stopped on the source; still active: %s' % '; '.join(
                '%s (%s)' % (group, ', '.join('%s on %s' % (m.client_id, m.host) for m in members))
                for group, members in sorted(busy.items())))

    def _replicated_offsets(self, group: str, committed: Mapping[TopicPartition, int]) -> Tuple[Dict[TopicPartition, int], List[str]]:
        pattern = re.compile(self.request.topics_regex) if self.request.topics_regex else None
        kept = {tp: offset for tp, offset in committed.items() if pattern is None or pattern.fullmatch(tp[0])}
        skipped = sorted({tp[0] for tp in committed if tp not in kept})
        return kept, skipped

    # Checkpoints on the target.

    def _checkpoints(self) -> Dict[Tuple[str, str, int], Checkpoint]:
        return read_checkpoints(self.target, self.request.checkpoints_topic)

    def _checkpoint_for(self, checkpoints: Mapping[Tuple[str, str, int], Checkpoint], group: str,
                        source_tp: TopicPartition) -> Optional[Checkpoint]:
        return checkpoints.get((group, self.request.remote_topic(source_tp[0]), source_tp[1]))

    def _uncovered(self, checkpoints: Mapping[Tuple[str, str, int], Checkpoint],
                   commits: Mapping[str, Mapping[TopicPartition, int]]) -> List[str]:
        missing = []
        for group, offsets in sorted(commits.items()):
            for tp, offset in sorted(offsets.items()):
                checkpoint = self._checkpoint_for(checkpoints, group, tp)
                if offset > 0 and (checkpoint is None or checkpoint.upstream < offset):
                    have = 'none' if checkpoint is None else str(checkpoint.upstream)
                    missing.append('%s %s-%d (committed %d, checkpoint %s)' % (group, tp[0], tp[1], offset, have))
        return missing

    def _wait_for_checkpoints(self, commits: Mapping[str, Mapping[TopicPartition, int]],
                              wait: bool) -> Dict[Tuple[str, str, int], Checkpoint]:
        deadline = self.clock() + (self.request.wait_timeout if wait else 0)
        while True:
            checkpoints = self._checkpoints()
            missing = self._uncovered(checkpoints, commits)
            if not missing:
                return checkpoints
            if self.clock() >= deadline:
                why = ('within %g s' % self.request.wait_timeout) if wait else '(the flow is stopped, so none will come)'
                raise FailoverError('no checkpoint covers the last commit %s: %s' % (why, '; '.join(missing[:20])))
            self.sleep(min(5.0, max(deadline - self.clock(), 0.1)))

    def _undrained(self, commits: Mapping[str, Mapping[TopicPartition, int]],
                   checkpoints: Mapping[Tuple[str, str, int], Checkpoint],
                   source_ends: Mapping[TopicPartition, int]) -> List[str]:
        """Partitions whose records after the groups' commits are not all on the target yet."""
        behind = []
        for tp in sorted({tp for offsets in commits.values() for tp in offsets}):
            committed = min(offsets[tp] for offsets in commits.values() if tp in offsets)
            group = next(group for group, offsets in sorted(commits.items()) if offsets.get(tp) == committed)
            checkpoint = self._checkpoint_for(checkpoints, group, tp)
            target_from = checkpoint.downstream if checkpoint is not None else 0
            gap = replication_gap(self.source, self.target, tp, (self.request.remote_topic(tp[0]), tp[1]), committed,
                                  source_ends.get(tp, committed), target_from, self.request.max_scan_records)
            if gap:
                behind.append('%s-%d: %d records' % (tp[0], tp[1], gap))
        return behind

    def _wait_for_drain(self, commits: Mapping[str, Mapping[TopicPartition, int]],
                        checkpoints: Mapping[Tuple[str, str, int], Checkpoint],
                        source_ends: Mapping[TopicPartition, int]) -> None:
        """Planned: MM2 copies what the source held when the groups stopped before the flow stops."""
        deadline = self.clock() + self.request.wait_timeout
        while True:
            behind = self._undrained(commits, checkpoints, source_ends)
            if not behind:
                return
            if self.clock() >= deadline:
                raise FailoverError('replication did not catch up within %g s, not yet on the target: %s'
                                    % (self.request.wait_timeout, '; '.join(behind[:20])))
            self.sleep(min(2.0, max(deadline - self.clock(), 0.1)))

    # The flow's connectors.

    def _connector_states(self) -> Tuple[bool, bool]:
        """(running, stopped) for the flow's connectors as a whole; anything else is refused.

        Stopped means halted the way `stop` halts them, which is PAUSED on a worker before 3.5.
        """
        states = self.connectors.states()
        if states and all(state == self.connectors.halted_state() for state in states.values()):
            return False, True
        broken = {name: state for name, state in states.items() if state != 'RUNNING'}
        if broken and self.request.mode == PLANNED:
            raise FailoverError('planned failover needs the flow\'s connectors running so that checkpoints catch up: %s; '
                                'restart them, or fail over in mode unplanned' % ', '.join(
                                    '%s is %s' % item for item in sorted(broken.items())))
        return not broken, False

    # Planned and unplanned translation.

    def _planned(self, flow_stopped: bool) -> Dict[str, Tuple[Dict[TopicPartition, int], List[PartitionReport]]]:
        groups = self._group_names(self.source.groups() if self.request.groups_regex else [])
        self._check_members(groups)
        self.report.step('groups have no members on the source', self.clock, groups=groups)
        commits: Dict[str, Dict[TopicPartition, int]] = {}
        origins: Dict[str, Dict[TopicPartition, int]] = {}
        skipped: Dict[str, List[str]] = {}
        for group in groups:
            committed = self.source.committed_offsets(group)
            commits[group], skipped[group] = self._replicated_offsets(group, committed)
            origins[group] = self._origin_offsets(committed, skipped[group])
            skipped[group] = [topic for topic in skipped[group] if all(tp[0] != topic for tp in origins[group])]
            if not commits[group] and not origins[group]:
                raise FailoverError('group %s has no committed offset on a topic the flow replicates' % group)
        checkpoints = self._wait_for_checkpoints(commits, wait=not flow_stopped)
        self.report.step('checkpoints cover the last commits', self.clock)
        source_ends = self.source.end_offsets(sorted({tp for offsets in commits.values() for tp in offsets}))
        if not flow_stopped and self.request.drain:
            self._wait_for_drain(commits, checkpoints, source_ends)
            self.report.step('the target holds every record the source had', self.clock)
        plans = {}
        for group in groups:
            plans[group] = self._translate_group(group, commits[group], checkpoints, source_ends)
            self._translate_origins(origins[group], *plans[group])
            self.report.groups.append(GroupReport(group, plans[group][1], skipped[group]))
        self.report.step('offsets translated', self.clock)
        return plans

    def _origin_offsets(self, committed: Mapping[TopicPartition, int], skipped: Sequence[str]) -> Dict[TopicPartition, int]:
        """Offsets on remote topics whose origin is the target, when the request sends them back there."""
        if self.request.origin_topic is None:
            return {}
        return {tp: offset for tp, offset in committed.items()
                if tp[0] in skipped and self.request.origin_topic(tp[0]) is not None}

    def _translate_origins(self, origins: Mapping[TopicPartition, int], offsets: Dict[TopicPartition, int],
                           reports: List[PartitionReport]) -> None:
        for tp, committed in sorted(origins.items()):
            origin_tp = (self.request.origin_topic(tp[0]), tp[1])
            translation = translate_to_origin(self.source, self.target, tp, origin_tp, committed,
                                              self.request.max_scan_records)
            report = PartitionReport(tp[0], tp[1], origin_tp[0], source_committed=committed,
                                     translated=translation.offset, method=translation.method,
                                     method_note=translation.note, rereads=proven_rereads(translation.method))
            offsets[origin_tp] = translation.offset
            reports.append(report)

    def _translate_group(self, group: str, commits: Mapping[TopicPartition, int],
                         checkpoints: Mapping[Tuple[str, str, int], Checkpoint],
                         source_ends: Mapping[TopicPartition, int]) -> Tuple[Dict[TopicPartition, int], List[PartitionReport]]:
        offsets: Dict[TopicPartition, int] = {}
        reports: List[PartitionReport] = []
        for tp, committed in sorted(commits.items()):
            checkpoint = self._checkpoint_for(checkpoints, group, tp)
            target_tp = (self.request.remote_topic(tp[0]), tp[1])
            end = source_ends.get(tp, committed)
            if self.request.exact:
                translation = translate_partition(self.source, self.target, tp, target_tp, committed, end, checkpoint,
                                                  self.request.max_scan_records)
            elif checkpoint is not None:
                translation = Translation(checkpoint.downstream, METHOD_CHECKPOINT, 'exact translation is off')
            else:
                translation = Translation(0, METHOD_START)
            report = self._partition_report(tp, target_tp, checkpoint, translation)
            report.source_committed = committed
            report.source_end = end
            offsets[target_tp] = translation.offset
            reports.append(report)
        return offsets, reports

    def _partition_report(self, tp: TopicPartition, target_tp: TopicPartition, checkpoint: Optional[Checkpoint],
                          translation: Translation) -> PartitionReport:
        report = PartitionReport(tp[0], tp[1], target_tp[0], translated=translation.offset, method=translation.method,
                                 method_note=translation.note, rereads=proven_rereads(translation.method))
        if checkpoint is not None:
            report.checkpoint_upstream = checkpoint.upstream
            report.checkpoint_downstream = checkpoint.downstream
            report.checkpoint_age_s = checkpoint_age_s(checkpoint, self.clock())
            report.rereads_avoided = translation.offset - checkpoint.downstream
        return report

    def _unplanned(self) -> Dict[str, Tuple[Dict[TopicPartition, int], List[PartitionReport]]]:
        checkpoints = self._checkpoints()
        known = sorted({key[0] for key in checkpoints})
        groups = self._group_names(known)
        without = [group for group in groups if group not in known]
        if without:
            raise FailoverError('no checkpoint on the target for group(s) %s: MM2 never translated their offsets '
                                '(is the group in the flow\'s groups, and did it commit on the source?)' % ', '.join(without))
        self.report.step('newest checkpoints read', self.clock, groups=groups)
        pattern = re.compile(self.request.topics_regex) if self.request.topics_regex else None
        plans = {}
        for group in groups:
            offsets: Dict[TopicPartition, int] = {}
            reports = []
            for (cp_group, remote, partition), checkpoint in sorted(checkpoints.items()):
                if cp_group != group:
                    continue
                source_topic = self.request.source_topic(remote)
                if pattern is not None and source_topic is not None and not pattern.fullmatch(source_topic):
                    continue
                translation = Translation(checkpoint.downstream, METHOD_CHECKPOINT, 'source unreachable: newest checkpoint')
                offsets[(remote, partition)] = checkpoint.downstream
                reports.append(self._partition_report((source_topic or remote, partition), (remote, partition),
                                                      checkpoint, translation))
            for report in reports:
                report.rereads_avoided = None
            plans[group] = (offsets, reports)
            self.report.groups.append(GroupReport(group, reports))
        return plans

    # Target side: members, current offsets, the write.

    def _check_target_members(self, groups: Iterable[str]) -> None:
        busy = {group: self.target.group_members(group) for group in groups}
        busy = {group: members for group, members in busy.items() if members}
        if busy:
            raise FailoverError('the groups must not run on the target while their offsets are set; active there: %s'
                                % '; '.join('%s (%s)' % (group, ', '.join('%s on %s' % (m.client_id, m.host) for m in members))
                                            for group, members in sorted(busy.items())))

    def _decide(self, plans: Mapping[str, Tuple[Dict[TopicPartition, int], List[PartitionReport]]]) -> Dict[str, Dict[TopicPartition, int]]:
        writes: Dict[str, Dict[TopicPartition, int]] = {}
        for group, (offsets, reports) in sorted(plans.items()):
            current = self.target.committed_offsets(group)
            by_tp = {(report.remote_topic, report.partition): report for report in reports}
            for tp, offset in offsets.items():
                report = by_tp[tp]
                report.target_before = current.get(tp)
                report.action, write = decide_action(offset, report.target_before, self.request.force)
                if write:
                    writes.setdefault(group, {})[tp] = offset
        return writes

    def _replication_state(self) -> None:
        """Per partition: records on the source with no copy on the target, and the newest copy's age."""
        for group in self.report.groups:
            for part in group.partitions:
                target_tp = (part.remote_topic, part.partition)
                end = self.target.end_offsets([target_tp]).get(target_tp, 0)
                if end > 0:
                    newest = next(iter(self.target.read(target_tp, end - 1, 1)), None)
                    if newest is not None:
                        part.newest_replicated_age_s = round(max(self.clock() - newest.timestamp / 1000.0, 0.0), 1)
                if self.source is None or part.translated is None or part.source_committed is None \
                        or part.method == METHOD_ORIGIN:
                    continue
                source_tp = (part.topic, part.partition)
                part.source_end = self.source.end_offsets([source_tp]).get(source_tp, part.source_end or 0)
                part.not_replicated = replication_gap(self.source, self.target, source_tp, target_tp, part.source_committed,
                                                      part.source_end, part.translated, self.request.max_scan_records)

    def run(self) -> FailoverReport:
        request = self.request
        if request.mode == PLANNED and self.source is None:
            raise FailoverError('planned failover needs the source cluster')
        running, stopped = self._connector_states()
        self.report.degraded = self.connectors.degradations()
        self.report.step('connectors checked', self.clock, running=running, stopped=stopped)
        plans = self._planned(stopped) if request.mode == PLANNED else self._unplanned()
        self._check_target_members(plans)
        writes = self._decide(plans)
        self.report.already_done = stopped and not writes
        if request.check_mode:
            self._replication_state()
            self.report.changed = bool(writes) or not stopped
            return self.report
        if not stopped:
            self.report.connectors_stopped = self.connectors.stop()
            self.report.step('connectors stopped', self.clock, connectors=self.report.connectors_stopped)
        self._replication_state()
        self.report.step('replication state recorded', self.clock)
        for group, offsets in sorted(writes.items()):
            self.target.alter_offsets(group, offsets)
            self._verify_written(group, offsets)
        for group in self.report.groups:
            group.changed = group.group in writes
        self.report.step('target offsets written', self.clock, groups=sorted(writes))
        self.report.changed = bool(writes) or bool(self.report.connectors_stopped)
        return self.report

    def _verify_written(self, group: str, offsets: Mapping[TopicPartition, int]) -> None:
        committed = self.target.committed_offsets(group)
        wrong = ['%s-%d: %s instead of %d' % (tp[0], tp[1], committed.get(tp), offset)
                 for tp, offset in sorted(offsets.items()) if committed.get(tp) != offset]
        if wrong:
            raise KafkaSideError(self.target.name, 'verify offsets of group %s' % group, '; '.join(wrong))


# ---- the one-screen text -------------------------------------------------------------------

def summary(report: FailoverReport) -> Dict[str, Any]:
    partitions = [part for group in report.groups for part in group.partitions]
    methods: Dict[str, int] = {}
    for part in partitions:
        methods[part.method] = methods.get(part.method, 0) + 1
    gaps = [part.not_replicated for part in partitions if part.not_replicated is not None]
    ages = [part.checkpoint_age_s for part in partitions if part.checkpoint_age_s is not None]
    return {
        'groups': len(report.groups),
        'partitions': len(partitions),
        'methods': methods,
        'rereads_avoided': sum(part.rereads_avoided or 0 for part in partitions),
        'not_replicated': sum(gaps) if gaps else None,
        'oldest_checkpoint_age_s': max(ages) if ages else None,
        'duration_s': report.steps[-1]['elapsed_s'] if report.steps else 0.0,
    }


def render_text(report: Mapping[str, Any]) -> str:
    """The report on one screen: steps with their times, then one line per group partition."""
    done = ' (already done: nothing to change)' if report['already_done'] else ''
    lines = ['%s failover of flow %s%s' % (report['mode'], report['flow'], done)]
    lines.extend('  ' + degradation_warning(entry) for entry in report.get('degraded') or [])
    for step in report['steps']:
        lines.append('  %s  +%7.1fs  %s' % (step['at'], step['elapsed_s'], step['step']))
    rows = [('group', 'partition', 'committed', 'checkpoint', 'target', 'method', 're-read', 'avoided', 'behind',
             'action')]
    for group in report['groups']:
        for part in group['partitions']:
            rows.append((group['group'], '%s-%d' % (part['remote_topic'], part['partition']),
                         _dash(part['source_committed']), _dash(part['checkpoint_downstream']),
                         _dash(part['translated']), part['method'], _dash(part['rereads']),
                         _dash(part['rereads_avoided']), _dash(part['not_replicated']), part['action']))
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    for row in rows:
        lines.append('  ' + '  '.join(cell.ljust(width) for cell, width in zip(row, widths)) + '  ' + row[-1])
    for group in report['groups']:
        if group['skipped_topics']:
            lines.append('  %s: not replicated by the flow, left alone: %s' % (group['group'], ', '.join(group['skipped_topics'])))
    totals = report['summary']
    lines.append('  re-reads avoided against the checkpoints: %s; records not on the target: %s; oldest checkpoint: %s s'
                 % (totals['rereads_avoided'], _dash(totals['not_replicated']), _dash(totals['oldest_checkpoint_age_s'])))
    return '\n'.join(lines)


def _dash(value: Any) -> str:
    return '-' if value is None else str(value)


def naming(policy: str, source_alias: str, separator: str) -> Tuple[Callable[[str], str], Callable[[str], Optional[str]]]:
    """Remote topic of a topic of cluster `source_alias`, and back (None for a topic not from there)."""
    rules = ReplicationNaming(policy=policy, separator=separator, source_alias=source_alias)

    def source_topic(remote: str) -> Optional[str]:
        return rules.upstream_topic(remote) if rules.topic_source(remote) == source_alias else None

    return functools.partial(rules.remote_topic, source_alias), source_topic
