"""An in-memory stand-in for `kafka_io.KafkaCluster` (no Kafka needed)."""

from __future__ import annotations

from typing import Any, Mapping, Optional

from validator_helpers import records_frame


class InMemoryCluster:
    """Topics as lists of `conftest.record` dicts; offsets count from 0 per partition
    unless a record carries an explicit "offset"."""

    def __init__(
        self,
        name: str,
        spark,
        topics: Optional[dict[str, list[dict[str, Any]]]] = None,
        partitions: Optional[dict[str, int]] = None,
    ):
        self.name = name
        self.spark = spark
        self.topics: dict[str, list[dict[str, Any]]] = {}
        self.partition_counts: dict[str, int] = dict(partitions or {})
        for topic, records in (topics or {}).items():
            self.add(topic, records)
        self.closed = False

    def add(self, topic: str, records: list[dict[str, Any]]) -> None:
        stored = self.topics.setdefault(topic, [])
        next_offset: dict[int, int] = {}
        for rec in stored:
            next_offset[rec["partition"]] = max(next_offset.get(rec["partition"], 0), rec["offset"] + 1)
        for rec in records:
            rec = dict(rec)
            if "offset" not in rec:
                rec["offset"] = next_offset.get(rec["partition"], 0)
            next_offset[rec["partition"]] = rec["offset"] + 1
            stored.append(rec)
        known = max([r["partition"] for r in stored] + [-1]) + 1
        self.partition_counts[topic] = max(self.partition_counts.get(topic, 1), known)

    def list_topics(self) -> list[str]:
        return sorted(self.topics)

    def partitions(self, topic: str) -> list[int]:
        return list(range(self.partition_counts[topic])) if topic in self.topics else []

    def start_offsets(self, topic: str, partitions: list[int]) -> dict[int, int]:
        return {p: 0 for p in partitions}

    def end_offsets(self, topic: str, partitions: list[int]) -> dict[int, int]:
        ends = {p: 0 for p in partitions}
        for rec in self.topics.get(topic, []):
            if rec["partition"] in ends:
                ends[rec["partition"]] = max(ends[rec["partition"]], rec["offset"] + 1)
        return ends

    def read(self, topic: str, start: Mapping[int, int], end: Mapping[int, int]):
        chosen = [
            r
            for r in self.topics.get(topic, [])
            if r["partition"] in end and start.get(r["partition"], 0) <= r["offset"] < end[r["partition"]]
        ]
        return records_frame(self.spark, topic, chosen, offsets=[r["offset"] for r in chosen])

    def close(self) -> None:
        self.closed = True
