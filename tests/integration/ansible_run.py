"""Runs this collection's playbooks and modules from tests, the way an operator does."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.integration import lab

REPO_ROOT = Path(__file__).resolve().parents[2]
BIN_DIR = REPO_ROOT / ".venv" / "bin"


@dataclass(frozen=True)
class Run:
    returncode: int
    output: str


def _environment(**extra: str) -> dict[str, str]:
    environment = dict(os.environ)
    environment["ANSIBLE_CONFIG"] = str(REPO_ROOT / "ansible.cfg")
    environment["ANSIBLE_NOCOLOR"] = "1"
    environment["ANSIBLE_FORCE_COLOR"] = "0"
    # A callback enabled in the caller's shell (profile_tasks) would mix its lines into the
    # JSON that module() parses.
    environment.pop("ANSIBLE_CALLBACKS_ENABLED", None)
    environment.update(extra)
    return environment


def playbook(path: str, *args: str, timeout: int = 900) -> Run:
    with lab.playbook_turn(path):
        done = subprocess.run([str(BIN_DIR / "ansible-playbook"), path, *args], cwd=REPO_ROOT,
                              env=_environment(), capture_output=True, text=True, timeout=timeout, check=False)
    return Run(done.returncode, done.stdout + done.stderr)


def module(host: str, name: str, arguments: dict, *flags: str, timeout: int = 300) -> dict:
    """Run one module on one inventory host; return its result dictionary."""
    done = subprocess.run(
        [str(BIN_DIR / "ansible"), host, "-m", name, "-a", json.dumps(arguments), *flags],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout, check=False,
        env=_environment(ANSIBLE_LOAD_CALLBACK_PLUGINS="1", ANSIBLE_STDOUT_CALLBACK="ansible.posix.json"),
    )
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError as error:
        raise AssertionError(f"no JSON from ansible ({done.returncode}): {done.stdout[-2000:]} {done.stderr[-2000:]}") from error
    return report["plays"][0]["tasks"][0]["hosts"][host]
