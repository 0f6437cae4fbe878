# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The suites outside `make test` (scripts/suites.py, tests/suites.json): none of them may be stale
on the code being tested, every file they watch exists, their last passes are shown in
docs/development.md, and the record and the check themselves decide right."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("suites", REPO_ROOT / "scripts" / "suites.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["suites"] = module
    spec.loader.exec_module(module)
    return module


suites = _load()
RECORD = json.loads((REPO_ROOT / "tests" / "suites.json").read_text(encoding="utf-8"))


def test_every_suite_outside_make_test_passed_on_the_files_it_watches() -> None:
    """The guard: a change to the lab's test access, the lab playbooks, a role's restart or upgrade
    path or a suite's own code lands only with that suite run on it (`make <suite>`, then commit
    tests/suites.json)."""
    found = suites.stale(RECORD, suites.tree_files())
    report = "; ".join(f"make {name}: {', '.join(lines[:8])}" for name, lines in found.items())
    assert found == {}, f"run the suites whose watched files changed since their last pass: {report}"


def test_every_watched_pattern_matches_a_file() -> None:
    """A pattern left behind by a move would watch nothing, and its suite could never go stale."""
    files = suites.tree_files()
    for name in RECORD["suites"]:
        for pattern in suites.patterns_of(RECORD, name):
            assert suites.watched([pattern], files), f"{name}: {pattern} matches no file"


def test_the_drills_lab_access_and_restart_paths_are_watched_by_every_suite() -> None:
    files = suites.tree_files()
    for name in RECORD["suites"]:
        watched = suites.watched(suites.patterns_of(RECORD, name), files)
        assert {"tests/integration/lab.py", "tests/integration/lab_admin.py", "playbooks/lab.yml",
                "roles/connect_worker/tasks/restart_one.yml", "roles/kafka_broker/tasks/restart_one.yml"} <= set(watched)


def test_each_suite_is_a_make_target_and_release_check_runs_them_all() -> None:
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    release = re.search(r"^release-check:\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert release is not None
    for name in RECORD["suites"]:
        assert re.search(rf"^{name}: setup\n\t@\$\(SUITE\) {name} -- ", makefile, re.MULTILINE), name
        assert f"$(MAKE) --no-print-directory {name}\n" in release.group(1), name


def test_the_development_guide_shows_each_suites_last_pass() -> None:
    guide = (REPO_ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    shown = guide.split(suites.SUMMARY_BEGIN, 1)[1].split(suites.SUMMARY_END, 1)[0].strip()
    assert shown == suites.summary_table(RECORD)


# ---- the record and the check, on a checkout of their own ----

@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "tests" / "integration").mkdir(parents=True)
    (tmp_path / "tests" / "integration" / "lab.py").write_text("resolve = 'main network'\n")
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "run.py").write_text("figures = 1\n")
    (tmp_path / "README.md").write_text("not watched\n")
    subprocess.run(["git", "-C", str(tmp_path), "add", "-A"], check=True)
    return tmp_path


RECORD_OF_TWO = {"common_watch": ["tests/integration/lab*.py"],
                 "suites": {"integration-ha": {"watch": ["tests/integration/ha/*"]}, "bench": {"watch": ["bench/*"]}}}


def passed(record: dict, name: str, root: Path) -> None:
    files = suites.digests(suites.watched(suites.patterns_of(record, name), suites.tree_files(root)), root)
    record["suites"][name]["last_pass"] = {"commit": "abc1234", "date": "2026-11-27 16:00 UTC",
                                           "wall_seconds": 754.2, "files": files}


def test_a_suite_that_never_passed_is_stale(checkout: Path) -> None:
    record = json.loads(json.dumps(RECORD_OF_TWO))
    passed(record, "bench", checkout)
    assert suites.stale(record, suites.tree_files(checkout), checkout) == {
        "integration-ha": ["+ tests/integration/lab.py"]}


def test_a_change_to_a_shared_file_makes_every_suite_stale_and_names_the_file(checkout: Path) -> None:
    record = json.loads(json.dumps(RECORD_OF_TWO))
    passed(record, "bench", checkout)
    passed(record, "integration-ha", checkout)
    assert suites.stale(record, suites.tree_files(checkout), checkout) == {}
    # The hosts lookup broken on purpose: both suites must run again before it lands.
    (checkout / "tests" / "integration" / "lab.py").write_text("resolve = 'nothing'\n")
    assert suites.stale(record, suites.tree_files(checkout), checkout) == {
        "integration-ha": ["~ tests/integration/lab.py"], "bench": ["~ tests/integration/lab.py"]}


def test_new_and_removed_files_count_and_unwatched_files_do_not(checkout: Path) -> None:
    record = json.loads(json.dumps(RECORD_OF_TWO))
    passed(record, "bench", checkout)
    (checkout / "README.md").write_text("edited\n")
    (checkout / "bench" / "run.py").unlink()
    (checkout / "bench" / "new.py").write_text("x = 2\n")
    assert suites.stale(record, suites.tree_files(checkout), checkout)["bench"] == ["+ bench/new.py", "- bench/run.py"]


def test_the_summary_table_gives_each_suites_last_pass_or_never() -> None:
    record = json.loads(json.dumps(RECORD_OF_TWO))
    record["suites"]["bench"]["last_pass"] = {"commit": "abc1234", "date": "2026-11-27 16:00 UTC",
                                              "wall_seconds": 754.2, "files": {}}
    assert suites.summary_table(record).splitlines()[2:] == [
        "| `make integration-ha` | never | | |",
        "| `make bench` | 2026-11-27 16:00 UTC | `abc1234` | 12 min 34 s |"]


def test_the_commit_is_marked_dirty_only_when_a_watched_file_differs_from_it(checkout: Path) -> None:
    subprocess.run(["git", "-C", str(checkout), "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                    "commit", "-qm", "start"], check=True)
    watched = ["tests/integration/lab.py"]
    head = suites.commit(watched, checkout)
    assert re.fullmatch(r"[0-9a-f]{7}", head)
    (checkout / "README.md").write_text("a record or a note, not what the suite ran on\n")
    assert suites.commit(watched, checkout) == head
    (checkout / "tests" / "integration" / "lab.py").write_text("resolve = 'elsewhere'\n")
    assert suites.commit(watched, checkout) == f"{head}-dirty"


def test_a_pass_recorded_elsewhere_is_adopted_only_on_the_same_watched_files(checkout: Path) -> None:
    clone = json.loads(json.dumps(RECORD_OF_TWO))
    passed(clone, "bench", checkout)
    passed(clone, "integration-ha", checkout)
    (checkout / "tests" / "integration" / "lab.py").write_text("resolve = 'changed since'\n")
    here = json.loads(json.dumps(RECORD_OF_TWO))
    assert suites.adoptable(clone, here, suites.tree_files(checkout), checkout) == []
    (checkout / "tests" / "integration" / "lab.py").write_text("resolve = 'main network'\n")
    assert suites.adoptable(clone, here, suites.tree_files(checkout), checkout) == ["integration-ha", "bench"]
