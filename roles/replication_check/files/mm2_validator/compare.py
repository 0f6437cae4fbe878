"""Per-partition comparison of a source topic with its MM2 replica.

Inputs are fingerprinted DataFrames (see `fingerprint.with_fingerprints`) of the
source range [start, read end) and the target range [start, end). Source records
below the partition's snapshot offset are *required* on the target; records past it
(the tail, produced while the validator waited) may or may not be there yet.

Fast path: equal record counts and equal order-aware digests → the partition holds
the same records in the same per-key order; no record-level pass. Otherwise records
are matched as multisets: the n-th copy of a fingerprint on the source pairs with
the n-th copy on the target (both by offset). Left over:

- a required source copy without a partner is *missing*;
- a target copy of a fingerprint the source has fewer copies of is a *duplicate*;
- a target record whose fingerprint the source lacks is *unexpected*;
- missing and unexpected records with the same key are paired, in offset order
  among those left over, as *content mismatches* (which of value / headers /
  timestamp differ is recorded);
- among matched records of one key, a target offset lower than that of the key's
  previous record (in source order) is an *order violation*;
- a matched record whose timestamp type differs is a *timestamp-type change*.

With a window (see `window`), all records are still matched, so replicas and replays
of records before it pair with their source records; only records in the window are
judged. A source record is in the window from its partition's first offset or from
the window's timestamp on. A target record is when the source record it replicates
is (a duplicate: the last source copy of its fingerprint); an unexpected target
record is when its timestamp is (timestamp windows: MM2 copies timestamps) or when
it sits at or after the partition's *target window offset*: the first target offset
holding a replica of a window record (offset windows; without any such replica, the
offset after the last replica of an earlier record).

Replays: a crashed at-least-once task resends every record since its last committed
source offset, one contiguous run of source records per partition it owned. A
partition's judged duplicates, in source order, split into runs where the next
duplicated source record is not the one right after the previous. Positions count
source records, not offsets, so compaction gaps and transaction markers split no run.
A source record copied k extra times belongs to k stacked runs (its first, second, ...
extra copy are counted apart), so two crashes resending the same records are two
replays. `duplicate_replays` is a partition's number of runs (gaps and islands over
the duplicates, in Spark).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Optional

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from mm2_validator.fingerprint import (
    FP_A,
    FP_B,
    HEADERS_FP,
    KEY_FP,
    KEY_PREVIEW,
    TS_MICROS,
    VALUE_FP,
    partition_digests,
    with_key_rank,
)
from mm2_validator.model import (
    CONTENT_MISMATCH,
    DUPLICATE,
    MISSING,
    ORDER_VIOLATION,
    PROBLEM_KINDS,
    TIMESTAMP_TYPE_CHANGE,
    UNEXPECTED,
    VERIFIED_BY_RECORDS,
    PartitionResult,
)
from mm2_validator.window import TopicWindow

REQUIRED = "required"
IN_WINDOW = "in_window"  # source records: judged
T_IN_WINDOW = "t_in_window"  # target records: judged
# Duplicate findings: the position of the source record copied among its partition's source
# records (1 for the first), and which extra copy of it this is (1 for the first).
SOURCE_POSITION = "source_position"
DUPLICATE_COPY = "duplicate_copy"

# Match statuses of `match_records` rows.
MATCHED = "matched"
MISSING_CANDIDATE = "missing_candidate"
NOT_YET_REPLICATED = "not_yet_replicated"
BEFORE_WINDOW = "before_window"
UNEXPECTED_CANDIDATE = "unexpected_candidate"

_RECORD_ATTRIBUTES = ("offset", KEY_FP, VALUE_FP, HEADERS_FP, TS_MICROS, "timestampType", KEY_PREVIEW)


@dataclass
class TopicComparison:
    partitions: dict[int, PartitionResult]
    # partition, target_offset, source_offset (null for unexpected records), for the
    # partitions asked for in `mapped_partitions`; None when none were asked for.
    offset_map: Optional[DataFrame]
    cached: Optional[DataFrame] = None

    def release(self) -> None:
        """Drop the cached record pairs once the offset map is no longer needed."""
        if self.cached is not None:
            self.cached.unpersist()
            self.cached = None


def _per_partition(values: Mapping[int, int]) -> Column:
    """The value of each row's partition in `values` (null for partitions not in it)."""
    literal = F.create_map(*[F.lit(x) for pair in sorted(values.items()) for x in (int(pair[0]), int(pair[1]))])
    return F.element_at(literal, F.col("partition"))


def _from_offset(window: TopicWindow) -> Column:
    """The window's first source offset of each row's partition (0 where none is given)."""
    if not window.from_offsets:
        return F.lit(0).cast("long")
    return F.coalesce(_per_partition(window.from_offsets), F.lit(0)).cast("long")


def _at_or_after_timestamp(column: str, window: TopicWindow) -> Column:
    if window.from_timestamp_ms is None:
        return F.lit(True)
    return F.coalesce(F.col(column) >= F.lit(window.from_timestamp_ms * 1000), F.lit(False))


def mark_window(source: DataFrame, window: TopicWindow) -> DataFrame:
    """Flag source records in the window (all of them without one)."""
    in_window = (F.col("offset") >= _from_offset(window)) & _at_or_after_timestamp(TS_MICROS, window)
    return source.withColumn(IN_WINDOW, in_window)


def mark_required(source: DataFrame, snapshot_end: Mapping[int, int], window: TopicWindow = TopicWindow()) -> DataFrame:
    """Flag source records in the window and below their partition's snapshot offset."""
    source = mark_window(source, window)
    if not snapshot_end:
        return source.withColumn(REQUIRED, F.lit(False))
    below_snapshot = F.coalesce(F.col("offset") < _per_partition(snapshot_end), F.lit(False))
    return source.withColumn(REQUIRED, below_snapshot & F.col(IN_WINDOW))


def _digest_rows(source: DataFrame, target: DataFrame) -> tuple[dict[int, dict], dict[int, dict]]:
    """Digests of both sides in one Spark job: {partition: row} for source and target."""
    sides = with_key_rank(source.withColumn("side", F.lit("source"))).unionByName(
        with_key_rank(
            target.withColumn("side", F.lit("target"))
            .withColumn(REQUIRED, F.lit(False))
            .withColumn(IN_WINDOW, F.lit(False))
        )
    )
    rows = partition_digests(sides, group_by=("side", "partition")).collect()
    by_side: dict[str, dict[int, dict]] = {"source": {}, "target": {}}
    for row in rows:
        by_side[row["side"]][row["partition"]] = row.asDict()
    return by_side["source"], by_side["target"]


def _digests_equal(source_row: Optional[dict], target_row: Optional[dict]) -> bool:
    if source_row is None or target_row is None:
        return source_row is None and target_row is None
    keys = ("records", "digest_a", "digest_b", "digest_log_append")
    return all(source_row[k] == target_row[k] for k in keys)


def _with_occurrence(records: DataFrame) -> DataFrame:
    by_fingerprint = Window.partitionBy("partition", FP_A, FP_B).orderBy("offset")
    return records.withColumn("occurrence", F.row_number().over(by_fingerprint))


def _side(records: DataFrame, prefix: str, extra: Iterable[str] = ()) -> DataFrame:
    columns = [F.col("partition"), F.col(FP_A), F.col(FP_B), F.col("occurrence")]
    columns += [F.col(name).alias(f"{prefix}{name}") for name in _RECORD_ATTRIBUTES]
    columns += [F.col(name) for name in extra]
    return _with_occurrence(records).select(*columns)


def match_records(source: DataFrame, target: DataFrame) -> DataFrame:
    """Pair source and target records by (partition, fingerprint, occurrence).

    One row per source or target record, with `s_*` and `t_*` attributes (null on
    the side without the record), `status`, and `mapped_source_offset`: the source
    offset a target record replicates (duplicates map to the last source copy of
    their fingerprint; unexpected records to null). Duplicates also carry
    `mapped_source_position`, that copy's position among the partition's source
    records, which tells replays apart (see the module docstring).
    """
    keys = ["partition", FP_A, FP_B, "occurrence"]
    pairs = _side(source, "s_", extra=[REQUIRED, IN_WINDOW]).join(_side(target, "t_"), on=keys, how="full_outer")
    in_offset_order = Window.partitionBy("partition").orderBy("offset")
    source_copies = (
        source.withColumn(SOURCE_POSITION, F.row_number().over(in_offset_order))
        .groupBy("partition", FP_A, FP_B)
        .agg(
            F.count(F.lit(1)).alias("source_copies"),
            F.max("offset").alias("last_source_offset"),
            F.max(SOURCE_POSITION).alias("last_source_position"),
        )
    )
    pairs = pairs.join(source_copies, on=["partition", FP_A, FP_B], how="left")
    has_source = F.col("s_offset").isNotNull()
    has_target = F.col("t_offset").isNotNull()
    status = (
        F.when(has_source & has_target, F.lit(MATCHED))
        .when(has_source & F.col(REQUIRED), F.lit(MISSING_CANDIDATE))
        .when(has_source & ~F.col(IN_WINDOW), F.lit(BEFORE_WINDOW))
        .when(has_source, F.lit(NOT_YET_REPLICATED))
        .when(F.coalesce(F.col("source_copies"), F.lit(0)) > 0, F.lit(DUPLICATE))
        .otherwise(F.lit(UNEXPECTED_CANDIDATE))
    )
    pairs = pairs.withColumn("status", status)
    mapped = F.when(F.col("status") == MATCHED, F.col("s_offset")).when(
        F.col("status") == DUPLICATE, F.col("last_source_offset")
    )
    position = F.when(F.col("status") == DUPLICATE, F.col("last_source_position"))
    return pairs.withColumn("mapped_source_offset", mapped).withColumn("mapped_source_position", position)


def target_window_offsets(pairs: DataFrame, window: TopicWindow) -> dict[int, int]:
    """Per partition of `pairs`, the first target offset judged under an offset window:
    that of the first replica of a window record, else the one after the last replica of
    an earlier record, else 0. Empty without offsets in the window."""
    if not window.from_offsets:
        return {}
    replicas = pairs.filter(F.col("t_offset").isNotNull() & F.col("mapped_source_offset").isNotNull())
    in_window = F.col("mapped_source_offset") >= _from_offset(window)
    rows = (
        replicas.groupBy("partition")
        .agg(
            F.min(F.when(in_window, F.col("t_offset"))).alias("first_in_window"),
            F.max(F.when(~in_window, F.col("t_offset"))).alias("last_before_window"),
        )
        .collect()
    )
    starts = {}
    for row in rows:
        if row["first_in_window"] is not None:
            starts[row["partition"]] = int(row["first_in_window"])
        elif row["last_before_window"] is not None:
            starts[row["partition"]] = int(row["last_before_window"]) + 1
    return starts


def mark_target_window(pairs: DataFrame, window: TopicWindow, target_starts: Mapping[int, int]) -> DataFrame:
    """Flag target records in the window (see the module docstring)."""
    replicates = F.col("mapped_source_offset").isNotNull()
    by_source = F.col("mapped_source_offset") >= _from_offset(window)
    if target_starts:
        by_position = F.col("t_offset") >= F.coalesce(_per_partition(target_starts), F.lit(0))
    else:
        by_position = F.lit(True)
    by_offset = F.when(replicates, by_source).otherwise(by_position)
    in_window = by_offset & _at_or_after_timestamp("t_" + TS_MICROS, window)
    return pairs.withColumn(T_IN_WINDOW, F.col("t_offset").isNotNull() & in_window)


def _finding(
    kind: Column,
    source_offset: Column,
    target_offset: Column,
    key_preview: Column,
    detail: Column,
    duplicate_copy: Optional[Column] = None,
    source_position: Optional[Column] = None,
) -> list[Column]:
    """A finding row; `duplicate_copy` and `source_position` are set for duplicates only."""
    no_number = F.lit(None)
    return [
        F.col("partition"),
        kind.alias("kind"),
        source_offset.cast("long").alias("source_offset"),
        target_offset.cast("long").alias("target_offset"),
        key_preview.alias("key"),
        detail.cast("string").alias("detail"),
        (no_number if duplicate_copy is None else duplicate_copy).cast("long").alias(DUPLICATE_COPY),
        (no_number if source_position is None else source_position).cast("long").alias(SOURCE_POSITION),
    ]


def record_findings(pairs: DataFrame) -> DataFrame:
    """One row per problem: partition, kind, source_offset, target_offset, key, detail."""
    no_detail = F.lit(None).cast("string")
    if T_IN_WINDOW not in pairs.columns:
        pairs = pairs.withColumn(T_IN_WINDOW, F.col("t_offset").isNotNull())
    matched = pairs.filter(F.col("status") == MATCHED)

    by_key_in_source_order = Window.partitionBy("partition", "s_" + KEY_FP).orderBy("s_offset")
    previous_target_offset = F.lag("t_offset").over(by_key_in_source_order)
    order_violations = (
        matched.withColumn("previous_target_offset", previous_target_offset)
        .filter((F.col("t_offset") < F.col("previous_target_offset")) & F.col(IN_WINDOW))
        .select(
            *_finding(
                F.lit(ORDER_VIOLATION),
                F.col("s_offset"),
                F.col("t_offset"),
                F.col("s_" + KEY_PREVIEW),
                F.concat(
                    F.lit("previous record of this key is at target offset "),
                    F.col("previous_target_offset").cast("string"),
                ),
            )
        )
    )
    type_changes = matched.filter((F.col("s_timestampType") != F.col("t_timestampType")) & F.col(IN_WINDOW)).select(
        *_finding(
            F.lit(TIMESTAMP_TYPE_CHANGE),
            F.col("s_offset"),
            F.col("t_offset"),
            F.col("s_" + KEY_PREVIEW),
            F.concat(F.col("s_timestampType").cast("string"), F.lit(" -> "), F.col("t_timestampType").cast("string")),
        )
    )
    duplicates = pairs.filter((F.col("status") == DUPLICATE) & F.col(T_IN_WINDOW)).select(
        *_finding(
            F.lit(DUPLICATE),
            F.col("mapped_source_offset"),
            F.col("t_offset"),
            F.col("t_" + KEY_PREVIEW),
            no_detail,
            duplicate_copy=F.col("occurrence") - F.col("source_copies"),
            source_position=F.col("mapped_source_position"),
        )
    )
    return order_violations.unionByName(type_changes).unionByName(duplicates).unionByName(_pair_leftovers(pairs))


def _leftovers(pairs: DataFrame, status: str, prefix: str, judged: Column) -> DataFrame:
    by_key = Window.partitionBy("partition", "key_fp").orderBy(prefix + "offset")
    columns = [F.col("partition"), F.col(prefix + KEY_FP).alias("key_fp")]
    columns += [F.col(prefix + name).alias(f"{prefix}{name}") for name in _RECORD_ATTRIBUTES if name != KEY_FP]
    return (
        pairs.filter((F.col("status") == status) & judged)
        .select(*columns)
        .withColumn("leftover_rank", F.row_number().over(by_key))
    )


def _pair_leftovers(pairs: DataFrame) -> DataFrame:
    """Pair missing and unexpected records of the same key into content mismatches."""
    # Missing candidates are required records, so in the window already.
    missing = _leftovers(pairs, MISSING_CANDIDATE, "s_", F.lit(True))
    unexpected = _leftovers(pairs, UNEXPECTED_CANDIDATE, "t_", F.col(T_IN_WINDOW))
    paired = missing.join(unexpected, on=["partition", "key_fp", "leftover_rank"], how="full_outer")
    in_source = F.col("s_offset").isNotNull()
    in_target = F.col("t_offset").isNotNull()
    differing_fields = F.concat_ws(
        ",",
        F.when(F.col("s_" + VALUE_FP) != F.col("t_" + VALUE_FP), F.lit("value")),
        F.when(F.col("s_" + HEADERS_FP) != F.col("t_" + HEADERS_FP), F.lit("headers")),
        F.when(F.col("s_" + TS_MICROS) != F.col("t_" + TS_MICROS), F.lit("timestamp")),
    )
    kind = (
        F.when(in_source & in_target, F.lit(CONTENT_MISMATCH))
        .when(in_source, F.lit(MISSING))
        .otherwise(F.lit(UNEXPECTED))
    )
    return paired.select(
        *_finding(
            kind,
            F.col("s_offset"),
            F.col("t_offset"),
            F.coalesce(F.col("s_" + KEY_PREVIEW), F.col("t_" + KEY_PREVIEW)),
            F.when(in_source & in_target, differing_fields),
        )
    )


def _summarize_findings(findings: DataFrame, results: dict[int, PartitionResult], max_examples: int) -> None:
    """Counts per partition, kind and detail, with the first examples of each and the
    replays of the duplicates, in one Spark job (examples are ranked by offset before
    the aggregation, so no group ever collects more than `max_examples` rows)."""
    first_offset = F.coalesce(F.col("source_offset"), F.col("target_offset"))
    in_order = Window.partitionBy("partition", "kind", "detail").orderBy(first_offset, F.col("target_offset"))
    example = F.struct(first_offset.alias("sort_offset"), "kind", "source_offset", "target_offset", "key", "detail")
    # Gaps and islands: a duplicate starts a replay unless it copies the source record right
    # after the one the previous duplicate of the same extra copy copied.
    by_copy_in_source_order = Window.partitionBy("partition", "kind", DUPLICATE_COPY).orderBy(SOURCE_POSITION)
    previous_position = F.lag(SOURCE_POSITION).over(by_copy_in_source_order)
    after_a_gap = previous_position.isNull() | (F.col(SOURCE_POSITION) - previous_position > 1)
    starts_replay = F.when((F.col("kind") == DUPLICATE) & after_a_gap, 1).otherwise(0)
    summary = (
        findings.withColumn("example_rank", F.row_number().over(in_order))
        .withColumn("starts_replay", starts_replay)
        .groupBy("partition", "kind", "detail")
        .agg(
            F.count(F.lit(1)).alias("count"),
            F.sum("starts_replay").alias("replays"),
            F.collect_list(F.when(F.col("example_rank") <= max_examples, example)).alias("examples"),
            F.min("source_offset").alias("source_first"),
            F.max("source_offset").alias("source_last"),
            F.min("target_offset").alias("target_first"),
            F.max("target_offset").alias("target_last"),
        )
        .collect()
    )
    examples: dict[int, list[dict]] = {}
    for row in summary:
        result = results[row["partition"]]
        result.problems[row["kind"]] += row["count"]
        if row["kind"] == DUPLICATE:
            result.duplicate_range = {
                name: int(row[name]) for name in ("source_first", "source_last", "target_first", "target_last")
            }
            result.duplicate_replays = int(row["replays"])
        if row["kind"] == CONTENT_MISMATCH:
            for name in (row["detail"] or "").split(","):
                if name:
                    result.content_mismatch_fields[name] += row["count"]
        examples.setdefault(row["partition"], []).extend(e.asDict() for e in row["examples"])
    for partition, found in examples.items():
        per_kind: dict[str, int] = {}
        for item in sorted(
            found, key=lambda e: (PROBLEM_KINDS.index(e["kind"]), e["sort_offset"], e["target_offset"] or -1)
        ):
            if per_kind.get(item["kind"], 0) >= max_examples:
                continue
            per_kind[item["kind"]] = per_kind.get(item["kind"], 0) + 1
            item.pop("sort_offset")
            results[partition].examples.append(item)


def compare_topic(
    source: DataFrame,
    target: DataFrame,
    snapshot_end: Mapping[int, int],
    *,
    mapped_partitions: Iterable[int] = (),
    max_examples: int = 5,
    window: TopicWindow = TopicWindow(),
) -> TopicComparison:
    """Compare one topic; see the module docstring for the rules.

    `source` and `target` are fingerprinted records; `snapshot_end` holds every
    source partition's snapshot end offset. `mapped_partitions` asks for a target →
    source offset map of those partitions (checkpoint evaluation needs it).
    `window` limits the records judged, not those read or mapped.
    """
    mapped_partitions = tuple(mapped_partitions)
    source = mark_required(source, snapshot_end, window)
    source_digests, target_digests = _digest_rows(source, target)

    results: dict[int, PartitionResult] = {}
    mismatched: list[int] = []
    for partition in sorted(set(snapshot_end) | set(source_digests) | set(target_digests)):
        source_row = source_digests.get(partition)
        target_row = target_digests.get(partition)
        result = PartitionResult(partition=partition)
        if source_row:
            window_records = int(source_row["window_records"] or 0)
            result.source_records = int(source_row["required_records"] or 0)
            result.source_tail_records = window_records - result.source_records
            result.source_records_before_window = int(source_row["records"]) - window_records
        if partition in window.from_offsets:
            result.window_source_offset = int(window.from_offsets[partition])
        if target_row:
            result.target_records = int(target_row["records"])
        if not _digests_equal(source_row, target_row):
            result.verified_by = VERIFIED_BY_RECORDS
            mismatched.append(partition)
        results[partition] = result

    wanted = sorted(set(mismatched) | set(mapped_partitions))
    offset_map: Optional[DataFrame] = None
    pairs: Optional[DataFrame] = None
    if wanted:
        pairs = match_records(
            source.filter(F.col("partition").isin(wanted)), target.filter(F.col("partition").isin(wanted))
        ).persist()
        if mismatched:
            judged_pairs = pairs.filter(F.col("partition").isin(mismatched))
            target_starts = target_window_offsets(judged_pairs, window)
            for partition, start in target_starts.items():
                results[partition].window_target_offset = start
            findings = record_findings(mark_target_window(judged_pairs, window, target_starts))
            _summarize_findings(findings, results, max_examples)
        if mapped_partitions:
            offset_map = pairs.filter(F.col("t_offset").isNotNull()).select(
                "partition",
                F.col("t_offset").alias("target_offset"),
                F.col("mapped_source_offset").alias("source_offset"),
            )
    return TopicComparison(results, offset_map, pairs)
