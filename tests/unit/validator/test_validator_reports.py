"""JSON schema keys, the stdout table and the self-contained HTML page."""

from __future__ import annotations

import json
from xml.etree import ElementTree

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
