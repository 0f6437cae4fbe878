# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Roles jmx_exporter and prometheus: what they render (through ansible-playbook, nothing
contacted but the controller) is what the agent and the server read."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
PLAYBOOK = Path(__file__).with_name('render_roles.yml')
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'
CONNECT_RULES = REPO_ROOT / 'extensions' / 'monitoring' / 'jmx_exporter' / 'connect.yml'
PASSWORD = 'scrape-secret-7'
STORE_PASSWORD = 'store-secret-8'

INVENTORY = {
    'all': {'vars': {'ansible_python_interpreter': '{{ ansible_playbook_python }}'}, 'children': {
        'exporters': {'hosts': {
            'plain-worker': {'jmx_exporter_name': 'connect'},
            'secured-broker': {'jmx_exporter_name': 'broker', 'jmx_exporter_basic_auth_username': 'scraper',
                               'jmx_exporter_basic_auth_password': PASSWORD,
                               'jmx_exporter_tls_keystore_path': '/etc/kafka/tls/keystore.p12',
                               'jmx_exporter_tls_keystore_password': STORE_PASSWORD},
        }},
        'connect_workers': {'hosts': {
            # The readiness exporter runs on the first worker (role readiness), on a port of its own here.
            'task-1': {'readiness_exporter_enabled': True, 'readiness_exporter_port': 9506,
                       # Continuous verification on the host validate.yml runs on (role replication_check).
                       'replication_check_continuous': True, 'replication_check_exporter_port': 9507},
            'task-2': {'connect_worker_metrics_port': 9500, 'connect_worker_auto_restart': False},
            'task-3': {'connect_worker_metrics_enabled': False},
            # Drained (role connect_worker, connect_worker_state absent): scraped by neither job.
            'task-4': {'connect_worker_state': 'absent'},
        }},
        'src_brokers': {'hosts': {'src-1': {}, 'src-2': {'kafka_broker_metrics_port': 9410}}},
        'dst_brokers': {'hosts': {'dst-1': {}}},
        'monitoring': {'hosts': {'prom-1': {'prometheus_kafka_clusters': {'src': 'src_brokers', 'dst': 'dst_brokers'},
                                            'mm2_rpo_seconds': 30, 'replication_check_continuous_stale_seconds': 900}}},
    }},
}

pytestmark = [
    pytest.mark.playbook,
    pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason='the project venv (make venv) provides ansible-playbook'),
]


@pytest.fixture(scope='module')
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    render_dir = tmp_path_factory.mktemp('monitoring-render')
    inventory = render_dir / 'inventory.yml'
    inventory.write_text(yaml.safe_dump(INVENTORY))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    done = subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', str(inventory), str(PLAYBOOK), '-e',
                           json.dumps({'render_dir': str(render_dir)})],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert PASSWORD not in done.stdout + done.stderr and STORE_PASSWORD not in done.stdout + done.stderr
    return render_dir


def load(path: Path) -> Dict[str, Any]:
    return yaml.safe_load(path.read_text())


def test_plain_exporter_settings_are_the_rules_alone(rendered: Path) -> None:
    settings = load(rendered / 'plain-worker.yml')
    assert 'httpServer' not in settings
    assert settings['rules'] == load(CONNECT_RULES)['rules']
    assert settings['includeObjectNames'] == load(CONNECT_RULES)['includeObjectNames']


def test_basic_auth_is_a_salted_hash_and_tls_comes_from_the_key_store(rendered: Path) -> None:
    text = (rendered / 'secured-broker.yml').read_text()
    assert PASSWORD not in text
    basic = load(rendered / 'secured-broker.yml')['httpServer']['authentication']['basic']
    assert basic['username'] == 'scraper' and basic['algorithm'] == 'SHA-256'
    assert basic['passwordHash'] == hashlib.sha256(f"{basic['salt']}:{PASSWORD}".encode()).hexdigest()
    key_store = load(rendered / 'secured-broker.yml')['httpServer']['ssl']['keyStore']
    assert key_store == {'filename': '/etc/kafka/tls/keystore.p12', 'type': 'PKCS12', 'password': STORE_PASSWORD}


def test_scrape_jobs_follow_each_hosts_ports_and_switches(rendered: Path) -> None:
    config = load(rendered / 'prometheus.yml')
    jobs = {job['job_name']: job['static_configs'] for job in config['scrape_configs']}
    assert jobs['kafka-connect'] == [{'targets': ['task-1:9404', 'task-2:9500']}]
    assert jobs['kafka-connect-watchdog'] == [{'targets': ['task-1:9405', 'task-3:9405']}]
    assert jobs['kafka-broker'] == [{'targets': ['dst-1:9404'], 'labels': {'cluster': 'dst'}},
                                    {'targets': ['src-1:9404', 'src-2:9410'], 'labels': {'cluster': 'src'}}]
    assert jobs['kafka-dr-readiness'] == [{'targets': ['task-1:9506']}]
    assert jobs['kafka-dr-verification'] == [{'targets': ['task-1:9507']}]
    assert config['rule_files'] == ['/etc/prometheus/rules/*.yml']


def test_the_rpo_budget_comes_from_mm2_rpo_seconds(rendered: Path) -> None:
    shipped = load(REPO_ROOT / 'extensions' / 'monitoring' / 'prometheus' / 'mm2_rpo.yml')
    budget = load(rendered / 'mm2_rpo.yml')
    assert budget['groups'][0]['rules'] == [{'record': 'mm2:rpo_budget_seconds', 'expr': 'vector(30)'}]
    # The extension's copy is the same rule at the default of 60 s.
    assert shipped['groups'][0]['name'] == budget['groups'][0]['name']
    assert shipped['groups'][0]['rules'] == [{'record': 'mm2:rpo_budget_seconds', 'expr': 'vector(60)'}]


def test_the_verification_stale_budget_comes_from_replication_check(rendered: Path) -> None:
    shipped = load(REPO_ROOT / 'extensions' / 'monitoring' / 'prometheus' / 'mm2_verification_budget.yml')
    budget = load(rendered / 'mm2_verification_budget.yml')
    assert budget['groups'][0]['rules'] == [{'record': 'mm2:verification_stale_budget_seconds', 'expr': 'vector(900)'}]
    assert shipped['groups'][0]['name'] == budget['groups'][0]['name']
    assert shipped['groups'][0]['rules'] == [{'record': 'mm2:verification_stale_budget_seconds', 'expr': 'vector(600)'}]


@pytest.mark.skipif(shutil.which('promtool') is None, reason='promtool comes with Debian package prometheus (make setup)')
def test_promtool_accepts_the_scrape_configuration(rendered: Path) -> None:
    done = subprocess.run(['promtool', 'check', 'config', '--syntax-only', str(rendered / 'prometheus.yml')],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    rule_files = [str(rendered / 'mm2_rpo.yml'), str(rendered / 'mm2_verification_budget.yml')]
    done = subprocess.run(['promtool', 'check', 'rules', *rule_files], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
