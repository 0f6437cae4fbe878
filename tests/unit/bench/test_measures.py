"""Rates from arrival timestamps, percentiles, ratios, the raw ceiling and the latency curve (records
matched by partition and offset)."""

from __future__ import annotations

from typing import Any, Optional

import pytest

from bench import measures
from bench.perf_tools import MIB, Rate


def test_drain_rate_spans_first_to_last_arrival() -> None:
    drain = measures.drain_from_timestamps([1_000, 3_000, 2_000, 5_000], 1024)
    assert drain.seconds == 4.0
    assert drain.rate == Rate(1.0, 1024 / MIB)


def test_a_drain_within_one_millisecond_is_not_infinitely_fast() -> None:
    assert measures.drain_from_timestamps([7, 7], 100).seconds == 0.001


def test_no_arrival_is_an_error() -> None:
    with pytest.raises(ValueError):
        measures.drain_from_timestamps([], 100)


def test_a_drain_after_its_warm_up_counts_from_the_first_record_past_it() -> None:
    # 4 records of warm-up over 9 s, then 4 records from 10 s to 12 s.
    drain = measures.drain_from_timestamps([12_000, 1_000, 10_000, 4_000, 11_000, 7_000, 10_500, 9_000], 1024,
                                           warmup_records=4)
    assert (drain.records, drain.first_ms, drain.last_ms) == (4, 10_000, 12_000)
    assert drain.rate.records_per_s == 2.0
    with pytest.raises(ValueError, match="not more than the 4 of the warm-up"):
        measures.drain_from_timestamps([1, 2, 3, 4], 100, warmup_records=4)


def test_a_profiled_drain_gives_its_cpu_per_record_and_the_cores_it_kept_busy() -> None:
    profile = {"records": 200000, "cpu_us_per_record": {"task-1-1": {"jvm": 15.0}}, "total_cpu_us_per_record": 25.0}
    drain = measures.Drain(100000, 1024, 0, 2000, profile)  # 50,000 records/s
    figures = drain.as_dict()
    assert figures["profile"]["cores_while_copying"] == 1.25  # 25 µs x 50,000 per second
    assert figures["profile"]["total_cpu_us_per_record"] == 25.0
    # The profile is context, not identity: two drains of the same appends are equal.
    assert drain == measures.Drain(100000, 1024, 0, 2000)
    assert "profile" not in measures.Drain(100000, 1024, 0, 2000).as_dict()


def test_timestamps_of_console_consumer_lines() -> None:
    output = "LogAppendTime:1700000000123\nCreateTime:5\t\nProcessed a total of 2 messages\n"
    assert measures.parse_timestamps(output) == [1700000000123, 5]


def test_nearest_rank_percentiles() -> None:
    values = list(range(1, 101))
    assert measures.percentile(values, 0.5) == 50
    assert measures.percentile(values, 0.99) == 99
    assert measures.percentile([3.0], 0.99) == 3.0
    with pytest.raises(ValueError):
        measures.percentile([], 0.5)


def test_latency_summary() -> None:
    assert measures.latency_summary([10.0, 20.0, 30.0, 400.0]) == {
        "records": 4, "p50_ms": 20.0, "p99_ms": 400.0, "max_ms": 400.0}


def test_ratio_is_missing_without_both_figures() -> None:
    assert measures.ratio(8.0, 10.0) == 0.8
    assert measures.ratio(1.0, 3.0) == 0.333
    assert measures.ratio(None, 3.0) is None
    assert measures.ratio(1.0, 0.0) is None


def test_slower_rate_bounds_a_pipeline() -> None:
    assert measures.slower(Rate(5.0, 1.0), Rate(7.0, 0.5)) == Rate(5.0, 1.0)


# ---- the raw ceiling ----------------------------------------------------------------------------

def test_the_ceiling_runs_as_many_clients_as_mm2_has_tasks_on_the_topic() -> None:
    assert measures.raw_clients(2, 3) == 2
    assert measures.raw_clients(4, 3) == 3  # no more tasks than partitions
    assert measures.raw_clients(0, 3) == 1


def test_records_are_shared_out_to_the_last_one() -> None:
    assert measures.split_records(200000, 2) == [100000, 100000]
    assert measures.split_records(10, 3) == [4, 3, 3]


def test_a_concurrent_run_sums_the_consumers_and_keeps_the_slower_side() -> None:
    run = measures.concurrent_run("lz4", Rate(22000.0, 21.5), [Rate(10000.0, 9.8), Rate(20000.0, 19.5)],
                                  producers_tools=[Rate(9000.0, 8.8), Rate(11000.0, 10.7)], consumers_ended_first_s=1.26)
    assert run["producer_sum"] == {"records_per_s": 22000.0, "mib_per_s": 21.5}
    assert run["consumer_sum"] == {"records_per_s": 30000.0, "mib_per_s": 29.3}
    assert run["slower_side"] == run["producer_sum"] and run["limited_by"] == "producers"
    assert (run["compression"], run["clients"], len(run["producers_tools"])) == ("lz4", 2, 2)
    assert run["consumers_ended_first_s"] == 1.3
    consumers_slower = measures.concurrent_run("none", Rate(50000.0, 48.8), [Rate(20000.0, 19.5)])
    assert consumers_slower["limited_by"] == "consumers" and "producers_tools" not in consumers_slower


def test_the_ceiling_is_the_best_runs_slower_side_with_its_settings() -> None:
    lz4 = measures.concurrent_run("lz4", Rate(40000.0, 39.1), [Rate(15000.0, 14.6)] * 2)  # 30,000: consumers
    none = measures.concurrent_run("none", Rate(34000.0, 33.2), [Rate(40000.0, 39.1)] * 2)  # 34,000: producers
    assert measures.best_ceiling([lz4, none]) == {"records_per_s": 34000.0, "mib_per_s": 33.2, "compression": "none",
                                                  "clients": 2, "limited_by": "producers"}
    assert measures.best_ceiling([lz4])["compression"] == "lz4"
    with pytest.raises(ValueError):
        measures.best_ceiling([])


# ---- the latency curve ----------------------------------------------------------------------------

STAMP_LINES = ["CreateTime:1000\tPartition:0\tOffset:0", "CreateTime:1001\tPartition:1\tOffset:0",
               "CreateTime:1002\tPartition:0\tOffset:1", "Processed a total of 3 messages"]


def test_stamps_are_read_by_partition_and_offset() -> None:
    stamps = measures.parse_stamps(iter(STAMP_LINES))
    assert sorted(stamps) == [0, 1]
    assert (stamps[0].at(0), stamps[0].at(1), stamps[1].at(0)) == (1000, 1002, 1001)
    assert stamps[0].end_offset == 2
    with pytest.raises(KeyError):
        stamps[1].at(1)


def test_a_gap_in_the_offsets_is_an_error_not_a_skip() -> None:
    with pytest.raises(ValueError, match="not contiguous"):
        measures.parse_stamps(["LogAppendTime:5\tPartition:0\tOffset:3", "LogAppendTime:6\tPartition:0\tOffset:5"])


def test_offset_ranges_are_what_was_written_between_two_reads() -> None:
    assert measures.offset_ranges({0: 10, 1: 4}, {0: 15, 1: 4, 2: 3}) == {0: (10, 15), 2: (0, 3)}


def stamps(partition_times: dict[int, list[int]], first_offset: int = 0) -> measures.Stamps:
    lines = [f"CreateTime:{time}\tPartition:{partition}\tOffset:{first_offset + offset}"
             for partition, times in partition_times.items() for offset, time in enumerate(times)]
    return measures.parse_stamps(lines)


def test_records_are_matched_by_partition_and_offset_and_the_missing_ones_left_out() -> None:
    source = stamps({0: [100, 110, 120], 1: [105, 115]})
    target = stamps({0: [150, 170], 1: [160, 175]})  # partition 0's last record has not arrived
    pairs = measures.matched_stamps(source, target, {0: (1, 3), 1: (0, 2)})
    assert pairs == [(110, 170), (105, 160), (115, 175)]
    assert measures.matched_stamps(source, {}, {0: (0, 3)}) == []


def steady_pairs(count: int, send_start_ms: int, every_ms: float, latency_ms: int,
                 arrive_every_ms: Optional[float] = None) -> list[tuple[int, int]]:
    arrive_every_ms = arrive_every_ms or every_ms
    return [(int(send_start_ms + index * every_ms), int(send_start_ms + index * arrive_every_ms) + latency_ms)
            for index in range(count)]


def test_a_point_leaves_out_its_warm_up_and_times_what_arrived() -> None:
    # 1,000 records/s for 10 s; the first 5 s arrive 3 s late and are left out.
    early = [(send, append + 3000) for send, append in steady_pairs(5000, 0, 1.0, 0)]
    point = measures.latency_point(0.25, 1000.0, 10000, early + steady_pairs(5000, 5000, 1.0, 20), 5000.0, complete=True)
    assert (point["sent"], point["copied"], point["measured"]) == (10000, 10000, 5000)
    assert point["end_to_end"] == {"records": 5000, "p50_ms": 20.0, "p99_ms": 20.0, "max_ms": 20.0}
    assert point["sent_records_per_s"] == pytest.approx(1000.0, rel=0.01)
    assert point["delivered_to_offered"] == pytest.approx(1.0, abs=0.01)
    assert point["fraction"] == 0.25 and point["complete"]


def test_a_point_that_arrives_slower_than_it_was_sent_delivers_less() -> None:
    point = measures.latency_point(0.75, 1000.0, 3000, steady_pairs(3000, 0, 1.0, 5, arrive_every_ms=2.0), 0.0,
                                   complete=True)
    assert point["sent_to_offered"] == pytest.approx(1.0, abs=0.01)
    assert point["delivered_to_offered"] == pytest.approx(0.5, abs=0.01)
    assert point["end_to_end"]["max_ms"] == 2999 + 5


def test_a_point_without_records_to_time_is_an_error() -> None:
    with pytest.raises(ValueError, match="25%"):
        measures.latency_point(0.25, 1000.0, 10, steady_pairs(10, 0, 1.0, 5), 5000.0, complete=False)
    with pytest.raises(ValueError, match="reached the target"):
        measures.latency_point(0.25, 1000.0, 10, [], 5000.0, complete=False)


def curve_point(fraction: float, p99_ms: float, delivered_to_offered: float = 1.0,
                complete: bool = True) -> dict[str, Any]:
    return {"fraction": fraction, "complete": complete, "delivered_to_offered": delivered_to_offered,
            "end_to_end": {"p99_ms": p99_ms}}


def test_the_knee_is_the_highest_load_up_to_which_p99_stays_within_the_limit() -> None:
    points = [curve_point(0.5, 1500.0), curve_point(0.1, 30.0), curve_point(0.25, 999.0), curve_point(0.75, 800.0)]
    # In load order: 10 and 25 % pass, 50 % fails; the 75 % pass above a failure is noise.
    assert measures.knee(points, 1000.0) == 0.25
    assert measures.knee([curve_point(0.1, 1001.0)], 1000.0) is None
    assert measures.knee([curve_point(0.1, 10.0), curve_point(0.9, 900.0)], 1000.0) == 0.9
    assert measures.knee([curve_point(0.1, 10.0, complete=False)], 1000.0) is None
    assert measures.knee([], 1000.0) is None


def test_the_chain_falls_behind_at_the_first_load_it_did_not_deliver() -> None:
    points = [curve_point(0.75, 5000.0, 0.7), curve_point(0.1, 30.0), curve_point(0.5, 900.0, 0.949),
              curve_point(0.25, 60.0, 0.99)]
    assert measures.first_behind(points) == 0.5
    assert measures.first_behind([curve_point(0.1, 30.0), curve_point(0.9, 30.0, 0.96)]) is None
    assert measures.first_behind([curve_point(0.1, 30.0, 1.0, complete=False)]) == 0.1
