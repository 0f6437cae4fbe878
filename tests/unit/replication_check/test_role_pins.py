# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Roles replication_check and failover refuse a jar or a Python package whose SHA-256 is not the pinned one,
naming it, before anything is installed (ansible-playbook on the controller; no host is contacted)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Dict

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
PLAYBOOK = Path(__file__).with_name('pins_check.yml')
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'
JAR = 'kafka-clients-3.9.1.jar'
PACKAGES = {'pyspark-4.1.3.tar.gz': b'sdist', 'py4j-0.10.9.9-py2.py3-none-any.whl': b'py4j',
            'setuptools-84.2.1-py3-none-any.whl': b'setuptools'}

pytestmark = [pytest.mark.playbook,
              pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason='the project venv (make venv) provides ansible-playbook')]


def sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def cache(tmp_path: Path, **tampered: bytes) -> Dict[str, Any]:
    """A controller cache with a jar, the packages and their locks, as pinned unless tampered names them."""
    jars, wheels = tmp_path / 'jars', tmp_path / 'wheels'
    jars.mkdir()
    wheels.mkdir()
    (jars / JAR).write_bytes(tampered.get(JAR, b'jar'))
    for name, content in PACKAGES.items():
        (wheels / name).write_bytes(tampered.get(name, content))
    lock = tmp_path / 'lock.txt'
    lock.write_text('pyspark==4.1.3 --hash=sha256:%s\npy4j==0.10.9.9 \\\n    --hash=sha256:%s\n' % (sha256(b'sdist'), sha256(b'py4j')))
    build = tmp_path / 'build.txt'
    build.write_text('setuptools==84.2.1 --hash=sha256:%s\n' % sha256(b'setuptools'))
    failover_lock = tmp_path / 'failover.txt'
    failover_lock.write_text('py4j==0.10.9.9 --hash=sha256:%s\n' % sha256(b'py4j'))
    return {
        'replication_check_source_alias': 'src', 'replication_check_target_alias': 'dst',
        'replication_check_source_bootstrap': 'src:9092', 'replication_check_target_bootstrap': 'dst:9092',
        'replication_check_topics': ['orders'], 'replication_check_jars_dir': str(jars),
        'replication_check_jar_checksums': {JAR: 'sha256:' + sha256(b'jar')}, 'replication_check_wheels_dir': str(wheels),
        'replication_check_requirements': str(lock), 'replication_check_build_requirements': str(build),
        'failover_wheels_dir': str(wheels), 'failover_requirements': str(failover_lock),
    }


def play(tmp_path: Path, extra: Dict[str, Any]) -> subprocess.CompletedProcess:
    inventory = tmp_path / 'inventory.yml'
    inventory.write_text(yaml.safe_dump({'all': {'hosts': {'unreachable': {
        'ansible_host': '127.0.0.1', 'ansible_port': 1, 'ansible_connection': 'ssh'}}}}))
    extra_file = tmp_path / 'extra.json'
    extra_file.write_text(json.dumps(extra))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    return subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', str(inventory), str(PLAYBOOK), '-e', '@%s' % extra_file],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_pinned_jars_and_packages_pass_the_checks(tmp_path: Path) -> None:
    done = play(tmp_path, cache(tmp_path))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_a_jar_with_another_digest_stops_the_role_naming_it(tmp_path: Path) -> None:
    done = play(tmp_path, cache(tmp_path, **{JAR: b'tampered'}))
    assert done.returncode != 0
    assert '%s/jars/%s has SHA-256 %s, not the sha256:%s replication_check_jar_checksums pins' % (
        tmp_path, JAR, sha256(b'tampered'), sha256(b'jar')) in done.stdout


def test_a_package_with_another_digest_stops_the_role_naming_it(tmp_path: Path) -> None:
    done = play(tmp_path, cache(tmp_path, **{'pyspark-4.1.3.tar.gz': b'tampered'}))
    assert done.returncode != 0
    assert '%s/wheels/pyspark-4.1.3.tar.gz has SHA-256 %s, not one the lock pins (%s)' % (
        tmp_path, sha256(b'tampered'), sha256(b'sdist')) in done.stdout


def test_the_failover_tool_checks_its_package_before_it_installs(tmp_path: Path) -> None:
    pinned, tampered = tmp_path / 'pinned', tmp_path / 'tampered'
    pinned.mkdir()
    tampered.mkdir()
    passed = play(pinned, dict(cache(pinned), check_failover=True))
    # Past the check, the next task needs the host, which nobody reaches.
    assert 'UNREACHABLE' in passed.stdout and 'Install Python venv support' in passed.stdout, passed.stdout[-3000:]
    refused = play(tampered, dict(cache(tampered, **{'py4j-0.10.9.9-py2.py3-none-any.whl': b'tampered'}), check_failover=True))
    assert refused.returncode != 0 and 'UNREACHABLE' not in refused.stdout
    assert '%s/wheels/py4j-0.10.9.9-py2.py3-none-any.whl has SHA-256 %s' % (tampered, sha256(b'tampered')) in refused.stdout
