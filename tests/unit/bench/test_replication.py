"""The raw ceiling's and the latency curve's orchestration, with the lab's tools replaced by fakes."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Any

import pytest

from bench import flows, measures, perf_tools, replication


def test_raw_clients_spread_over_the_workers_as_mm2_spreads_its_tasks() -> None:
    assert replication.client_hosts(2, ("task-1-1", "task-1-2")) == ["task-1-1", "task-1-2"]
    assert replication.client_hosts(3, ("task-1-1", "task-1-2")) == ["task-1-1", "task-1-2", "task-1-1"]
    assert replication.client_hosts(1, ("task-1-1", "task-1-2")) == ["task-1-1"]


def test_side_by_side_returns_every_output_in_order() -> None:
    commands = [("first", [sys.executable, "-c", "import time; time.sleep(0.2); print('a')"]),
                ("second", [sys.executable, "-c", "print('b')"])]
    outputs, ended = replication.side_by_side(commands)
    assert outputs == ["a\n", "b\n"]
    # Each end time is its own process's: the second, quicker one ended first.
    assert ended[1] < ended[0]


def test_side_by_side_waits_for_all_and_names_the_ones_that_failed() -> None:
    commands = [("bad producer", [sys.executable, "-c", "import sys; sys.exit(3)"]),
                ("good consumer", [sys.executable, "-c", "print('b')"])]
    with pytest.raises(RuntimeError, match="bad producer exited 3"):
        replication.side_by_side(commands)


PRODUCER_LINES = ("{records} records sent, 5000.0 records/sec (4.88 MB/sec), 5.0 ms avg latency, 9.0 ms max latency.\n"
                  "{steady} steady state records sent, {rate} records/sec (9.77 MB/sec), 5.0 ms avg latency, "
                  "9.0 ms max latency.\n")
# Running totals each second: 10,000 records in the first second, then 30,000 a second.
CONSUMER_DETAILED = ("time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, "
                     "rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec\n"
                     "2026-01-01 00:00:01:000, 0, 9.7656, 9.7, 10000, 10000.0, 500, 500, 9.7, 10000.0\n"
                     "2026-01-01 00:00:02:000, 0, 39.0625, 29.3, 40000, 30000.0, 0, 1000, 29.3, 30000.0\n"
                     "2026-01-01 00:00:03:000, 0, 68.3594, 29.3, 70000, 30000.0, 0, 1000, 29.3, 30000.0\n"
                     "2026-01-01 00:00:04:000, 0, 97.6563, 29.3, 100000, 30000.0, 0, 1000, 29.3, 30000.0\n")


def test_a_concurrent_raw_run_does_a_copys_work_and_times_each_side_after_its_warm_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[list[str]] = []

    def fake_side_by_side(commands: list[tuple[str, list[str]]]) -> tuple[list[str], list[float]]:
        started.extend(command for _what, command in commands)
        outputs = [PRODUCER_LINES.format(records=100000, steady=50000, rate=10000.0),
                   PRODUCER_LINES.format(records=100000, steady=50000, rate=12000.0),
                   CONSUMER_DETAILED, CONSUMER_DETAILED]
        # The consumers stopped reading 2 s before the last append (at 10 s).
        return outputs, [10.5, 10.2, 8.0, 9.0]

    monkeypatch.setattr(replication, "side_by_side", fake_side_by_side)
    # The target appended 200,000 records over 10 s: the last 100,000 from 6 s on, 25,000 rec/s.
    read_back: list[str] = []

    def timestamps(topic: str, records: int) -> list[int]:
        read_back.append(topic)
        return [index * 6000 // 100000 if index < 100000 else 6000 + (index - 100000) * 4000 // 99999
                for index in range(records)]

    monkeypatch.setattr(replication, "arrival_timestamps", timestamps)
    configs = {"w1": ("/p1", "/c1"), "w2": ("/p2", "/c2")}
    run = replication.concurrent_raw_run(["w1", "w2"], configs, "src.bench.1.raw1024.none", "bench.1.size1024",
                                         100000, 1024, "bench-1-raw1024.none", "none")
    producers, consumers = started[:2], started[2:]
    assert [command[4] for command in started] == ["w1", "w2", "w1", "w2"]
    for command, config in zip(producers, ("/p1", "/p2")):
        assert command[5:7] == [perf_tools.lab.KAFKA_RUN, perf_tools.PRODUCER_PERFORMANCE]
        # 2 x 100,000 records shared out, the first half of each a warm-up.
        assert command[command.index("--num-records") + 1] == "100000"
        assert command[command.index("--warmup-records") + 1] == "50000"
        assert command[command.index("--command-config") + 1] == config
        assert command[command.index("--bootstrap-server") + 1] == f"{replication.TARGET}:9094"
        assert "compression.type=none" in command and "acks=all" in command
    for index, command in enumerate(consumers):
        assert command[6] == perf_tools.CONSUMER_PERFORMANCE
        # A group of its own each, no rebalance; between them they read what the producers write.
        assert command[command.index("--group") + 1] == f"bench-1-raw1024.none.{index}"
        assert command[command.index("--num-records") + 1] == "100000"
        assert "--show-detailed-stats" in command
        assert command[command.index("--bootstrap-server") + 1] == f"{replication.SOURCE}:9094"
    assert read_back == ["src.bench.1.raw1024.none"]
    assert run["producer_sum"]["records_per_s"] == pytest.approx(25000.0, rel=1e-3)
    assert [rate["records_per_s"] for rate in run["producers_tools"]] == [10000.0, 12000.0]
    # Each consumer: 60,000 records from its half-way line (2 s) to its last (4 s).
    assert run["consumer_sum"]["records_per_s"] == pytest.approx(60000.0)
    assert run["limited_by"] == "producers" and run["compression"] == "none" and run["clients"] == 2
    assert run["consumers_ended_first_s"] == 2.0


def test_producers_that_wrote_less_than_asked_fail_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replication, "side_by_side", lambda commands: (
        [PRODUCER_LINES.format(records=2000, steady=1000, rate=10000.0), CONSUMER_DETAILED], [1.0, 1.0]))
    monkeypatch.setattr(replication, "arrival_timestamps", lambda topic, records: [1000, 2000])
    with pytest.raises(RuntimeError, match="read 2 of the 2000 records"):
        replication.concurrent_raw_run(["w1"], {"w1": ("/p1", "/c1")}, "src.t", "t", 1000, 1024, "g", "lz4")


def test_a_consumer_too_quick_for_a_steady_state_is_timed_from_its_first_line_to_its_exit() -> None:
    # One line, at its first record (the tool prints when a poll returns records a reporting
    # interval after the last line); it exited 2 s later with its 3,001 records.
    output = CONSUMER_DETAILED.splitlines()[0] + "\n2026-01-01 00:00:01:000, 0, 0.001, 0.0, 1, 1.0, 500, 500, 0.0, 1.0\n"
    first = datetime(2026, 1, 1, 0, 0, 1).timestamp()
    rate = replication.consumer_steady(output, "consumer 0", 3001, 1024, first + 2.0)
    assert rate.records_per_s == 1500.0 and rate.mib_per_s == pytest.approx(1500 * 1024 / perf_tools.MIB)
    with pytest.raises(RuntimeError, match="consumer 0: no progress to time"):
        replication.consumer_steady(CONSUMER_DETAILED.splitlines()[0], "consumer 0", 3001, 1024, first)


def test_throughput_figures_of_small_records_move_as_many_bytes_as_1_kib() -> None:
    settings = replication.Settings(run_id="1", records=200000, record_sizes=(1024, 100), latency_seconds=30)
    assert [settings.records_for(size) for size in (1024, 100, 4096)] == [200000, 2000000, 200000]


def test_mm2_is_rated_against_the_ceiling() -> None:
    drained = measures.Drain(200000, 1024, 0, 8000)
    raw = {"ceiling": {"records_per_s": 50000.0, "mib_per_s": 48.8, "compression": "none", "clients": 2}}
    assert replication.mm2_figure(drained, raw)["ratio_to_ceiling"] == 0.5
    assert "ratio_to_ceiling" not in replication.mm2_figure(drained, None)


class FakeChain:
    """The source, MM2 and the target for the latency curve: records sent at a rate land on the
    target `latency_ms` later while the rate is within `keeps_up`; above it, half of them stay in
    flight, or (all_arrive) all of them arrive at a third of the rate."""

    def __init__(self, keeps_up: float, latency_ms: int, all_arrive: bool = False, partitions: int = 3) -> None:
        self.keeps_up, self.latency_ms, self.all_arrive = keeps_up, latency_ms, all_arrive
        self.sent: dict[int, list[int]] = {partition: [] for partition in range(partitions)}
        self.appended: dict[int, list[int]] = {partition: [] for partition in range(partitions)}
        self.clock_ms = 1_000_000
        self.rates: list[float] = []

    def offer(self, _topic: str, rate: float, seconds: float, _record_size: int) -> int:
        self.rates.append(rate)
        records = int(rate * seconds)
        stretch = 3.0 if rate > self.keeps_up and self.all_arrive else 1.0
        arriving = records if rate <= self.keeps_up or self.all_arrive else records // 2
        for index in range(records):
            partition = index % len(self.sent)
            self.sent[partition].append(int(self.clock_ms + index * 1000 / rate))
            if index < arriving:
                self.appended[partition].append(int(self.clock_ms + index * 1000 * stretch / rate) + self.latency_ms)
        self.clock_ms += int(seconds * 1000 * stretch) + 1000
        return records

    def monotonic(self) -> float:
        return self.clock_ms / 1000

    def end_offsets(self, host: str, _topic: str) -> dict[int, int]:
        side = self.sent if host == replication.SOURCE else self.appended
        return {partition: len(times) for partition, times in side.items()}

    def read_stamps(self, host: str, _topic: str, records: int) -> measures.Stamps:
        side = self.sent if host == replication.SOURCE else self.appended
        assert records == sum(len(times) for times in self.sent.values())
        return measures.parse_stamps(f"CreateTime:{time}\tPartition:{partition}\tOffset:{offset}"
                                     for partition, times in side.items() for offset, time in enumerate(times))


def wait_once(probe: Any, _timeout: float, what: str, **_kwargs: Any) -> Any:
    if not probe():
        raise replication.lab.Deadline(what)
    return True


def fake_lab(monkeypatch: pytest.MonkeyPatch, chain: FakeChain, lab_calls: list[str]) -> None:
    monkeypatch.setattr(replication, "offer", chain.offer)
    monkeypatch.setattr(replication, "read_stamps", chain.read_stamps)
    monkeypatch.setattr(replication.time, "monotonic", chain.monotonic)
    monkeypatch.setattr(replication.lab, "end_offsets", chain.end_offsets)
    monkeypatch.setattr(replication.lab, "wait_until", wait_once)
    monkeypatch.setattr(replication.lab, "task_assignments", lambda *_args: {f"bench.1.latency-{index}" for index in range(3)})
    monkeypatch.setattr(replication, "create_topic_pair", lambda *_args: lab_calls.append("topics"))
    monkeypatch.setattr(replication, "retry", lambda action, _what: action())
    monkeypatch.setattr(replication.Cleanup, "run", lambda _self: lab_calls.append("cleanup"))
    monkeypatch.setattr(flows, "defaults_flow", lambda: flows.Flow("defaults", {"source.cluster.alias": "bench"}))
    monkeypatch.setattr(flows, "deploy", lambda *_args: lab_calls.append("deploy"))


@pytest.mark.parametrize("all_arrive", [False, True])
def test_the_curve_runs_each_fraction_lowest_first_and_ends_at_a_point_cut_short_or_far_behind(
        monkeypatch: pytest.MonkeyPatch, all_arrive: bool) -> None:
    chain = FakeChain(keeps_up=500.0, latency_ms=40, all_arrive=all_arrive)
    lab_calls: list[str] = []
    fake_lab(monkeypatch, chain, lab_calls)
    settings = replication.Settings("1", 1000, (1024,), 10, latency_fractions=(0.9, 0.1, 0.5, 0.25, 0.75))
    curve = replication.latency(settings, 1000.0, warmup_s=1.0)
    # 10 %, 25 % and 50 % (500 rec/s) keep up; 75 % leaves records in flight, or delivers all of
    # them at a third of its rate: the curve ends there either way.
    assert chain.rates == [100.0, 250.0, 500.0, 750.0]
    points = curve["points"]
    assert [point["fraction"] for point in points] == [0.1, 0.25, 0.5, 0.75]
    assert [point["complete"] for point in points] == [True, True, True, all_arrive]
    assert [point["sent"] for point in points] == [1000, 2500, 5000, 7500]
    assert points[0]["end_to_end"]["p99_ms"] == 40.0 and points[0]["measured"] == 900
    assert points[3]["copied"] == (7500 if all_arrive else 3750)
    assert curve["knee_fraction"] == 0.5 and curve["first_behind_fraction"] == 0.75
    assert curve["fractions"] == [0.1, 0.25, 0.5, 0.75, 0.9] and curve["drain_records_per_s"] == 1000.0
    assert lab_calls == ["topics", "deploy", "cleanup"]


def test_a_remote_topic_with_more_records_than_its_source_is_not_matched(monkeypatch: pytest.MonkeyPatch) -> None:
    chain = FakeChain(keeps_up=1e9, latency_ms=5)
    lab_calls: list[str] = []
    fake_lab(monkeypatch, chain, lab_calls)
    real_offer = chain.offer

    def offer_and_replay(*args: Any) -> int:
        sent = real_offer(*args)
        chain.appended[0].append(chain.appended[0][-1])  # a task's replay: one record twice
        return sent

    monkeypatch.setattr(replication, "offer", offer_and_replay)
    settings = replication.Settings("1", 1000, (1024,), 10, latency_fractions=(0.1,))
    with pytest.raises(RuntimeError, match="replayed"):
        replication.latency(settings, 1000.0)
    assert lab_calls[-1] == "cleanup"


def test_a_drain_whose_target_stops_growing_fails_as_stalled(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [0.0]
    monkeypatch.setattr(replication.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(replication, "target_count", lambda _topic: 10)  # stuck at 10 of 100
    monkeypatch.setattr(replication, "retry", lambda action, _what: action())
    monkeypatch.setattr(flows, "deploy", lambda *_args: None)
    monkeypatch.setattr(flows, "prepare_internal_topics", lambda _flow: None)

    def wait_until(probe: Any, _timeout: float, what: str, **_kwargs: Any) -> Any:
        while not probe():
            clock[0] += 30.0
        return True

    monkeypatch.setattr(replication.lab, "wait_until", wait_until)
    flow = flows.Flow("defaults", {"source.cluster.alias": "bench"})
    with pytest.raises(replication.lab.Deadline, match="stalled"):
        replication.drain(replication.Cleanup(), flow, "bench-1-x", "bench.1.x", 100, 1024)
    assert clock[0] > replication.STALL_S
