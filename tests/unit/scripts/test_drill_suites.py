# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The drill suites' contract with each lab shape, without a lab: the hosts the test process will
resolve are exactly those Ansible sees in the shape's inventory, the hosts the drills address are
among them, and each suite collects (its modules, fixtures and helpers import) on its shape."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration import lab

REPO_ROOT = Path(__file__).resolve().parents[3]
VENV_BIN = REPO_ROOT / ".venv" / "bin"
# Each suite under tests/integration and the lab shape it runs on (the Makefile's targets).
DRILL_SUITES = {"ha": "ha", "rotation": "default", "kerberos": "krb"}

pytestmark = pytest.mark.playbook


def _environment(shape: str) -> dict[str, str]:
    return dict(os.environ, LAB_SHAPE=shape, ANSIBLE_CONFIG=str(REPO_ROOT / "ansible.cfg"))


@pytest.mark.parametrize("shape", sorted(lab.LAB_INVENTORIES))
def test_the_hosts_resolved_are_the_hosts_ansible_sees(shape: str) -> None:
    listed = subprocess.run([str(VENV_BIN / "ansible-inventory"), "-i", str(lab.LAB_INVENTORIES[shape]), "--list"],
                            capture_output=True, text=True, check=True, timeout=120, cwd=REPO_ROOT,
                            env=_environment(shape))
    assert sorted(json.loads(listed.stdout)["_meta"]["hostvars"]) == list(lab.inventory_hosts(shape))


@pytest.mark.parametrize("shape", sorted(lab.LAB_INVENTORIES))
def test_the_hosts_the_tests_address_are_hosts_of_the_inventory(shape: str) -> None:
    script = ("import json; from tests.integration import lab; "
              "print(json.dumps([*lab.LAB_BROKERS, *lab.CONNECT_WORKERS]))")
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60,
                           cwd=REPO_ROOT, env=dict(_environment(shape), PYTHONPATH=f"{REPO_ROOT / '.collections'}:{REPO_ROOT}"))
    assert set(json.loads(shown.stdout)) <= set(lab.inventory_hosts(shape))


@pytest.mark.parametrize("suite", sorted(DRILL_SUITES))
def test_each_drill_suite_collects_on_its_lab_shape(suite: str) -> None:
    collected = subprocess.run(
        [str(VENV_BIN / "pytest"), "--collect-only", "-q", "-p", "no:cacheprovider", f"tests/integration/{suite}"],
        capture_output=True, text=True, check=False, timeout=120, cwd=REPO_ROOT, env=_environment(DRILL_SUITES[suite]))
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-2000:]
    tests = [line for line in collected.stdout.splitlines() if line.startswith(f"tests/integration/{suite}/")]
    assert tests, collected.stdout[-2000:]
