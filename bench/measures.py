"""Pure computations of the benchmark: rates from arrival timestamps, percentiles, ratios, and
the parsing of console consumer lines. No I/O, so the unit tests run them in-process."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Optional, Sequence

from bench.perf_tools import MIB, Rate

_TIMESTAMP = re.compile(r"^(?:CreateTime|LogAppendTime):(\d+)")


@dataclass(frozen=True)
class Drain:
    """How a backlog arrived on the target: from the first to the last record's append."""

    records: int
    record_size: int
    first_ms: int
    last_ms: int

    @property
    def seconds(self) -> float:
        # One millisecond at least: a tiny backlog may land within one broker clock tick.
        return max(self.last_ms - self.first_ms, 1) / 1000.0

    @property
    def rate(self) -> Rate:
        records_per_s = self.records / self.seconds
        return Rate(records_per_s, records_per_s * self.record_size / MIB)

    def as_dict(self) -> dict[str, float]:
        return {"records": self.records, "record_size": self.record_size, "seconds": round(self.seconds, 3),
                **self.rate.as_dict()}


def drain_from_timestamps(timestamps_ms: Sequence[int], record_size: int) -> Drain:
    if not timestamps_ms:
        raise ValueError("no record arrived on the target")
    return Drain(len(timestamps_ms), record_size, min(timestamps_ms), max(timestamps_ms))


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
