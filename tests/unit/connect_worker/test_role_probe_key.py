# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Role connect_worker keys the login probe's fingerprint with a random key of the host: created once,
root-only (0600 in a 0700 directory), never shown, the same on every rerun, so the same settings give
the same fingerprint; a check run creates nothing (through ansible-playbook on the controller)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, Tuple

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
PLAYBOOK = Path(__file__).with_name('probe_key.yml')
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'

pytestmark = [pytest.mark.playbook,
              pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason='the project venv (make setup) provides ansible-playbook')]


def run(tmp_path: Path, key_file: Path, *options: str) -> Tuple[Dict[str, Any], str]:
    result_file = tmp_path / 'result.json'
    variables = {'__connect_worker_probe_key_file': str(key_file), 'result_file': str(result_file),
                 'ansible_python_interpreter': sys.executable}
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    done = subprocess.run([str(ANSIBLE_PLAYBOOK), '-v', '-i', 'localhost,', str(PLAYBOOK), '-e', json.dumps(variables), *options],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return json.loads(result_file.read_text()), done.stdout + done.stderr


def test_the_key_is_created_once_root_only_and_reruns_match(tmp_path: Path) -> None:
    key_file = tmp_path / 'kafka-connect-login-probe' / 'key'
    first, shown = run(tmp_path, key_file)
    key = key_file.read_text().strip()
    assert first['changed'] is True and len(key) == 64
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 and stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    assert key not in shown
    second, shown = run(tmp_path, key_file)
    assert second == {'fingerprint': first['fingerprint'], 'changed': False}
    assert key_file.read_text().strip() == key and key not in shown


def test_a_check_run_creates_no_key_and_matches_no_recorded_fingerprint(tmp_path: Path) -> None:
    key_file = tmp_path / 'kafka-connect-login-probe' / 'key'
    checked, _shown = run(tmp_path, key_file, '--check')
    assert checked['changed'] is True and not key_file.parent.exists()
    created, _shown = run(tmp_path, key_file)
    assert created['fingerprint'] != checked['fingerprint']


def test_a_damaged_key_is_replaced(tmp_path: Path) -> None:
    key_file = tmp_path / 'kafka-connect-login-probe' / 'key'
    first, _shown = run(tmp_path, key_file)
    key_file.write_text('not a key\n')
    replaced, _shown = run(tmp_path, key_file)
    assert replaced['changed'] is True and replaced['fingerprint'] != first['fingerprint']
