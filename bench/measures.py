"""Pure computations of the benchmark: rates from arrival timestamps, percentiles, ratios, and
the parsing of console consumer lines. No I/O, so the unit tests run them in-process."""

from __future__ import annotations

import math
import re
from array import array
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence

from bench.perf_tools import MIB, Rate

_TIMESTAMP = re.compile(r"^(?:CreateTime|LogAppendTime):(\d+)")


@dataclass(frozen=True)
class Drain:
    """How a backlog arrived on the target: from the first to the last record's append."""

    records: int
    record_size: int
    first_ms: int
    last_ms: int
    # Where the CPU went while it ran (bench.profile's figures), when it was profiled.
    profile: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def seconds(self) -> float:
        # One millisecond at least: a tiny backlog may land within one broker clock tick.
        return max(self.last_ms - self.first_ms, 1) / 1000.0

    @property
    def rate(self) -> Rate:
        records_per_s = self.records / self.seconds
        return Rate(records_per_s, records_per_s * self.record_size / MIB)

    def as_dict(self) -> dict[str, Any]:
        figures: dict[str, Any] = {"records": self.records, "record_size": self.record_size,
                                   "seconds": round(self.seconds, 3), **self.rate.as_dict()}
        if self.profile:
            figures["profile"] = {**self.profile, "cores_while_copying": self.cores_while_copying()}
        return figures

    def cores_while_copying(self) -> Optional[float]:
        """The cores the profiled containers kept busy while the timed records arrived (their CPU
        per record times the rate): near the machine's cores, the copy is CPU bound."""
        per_record = self.profile.get("total_cpu_us_per_record")
        return round(per_record * self.rate.records_per_s / 1e6, 2) if per_record else None


def drain_from_timestamps(timestamps_ms: Sequence[int], record_size: int, warmup_records: int = 0) -> Drain:
    """The drain of the records after the first warmup_records appends (all of them by default):
    from the first of those to the last append."""
    if len(timestamps_ms) <= warmup_records:
        raise ValueError(f"{len(timestamps_ms)} records arrived on the target, not more than the {warmup_records} of the warm-up")
    timed = sorted(timestamps_ms)[warmup_records:]
    return Drain(len(timed), record_size, timed[0], timed[-1])


def parse_timestamps(output: str) -> list[int]:
    """Timestamps of console consumer lines printed with print.timestamp=true (other lines skipped)."""
    return [int(match.group(1)) for match in map(_TIMESTAMP.match, output.splitlines()) if match]


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (fraction 0.5 = p50): a value that was actually observed."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    rank = max(math.ceil(fraction * len(ordered)), 1)
    return ordered[rank - 1]


def latency_summary(latencies_ms: Sequence[float]) -> dict[str, float]:
    return {"records": len(latencies_ms), "p50_ms": round(percentile(latencies_ms, 0.50), 1),
            "p99_ms": round(percentile(latencies_ms, 0.99), 1), "max_ms": round(max(latencies_ms), 1)}


def ratio(numerator: Optional[float], denominator: Optional[float]) -> Optional[float]:
    """numerator / denominator rounded to 3 places; None when either is missing or zero."""
    if not numerator or not denominator:
        return None
    return round(numerator / denominator, 3)


def slower(first: Rate, second: Rate) -> Rate:
    """The lower of two rates (by records): what a pipeline of both stages can sustain at most."""
    return first if first.records_per_s <= second.records_per_s else second


# ---- the raw ceiling --------------------------------------------------------------------------

def raw_clients(tasks_max: int, partitions: int) -> int:
    """How many producers and consumers the raw ceiling runs: as many as MM2 has source tasks for
    the topic (MirrorSourceConnector starts no more tasks than there are partitions)."""
    return max(1, min(tasks_max, partitions))


def split_records(records: int, parts: int) -> list[int]:
    """records shared out over parts as evenly as whole records allow."""
    share, rest = divmod(records, parts)
    return [share + (1 if index < rest else 0) for index in range(parts)]


def summed(rates: Sequence[Rate]) -> Rate:
    """What clients running side by side move together: the sum of their rates."""
    return Rate(sum(rate.records_per_s for rate in rates), sum(rate.mib_per_s for rate in rates))


def concurrent_run(compression: str, producers: Rate, consumers: Sequence[Rate],
                   producers_tools: Sequence[Rate] = (), consumers_ended_first_s: float = 0.0) -> dict[str, Any]:
    """One run of N producers into the target beside N consumers of the source: each side's rate,
    and the slower side, which is what a copy with these clients could sustain.
    producers: what they appended together on the target after their warm-up; consumers: each
    one's rate after its warm-up; producers_tools: each producer's own steady-state figure.
    consumers_ended_first_s: how long the producers went on after the first consumer stopped
    reading (0 when the consumers read until the end): that part of the producers' run had the
    cores with less contention than a copy would leave it."""
    consumer_sum = summed(consumers)
    run: dict[str, Any] = {
        "compression": compression, "clients": len(consumers),
        "consumers": [rate.as_dict() for rate in consumers],
        "producer_sum": producers.as_dict(), "consumer_sum": consumer_sum.as_dict(),
        "limited_by": "producers" if producers.records_per_s <= consumer_sum.records_per_s else "consumers",
        "slower_side": slower(producers, consumer_sum).as_dict(),
        "consumers_ended_first_s": round(consumers_ended_first_s, 1)}
    if producers_tools:
        run["producers_tools"] = [rate.as_dict() for rate in producers_tools]
    return run


def best_ceiling(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The ceiling: the run whose slower side is fastest, with the settings it ran with."""
    if not runs:
        raise ValueError("no raw run to take a ceiling from")
    best = max(runs, key=lambda run: run["slower_side"]["records_per_s"])
    return {**best["slower_side"], "compression": best["compression"], "clients": best["clients"],
            "limited_by": best["limited_by"]}


# ---- the latency curve ------------------------------------------------------------------------

# A console consumer line printed with print.timestamp, print.partition and print.offset alone.
_STAMP_LINE = re.compile(r"^(?:CreateTime|LogAppendTime):(-?\d+)\tPartition:(\d+)\tOffset:(\d+)")


class PartitionStamps:
    """The timestamps of one partition's records by offset, from the first offset read on. A topic
    written without transactions has no gaps in its offsets; a gap is an error, not a skip."""

    def __init__(self, first_offset: int) -> None:
        self.first_offset = first_offset
        self.timestamps = array("q")

    @property
    def end_offset(self) -> int:
        return self.first_offset + len(self.timestamps)

    def append(self, offset: int, timestamp: int) -> None:
        if offset != self.end_offset:
            raise ValueError(f"offset {offset} read after {self.end_offset - 1}: the offsets are not contiguous")
        self.timestamps.append(timestamp)

    def at(self, offset: int) -> int:
        if not self.first_offset <= offset < self.end_offset:
            raise KeyError(offset)
        return self.timestamps[offset - self.first_offset]


# {partition: its records' timestamps}
Stamps = dict[int, PartitionStamps]
# {partition: (first offset, end offset)} of the records one load wrote
OffsetRanges = dict[int, tuple[int, int]]


def parse_stamps(lines: Iterable[str]) -> Stamps:
    """Each record's timestamp by partition and offset, from console consumer lines (other lines
    skipped). Read from a generator, a topic of millions of records is never held as text."""
    stamps: Stamps = {}
    for line in lines:
        match = _STAMP_LINE.match(line)
        if match:
            timestamp, partition, offset = (int(group) for group in match.groups())
            stamps.setdefault(partition, PartitionStamps(offset)).append(offset, timestamp)
    return stamps


def offset_ranges(before: dict[int, int], after: dict[int, int]) -> OffsetRanges:
    """The offsets written between two reads of a topic's end offsets."""
    return {partition: (before.get(partition, 0), end) for partition, end in sorted(after.items())
            if end > before.get(partition, 0)}


def matched_stamps(source: Stamps, target: Stamps, ranges: OffsetRanges) -> list[tuple[int, int]]:
    """(source timestamp, target timestamp) of each record of the ranges that reached the target.
    MM2 writes a source partition to the same partition of the remote topic in order: a remote
    topic created empty beside its source, copied without a replay (the caller checks both end
    offsets), holds each record at its source offset."""
    pairs: list[tuple[int, int]] = []
    for partition, (start, end) in ranges.items():
        sent, copied = source[partition], target.get(partition, PartitionStamps(start))
        pairs.extend((sent.at(offset), copied.at(offset)) for offset in range(start, min(end, copied.end_offset)))
    return pairs


def span_s(timestamps_ms: Sequence[int]) -> float:
    """Seconds from the first to the last of some timestamps, one millisecond at least."""
    return max(max(timestamps_ms) - min(timestamps_ms), 1) / 1000


def latency_point(fraction: float, offered: float, sent: int, pairs: Sequence[tuple[int, int]], warmup_ms: float,
                  complete: bool) -> dict[str, Any]:
    """One point of the curve from (send, target append) times: latencies, the rate the load was
    really sent at and the rate it arrived at, over the records sent warmup_ms after the point's
    first (the producer's start and the change from the previous rate are left out).
    complete: every record sent was on the target before the wait ran out."""
    if not pairs:
        raise ValueError(f"no record of the {fraction:.0%} point reached the target")
    steady_from = min(send for send, _append in pairs) + warmup_ms
    steady = [(send, append) for send, append in pairs if send >= steady_from]
    if len(steady) < 2:
        raise ValueError(f"the {fraction:.0%} point has no record to time after its {warmup_ms:.0f} ms warm-up")
    sent_rate = len(steady) / span_s([send for send, _append in steady])
    delivered = len(steady) / span_s([append for _send, append in steady])
    return {"fraction": fraction, "offered_records_per_s": round(offered, 1), "sent": sent, "copied": len(pairs),
            "measured": len(steady), "complete": complete, "sent_records_per_s": round(sent_rate, 1),
            "sent_to_offered": ratio(sent_rate, offered), "delivered_records_per_s": round(delivered, 1),
            "delivered_to_offered": ratio(delivered, offered),
            "end_to_end": latency_summary([append - send for send, append in steady])}


def kept_up(point: dict[str, Any], share: float = 0.95) -> bool:
    """The chain carried the point's rate: everything arrived, at share of the offered rate at least."""
    return bool(point["complete"]) and (point["delivered_to_offered"] or 0.0) >= share


def knee(points: Sequence[dict[str, Any]], p99_limit_ms: float) -> Optional[float]:
    """The highest offered fraction up to which every point (from the lowest on) kept its p99 within
    the limit; None when the lowest did not. A point that passes above a failing one is noise."""
    passing = None
    for point in sorted(points, key=lambda point: point["fraction"]):
        if not point["complete"] or point["end_to_end"]["p99_ms"] > p99_limit_ms:
            break
        passing = point["fraction"]
    return passing


def first_behind(points: Sequence[dict[str, Any]], share: float = 0.95) -> Optional[float]:
    """The lowest offered fraction at which the chain delivered less than share of the offered rate."""
    return next((point["fraction"] for point in sorted(points, key=lambda point: point["fraction"])
                 if not kept_up(point, share)), None)
