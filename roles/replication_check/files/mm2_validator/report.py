"""Reports: the versioned JSON document, the stdout summary and the HTML page."""

from __future__ import annotations

import json
from dataclasses import asdict
from html import escape
from pathlib import Path
from typing import Any, Optional

from mm2_validator import REPORT_SCHEMA_VERSION, __version__
from mm2_validator.delivery import describe_budget
from mm2_validator.model import PROBLEM_KINDS, Finding, PartitionResult, TopicResult, ValidationResult

_SHORT_KIND = {
    "missing": "missing",
    "duplicate": "dup",
    "unexpected": "unexp",
    "content_mismatch": "mismatch",
    "order_violation": "order",
    "timestamp_type_change": "ts-type",
}


def _topic_totals(topic: TopicResult) -> dict[str, int]:
    totals = {
        "partitions": len(topic.partitions),
        "source_records": sum(p.source_records for p in topic.partitions),
        "source_tail_records": sum(p.source_tail_records for p in topic.partitions),
        "target_records": sum(p.target_records for p in topic.partitions),
    }
    totals.update(topic.totals())
    return totals


def report_document(result: ValidationResult) -> dict[str, Any]:
    """The JSON report (schema_version 1). Inputs carry no secret values."""
    topics = []
    overall: dict[str, int] = {}
    for topic in result.topics:
        totals = _topic_totals(topic)
        for key, value in totals.items():
            overall[key] = overall.get(key, 0) + value
        topics.append(
            {
                "source_topic": topic.source_topic,
                "target_topic": topic.target_topic,
                "target_topic_exists": topic.target_topic_exists,
                "totals": totals,
                "partitions": [asdict(p) for p in topic.partitions],
            }
        )
    document = {
        "schema_version": REPORT_SCHEMA_VERSION,
        "generator": {"name": "mm2_validator", "version": __version__},
        "verdict": result.verdict,
        "started_at": result.started_at,
        "elapsed_s": result.elapsed_s,
        "records_validated": result.records_validated,
        "caught_up": result.caught_up,
        "inputs": result.inputs,
        "totals": overall,
        "topics": topics,
        "checkpoints": {
            "groups": [asdict(g) for g in result.groups],
            "partitions": [dict(asdict(c), ok=c.ok) for c in result.checkpoints],
        },
        "offset_syncs": asdict(result.offset_syncs),
        "latency": asdict(result.latency),
        "findings": [f.as_dict() for f in result.findings],
        "duplicate_budget": asdict(result.duplicate_budget),
    }
    if result.incremental is not None:
        document["incremental"] = result.incremental
    return document


def write_json(result: ValidationResult, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(report_document(result), indent=2, sort_keys=False, default=str) + "\n", encoding="utf-8"
    )


# -- stdout summary ---------------------------------------------------------------------


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            str(cell).rjust(width) if i else str(cell).ljust(width)
            for i, (cell, width) in enumerate(zip(cells, widths))
        )

    return [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]


def _where(finding: Finding) -> str:
    parts = []
    if finding.topic:
        parts.append(f"topic={finding.topic}")
    if finding.partition is not None:
        parts.append(f"partition={finding.partition}")
    if finding.group:
        parts.append(f"group={finding.group}")
    return (" " + " ".join(parts)) if parts else ""


def window_text(inputs: dict[str, Any]) -> Optional[str]:
    """The window as given, or None when the run judged every record."""
    window = inputs.get("window") or {}
    if window.get("from_timestamp"):
        return f"window: records with timestamps from {window['from_timestamp']} ({window['from_timestamp_ms']} ms)"
    offsets = window.get("from_offsets") or {}
    if offsets:
        named = ",".join(f"{t}:{p}={o}" for t, parts in offsets.items() for p, o in parts.items())
        return f"window: from source offsets {named} (other partitions whole)"
    return None


def duplicate_range_text(partition: PartitionResult) -> str:
    where = partition.duplicate_range
    if not where:
        return ""
    replays = partition.duplicate_replays
    return (
        f"source {where['source_first']}-{where['source_last']}, "
        f"target {where['target_first']}-{where['target_last']}, "
        f"{replays} replay{'' if replays == 1 else 's'}"
    )


def increment_lines(increment: Optional[dict[str, Any]]) -> list[str]:
    """Incremental mode: what this run judged and carried, and the state's totals."""
    if not increment:
        return []
    lines = [f"increment {increment['run']} of state {increment['state']}"]
    for topic in increment["topics"]:
        counts, cumulative = topic["counts"], topic["cumulative"]
        carried = sum(p["carried_source"] for p in topic["partitions"])
        problems = ", ".join(f"{kind} {cumulative.get(kind, 0)}" for kind in PROBLEM_KINDS if cumulative.get(kind))
        lines.append(
            f"  {topic['source_topic']}: {counts['records_judged']} record(s) judged, {carried} carried to the next run; "
            f"since the state began {cumulative.get('records_judged', 0)} judged" + (f", {problems}" if problems else "")
        )
        for note in topic["notes"]:
            lines.append(f"  {note['severity'].upper()}: {note['code']}: {note['message']}")
    for finding in increment["findings"][:20]:
        lines.append(
            f"  {finding['kind']} {finding['topic']}:{finding['partition']} source offset {finding['source_offset']}"
            f" target offset {finding['target_offset']}" + (f": {finding['detail']}" if finding.get("detail") else "")
        )
    if len(increment["findings"]) > 20:
        lines.append(f"  ... {len(increment['findings']) - 20} more finding(s) in the JSON report")
    return lines


def budget_line(result: ValidationResult) -> str:
    """The run's duplicate budget; an increment has none (a replay's copies often arrive in a later
    increment than their records), so it gives its count and where the budget is kept."""
    if result.incremental is not None:
        return (f"duplicates: {result.duplicates:,} in this increment (no budget per increment: the alert "
                "MM2VerificationDuplicatesOverBudget weighs them over an hour)")
    return describe_budget(result.duplicate_budget)


def text_summary(result: ValidationResult) -> str:
    lines: list[str] = []
    header = ["topic", "part", "source", "target"] + [_SHORT_KIND[k] for k in PROBLEM_KINDS] + ["checked by"]
    rows = []
    for topic in result.topics:
        for p in topic.partitions:
            rows.append(
                [topic.source_topic, str(p.partition), str(p.source_records), str(p.target_records)]
                + [str(p.problems.get(k, 0)) for k in PROBLEM_KINDS]
                + [p.verified_by]
            )
    lines += _table(header, rows) if rows else ["(no topics compared)"]
    duplicated = [(t.source_topic, p) for t in result.topics for p in t.partitions if p.duplicate_range]
    if duplicated:
        lines.append("")
        lines += _table(
            ["topic", "part", "duplicates", "replays", "copies of source offsets", "at target offsets"],
            [
                [
                    topic,
                    str(p.partition),
                    str(p.problems.get("duplicate", 0)),
                    str(p.duplicate_replays),
                    f"{p.duplicate_range['source_first']}-{p.duplicate_range['source_last']}",
                    f"{p.duplicate_range['target_first']}-{p.duplicate_range['target_last']}",
                ]
                for topic, p in duplicated
                if p.duplicate_range
            ],
        )
    if result.groups:
        lines.append("")
        lines += _table(
            ["group", "partitions", "unsafe", "skipped on failover", "re-read on failover"],
            [
                [g.group, str(g.partitions), str(g.unsafe_partitions), str(g.skipped_records), str(g.reread_records)]
                for g in result.groups
            ],
        )
    latency = result.latency
    lines.append("")
    if latency.p50_ms is not None:
        lines.append(
            f"latency ({latency.samples} heartbeats): p50 {latency.p50_ms:.0f} ms, p99 {latency.p99_ms:.0f} ms"
        )
    else:
        lines.append(f"latency: n/a ({latency.note})" if latency.note else "latency: n/a")
    window = window_text(result.inputs)
    if window:
        lines.append(window)
    lines.append(budget_line(result))
    lines += increment_lines(result.incremental)
    errors = [f for f in result.findings if f.severity == "error"]
    warnings = [f for f in result.findings if f.severity == "warning"]
    for finding in errors + warnings:
        lines.append(f"{finding.severity.upper()}: {finding.code}{_where(finding)}: {finding.message}")
    lines.append(
        f"verdict: {result.verdict} ({result.records_validated} source records validated, "
        f"{len(errors)} error(s), {len(warnings)} warning(s), {result.elapsed_s:.1f} s)"
    )
    return "\n".join(lines)


# -- HTML -------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2rem;color:#1d2329;max-width:1200px}
h1{margin-bottom:.2rem} h2{margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.3rem}
.verdict{display:inline-block;padding:.2rem .8rem;border-radius:.3rem;color:#fff;font-weight:600}
.PASS{background:#1a7f37} .FAIL{background:#cf222e}
table{border-collapse:collapse;margin:.6rem 0;font-size:.9rem}
th,td{border:1px solid #d0d7de;padding:.25rem .55rem;text-align:right} th{background:#f6f8fa}
td:first-child,th:first-child{text-align:left}
td.bad{background:#ffebe9;color:#82071e;font-weight:600}
.chart{overflow-x:auto} .muted{color:#57606a} code{background:#f6f8fa;padding:0 .2rem}
.legend span{display:inline-block;width:.8rem;height:.8rem;margin:0 .3rem 0 1rem;vertical-align:middle}
li.error{color:#82071e} li.warning{color:#7d4e00}
"""

_SOURCE_COLOUR = "#0969da"
_TARGET_COLOUR = "#2da44e"
_PROBLEM_COLOUR = "#cf222e"


def partition_chart_svg(topic: TopicResult) -> str:
    """Bar chart: per partition, source records, target records and problems."""
    bar_width, gap, group_gap, height, top, bottom = 12, 2, 18, 160, 18, 22
    partitions = topic.partitions
    scale_max = max([max(p.source_records + p.source_tail_records, p.target_records) for p in partitions] + [1])
    group_width = 3 * bar_width + 2 * gap
    width = max(len(partitions) * (group_width + group_gap) + group_gap, 200)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + top + bottom}" '
        f'role="img" aria-label="records per partition of {escape(topic.source_topic)}">'
    ]
    baseline = top + height
    parts.append(f'<line x1="0" y1="{baseline}" x2="{width}" y2="{baseline}" stroke="#8c959f"/>')
    for index, p in enumerate(partitions):
        x = group_gap + index * (group_width + group_gap)
        problems = p.problem_total()
        values = [
            (p.source_records + p.source_tail_records, _SOURCE_COLOUR, "source"),
            (p.target_records, _TARGET_COLOUR, "target"),
            (problems, _PROBLEM_COLOUR, "problems"),
        ]
        for offset, (value, colour, label) in enumerate(values):
            if value == 0:
                continue
            bar_height = max(2.0, height * value / scale_max)  # small counts stay visible
            bar_x = x + offset * (bar_width + gap)
            parts.append(
                f'<rect x="{bar_x}" y="{baseline - bar_height:.1f}" width="{bar_width}" height="{bar_height:.1f}" fill="{colour}">'
                f"<title>partition {p.partition} {label}: {value}</title></rect>"
            )
        if problems:
            parts.append(
                f'<text x="{x + 2 * (bar_width + gap) + bar_width / 2}" y="{top - 4}" font-size="10" text-anchor="middle" '
                f'fill="{_PROBLEM_COLOUR}">{problems}</text>'
            )
        parts.append(
            f'<text x="{x + group_width / 2}" y="{baseline + 15}" font-size="11" text-anchor="middle">p{p.partition}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _cell(value: Any, bad: bool = False) -> str:
    return f'<td class="bad">{escape(str(value))}</td>' if bad else f"<td>{escape(str(value))}</td>"


def _window_cell(partition: PartitionResult) -> str:
    parts = []
    if partition.window_source_offset is not None:
        parts.append(f"source {partition.window_source_offset}")
    if partition.window_target_offset is not None:
        parts.append(f"target {partition.window_target_offset}")
    if partition.source_records_before_window:
        parts.append(f"{partition.source_records_before_window} earlier records not judged")
    return ", ".join(parts)


def _topic_section(topic: TopicResult) -> str:
    rows = []
    for p in topic.partitions:
        cells = [_cell(p.partition), _cell(p.source_records), _cell(p.source_tail_records), _cell(p.target_records)]
        cells += [_cell(p.problems.get(k, 0), bad=p.problems.get(k, 0) > 0) for k in PROBLEM_KINDS]
        cells += [
            _cell(f"{p.source_start_offset}–{p.source_snapshot_offset}"),
            _cell(f"{p.target_start_offset}–{p.target_end_offset}"),
            _cell(duplicate_range_text(p)),
            _cell(_window_cell(p)),
            _cell(p.verified_by),
        ]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    head = ["partition", "source", "source tail", "target"] + [_SHORT_KIND[k] for k in PROBLEM_KINDS]
    head += ["source offsets", "target offsets", "duplicated offsets", "window from", "checked by"]
    examples = [(p.partition, e) for p in topic.partitions for e in p.examples]
    example_html = ""
    if examples:
        example_rows = "".join(
            "<tr>"
            + "".join(
                _cell(v if v is not None else "")
                for v in (part, e["kind"], e["source_offset"], e["target_offset"], e["key"], e["detail"])
            )
            + "</tr>"
            for part, e in examples
        )
        example_html = (
            "<h3>Examples</h3><table><tr><th>partition</th><th>kind</th><th>source offset</th><th>target offset</th>"
            f"<th>key (hex prefix)</th><th>detail</th></tr>{example_rows}</table>"
        )
    missing_note = "" if topic.target_topic_exists else '<p class="muted">The target topic does not exist.</p>'
    return (
        f"<h2>{escape(topic.source_topic)} → {escape(topic.target_topic)}</h2>{missing_note}"
        f'<div class="chart">{partition_chart_svg(topic)}</div>'
        f'<div class="legend muted"><span style="background:{_SOURCE_COLOUR}"></span>source records'
        f'<span style="background:{_TARGET_COLOUR}"></span>target records'
        f'<span style="background:{_PROBLEM_COLOUR}"></span>problems</div>'
        "<table><tr>"
        + "".join(f"<th>{escape(h)}</th>" for h in head)
        + "</tr>"
        + "".join(rows)
        + "</table>"
        + example_html
    )


def _checkpoint_section(result: ValidationResult) -> str:
    if not result.checkpoints:
        return '<h2>Checkpoints</h2><p class="muted">No checkpoints for the selected groups.</p>'
    group_rows = "".join(
        "<tr>"
        + _cell(g.group)
        + _cell(g.partitions)
        + _cell(g.unsafe_partitions, g.unsafe_partitions > 0)
        + _cell(g.skipped_records, g.skipped_records > 0)
        + _cell(g.reread_records)
        + "</tr>"
        for g in result.groups
    )
    detail_rows = "".join(
        "<tr>"
        + _cell(c.group)
        + _cell(c.topic)
        + _cell(c.partition)
        + _cell(c.upstream_offset)
        + _cell(c.downstream_offset)
        + _cell("n/a" if c.safe is None else ("yes" if c.safe else "NO"), c.safe is False)
        + _cell("n/a" if c.within_log is None else ("yes" if c.within_log else "NO"), c.within_log is False)
        + _cell("yes" if c.monotonic else "NO", not c.monotonic)
        + _cell(c.reread_records)
        + _cell(c.note)
        + "</tr>"
        for c in result.checkpoints
    )
    return (
        "<h2>Checkpoints</h2><table><tr><th>group</th><th>partitions</th><th>unsafe</th><th>skipped on failover</th>"
        f"<th>re-read on failover</th></tr>{group_rows}</table>"
        "<table><tr><th>group</th><th>topic</th><th>partition</th><th>upstream</th><th>downstream</th><th>safe</th>"
        f"<th>in log</th><th>monotonic</th><th>re-read</th><th>note</th></tr>{detail_rows}</table>"
    )


def html_report(result: ValidationResult) -> str:
    document = report_document(result)
    totals = document["totals"]
    latency = result.latency
    latency_text = (
        f"p50 {latency.p50_ms:.0f} ms, p99 {latency.p99_ms:.0f} ms over {latency.samples} heartbeats"
        if latency.p50_ms is not None
        else f"not measured: {latency.note}" if latency.note else "not measured"
    )
    if latency.heartbeat_age_ms is not None:
        latency_text += f"; newest replicated heartbeat {latency.heartbeat_age_ms} ms old"
    findings = "".join(
        f'<li class="{escape(f.severity)}"><b>{escape(f.code)}</b> '
        + escape(
            " ".join(
                str(x)
                for x in (f.topic or "", "" if f.partition is None else f"partition {f.partition}", f.group or "")
                if x
            )
        )
        + f": {escape(f.message)}</li>"
        for f in result.findings
    )
    inputs = result.inputs
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        "<title>MM2 replication report</title>"
        f"<style>{_CSS}</style></head><body>"
        f'<h1>MM2 replication report <span class="verdict {result.verdict}">{result.verdict}</span></h1>'
        f'<p class="muted">{escape(str(inputs.get("source_alias")))} → {escape(str(inputs.get("target_alias")))}, '
        f"{escape(str(inputs.get('replication_policy')))} policy · started {escape(result.started_at)} · "
        f"{result.elapsed_s:.1f} s · schema {REPORT_SCHEMA_VERSION}</p>"
        "<table><tr><th>source records validated</th><th>target records</th><th>source tail</th>"
        + "".join(f"<th>{_SHORT_KIND[k]}</th>" for k in PROBLEM_KINDS)
        + "</tr><tr>"
        + _cell(totals.get("source_records", 0))
        + _cell(totals.get("target_records", 0))
        + _cell(totals.get("source_tail_records", 0))
        + "".join(_cell(totals.get(k, 0), totals.get(k, 0) > 0) for k in PROBLEM_KINDS)
        + "</tr></table>"
        + f"<p>Latency: {escape(latency_text)}</p>"
        + f"<p>Duplicates: {escape(budget_line(result))}</p>"
        + (f"<p>{escape(window_text(inputs) or '')}</p>" if window_text(inputs) else "")
        + (f"<h2>Findings</h2><ul>{findings}</ul>" if findings else "<h2>Findings</h2><p>None.</p>")
        + "".join(_topic_section(t) for t in result.topics)
        + _checkpoint_section(result)
        + "</body></html>\n"
    )


def write_html(result: ValidationResult, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html_report(result), encoding="utf-8")


def write_reports(result: ValidationResult, json_path: Optional[Path], html_path: Optional[Path]) -> None:
    if json_path:
        write_json(result, json_path)
    if html_path:
        write_html(result, html_path)
