"""The suites outside `make test` (integration-ha, integration-rotation, bench): each run timed and
recorded, and a check that none of them went stale.

Each suite watches the files its promise rests on (tests/suites.json: the lab's test access, the
lab playbooks, the roles' restart and upgrade paths, its own code). A run that passes records,
in tests/suites.json, the commit, the date, the wall time and a digest of every watched file;
docs/development.md shows the same in a table. `check` (run by `make test` through
tests/unit/scripts/test_suites.py) fails when a watched file differs from the digest of the
suite's last pass: a change to what a drill depends on cannot land until the drill ran on it.

    suites.py run NAME -- COMMAND...   run COMMAND as suite NAME; record it when it passes
    suites.py check                    list the suites whose watched files changed since their last pass
    suites.py adopt OTHER/tests/suites.json
                                       take the passes recorded by another checkout (a clean clone the
                                       suites ran in) whose watched files are those of this one
"""

from __future__ import annotations

import argparse
import datetime
import fnmatch
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterable

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "tests" / "suites.json"
RUNS = ROOT / "build" / "suites.json"
SUMMARY = ROOT / "docs" / "development.md"
SUMMARY_BEGIN = "<!-- suites:begin (written by scripts/suites.py) -->"
SUMMARY_END = "<!-- suites:end -->"


def tree_files(root: Path = ROOT) -> list[str]:
    """The checkout's files as git sees them: tracked, and new ones not ignored."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                            cwd=root, capture_output=True, check=True).stdout.decode()
    return sorted({name for name in listed.split("\0") if name and (root / name).is_file()})


def watched(patterns: Iterable[str], files: Iterable[str]) -> list[str]:
    """The files that match any of the patterns (fnmatch: `*` also crosses `/`)."""
    patterns = list(patterns)
    return [name for name in files if any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)]


def patterns_of(record: dict[str, Any], name: str) -> list[str]:
    """A suite's watched patterns: those every suite shares, then its own."""
    return [*record.get("common_watch", []), *record["suites"][name]["watch"]]


def digests(names: Iterable[str], root: Path = ROOT) -> dict[str, str]:
    return {name: hashlib.sha256((root / name).read_bytes()).hexdigest()[:16] for name in names}


def changes(recorded: dict[str, str], current: dict[str, str]) -> list[str]:
    """What differs between two digest maps: each path with + (new), - (gone) or ~ (changed)."""
    found = [f"+ {name}" for name in sorted(current.keys() - recorded.keys())]
    found += [f"- {name}" for name in sorted(recorded.keys() - current.keys())]
    found += [f"~ {name}" for name in sorted(recorded.keys() & current.keys()) if recorded[name] != current[name]]
    return found


def stale(record: dict[str, Any], files: list[str], root: Path = ROOT) -> dict[str, list[str]]:
    """Per suite, what changed in its watched files since its last pass (a suite never passed:
    every watched file); suites that are current are left out."""
    found = {}
    for name, suite in record["suites"].items():
        current = digests(watched(patterns_of(record, name), files), root)
        last = suite.get("last_pass") or {}
        differences = changes(last.get("files", {}), current)
        if differences:
            found[name] = differences
    return found


def commit(watched_files: Iterable[str], root: Path = ROOT) -> str:
    """HEAD, marked -dirty when one of the suite's watched files differs from it (what the suite
    ran on is then not that commit; other edits, such as the records, do not matter)."""
    head = subprocess.run(["git", "rev-parse", "--short=7", "HEAD"], cwd=root,
                          capture_output=True, text=True, check=False).stdout.strip() or "unknown"
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=root,
                            capture_output=True, text=True, check=False).stdout
    changed = {line[3:] for line in status.splitlines()} & set(watched_files)
    return f"{head}-dirty" if changed else head


def summary_table(record: dict[str, Any]) -> str:
    lines = ["| suite | last pass | commit | wall time |", "| --- | --- | --- | --- |"]
    for name, suite in record["suites"].items():
        last = suite.get("last_pass")
        if last:
            minutes, seconds = divmod(int(round(last["wall_seconds"])), 60)
            lines.append(f"| `make {name}` | {last['date']} | `{last['commit']}` | {minutes} min {seconds:02d} s |")
        else:
            lines.append(f"| `make {name}` | never | | |")
    return "\n".join(lines)


def write_summary(record: dict[str, Any], summary: Path = SUMMARY) -> None:
    text = summary.read_text(encoding="utf-8")
    head, found, rest = text.partition(SUMMARY_BEGIN)
    if not found:
        raise SystemExit(f"{summary} has no {SUMMARY_BEGIN} marker")
    _old, found, tail = rest.partition(SUMMARY_END)
    if not found:
        raise SystemExit(f"{summary} has no {SUMMARY_END} marker")
    summary.write_text(f"{head}{SUMMARY_BEGIN}\n{summary_table(record)}\n{SUMMARY_END}{tail}", encoding="utf-8")


def append_run(entry: dict[str, Any], runs: Path = RUNS) -> None:
    """Every run, passed or not, in build/suites.json (this checkout's history, not committed)."""
    history = json.loads(runs.read_text(encoding="utf-8")) if runs.exists() else []
    history.append(entry)
    runs.parent.mkdir(parents=True, exist_ok=True)
    runs.write_text(json.dumps(history, indent=1) + "\n", encoding="utf-8")


def run(name: str, command: list[str]) -> int:
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    if name not in record["suites"]:
        raise SystemExit(f"{name} is not a suite of {RECORD.relative_to(ROOT)}: {', '.join(record['suites'])}")
    # The code under test is the code at the start: an edit during a long run is not what passed.
    files = digests(watched(patterns_of(record, name), tree_files()))
    described = commit(files)
    started = time.monotonic()
    status = subprocess.run(command, check=False).returncode
    entry = {"suite": name, "passed": status == 0, "commit": described,
             "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
             "wall_seconds": round(time.monotonic() - started, 1)}
    append_run(entry)
    minutes, seconds = divmod(int(entry["wall_seconds"]), 60)
    print(f"==> {name}: {'passed' if status == 0 else f'FAILED ({status})'} in {minutes} min {seconds:02d} s")
    if status == 0:
        record = json.loads(RECORD.read_text(encoding="utf-8"))
        record["suites"][name]["last_pass"] = dict(
            {key: entry[key] for key in ("commit", "date", "wall_seconds")}, files=files)
        RECORD.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        write_summary(record)
        print(f"==> recorded in {RECORD.relative_to(ROOT)} and {SUMMARY.relative_to(ROOT)}: commit them")
    return status


def check() -> int:
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    found = stale(record, tree_files())
    for name, differences in found.items():
        last = record["suites"][name].get("last_pass")
        since = f"since its last pass ({last['commit']}, {last['date']})" if last else "and it never passed"
        print(f"make {name}: {len(differences)} watched files changed {since}; run it:")
        print("\n".join(f"  {line}" for line in differences[:20]))
    return 1 if found else 0


def adoptable(other: dict[str, Any], record: dict[str, Any], files: list[str], root: Path = ROOT) -> list[str]:
    """The suites whose pass in `other` was on exactly this checkout's watched files."""
    found = []
    for name in record["suites"]:
        last = (other.get("suites", {}).get(name) or {}).get("last_pass")
        if last and last.get("files") == digests(watched(patterns_of(record, name), files), root):
            found.append(name)
    return found


def adopt(other_path: Path) -> int:
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    other = json.loads(other_path.read_text(encoding="utf-8"))
    names = adoptable(other, record, tree_files())
    for name in names:
        record["suites"][name]["last_pass"] = other["suites"][name]["last_pass"]
        print(f"{name}: passed {other['suites'][name]['last_pass']['date']} on {other['suites'][name]['last_pass']['commit']}")
    RECORD.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    write_summary(record)
    return 0 if names else 1


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="action", required=True)
    run_parser = commands.add_parser("run")
    run_parser.add_argument("name")
    run_parser.add_argument("command", nargs=argparse.REMAINDER)
    commands.add_parser("check")
    adopt_parser = commands.add_parser("adopt")
    adopt_parser.add_argument("other", type=Path)
    args = parser.parse_args(argv)
    if args.action == "check":
        return check()
    if args.action == "adopt":
        return adopt(args.other)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("run needs a command after --")
    return run(args.name, command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
