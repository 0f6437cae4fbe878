# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Role connect_worker refuses a REST port that another program holds, before anything changes,
and names that program (through ansible-playbook on the controller, nothing else contacted)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Iterator, Tuple

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
PLAYBOOK = Path(__file__).with_name('rest_port_check.yml')
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'

pytestmark = [pytest.mark.playbook,
              pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason='the project venv (make setup) provides ansible-playbook')]


@pytest.fixture
def listening() -> Iterator[Tuple[int, int]]:
    """Two ports this test process listens on: a stand-in for Kafka, and one for another program's REST port."""
    with socket.socket() as kafka, socket.socket() as other:
        for server in (kafka, other):
            server.bind(('127.0.0.1', 0))
            server.listen(1)
        yield kafka.getsockname()[1], other.getsockname()[1]


def check(tmp_path: Path, bootstrap_port: int, rest_port: int) -> subprocess.CompletedProcess:
    vars_file = tmp_path / 'vars.json'
    vars_file.write_text(json.dumps({'connect_worker_bootstrap_servers': '127.0.0.1:%d' % bootstrap_port,
                                     'connect_worker_rest_port': rest_port,
                                     'ansible_python_interpreter': sys.executable}))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    return subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', 'localhost,', str(PLAYBOOK), '-e', '@%s' % vars_file],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_a_port_held_by_another_program_is_refused_with_its_name(tmp_path: Path, listening: Tuple[int, int]) -> None:
    kafka_port, held_port = listening
    done = check(tmp_path, kafka_port, held_port)
    assert done.returncode != 0
    assert 'port %d (connect_worker_rest_port) on localhost is held by pid %d (' % (held_port, os.getpid()) in done.stdout
    assert 'Nothing was changed.' in done.stdout


def test_a_free_port_passes(tmp_path: Path, listening: Tuple[int, int]) -> None:
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        free_port = probe.getsockname()[1]
    done = check(tmp_path, listening[0], free_port)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert 'Report the program that holds the REST port' in done.stdout and 'skipping: [localhost]' in done.stdout
