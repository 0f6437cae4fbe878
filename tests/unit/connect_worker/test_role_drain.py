# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Role connect_worker's drain (connect_worker_state absent) as ansible-playbook plans it from a real inventory:
the other workers' settings come from hostvars, which hold the inventory's values and none of the role's
defaults; role mirrormaker's REST URLs leave the drained workers out (nothing contacted but the controller)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Dict

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
PLAYBOOK = Path(__file__).with_name('drain_render.yml')
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'
RUNNING = ['active.kafka-connect=active', 'enabled.kafka-connect=enabled', 'active.kafka-connect-watchdog=active',
           'enabled.kafka-connect-watchdog=enabled', 'login_fingerprint=', 'requests=yes']

INVENTORY = {
    # Plain HTTP without authentication, accepted on purpose, except where a host says otherwise.
    'all': {'vars': {'ansible_python_interpreter': '{{ ansible_playbook_python }}', 'connect_worker_rest_scheme': 'http',
                     'connect_worker_rest_basic_auth': False, 'connect_worker_rest_insecure': True}, 'children': {
        'connect_workers': {'hosts': {
            'c1': {},
            'c2': {'connect_worker_state': 'absent'},
            'c3': {'connect_worker_cluster_name': 'dr', 'connect_worker_rest_scheme': 'https', 'connect_worker_rest_port': 8443},
            'c4': {'connect_worker_cluster_name': 'solo', 'connect_worker_state': 'absent'},
            'c5': {'connect_worker_rest_advertised_host': 'connect-5.example.com', 'connect_worker_rest_port': 8084},
            'c6': {'connect_worker_cluster_name': 'dr', 'connect_worker_state': 'absent'},
        }},
    }},
}

pytestmark = [pytest.mark.playbook,
              pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason='the project venv (make setup) provides ansible-playbook')]


@pytest.fixture(scope='module')
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Dict[str, Any]]:
    render_dir = tmp_path_factory.mktemp('drain-render')
    inventory = render_dir / 'inventory.yml'
    inventory.write_text(yaml.safe_dump(INVENTORY))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    done = subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', str(inventory), str(PLAYBOOK), '-e',
                           json.dumps({'render_dir': str(render_dir), 'probe_lines': RUNNING})],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return {host: json.loads((render_dir / ('%s.json' % host)).read_text()) for host in INVENTORY['all']['children']['connect_workers']['hosts']}


def test_a_drained_worker_is_taken_over_by_the_others_of_its_cluster(rendered: Dict[str, Dict[str, Any]]) -> None:
    drain = rendered['c2']['drain']
    assert drain['errors'] == []
    assert (drain['cluster'], drain['remaining']) == ('mm2', ['c1', 'c5'])
    # c1 sets nothing: the role's defaults (hostvars lack them); c5 is asked by its advertised name and port.
    assert drain['urls'] == ['http://c1:8083', 'http://connect-5.example.com:8084']
    assert drain['worker_id'] == 'c2:8083'
    assert (drain['stop_worker'], drain['disable_worker'], drain['stop_watchdog'], drain['disable_watchdog']) == (True,) * 4


def test_each_connect_cluster_counts_its_own_workers(rendered: Dict[str, Dict[str, Any]]) -> None:
    drain = rendered['c6']['drain']
    assert (drain['cluster'], drain['remaining'], drain['urls'], drain['errors']) == ('dr', ['c3'], ['https://c3:8443'], [])


def test_the_last_worker_of_a_cluster_is_refused_naming_cluster_and_host(rendered: Dict[str, Dict[str, Any]]) -> None:
    drain = rendered['c4']['drain']
    assert drain['remaining'] == []
    assert len(drain['errors']) == 1
    assert "c4 is the last worker of Connect cluster 'solo'" in drain['errors'][0]
    assert drain['errors'][0].endswith('Nothing was changed.')


def test_mirrormaker_asks_no_drained_worker(rendered: Dict[str, Dict[str, Any]]) -> None:
    assert rendered['c1']['urls'] == ['http://c1:8083', 'http://c3:8083', 'http://c5:8083']
    # A drained host that runs the role's once-per-cluster steps does not ask its own stopped worker.
    assert rendered['c2']['urls'] == ['http://c1:8083', 'http://c3:8083', 'http://c5:8083']
