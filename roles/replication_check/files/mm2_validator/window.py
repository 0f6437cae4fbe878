"""The validation window: judge only the records after a point (after an incident).

Two ways to give the point, one per run:

- `--from-offsets topic:partition=offset,...`: per source topic-partition, the first
  source offset of the window (partitions not named are judged whole);
- `--from-timestamp` (ISO-8601 with a UTC offset, or epoch milliseconds): source
  records with a timestamp at or after it. MM2 copies record timestamps, so the
  same bound selects their replicas on the target.

The job still reads and matches every retained record, so replicas and replays of
records before the window pair with their source records instead of showing as
unexpected; the window only decides which records are judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Mapping, Optional, Sequence

# Kafka topic names are made of these characters only, so ':' and '=' delimit safely.
_OFFSET_ENTRY = re.compile(r"(?P<topic>[A-Za-z0-9._-]+):(?P<partition>\d+)=(?P<offset>\d+)")
# Below this an epoch value is far more likely seconds than milliseconds (1973-03-03).
_SMALLEST_EPOCH_MS = 100_000_000_000


class WindowError(ValueError):
    """A window option that cannot be used (a usage error)."""


@dataclass(frozen=True)
class TopicWindow:
    """The window of one source topic."""

    from_offsets: Mapping[int, int] = field(default_factory=dict)  # partition -> first offset judged
    from_timestamp_ms: Optional[int] = None

    @property
    def is_set(self) -> bool:
        return bool(self.from_offsets) or self.from_timestamp_ms is not None


@dataclass(frozen=True)
class ReplicationWindow:
    from_offsets: Mapping[str, Mapping[int, int]] = field(default_factory=dict)  # topic -> partition -> offset
    from_timestamp_ms: Optional[int] = None

    def __post_init__(self) -> None:
        if self.from_offsets and self.from_timestamp_ms is not None:
            raise WindowError("give --from-offsets or --from-timestamp, not both: the window starts at one point")

    @property
    def is_set(self) -> bool:
        return bool(self.from_offsets) or self.from_timestamp_ms is not None

    def for_topic(self, topic: str) -> TopicWindow:
        return TopicWindow(dict(self.from_offsets.get(topic, {})), self.from_timestamp_ms)

    def describe(self) -> dict[str, object]:
        return {
            "from_offsets": {
                topic: {str(p): o for p, o in sorted(offsets.items())}
                for topic, offsets in sorted(self.from_offsets.items())
            },
            "from_timestamp_ms": self.from_timestamp_ms,
            "from_timestamp": None if self.from_timestamp_ms is None else iso_utc(self.from_timestamp_ms),
        }


def iso_utc(epoch_ms: int) -> str:
    return datetime.fromtimestamp(epoch_ms / 1000, tz=timezone.utc).isoformat(timespec="milliseconds")


def parse_from_offsets(text: Optional[str]) -> dict[str, dict[int, int]]:
    """`foo.orders:0=1200,foo.orders:1=900` -> {"foo.orders": {0: 1200, 1: 900}}."""
    offsets: dict[str, dict[int, int]] = {}
    for entry in (item.strip() for item in (text or "").split(",")):
        if not entry:
            continue
        match = _OFFSET_ENTRY.fullmatch(entry)
        if not match:
            raise WindowError(f"--from-offsets: {entry!r} is not <topic>:<partition>=<offset> (e.g. orders:0=1200)")
        topic, partition, offset = match["topic"], int(match["partition"]), int(match["offset"])
        if partition in offsets.get(topic, {}):
            raise WindowError(f"--from-offsets: {topic}:{partition} is given twice")
        offsets.setdefault(topic, {})[partition] = offset
    return offsets


def parse_from_timestamp(text: Optional[str]) -> Optional[int]:
    """Epoch milliseconds of `text`: digits are epoch ms, anything else ISO-8601 with a UTC offset."""
    if text is None or not text.strip():
        return None
    value = text.strip()
    if value.isdigit():
        epoch_ms = int(value)
        if epoch_ms < _SMALLEST_EPOCH_MS:
            raise WindowError(
                f"--from-timestamp {value}: epoch values are milliseconds; this looks like seconds ({value}000?)"
            )
        return epoch_ms
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise WindowError(
            f"--from-timestamp {value!r}: expected ISO-8601 (2024-05-01T10:00:00Z) or epoch milliseconds"
        ) from None
    if moment.tzinfo is None:
        raise WindowError(f"--from-timestamp {value!r}: add a UTC offset (Z or +02:00) so the moment is unambiguous")
    return int(moment.timestamp() * 1000)


def check_window_topics(window: ReplicationWindow, topics: Sequence[str], topics_regex: Optional[str]) -> None:
    """Before any cluster is contacted: every topic of --from-offsets is one the run selects."""
    try:
        pattern = re.compile(topics_regex or "")
    except re.error:
        return  # the topic selection itself is refused with its own message
    for topic in sorted(window.from_offsets):
        selected = topic in topics if topics else bool(topics_regex and pattern.fullmatch(topic))
        if not selected:
            chosen = f"--topics {','.join(topics)}" if topics else f"--topics-regex {topics_regex!r}"
            raise WindowError(f"--from-offsets names topic {topic}, which {chosen} does not select")


def check_window_partitions(
    window: TopicWindow, topic: str, partitions: Sequence[int], end_offsets: Mapping[int, int]
) -> None:
    """Once the source is known: each named partition exists and its offset is not past its end."""
    for partition, offset in sorted(window.from_offsets.items()):
        if partition not in partitions:
            raise WindowError(
                f"--from-offsets: {topic} has no partition {partition} (partitions 0-{max(partitions, default=-1)})"
            )
        end = end_offsets.get(partition, 0)
        if offset > end:
            raise WindowError(f"--from-offsets: {topic}:{partition}={offset} is past the partition's end offset {end}")


def selected_topics_missing(window: ReplicationWindow, resolved_topics: Sequence[str]) -> list[str]:
    """Topics of --from-offsets the run does not validate (a regex matched no such source topic)."""
    return sorted(set(window.from_offsets) - set(resolved_topics))
