"""Checkpoint safety, bounds and monotonicity; offset-sync checks."""

from __future__ import annotations

from mm2_validator.checkpoints import (
    CheckpointAt,
    check_offset_syncs,
    decode_checkpoint_records,
    evaluate_topic_checkpoints,
    latest_checkpoints,
    summarize_groups,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_records import Checkpoint, encode_checkpoint
from mm2_validator.model import CheckpointResult


def offset_map(spark, pairs, partition=0):
    """(target_offset, source_offset) pairs of one partition."""
    return spark.createDataFrame(
        [(partition, t, s) for t, s in pairs], "partition int, target_offset long, source_offset long"
    )


def checkpoint(upstream, downstream, group="g1", partition=0):
    return CheckpointResult(group, "src.orders", partition, upstream, downstream, "", 0)


# Target offsets 0..9 replicate source 0..9, then a replayed run of source 5..6 at 10..11.
REPLAYED = [(t, t) for t in range(10)] + [(10, 5), (11, 6)]


def test_safe_checkpoint_is_accepted_and_rereads_are_counted(spark):
    exact, conservative = checkpoint(5, 5), checkpoint(5, 3, group="g2")
    evaluate_topic_checkpoints(spark, [exact, conservative], offset_map(spark, REPLAYED), {0: 12})
    assert exact.safe and exact.within_log and exact.ok
    # An exact translation re-reads nothing: the replayed copies at target 10 and 11
    # replicate source 5 and 6, which the group had not consumed yet (>= U).
    assert exact.skipped_records == 0 and exact.reread_records == 0
    assert conservative.safe and conservative.reread_records == 2  # target 3, 4


def test_checkpoint_that_skips_records_is_unsafe(spark):
    skipping = checkpoint(5, 8)  # target 5..7 replicate source 5..7 >= U: lost on failover
    evaluate_topic_checkpoints(spark, [skipping], offset_map(spark, REPLAYED), {0: 12})
    assert skipping.safe is False and not skipping.ok
    assert skipping.skipped_records == 3


def test_checkpoint_past_the_log_end_is_flagged(spark):
    beyond = checkpoint(12, 20)
    evaluate_topic_checkpoints(spark, [beyond], offset_map(spark, REPLAYED), {0: 12})
    assert beyond.within_log is False and not beyond.ok


def test_checkpoint_without_records_is_safe(spark):
    empty = checkpoint(0, 0, partition=4)
    evaluate_topic_checkpoints(spark, [empty], offset_map(spark, REPLAYED), {0: 12, 4: 0})
    assert empty.safe and empty.within_log


def history(*entries):
    return [
        CheckpointAt(Checkpoint(group, "src.orders", 0, upstream, downstream, ""), index)
        for index, (group, upstream, downstream) in enumerate(entries)
    ]


def test_latest_checkpoint_per_group_and_partition():
    latest = latest_checkpoints(history(("g1", 1, 1), ("g2", 4, 4), ("g1", 3, 3)))
    assert [(c.group, c.upstream_offset, c.checkpoint_record_offset) for c in latest] == [("g1", 3, 2), ("g2", 4, 1)]
    assert [c.group for c in latest_checkpoints(history(("g1", 1, 1), ("g2", 4, 4)), groups=["g2"])] == ["g2"]


def test_downstream_going_back_is_not_monotonic():
    latest = latest_checkpoints(history(("g1", 5, 5), ("g1", 6, 3), ("g1", 7, 7)))
    assert latest[0].monotonic is False and "went back" in latest[0].note


def test_consumer_rewind_is_monotonic():
    latest = latest_checkpoints(history(("g1", 5, 5), ("g1", 2, 2)))
    assert latest[0].monotonic is True and "rewound" in latest[0].note


def test_checkpoint_records_decode_in_offset_order_and_skip_tombstones():
    first = encode_checkpoint(Checkpoint("g", "src.t", 0, 1, 1, ""))
    second = encode_checkpoint(Checkpoint("g", "src.t", 0, 2, 2, ""))
    decoded, malformed = decode_checkpoint_records(
        [(second[0], second[1], 9), (first[0], first[1], 3), (first[0], None, 5), (b"\x00", b"\x00", 7)]
    )
    assert [d.record_offset for d in decoded] == [3, 9] and malformed == 1


def test_group_summary_counts_unsafe_partitions():
    bad, good = checkpoint(5, 8), checkpoint(5, 5, partition=1)
    for c, safe, skipped, reread in ((bad, False, 3, 0), (good, True, 0, 4)):
        c.evaluated, c.safe, c.within_log, c.skipped_records, c.reread_records = True, safe, True, skipped, reread
    (summary,) = summarize_groups([bad, good])
    assert (summary.partitions, summary.unsafe_partitions, summary.skipped_records, summary.reread_records) == (
        2,
        1,
        3,
        4,
    )


def test_offset_syncs_are_checked_against_the_record_mapping(spark):
    checked, mismatches = check_offset_syncs(spark, {0: (6, 6)}, offset_map(spark, REPLAYED))
    assert (checked, mismatches) == (1, [])
    checked, mismatches = check_offset_syncs(spark, {0: (6, 9)}, offset_map(spark, REPLAYED))
    assert checked == 1 and mismatches[0]["replicates_source_offset"] == 9
    assert check_offset_syncs(spark, {0: (6, 99)}, offset_map(spark, REPLAYED)) == (0, [])
