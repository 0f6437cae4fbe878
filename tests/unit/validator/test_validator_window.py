"""Window options: parsing and checks that run before (or without) Spark."""

from __future__ import annotations

import pytest

from mm2_validator.window import (
    ReplicationWindow,
    TopicWindow,
    WindowError,
    check_window_partitions,
    check_window_topics,
    parse_from_offsets,
    parse_from_timestamp,
)


def test_from_offsets_per_topic_partition():
    assert parse_from_offsets("foo.orders:0=1200, foo.orders:1=900,bar_x-y:3=0") == {
        "foo.orders": {0: 1200, 1: 900},
        "bar_x-y": {3: 0},
    }
    assert parse_from_offsets("") == {} and parse_from_offsets(None) == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("foo.orders=1200", "is not <topic>:<partition>=<offset>"),
        ("foo.orders:0", "is not <topic>:<partition>=<offset>"),
        ("foo.orders:-1=5", "is not <topic>:<partition>=<offset>"),
        ("foo.orders:0=-5", "is not <topic>:<partition>=<offset>"),
        ("foo.orders:0=12x", "is not <topic>:<partition>=<offset>"),
        ("foo orders:0=1", "is not <topic>:<partition>=<offset>"),
        ("foo.orders:0=1,foo.orders:0=2", "foo.orders:0 is given twice"),
    ],
)
def test_bad_from_offsets_are_refused(text, message):
    with pytest.raises(WindowError, match=message):
        parse_from_offsets(text)


@pytest.mark.parametrize(
    ("text", "epoch_ms"),
    [
        ("1700000000000", 1_700_000_000_000),
        ("2023-11-14T22:13:20Z", 1_700_000_000_000),
        ("2023-11-14T23:13:20.250+01:00", 1_700_000_000_250),
        (" 2023-11-14 22:13:20+00:00 ", 1_700_000_000_000),
    ],
)
def test_from_timestamp_is_iso_8601_or_epoch_ms(text, epoch_ms):
    assert parse_from_timestamp(text) == epoch_ms


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1700000000", "looks like seconds"),
        ("2023-11-14T22:13:20", "add a UTC offset"),
        ("yesterday", "expected ISO-8601"),
        ("2023-13-01T00:00:00Z", "expected ISO-8601"),
    ],
)
def test_bad_from_timestamps_are_refused(text, message):
    with pytest.raises(WindowError, match=message):
        parse_from_timestamp(text)


def test_offsets_and_timestamp_together_are_ambiguous():
    with pytest.raises(WindowError, match="not both"):
        ReplicationWindow({"orders": {0: 1}}, 1_700_000_000_000)


def test_window_topics_must_be_selected():
    window = ReplicationWindow({"foo.orders": {0: 10}})
    check_window_topics(window, ("foo.orders", "foo.payments"), None)
    check_window_topics(window, (), r"foo\..*")
    with pytest.raises(WindowError, match="--topics bar.orders does not select"):
        check_window_topics(window, ("bar.orders",), None)
    with pytest.raises(WindowError, match="--topics-regex"):
        check_window_topics(window, (), r"bar\..*")


def test_window_partitions_must_exist_and_not_start_past_the_end():
    window = TopicWindow({0: 5, 1: 10})
    check_window_partitions(window, "orders", [0, 1], {0: 5, 1: 20})  # at the end: empty, allowed
    with pytest.raises(WindowError, match="orders has no partition 2"):
        check_window_partitions(TopicWindow({2: 0}), "orders", [0, 1], {0: 5, 1: 5})
    with pytest.raises(WindowError, match="orders:1=10 is past the partition's end offset 9"):
        check_window_partitions(window, "orders", [0, 1], {0: 5, 1: 9})


def test_window_description_for_the_report():
    assert ReplicationWindow().describe() == {"from_offsets": {}, "from_timestamp_ms": None, "from_timestamp": None}
    described = ReplicationWindow(from_timestamp_ms=1_700_000_000_000).describe()
    assert described["from_timestamp"] == "2023-11-14T22:13:20.000+00:00"
    assert ReplicationWindow({"o": {1: 3, 0: 2}}).describe()["from_offsets"] == {"o": {"0": 2, "1": 3}}
    assert ReplicationWindow({"o": {0: 2}}).for_topic("other") == TopicWindow({}, None)
