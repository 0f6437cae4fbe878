# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Role connect_worker's plugin jars through ansible-playbook on the controller (nothing else contacted): the check
of tasks/validate.yml passes verified jars and refuses a jar with another SHA-256, naming the file and both digests;
the layout puts a plugin under plugin.path and a replication policy on the class path of the worker's unit."""

from __future__ import annotations

import grp
import hashlib
import json
import os
import pwd
import subprocess
import zipfile
from pathlib import Path
from typing import Any, Dict, List

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
PLAYBOOK = Path(__file__).with_name('plugin_jars_render.yml')
INSTALL_PLAYBOOK = Path(__file__).with_name('plugin_jars_install.yml')
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'

pytestmark = [pytest.mark.playbook,
              pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason='the project venv (make setup) provides ansible-playbook')]


def make_jar(path: Path, manifest: str = '') -> Path:
    with zipfile.ZipFile(path, 'w') as jar:
        jar.writestr('com/example/Policy.class', b'\xca\xfe\xba\xbe')
        if manifest:
            jar.writestr(manifest, 'com.example.Thing\n')
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(tmp_path: Path, jars: List[Dict[str, Any]]) -> subprocess.CompletedProcess:
    vars_file = tmp_path / 'vars.json'
    vars_file.write_text(json.dumps({'render_dir': str(tmp_path), 'connect_worker_plugin_jars': jars,
                                     'connect_worker_metrics_enabled': False,
                                     'ansible_python_interpreter': '{{ ansible_playbook_python }}'}))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    return subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', 'localhost,', str(PLAYBOOK), '-e', '@%s' % vars_file],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_a_policy_on_the_class_path_and_a_plugin_under_the_plugin_path(tmp_path: Path) -> None:
    policy = make_jar(tmp_path / 'prefix-policy-1.0.jar')
    smt = make_jar(tmp_path / 'my-smt.jar', 'META-INF/services/org.apache.kafka.connect.transforms.Transformation')
    done = run(tmp_path, [{'src': str(policy), 'sha256': digest(policy), 'name': 'prefix-policy', 'classpath': True},
                          {'src': str(smt), 'sha256': digest(smt)}])
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    layout = json.loads((tmp_path / 'layout.json').read_text())
    assert [item['dest'] for item in layout['files']] == [
        '/opt/kafka/connect-classpath/prefix-policy/prefix-policy-1.0.jar', '/opt/kafka/plugins/my-smt/my-smt.jar']
    exec_start = [line for line in (tmp_path / 'kafka-connect.service').read_text().splitlines() if line.startswith('ExecStart=')]
    assert len(exec_start) == 1
    assert ' -cp /opt/kafka/current/libs/*:/opt/kafka/connect-classpath/prefix-policy/* org.apache.kafka.connect.cli.ConnectDistributed ' \
        in exec_start[0]


def test_without_jars_the_class_path_is_the_distributions(tmp_path: Path) -> None:
    done = run(tmp_path, [])
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert ' -cp /opt/kafka/current/libs/* org.apache.kafka.connect.cli.ConnectDistributed ' in \
        (tmp_path / 'kafka-connect.service').read_text()


def test_a_jar_with_another_checksum_is_refused_before_anything_is_installed(tmp_path: Path) -> None:
    policy = make_jar(tmp_path / 'policy.jar')
    expected = 'f' * 64
    done = run(tmp_path, [{'src': str(policy), 'sha256': expected, 'classpath': True}])
    assert done.returncode != 0
    assert '%s has the SHA-256 %s, not the expected %s' % (policy, digest(policy), expected) in done.stdout
    assert not (tmp_path / 'layout.json').exists()


def install(tmp_path: Path, jars: List[Dict[str, Any]]) -> subprocess.CompletedProcess:
    """tasks/plugin_jars.yml into tmp_path, owned by this user's group; "started in this run", so no restart."""
    vars_file = tmp_path / 'install-vars.json'
    vars_file.write_text(json.dumps({
        'connect_worker_plugin_jars': jars, 'connect_worker_plugin_dir': str(tmp_path / 'plugins'),
        'connect_worker_classpath_dir': str(tmp_path / 'connect-classpath'), 'kafka_install_group': grp.getgrgid(os.getgid()).gr_name,
        '__connect_worker_started': {'changed': True}, 'ansible_python_interpreter': '{{ ansible_playbook_python }}'}))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    return subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', 'localhost,', str(INSTALL_PLAYBOOK), '-e', '@%s' % vars_file],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.skipif(pwd.getpwuid(os.getuid()).pw_name != 'root', reason='the jars are installed owned by root')
def test_install_is_idempotent_and_a_new_version_replaces_the_old(tmp_path: Path) -> None:
    (tmp_path / 'plugins').mkdir()
    old = make_jar(tmp_path / 'prefix-policy-1.0.jar')
    smt = make_jar(tmp_path / 'my-smt.jar', 'META-INF/services/org.apache.kafka.connect.transforms.Transformation')
    jars = [{'src': str(old), 'sha256': digest(old), 'name': 'prefix-policy', 'classpath': True}, {'src': str(smt), 'sha256': digest(smt)}]
    first = install(tmp_path, jars)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-2000:]
    policy_dir = tmp_path / 'connect-classpath' / 'prefix-policy'
    assert (policy_dir / 'prefix-policy-1.0.jar').read_bytes() == old.read_bytes()
    assert (tmp_path / 'plugins' / 'my-smt' / 'my-smt.jar').read_bytes() == smt.read_bytes()
    assert oct(policy_dir.stat().st_mode & 0o777) == '0o750'
    assert oct((policy_dir / 'prefix-policy-1.0.jar').stat().st_mode & 0o777) == '0o640'
    assert (policy_dir / 'prefix-policy-1.0.jar').stat().st_uid == 0

    again = install(tmp_path, jars)
    assert again.returncode == 0 and 'changed=0' in again.stdout, again.stdout[-3000:]

    new = tmp_path / 'prefix-policy-1.1.jar'
    with zipfile.ZipFile(new, 'w') as jar:
        jar.writestr('com/example/Policy.class', b'\xca\xfe\xba\xbe\x00')
    upgraded = install(tmp_path, [dict(jars[0], src=str(new), sha256=digest(new)), jars[1]])
    assert upgraded.returncode == 0, upgraded.stdout[-3000:] + upgraded.stderr[-2000:]
    assert sorted(path.name for path in policy_dir.iterdir()) == ['prefix-policy-1.1.jar']
    assert (tmp_path / 'plugins' / 'my-smt' / 'my-smt.jar').exists()
