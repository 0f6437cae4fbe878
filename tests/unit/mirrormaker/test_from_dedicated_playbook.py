# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/mm2_from_dedicated.yml on the controller: a guide's mm2.properties in, the model's YAML out,
the secret values only in a separate file and only when asked for."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path
from typing import List

import pytest
import yaml

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_dedicated import from_dedicated

REPO_ROOT = Path(__file__).resolve().parents[3]
PLAYBOOK = REPO_ROOT / 'playbooks' / 'mm2_from_dedicated.yml'
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'
FIXTURES = REPO_ROOT / 'tests' / 'unit' / 'plugins' / 'plugin_utils' / 'fixtures'


@pytest.fixture(scope='module', autouse=True)
def needs_ansible() -> None:
    if not ANSIBLE_PLAYBOOK.exists():
        pytest.skip('the project venv (make setup) provides ansible-playbook')


def convert(workdir: Path, *extra_vars: str, verbosity: str = '') -> subprocess.CompletedProcess:
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1', PWD=str(workdir))
    command: List[str] = [str(ANSIBLE_PLAYBOOK), str(PLAYBOOK), *([verbosity] if verbosity else [])]
    for variable in extra_vars:
        command += ['-e', variable]
    return subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.playbook
def test_the_model_is_written_with_references_only(tmp_path: Path) -> None:
    (tmp_path / 'mm2.properties').write_text((FIXTURES / 'mm2_dedicated_one_way.properties').read_text(encoding='utf-8'), encoding='utf-8')
    done = convert(tmp_path, 'mm2_properties=mm2.properties', 'mm2_model_output=group_vars/all/mm2.yml')
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    written = (tmp_path / 'group_vars' / 'all' / 'mm2.yml').read_text()
    expected = from_dedicated((tmp_path / 'mm2.properties').read_text(encoding='utf-8'))
    assert yaml.safe_load(written) == {'mm2_clusters': expected['mm2_clusters'], 'mm2_flows': expected['mm2_flows']}
    assert '#   src.properties: sasl.password (sasl.jaas.config password of cluster src, line 35)' in written
    assert '#   lines 33, 34, 35: the consumer client' in written
    assert '"pass"' not in written and 'pass\n' not in written
    assert sorted(path.name for path in (tmp_path / 'group_vars' / 'all').iterdir()) == ['mm2.yml']
    assert 'the secrets are references only (src.properties, dst.properties)' in done.stdout.replace('\n        ', ' ')


@pytest.mark.playbook
def test_the_secret_values_go_to_their_own_file_when_asked(tmp_path: Path) -> None:
    source = tmp_path / 'mm2.properties'
    source.write_text((FIXTURES / 'mm2_dedicated_one_way.properties').read_text(encoding='utf-8'), encoding='utf-8')
    done = convert(tmp_path, 'mm2_properties=%s' % source, 'mm2_model_output=%s' % (tmp_path / 'mm2.yml'),
                   'mm2_secrets_output=vault/mm2_secrets.yml')
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    vault = tmp_path / 'vault' / 'mm2_secrets.yml'
    assert yaml.safe_load(vault.read_text()) == {'mirrormaker_secret_files': {'src.properties': {'sasl.password': 'pass'},
                                                                              'dst.properties': {'sasl.password': 'pass'}}}
    assert stat.S_IMODE(vault.stat().st_mode) == 0o600
    assert 'sasl.password: pass' not in done.stdout
    assert 'pass' not in yaml.safe_load((tmp_path / 'mm2.yml').read_text())['mm2_clusters']['src'].values()


@pytest.mark.playbook
def test_a_file_that_cannot_be_mapped_stops_the_play_naming_its_lines(tmp_path: Path) -> None:
    (tmp_path / 'mm2.properties').write_text((FIXTURES / 'mm2_dedicated_hdinsight.properties').read_text(encoding='utf-8'), encoding='utf-8')
    done = convert(tmp_path, 'mm2_properties=mm2.properties', 'mm2_model_output=mm2.yml')
    assert done.returncode != 0
    assert 'line 7: source.bootstrap.servers: names no host:port' in done.stdout
    assert not (tmp_path / 'mm2.yml').exists()


@pytest.mark.playbook
def test_the_paths_are_required(tmp_path: Path) -> None:
    done = convert(tmp_path, 'mm2_properties=mm2.properties')
    assert done.returncode != 0 and 'Give the file to convert and where to write the model' in done.stdout


def with_password(password: str) -> str:
    return (FIXTURES / 'mm2_dedicated_one_way.properties').read_text(encoding='utf-8').replace('"pass"', '"%s"' % password)


@pytest.mark.playbook
@pytest.mark.parametrize('outputs', [(), ('mm2_secrets_output=vault.yml',)], ids=['references', 'secret values'])
def test_no_verbosity_prints_the_file(tmp_path: Path, outputs: tuple) -> None:
    password = 'ded1cated-pw-6613'
    (tmp_path / 'mm2.properties').write_text(with_password(password), encoding='utf-8')
    done = convert(tmp_path, 'mm2_properties=mm2.properties', 'mm2_model_output=mm2.yml', *outputs, verbosity='-vvv')
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    printed = done.stdout + done.stderr
    assert 'src.properties' in printed and password not in printed
    # A comment of the file, which the model does not carry.
    assert '命名ポリシー' not in printed
