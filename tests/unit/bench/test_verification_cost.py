"""The continuous verification benchmark's lag from the samples it takes (pure; no lab)."""

from __future__ import annotations

from bench import report
from bench.verification_cost import Moment, lags


def moment(at: float, source: int, target: int, proven: int) -> Moment:
    return Moment(at, {0: source}, {0: target}, {0: proven})


def test_the_lag_runs_from_the_target_holding_a_samples_records_to_their_proof() -> None:
    moments = [moment(0, 10, 10, 0), moment(2, 20, 12, 0), moment(4, 30, 20, 10), moment(6, 40, 30, 30), moment(8, 40, 40, 40)]
    # Sample at 0 (10 records): on the target at 0, proven at 4. At 2 (20): target 4, proven 6.
    # At 4 (30): target 6, proven 6. At 6 (40): target 8, proven 8. At 8: target 8, proven 8.
    assert lags(moments, 0) == [4, 2, 0, 0, 0]


def test_samples_before_the_settling_time_and_never_proven_are_left_out() -> None:
    moments = [moment(0, 10, 10, 0), moment(5, 20, 20, 10), moment(10, 30, 30, 20)]
    # The last sample's 30 records are never proven; the first is before the settling time.
    assert lags(moments, 5) == [5]
    assert lags(moments, 0) == [5, 5]
    assert lags([], 0) == []


def test_every_partition_must_reach_the_samples_end() -> None:
    first = Moment(0, {0: 5, 1: 5}, {0: 5, 1: 5}, {0: 5, 1: 0})
    later = Moment(3, {0: 5, 1: 5}, {0: 5, 1: 5}, {0: 5, 1: 5})
    assert lags([first, later], 0) == [3, 0]


VERIFICATION = {"backlog_records": 100000, "backlog_increment_s": 40.0, "increment_records_per_s": 2500.0,
                "consumer_source_per_s": 50000.0, "consumer_target_per_s": 50000.0, "plain_pairs_per_s": 25000.0,
                "ratio": 0.1, "interval_s": 60.0, "steady_rate": 500, "steady_seconds": 180, "window_s": 200.0,
                "lag_samples": 80, "lag_p50_s": 40.0, "lag_p99_s": 75.0, "lag_max_s": 78.0, "cpu_seconds": 50.0,
                "cpu_cores": 0.25, "increments": 4, "idle_increment_s": 9.0, "idle_increment_cpu_s": 8.0,
                "idle_increment_records": 0, "ratio_after_start_up": 0.13, "failed_increments": 0, "last_increment_s": 20.0}


def test_the_goals_judge_the_ratio_and_the_lag() -> None:
    goals = report.goals({"verification": VERIFICATION})
    assert goals["verification_to_consumer"] == {"value": 0.1, "goal": 0.5, "met": False}
    assert goals["verification_lag_p99_s"] == {"value": 75.0, "goal": 60.0, "met": False}


def test_the_table_shows_the_throughput_the_lag_and_the_cpu() -> None:
    rows = report.verification_rows(VERIFICATION)
    text = "\n".join(" | ".join(row) for row in rows)
    assert "2,500 over a 100,000-record backlog in 40 s" in text and "ratio 0.10" in text
    assert "p50 40 s, p99 75 s, max 78 s" in text and "interval 60 s" in text
    assert "0.25 cores (50 CPU s in 200 s)" in text
    assert "9 s, 8 CPU s (backlog ratio without it 0.13)" in text
    assert report.verification_rows({"skipped": "no job"}) == [["continuous verification", "skipped: no job"]]
