"""How duplicates weigh on the verdict, given the flow's delivery guarantee.

MM2 delivers at least once unless the flow runs its source connector with exactly-once
support (KIP-618). A worker killed mid-stream makes an at-least-once flow replay the
records since its last committed source offsets: the replays stay in the target log,
so later validations of the same topics would fail for ever if every duplicate did.

Rules (D duplicates, V source records validated in the run):

- exactly-once: any duplicate is an error;
- at-least-once: the allowed count is the smaller of `max_duplicates` and
  floor(`max_duplicate_ratio` x V), each limit applying only when set; D <= allowed
  is a warning, D > allowed an error. With neither limit set every duplicate is a
  warning.

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

    def allowed_duplicates(self, records_validated: int) -> Optional[int]:
        """Duplicates that still pass (with a warning); None when unlimited."""
        if self.delivery == EXACTLY_ONCE:
            return 0
        limits = []
        if self.max_duplicates is not None:
            limits.append(self.max_duplicates)
        if self.max_duplicate_ratio is not None:
            # Decimal of the written ratio: 0.1 x 300000 is exactly 30000, not 30000.000000000004.
            limits.append(math.floor(Decimal(repr(self.max_duplicate_ratio)) * max(records_validated, 0)))
        return min(limits) if limits else None

    def judge(self, duplicates: int, records_validated: int) -> DuplicateBudget:
        allowed = self.allowed_duplicates(records_validated)
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
            allowed_duplicates=allowed,
            duplicate_ratio=round(duplicates / records_validated, 6) if records_validated else None,
            within_budget=within,
            severity=severity,
        )


def describe_budget(budget: DuplicateBudget) -> str:
    """One line for the text summary and the HTML header."""
    if budget.delivery == EXACTLY_ONCE:
        limit = "none allowed"
    else:
        parts = []
        if budget.max_duplicate_ratio is not None:
            parts.append(f"ratio {budget.max_duplicate_ratio:g} of {budget.records_validated} validated")
        parts.append(f"count {'unlimited' if budget.max_duplicates is None else budget.max_duplicates}")
        allowed = "unlimited" if budget.allowed_duplicates is None else str(budget.allowed_duplicates)
        limit = f"budget {allowed} ({', '.join(parts)})"
    used = "" if budget.duplicate_ratio is None else f", {budget.duplicate_ratio:.4%} of validated records"
    state = "within budget" if budget.within_budget else "over budget"
    return f"delivery {budget.delivery}: {budget.duplicates} duplicate(s){used}; {limit}: {state}"
