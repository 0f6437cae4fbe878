"""Rates from arrival timestamps, percentiles, ratios and the latency records' format."""

from __future__ import annotations

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


def test_timestamps_of_console_consumer_lines() -> None:
    output = "LogAppendTime:1700000000123\nCreateTime:5\t\nProcessed a total of 2 messages\n"
    assert measures.parse_timestamps(output) == [1700000000123, 5]


def test_latency_line_holds_append_and_send_time() -> None:
    line = "LogAppendTime:1700000000500\t" + measures.latency_value(1700000000100.25, 64)
    assert measures.parse_latency_line(line) == (1700000000500, 1700000000100.25)


@pytest.mark.parametrize("line", ["Processed a total of 3 messages", "LogAppendTime:12", "LogAppendTime:12\tabc|x"])
def test_other_lines_are_not_latency_records(line: str) -> None:
    assert measures.parse_latency_line(line) is None


def test_latency_value_has_the_record_size() -> None:
    assert len(measures.latency_value(1700000000000.0, 1024)) == 1024
    assert measures.latency_value(1.0, 3) == "1.000|"


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
