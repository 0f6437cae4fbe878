# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hash-locked pip requirements and pinned jars: what may ship to a host, and why the rest may not."""

from __future__ import annotations

from typing import Any, Dict

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.pinned_file_errors import FilterModule as PinnedFileErrors
from ansible_collections.kafka_dr.mm2.plugins.filter.pip_lock_errors import FilterModule as PipLockErrors
from ansible_collections.kafka_dr.mm2.plugins.filter.pip_lock_files import FilterModule as PipLockFiles
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.pinned_artifacts import (
    dist_package,
    parse_lock,
    pinned_file_errors,
    pip_lock_errors,
    pip_lock_files,
)

SDIST = 'a' * 64
WHEEL = 'b' * 64
OTHER = 'c' * 64
LOCK = '''# comment
pyspark==4.1.3 \\
    --hash=sha256:%s
py4j==0.10.9.9 --hash=sha256:%s  # inline comment
''' % (SDIST, WHEEL)
LOCKS = {'/roles/lock.txt': LOCK}
CACHE = '/cache/wheels'
FILES = ['%s/pyspark-4.1.3.tar.gz' % CACHE, '%s/pyspark-4.1.3-py2.py3-none-any.whl' % CACHE,
         '%s/py4j-0.10.9.9-py2.py3-none-any.whl' % CACHE, '%s/py4j-0.10.9.8-py2.py3-none-any.whl' % CACHE,
         '%s/notes.txt' % CACHE]


def stats(**digests: str) -> Dict[str, Any]:
    """path_info paths of the candidates: pyspark's sdist and py4j's wheel as pinned unless given."""
    known = {'sdist': SDIST, 'built': OTHER, 'py4j': WHEEL}
    known.update(digests)
    names = {'sdist': FILES[0], 'built': FILES[1], 'py4j': FILES[2]}
    return {names[key]: {'exists': True, 'isreg': True, 'checksum': digest} for key, digest in known.items()}


def test_a_lock_reads_as_exact_pins_with_their_digests() -> None:
    packages = parse_lock(LOCK, 'lock.txt')
    assert [(p.name, p.version, p.hashes) for p in packages] == [('pyspark', '4.1.3', (SDIST,)), ('py4j', '0.10.9.9', (WHEEL,))]


@pytest.mark.parametrize('line, complaint', [
    ('pyspark>=4.1.3 --hash=sha256:%s' % SDIST, 'not an exact pin'),
    ('pyspark==4.1.3', 'has no --hash'),
    ('pyspark==4.1.3 --hash=sha256:abc', 'not a --hash=sha256'),
    ('pyspark==4.1.3 --hash=md5:%s' % SDIST[:32], 'not a --hash=sha256'),
    ('--index-url https://example.org/simple', 'not an exact pin'),
    ('https://example.org/pyspark-4.1.3.tar.gz --hash=sha256:%s' % SDIST, 'not an exact pin'),
    ('pyspark[connect]==4.1.3 --hash=sha256:%s' % SDIST, 'not an exact pin'),
])
def test_anything_pip_could_resolve_otherwise_is_refused_with_its_line(line: str, complaint: str) -> None:
    with pytest.raises(ValueError, match=complaint) as refused:
        parse_lock('# header\n' + line + '\n', 'lock.txt')
    assert 'lock.txt line 2' in str(refused.value)


def test_a_package_pinned_twice_or_a_lock_without_package_is_refused() -> None:
    with pytest.raises(ValueError, match='pinned twice'):
        parse_lock(LOCK + 'PySpark==4.1.3 --hash=sha256:%s\n' % OTHER)
    with pytest.raises(ValueError, match='pins no package'):
        parse_lock('# nothing\n')


@pytest.mark.parametrize('name, package', [
    ('pyspark-4.1.3.tar.gz', ('pyspark', '4.1.3')),
    ('py4j-0.10.9.9-py2.py3-none-any.whl', ('py4j', '0.10.9.9')),
    ('setuptools-84.2.1-py3-none-any.whl', ('setuptools', '84.2.1')),
    ('zope_interface-7.0-1-cp311-cp311-manylinux_2_17_x86_64.whl', ('zope-interface', '7.0')),
    ('notes.txt', None),
])
def test_dist_file_names_give_package_and_version(name: str, package: Any) -> None:
    assert dist_package(name) == package


def test_the_candidates_are_the_files_of_the_locked_versions() -> None:
    assert pip_lock_files(FILES, LOCKS) == FILES[:3]


def test_only_files_with_a_pinned_digest_ship() -> None:
    # The wheel built on a controller from the sdist has another digest: it never ships.
    assert pip_lock_files(FILES[:3], LOCKS, stats()) == [FILES[0], FILES[2]]
    # A digest pinned for another package does not let a file through.
    assert pip_lock_files(FILES[:3], LOCKS, stats(sdist=WHEEL)) == [FILES[2]]


def test_no_error_when_each_package_has_a_pinned_file() -> None:
    assert pip_lock_errors(LOCKS, stats(), CACHE, versions={'pyspark': '4.1.3'}) == []


def test_a_tampered_file_is_named_with_both_digests() -> None:
    errors = pip_lock_errors(LOCKS, stats(sdist=OTHER), CACHE)
    assert len(errors) == 1
    assert errors[0].startswith('pyspark==4.1.3 (/roles/lock.txt): ')
    assert '%s has SHA-256 %s' % (FILES[0], OTHER) in errors[0] and SDIST in errors[0]
    assert errors[0].endswith('Nothing was changed.')


def test_a_missing_package_says_where_it_was_looked_for() -> None:
    found = stats()
    del found[FILES[2]]
    errors = pip_lock_errors(LOCKS, found, CACHE)
    assert errors == ['py4j==0.10.9.9 (/roles/lock.txt): no file of it in /cache/wheels on the controller; make setup '
                      'downloads it (SHA-256 %s). Nothing was changed.' % WHEEL]


def test_a_lock_of_another_version_than_the_role_expects_is_refused() -> None:
    assert pip_lock_errors(LOCKS, stats(), CACHE, versions={'pyspark': '4.1.2'}) == [
        '/roles/lock.txt pins pyspark==4.1.3, not the expected 4.1.2. Nothing was changed.']
    assert 'pin no numpy' in pip_lock_errors(LOCKS, stats(), CACHE, versions={'numpy': '2.0'})[0]


JAR = '/cache/jars/kafka-clients-3.9.1.jar'
PINS = {'kafka-clients-3.9.1.jar': 'sha256:' + SDIST.upper()}


def jar(digest: str = SDIST, **fields: Any) -> Dict[str, Any]:
    return {JAR: dict({'exists': True, 'isreg': True, 'checksum': digest}, **fields)}


def test_a_jar_with_its_pinned_digest_passes() -> None:
    assert pinned_file_errors(jar(), PINS, 'jar_checksums') == []


def test_a_jar_with_another_digest_is_refused_with_both() -> None:
    assert pinned_file_errors(jar(OTHER), PINS, 'jar_checksums') == [
        '%s has SHA-256 %s, not the sha256:%s jar_checksums pins. Nothing was changed.' % (JAR, OTHER, SDIST)]


def test_a_jar_without_a_pin_is_refused_with_its_digest() -> None:
    errors = pinned_file_errors(jar(), {}, 'jar_checksums')
    assert len(errors) == 1 and 'has no SHA-256 in jar_checksums (its SHA-256 is %s)' % SDIST in errors[0]


def test_malformed_pins_and_odd_files_are_refused() -> None:
    errors = pinned_file_errors(jar(isreg=False), {'kafka-clients-3.9.1.jar': SDIST}, 'jar_checksums')
    assert errors[0].startswith('jar_checksums["kafka-clients-3.9.1.jar"] must be "sha256:<64 hexadecimal digits>"')
    assert errors[1].startswith('%s is not a regular file' % JAR)


def test_the_filters_report_bad_input_as_filter_errors() -> None:
    files = PipLockFiles().filters()['pip_lock_files']
    errors = PipLockErrors().filters()['pip_lock_errors']
    pinned = PinnedFileErrors().filters()['pinned_file_errors']
    assert files(FILES, LOCKS) == FILES[:3]
    with pytest.raises(AnsibleFilterError, match='not an exact pin'):
        files(FILES, {'lock': 'pyspark>=4'})
    with pytest.raises(AnsibleFilterError, match='mapping of lock name'):
        errors('pyspark==4.1.3', {}, CACHE)
    with pytest.raises(AnsibleFilterError, match='must be a mapping of file name'):
        pinned(jar(), ['kafka-clients-3.9.1.jar'], 'jar_checksums')
