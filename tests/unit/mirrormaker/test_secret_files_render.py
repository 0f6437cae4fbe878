# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The role's secret files as ansible-playbook renders them: a password that a cluster's JAAS line
reads is JAAS-escaped once, then properties-escaped once; store passwords and ordinary passwords
are written as they are."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.java_properties import loads

REPO_ROOT = Path(__file__).resolve().parents[3]
PLAYBOOK = Path(__file__).with_name('secret_files_render.yml')
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'
SECRETS = '/etc/kafka/connect/secrets'

# Backslash, double quote, separators, comment marks, blanks and non-ASCII.
TRICKY = 'p@ss=w:rd\\x#\u00e9! say "hi"'
# What the file must hold once the properties escaping is undone: the JAAS escape, once.
TRICKY_JAAS = 'p@ss=w:rd\\\\x#\u00e9! say \\"hi\\"'
ORDINARY = 'Ordinary-pass=w0rd: #1 \u00e9'


def scram(password_file: str, **options: str) -> Dict[str, Any]:
    return dict({'bootstrap_servers': ['b-1:9094'], 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'SCRAM-SHA-512',
                 'sasl_username': 'mm2', 'sasl_password_file': password_file}, **options)


def render(tmp_path: Path, extra_vars: Dict[str, Any]) -> Dict[str, str]:
    """File name -> content of the role's secret file entries."""
    output = tmp_path / 'entries.json'
    vars_file = tmp_path / 'vars.json'
    # An explicit localhost is not the implicit one: point it at this interpreter.
    given = dict(extra_vars, render_output=str(output), ansible_python_interpreter=sys.executable)
    vars_file.write_text(json.dumps(given), encoding='utf-8')
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    done = subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', 'localhost,', str(PLAYBOOK), '-e', '@%s' % vars_file],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    entries = json.loads(output.read_text(encoding='utf-8'))
    assert all(entry['secret'] and entry['mode'] == '0640' for entry in entries)
    return {entry['dest'][len(SECRETS) + 1:]: entry['content'] for entry in entries}


@pytest.fixture(scope='module', autouse=True)
def needs_ansible() -> None:
    if not ANSIBLE_PLAYBOOK.exists():
        pytest.skip('the project venv (make setup) provides ansible-playbook')


@pytest.mark.playbook
def test_passwords_read_by_jaas_lines_are_escaped_once(tmp_path: Path) -> None:
    files = render(tmp_path, {
        'mm2_clusters': {'src': scram('mm2.properties', ssl_truststore_password_file='mm2.properties'),
                         'dst': scram('plain.properties')},
        'mirrormaker_secret_files': {
            'mm2.properties': {'sasl.password': TRICKY, 'sasl.password.sha256': TRICKY,
                               'ssl.truststore.password': TRICKY},
            'plain.properties': {'sasl.password': ORDINARY},
            'unread.properties': {'sasl.password': TRICKY},
        },
    })
    mm2 = loads(files['mm2.properties'])
    assert mm2 == {'sasl.password': TRICKY_JAAS, 'sasl.password.sha256': TRICKY_JAAS,  # read now, staged for a rotation
                   'ssl.truststore.password': TRICKY}  # read by ssl.truststore.password, not a JAAS line
    assert files['mm2.properties'].startswith('sasl.password=p@ss=w:rd\\\\\\\\x#\\u00e9! say \\\\"hi\\\\"\n')
    # No JAAS line reads these: written as they are (an ordinary password is byte-identical to before).
    assert files['plain.properties'] == 'sasl.password=Ordinary-pass=w0rd: #1 \\u00e9\n'
    assert loads(files['unread.properties']) == {'sasl.password': TRICKY}


@pytest.mark.playbook
def test_without_clusters_nothing_is_escaped(tmp_path: Path) -> None:
    files = render(tmp_path, {'mirrormaker_secret_files': {'mm2.properties': {'sasl.password': TRICKY}}})
    assert loads(files['mm2.properties']) == {'sasl.password': TRICKY}
