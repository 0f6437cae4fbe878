# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Role connect_worker's drain (tasks/drain.yml) through ansible-playbook, against an in-memory Kafka Connect REST API
standing in for the worker that remains: it waits until the cluster moved the drained worker's connectors and tasks,
reports what is still assigned when they do not move, and refuses the last worker of a cluster. The host's systemd
state is given as stopped and disabled (a rerun), so no systemd call is made."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Dict, Iterator, Optional

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / 'tests' / 'unit' / 'plugins'))

from fake_connect import FakeConnect  # noqa: E402  pylint: disable=wrong-import-position

PLAYBOOK = Path(__file__).with_name('drain_run.yml')
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'
DRAINED_ID = 'drained:8083'
STOPPED = {'active.kafka-connect': 'inactive', 'enabled.kafka-connect': 'disabled',
           'active.kafka-connect-watchdog': 'inactive', 'enabled.kafka-connect-watchdog': 'disabled'}
RUNNING = {'active.kafka-connect': 'active', 'enabled.kafka-connect': 'enabled',
           'active.kafka-connect-watchdog': 'active', 'enabled.kafka-connect-watchdog': 'enabled'}

pytestmark = [pytest.mark.playbook,
              pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason='the project venv (make setup) provides ansible-playbook')]


@pytest.fixture
def remaining() -> Iterator[FakeConnect]:
    """The remaining worker's REST API, with the MM2 source connector's two tasks still on the drained worker."""
    server = FakeConnect().start()
    connector = server.add_connector('mm2-msc', {'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector',
                                                 'tasks.max': '2'})
    for task in connector.tasks:
        task.worker_id = DRAINED_ID
    yield server
    server.stop()


def drain(tmp_path: Path, remaining: FakeConnect, others: Dict[str, Any], timeout: int = 60,
          host_state: Optional[Dict[str, str]] = None, port: Optional[int] = None) -> subprocess.CompletedProcess:
    port = port or int(remaining.url.rsplit(':', 1)[1])
    hosts: Dict[str, Any] = {'drained': {'connect_worker_state': 'absent'}}
    hosts.update({name: dict(settings, connect_worker_rest_port=port) for name, settings in others.items()})
    inventory = tmp_path / 'inventory.yml'
    # Every worker on plain HTTP without authentication (accepted on purpose), as the fake REST API serves.
    plain = {'connect_worker_rest_scheme': 'http', 'connect_worker_rest_basic_auth': False, 'connect_worker_rest_insecure': True}
    inventory.write_text(yaml.safe_dump({'all': {'vars': {'ansible_python_interpreter': sys.executable, **plain},
                                                 'children': {'connect_workers': {'hosts': hosts}}}}))
    extra = {'__connect_worker_host_state': host_state or STOPPED, 'connect_worker_drain_timeout': timeout}
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    return subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', str(inventory), str(PLAYBOOK), '-e', json.dumps(extra)],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


def status_polls(remaining: FakeConnect) -> int:
    return len([request for request in remaining.requests if request.method == 'GET' and request.path == '/connectors'
                and 'status' in request.query.get('expand', [])])


def test_the_drain_waits_until_the_cluster_moved_the_tasks(tmp_path: Path, remaining: FakeConnect) -> None:
    """The tasks move only once the drain has seen them on the drained worker (its first status poll),
    whatever the time ansible-playbook takes to start on a loaded machine."""
    polled = threading.Event()
    finished = threading.Event()

    def move() -> None:
        while not finished.is_set():
            if status_polls(remaining) >= 1:
                with remaining.lock:
                    for task in remaining.connectors['mm2-msc'].tasks:
                        task.worker_id = '127.0.0.1:8083'
                polled.set()
                return
            finished.wait(0.05)

    mover = threading.Thread(target=move, daemon=True)
    mover.start()
    try:
        done = drain(tmp_path, remaining, {'remaining': {'connect_worker_rest_advertised_host': '127.0.0.1'}})
    finally:
        finished.set()
        mover.join(5)
    assert polled.is_set(), done.stdout[-3000:]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert status_polls(remaining) >= 2
    assert remaining.writes() == []
    assert 'changed=0' in done.stdout


def test_work_that_does_not_move_is_named_after_the_timeout(tmp_path: Path, remaining: FakeConnect) -> None:
    done = drain(tmp_path, remaining, {'remaining': {'connect_worker_rest_advertised_host': '127.0.0.1'}}, timeout=4)
    assert done.returncode != 0
    assert "Connect cluster 'mm2' still assigns task mm2-msc-0 (RUNNING), task mm2-msc-1 (RUNNING) to drained:8083" \
        in done.stdout.replace('\n', ' ')


def test_the_last_worker_is_refused(tmp_path: Path, remaining: FakeConnect) -> None:
    done = drain(tmp_path, remaining, {'other-cluster': {'connect_worker_cluster_name': 'dr'},
                                       'drained-too': {'connect_worker_state': 'absent'}})
    assert done.returncode != 0
    assert "drained is the last worker of Connect cluster 'mm2' (the other workers of that cluster (drained-too) are drained too)" \
        in done.stdout.replace('\n', ' ')
    assert remaining.requests == []


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


def test_a_running_worker_is_not_stopped_when_no_remaining_worker_answers(tmp_path: Path, remaining: FakeConnect) -> None:
    """The host's units are given as running: the refusal comes before any systemd call."""
    port = closed_port()
    done = drain(tmp_path, remaining, {'remaining': {'connect_worker_rest_advertised_host': '127.0.0.1'}},
                 host_state=RUNNING, port=port)
    assert done.returncode != 0
    text = done.stdout.replace('\n', ' ')
    assert "no other worker of Connect cluster 'mm2' answers on http://127.0.0.1:%d" % port in text
    assert 'could leave the cluster without a running worker. Nothing was changed.' in text
    assert 'Stop the worker cleanly' not in done.stdout.split('Refuse to stop the worker')[-1]


def test_a_wait_no_remaining_worker_answers_says_so(tmp_path: Path, remaining: FakeConnect) -> None:
    done = drain(tmp_path, remaining, {'remaining': {'connect_worker_rest_advertised_host': '127.0.0.1'}}, timeout=4,
                 port=closed_port())
    assert done.returncode != 0
    text = done.stdout.replace('\n', ' ')
    assert "Connect cluster 'mm2' may still assign work to drained:8083: no remaining worker answered (" in text
    assert 'The run stops before the unit is disabled' in text
