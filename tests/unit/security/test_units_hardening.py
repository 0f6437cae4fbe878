# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every systemd unit the roles write runs its service confined (docs/security.md, "Services on the hosts"):
an account that is not root, no capabilities or new privileges, the file system read-only but for the
directories it writes, and an exposure no worse than recorded. Rendered from the roles with the lab's
inventory through ansible-playbook on the controller; nothing is contacted."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
PLAYBOOK = Path(__file__).with_name('units_render.yml')
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'
RECORDED = yaml.safe_load((REPO_ROOT / 'molecule' / 'default' / 'files' / 'exposure.yml').read_text())['units']

# The rendered file of each unit, by its name in exposure.yml.
SERVICES = {
    'kafka-broker': 'kafka-broker.service',
    'kafka-connect': 'kafka-connect.service',
    'kafka-connect-watchdog': 'kafka-connect-watchdog.service',
    'kafka-dr-readiness': 'kafka-dr-readiness.service',
    'kafka-dr-verify-<flow>': 'kafka-dr-verify-src-dst.service',
    'kafka-dr-verification': 'kafka-dr-verification.service',
    'spark-master': 'spark-master.service',
    'spark-worker': 'spark-worker.service',
}
# What each may write besides its StateDirectory= (the roles' defaults).
WRITES = {
    'kafka-broker': ['/var/lib/kafka/broker', '/var/log/kafka/broker', '/var/lib/kafka/broker-tmp'],
    'kafka-connect': ['/var/log/kafka/connect', '/var/lib/kafka/connect-tmp'],
    'spark-master': ['/var/lib/spark'],
    'spark-worker': ['/var/lib/spark'],
}
STATE_DIRECTORIES = {
    'kafka-connect-watchdog': 'kafka-connect-watchdog',
    'kafka-dr-readiness': 'kafka-dr-readiness',
    'kafka-dr-verify-<flow>': 'kafka-dr/validator',
}
# Services that start no JVM (whose JIT needs memory both writable and executable).
WITHOUT_JVM = {'kafka-connect-watchdog', 'kafka-dr-verification'}
SANDBOX = {
    'NoNewPrivileges': 'yes', 'CapabilityBoundingSet': '', 'AmbientCapabilities': '', 'ProtectSystem': 'strict',
    'PrivateTmp': 'yes', 'PrivateDevices': 'yes', 'ProtectHome': 'yes', 'ProtectKernelTunables': 'yes',
    'ProtectKernelModules': 'yes', 'ProtectKernelLogs': 'yes', 'ProtectControlGroups': 'yes', 'ProtectClock': 'yes',
    'ProtectHostname': 'yes', 'RestrictSUIDSGID': 'yes', 'RestrictNamespaces': 'yes', 'RestrictRealtime': 'yes',
    'LockPersonality': 'yes', 'SystemCallArchitectures': 'native', 'UMask': '0027',
}

pytestmark = [pytest.mark.playbook,
              pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason='the project venv (make setup) provides ansible-playbook')]


@pytest.fixture(scope='module')
def render_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp('units')
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    done = subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', str(REPO_ROOT / 'inventories' / 'lab'), str(PLAYBOOK),
                           '-e', json.dumps({'render_dir': str(path)})],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return path


def directives(text: str, section: str = 'Service') -> Dict[str, List[str]]:
    found: Dict[str, List[str]] = {}
    current = ''
    for line in text.splitlines():
        if line.startswith('['):
            current = line.strip('[]')
        elif current == section and '=' in line and not line.startswith('#'):
            key, value = line.split('=', 1)
            found.setdefault(key, []).append(value)
    return found


def test_every_unit_template_of_the_roles_is_rendered_here() -> None:
    """A unit added to a role must be added here (and to exposure.yml) to be checked."""
    templates = sorted(path.relative_to(REPO_ROOT / 'roles').as_posix()
                       for path in (REPO_ROOT / 'roles').glob('*/templates/*.j2')
                       if path.name.endswith(('.service.j2', '.timer.j2', 'override.conf.j2')))
    listed = PLAYBOOK.read_text()
    missing = [template for template in templates
               if not template.endswith('.timer.j2') and 'src: %s' % template.split('/')[-1] not in listed]
    assert missing == []
    assert len(SERVICES) == len([template for template in templates if template.endswith('.service.j2')])


@pytest.mark.parametrize('unit', sorted(SERVICES))
def test_each_service_runs_confined_as_its_account(render_dir: Path, unit: str) -> None:
    service = directives((render_dir / SERVICES[unit]).read_text())
    for key, value in SANDBOX.items():
        assert service.get(key) == [value], (unit, key, service.get(key))
    assert service['SystemCallFilter'] == ['@system-service', '~@privileged @resources']
    assert service['User'] == [RECORDED[unit]['user']] and service['User'] != ['root']
    assert service.get('ReadWritePaths', [''])[0].split() == WRITES.get(unit, []), unit
    assert service.get('StateDirectory') == ([STATE_DIRECTORIES[unit]] if unit in STATE_DIRECTORIES else None), unit
    assert service.get('MemoryDenyWriteExecute') == (['yes'] if unit in WITHOUT_JVM else None), unit


def test_the_increments_run_as_their_account_not_root(render_dir: Path) -> None:
    service = directives((render_dir / SERVICES['kafka-dr-verify-<flow>']).read_text())
    assert service['User'] == ['kafka-dr-verify'] and service['Group'] == ['kafka-dr-verify']
    # The lab's client settings name its CA in /etc/kafka/tls (root:kafka 0750).
    assert service['SupplementaryGroups'] == ['kafka']


def test_the_package_unit_of_prometheus_is_confined_by_its_drop_in(render_dir: Path) -> None:
    dropin = directives((render_dir / 'prometheus.service.d-override.conf').read_text())
    for key, value in SANDBOX.items():
        assert dropin.get(key) == [value], key
    assert dropin['ReadWritePaths'] == ['/var/lib/prometheus'] and dropin['MemoryDenyWriteExecute'] == ['yes']
    # Debian's unit has PrivateUsers=yes, with which ProtectProc= fails to start the server.
    assert 'ProtectProc' not in dropin


@pytest.mark.parametrize('dropin', ['kafka-broker.service.d-override.conf', 'kafka-connect.service.d-override.conf'])
def test_the_operators_drop_ins_hold_only_their_overrides(render_dir: Path, dropin: str) -> None:
    """The sandbox is in the units; the drop-ins stay the operator's, so an override there replaces it."""
    assert (render_dir / dropin).read_text() == '# Ansible managed\n'


def offline_security() -> bool:
    if shutil.which('systemd-analyze') is None:
        return False
    done = subprocess.run(['systemd-analyze', 'security', '--help'], capture_output=True, text=True, check=False)
    return '--offline' in done.stdout


@pytest.mark.skipif(not offline_security(), reason='needs systemd-analyze security --offline (systemd 250 or later)')
@pytest.mark.parametrize('unit', sorted(SERVICES))
def test_each_service_is_no_more_exposed_than_recorded(render_dir: Path, unit: str) -> None:
    done = subprocess.run(['systemd-analyze', 'security', '--offline=true', '--no-pager', str(render_dir / SERVICES[unit])],
                          capture_output=True, text=True, check=False, timeout=60)
    match = re.search(r'Overall exposure level for \S+: ([0-9.]+)', done.stdout)
    assert match, done.stdout[-2000:] + done.stderr[-2000:]
    assert float(match.group(1)) <= RECORDED[unit]['max_exposure'], (unit, match.group(1))
