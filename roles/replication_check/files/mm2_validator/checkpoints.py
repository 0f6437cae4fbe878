"""Consumer-group checkpoint checks.

A checkpoint says: group G, having committed upstream offset U on the source, may
resume at downstream offset D on the target. D is *safe* when no target record
below D replicates a source record at offset >= U (those records would be skipped
after a failover). Target records at or above D that replicate source offsets below
U are read a second time after a failover: that count is reported, not failed.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Mapping, Optional

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from mm2_validator.shared import mm2_records
from mm2_validator.model import CheckpointResult, GroupSummary


@dataclass(frozen=True)
class CheckpointAt:
    """A decoded checkpoint and its offset in the checkpoints topic."""

    checkpoint: mm2_records.Checkpoint
    record_offset: int


def decode_checkpoint_records(rows: Iterable[tuple[object, object, int]]) -> tuple[list[CheckpointAt], int]:
    """Decode (key, value, offset) rows of the checkpoints topic, in offset order.
    Tombstones are skipped; malformed records are counted, not fatal."""
    decoded: list[CheckpointAt] = []
    malformed = 0
    for key, value, offset in sorted(rows, key=lambda row: row[2]):
        if value is None:
            continue
        try:
            decoded.append(CheckpointAt(mm2_records.decode_checkpoint(key, value), int(offset)))
        except mm2_records.RecordFormatError:
            malformed += 1
    return decoded, malformed


def latest_checkpoints(history: Iterable[CheckpointAt], groups: Iterable[str] = ()) -> list[CheckpointResult]:
    """The newest checkpoint per group/topic/partition, with monotonicity judged over
    the whole history kept in the topic (compaction may have thinned it).

    Downstream offsets going back while the upstream offset did not go back is a
    translation fault; both going back is a consumer rewind and only noted.
    """
    wanted_groups = set(groups)
    latest: dict[tuple[str, str, int], CheckpointResult] = {}
    for entry in sorted(history, key=lambda e: e.record_offset):
        cp = entry.checkpoint
        if wanted_groups and cp.group not in wanted_groups:
            continue
        identity = (cp.group, cp.topic, cp.partition)
        previous = latest.get(identity)
        current = CheckpointResult(
            group=cp.group,
            topic=cp.topic,
            partition=cp.partition,
            upstream_offset=cp.upstream_offset,
            downstream_offset=cp.downstream_offset,
            metadata=cp.metadata,
            checkpoint_record_offset=entry.record_offset,
        )
        if previous is not None:
            current.monotonic = previous.monotonic
            current.note = previous.note
            if cp.downstream_offset < previous.downstream_offset:
                if cp.upstream_offset >= previous.upstream_offset:
                    current.monotonic = False
                    current.note = (
                        f"downstream offset went back from {previous.downstream_offset} to {cp.downstream_offset} "
                        f"while upstream went from {previous.upstream_offset} to {cp.upstream_offset}"
                    )
                else:
                    current.note = "consumer group rewound on the source"
        latest[identity] = current
    return sorted(latest.values(), key=lambda r: (r.group, r.topic, r.partition))


def evaluate_topic_checkpoints(
    spark: SparkSession,
    checkpoints: list[CheckpointResult],
    offset_map: Optional[DataFrame],
    target_end_offsets: Mapping[int, int],
) -> None:
    """Judge the checkpoints of one remote topic against its target → source offset
    map (partition, target_offset, source_offset); updates the results in place."""
    if not checkpoints:
        return
    for result in checkpoints:
        result.evaluated = True
        end = target_end_offsets.get(result.partition)
        result.within_log = end is not None and 0 <= result.downstream_offset <= end
    if offset_map is None:
        for result in checkpoints:
            result.safe = True
        return
    rows = [(r.group, r.partition, r.upstream_offset, r.downstream_offset) for r in checkpoints]
    checkpoint_frame = spark.createDataFrame(rows, "`group` string, partition int, upstream long, downstream long")
    below_d = F.col("target_offset") < F.col("downstream")
    skipped = below_d & (F.col("source_offset") >= F.col("upstream"))
    reread = (~below_d) & (F.col("source_offset") < F.col("upstream"))
    counts = (
        F.broadcast(checkpoint_frame)
        .join(offset_map, on="partition", how="left")
        .groupBy("group", "partition")
        .agg(
            F.sum(F.when(skipped, 1).otherwise(0)).alias("skipped"),
            F.sum(F.when(reread, 1).otherwise(0)).alias("reread"),
        )
        .collect()
    )
    by_identity = {(row["group"], row["partition"]): row for row in counts}
    for result in checkpoints:
        row = by_identity.get((result.group, result.partition))
        result.skipped_records = int(row["skipped"] or 0) if row else 0
        result.reread_records = int(row["reread"] or 0) if row else 0
        result.safe = result.skipped_records == 0


def summarize_groups(results: Iterable[CheckpointResult]) -> list[GroupSummary]:
    by_group: dict[str, list[CheckpointResult]] = defaultdict(list)
    for result in results:
        by_group[result.group].append(result)
    return [
        GroupSummary(
            group=group,
            partitions=len(items),
            evaluated_partitions=sum(1 for r in items if r.evaluated),
            unsafe_partitions=sum(1 for r in items if r.evaluated and not r.ok),
            reread_records=sum(r.reread_records for r in items),
            skipped_records=sum(r.skipped_records for r in items),
        )
        for group, items in sorted(by_group.items())
    ]


def check_offset_syncs(
    spark: SparkSession,
    latest_syncs: Mapping[int, tuple[int, int]],
    offset_map: Optional[DataFrame],
) -> tuple[int, list[dict[str, int]]]:
    """Compare the newest offset sync per partition, {partition: (upstream, downstream)},
    with the record mapping: the target record at the downstream offset must
    replicate the source record at the upstream offset. Returns (checked, mismatches);
    syncs whose downstream record is outside the compared range are not checked."""
    if not latest_syncs or offset_map is None:
        return 0, []
    rows = [(int(p), int(u), int(d)) for p, (u, d) in sorted(latest_syncs.items())]
    syncs = spark.createDataFrame(rows, "partition int, upstream long, downstream long")
    found = (
        F.broadcast(syncs)
        .join(
            offset_map,
            on=[syncs["partition"] == offset_map["partition"], syncs["downstream"] == offset_map["target_offset"]],
        )
        .select(syncs["partition"], "upstream", "downstream", "source_offset")
        .collect()
    )
    mismatches = [
        {
            "partition": row["partition"],
            "upstream_offset": row["upstream"],
            "downstream_offset": row["downstream"],
            "replicates_source_offset": row["source_offset"],
        }
        for row in found
        if row["source_offset"] != row["upstream"]
    ]
    return len(found), mismatches
