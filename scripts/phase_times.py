"""Prints the phase times of `make test` and checks them against the budget file.

Usage: phase_times.py PHASES_TSV BUDGET_JSON OUTPUT_JSON

PHASES_TSV holds one "name<TAB>seconds<TAB>exit status[<TAB>start, epoch seconds]" line per
phase that ran. Phases may run side by side (integration tests and Molecule do): with start
times, the total is the wall time from the first test phase's start to the last one's end,
not the sum. The exit status is 1 when a phase that ran to completion took longer than its
budget, or when the whole run did; 0 otherwise (a phase that failed has already failed the run).
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Phase:
    name: str
    seconds: float
    status: int
    budget: float | None
    started: float | None = None

    @property
    def over_budget(self) -> bool:
        return self.budget is not None and self.seconds > self.budget


def read_phases(tsv: Path, budget: dict[str, float]) -> list[Phase]:
    phases = []
    for line in tsv.read_text(encoding="utf-8").splitlines():
        name, seconds, status, *started = line.split("\t")
        phases.append(Phase(name, float(seconds), int(status), budget.get(name),
                            float(started[0]) if started else None))
    return phases


def read_budget(path: Path) -> dict[str, float]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return {name: float(value) for name, value in document.items() if not name.startswith("_")}


# Installing packages, the base image and the Kafka distribution depends on the machine's
# caches and network, not on the suite: the total budget leaves it out.
UNBUDGETED_IN_TOTAL = frozenset({"setup"})


def elapsed(phases: list[Phase]) -> float:
    """Wall time of the phases: from the first start to the last end when every phase has its
    start time (phases that overlap count once), else the sum of their times."""
    if not phases:
        return 0.0
    starts = [phase.started for phase in phases]
    if any(start is None for start in starts):
        return sum(phase.seconds for phase in phases)
    return max(phase.started + phase.seconds for phase in phases) - min(starts)  # type: ignore[operator]


def wall_time_of_tests(phases: list[Phase]) -> float:
    return elapsed([phase for phase in phases if phase.name not in UNBUDGETED_IN_TOTAL])


def over_budget(phases: list[Phase], budget: dict[str, float]) -> list[str]:
    """One message per phase (and for the total of the test phases) that took longer than allowed."""
    problems = [f"phase {phase.name} took {phase.seconds:.0f} s, over its budget of {phase.budget:.0f} s"
                for phase in phases if phase.over_budget]
    total = wall_time_of_tests(phases)
    if "total" in budget and total > budget["total"]:
        problems.append(f"the test phases took {total:.0f} s, over their budget of {budget['total']:.0f} s")
    return problems


def table(phases: list[Phase]) -> str:
    rows = [f"{'phase':<12} {'time':>9} {'budget':>8}  result"]
    for phase in phases:
        budget = f"{phase.budget:.0f} s" if phase.budget is not None else "-"
        result = "ok" if phase.status == 0 else f"FAILED ({phase.status})"
        if phase.over_budget:
            result += ", over budget"
        rows.append(f"{phase.name:<12} {_clock(phase.seconds):>9} {budget:>8}  {result}")
    rows.append(f"{'tests':<12} {_clock(wall_time_of_tests(phases)):>9}   wall time of the test phases")
    rows.append(f"{'total':<12} {_clock(elapsed(phases)):>9}   wall time with setup")
    return "\n".join(rows)


def _clock(seconds: float) -> str:
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes}m{rest:02d}s"


def main(argv: list[str]) -> int:
    tsv, budget_file, output = (Path(argument) for argument in argv[1:4])
    budget = read_budget(budget_file)
    phases = read_phases(tsv, budget)
    print("\nmake test, phase times\n" + table(phases))
    problems = over_budget(phases, budget)
    output.write_text(json.dumps({"phases": [asdict(phase) for phase in phases], "over_budget": problems},
                                 indent=2) + "\n", encoding="utf-8")
    for problem in problems:
        print(f"time budget: {problem} (tests/time_budget.json)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
