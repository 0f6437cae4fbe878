"""Replication latency from replicated heartbeats.

Record timestamps cannot measure replication latency: MM2 copies them unchanged.
A heartbeat carries its emission time in its value, and its replica on the target
(`<source alias><sep>heartbeats`) gets a broker-assigned record timestamp only when
that topic uses LogAppendTime (`message.timestamp.type=LogAppendTime`). Then
latency = record timestamp − heartbeat timestamp. Under CreateTime both are equal
and only the age of the newest replicated heartbeat is reported.
"""

from __future__ import annotations

import math
from typing import Iterable, Optional

from mm2_validator.shared import mm2_records
from mm2_validator.model import LatencyResult

LOG_APPEND_TIME = 1


def percentile(sorted_values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        raise ValueError("no values")
    rank = max(1, math.ceil(fraction * len(sorted_values)))
    return float(sorted_values[rank - 1])


def heartbeat_latency(
    rows: Iterable[tuple[object, object, int, int]],
    source_alias: str,
    topic: str,
    now_ms: int,
    topic_found: bool = True,
) -> LatencyResult:
    """Latency figures from (key, value, record timestamp ms, timestamp type) rows of
    the replicated heartbeats topic on the target."""
    result = LatencyResult(topic=topic)
    if not topic_found:
        result.note = f"topic {topic} not found on the target: no replicated heartbeats"
        return result
    samples: list[float] = []
    newest_heartbeat: Optional[int] = None
    create_time_records = 0
    for key, value, record_ts_ms, ts_type in rows:
        if value is None:
            continue
        try:
            heartbeat = mm2_records.decode_heartbeat(key, value)
        except mm2_records.RecordFormatError:
            continue
        if heartbeat.source_alias != source_alias:
            continue
        newest_heartbeat = max(newest_heartbeat or heartbeat.timestamp_ms, heartbeat.timestamp_ms)
        if ts_type == LOG_APPEND_TIME:
            samples.append(float(max(0, record_ts_ms - heartbeat.timestamp_ms)))
        else:
            create_time_records += 1
    if newest_heartbeat is not None:
        result.heartbeat_age_ms = max(0, now_ms - newest_heartbeat)
    if samples:
        samples.sort()
        result.method = "heartbeats"
        result.samples = len(samples)
        result.p50_ms = percentile(samples, 0.50)
        result.p99_ms = percentile(samples, 0.99)
        result.max_ms = samples[-1]
    elif create_time_records:
        result.note = (
            f"{topic} uses CreateTime, so replicated heartbeats keep their original timestamp; "
            "set message.timestamp.type=LogAppendTime on it to measure latency"
        )
    else:
        result.note = f"no heartbeats from alias {source_alias!r} in {topic}"
    return result
