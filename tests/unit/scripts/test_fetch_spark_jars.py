# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""scripts/fetch_spark_jars.sh caches only jars with the SHA-256 role replication_check pins for their
names: a stand-in for Maven writes the jars, so the check runs without a network."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path
from typing import Dict, Optional

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
SCRIPT = REPO_ROOT / 'scripts' / 'fetch_spark_jars.sh'
# What Maven resolves for Spark 4.1.3: the dependency tree's three, then the token provider.
TREE = ('spark-sql-kafka-0-10_2.13-4.1.3.jar', 'kafka-clients-3.9.1.jar', 'commons-pool2-2.12.1.jar')
TOKEN = 'spark-token-provider-kafka-0-10_2.13-4.1.3.jar'
FAKE_MVN = r'''#!/usr/bin/env bash
# Writes each jar as its own name (plus FAKE_TAMPER for the jar named in FAKE_TAMPERED).
out=""; goal=""
for arg in "$@"; do
  case "$arg" in
    -DoutputDirectory=*) out=${arg#-DoutputDirectory=} ;;
    *copy-dependencies) goal=tree ;;
    *:copy) goal=token ;;
  esac
done
[ "$goal" = tree ] && jars="%s" || jars="%s"
for jar in $jars; do
  printf '%%s%%s' "$jar" "$([ "$jar" = "${FAKE_TAMPERED:-}" ] && echo tampered)" >"$out/$jar"
done
''' % (' '.join(TREE), TOKEN)


def digest(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()


def write_pins(path: Path, skip: Optional[str] = None, wrong: Optional[str] = None) -> Path:
    lines = ['replication_check_jar_checksums:']
    for jar in TREE + (TOKEN,):
        if jar != skip:
            lines.append('  "%s": "sha256:%s"' % (jar, digest(jar + 'x') if jar == wrong else digest(jar)))
    path.write_text('\n'.join(lines) + '\n')
    return path


@pytest.fixture
def env(tmp_path: Path) -> Dict[str, str]:
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    (bin_dir / 'mvn').write_text(FAKE_MVN)
    (bin_dir / 'mvn').chmod(0o755)
    return dict(os.environ, PATH='%s:%s' % (bin_dir, os.environ['PATH']), KAFKA_DR_CACHE=str(tmp_path / 'cache'),
                KAFKA_DR_SPARK_VERSION='4.1.3', KAFKA_DR_SPARK_JAR_CHECKSUMS=str(write_pins(tmp_path / 'pins.yml')))


def fetch(env: Dict[str, str], **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(['bash', str(SCRIPT)], env=dict(env, **extra), capture_output=True, text=True, timeout=60, check=False)


def cached(env: Dict[str, str]) -> Dict[str, bytes]:
    dest = Path(env['KAFKA_DR_CACHE']) / 'spark-jars' / '4.1.3'
    return {path.name: path.read_bytes() for path in dest.glob('*.jar')} if dest.is_dir() else {}


def test_pinned_jars_are_cached_and_a_second_run_is_quiet(env: Dict[str, str]) -> None:
    first = fetch(env)
    assert first.returncode == 0, first.stderr
    assert sorted(cached(env)) == sorted(TREE + (TOKEN,))
    second = fetch(env, PATH='/usr/bin:/bin')  # no Maven needed: the cache is complete and as pinned
    assert second.returncode == 0 and second.stdout == second.stderr == ''


def test_a_jar_with_another_digest_fails_the_fetch_and_nothing_is_cached(env: Dict[str, str], tmp_path: Path) -> None:
    done = fetch(env, FAKE_TAMPERED='kafka-clients-3.9.1.jar')
    assert done.returncode == 1
    assert 'kafka-clients-3.9.1.jar has SHA-256 %s, not the %s pinned in' % (
        hashlib.sha256(b'kafka-clients-3.9.1.jartampered').hexdigest(), digest('kafka-clients-3.9.1.jar')) in done.stderr
    assert 'nothing was copied' in done.stderr and cached(env) == {}


def test_a_jar_without_a_pin_fails_the_fetch(env: Dict[str, str], tmp_path: Path) -> None:
    pins = write_pins(tmp_path / 'partial.yml', skip='commons-pool2-2.12.1.jar')
    done = fetch(env, KAFKA_DR_SPARK_JAR_CHECKSUMS=str(pins))
    assert done.returncode == 1
    assert 'commons-pool2-2.12.1.jar (SHA-256 %s) has no pin' % digest('commons-pool2-2.12.1.jar') in done.stderr
    assert cached(env) == {}


def test_a_cached_jar_altered_later_is_fetched_again(env: Dict[str, str]) -> None:
    assert fetch(env).returncode == 0
    jar = Path(env['KAFKA_DR_CACHE']) / 'spark-jars' / '4.1.3' / 'commons-pool2-2.12.1.jar'
    jar.write_bytes(b'altered')
    done = fetch(env)
    assert done.returncode == 0, done.stderr
    assert cached(env)['commons-pool2-2.12.1.jar'] == b'commons-pool2-2.12.1.jar'


def test_the_role_pins_are_what_the_script_reads() -> None:
    # The script's default pins are the role's defaults, in the '  "<jar>": "sha256:<hex>"' form it reads.
    lines = (REPO_ROOT / 'roles' / 'replication_check' / 'defaults' / 'main.yml').read_text().splitlines()
    start = lines.index('replication_check_jar_checksums:')
    entries = lines[start + 1:start + 5]
    assert all(line.startswith('  "') and '.jar": "sha256:' in line for line in entries), entries
