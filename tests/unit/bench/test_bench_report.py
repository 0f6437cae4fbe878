"""The benchmark's table, goal verdicts, JSON and chart series, from a results dict alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench import report


def rate(records_per_s: float, mib_per_s: float) -> dict[str, float]:
    return {"records_per_s": records_per_s, "mib_per_s": mib_per_s}


def results() -> dict[str, Any]:
    raw = {"producer_target": rate(20000, 19.5), "consumer_source": rate(30000, 29.3),
           "concurrent_producer": rate(12000, 11.7), "concurrent_consumer": rate(25000, 24.4),
           "separate_min": rate(20000, 19.5), "concurrent_ceiling": rate(12000, 11.7)}
    return {
        "settings": {"record_sizes": [1024, 100]},
        "raw": {"1024": raw},
        "mm2_defaults": {"1024": {**rate(9000, 8.8), "ratio_to_concurrent": 0.75, "ratio_to_separate_min": 0.45},
                         "100": {**rate(50000, 4.8)}},
        "stock": {"1024": {**rate(3000, 2.9), "ratio_defaults_to_stock": 3.0}},
        "latency": {"rate_records_per_s": 4500.0, "end_to_end": {"p50_ms": 80.0, "p99_ms": 1200.0, "max_ms": 1500.0},
                    "to_target_log": {"p50_ms": 60.0, "p99_ms": 900.0, "max_ms": 1000.0}},
        "scaling": {"partitions": 6, "tasks": {"1": rate(5000, 4.9), "2": rate(9000, 8.8)}},
        "validator": {"skipped": "the validation job is not installed"},
    }


def test_goals_take_the_worst_size_and_say_whether_they_are_met() -> None:
    verdicts = report.goals(results())
    assert verdicts["mm2_to_raw"] == {"value": 0.75, "goal": 0.8, "met": False}
    assert verdicts["defaults_to_stock"] == {"value": 3.0, "goal": 1.5, "met": True}
    assert verdicts["p99_ms_at_half_load"] == {"value": 1200.0, "goal": 1000.0, "met": False}


def test_goals_of_parts_that_did_not_run_are_absent() -> None:
    assert report.goals({"settings": {"record_sizes": [1024]}}) == {}


def test_table_has_a_column_per_record_size_and_missing_cells_as_dashes() -> None:
    table = report.render_table({**results(), "goals": report.goals(results())})
    lines = table.splitlines()
    assert lines[0].split() == ["figure", "1024", "B", "records", "100", "B", "records"]
    mm2 = next(line for line in lines if line.startswith("MM2, collection defaults"))
    assert "9,000 rec/s 8.8 MiB/s" in mm2 and "50,000 rec/s 4.8 MiB/s" in mm2
    ceiling = next(line for line in lines if line.startswith("raw ceiling"))
    assert ceiling.rstrip().endswith("-")
    assert any(line.startswith("  defaults / stock") and "3.00" in line for line in lines)
    assert "p50 80 ms, p99 1200 ms, max 1500 ms" in table
    assert "MM2 defaults, tasks.max=2 (6 partitions)" in table
    assert "skipped: the validation job is not installed" in table
    assert "goal mm2_to_raw >= 0.8" in table and "0.75: NOT met" in table


def test_table_columns_line_up() -> None:
    header, rule, *_rows = report.format_table([["a", "bb"], ["ccc", "d"]], ["x", "y"]).splitlines()
    assert header == "x    y"
    assert rule == "---  --"


def test_chart_series_per_figure_and_size() -> None:
    series = report.chart_series(results())
    assert series["MM2 defaults"] == {"1024": 8.8, "100": 4.8}
    assert series["raw ceiling (concurrent)"] == {"1024": 11.7}
    assert "MM2 stock" in series


def test_json_is_written_sorted_and_whole(tmp_path: Path) -> None:
    path = tmp_path / "bench" / "bench.json"
    report.write_json(results(), path)
    assert json.loads(path.read_text()) == results()


def validator_results() -> dict[str, Any]:
    scale_local = {"records_1x": 1000, "records_4x": 4000, "seconds_1x": 10.0, "seconds_4x": 30.0, "time_ratio_4x": 3.0}
    scale_cluster = {**scale_local, "seconds_4x": 46.0, "time_ratio_4x": 4.6}
    return {"settings": {"record_sizes": [1024]},
            "validator": {"records_per_s": 900.0, "plain_pairs_per_s": 1500.0, "ratio": 0.6, "scale": scale_local,
                          "cluster": {"records_per_s": 700.0, "verdict": "PASS", "scale": scale_cluster}}}


def test_validator_goals_take_its_consumer_ratio_and_the_worst_growth_at_4x() -> None:
    verdicts = report.goals(validator_results())
    assert verdicts["validator_to_consumer"] == {"value": 0.6, "goal": 0.5, "met": True}
    assert verdicts["validator_4x_time"] == {"value": 4.6, "goal": 4.4, "met": False}


def test_table_shows_the_validator_in_process_and_on_the_cluster() -> None:
    results = validator_results()
    table = report.render_table({**results, "goals": report.goals(results)})
    assert "validator in-process (local[2]), 1x -> 4x" in table and "x3.00" in table
    assert "validator on the Spark standalone cluster, records/s  700" in table
    assert "goal validator_4x_time <= 4.4" in table and "4.6: NOT met" in table


def test_a_cluster_that_did_not_start_is_reported_as_skipped() -> None:
    results = validator_results()
    results["validator"]["cluster"] = {"skipped": "the cluster did not start"}
    assert "skipped: the cluster did not start" in report.render_table(results)
    assert report.goals(results)["validator_4x_time"]["value"] == 3.0
