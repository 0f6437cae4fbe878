"""The benchmark's table, goal verdicts, JSON and chart series, from a results dict alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench import report


def rate(records_per_s: float, mib_per_s: float) -> dict[str, float]:
    return {"records_per_s": records_per_s, "mib_per_s": mib_per_s}


def run(compression: str, producers: float, consumers: float) -> dict[str, Any]:
    return {"compression": compression, "clients": 2, "producer_sum": rate(producers, producers / 1024),
            "consumer_sum": rate(consumers, consumers / 1024),
            "limited_by": "producers" if producers <= consumers else "consumers",
            "slower_side": rate(min(producers, consumers), min(producers, consumers) / 1024)}


def point(fraction: float, p99_ms: float, delivered_to_offered: float = 1.0, complete: bool = True) -> dict[str, Any]:
    return {"fraction": fraction, "offered_records_per_s": 10000 * fraction, "complete": complete,
            "sent_records_per_s": 10000 * fraction,
            "delivered_records_per_s": 10000 * fraction * delivered_to_offered, "delivered_to_offered": delivered_to_offered,
            "end_to_end": {"p50_ms": p99_ms / 4, "p99_ms": p99_ms, "max_ms": p99_ms * 2}}


def latency_curve() -> dict[str, Any]:
    return {"drain_records_per_s": 10000.0, "fractions": [0.1, 0.25, 0.5, 0.75, 0.9],
            "points": [point(0.1, 40.0), point(0.25, 90.0), point(0.5, 1200.0, 0.97), point(0.75, 9000.0, 0.8),
                       point(0.9, 14000.0, 0.7)],
            "knee_fraction": 0.25, "first_behind_fraction": 0.75}


PROFILE = {
    "cpu_us_per_record": {
        "task-1-1": {"jvm": 150.0, "garbage collection": 40.0, "JIT compiler": 10.0, "container": 160.0,
                     "connector task threads (consumer poll: fetch, TLS, decompression; send: compression)": 60.0},
        "dst-kafka-1": {"jvm": 50.0, "broker network threads and request handlers (TLS, log appends)": 45.0}},
    "total_cpu_us_per_record": 200.0, "cores_while_copying": 1.8}


def results() -> dict[str, Any]:
    raw = {"producer_target": rate(20000, 19.5), "consumer_source": rate(30000, 29.3), "clients": 2,
           "runs": [run("lz4", 24000, 50000), run("none", 30000, 48000)],
           "ceiling": {**rate(30000, 29.3), "compression": "none", "clients": 2, "limited_by": "producers"}}
    return {
        "settings": {"record_sizes": [1024, 100]},
        "raw": {"1024": raw},
        "mm2_defaults": {"1024": {**rate(9000, 8.8), "ratio_to_ceiling": 0.3, "profile": PROFILE},
                         "100": {**rate(50000, 4.8)}},
        "stock": {"1024": {**rate(3000, 2.9), "ratio_defaults_to_stock": 3.0}},
        "latency": latency_curve(),
        "scaling": {"partitions": 6, "tasks": {"1": rate(5000, 4.9), "2": rate(9000, 8.8)}},
        "validator": {"skipped": "the validation job is not installed"},
    }


def test_goals_take_the_worst_size_and_say_whether_they_are_met() -> None:
    verdicts = report.goals(results())
    assert verdicts["mm2_to_ceiling"] == {"value": 0.3, "goal": 0.8, "met": False}
    assert verdicts["defaults_to_stock"] == {"value": 3.0, "goal": 1.5, "met": True}
    # The worst p99 of the points up to 50 %; the 75 and 90 % points do not count.
    assert verdicts["p99_ms_up_to_half_load"] == {"value": 1200.0, "goal": 1000.0, "met": False}


def test_the_latency_goal_is_met_when_every_point_up_to_half_load_is_within_a_second() -> None:
    curve = latency_curve()
    curve["points"][2] = point(0.5, 800.0)
    assert report.goals({"latency": curve})["p99_ms_up_to_half_load"] == {"value": 800.0, "goal": 1000.0, "met": True}


def test_the_latency_goal_is_not_met_when_a_point_up_to_half_load_was_cut_short_or_missing() -> None:
    curve = latency_curve()
    curve["points"] = [point(0.1, 40.0), point(0.25, 300.0, 0.5, complete=False)]
    assert report.goals({"latency": curve})["p99_ms_up_to_half_load"] == {"value": 300.0, "goal": 1000.0, "met": False}
    curve["points"] = [point(0.1, 40.0)]
    assert not report.goals({"latency": curve})["p99_ms_up_to_half_load"]["met"]


def test_goals_of_parts_that_did_not_run_are_absent() -> None:
    assert report.goals({"settings": {"record_sizes": [1024]}}) == {}
    assert report.goals({"latency": {**latency_curve(), "points": []}}) == {}


def test_table_has_a_column_per_record_size_and_missing_cells_as_dashes() -> None:
    table = report.render_table({**results(), "goals": report.goals(results())})
    lines = table.splitlines()
    assert lines[0].split() == ["figure", "1024", "B", "records", "100", "B", "records"]
    mm2 = next(line for line in lines if line.startswith("MM2, collection defaults"))
    assert "9,000 rec/s 8.8 MiB/s" in mm2 and "50,000 rec/s 4.8 MiB/s" in mm2
    assert any(line.startswith("  defaults / stock") and "3.00" in line for line in lines)
    assert "MM2 defaults, tasks.max=2 (6 partitions)" in table
    assert "skipped: the validation job is not installed" in table
    assert "goal mm2_to_ceiling >= 0.8" in table and "0.3: NOT met" in table
    assert "goal p99_ms_up_to_half_load <= 1000" in table and "1200: NOT met" in table


def test_table_shows_the_ceiling_with_its_settings_and_every_concurrent_run() -> None:
    lines = report.render_table(results()).splitlines()
    ceiling = next(line for line in lines if line.startswith("raw ceiling"))
    assert "30,000 rec/s 29.3 MiB/s (2 producers + 2 consumers, compression none, producers slower)" in ceiling
    assert ceiling.rstrip().endswith("-")  # not measured for 100 B
    producers = next(line for line in lines if line.startswith("raw 2 producers + 2 consumers, lz4: producers (appends after warm-up)"))
    assert "24,000 rec/s" in producers
    consumers = next(line for line in lines if line.startswith("raw 2 producers + 2 consumers, none: consumers (sum after warm-up)"))
    assert "48,000 rec/s" in consumers
    assert any(line.startswith("  MM2 / raw ceiling") and "0.30" in line for line in lines)
    assert not any("min(raw alone)" in line or "concurrent_ceiling" in line for line in lines)


def test_table_shows_where_the_drains_cpu_went_per_container() -> None:
    lines = report.render_table(results()).splitlines()
    worker = next(line for line in lines if line.startswith("  MM2 CPU on task-1-1"))
    assert "150.0 µs/record (task threads 60.0, GC 40.0, JIT 10.0)" in worker
    assert worker.rstrip().endswith("-")  # no profile for 100 B
    broker = next(line for line in lines if line.startswith("  MM2 CPU on dst-kafka-1"))
    assert "50.0 µs/record (broker I/O 45.0)" in broker
    total = next(line for line in lines if line.startswith("  MM2 CPU, all containers"))
    assert "200.0 µs/record, 1.80 cores while copying" in total


def test_table_has_a_row_per_latency_point_and_the_knee() -> None:
    table = report.render_table(results())
    assert "latency at 10 % (1,000 rec/s offered)" in table
    assert "p50 10 ms, p99 40 ms, max 80 ms; sent 1,000, delivered 1,000 rec/s (x1.00)" in table
    assert "latency at 75 % (7,500 rec/s offered)" in table and "p99 9,000 ms" in table
    rows = {line[:line.index("  ")]: line[line.index("  "):].strip() for line in table.splitlines() if "  " in line}
    assert rows["latency knee: highest load with p99 <= 1 s"] == "25 % of 10,000 rec/s"
    assert rows["latency: first load delivered < 0.95 x offered"] == "75 %"


def test_a_cut_short_point_and_a_curve_without_knee_are_said_so() -> None:
    curve = {**latency_curve(), "points": [point(0.1, 2000.0, 0.5, complete=False)], "knee_fraction": None,
             "first_behind_fraction": 0.1}
    table = report.render_table({"settings": {"record_sizes": [1024]}, "latency": curve})
    assert "cut short: not all records arrived" in table
    assert "none: p99 above the limit at the lowest point" in table


def test_table_columns_line_up() -> None:
    header, rule, *_rows = report.format_table([["a", "bb"], ["ccc", "d"]], ["x", "y"]).splitlines()
    assert header == "x    y"
    assert rule == "---  --"


def test_chart_series_per_figure_and_size() -> None:
    series = report.chart_series(results())
    assert series["MM2 defaults"] == {"1024": 8.8, "100": 4.8}
    assert series["raw ceiling"] == {"1024": 29.3}
    assert "MM2 stock" in series


def test_chart_curve_is_offered_percent_against_p50_and_p99() -> None:
    curve = report.latency_curve_series(latency_curve())
    assert curve["offered_percent"] == [10.0, 25.0, 50.0, 75.0, 90.0]
    assert curve["p99_ms"] == [40.0, 90.0, 1200.0, 9000.0, 14000.0]
    assert curve["p50_ms"][0] == 10.0
    assert report.latency_curve_series(None) == {"offered_percent": [], "p50_ms": [], "p99_ms": []}


def test_the_chart_is_written(tmp_path: Path) -> None:
    path = tmp_path / "bench.png"
    report.write_chart(results(), path)
    assert path.stat().st_size > 0


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
