"""Result types shared by the comparison, checkpoint and report code."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Optional

# Kinds of per-record problems, in report order.
MISSING = "missing"
DUPLICATE = "duplicate"
UNEXPECTED = "unexpected"
CONTENT_MISMATCH = "content_mismatch"
ORDER_VIOLATION = "order_violation"
TIMESTAMP_TYPE_CHANGE = "timestamp_type_change"
PROBLEM_KINDS = (MISSING, DUPLICATE, UNEXPECTED, CONTENT_MISMATCH, ORDER_VIOLATION, TIMESTAMP_TYPE_CHANGE)

# How a partition was judged.
VERIFIED_BY_DIGEST = "digest"  # equal order-aware multiset digests: no record-level pass
VERIFIED_BY_RECORDS = "records"  # record-level comparison


@dataclass
class PartitionResult:
    partition: int
    source_start_offset: int = 0
    source_snapshot_offset: int = 0  # end offset taken first; every record below must be on the target
    source_read_offset: int = 0  # end offset of the source read (>= snapshot; the tail is optional)
    target_start_offset: int = 0
    target_end_offset: int = 0
    source_records: int = 0  # records below the snapshot offset (and in the window, if any)
    source_tail_records: int = 0  # records between snapshot and read offset (in the window)
    target_records: int = 0
    verified_by: str = VERIFIED_BY_DIGEST
    problems: dict[str, int] = field(default_factory=lambda: {kind: 0 for kind in PROBLEM_KINDS})
    content_mismatch_fields: dict[str, int] = field(default_factory=lambda: {"value": 0, "headers": 0, "timestamp": 0})
    examples: list[dict[str, Any]] = field(default_factory=list)
    # Where the duplicates are: first/last source offset they copy, first/last target offset
    # they sit at (keys source_first, source_last, target_first, target_last); None without any.
    duplicate_range: Optional[dict[str, int]] = None
    # Separate runs of duplicated source records (one per crash that replayed this partition;
    # see `compare`): 0 without duplicates.
    duplicate_replays: int = 0
    # With a window: source records before it (neither required nor judged), the first source
    # offset of the window (--from-offsets) and the first target offset holding a replica of
    # a window record (judged from there on; None when the partition matched as a whole).
    source_records_before_window: int = 0
    window_source_offset: Optional[int] = None
    window_target_offset: Optional[int] = None

    def problem_total(self, ignored_kinds: tuple[str, ...] = ()) -> int:
        return sum(count for kind, count in self.problems.items() if kind not in ignored_kinds)


@dataclass
class TopicResult:
    source_topic: str
    target_topic: str
    target_topic_exists: bool = True
    partitions: list[PartitionResult] = field(default_factory=list)

    def problem_total(self, ignored_kinds: tuple[str, ...] = ()) -> int:
        return sum(p.problem_total(ignored_kinds) for p in self.partitions)

    def totals(self) -> dict[str, int]:
        totals = {kind: 0 for kind in PROBLEM_KINDS}
        for partition in self.partitions:
            for kind, count in partition.problems.items():
                totals[kind] = totals.get(kind, 0) + count  # an increment adds its own kind, truncated
        return totals


@dataclass
class CheckpointResult:
    group: str
    topic: str  # remote topic on the target
    partition: int
    upstream_offset: int
    downstream_offset: int
    metadata: str
    checkpoint_record_offset: int  # where it sits in the checkpoints topic
    evaluated: bool = False  # False when the topic was not part of this validation
    safe: Optional[bool] = None  # no target record below D maps to a source offset >= U
    within_log: Optional[bool] = None  # 0 <= D <= target end offset
    monotonic: bool = True  # D never went back without U going back too
    skipped_records: int = 0  # target offset < D but source offset >= U: lost on failover
    reread_records: int = 0  # target offset >= D but source offset < U: processed twice on failover
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.safe is not False and self.within_log is not False and self.monotonic


@dataclass
class GroupSummary:
    group: str
    partitions: int
    evaluated_partitions: int
    unsafe_partitions: int
    reread_records: int
    skipped_records: int


@dataclass
class OffsetSyncSummary:
    topic_found: bool = False
    records: int = 0
    latest_checked: int = 0  # latest sync per partition compared with the record mapping
    mismatched: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class LatencyResult:
    method: Optional[str] = None  # "heartbeats" when samples exist
    topic: Optional[str] = None
    samples: int = 0
    p50_ms: Optional[float] = None
    p99_ms: Optional[float] = None
    max_ms: Optional[float] = None
    heartbeat_age_ms: Optional[int] = None  # validation time minus the newest replicated heartbeat
    note: str = ""


@dataclass
class Finding:
    severity: str  # "error" (fails the run) or "warning"
    code: str
    message: str
    topic: Optional[str] = None
    partition: Optional[int] = None
    group: Optional[str] = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass
class DuplicateBudget:
    """How the run's duplicates were judged (see `delivery`)."""

    delivery: str = "at-least-once"
    max_duplicates: Optional[int] = None  # per replay; None: unlimited
    max_duplicate_ratio: Optional[float] = 0.1  # per replay, of records validated; None: unlimited
    records_validated: int = 0
    duplicates: int = 0
    replays: int = 0  # the most separate runs of duplicates in any one partition
    allowed_per_replay: Optional[int] = None  # None: unlimited
    allowed_duplicates: Optional[int] = None  # allowed_per_replay x max(1, replays); None: unlimited
    duplicate_ratio: Optional[float] = None  # duplicates / records validated
    within_budget: bool = True
    severity: str = "none"  # none, warning or error


@dataclass
class ValidationResult:
    inputs: dict[str, Any]
    topics: list[TopicResult] = field(default_factory=list)
    checkpoints: list[CheckpointResult] = field(default_factory=list)
    groups: list[GroupSummary] = field(default_factory=list)
    offset_syncs: OffsetSyncSummary = field(default_factory=OffsetSyncSummary)
    latency: LatencyResult = field(default_factory=LatencyResult)
    findings: list[Finding] = field(default_factory=list)
    duplicate_budget: DuplicateBudget = field(default_factory=DuplicateBudget)
    caught_up: bool = True
    # Incremental mode (see `incremental`): the increment, its findings with their
    # evidence and the cumulative counts; None for a whole run.
    incremental: Optional[dict[str, Any]] = None
    started_at: str = ""
    elapsed_s: float = 0.0

    @property
    def verdict(self) -> str:
        return "FAIL" if any(f.severity == "error" for f in self.findings) else "PASS"

    @property
    def records_validated(self) -> int:
        """Source records below the snapshot, each checked for on the target."""
        return sum(p.source_records for t in self.topics for p in t.partitions)

    @property
    def duplicates(self) -> int:
        return sum(p.problems.get(DUPLICATE, 0) for t in self.topics for p in t.partitions)

    @property
    def duplicate_replays(self) -> int:
        """Replays the run saw: one crash replays at most one run of records in each partition
        its task owned, so the partition with the most runs counts them."""
        return max((p.duplicate_replays for t in self.topics for p in t.partitions), default=0)
