"""Where the CPU goes: thread groups, the samplers' output, and CPU per record."""

from __future__ import annotations

import subprocess

import pytest

from bench import profile


def test_threads_are_grouped_by_what_their_names_say_they_do() -> None:
    assert profile.thread_group("task-thread-ben").startswith("connector task threads")
    assert profile.thread_group("kafka-producer-").startswith("producer network threads")
    assert profile.thread_group("data-plane-kafk").startswith("broker network threads")
    assert {profile.thread_group(name) for name in ("GC Thread#0", "G1 Conc#0", "G1 Refine#1")} == {"garbage collection"}
    assert {profile.thread_group(name) for name in ("C2 CompilerThre", "C1 CompilerThre")} == {"JIT compiler"}
    assert profile.thread_group("DistributedHerd") == profile.OTHER


def test_a_sample_sums_the_ticks_of_each_group() -> None:
    output = "thread\t300\tGC Thread#0\nthread\t100\tG1 Conc#0\nthread\t50\ttask-thread-mm2\nnoise\n"
    sample = profile.parse_sample(output, 7_000_000)
    assert sample.cgroup_usec == 7_000_000
    assert sample.group_ticks == {"garbage collection": 400, profile.thread_group("task-thread-mm2"): 50}


def test_cpu_between_samples_counts_new_groups_from_zero() -> None:
    before = profile.Sample(1_000_000, {"garbage collection": 100})
    after = profile.Sample(4_500_000, {"garbage collection": 250, "other": 50})
    used = profile.cpu_seconds_between(before, after)
    # Ticks are hundredths of a second; the cgroup counts microseconds.
    assert used == {"container": 3.5, "garbage collection": 1.5, "other": 0.5, "jvm": 2.0}


def test_cpu_per_record_in_microseconds() -> None:
    used = {"task-1-1": {"container": 3.5, "jvm": 2.0}}
    assert profile.per_record_us(used, 100_000) == {"task-1-1": {"container": 35.0, "jvm": 20.0}}
    with pytest.raises(ValueError):
        profile.per_record_us(used, 0)


@pytest.mark.parametrize(("text", "scale", "usec"), [
    ("123456789000\n", 1e-3, 123456789),  # cgroup v1 cpuacct.usage, nanoseconds
    ("usage_usec 4200\nuser_usec 4000\nsystem_usec 200\n", 1.0, 4200),  # cgroup v2 cpu.stat
])
def test_cgroup_cpu_time_of_either_cgroup_version(text: str, scale: float, usec: int) -> None:
    assert profile.parse_cgroup_usec(text, scale) == usec


def test_a_cgroup_file_without_cpu_time_is_an_error() -> None:
    with pytest.raises(ValueError, match="no CPU time"):
        profile.parse_cgroup_usec("nr_periods 0\nnr_throttled 0\n", 1.0)


def test_a_profile_gives_cpu_per_record_copied_between_start_and_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    samples = iter([profile.Sample(0, {"garbage collection": 100}), profile.Sample(0, {}),
                    profile.Sample(2_000_000, {"garbage collection": 300}), profile.Sample(1_000_000, {"other": 100})])
    monkeypatch.setattr(profile, "sample", lambda host: next(samples))
    watched = profile.Profile(["task-1-1", "dst-kafka-1"])
    watched.start()
    watched.stop()
    figures = watched.as_dict(100_000)
    assert figures["cpu_us_per_record"] == {"task-1-1": {"container": 20.0, "garbage collection": 20.0, "jvm": 20.0},
                                            "dst-kafka-1": {"container": 10.0, "other": 10.0, "jvm": 10.0}}
    assert figures["total_cpu_us_per_record"] == 30.0 and figures["records"] == 100_000


def test_a_failed_sample_leaves_the_profile_empty_and_the_measurement_going(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(host: str) -> profile.Sample:
        raise subprocess.CalledProcessError(1, ["docker", "exec", host])

    monkeypatch.setattr(profile, "sample", broken)
    watched = profile.Profile(["task-1-1"])
    watched.start()
    watched.stop()
    assert watched.as_dict(1000) == {}
    assert profile.Profile([]).as_dict(1000) == {}
