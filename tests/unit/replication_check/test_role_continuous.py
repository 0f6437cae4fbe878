# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The continuous verification's units as role replication_check renders them for the lab's flow
(ansible-playbook on the controller, nothing contacted): an incremental run of the flow's state
with its metrics next to it, a timer that never overlaps runs, an exporter, and no secret."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Dict

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
PLAYBOOK = Path(__file__).with_name('continuous_units.yml')
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'
SECRET = 'verify-secret-3'

pytestmark = [pytest.mark.playbook,
              pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason='the project venv (make setup) provides ansible-playbook')]


@pytest.fixture(scope='module')
def units(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, str]:
    render_dir = tmp_path_factory.mktemp('continuous')
    extra = {'check_hosts': 'connect_workers[0]', 'render_dir': str(render_dir), 'replication_check_continuous_interval': 45,
             'replication_check_target_client': {'sasl.jaas.config': 'password="%s";' % SECRET},
             'replication_check_topics_regex': r'foo\..*'}
    vars_file = render_dir / 'vars.json'
    vars_file.write_text(json.dumps(extra))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    done = subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', str(REPO_ROOT / 'inventories' / 'lab'), str(PLAYBOOK), '-e', '@%s' % vars_file],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return {path.name: path.read_text() for path in render_dir.iterdir() if path.suffix in ('.service', '.timer')}


def directive(text: str, name: str) -> str:
    (line,) = [line for line in text.splitlines() if line.startswith(name + '=')]
    return line.split('=', 1)[1]


def test_the_increment_runs_the_flows_state_with_its_metrics_next_to_it(units: Dict[str, str]) -> None:
    service = units['kafka-dr-verify-src-dst.service']
    words = shlex.split(directive(service, 'ExecStart'))
    assert words[:3] == ['/opt/kafka-dr/replication-check/venv/bin/python', '-m', 'mm2_validator']
    options = dict(zip(words[3:], words[4:]))
    assert options['--state'] == '/var/lib/kafka-dr/validator/src-dst.json' and '--incremental' in words
    assert '--metrics-file=/var/lib/kafka-dr/validator/src-dst.prom' in words and '--metrics-flow=src-dst' in words
    assert '--report-json=/var/lib/kafka-dr/validator/reports/src-dst/latest.json' in words
    # systemd reads backslashes in quotes as escapes: the regex arrives as written.
    assert options['--topics-regex'] == r'foo\..*' and r'"foo\\..*"' in service
    assert directive(service, 'Type') == 'oneshot' and directive(service, 'SuccessExitStatus') == '1'
    assert directive(service, 'StateDirectory') == 'kafka-dr/validator'
    after = shlex.split(directive(service, 'ExecStopPost'))
    assert after[2:4] == ['mm2_validator.continuous', 'after-run'] and '--interval=45' in after and '--keep=20' in after


def test_the_timer_starts_the_next_run_after_the_previous_ended(units: Dict[str, str]) -> None:
    timer = units['kafka-dr-verify-src-dst.timer']
    assert directive(timer, 'OnUnitInactiveSec') == '45s'
    assert directive(timer, 'Unit') == 'kafka-dr-verify-src-dst.service'
    assert 'OnUnitActiveSec' not in timer


def test_the_increments_run_as_their_own_account(units: Dict[str, str]) -> None:
    service = units['kafka-dr-verify-src-dst.service']
    assert directive(service, 'User') == 'kafka-dr-verify' and directive(service, 'Group') == 'kafka-dr-verify'
    assert directive(service, 'ProtectSystem') == 'strict' and directive(service, 'NoNewPrivileges') == 'yes'


def test_the_exporter_serves_the_state_directory_unprivileged(units: Dict[str, str]) -> None:
    exporter = units['kafka-dr-verification.service']
    assert directive(exporter, 'User') == 'kafka-dr-verification'
    assert directive(exporter, 'ExecStart').endswith(
        '-m mm2_validator.continuous serve --dir /var/lib/kafka-dr/validator --address 0.0.0.0 --port 9407')


def test_no_secret_is_in_a_unit(units: Dict[str, str]) -> None:
    assert all(SECRET not in text and 'sasl.jaas' not in text for text in units.values())
    assert '--target-properties' in units['kafka-dr-verify-src-dst.service']
