"""Pure computations of the benchmark: rates from arrival timestamps, percentiles, ratios, and
the parsing of console consumer lines. No I/O, so the unit tests run them in-process."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

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


def parse_latency_line(line: str) -> Optional[tuple[int, float]]:
    """(target append time, send time) of a latency record as the console consumer prints it:
    "LogAppendTime:<ms>\\t<send ms with fraction>|<padding>". None for other lines."""
    match = _TIMESTAMP.match(line)
    if not match or "\t" not in line:
        return None
    value = line.split("\t", 1)[1]
    try:
        return int(match.group(1)), float(value.split("|", 1)[0])
    except ValueError:
        return None


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


def latency_value(send_ms: float, record_size: int) -> str:
    """A latency record's value: the send time, then padding to the record size."""
    head = f"{send_ms:.3f}|"
    return head + "x" * max(record_size - len(head), 0)


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
    ceiling = {**best["slower_side"], "compression": best["compression"], "clients": best["clients"],
               "limited_by": best["limited_by"]}
    return ceiling


# ---- the latency curve ------------------------------------------------------------------------

# (receipt ms, target append ms, send ms) of one latency record
Arrival = tuple[float, int, float]


def delivered_rate(received: Sequence[Arrival]) -> float:
    """Records over the span of their receipt: what the chain delivered."""
    if len(received) < 2:
        return 0.0
    span_s = (max(entry[0] for entry in received) - min(entry[0] for entry in received)) / 1000
    return len(received) / span_s if span_s > 0 else 0.0


def latency_point(fraction: float, offered: float, sent: int, received: Sequence[Arrival], steady_from_ms: float,
                  complete: bool) -> dict[str, Any]:
    """One point of the curve: latencies and delivered rate of the records sent from steady_from_ms
    on (the first seconds of a point are the change from the previous rate). complete: every
    record sent arrived before the wait ran out."""
    steady = [entry for entry in received if entry[2] >= steady_from_ms]
    if not steady:
        raise ValueError(f"no latency record of the {fraction:.0%} point arrived after its warm-up")
    delivered = delivered_rate(steady)
    return {"fraction": fraction, "offered_records_per_s": round(offered, 1), "sent": sent, "received": len(received),
            "measured": len(steady), "complete": complete, "delivered_records_per_s": round(delivered, 1),
            "delivered_to_offered": ratio(delivered, offered),
            "end_to_end": latency_summary([receipt - send for receipt, _append, send in steady]),
            "to_target_log": latency_summary([append - send for _receipt, append, send in steady])}


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
