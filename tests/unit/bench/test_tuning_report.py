"""The tuning part in the table and among the parts a run measures, without a lab."""

from __future__ import annotations

import importlib
from typing import Any

from bench import report, tuning

bench_main = importlib.import_module("bench.__main__")


def figure(records_per_s: float) -> dict[str, Any]:
    return {"records_per_s": records_per_s, "mib_per_s": records_per_s / 1024}


def test_tuning_rows_follow_the_run_order_with_their_ratios() -> None:
    results = {"settings": {"record_sizes": [1024]},
               "tuning": {"record_size": 1024, "order": [tuning.DEFAULTS_FIRST, "zstd", tuning.DEFAULTS_LAST],
                          "figures": tuning.with_ratios({tuning.DEFAULTS_FIRST: figure(10240), "zstd": figure(5120),
                                                         tuning.DEFAULTS_LAST: figure(10240)})}}
    rows = report.tuning_rows(results["tuning"])
    assert [row[0] for row in rows] == ["MM2 tuning, defaults (first) (1024 B)", "MM2 tuning, zstd (1024 B)",
                                        "MM2 tuning, defaults (last) (1024 B)"]
    assert rows[1][1] == "5,120 rec/s 5.0 MiB/s, x0.50 of defaults"
    assert "MM2 tuning, zstd (1024 B)" in report.render_table(results)
    assert report.tuning_rows(None) == []


def test_tuning_runs_only_on_request() -> None:
    assert "tuning" not in bench_main.selected_parts({})
    assert bench_main.selected_parts({"BENCH_PARTS": "tuning,mm2"}) == ("mm2", "tuning")


def test_a_failed_variant_keeps_its_row_with_the_error() -> None:
    rows = report.tuning_rows({"record_size": 1024, "order": [tuning.DEFAULTS_FIRST, "zstd"],
                               "figures": tuning.with_ratios({tuning.DEFAULTS_FIRST: figure(10240)}),
                               "failures": {"zstd": "RuntimeError: a task failed"}})
    assert rows[1] == ["MM2 tuning, zstd (1024 B)", "failed: RuntimeError: a task failed"]


def test_a_variant_row_gives_its_latency_beside_its_drain() -> None:
    latency = {"end_to_end": {"p50_ms": 180.0, "p99_ms": 950.0, "max_ms": 1200.0}, "delivered_to_offered": 0.99}
    rows = report.tuning_rows({"record_size": 1024, "order": ["linger.ms 0"], "latency_load_records_per_s": 20000.0,
                               "figures": {"linger.ms 0": {**figure(8192), "ratio_to_defaults": 0.8, "latency": latency}}})
    assert rows[0][0] == "MM2 tuning, linger.ms 0 (1024 B, latency at 20,000 rec/s)"
    assert rows[0][1].endswith("x0.80 of defaults; latency p50 180 ms, p99 950 ms (delivered x0.99)")


def test_a_variant_whose_latency_failed_keeps_its_drain() -> None:
    rows = report.tuning_rows({"record_size": 1024, "order": ["linger.ms 0"], "failures": {"linger.ms 0": "Deadline: x"},
                               "figures": {"linger.ms 0": {**figure(8192), "ratio_to_defaults": 0.8}}})
    assert rows[0][1].endswith("x0.80 of defaults; latency failed: Deadline: x")


def test_the_tuning_load_is_half_the_drain_rate_unless_set() -> None:
    results = {"settings": {"record_sizes": [1024]}, "mm2_defaults": {"1024": figure(60000.0)}}
    assert bench_main.tuning_load({}, results) == 30000.0
    assert bench_main.tuning_load({"BENCH_TUNING_LOAD": "20000"}, results) == 20000.0
