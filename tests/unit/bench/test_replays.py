"""The replays-per-crash part's arithmetic, order and report (pure; no lab)."""

from __future__ import annotations

from pathlib import Path

from bench import __main__ as bench_main
from bench import replays, report
from bench.replication import Settings


def test_the_role_default_is_measured_last_by_the_playbook_without_an_override() -> None:
    assert replays.measuring_order((10000, 2000, 1000), 2000) == [10000, 1000, None]
    assert replays.measuring_order((1000, 1000), 10000) == [1000, None]
    assert replays.measuring_order((), 10000) == [None]


def test_the_role_default_is_read_from_the_roles_defaults(tmp_path: Path) -> None:
    defaults = tmp_path / "main.yml"
    defaults.write_text("connect_worker_offset_flush_interval_ms: 2500\nother: 1\n", encoding="utf-8")
    assert replays.role_default_ms(defaults) == 2500
    assert replays.role_default_ms() > 0


def test_the_killed_share_counts_the_topics_partitions_of_the_tasks_on_the_killed_worker() -> None:
    task_configs = [{"id": {"connector": "c", "task": 0}, "config": {"task.assigned.partitions": "t-0,t-2,heartbeats-0"}},
                    {"id": {"connector": "c", "task": 1}, "config": {"task.assigned.partitions": "t-1"}}]
    partitions = replays.partitions_per_task(task_configs, "t")
    assert partitions == {0: 2, 1: 1}
    status = {"tasks": [{"id": 0, "worker_id": "task-1-2:8083"}, {"id": 1, "worker_id": "task-1-1:8083"}]}
    assert replays.killed_share(status, partitions, "task-1-2") == (2, 3)
    assert replays.killed_share(status, partitions, "task-1-1") == (1, 3)
    assert replays.killed_share(status, partitions, "task-1-9") == (0, 3)


def test_a_crash_replays_the_extra_copies_over_the_killed_tasks_share_of_the_rate() -> None:
    # 2,000 rec/s over 4 partitions, the killed tasks copied 2 of them: 1,000 rec/s; 1,500 copies = 1.5 s.
    assert replays.replayed_seconds(1500, 2000, [(2, 4)]) == 1.5
    # Three crashes, copying 1,000, 2,000 and 1,000 rec/s: 6,000 copies are 1.5 s per crash.
    assert replays.replayed_seconds(6000, 2000, [(2, 4), (4, 4), (2, 4)]) == 1.5
    assert replays.replayed_seconds(0, 2000, [(2, 4)]) == 0.0
    assert replays.replayed_seconds(1500, 2000, [(0, 4)]) is None
    assert replays.replayed_seconds(1500, 2000, []) is None
    assert replays.worker_host("task-1-1:8083") == "task-1-1"
    assert replays.worker_host("task-1-1") == "task-1-1"


def test_a_kill_waits_one_interval_and_a_random_part_of_another() -> None:
    assert replays.settle_seconds(2000, lambda low, high: low) == 2.0 + replays.KILL_MARGIN_S
    assert replays.settle_seconds(2000, lambda low, high: high) == 4.0 + replays.KILL_MARGIN_S
    draws = [replays.settle_seconds(10000) for _draw in range(20)]
    assert all(10.0 + replays.KILL_MARGIN_S <= draw <= 20.0 + replays.KILL_MARGIN_S for draw in draws)


def point(flush_ms: int, default: bool, rate: float, replayed: float) -> dict:
    return {"flush_ms": flush_ms, "role_default": default, "roll_s": 60.0, "extra_copies": int(replayed * 1000),
            "kills": [{"host": "task-1-2", "at_s": 22.5, "partitions": 2, "of": 4}] * 3,
            "replayed_s": replayed, "drain": {"records_per_s": rate, "mib_per_s": rate / 1024}}


def test_each_intervals_cost_is_its_drain_rate_to_the_fastest_and_the_goals_judge_the_default() -> None:
    figures = replays.with_costs({"rate": 2000, "points": [point(10000, False, 20000.0, 6.3), point(2000, True, 19500.0, 1.2)]})
    assert [entry["drain_ratio_to_best"] for entry in figures["points"]] == [1.0, 0.975]
    goals = report.replay_goals(figures)
    assert goals == {"replay_s_per_crash": {"value": 1.2, "goal": 2.0, "met": True},
                     "default_flush_drain_ratio": {"value": 0.975, "goal": 0.95, "met": True}}
    costly = replays.with_costs({"rate": 2000, "points": [point(10000, False, 20000.0, 6.3), point(1000, True, 18000.0, 2.5)]})
    assert {name: verdict["met"] for name, verdict in report.replay_goals(costly).items()} == {
        "replay_s_per_crash": False, "default_flush_drain_ratio": False}
    assert report.replay_goals({}) == {}


def test_the_table_has_a_row_per_interval_and_the_goals_compare_the_right_way() -> None:
    figures = replays.with_costs({"rate": 2000, "points": [point(10000, False, 20000.0, 6.3), point(2000, True, 19500.0, 1.2)]})
    results = {"settings": {"record_sizes": [1024]}, "replays": figures}
    results["goals"] = report.goals(results)
    table = report.render_table(results)
    assert "offset.flush.interval.ms=10000 " in table and "3 crashes replayed 6,300 copies: 6.3 s of the killed tasks' traffic per crash" in table
    assert "offset.flush.interval.ms=2000, the role's default" in table
    lines = [" ".join(line.split()) for line in table.splitlines()]
    assert "goal replay_s_per_crash <= 2 1.2: met" in lines
    assert "goal default_flush_drain_ratio >= 0.95 0.975: met" in lines


def test_the_settings_come_from_the_environment() -> None:
    base = Settings(run_id="1", records=5000, record_sizes=(1024,), latency_seconds=30)
    chosen = bench_main.replay_settings({"BENCH_REPLAY_FLUSH_MS": "5000, 500", "BENCH_REPLAY_RATE": "800",
                                         "BENCH_REPLAY_SECONDS": "30", "BENCH_REPLAY_KILLS": "2"}, base)
    assert (chosen.flush_values_ms, chosen.rate, chosen.seconds, chosen.drain_records, chosen.kills) == ((5000, 500), 800, 30, 5000, 2)
    defaults = bench_main.replay_settings({}, base)
    assert (defaults.flush_values_ms, defaults.seconds, defaults.kills) == ((10000, 2000, 1000), 150, 3)
