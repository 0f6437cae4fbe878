"""Builders of records shaped like the Spark Kafka source's output."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Iterable, Optional

BASE_TS_MS = 1_700_000_000_000


def record(
    key: Optional[bytes] = b"k",
    value: Optional[bytes] = b"v",
    headers: Optional[list[tuple[str, Optional[bytes]]]] = None,
    ts_ms: int = BASE_TS_MS,
    ts_type: int = 0,
    partition: int = 0,
) -> dict[str, Any]:
    """One record's content; offsets are assigned by `records_frame`."""
    return {"key": key, "value": value, "headers": headers, "ts_ms": ts_ms, "ts_type": ts_type, "partition": partition}


def records_frame(spark, topic: str, records: Iterable[dict[str, Any]], offsets: Optional[list[int]] = None):
    """A DataFrame shaped like the Spark Kafka source (includeHeaders=true).
    Offsets count from 0 per partition unless given."""
    from mm2_validator.kafka_io import KAFKA_RECORD_SCHEMA

    rows = []
    next_offset: dict[int, int] = {}
    for index, rec in enumerate(records):
        partition = rec["partition"]
        if offsets is not None:
            offset = offsets[index]
        else:
            offset = next_offset.get(partition, 0)
            next_offset[partition] = offset + 1
        headers = None if rec["headers"] is None else [tuple(pair) for pair in rec["headers"]]
        rows.append(
            (
                rec["key"],
                rec["value"],
                topic,
                partition,
                offset,
                datetime.fromtimestamp(rec["ts_ms"] / 1000, tz=timezone.utc),
                rec["ts_type"],
                headers,
            )
        )
    return spark.createDataFrame(rows, KAFKA_RECORD_SCHEMA)
