# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The role's planning stage on a Connect cluster without a config provider of ours, run by ansible-playbook
(at -v, where a task's whole result is shown): refused with both ways out, or, with mirrormaker_inline_secrets,
the values put in the configs to deploy while the play's output holds none of them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
PLAYBOOK = Path(__file__).with_name('plan_only.yml')
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'
PASSWORD = 'role-inline-pw-8842'


@pytest.fixture(scope='module', autouse=True)
def needs_ansible() -> None:
    if not ANSIBLE_PLAYBOOK.exists():
        pytest.skip('the project venv (make setup) provides ansible-playbook')


def model(tmp_path: Path, **extra: Any) -> Dict[str, Any]:
    secured = {'security_protocol': 'SASL_PLAINTEXT', 'sasl_mechanism': 'SCRAM-SHA-512', 'sasl_username': 'mm2',
               'sasl_password_file': 'mm2.properties'}
    variables = {
        'mm2_clusters': {'src': dict(secured, bootstrap_servers='src:9094'), 'dst': dict(secured, bootstrap_servers='dst:9094')},
        'mm2_flows': [{'source': 'src', 'target': 'dst'}],
        'mirrormaker_secret_files': {'mm2.properties': {'sasl.password': PASSWORD}},
        # A Connect cluster the collection did not build: no config provider at all.
        'mirrormaker_connect_config_providers': [],
        'plan_output': str(tmp_path / 'plan.json'),
        'ansible_python_interpreter': sys.executable,
    }
    variables.update(extra)
    return variables


def run_plan(tmp_path: Path, variables: Dict[str, Any]) -> subprocess.CompletedProcess:
    vars_file = tmp_path / 'vars.json'
    vars_file.write_text(json.dumps(variables))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    return subprocess.run([str(ANSIBLE_PLAYBOOK), '-v', '-i', 'localhost,', str(PLAYBOOK), '-e', '@%s' % vars_file],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.playbook
def test_without_a_provider_the_play_stops_with_both_ways_out(tmp_path: Path) -> None:
    done = run_plan(tmp_path, model(tmp_path))
    assert done.returncode != 0
    output = ' '.join(done.stdout.split())
    assert 'the MirrorMaker 2 model is invalid; nothing was changed' in output
    assert 'needed by cluster dst (sasl.jaas.config); cluster src (sasl.jaas.config)' in output
    assert 'config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider' in output
    assert 'set mirrormaker_inline_secrets: true' in output
    assert PASSWORD not in done.stdout + done.stderr
    assert not (tmp_path / 'plan.json').exists()


@pytest.mark.playbook
def test_inline_secrets_plan_the_values_and_show_none(tmp_path: Path) -> None:
    done = run_plan(tmp_path, model(tmp_path, mirrormaker_inline_secrets=True))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    shown = done.stdout + done.stderr
    assert PASSWORD not in shown
    assert 'mirrormaker_inline_secrets: the configs of mm2-src-dst-checkpoint' in ' '.join(shown.split())
    assert 'the output has been hidden' in shown
    plan = json.loads((tmp_path / 'plan.json').read_text())
    source = plan['connectors'][0]
    assert plan['inline_configs'][source['name']]['source.cluster.sasl.jaas.config'].endswith('password="%s";' % PASSWORD)
    assert source['config']['source.cluster.sasl.jaas.config'].endswith(':sasl.password}";')
    assert 'source.cluster.sasl.jaas.config' in source['secret_keys']


@pytest.mark.playbook
def test_a_password_in_clear_in_the_model_stops_the_play_unless_opted_in(tmp_path: Path) -> None:
    clusters = model(tmp_path)['mm2_clusters']
    jaas = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="mm2" password="%s";' % PASSWORD
    clusters['src'] = {'bootstrap_servers': 'src:9094', 'security_protocol': 'SASL_PLAINTEXT', 'sasl_mechanism': 'SCRAM-SHA-512',
                       'sasl_jaas_config': jaas}
    done = run_plan(tmp_path, model(tmp_path, mm2_clusters=clusters, mirrormaker_connect_config_providers=None))
    assert done.returncode != 0
    output = ' '.join(done.stdout.split())
    assert 'cluster src: sasl_jaas_config gives password= in clear' in output
    assert PASSWORD not in done.stdout + done.stderr
    assert not (tmp_path / 'plan.json').exists()

    done = run_plan(tmp_path, model(tmp_path, mm2_clusters=clusters, mirrormaker_connect_config_providers=None,
                                    mirrormaker_inline_secrets=True))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert PASSWORD not in done.stdout + done.stderr
    plan = json.loads((tmp_path / 'plan.json').read_text())
    assert plan['inline_configs']['mm2-src-dst-source']['source.cluster.sasl.jaas.config'] == jaas
