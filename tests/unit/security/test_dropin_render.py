# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The systemd drop-ins of roles connect_worker and kafka_broker render as before (a drop-in that did not
change must not restart a service); prometheus's holds the sandbox of the package's unit, then the same
overrides; all refuse a value that would start a directive of its own (through ansible-playbook on the
controller, nothing contacted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import pytest

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.systemd_hardening import systemd_hardened_dropin

REPO_ROOT = Path(__file__).resolve().parents[3]
PLAYBOOK = Path(__file__).with_name('dropin_render.yml')
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'
ROLES = ('connect_worker', 'kafka_broker')
# The comment prometheus's drop-in starts with, before the sandbox and the overrides.
PROMETHEUS_HEADER = '''# Ansible managed
# Least privilege (docs/security.md, "Services on the hosts"): the package's unit confined further, the server
# writing its storage only (no ProtectProc=: the unit's PrivateUsers= cannot mount a /proc of its own);
# prometheus_systemd_overrides comes after and replaces what it names.
'''
# The roles' override.conf.j2 before the values went through filter kafka_dr.mm2.systemd_dropin.
FORMER_TEMPLATE = '''# {{ ansible_managed }}
{% for section, directives in prometheus_systemd_overrides | dictsort %}
[{{ section }}]
{% for key, value in directives | dictsort %}
{{ key }}={{ value }}
{% endfor %}
{% endfor %}
'''

pytestmark = [pytest.mark.playbook,
              pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason='the project venv (make setup) provides ansible-playbook')]


def render(tmp_path: Path, overrides: Dict[str, Any]) -> subprocess.CompletedProcess:
    former = tmp_path / 'former.j2'
    former.write_text(FORMER_TEMPLATE)
    variables = {'overrides': overrides, 'render_dir': str(tmp_path), 'former_template': str(former),
                 'ansible_python_interpreter': sys.executable}
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    return subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', 'localhost,', str(PLAYBOOK), '-e', json.dumps(variables)],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize('overrides', [{}, {'Service': {'Nice': 5, 'LimitNOFILE': 200000, 'PrivateUsers': 'false'},
                                            'Unit': {'After': 'network-online.target'}}], ids=['none', 'some'])
def test_the_dropins_render_as_before(tmp_path: Path, overrides: Dict[str, Any]) -> None:
    done = render(tmp_path, overrides)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    former = (tmp_path / 'former.conf').read_text()
    for role in ROLES:
        assert (tmp_path / ('%s.conf' % role)).read_text() == former, role
    sandboxed = systemd_hardened_dropin(overrides, ['/var/lib/prometheus'], 'prometheus_systemd_overrides', no_jit=True,
                                        protect_proc=False)
    assert (tmp_path / 'prometheus.conf').read_text() == PROMETHEUS_HEADER + sandboxed


def test_a_value_with_a_line_break_is_refused(tmp_path: Path) -> None:
    done = render(tmp_path, {'Service': {'Nice': '5\nExecStartPre=/bin/sh -c id'}})
    assert done.returncode != 0
    assert ('connect_worker_systemd_overrides: Service Nice: a systemd unit value must not hold a line break'
            in ' '.join(done.stdout.split())), done.stdout[-2000:]
