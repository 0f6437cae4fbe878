"""JSON schema keys, the stdout table and the self-contained HTML page."""

from __future__ import annotations

import json
from xml.etree import ElementTree

from mm2_validator.delivery import DuplicatePolicy
from mm2_validator.model import (
    CheckpointResult,
    Finding,
    GroupSummary,
    LatencyResult,
    PartitionResult,
    TopicResult,
    ValidationResult,
)
from mm2_validator.report import html_report, partition_chart_svg, report_document, text_summary, write_reports

TOP_LEVEL_KEYS = {
    "schema_version",
    "generator",
    "verdict",
    "started_at",
    "elapsed_s",
    "records_validated",
    "caught_up",
    "inputs",
    "totals",
    "topics",
    "checkpoints",
    "offset_syncs",
    "latency",
    "findings",
    "duplicate_budget",  # added within schema 1
}
PARTITION_KEYS = {
    "partition",
    "source_start_offset",
    "source_snapshot_offset",
    "source_read_offset",
    "target_start_offset",
    "target_end_offset",
    "source_records",
    "source_tail_records",
    "target_records",
    "verified_by",
    "problems",
    "content_mismatch_fields",
    "examples",
    # added within schema 1
    "duplicate_range",
    "duplicate_replays",
    "source_records_before_window",
    "window_source_offset",
    "window_target_offset",
}


def failing_result() -> ValidationResult:
    bad = PartitionResult(partition=0, source_records=10, target_records=9, verified_by="records")
    bad.problems["missing"] = 1
    bad.examples.append({"kind": "missing", "source_offset": 4, "target_offset": None, "key": "6B34", "detail": None})
    good = PartitionResult(partition=1, source_records=7, target_records=7)
    topic = TopicResult("orders<&>", "src.orders<&>", partitions=[bad, good])
    checkpoint = CheckpointResult(
        "billing", "src.orders", 0, 5, 8, "", 3, evaluated=True, safe=False, within_log=True, skipped_records=3
    )
    return ValidationResult(
        inputs={"source_alias": "src", "target_alias": "dst", "replication_policy": "default"},
        topics=[topic],
        checkpoints=[checkpoint],
        groups=[GroupSummary("billing", 1, 1, 1, 0, 3)],
        latency=LatencyResult(note="no heartbeats"),
        findings=[Finding("error", "missing", "1 record(s): missing", topic="orders<&>", partition=0)],
        started_at="2024-01-01T00:00:00+00:00",
        elapsed_s=1.5,
    )


def test_json_report_has_the_versioned_schema(tmp_path):
    result = failing_result()
    write_reports(result, tmp_path / "out" / "report.json", None)
    document = json.loads((tmp_path / "out" / "report.json").read_text())
    assert set(document) == TOP_LEVEL_KEYS
    assert document["schema_version"] == 1 and document["verdict"] == "FAIL"
    assert set(document["topics"][0]["partitions"][0]) == PARTITION_KEYS
    assert document["totals"]["missing"] == 1 and document["records_validated"] == 17
    assert document["checkpoints"]["partitions"][0]["ok"] is False
    assert document["latency"]["p50_ms"] is None and document["latency"]["p99_ms"] is None


def test_html_report_is_self_contained_with_an_svg_per_topic():
    page = html_report(failing_result())
    assert page.count("<svg") == 1 and "</svg>" in page
    assert "<script" not in page and "src=" not in page and "<link" not in page
    assert "orders&lt;&amp;&gt;" in page and "orders<&>" not in page  # names are escaped
    assert "partition 0 problems: 1" in page and "FAIL" in page


def test_partition_chart_is_well_formed_svg():
    svg = ElementTree.fromstring(partition_chart_svg(failing_result().topics[0]))
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    bars = svg.findall("{http://www.w3.org/2000/svg}rect")
    assert len(bars) == 5  # partition 0: source, target, problems; partition 1: no problem bar


def test_text_summary_lists_partitions_groups_and_verdict():
    summary = text_summary(failing_result())
    assert "orders<&>" in summary and "billing" in summary
    assert summary.strip().splitlines()[-1].startswith("verdict: FAIL")
    assert report_document(ValidationResult(inputs={}))["verdict"] == "PASS"


def replayed_result() -> ValidationResult:
    """300,000 records over two partitions; partition 0 holds two replays, partition 1 one."""
    twice = PartitionResult(partition=0, source_records=150_000, target_records=151_000, verified_by="records")
    twice.problems["duplicate"] = 1_000
    twice.duplicate_range = {"source_first": 100, "source_last": 9_000, "target_first": 150_000, "target_last": 150_999}
    twice.duplicate_replays = 2
    once = PartitionResult(partition=1, source_records=150_000, target_records=150_204, verified_by="records")
    once.problems["duplicate"] = 204
    once.duplicate_range = {"source_first": 40, "source_last": 243, "target_first": 150_000, "target_last": 150_203}
    once.duplicate_replays = 1
    result = ValidationResult(inputs={}, topics=[TopicResult("orders", "src.orders", partitions=[twice, once])])
    result.duplicate_budget = DuplicatePolicy().judge(result.duplicates, result.records_validated, result.duplicate_replays)
    return result


def test_reports_give_the_replays_and_the_allowance_per_replay():
    result = replayed_result()
    assert (result.duplicates, result.duplicate_replays) == (1_204, 2)
    line = (
        "delivery at-least-once: 1,204 duplicates in 2 replays (at most 30,000 per replay: "
        "10 % of the 300,000 records validated; 60,000 in all): within budget"
    )
    summary = text_summary(result).splitlines()
    assert line in summary
    header = next(i for i, row in enumerate(summary) if row.split()[:4] == ["topic", "part", "duplicates", "replays"])
    assert [row.split()[:4] for row in summary[header + 2:header + 4]] == [["orders", "0", "1000", "2"], ["orders", "1", "204", "1"]]
    budget = report_document(result)["duplicate_budget"]
    assert (budget["replays"], budget["allowed_per_replay"], budget["allowed_duplicates"]) == (2, 30_000, 60_000)
    assert [p["duplicate_replays"] for p in report_document(result)["topics"][0]["partitions"]] == [2, 1]
    page = html_report(result)
    assert line in page and "source 100-9000, target 150000-150999, 2 replays" in page
