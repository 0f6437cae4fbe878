# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the collection ships to hosts is pinned: hash-locked pip requirements that cover every dependency,
a SHA-256 for every jar, a checksum on every download, exact collection versions (docs/security.md,
"Supply chain")."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import re
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest
import yaml
from packaging.requirements import Requirement

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.pinned_artifacts import normalized_name, parse_lock

REPO_ROOT = Path(__file__).resolve().parents[2]
LOCKS = sorted(REPO_ROOT.glob('roles/*/files/requirements/*.txt'))
PYSPARK_LOCK = REPO_ROOT / 'roles/replication_check/files/requirements/pyspark-4.1.3.txt'
BUILD_LOCK = REPO_ROOT / 'roles/replication_check/files/requirements/build.txt'
FAILOVER_LOCK = REPO_ROOT / 'roles/failover/files/requirements/py4j-0.10.9.9.txt'
SITE_PACKAGES = sorted(REPO_ROOT.glob('.venv/lib/python*/site-packages'))


def defaults(role: str) -> Dict[str, Any]:
    return yaml.safe_load((REPO_ROOT / 'roles' / role / 'defaults' / 'main.yml').read_text())


def pins(lock: Path) -> Dict[str, str]:
    return {package.name: package.version for package in parse_lock(lock.read_text(), str(lock))}


def test_the_roles_have_their_locks() -> None:
    assert LOCKS == sorted([PYSPARK_LOCK, BUILD_LOCK, FAILOVER_LOCK])


@pytest.mark.parametrize('lock', LOCKS, ids=lambda lock: str(lock.relative_to(REPO_ROOT)))
def test_every_requirement_of_a_lock_is_exact_with_sha256_digests(lock: Path) -> None:
    # parse_lock refuses a range, an option, a URL and a requirement without --hash=sha256.
    packages = parse_lock(lock.read_text(), str(lock))
    requirement_lines = [line for line in lock.read_text().splitlines() if re.match(r'^[A-Za-z0-9]', line)]
    assert len(requirement_lines) == len(packages)
    assert all(package.hashes for package in packages)


def test_the_locks_pin_the_versions_the_roles_and_the_controller_use() -> None:
    check, failover = defaults('replication_check'), defaults('failover')
    controller = dict(line.split('==') for line in (REPO_ROOT / 'requirements.txt').read_text().splitlines()
                      if re.match(r'^(pyspark|py4j)==', line))
    assert PYSPARK_LOCK.name == 'pyspark-%s.txt' % check['replication_check_pyspark_version']
    assert pins(PYSPARK_LOCK)['pyspark'] == check['replication_check_pyspark_version'] == controller['pyspark']
    assert FAILOVER_LOCK.name == 'py4j-%s.txt' % failover['failover_py4j_version']
    assert pins(FAILOVER_LOCK)['py4j'] == pins(PYSPARK_LOCK)['py4j'] == failover['failover_py4j_version']
    shared = {package.name: package.hashes for package in parse_lock(FAILOVER_LOCK.read_text())}
    assert {p.name: p.hashes for p in parse_lock(PYSPARK_LOCK.read_text())}['py4j'] == shared['py4j']


def installed_requirements(name: str) -> List[Requirement]:
    """What the installed distribution needs without extras, as pip would pull it."""
    try:
        declared = importlib.metadata.requires(name) or []
    except importlib.metadata.PackageNotFoundError:
        pytest.skip('%s is not installed in this venv (make venv)' % name)
    requirements = [Requirement(text) for text in declared]
    return [req for req in requirements if req.marker is None or req.marker.evaluate({'extra': ''})]


def test_the_pyspark_lock_holds_every_dependency_pip_would_pull() -> None:
    locked = pins(PYSPARK_LOCK)
    if importlib.metadata.version('pyspark') != locked['pyspark']:
        pytest.skip('the venv has another pyspark than the lock')
    pending, seen = ['pyspark'], set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        assert name in locked, '%s is a dependency pip would install, but %s does not pin it' % (name, PYSPARK_LOCK.name)
        for requirement in installed_requirements(name):
            dependency = normalized_name(requirement.name)
            assert dependency in locked, '%s needs %s, which %s does not pin' % (name, requirement, PYSPARK_LOCK.name)
            assert requirement.specifier.contains(locked[dependency], prereleases=True), (name, str(requirement))
            pending.append(dependency)
    assert seen == set(locked)


def test_the_build_lock_builds_wheels_alone() -> None:
    # setuptools builds wheels itself from 70.1 on, and has no dependency: the host needs nothing else to build pyspark.
    version = pins(BUILD_LOCK)['setuptools']
    assert list(pins(BUILD_LOCK)) == ['setuptools'] and tuple(int(part) for part in version.split('.')[:2]) >= (70, 1)


def tasks_in(items: Any) -> Iterator[Dict[str, Any]]:
    """Every task of a task file, blocks included."""
    for item in items or []:
        if not isinstance(item, dict):
            continue
        yield item
        for key in ('block', 'rescue', 'always'):
            yield from tasks_in(item.get(key))


TASK_FILES = sorted(REPO_ROOT.glob('roles/*/tasks/*.yml')) + sorted(REPO_ROOT.glob('playbooks/*.yml'))


def tasks_using(*modules: str) -> List[tuple]:
    found = []
    for path in TASK_FILES:
        documents = yaml.safe_load(path.read_text()) or []
        plays = documents if path.parts[-2] == 'playbooks' else [{'tasks': documents}]
        for play in plays:
            for section in ('pre_tasks', 'tasks', 'post_tasks', 'handlers'):
                for task in tasks_in(play.get(section) if isinstance(play, dict) else None):
                    for module in modules:
                        if module in task:
                            found.append((str(path.relative_to(REPO_ROOT)), task.get('name'), task[module]))
    return found


def test_every_download_of_the_roles_has_a_checksum() -> None:
    downloads = tasks_using('ansible.builtin.get_url', 'get_url')
    assert downloads, 'the roles download the Kafka release and the JMX exporter'
    for path, name, args in downloads:
        assert str(args.get('checksum') or '').strip(), '%s: %s downloads without a checksum' % (path, name)
    for path, name, args in tasks_using('ansible.builtin.uri', 'uri'):
        assert 'dest' not in args, '%s: %s downloads with uri, which checks no digest' % (path, name)


def test_every_pip_install_is_hash_checked_without_a_package_index() -> None:
    installs = tasks_using('ansible.builtin.pip', 'pip')
    assert len(installs) >= 3
    for path, name, args in installs:
        assert 'name' not in args and args.get('requirements'), '%s: %s installs by name, not from a lock' % (path, name)
        options = str(args.get('extra_args', '')).split()
        assert '--require-hashes' in options and '--no-index' in options, '%s: %s' % (path, name)


def test_the_spark_jars_are_pinned_for_every_artifact_the_fetch_script_takes() -> None:
    checksums = defaults('replication_check')['replication_check_jar_checksums']
    script = (REPO_ROOT / 'scripts' / 'fetch_spark_jars.sh').read_text()
    artifacts = re.search(r'-DincludeArtifactIds="([^"]+)"', script).group(1).replace('${scala_version}', '2.13').split(',')
    artifacts.append('spark-token-provider-kafka-0-10_2.13')
    for artifact in artifacts:
        assert [name for name in checksums if re.match(re.escape(artifact) + r'-[0-9][^-]*\.jar$', name)], artifact
    assert all(re.match(r'^sha256:[0-9a-f]{64}$', pin) for pin in checksums.values())


def test_the_cached_spark_jars_are_the_pinned_ones() -> None:
    check = defaults('replication_check')
    root = Path(os.environ.get('KAFKA_DR_CACHE') or Path.home() / '.cache' / 'kafka-dr')
    cache = root / 'spark-jars' / check['replication_check_pyspark_version']
    jars = sorted(cache.glob('*.jar'))
    if not jars:
        pytest.skip('no Spark jars cached here (make setup fetches them)')
    for jar in jars:
        assert check['replication_check_jar_checksums'].get(jar.name) == 'sha256:' + hashlib.sha256(jar.read_bytes()).hexdigest()


@pytest.mark.parametrize('script', sorted(REPO_ROOT.glob('scripts/*.sh')), ids=lambda path: path.name)
def test_every_script_that_fetches_jars_checks_their_digests(script: Path) -> None:
    text = script.read_text()
    fetches_jars = '.jar' in text and re.search(r'\b(curl|wget|mvn)\b', text)
    # The lab's Kafka distributions never reach a production host; Maven checks their repository checksums.
    if not fetches_jars or script.name == 'build_kafka_dist.sh':
        return
    assert 'sha256sum' in text, '%s fetches jars without checking a SHA-256' % script.name


def collection_pins() -> Dict[str, str]:
    collections = yaml.safe_load((REPO_ROOT / 'requirements.yml').read_text())['collections']
    return {entry['name']: entry['version'] for entry in collections}


def test_the_collections_are_pinned_to_exact_versions() -> None:
    required = collection_pins()
    assert set(required) >= {'community.crypto', 'community.docker', 'ansible.posix'}
    assert all(re.match(r'^==\d+\.\d+\.\d+$', version) for version in required.values()), required
    galaxy = yaml.safe_load((REPO_ROOT / 'galaxy.yml').read_text())['dependencies']
    for name, version in galaxy.items():
        assert re.match(r'^==\d+\.\d+\.\d+$', version) and required[name] == version, (name, version)


def test_the_collection_pins_are_those_the_pinned_ansible_package_bundles() -> None:
    if not SITE_PACKAGES:
        pytest.skip('no venv here (make venv)')
    bundled = SITE_PACKAGES[0] / 'ansible_collections'
    for name, version in collection_pins().items():
        manifest = bundled.joinpath(*name.split('.'), 'MANIFEST.json')
        if not manifest.exists():
            pytest.skip('the venv has no bundled %s' % name)
        info = json.loads(manifest.read_text())['collection_info']
        assert version == '==' + info['version'], '%s: requirements.yml pins %s, the ansible package has %s' % (name, version, info['version'])
        for dependency in info['dependencies']:
            assert dependency in collection_pins(), '%s needs %s, which requirements.yml does not pin' % (name, dependency)
