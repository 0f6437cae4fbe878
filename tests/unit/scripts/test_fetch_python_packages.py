# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""scripts/fetch_python_packages.py: the controller's package cache holds a file with a pinned SHA-256 for each
package of the roles' locks, and no other file of the locked versions (checked without a network)."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import List

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope='module')
def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location('fetch_python_packages', REPO_ROOT / 'scripts' / 'fetch_python_packages.py')
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def lock(path: Path, *lines: str) -> Path:
    path.write_text('\n'.join(lines) + '\n')
    return path


@pytest.fixture
def locks(tmp_path: Path) -> List[Path]:
    build = lock(tmp_path / 'build.txt', 'setuptools==84.2.1 --hash=sha256:%s' % digest(b'setuptools'))
    job = lock(tmp_path / 'job.txt', 'pyspark==4.1.3 \\', '    --hash=sha256:%s' % digest(b'sdist'),
               'py4j==0.10.9.9 --hash=sha256:%s' % digest(b'py4j'))
    return [build, job]


def fill(cache: Path, **files: bytes) -> Path:
    cache.mkdir(exist_ok=True)
    for name, content in files.items():
        (cache / name).write_bytes(content)
    return cache


def run(script: ModuleType, cache: Path, locks: List[Path]) -> int:
    return script.main(['--cache', str(cache), '--build-requirements', str(locks[0]), '--no-download'] + [str(path) for path in locks])


def test_a_complete_cache_passes_and_an_unpinned_build_of_a_locked_version_goes(
        script: ModuleType, tmp_path: Path, locks: List[Path]) -> None:
    cache = fill(tmp_path / 'cache', **{'setuptools-84.2.1-py3-none-any.whl': b'setuptools', 'pyspark-4.1.3.tar.gz': b'sdist',
                                        'py4j-0.10.9.9-py2.py3-none-any.whl': b'py4j',
                                        'pyspark-4.1.3-py2.py3-none-any.whl': b'built here', 'py4j-0.10.9.8-py2.py3-none-any.whl': b'old'})
    assert run(script, cache, locks) == 0
    assert sorted(path.name for path in cache.iterdir()) == [
        'py4j-0.10.9.8-py2.py3-none-any.whl', 'py4j-0.10.9.9-py2.py3-none-any.whl', 'pyspark-4.1.3.tar.gz',
        'setuptools-84.2.1-py3-none-any.whl']


def test_a_tampered_package_is_removed_and_reported_missing(
        script: ModuleType, tmp_path: Path, locks: List[Path], capsys: pytest.CaptureFixture) -> None:
    cache = fill(tmp_path / 'cache', **{'setuptools-84.2.1-py3-none-any.whl': b'setuptools', 'pyspark-4.1.3.tar.gz': b'tampered',
                                        'py4j-0.10.9.9-py2.py3-none-any.whl': b'py4j'})
    assert run(script, cache, locks) == 1
    assert not (cache / 'pyspark-4.1.3.tar.gz').exists()
    assert 'no file of pyspark==4.1.3 in %s has a SHA-256 that %s pins' % (cache, locks[1]) in capsys.readouterr().err


def test_two_locks_pinning_one_version_otherwise_are_refused(
        script: ModuleType, tmp_path: Path, locks: List[Path], capsys: pytest.CaptureFixture) -> None:
    other = lock(tmp_path / 'other.txt', 'py4j==0.10.9.9 --hash=sha256:%s' % digest(b'another py4j'))
    assert run(script, fill(tmp_path / 'cache'), locks + [other]) == 1
    assert 'pin py4j==0.10.9.9 with other digests' in capsys.readouterr().err


def test_the_roles_locks_agree(script: ModuleType) -> None:
    names = sorted(REPO_ROOT.glob('roles/*/files/requirements/*.txt'))
    packages = script.locked_packages(names)
    assert {package.name for package in packages} == {'pyspark', 'py4j', 'setuptools'}
