"""Duplicates judged by delivery guarantee and budget, and the window, on small local data."""

from __future__ import annotations

import json

from validator_fakes import InMemoryCluster
from validator_helpers import BASE_TS_MS, record, records_frame
from mm2_validator.cli import EXIT_FAIL, EXIT_PASS, main
from mm2_validator.compare import compare_topic
from mm2_validator.fingerprint import with_fingerprints
from mm2_validator.window import TopicWindow


def numbered(count, partition=0):
    """Records 0..count-1 of one partition; timestamps rise with the offset."""
    return [
        record(key=f"k{i % 3}".encode(), value=f"v{i}".encode(), ts_ms=BASE_TS_MS + i, partition=partition)
        for i in range(count)
    ]


STRAY = record(key=b"zz", value=b"from elsewhere", ts_ms=BASE_TS_MS + 4)


def incident_replica(source):
    """The target after an incident around source offset 2..5: offset 2 lost, a stray record,
    and a replay of 3..5 after 6 (at-least-once restart from an older committed offset)."""
    return source[:2] + source[3:5] + [STRAY] + source[5:7] + source[3:6] + source[7:]


def compare(spark, source, target, window=TopicWindow()):
    frames = [with_fingerprints(records_frame(spark, t, r)) for t, r in (("orders", source), ("src.orders", target))]
    return compare_topic(*frames, {0: len(source)}, max_examples=3, window=window).partitions[0]


def problems(result):
    return {kind: count for kind, count in result.problems.items() if count}


def test_without_a_window_the_incident_shows_everywhere(spark):
    result = compare(spark, numbered(10), incident_replica(numbered(10)))
    assert problems(result) == {"missing": 1, "duplicate": 3, "unexpected": 1}
    assert result.duplicate_range == {"source_first": 3, "source_last": 5, "target_first": 7, "target_last": 9}


def test_an_offset_window_judges_only_what_came_after_its_start(spark):
    result = compare(spark, numbered(10), incident_replica(numbered(10)), TopicWindow({0: 5}))
    # Offset 2 lost and the stray record (target offset 4) are before the window; so are the
    # replays of 3 and 4. The replay of 5 copies a window record: a duplicate.
    assert problems(result) == {"duplicate": 1}
    assert result.duplicate_range == {"source_first": 5, "source_last": 5, "target_first": 9, "target_last": 9}
    assert (result.source_records, result.source_records_before_window) == (5, 5)
    assert (result.window_source_offset, result.window_target_offset) == (5, 5)


def test_a_timestamp_window_selects_the_same_records_on_both_sides(spark):
    result = compare(spark, numbered(10), incident_replica(numbered(10)), TopicWindow({}, BASE_TS_MS + 5))
    assert problems(result) == {"duplicate": 1}
    assert result.source_records == 5 and result.window_source_offset is None


def test_problems_inside_the_window_are_still_found(spark):
    source = numbered(10)
    late_stray = record(key=b"yy", value=b"late", ts_ms=BASE_TS_MS + 20)
    target = [r for r in incident_replica(source) if r is not source[8]] + [late_stray]
    for window in (TopicWindow({0: 5}), TopicWindow({}, BASE_TS_MS + 5)):
        result = compare(spark, source, target, window)
        assert problems(result) == {"missing": 1, "duplicate": 1, "unexpected": 1}
        assert {e["kind"]: e["source_offset"] for e in result.examples}["missing"] == 8


def test_partitions_not_named_by_the_offset_window_are_judged_whole(spark):
    source = numbered(6, 0) + numbered(6, 1)
    target = source[:6] + source[6:8] + source[9:]  # partition 1 loses its offset 2
    frames = [with_fingerprints(records_frame(spark, t, r)) for t, r in (("orders", source), ("src.orders", target))]
    results = compare_topic(*frames, {0: 6, 1: 6}, window=TopicWindow({0: 3})).partitions
    assert problems(results[1]) == {"missing": 1} and results[1].window_source_offset is None
    assert results[0].source_records == 3 and results[0].verified_by == "digest"


# -- the command line -------------------------------------------------------------------


def run(spark, tmp_path, source, target, *extra):
    by_name = {
        "source": InMemoryCluster("source", spark, {"orders": source}),
        "target": InMemoryCluster("target", spark, {"src.orders": target}, partitions={"src.orders": 2}),
    }
    argv = ["--source-bootstrap", "s:9092", "--target-bootstrap", "t:9092", "--source-alias", "src",
            "--target-alias", "dst", "--topics", "orders", "--catchup-timeout", "0",
            "--report-json", str(tmp_path / "report.json"), "--report-html", str(tmp_path / "report.html"), *extra]
    code = main(argv, spark_factory=lambda *_: spark, cluster_factory=lambda _spark, access: by_name[access.name])
    return code, json.loads((tmp_path / "report.json").read_text())


def forty_with_replays(replayed=3):
    """40 records over two partitions; partition 0 replays its offsets 10.. after its end."""
    source = [record(key=f"k{i % 5}".encode(), value=f"v{i}".encode(), ts_ms=BASE_TS_MS + i, partition=i % 2)
              for i in range(40)]
    partition0 = [r for r in source if r["partition"] == 0]
    return source, source + partition0[10:10 + replayed]


def codes(report):
    return {(f["severity"], f["code"]) for f in report["findings"]}


def test_at_least_once_duplicates_within_budget_pass_with_a_warning(spark, tmp_path, capsys):
    source, target = forty_with_replays(3)
    code, report = run(spark, tmp_path, source, target)
    out = capsys.readouterr().out
    assert code == EXIT_PASS and report["verdict"] == "PASS"
    assert codes(report) == {("warning", "duplicate"), ("warning", "duplicates_within_budget")}
    assert report["duplicate_budget"] == {
        "delivery": "at-least-once", "max_duplicates": None, "max_duplicate_ratio": 0.1, "records_validated": 40,
        "duplicates": 3, "replays": 1, "allowed_per_replay": 4, "allowed_duplicates": 4, "duplicate_ratio": 0.075,
        "within_budget": True, "severity": "warning",
    }
    partitions = {p["partition"]: p for p in report["topics"][0]["partitions"]}
    assert partitions[0]["problems"]["duplicate"] == 3 and partitions[1]["problems"]["duplicate"] == 0
    assert (partitions[0]["duplicate_replays"], partitions[1]["duplicate_replays"]) == (1, 0)
    assert partitions[0]["duplicate_range"] == {"source_first": 10, "source_last": 12, "target_first": 20,
                                                "target_last": 22}
    assert [e["source_offset"] for e in partitions[0]["examples"] if e["kind"] == "duplicate"] == [10, 11, 12]
    duplicate_finding = next(f for f in report["findings"] if f["code"] == "duplicate")
    assert "in 1 replay (copies of source offsets 10-12 at target offsets 20-22)" in duplicate_finding["message"]
    assert "WARNING: duplicates_within_budget" in out and "verdict: PASS" in out
    assert "delivery at-least-once: 3 duplicates in 1 replay (at most 4 per replay: 10 % of the 40 records validated)" in out
    html = (tmp_path / "report.html").read_text()
    assert "delivery at-least-once" in html and "source 10-12, target 20-22, 1 replay" in html


def test_at_least_once_over_budget_fails(spark, tmp_path):
    source, target = forty_with_replays(3)
    code, report = run(spark, tmp_path, source, target, "--max-duplicates", "2")
    assert code == EXIT_FAIL and report["verdict"] == "FAIL"
    assert codes(report) == {("error", "duplicate"), ("error", "duplicate_budget_exceeded")}
    assert report["duplicate_budget"]["allowed_duplicates"] == 2 and not report["duplicate_budget"]["within_budget"]


# -- the budget per replay ------------------------------------------------------------------
# 40 records validated: 4 duplicates allowed per replay (10 %).


def forty_resending(*runs):
    """The 40 records, then the (partition, source offsets) of each run resent after them."""
    source = forty_with_replays(0)[0]
    by_partition = {p: [r for r in source if r["partition"] == p] for p in (0, 1)}
    return source, source + [by_partition[partition][i] for partition, offsets in runs for i in offsets]


def test_two_replays_in_a_partition_pass_with_twice_the_allowance_less_one(spark, tmp_path, capsys):
    source, target = forty_resending((0, range(2, 6)), (0, range(10, 13)))  # 4 + 3 = 7 = 2 x 4 - 1
    code, report = run(spark, tmp_path, source, target)
    out = capsys.readouterr().out
    assert code == EXIT_PASS and report["verdict"] == "PASS"
    assert codes(report) == {("warning", "duplicate"), ("warning", "duplicates_within_budget")}
    budget = report["duplicate_budget"]
    assert (budget["duplicates"], budget["replays"], budget["allowed_per_replay"], budget["allowed_duplicates"]) == (7, 2, 4, 8)
    line = "7 duplicates in 2 replays (at most 4 per replay: 10 % of the 40 records validated; 8 in all): within budget"
    assert next(f for f in report["findings"] if f["code"] == "duplicates_within_budget")["message"].endswith(line)
    assert f"WARNING: duplicates_within_budget: delivery at-least-once: {line}" in out
    partition_finding = next(f for f in report["findings"] if f["code"] == "duplicate")
    assert partition_finding["message"].startswith("7 record(s): duplicate in 2 replays (copies of source offsets 2-12")
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:4] == ["topic", "part", "duplicates", "replays"])
    assert lines[header + 2].split() == ["orders", "0", "7", "2", "2-12", "20-26"]


def test_the_same_duplicates_in_one_replay_fail(spark, tmp_path):
    source, target = forty_resending((0, range(2, 9)))  # 7 in one run: more than one crash leaves
    code, report = run(spark, tmp_path, source, target)
    assert code == EXIT_FAIL
    assert codes(report) == {("error", "duplicate"), ("error", "duplicate_budget_exceeded")}
    budget = report["duplicate_budget"]
    assert (budget["duplicates"], budget["replays"], budget["allowed_duplicates"]) == (7, 1, 4)
    assert next(f for f in report["findings"] if f["code"] == "duplicate_budget_exceeded")["message"].endswith(
        "7 duplicates in 1 replay (at most 4 per replay: 10 % of the 40 records validated): over budget"
    )


def test_runs_in_different_partitions_from_one_crash_are_one_replay(spark, tmp_path):
    # One crash resends in both partitions its task owned: one run each, one replay.
    source, target = forty_resending((0, range(2, 6)), (1, range(10, 13)))
    code, report = run(spark, tmp_path, source, target)
    assert code == EXIT_FAIL
    assert report["duplicate_budget"]["replays"] == 1 and report["duplicate_budget"]["allowed_duplicates"] == 4
    partitions = {p["partition"]: p for p in report["topics"][0]["partitions"]}
    assert (partitions[0]["duplicate_replays"], partitions[1]["duplicate_replays"]) == (1, 1)


def test_exactly_once_fails_on_duplicates_of_any_number_of_replays(spark, tmp_path):
    source, target = forty_resending((0, [2]), (0, [10]))
    code, report = run(spark, tmp_path, source, target, "--delivery", "exactly-once")
    assert code == EXIT_FAIL
    assert codes(report) == {("error", "duplicate"), ("error", "duplicates_under_exactly_once")}
    budget = report["duplicate_budget"]
    assert (budget["replays"], budget["allowed_per_replay"], budget["allowed_duplicates"]) == (2, 0, 0)


def test_exactly_once_fails_on_a_single_duplicate(spark, tmp_path):
    source, target = forty_with_replays(1)
    code, report = run(spark, tmp_path, source, target, "--delivery", "exactly-once")
    assert code == EXIT_FAIL
    assert codes(report) == {("error", "duplicate"), ("error", "duplicates_under_exactly_once")}
    assert report["inputs"]["delivery"] == "exactly-once"
    assert report["duplicate_budget"]["allowed_duplicates"] == 0


def test_a_window_after_the_incident_passes_where_the_whole_topic_fails(spark, tmp_path):
    source = numbered(10)
    # The incident without the replay of window records: the replay copies offsets 3 and 4 only.
    target = source[:2] + source[3:5] + [STRAY] + source[5:7] + source[3:5] + source[7:]
    code, report = run(spark, tmp_path, source, target)
    assert code == EXIT_FAIL
    assert {"missing", "unexpected"} <= {f["code"] for f in report["findings"]}
    for window in (["--from-offsets", "orders:0=5"], ["--from-timestamp", str(BASE_TS_MS + 5)]):
        code, report = run(spark, tmp_path, source, target, *window)
        assert code == EXIT_PASS, report["findings"]
        assert report["records_validated"] == 5 and report["totals"]["unexpected"] == 0
    assert report["inputs"]["window"]["from_timestamp_ms"] == BASE_TS_MS + 5


def test_a_window_partition_the_source_lacks_is_a_usage_error(spark, tmp_path, capsys):
    by_name = {"source": InMemoryCluster("source", spark, {"orders": numbered(3)})}
    argv = ["--source-bootstrap", "s:9092", "--target-bootstrap", "t:9092", "--source-alias", "src",
            "--target-alias", "dst", "--topics", "orders", "--from-offsets", "orders:7=0"]
    code = main(argv, spark_factory=lambda *_: spark, cluster_factory=lambda _spark, access: by_name["source"])
    assert code == 2 and "orders has no partition 7" in capsys.readouterr().err
