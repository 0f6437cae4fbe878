"""How duplicates weigh on the verdict, given the flow's delivery guarantee.

MM2 delivers at least once unless the flow runs its source connector with exactly-once
support (KIP-618). A worker killed mid-stream makes an at-least-once flow replay the
records since its last committed source offsets: the replays stay in the target log,
so later validations of the same topics would fail for ever if every duplicate did.
Each crash replays again, so the budget is granted per replay the data shows.

Rules (D duplicates, V source records validated in the run, R replays: the largest
number of separate runs of duplicated source records in any one partition, see
`compare`):

- exactly-once: any duplicate is an error;
- at-least-once: the allowance per replay is the smaller of `max_duplicates` and
  floor(`max_duplicate_ratio` x V), each limit applying only when set; the run may
  hold that many per replay, allowed = allowance x max(1, R). D <= allowed is a
  warning, D > allowed an error. With neither limit set every duplicate is a warning.

Missing, unexpected and mismatched records fail under both guarantees (not decided here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from typing import Optional

from mm2_validator.model import DuplicateBudget

AT_LEAST_ONCE = "at-least-once"
EXACTLY_ONCE = "exactly-once"
DELIVERY_GUARANTEES = (AT_LEAST_ONCE, EXACTLY_ONCE)
DEFAULT_MAX_DUPLICATE_RATIO = 0.1

SEVERITY_NONE = "none"
SEVERITY_WARNING = "warning"
SEVERITY_ERROR = "error"


class DeliveryError(ValueError):
    """An impossible delivery setting (a usage error)."""


@dataclass(frozen=True)
class DuplicatePolicy:
    delivery: str = AT_LEAST_ONCE
    max_duplicates: Optional[int] = None  # None: no count limit
    max_duplicate_ratio: Optional[float] = DEFAULT_MAX_DUPLICATE_RATIO  # None: no ratio limit

    def __post_init__(self) -> None:
        if self.delivery not in DELIVERY_GUARANTEES:
            raise DeliveryError(f"--delivery must be one of {', '.join(DELIVERY_GUARANTEES)}, got {self.delivery!r}")
        if self.max_duplicates is not None and self.max_duplicates < 0:
            raise DeliveryError(f"--max-duplicates must be zero or more, got {self.max_duplicates}")
        ratio = self.max_duplicate_ratio
        if ratio is not None and (math.isnan(ratio) or math.isinf(ratio) or ratio < 0):
            raise DeliveryError(f"--max-duplicate-ratio must be a finite number >= 0, got {ratio}")

    def allowed_per_replay(self, records_validated: int) -> Optional[int]:
        """Duplicates one replay may leave and still pass (with a warning); None when unlimited."""
        if self.delivery == EXACTLY_ONCE:
            return 0
        limits = []
        if self.max_duplicates is not None:
            limits.append(self.max_duplicates)
        if self.max_duplicate_ratio is not None:
            limits.append(ratio_limit(self.max_duplicate_ratio, records_validated))
        return min(limits) if limits else None

    def allowed_duplicates(self, records_validated: int, replays: int) -> Optional[int]:
        """Duplicates the run may hold and still pass: the allowance of each replay it saw
        (at least one); None when unlimited."""
        per_replay = self.allowed_per_replay(records_validated)
        return None if per_replay is None else per_replay * max(1, replays)

    def judge(self, duplicates: int, records_validated: int, replays: int) -> DuplicateBudget:
        per_replay = self.allowed_per_replay(records_validated)
        allowed = self.allowed_duplicates(records_validated, replays)
        within = allowed is None or duplicates <= allowed
        if duplicates == 0:
            severity = SEVERITY_NONE
        else:
            severity = SEVERITY_WARNING if within else SEVERITY_ERROR
        return DuplicateBudget(
            delivery=self.delivery,
            max_duplicates=self.max_duplicates if self.delivery == AT_LEAST_ONCE else 0,
            max_duplicate_ratio=self.max_duplicate_ratio if self.delivery == AT_LEAST_ONCE else 0.0,
            records_validated=records_validated,
            duplicates=duplicates,
            replays=replays,
            allowed_per_replay=per_replay,
            allowed_duplicates=allowed,
            duplicate_ratio=round(duplicates / records_validated, 6) if records_validated else None,
            within_budget=within,
            severity=severity,
        )


def ratio_limit(ratio: float, records_validated: int) -> int:
    # Decimal of the written ratio: 0.1 x 300000 is exactly 30000, not 30000.000000000004.
    return math.floor(_written(ratio) * max(records_validated, 0))


def _written(ratio: float) -> Decimal:
    return Decimal(repr(ratio))


def _percent(ratio: float) -> str:
    """0.1 -> '10 %', 0.025 -> '2.5 %' (the written decimal, without float noise)."""
    return f"{(_written(ratio) * 100).normalize():f} %"


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _allowance_reason(budget: DuplicateBudget) -> str:
    """Which limit sets the allowance per replay (at least one is set)."""
    ratio, count = budget.max_duplicate_ratio, budget.max_duplicates
    if ratio is None:
        return "the count limit"
    of_records = f"{_percent(ratio)} of the {budget.records_validated:,} records validated"
    if count is None:
        return of_records
    if count < ratio_limit(ratio, budget.records_validated):
        return f"the count limit, below {of_records}"
    return f"{of_records}, within the count limit of {count:,}"


def describe_budget(budget: DuplicateBudget) -> str:
    """One line for the text summary, the HTML header and the run-level finding."""
    found = _count(budget.duplicates, "duplicate")
    if budget.replays:
        found += f" in {_count(budget.replays, 'replay')}"
    if budget.delivery == EXACTLY_ONCE:
        limit = "none allowed under exactly-once"
    elif budget.allowed_per_replay is None:
        limit = "no limit: each is a warning"
    else:
        limit = f"at most {budget.allowed_per_replay:,} per replay: {_allowance_reason(budget)}"
        if budget.replays > 1 and budget.allowed_duplicates is not None:
            limit += f"; {budget.allowed_duplicates:,} in all"
    state = "within budget" if budget.within_budget else "over budget"
    return f"delivery {budget.delivery}: {found} ({limit}): {state}"
