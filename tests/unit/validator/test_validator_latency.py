"""Latency from replicated heartbeats."""

from __future__ import annotations

from mm2_validator.latency import heartbeat_latency, percentile
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_records import Heartbeat, encode_heartbeat

NOW = 1_700_000_100_000


def heartbeat_row(emitted_ms, record_ts_ms, ts_type=1, alias="src"):
    key, value = encode_heartbeat(Heartbeat(alias, "dst", emitted_ms))
    return key, value, record_ts_ms, ts_type


def test_log_append_time_heartbeats_give_percentiles():
    rows = [
        heartbeat_row(NOW - 10_000 + i * 1000, NOW - 10_000 + i * 1000 + delay)
        for i, delay in enumerate([5, 7, 9, 11, 400])
    ]
    result = heartbeat_latency(rows, "src", "src.heartbeats", NOW)
    assert result.method == "heartbeats" and result.samples == 5
    assert (result.p50_ms, result.p99_ms, result.max_ms) == (9.0, 400.0, 400.0)
    assert result.heartbeat_age_ms == 6000


def test_create_time_heartbeats_give_no_latency_only_age():
    rows = [heartbeat_row(NOW - 2000, NOW - 2000, ts_type=0)]
    result = heartbeat_latency(rows, "src", "src.heartbeats", NOW)
    assert result.p50_ms is None and result.p99_ms is None and result.method is None
    assert result.heartbeat_age_ms == 2000 and "LogAppendTime" in result.note


def test_other_aliases_and_absent_topic():
    assert heartbeat_latency([heartbeat_row(NOW, NOW, alias="other")], "src", "src.heartbeats", NOW).p50_ms is None
    absent = heartbeat_latency([], "src", "src.heartbeats", NOW, topic_found=False)
    assert absent.p50_ms is None and "not found" in absent.note


def test_nearest_rank_percentile():
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0 and percentile(values, 0.99) == 99.0 and percentile([3.0], 0.99) == 3.0
