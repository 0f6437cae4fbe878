"""The time budget of `make test`: scripts/phase_times.py and tests/time_budget.json."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
BUDGET_FILE = REPO_ROOT / "tests" / "time_budget.json"
# The phases scripts/test.sh times: each `phase NAME command...` or `logged_phase NAME LOG command...` call.
PHASES_OF_MAKE_TEST = tuple(re.findall(r"\b(?:logged_)?phase ([\w-]+) (?:\S+ )?make", (REPO_ROOT / "scripts" / "test.sh").read_text()))


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("phase_times", REPO_ROOT / "scripts" / "phase_times.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def phase_times() -> ModuleType:
    return load_script()


def write_phases(path: Path, *rows: tuple[str, float, int]) -> Path:
    path.write_text("".join(f"{name}\t{seconds}\t{status}\n" for name, seconds, status in rows), encoding="utf-8")
    return path


def test_budget_file_covers_the_integration_phase_and_the_total(phase_times: ModuleType) -> None:
    budget = phase_times.read_budget(BUDGET_FILE)
    assert {"setup", "check", "lab", "unit-slow", "integration", "molecule", "kerberos"} == set(PHASES_OF_MAKE_TEST)
    assert {"integration", "total"} <= set(budget)
    assert set(budget) - {"total"} <= set(PHASES_OF_MAKE_TEST)
    # The suite must stay inside the CI limit of 90 minutes with room for setup and a slow day.
    assert budget["total"] <= 80 * 60


def test_phases_within_budget_pass(phase_times: ModuleType, tmp_path: Path) -> None:
    budget = {"integration": 100.0, "total": 200.0}
    tsv = write_phases(tmp_path / "p.tsv", ("check", 50.0, 0), ("integration", 99.5, 0))
    assert phase_times.over_budget(phase_times.read_phases(tsv, budget), budget) == []


def test_integration_over_budget_is_named(phase_times: ModuleType, tmp_path: Path) -> None:
    budget = {"integration": 100.0, "total": 1000.0}
    phases = phase_times.read_phases(write_phases(tmp_path / "p.tsv", ("integration", 130.0, 0)), budget)
    assert phase_times.over_budget(phases, budget) == ["phase integration took 130 s, over its budget of 100 s"]


def test_total_over_budget_is_named(phase_times: ModuleType, tmp_path: Path) -> None:
    budget = {"check": 100.0, "total": 150.0}
    phases = phase_times.read_phases(write_phases(tmp_path / "p.tsv", ("check", 90.0, 0), ("lab", 90.0, 0)), budget)
    assert phase_times.over_budget(phases, budget) == ["the test phases took 180 s, over their budget of 150 s"]


def test_setup_is_left_out_of_the_total(phase_times: ModuleType, tmp_path: Path) -> None:
    budget = {"total": 150.0}
    phases = phase_times.read_phases(write_phases(tmp_path / "p.tsv", ("setup", 900.0, 0), ("check", 90.0, 0)), budget)
    assert phase_times.over_budget(phases, budget) == []


def test_main_prints_the_table_and_fails_over_budget(
        phase_times: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tsv = write_phases(tmp_path / "p.tsv", ("check", 61.0, 0), ("integration", 700.0, 2))
    budget_file = tmp_path / "budget.json"
    budget_file.write_text(json.dumps({"_comment": "x", "integration": 600, "total": 3600}), encoding="utf-8")
    output = tmp_path / "phases.json"
    assert phase_times.main(["phase_times.py", str(tsv), str(budget_file), str(output)]) == 1
    printed = capsys.readouterr()
    assert "check" in printed.out and "1m01s" in printed.out
    assert "integration" in printed.out and "11m40s" in printed.out and "FAILED (2), over budget" in printed.out
    assert "phase integration took 700 s" in printed.err
    report = json.loads(output.read_text(encoding="utf-8"))
    assert [phase["name"] for phase in report["phases"]] == ["check", "integration"]
    assert report["over_budget"] == ["phase integration took 700 s, over its budget of 600 s"]


def write_timed_phases(path: Path, *rows: tuple[str, float, int, float]) -> Path:
    path.write_text("".join(f"{name}\t{seconds}\t{status}\t{started}\n" for name, seconds, status, started in rows),
                    encoding="utf-8")
    return path


def test_phases_side_by_side_count_once_in_the_total(phase_times: ModuleType, tmp_path: Path) -> None:
    # check 0-100, then integration 100-400 and molecule 100-300 side by side: 400 s of wall time.
    budget = {"total": 450.0}
    tsv = write_timed_phases(tmp_path / "p.tsv", ("setup", 50.0, 0, 950.0), ("check", 100.0, 0, 1000.0),
                             ("integration", 300.0, 0, 1100.0), ("molecule", 200.0, 0, 1100.0))
    phases = phase_times.read_phases(tsv, budget)
    assert phase_times.wall_time_of_tests(phases) == pytest.approx(400.0)
    assert phase_times.over_budget(phases, budget) == []
    assert phase_times.over_budget(phases, {"total": 350.0}) == [
        "the test phases took 400 s, over their budget of 350 s"]


def test_table_gives_the_wall_times(phase_times: ModuleType, tmp_path: Path) -> None:
    tsv = write_timed_phases(tmp_path / "p.tsv", ("setup", 60.0, 0, 0.0), ("check", 60.0, 0, 60.0),
                             ("integration", 120.0, 0, 120.0), ("molecule", 60.0, 0, 120.0))
    table = phase_times.table(phase_times.read_phases(tsv, {}))
    rows = {row.split()[0]: row.split()[1] for row in table.splitlines()}
    assert rows["tests"] == "3m00s"
    assert rows["total"] == "4m00s"
