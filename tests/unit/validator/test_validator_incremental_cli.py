"""Incremental mode through the command line: the option checks (no Spark) and one
end-to-end pair of increments over in-memory clusters (Spark)."""

from __future__ import annotations

import json

import pytest

from validator_helpers import BASE_TS_MS, record
from mm2_validator.cli import EXIT_PASS, EXIT_USAGE, main
from validator_fakes import InMemoryCluster

BASE = ["--source-bootstrap", "s:9092", "--target-bootstrap", "t:9092", "--source-alias", "src", "--target-alias", "dst",
        "--topics", "orders"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--incremental"], "--incremental needs --state PATH"),
        (["--state", "x.json"], "need --incremental"),
        (["--incremental", "--state", "x.json", "--from-offsets", "orders:0=1"], "do not apply"),
        (["--incremental", "--state", "x.json", "--state-memory", "-1"], "zero or more"),
        (["--metrics-file", "x.prom"], "need --incremental"),
    ],
)
def test_incremental_options_are_checked_before_spark_starts(capsys, extra, message):
    def no_spark(*_):
        raise AssertionError("Spark started")

    assert main(BASE + extra, spark_factory=no_spark) == EXIT_USAGE
    assert message in capsys.readouterr().err


def orders(first, count):
    return [record(key=f"k{i % 3}".encode(), value=f"v{i}".encode(), ts_ms=BASE_TS_MS + i) for i in range(first, first + count)]


def test_two_increments_then_a_foreign_flow_refused(spark, tmp_path, capsys):
    source = InMemoryCluster("source", spark, {"orders": orders(0, 4)})
    target = InMemoryCluster("target", spark, {"src.orders": orders(0, 3)})  # offset 3 in flight
    state = tmp_path / "state.json"
    report = tmp_path / "report.json"
    metrics = tmp_path / "src-dst.prom"

    def run(*extra):
        argv = BASE + ["--incremental", "--state", str(state), "--report-json", str(report), "--metrics-file", str(metrics), *extra]
        return main(argv, spark_factory=lambda *_: spark, cluster_factory=lambda _s, access: {"source": source, "target": target}[access.name])

    assert run() == EXIT_PASS
    first = json.loads(report.read_text())
    part = first["incremental"]["topics"][0]["partitions"][0]
    assert (part["records_judged"], part["carried_source"], part["proven"]) == (3, 1, 3)
    assert json.loads(state.read_text())["topics"]["orders"]["partitions"]["0"]["proven"] == 3
    text = metrics.read_text()
    assert 'kafka_dr_verification_proven_offset{flow="src-dst",topic="orders",partition="0"} 3' in text
    assert 'kafka_dr_verification_source_end_offset{flow="src-dst",topic="orders",partition="0"} 4' in text
    assert 'kafka_dr_verification_last_records_verified{flow="src-dst"} 3' in text

    source.add("orders", orders(4, 2))
    target.add("src.orders", orders(3, 1) + orders(1, 1) + orders(4, 2))  # 1 replayed across the boundary
    # At-least-once: the replay is a warning of the increment, which passes; the alert keeps its budget.
    assert run() == EXIT_PASS
    second = json.loads(report.read_text())
    assert second["verdict"] == "PASS"
    assert ("warning", "duplicate") in [(f["severity"], f["code"]) for f in second["findings"]]
    assert [(f["kind"], f["source_offset"], f["target_offset"]) for f in second["incremental"]["findings"]] == [
        ("duplicate", 1, 4)
    ]
    assert second["incremental"]["topics"][0]["cumulative"]["records_judged"] == 6
    assert 'findings_total{flow="src-dst",topic="orders",partition="0",kind="duplicate"} 1' in metrics.read_text()
    printed = capsys.readouterr().out
    assert "increment 2 of state" in printed
    # No batch budget line for an increment: its count, and where its budget is kept.
    assert "duplicates: 1 in this increment (no budget per increment" in printed and "delivery at-least-once" not in printed

    argv = ["--source-bootstrap", "s:9092", "--target-bootstrap", "t:9092", "--source-alias", "other", "--target-alias",
            "dst", "--topics", "orders", "--incremental", "--state", str(state)]
    assert main(argv, spark_factory=lambda *_: spark, cluster_factory=lambda _s, access: {"source": source, "target": target}[access.name]) == EXIT_USAGE
    assert "belongs to flow src -> dst" in capsys.readouterr().err


def test_an_increments_duplicate_is_a_warning_under_at_least_once_only():
    from types import SimpleNamespace

    from mm2_validator.delivery import AT_LEAST_ONCE, EXACTLY_ONCE, DuplicatePolicy
    from mm2_validator.incremental_job import increment_severity

    at_least_once = SimpleNamespace(duplicate_policy=DuplicatePolicy(delivery=AT_LEAST_ONCE))
    exactly_once = SimpleNamespace(duplicate_policy=DuplicatePolicy(delivery=EXACTLY_ONCE))
    assert increment_severity("duplicate", at_least_once) == "warning"
    assert increment_severity("duplicate", exactly_once) == "error"
    assert increment_severity("missing", at_least_once) == "error"
