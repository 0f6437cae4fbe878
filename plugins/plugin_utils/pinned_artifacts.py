# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Artefacts the roles ship to hosts, checked against the digests the collection pins.

Python packages come from hash-locked pip requirements files (pip's --require-hashes format): each
requirement one exact `name==version`, each with the SHA-256 of every file of it that may be
installed. Jars come with a SHA-256 per file name. The roles checksum the controller's files
(kafka_dr.mm2.path_info) and these functions say which files may ship and why the others may not,
before anything is copied: a host that installs only verified files cannot get another build by a
cache, a mirror or a transfer going wrong.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.role_rules import NOTHING_CHANGED, jinja_text

_PIN = re.compile(r'^sha256:([0-9a-fA-F]{64})$')
_REQUIREMENT = re.compile(r'^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)==([A-Za-z0-9.+!_-]+)$')
_HASH_OPTION = re.compile(r'^--hash=sha256:([0-9a-fA-F]{64})$')
# The file names pip installs from: wheels (PEP 427) and sdists.
_WHEEL = re.compile(r'^(?P<name>[^-]+)-(?P<version>[^-]+)(?:-\d[^-]*)?-[^-]+-[^-]+-[^-]+\.whl$')
_SDIST = re.compile(r'^(?P<name>.+)-(?P<version>[^-]+)\.(?:tar\.gz|zip)$')


@dataclass(frozen=True)
class LockedPackage:
    """One requirement of a lock: the package, its exact version and the digests its files may have."""

    name: str
    version: str
    hashes: Tuple[str, ...]
    lock: str


def normalized_name(name: str) -> str:
    """The project name as pip compares it (PEP 503)."""
    return re.sub(r'[-_.]+', '-', name).lower()


def _logical_lines(text: str) -> List[Tuple[int, str]]:
    """The lines of a requirements file with comments dropped and backslash continuations joined."""
    lines: List[Tuple[int, str]] = []
    pending, start = '', 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = re.sub(r'(^|\s)#.*$', '', raw).rstrip()
        if not pending:
            start = number
        if line.endswith('\\'):
            pending += line[:-1] + ' '
            continue
        pending += line
        if pending.strip():
            lines.append((start, pending.strip()))
        pending = ''
    if pending.strip():
        lines.append((start, pending.strip()))
    return lines


def parse_lock(text: Any, lock: str = 'the lock') -> List[LockedPackage]:
    """The requirements of a hash-locked file; ValueError naming the lock and line for anything pip could resolve
    otherwise than to one of the pinned files (a range, an option, a URL, a requirement without a SHA-256)."""
    packages: List[LockedPackage] = []
    for number, line in _logical_lines(jinja_text(text)):
        where = '%s line %d' % (lock, number)
        requirement, *options = line.split()
        match = _REQUIREMENT.match(requirement)
        if not match:
            raise ValueError("%s: '%s' is not an exact pin (name==version)." % (where, requirement))
        hashes = []
        for option in options:
            found = _HASH_OPTION.match(option)
            if not found:
                raise ValueError("%s: '%s' is not a --hash=sha256:<64 hexadecimal digits> option." % (where, option))
            hashes.append(found.group(1).lower())
        if not hashes:
            raise ValueError('%s: %s has no --hash=sha256:...; pip --require-hashes would refuse it.' % (where, requirement))
        name = normalized_name(match.group(1))
        if name in [package.name for package in packages]:
            raise ValueError('%s: %s is pinned twice.' % (where, match.group(1)))
        packages.append(LockedPackage(name, match.group(2), tuple(hashes), lock))
    if not packages:
        raise ValueError('%s pins no package.' % lock)
    return packages


def _locked(locks: Any) -> List[LockedPackage]:
    """Every requirement of the locks, a mapping of lock name to its text."""
    if not isinstance(locks, Mapping) or not locks:
        raise ValueError('the locks must be a mapping of lock name to its text, got %s' % type(locks).__name__)
    return [package for lock, text in locks.items() for package in parse_lock(text, str(lock))]


def dist_package(file_name: str) -> Optional[Tuple[str, str]]:
    """(normalized name, version) of a wheel or sdist file name, None for another file."""
    match = _WHEEL.match(file_name) or _SDIST.match(file_name)
    return (normalized_name(match.group('name')), match.group('version')) if match else None


def _files_of(package: LockedPackage, files: Sequence[str]) -> List[str]:
    return [path for path in files if dist_package(os.path.basename(path)) == (package.name, package.version)]


def _checksum(stats: Mapping[str, Any], path: str) -> str:
    stat = stats.get(path)
    if not isinstance(stat, Mapping) or not stat.get('isreg'):
        return ''
    return jinja_text(stat.get('checksum')).lower()


def pip_lock_files(files: Any, locks: Any, stats: Optional[Mapping[str, Any]] = None) -> List[str]:
    """The files named after a locked package's pinned version; with stats (path_info paths with checksum), only
    those whose SHA-256 the lock pins for that package: what may ship."""
    if isinstance(files, (str, bytes)) or not isinstance(files, Sequence):
        raise ValueError('pip_lock_files: the input must be a list of controller paths')
    return [path for package in _locked(locks) for path in _files_of(package, files)
            if stats is None or _checksum(stats, path) in package.hashes]


def _version_errors(packages: List[LockedPackage], versions: Mapping[str, Any]) -> List[str]:
    """The packages whose pinned version is not the one the role expects."""
    pinned = {package.name: package for package in packages}
    locks = ', '.join(dict.fromkeys(package.lock for package in packages))
    errors = []
    for name, version in versions.items():
        package = pinned.get(normalized_name(str(name)))
        if package is None:
            errors.append('%s pin no %s; %s is expected.' % (locks, name, jinja_text(version)))
        elif package.version != jinja_text(version):
            errors.append('%s pins %s==%s, not the expected %s.' % (package.lock, name, package.version, jinja_text(version)))
    return errors


def _package_error(package: LockedPackage, stats: Mapping[str, Any], directory: str) -> Optional[str]:
    """Why no file of the package may ship, None when one may."""
    found = _files_of(package, sorted(stats))
    if any(_checksum(stats, path) in package.hashes for path in found):
        return None
    pins = ', '.join(package.hashes)
    if not found:
        return ('%s==%s (%s): no file of it in %s on the controller; make setup downloads it (SHA-256 %s).'
                % (package.name, package.version, package.lock, directory, pins))
    seen = '; '.join('%s has SHA-256 %s' % (path, _checksum(stats, path) or '(not a regular file)') for path in found)
    return '%s==%s (%s): %s, not one the lock pins (%s).' % (package.name, package.version, package.lock, seen, pins)


def pip_lock_errors(locks: Any, stats: Any, directory: str, versions: Optional[Mapping[str, Any]] = None) -> List[str]:
    """Why the locked packages may not be installed, one message per package, each naming it, its lock, the files
    found with their SHA-256 and the pinned ones. stats are path_info paths of pip_lock_files' candidates.

    versions: package -> the version the role expects the locks to pin (pyspark's must match the Spark jars).
    """
    if not isinstance(stats, Mapping):
        raise ValueError('pip_lock_errors: stats must be the paths of kafka_dr.mm2.path_info, got %s' % type(stats).__name__)
    packages = _locked(locks)
    errors = _version_errors(packages, versions or {})
    errors.extend(error for error in (_package_error(package, stats, directory) for package in packages) if error)
    return ['%s %s' % (error, NOTHING_CHANGED) for error in errors]


def _pins(pins: Any, variable: str) -> Tuple[Dict[str, str], List[str]]:
    """File name -> SHA-256 of the pins, and the entries that are not sha256:<64 hex>."""
    if not isinstance(pins, Mapping):
        raise ValueError('%s must be a mapping of file name to "sha256:<hex>", got %s' % (variable, type(pins).__name__))
    digests, errors = {}, []
    for name, pin in pins.items():
        match = _PIN.match(jinja_text(pin).strip())
        if match:
            digests[str(name)] = match.group(1).lower()
        else:
            errors.append('%s["%s"] must be "sha256:<64 hexadecimal digits>", got \'%s\'.' % (variable, name, jinja_text(pin)))
    return digests, errors


def pinned_file_errors(stats: Any, pins: Any, variable: str) -> List[str]:
    """Why the files may not be installed: each file (path_info paths with checksum) needs the SHA-256 its name has
    in pins (file name -> "sha256:<hex>", the role variable named by variable); each message names the file."""
    if not isinstance(stats, Mapping):
        raise ValueError('pinned_file_errors: the input must be the paths of kafka_dr.mm2.path_info, got %s' % type(stats).__name__)
    digests, errors = _pins(pins, variable)
    for path in sorted(stats):
        name, actual = os.path.basename(path), _checksum(stats, path)
        if not actual:
            errors.append('%s is not a regular file with a checksum on the controller.' % path)
        elif name not in digests:
            errors.append('%s has no SHA-256 in %s (its SHA-256 is %s): pin it once you checked it against its '
                          'source.' % (path, variable, actual))
        elif actual != digests[name]:
            errors.append('%s has SHA-256 %s, not the sha256:%s %s pins.' % (path, actual, digests[name], variable))
    return ['%s %s' % (error, NOTHING_CHANGED) for error in errors]
