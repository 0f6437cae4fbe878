# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The role's planning stage (kafka_dr.mm2.mm2_plan) run by ansible-playbook: the lab inventory's model,
and a bad model stopped with every problem. Nothing is contacted but the controller."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
PLAYBOOK = Path(__file__).with_name('plan_only.yml')
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'


def run_plan(tmp_path: Path, inventory: str, extra_vars: Dict[str, Any]) -> subprocess.CompletedProcess:
    vars_file = tmp_path / 'vars.json'
    vars_file.write_text(json.dumps(extra_vars))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    return subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', inventory, str(PLAYBOOK), '-e', '@%s' % vars_file],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


def read_plan(tmp_path: Path, inventory: str, extra_vars: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    output = tmp_path / 'plan.json'
    done = run_plan(tmp_path, inventory, dict(extra_vars or {}, plan_output=str(output)))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return json.loads(output.read_text())


@pytest.fixture(scope='module', autouse=True)
def needs_ansible() -> None:
    if not ANSIBLE_PLAYBOOK.exists():
        pytest.skip('the project venv (make setup) provides ansible-playbook')


@pytest.mark.playbook
def test_lab_inventory_plans_the_one_way_flow(tmp_path: Path) -> None:
    plan = read_plan(tmp_path, str(REPO_ROOT / 'inventories' / 'lab'), {'plan_hosts': 'connect_workers'})
    assert plan['errors'] == []
    assert plan['desired_names'] == ['mm2-src-dst-source', 'mm2-src-dst-checkpoint', 'mm2-src-dst-heartbeat']
    source = plan['connectors'][0]['config']
    assert source['topics'] == 'foo\\..*'
    # The lab is secured: SASL_SSL on 9094 for both clusters and the producer, the password a placeholder.
    placeholder = 'password="${file:/etc/kafka/connect/secrets/mm2.properties:sasl.password}";'
    for prefix, bootstrap in (('source.cluster.', 'src-kafka-1:9094'), ('target.cluster.', 'dst-kafka-1:9094'),
                              ('producer.override.', 'dst-kafka-1:9094')):
        assert source[prefix + 'bootstrap.servers'] == bootstrap
        assert source[prefix + 'security.protocol'] == 'SASL_SSL'
        assert source[prefix + 'sasl.mechanism'] == 'SCRAM-SHA-512'
        assert source[prefix + 'sasl.jaas.config'].endswith(placeholder)
        assert source[prefix + 'ssl.truststore.location'] == '/etc/kafka/tls/ca.pem'
    assert source['offset-syncs.topic.location'] == 'target'
    assert source['refresh.topics.interval.seconds'] == '5'
    assert source['sync.topic.configs.interval.seconds'] == '5'
    # Heartbeats are written on src with MM2's src credentials (the lab grants Write on its heartbeats
    # topic), keep the flow's aliases and reach dst as src.heartbeats through the source connector.
    heartbeat = plan['connectors'][2]['config']
    for prefix in ('source.cluster.', 'target.cluster.', 'producer.override.'):
        assert heartbeat[prefix + 'bootstrap.servers'] == 'src-kafka-1:9094'
        assert heartbeat[prefix + 'sasl.jaas.config'].endswith(placeholder)
    assert (heartbeat['source.cluster.alias'], heartbeat['target.cluster.alias']) == ('src', 'dst')
    assert plan['flows'][0]['heartbeats_cluster'] == 'src'


@pytest.mark.playbook
def test_heartbeats_can_stay_on_the_target(tmp_path: Path) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*'], 'heartbeats_topic_location': 'target'}]
    plan = read_plan(tmp_path, str(REPO_ROOT / 'inventories' / 'lab'), {'plan_hosts': 'connect_workers', 'mm2_flows': flows})
    heartbeat = plan['connectors'][2]['config']
    assert heartbeat['target.cluster.bootstrap.servers'] == heartbeat['producer.override.bootstrap.servers'] == 'dst-kafka-1:9094'
    assert plan['flows'][0]['heartbeats_cluster'] == 'dst'


@pytest.mark.playbook
def test_example_inventory_plans_cleanly(tmp_path: Path) -> None:
    plan = read_plan(tmp_path, str(REPO_ROOT / 'inventories' / 'example_emr'), {'plan_hosts': 'connect_workers'})
    assert plan['errors'] == []
    assert len(plan['connectors']) >= 3
    assert any('${file:' in value for connector in plan['connectors'] for value in connector['config'].values())
    assert plan['store_files'] == [{'alias': 'emrsource', 'kind': 'truststore',
                                    'src': str(REPO_ROOT / 'inventories' / 'example_emr' / 'files' / 'emrsource-truststore.p12'),
                                    'dest': '/etc/kafka/connect/tls/emrsource-truststore.p12'}]


@pytest.mark.playbook
def test_a_bad_model_stops_the_play_with_every_problem(tmp_path: Path) -> None:
    model = {
        'mm2_clusters': {'src': {'bootstrap_servers': 'src:9092'}, 'dst': {'bootstrap_servers': 'dst:9092'}},
        'mm2_flows': [{'source': 'src', 'target': 'src'}, {'source': 'src', 'target': 'elsewhere'}],
        'plan_output': str(tmp_path / 'never.json'),
        # An explicit localhost is not the implicit one: point it at this interpreter.
        'ansible_python_interpreter': sys.executable,
    }
    done = run_plan(tmp_path, 'localhost,', model)
    assert done.returncode != 0
    assert 'the MirrorMaker 2 model is invalid; nothing was changed' in done.stdout
    assert 'source and target are the same cluster' in done.stdout
    assert 'target "elsewhere" is not a cluster alias' in done.stdout
    assert not (tmp_path / 'never.json').exists()


def flow_option_names(spec: Dict[str, Any]) -> List[str]:
    return sorted(spec['argument_specs']['main']['options']['mirrormaker_flows']['options'])


def test_argument_specs_document_every_flow_option_and_variable() -> None:
    import yaml
    spec = yaml.safe_load((REPO_ROOT / 'roles' / 'mirrormaker' / 'meta' / 'argument_specs.yml').read_text())
    defaults = yaml.safe_load((REPO_ROOT / 'roles' / 'mirrormaker' / 'defaults' / 'main.yml').read_text())
    builtin = defaults['mirrormaker_flow_builtin_defaults']
    assert flow_option_names(spec) == sorted(set(builtin) | {'source', 'target'})
    assert sorted(spec['argument_specs']['main']['options']) == sorted(defaults)
    readme = (REPO_ROOT / 'roles' / 'mirrormaker' / 'README.md').read_text()
    for name in defaults:
        assert '`%s`' % name in readme, name
    for name in builtin:  # rows of the table scripts/gen_docs.py generates from the specs
        assert '`mirrormaker_flows[].%s`' % name in readme, name
