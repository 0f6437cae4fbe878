"""One test per fault kind on small in-memory DataFrames."""

from __future__ import annotations

import pytest

from validator_helpers import BASE_TS_MS, record, records_frame
from mm2_validator.compare import compare_topic
from mm2_validator.fingerprint import with_fingerprints
from mm2_validator.model import PROBLEM_KINDS, VERIFIED_BY_DIGEST, VERIFIED_BY_RECORDS


def run_compare(spark, source_records, target_records, snapshot_end=None, source_offsets=None, target_offsets=None):
    source = with_fingerprints(records_frame(spark, "orders", source_records, source_offsets))
    target = with_fingerprints(records_frame(spark, "src.orders", target_records, target_offsets))
    if snapshot_end is None:
        offsets = source_offsets or list(range(len(source_records)))
        snapshot_end = {}
        for rec, offset in zip(source_records, offsets):
            snapshot_end[rec["partition"]] = max(snapshot_end.get(rec["partition"], 0), offset + 1)
    return compare_topic(source, target, snapshot_end, max_examples=3).partitions


def problems(result):
    return {kind: count for kind, count in result.problems.items() if count}


def sample(count=6, partition=0):
    return [
        record(key=f"k{i % 3}".encode(), value=f"v{i}".encode(), ts_ms=BASE_TS_MS + i, partition=partition)
        for i in range(count)
    ]


def test_clean_replica_passes_on_the_digest_fast_path(spark):
    source = sample(6, 0) + sample(4, 1)
    results = run_compare(spark, source, list(source))
    assert set(results) == {0, 1}
    for result in results.values():
        assert result.verified_by == VERIFIED_BY_DIGEST
        assert problems(result) == {}
    assert results[0].source_records == 6 and results[0].target_records == 6


def test_offsets_are_not_compared_and_compaction_gaps_are_fine(spark):
    # Source offsets have gaps (compaction, transaction markers); the replica is dense.
    source = sample(4)
    results = run_compare(spark, source, list(source), source_offsets=[0, 7, 8, 20], snapshot_end={0: 21})
    assert problems(results[0]) == {}
    assert results[0].verified_by == VERIFIED_BY_DIGEST


def test_missing_record(spark):
    source = sample(6)
    target = source[:2] + source[3:]
    result = run_compare(spark, source, target)[0]
    assert result.verified_by == VERIFIED_BY_RECORDS
    assert problems(result) == {"missing": 1}
    assert result.examples[0]["kind"] == "missing" and result.examples[0]["source_offset"] == 2


def test_duplicated_run_is_counted_without_order_violations(spark):
    # At-least-once replay: records 2..4 written twice after a task restart.
    source = sample(6)
    target = source[:5] + source[2:5] + source[5:]
    result = run_compare(spark, source, target)[0]
    assert problems(result) == {"duplicate": 3}
    assert result.duplicate_replays == 1


# Per partition (one Spark run for all): the source offsets each crash resent, and the replays.
REPLAY_SCENARIOS = {
    0: ([range(2, 5), range(7, 9)], 2),  # two crashes, a record between them not resent
    1: ([range(2, 5), range(5, 8)], 1),  # back to back: one run of source records
    2: ([range(2, 6), range(2, 6)], 2),  # the same records resent twice: stacked copies
    3: ([range(2, 6), range(4, 9)], 2),  # overlapping replays
    4: ([range(2, 4), range(7, 9), range(2, 9)], 3),
}


def test_each_run_of_duplicated_source_records_is_a_replay(spark):
    sources = {partition: sample(10, partition) for partition in REPLAY_SCENARIOS}
    source = [r for records in sources.values() for r in records]
    resent = [sources[partition][i] for partition, (runs, _expected) in REPLAY_SCENARIOS.items() for run in runs for i in run]
    results = run_compare(spark, source, source + resent)
    for partition, (runs, replays) in REPLAY_SCENARIOS.items():
        assert problems(results[partition]) == {"duplicate": sum(len(run) for run in runs)}, partition
        assert results[partition].duplicate_replays == replays, partition


def test_compaction_gaps_do_not_split_a_replay(spark):
    # Source offsets 0, 7, 8, 20, 21, 30 in both partitions. Partition 0 resends its last five
    # records: one run. Partition 1 leaves one of them out: two.
    first, second = sample(6, 0), sample(6, 1)
    target = first + second + first[1:] + second[1:3] + second[4:]
    offsets = [0, 7, 8, 20, 21, 30] * 2
    results = run_compare(spark, first + second, target, source_offsets=offsets, snapshot_end={0: 31, 1: 31})
    assert problems(results[0]) == {"duplicate": 5} and results[0].duplicate_replays == 1
    assert problems(results[1]) == {"duplicate": 4} and results[1].duplicate_replays == 2
    assert results[1].duplicate_range == {"source_first": 7, "source_last": 30, "target_first": 6, "target_last": 9}


def test_swapped_pair_of_one_key_is_an_order_violation(spark):
    source = [record(key=b"a", value=b"1"), record(key=b"a", value=b"2"), record(key=b"b", value=b"3")]
    target = [source[1], source[0], source[2]]
    result = run_compare(spark, source, target)[0]
    assert result.verified_by == VERIFIED_BY_RECORDS
    assert problems(result) == {"order_violation": 1}


def test_reordering_across_different_keys_is_allowed(spark):
    source = [record(key=b"a", value=b"1"), record(key=b"b", value=b"2")]
    result = run_compare(spark, source, [source[1], source[0]])[0]
    assert problems(result) == {}


def test_altered_value_is_a_content_mismatch(spark):
    source = sample(4)
    target = list(source)
    target[1] = dict(target[1], value=b"tampered")
    result = run_compare(spark, source, target)[0]
    assert problems(result) == {"content_mismatch": 1}
    assert result.content_mismatch_fields == {"value": 1, "headers": 0, "timestamp": 0}
    assert result.examples[0]["detail"] == "value"


@pytest.mark.parametrize(
    "source_headers, target_headers",
    [
        ([("h1", b"x"), ("h2", b"y")], [("h1", b"x"), ("h2", b"z")]),  # value bytes
        ([("h1", b"x"), ("h2", b"y")], [("h2", b"y"), ("h1", b"x")]),  # order
        ([("h1", b"x")], [("h1", b"x"), ("h1", b"x")]),  # an extra header
        ([("h1", None)], [("h1", b"")]),  # null vs empty header value
    ],
)
def test_altered_headers_are_a_content_mismatch(spark, source_headers, target_headers):
    source = [record(key=b"a", headers=source_headers), record(key=b"b")]
    target = [record(key=b"a", headers=target_headers), record(key=b"b")]
    result = run_compare(spark, source, target)[0]
    assert problems(result) == {"content_mismatch": 1}
    assert result.content_mismatch_fields["headers"] == 1


def test_no_headers_and_empty_headers_are_the_same(spark):
    source = [record(headers=None)]
    result = run_compare(spark, source, [record(headers=[])])[0]
    assert problems(result) == {}


def test_altered_timestamp_is_a_content_mismatch(spark):
    source = sample(3)
    target = list(source)
    target[2] = dict(target[2], ts_ms=target[2]["ts_ms"] + 1)
    result = run_compare(spark, source, target)[0]
    assert problems(result) == {"content_mismatch": 1}
    assert result.content_mismatch_fields["timestamp"] == 1


def test_timestamp_type_change(spark):
    source = [record(key=b"a", ts_type=1), record(key=b"b", ts_type=0)]
    target = [dict(source[0], ts_type=0), source[1]]
    result = run_compare(spark, source, target)[0]
    assert result.verified_by == VERIFIED_BY_RECORDS
    assert problems(result) == {"timestamp_type_change": 1}


def test_null_and_empty_keys_are_different_records(spark):
    source = [record(key=None, value=b"v")]
    target = [record(key=b"", value=b"v")]
    result = run_compare(spark, source, target)[0]
    # Different keys never pair as a content mismatch: one missing, one unexpected.
    assert problems(result) == {"missing": 1, "unexpected": 1}


def test_null_and_empty_values_are_different_records(spark):
    source = [record(key=b"a", value=None)]
    result = run_compare(spark, source, [record(key=b"a", value=b"")])[0]
    assert problems(result) == {"content_mismatch": 1}
    assert result.content_mismatch_fields["value"] == 1


def test_unexpected_record_on_target(spark):
    source = sample(3)
    target = source + [record(key=b"zz", value=b"from elsewhere")]
    result = run_compare(spark, source, target)[0]
    assert problems(result) == {"unexpected": 1}


def test_extra_target_partition_is_unexpected(spark):
    source = sample(2, partition=0)
    target = source + [record(partition=1)]
    results = run_compare(spark, source, target)
    assert problems(results[1]) == {"unexpected": 1}
    assert problems(results[0]) == {}


def test_source_tail_past_the_snapshot_is_optional(spark):
    source = sample(6)
    # Snapshot at 4: records 4 and 5 arrived while waiting; the target has only 4.
    results = run_compare(spark, source, source[:5], snapshot_end={0: 4})
    assert problems(results[0]) == {}
    assert results[0].source_records == 4 and results[0].source_tail_records == 2


def test_missing_record_below_the_snapshot_still_fails_with_a_tail(spark):
    source = sample(6)
    results = run_compare(spark, source, source[1:5], snapshot_end={0: 4})
    assert problems(results[0]) == {"missing": 1}


def test_identical_records_are_matched_as_a_multiset(spark):
    # The source itself holds two identical records; one copy on the target is missing.
    source = [record(key=b"a", value=b"same"), record(key=b"a", value=b"same"), record(key=b"b")]
    result = run_compare(spark, source, [source[0], source[2]])[0]
    assert problems(result) == {"missing": 1}


def test_every_problem_kind_has_a_counter(spark):
    result = run_compare(spark, sample(1), sample(1))[0]
    assert set(result.problems) == set(PROBLEM_KINDS)
