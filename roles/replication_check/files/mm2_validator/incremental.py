"""Incremental mode: each run judges only the source records that arrived since the last
proven position, and keeps what the next run needs in a state file.

Pure Python over lists of fingerprinted records (`Rec`); the Spark job
(`incremental_job`) reads and fingerprints the records and calls `run_increment`.

Per source partition the state holds:

- ``proven``: every source record below this offset is judged;
- ``target_from``: every record of the remote partition below this offset is judged; the
  next increment reads the target from here;
- ``recent``: the last judged source records (offset, fingerprint, key fingerprint, target
  offset of their copy or null when judged missing), bounded by ``--state-memory``. A copy
  arriving in a later increment of one of them is a duplicate (or, for a record judged
  missing, a late copy: an order violation), and a key's order is checked across runs.

An increment snapshots the source end offsets, then the target end offsets; reads source
[proven, source end) and target [target_from, target end); pairs the n-th source copy of
a fingerprint with the n-th target copy (both by offset). A source record is judged only
when a later record of its partition is already copied (or it is copied itself); the
others are in flight and carried to the next run. Target records are judged in a
contiguous prefix: those at or below the last copy of a judged record, and duplicates of
known records; the rest (copies of records past the source snapshot, foreign records
after the last copy) are carried. Findings are keyed by topic, partition, kind and
offsets, so a redone increment yields the same keys; cumulative counts live in the state,
written atomically after the report.

Source records that the source deleted (retention, DeleteRecords) before an increment judged
them are a ``truncated`` finding, counted in records: nobody can tell any more whether each was
copied. Its ``lost`` is how many at least never were: the records deleted less the target
records that may be their copies (those before the first verified copy; in a partition left
empty, all of the target's new records, which stay unjudged until a later copy is verified).
Per partition the state also keeps what a metrics exporter shows: the source end at the last
snapshot, when the proven position last advanced (or was found at the end), and
the counts since the state began.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence

from mm2_validator.model import (
    CONTENT_MISMATCH,
    DUPLICATE,
    MISSING,
    ORDER_VIOLATION,
    PROBLEM_KINDS,
    TIMESTAMP_TYPE_CHANGE,
    UNEXPECTED,
)

STATE_FORMAT = "mm2-validator-incremental-state"
STATE_VERSION = 1
DEFAULT_MEMORY = 5000  # judged source records remembered per partition
# Source records deleted before an increment judged them: an increment's own kind.
TRUNCATED = "truncated"
KINDS = PROBLEM_KINDS + (TRUNCATED,)
COUNTERS = ("records_judged", "records_copied", "target_records_judged") + KINDS
# What a partition's state keeps besides its positions: the source end offset at the last
# snapshot, the Unix time the proven position last advanced or was found at that end, and
# the counts since the state began (COUNTERS).
PARTITION_FIGURES = ("source_end", "verified_at", "cumulative")


class StateError(Exception):
    """A state that cannot be used for this run (exit code 2)."""


@dataclass(frozen=True)
class Rec:
    """A fingerprinted record: what the comparison needs, nothing else."""

    offset: int
    fp: str  # the record's fingerprint (key, value, headers, timestamp)
    key_fp: str
    value_fp: str = ""
    headers_fp: str = ""
    ts: int = 0
    ts_type: int = 0
    key_preview: Optional[str] = None


@dataclass(frozen=True)
class Flow:
    source_alias: str
    target_alias: str

    def as_dict(self) -> dict[str, str]:
        return {"source_alias": self.source_alias, "target_alias": self.target_alias}


@dataclass
class TopicSnapshot:
    """Offsets taken at the start of a run: the source first, then the target."""

    source_topic: str
    remote_topic: str
    partitions: list[int]
    source_start: dict[int, int]
    source_end: dict[int, int]
    target_partitions: list[int]
    target_start: dict[int, int]
    target_end: dict[int, int]
    topic_id: Optional[str] = None


@dataclass
class PartitionOutcome:
    partition: int
    source_from: int
    source_end: int
    target_from: int
    target_end: int
    proven: int
    next_target_from: int
    records_judged: int = 0
    records_copied: int = 0
    target_records_judged: int = 0
    carried_source: int = 0
    carried_target: int = 0
    first_carried_offset: Optional[int] = None
    # Source records were deleted before a verified copy told their copies from later ones.
    truncated_copies_pending: bool = False
    counts: dict[str, int] = field(default_factory=lambda: {kind: 0 for kind in KINDS})
    findings: list[dict[str, Any]] = field(default_factory=list)
    recent: list[list[Any]] = field(default_factory=list)


@dataclass
class TopicOutcome:
    source_topic: str
    remote_topic: str
    partitions: list[PartitionOutcome] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)  # state messages: reset, new partitions, expiry

    def counts(self) -> dict[str, int]:
        totals = {name: 0 for name in COUNTERS}
        for p in self.partitions:
            totals["records_judged"] += p.records_judged
            totals["records_copied"] += p.records_copied
            totals["target_records_judged"] += p.target_records_judged
            for kind, count in p.counts.items():
                totals[kind] += count
        return totals


@dataclass
class IncrementResult:
    flow: Flow
    state_path: str
    run: int  # this increment's number (1 for the first)
    started_at: str
    topics: list[TopicOutcome]
    cumulative: dict[str, dict[str, int]]  # per source topic, after this increment
    state: dict[str, Any]  # the state to write once the reports are written

    @property
    def findings(self) -> list[dict[str, Any]]:
        return [f for t in self.topics for p in t.partitions for f in p.findings]

    @property
    def verdict(self) -> str:
        return "FAIL" if self.findings or any(n["severity"] == "error" for t in self.topics for n in t.notes) else "PASS"

    def summary(self) -> dict[str, Any]:
        """The increment's part of the JSON report."""
        return {
            "state": self.state_path,
            "run": self.run,
            "flow": self.flow.as_dict(),
            "topics": [
                {
                    "source_topic": t.source_topic,
                    "remote_topic": t.remote_topic,
                    "counts": t.counts(),
                    "cumulative": self.cumulative.get(t.source_topic, {}),
                    "notes": t.notes,
                    "partitions": [
                        {
                            "partition": p.partition,
                            "source_range": [p.source_from, p.source_end],
                            "target_range": [p.target_from, p.target_end],
                            "proven": p.proven,
                            "next_target_from": p.next_target_from,
                            "records_judged": p.records_judged,
                            "carried_source": p.carried_source,
                            "first_carried_offset": p.first_carried_offset,
                            "carried_target": p.carried_target,
                            "counts": {k: v for k, v in p.counts.items() if v},
                        }
                        for p in t.partitions
                    ],
                }
                for t in self.topics
            ],
            "findings": self.findings,
        }


# -- judging one partition --------------------------------------------------------------


def finding_id(topic: str, partition: int, kind: str, source_offset: Optional[int], target_offset: Optional[int]) -> str:
    """Stable key of a finding: a redone increment produces the same ids."""
    return f"{topic}:{partition}:{kind}:{'-' if source_offset is None else source_offset}:{'-' if target_offset is None else target_offset}"


def _differing_fields(source: Rec, target: Rec) -> str:
    fields = []
    if source.value_fp != target.value_fp:
        fields.append("value")
    if source.headers_fp != target.headers_fp:
        fields.append("headers")
    if source.ts != target.ts:
        fields.append("timestamp")
    return ",".join(fields)


def judge_partition(
    topic: str,
    partition: int,
    saved: Mapping[str, Any],
    source: Sequence[Rec],
    target: Sequence[Rec],
    source_end: int,
    target_end: int,
    memory: int = DEFAULT_MEMORY,
) -> PartitionOutcome:
    """Judge source records [saved proven, source_end) against target records
    [saved target_from, target_end). `saved` is the partition's state (proven,
    target_from, recent). Returns the outcome with the partition's next state."""
    source = sorted(source, key=lambda r: r.offset)
    target = sorted(target, key=lambda r: r.offset)
    recent = [list(entry) for entry in saved.get("recent", [])]
    outcome = PartitionOutcome(
        partition,
        source_from=int(saved["proven"]),
        source_end=source_end,
        target_from=int(saved["target_from"]),
        target_end=target_end,
        proven=int(saved["proven"]),
        next_target_from=int(saved["target_from"]),
    )

    def add(
        kind: str,
        source_offset: Optional[int],
        target_offset: Optional[int],
        key: Optional[str],
        detail: str,
        records: int = 1,
        lost: Optional[int] = None,
    ) -> None:
        outcome.counts[kind] += records
        finding = {
            "id": finding_id(topic, partition, kind, source_offset, target_offset),
            "kind": kind,
            "topic": topic,
            "partition": partition,
            "source_offset": source_offset,
            "target_offset": target_offset,
            "key": key,
            "detail": detail,
        }
        if records != 1:
            finding["records"] = records
        if lost is not None:
            finding["lost"] = lost
        outcome.findings.append(finding)

    # Pair the n-th source copy of a fingerprint with the n-th target copy.
    queues: dict[str, deque[Rec]] = {}
    for rec in source:
        queues.setdefault(rec.fp, deque()).append(rec)
    pairs: dict[int, Rec] = {}  # source offset -> target copy
    unpaired: list[Rec] = []
    for rec in target:
        queue = queues.get(rec.fp)
        if queue:
            pairs[queue.popleft().offset] = rec
        else:
            unpaired.append(rec)

    copied_up_to = max(pairs) if pairs else None
    last_copy_target = max((t.offset for t in pairs.values()), default=None)

    # Source records deleted before they were judged (prepare_topic moved `proven` past them).
    # MM2 copies a partition in order, so unpaired target records before the first copy of a
    # record of this increment may be their copies: neither unexpected nor proof. Without any
    # copy in this increment (an emptied partition) they cannot be told from copies of records
    # written after the snapshot: they are carried, and the next increment with a copy decides.
    truncated_from = saved.get("truncated_from")
    copies_of_truncated = 0
    if truncated_from is not None or saved.get("truncated_copies_pending"):
        first_copy_target = min((t.offset for t in pairs.values()), default=None)
        if first_copy_target is not None:
            before = [r for r in unpaired if r.offset < first_copy_target]
            copies_of_truncated = len(before)
            unpaired = [r for r in unpaired if r.offset >= first_copy_target]
        else:
            outcome.truncated_copies_pending = True
    if truncated_from is not None:
        deleted = outcome.source_from - int(truncated_from)
        possible_copies = copies_of_truncated if not outcome.truncated_copies_pending else len(unpaired)
        lost = max(deleted - possible_copies, 0)
        add(
            TRUNCATED,
            int(truncated_from),
            None,
            None,
            f"source offsets {truncated_from}-{outcome.source_from - 1} ({deleted} record(s)) were deleted before an increment "
            f"verified them (log start {outcome.source_from}); {possible_copies} target record(s) before the first "
            f"verified copy may be their copies, so at least {lost} of them were never copied",
            records=deleted,
            lost=lost,
        )
    judged_source = [r for r in source if copied_up_to is not None and r.offset <= copied_up_to]
    carried_source = [r for r in source if copied_up_to is None or r.offset > copied_up_to]

    # What a target record without a partner in this increment may copy: a source record
    # of this increment (judged: a duplicate), or one remembered from earlier increments.
    by_fp_this_run = {r.fp: r.offset for r in judged_source}
    remembered: dict[str, list[Any]] = {}
    for entry in recent:
        remembered[entry[1]] = entry

    judged_target_unpaired: list[Rec] = []
    carried_target: list[Rec] = []
    for rec in unpaired:
        known = rec.fp in by_fp_this_run or rec.fp in remembered
        within = last_copy_target is not None and rec.offset <= last_copy_target
        if not carried_target and (within or known):
            judged_target_unpaired.append(rec)
        else:
            carried_target.append(rec)

    # Duplicates and late copies of earlier increments' records.
    unexpected: list[Rec] = []
    late_copies: list[tuple[list[Any], Rec]] = []
    for rec in judged_target_unpaired:
        if rec.fp in by_fp_this_run:
            add(DUPLICATE, by_fp_this_run[rec.fp], rec.offset, rec.key_preview, "copy of a record copied in this increment")
        elif rec.fp in remembered:
            entry = remembered[rec.fp]
            if entry[3] is None:
                late_copies.append((entry, rec))
                entry[3] = rec.offset
            else:
                add(DUPLICATE, entry[0], rec.offset, rec.key_preview, f"copy of a record copied in an earlier increment at target offset {entry[3]}")
        else:
            unexpected.append(rec)
    for entry, rec in late_copies:
        add(
            ORDER_VIOLATION,
            entry[0],
            rec.offset,
            rec.key_preview,
            "late copy: judged missing in an earlier increment, later records of the partition were copied before it",
        )

    # Missing and unexpected records of the same key pair into content mismatches.
    missing = [r for r in judged_source if r.offset not in pairs]
    missing_by_key: dict[str, deque[Rec]] = {}
    for rec in missing:
        missing_by_key.setdefault(rec.key_fp, deque()).append(rec)
    still_unexpected = []
    mismatched: set[int] = set()
    for rec in unexpected:
        queue = missing_by_key.get(rec.key_fp)
        if queue:
            src = queue.popleft()
            mismatched.add(src.offset)
            add(CONTENT_MISMATCH, src.offset, rec.offset, src.key_preview, _differing_fields(src, rec))
        else:
            still_unexpected.append(rec)
    for rec in missing:
        if rec.offset not in mismatched:
            add(MISSING, rec.offset, None, rec.key_preview, "no copy on the target, later records of the partition are copied")
    for rec in still_unexpected:
        add(UNEXPECTED, None, rec.offset, rec.key_preview, "no source record of this content")

    # Order per key (source order), continuing from the keys' last copies in earlier increments.
    last_target_of_key: dict[str, int] = {}
    for entry in sorted(recent, key=lambda e: e[0]):
        if entry[3] is not None and entry[3] >= last_target_of_key.get(entry[2], -1):
            last_target_of_key[entry[2]] = entry[3]
    for rec in judged_source:
        copy = pairs.get(rec.offset)
        if copy is None:
            continue
        previous = last_target_of_key.get(rec.key_fp)
        if previous is not None and copy.offset < previous:
            add(ORDER_VIOLATION, rec.offset, copy.offset, rec.key_preview, f"previous record of this key is at target offset {previous}")
        last_target_of_key[rec.key_fp] = max(copy.offset, previous if previous is not None else -1)
        if copy.ts_type != rec.ts_type:
            add(TIMESTAMP_TYPE_CHANGE, rec.offset, copy.offset, rec.key_preview, f"{rec.ts_type} -> {copy.ts_type}")

    outcome.records_judged = len(judged_source)
    outcome.records_copied = len(judged_source) - len(missing)
    outcome.target_records_judged = len(target) - len(carried_target) - copies_of_truncated
    outcome.carried_source = len(carried_source)
    outcome.carried_target = len(carried_target)
    outcome.first_carried_offset = carried_source[0].offset if carried_source else None
    outcome.proven = carried_source[0].offset if carried_source else max(source_end, outcome.source_from)
    outcome.next_target_from = carried_target[0].offset if carried_target else max(target_end, outcome.target_from)
    for rec in judged_source:
        copy = pairs.get(rec.offset)
        recent.append([rec.offset, rec.fp, rec.key_fp, None if copy is None else copy.offset])
    outcome.recent = recent[-memory:] if memory > 0 else []
    outcome.findings.sort(key=lambda f: (f["source_offset"] if f["source_offset"] is not None else -1, f["target_offset"] or -1, f["kind"]))
    return outcome


# -- the state file ---------------------------------------------------------------------


class StateStore:
    """A JSON file on the validator's node, replaced atomically (temp file, fsync, rename,
    fsync of the directory), with a lock file so two runs never interleave."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def load(self) -> Optional[dict[str, Any]]:
        if not self.path.exists():
            return None
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise StateError(f"state {self.path} cannot be read: {error}") from None
        if not isinstance(document, dict) or document.get("format") != STATE_FORMAT:
            raise StateError(f"{self.path} is not a validator state file (format {STATE_FORMAT!r} expected)")
        if document.get("version") != STATE_VERSION:
            raise StateError(f"state {self.path} has version {document.get('version')}, this validator reads {STATE_VERSION}")
        return document

    def save(self, document: Mapping[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(document, stream, indent=1, sort_keys=True)
                stream.write("\n")
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        directory = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(f"{self.path}.lock", "w", encoding="utf-8") as lock:
            try:
                fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                raise StateError(f"another validator run holds {self.path}.lock") from None
            yield


def empty_state(flow: Flow) -> dict[str, Any]:
    return {"format": STATE_FORMAT, "version": STATE_VERSION, "flow": flow.as_dict(), "runs": 0, "topics": {}}


def _fresh_topic(snapshot: TopicSnapshot) -> dict[str, Any]:
    return {
        "remote_topic": snapshot.remote_topic,
        "identity": {},
        "partitions": {},
        "cumulative": {name: 0 for name in COUNTERS},
    }


def _fresh_partition(snapshot: TopicSnapshot, partition: int) -> dict[str, Any]:
    return {
        "proven": snapshot.source_start.get(partition, 0),
        "target_from": snapshot.target_start.get(partition, 0),
        "recent": [],
    }


def check_flow(state: Optional[dict[str, Any]], flow: Flow, path: Path, reset: bool) -> tuple[dict[str, Any], list[str]]:
    """The state to start from, and messages about it. A state of another flow is refused,
    or started over with --reset-state."""
    if state is None:
        return empty_state(flow), [f"no state at {path}: the first increment judges the topics from their log start"]
    saved = state.get("flow") or {}
    if saved != flow.as_dict():
        problem = (
            f"state {path} belongs to flow {saved.get('source_alias')} -> {saved.get('target_alias')}, "
            f"not {flow.source_alias} -> {flow.target_alias}"
        )
        if not reset:
            raise StateError(problem + "; use another --state, or --reset-state to start over")
        return empty_state(flow), [problem + ": started over (--reset-state)"]
    return state, []


def topic_state_problems(saved: Mapping[str, Any], snapshot: TopicSnapshot) -> list[str]:
    """Why a topic's saved state cannot continue on this snapshot: another remote topic,
    a re-created source topic, positions past a log end. Empty when it can."""
    topic = snapshot.source_topic
    problems = []
    if saved.get("remote_topic") != snapshot.remote_topic:
        problems.append(
            f"state of {topic} compares with remote topic {saved.get('remote_topic')}, this run with {snapshot.remote_topic}"
        )
        return problems
    identity = saved.get("identity") or {}
    saved_id = identity.get("topic_id")
    if saved_id and snapshot.topic_id and saved_id != snapshot.topic_id:
        problems.append(f"source topic {topic} was re-created (topic id {snapshot.topic_id}, the state has {saved_id})")
        return problems
    saved_count = int(identity.get("partitions", 0))
    if saved_count > len(snapshot.partitions):
        problems.append(f"source topic {topic} was re-created: {len(snapshot.partitions)} partitions, the state has {saved_count}")
        return problems
    for key, start in sorted((identity.get("log_start") or {}).items(), key=lambda kv: int(kv[0])):
        partition = int(key)
        if partition in snapshot.source_start and snapshot.source_start[partition] < int(start):
            problems.append(
                f"source topic {topic} was re-created: partition {partition} starts at offset "
                f"{snapshot.source_start[partition]}, the state saw it start at {start}"
            )
    if problems:
        return problems
    for key, position in sorted((saved.get("partitions") or {}).items(), key=lambda kv: int(kv[0])):
        partition = int(key)
        if partition not in snapshot.source_end:
            continue
        if int(position["proven"]) > snapshot.source_end[partition]:
            problems.append(
                f"state points past the log end of {topic}:{partition}: proven up to offset {position['proven']}, "
                f"the partition ends at {snapshot.source_end[partition]}"
            )
        target_end = snapshot.target_end.get(partition)
        if target_end is not None and int(position["target_from"]) > target_end:
            problems.append(
                f"state points past the log end of {snapshot.remote_topic}:{partition}: target read from offset "
                f"{position['target_from']}, the partition ends at {target_end}"
            )
    return problems


def prepare_topic(
    state: dict[str, Any], snapshot: TopicSnapshot, reset: bool
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The topic's state to judge this increment from (a copy; positions of new partitions
    added, expired records skipped), and notes for the report."""
    topic = snapshot.source_topic
    notes: list[dict[str, Any]] = []
    saved = state["topics"].get(topic)
    if saved is None:
        saved = _fresh_topic(snapshot)
        notes.append({"severity": "info", "code": "state_new_topic", "message": f"{topic}: first increment, from the log start"})
    else:
        problems = topic_state_problems(saved, snapshot)
        if problems and not reset:
            raise StateError("; ".join(problems) + " (use --reset-state to start this state over)")
        if problems:
            notes.append(
                {"severity": "warning", "code": "state_reset", "message": "; ".join(problems) + ": started over (--reset-state)"}
            )
            saved = _fresh_topic(snapshot)
    saved = json.loads(json.dumps(saved))  # the run never changes the loaded state in place
    for partition in snapshot.partitions:
        position = saved["partitions"].get(str(partition))
        if position is None:
            if saved["partitions"]:
                notes.append(
                    {"severity": "info", "code": "state_new_partition", "message": f"{topic}:{partition}: new partition, from its log start"}
                )
            saved["partitions"][str(partition)] = _fresh_partition(snapshot, partition)
            continue
        start = snapshot.source_start.get(partition, 0)
        if int(position["proven"]) < start:
            # judge_partition reports them (a truncated finding); run_increment drops the key.
            position["truncated_from"] = int(position["proven"])
            position["proven"] = start
        target_start = snapshot.target_start.get(partition, 0)
        if int(position["target_from"]) < target_start:
            position["target_from"] = target_start
    saved["identity"] = {
        "topic_id": snapshot.topic_id,
        "partitions": len(snapshot.partitions),
        "log_start": {str(p): snapshot.source_start.get(p, 0) for p in snapshot.partitions},
    }
    return saved, notes


# -- one increment ----------------------------------------------------------------------


def partition_figures(saved: Mapping[str, Any], result: PartitionOutcome, now: float) -> dict[str, Any]:
    """The figures a partition's state keeps for the metrics (PARTITION_FIGURES). The proven
    position counts as verified now when it advanced or stands at the snapshot's end (an idle
    partition stays current); otherwise the time of the last advance stays."""
    advanced = result.proven > result.source_from or result.proven >= result.source_end
    cumulative = {name: int((saved.get("cumulative") or {}).get(name, 0)) for name in COUNTERS}
    cumulative["records_judged"] += result.records_judged
    cumulative["records_copied"] += result.records_copied
    cumulative["target_records_judged"] += result.target_records_judged
    for kind, count in result.counts.items():
        cumulative[kind] += count
    return {
        "source_end": result.source_end,
        "verified_at": round(now, 3) if advanced else saved.get("verified_at"),
        "cumulative": cumulative,
    }


Snapshotter = Callable[[str], TopicSnapshot]
# reader(side, topic, start, end) -> {partition: [Rec]}; side is "source" or "target".
Reader = Callable[[str, str, Mapping[int, int], Mapping[int, int]], Mapping[int, Sequence[Rec]]]


def run_increment(
    store: StateStore,
    flow: Flow,
    topics: Sequence[str],
    snapshot: Snapshotter,
    read: Reader,
    write_reports: Callable[[IncrementResult], None],
    reset: bool = False,
    memory: int = DEFAULT_MEMORY,
    log: Callable[[str], None] = lambda message: None,
    clock: Callable[[], float] = time.time,
) -> IncrementResult:
    """One increment: load and check the state, snapshot, judge, write the reports, and
    only then the state. A failure before the state is written leaves the old state, so
    the next run redoes the same increment."""
    with store.locked():
        state, messages = check_flow(store.load(), flow, store.path, reset)
        for message in messages:
            log(message)
        snapshots = [snapshot(topic) for topic in topics]
        new_state = json.loads(json.dumps(state))
        run = int(state.get("runs", 0)) + 1
        outcomes = []
        cumulative: dict[str, dict[str, int]] = {}
        for snap in snapshots:
            topic_state, notes = prepare_topic(state, snap, reset)
            for note in notes:
                log(note["message"])
            if not snap.target_partitions:
                notes.append(
                    {
                        "severity": "error",
                        "code": "target_topic_missing",
                        "message": f"{snap.remote_topic} does not exist on the target: every record is carried",
                    }
                )
            outcome = TopicOutcome(snap.source_topic, snap.remote_topic, notes=notes)
            positions = topic_state["partitions"]
            source_start = {p: int(positions[str(p)]["proven"]) for p in snap.partitions}
            target_start = {p: int(positions[str(p)]["target_from"]) for p in snap.partitions}
            target_end = {p: snap.target_end.get(p, target_start[p]) for p in snap.partitions}
            source_records = read("source", snap.source_topic, source_start, snap.source_end)
            target_records = read("target", snap.remote_topic, target_start, target_end) if snap.target_partitions else {}
            for partition in snap.partitions:
                result = judge_partition(
                    snap.source_topic,
                    partition,
                    positions[str(partition)],
                    source_records.get(partition, ()),
                    target_records.get(partition, ()),
                    snap.source_end.get(partition, 0),
                    target_end[partition],
                    memory,
                )
                outcome.partitions.append(result)
                positions[str(partition)] = {
                    "proven": result.proven,
                    "target_from": result.next_target_from,
                    "recent": result.recent,
                    **({"truncated_copies_pending": True} if result.truncated_copies_pending else {}),
                    **partition_figures(positions[str(partition)], result, clock()),
                }
            totals = topic_state.setdefault("cumulative", {})
            for name, count in outcome.counts().items():
                totals[name] = int(totals.get(name, 0)) + count
            topic_state["last_run"] = {"run": run, "counts": outcome.counts()}
            cumulative[snap.source_topic] = dict(totals)
            new_state["topics"][snap.source_topic] = topic_state
            outcomes.append(outcome)
        new_state["flow"] = flow.as_dict()
        new_state["runs"] = run
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        new_state["updated_at"] = started
        result = IncrementResult(flow, str(store.path), run, started, outcomes, cumulative, new_state)
        write_reports(result)
        store.save(new_state)
        return result
