# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fill the controller's package cache with the files of hash-locked pip requirements.

The roles ship to hosts only the files whose SHA-256 their locks pin (filter pip_lock_files). This
downloads what the cache lacks with `pip download --require-hashes`, so pip itself refuses any file
that is not pinned, and removes the cache's other files of the locked versions (such as a wheel
built here by an earlier release), which no role would ship. Quiet when the cache is complete.

pyspark is an sdist: pip reads its metadata by running its setup.py. It does so in a throwaway venv
holding only the hash-checked setuptools of --build-requirements, without build isolation, where it
would fetch unpinned build tools.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import venv
from pathlib import Path
from typing import Dict, List, Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / '.collections'))

# pylint: disable-next=wrong-import-position
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.pinned_artifacts import (  # noqa: E402
    LockedPackage,
    dist_package,
    parse_lock,
)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open('rb') as stream:
        for block in iter(lambda: stream.read(1 << 20), b''):
            digest.update(block)
    return digest.hexdigest()


def locked_packages(locks: Sequence[Path]) -> List[LockedPackage]:
    """Every requirement of the locks; ValueError for a package two locks pin with other digests."""
    packages: Dict[tuple, LockedPackage] = {}
    for lock in locks:
        for package in parse_lock(lock.read_text(encoding='utf-8'), str(lock)):
            known = packages.setdefault((package.name, package.version), package)
            if set(known.hashes) != set(package.hashes):
                raise ValueError('%s and %s pin %s==%s with other digests' % (known.lock, lock, package.name, package.version))
    return list(packages.values())


def cache_state(cache: Path, packages: Sequence[LockedPackage]) -> tuple[List[LockedPackage], List[Path]]:
    """The packages without a pinned file in the cache, and the cache's files of locked versions that are not pinned."""
    missing, unpinned = [], []
    files = sorted(path for path in cache.iterdir() if path.is_file()) if cache.is_dir() else []
    for package in packages:
        own = [path for path in files if dist_package(path.name) == (package.name, package.version)]
        pinned = [path for path in own if sha256_of(path) in package.hashes]
        unpinned.extend(path for path in own if path not in pinned)
        if not pinned:
            missing.append(package)
    return missing, unpinned


def download(cache: Path, locks: Sequence[Path], build_requirements: Path) -> None:
    """pip download of the locks, hash-checked, from a venv of the build requirements only."""
    with tempfile.TemporaryDirectory(prefix='kafka-dr-pip-') as work:
        venv.create(work, with_pip=True)
        pip = [str(Path(work) / 'bin' / 'python'), '-m', 'pip', '--disable-pip-version-check', '-q']
        subprocess.run(pip + ['install', '--require-hashes', '-r', str(build_requirements)], check=True)
        requirements = [argument for lock in locks for argument in ('-r', str(lock))]
        subprocess.run(pip + ['download', '--require-hashes', '--no-deps', '--no-build-isolation', '-d', str(cache)]
                       + requirements, check=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    parser.add_argument('--cache', type=Path, required=True, help='the package cache (the roles read it)')
    parser.add_argument('--build-requirements', type=Path, required=True,
                        help='hash-locked build tools to read sdists with (a lock of its own as well)')
    parser.add_argument('--no-download', action='store_true', help='only check the cache')
    parser.add_argument('locks', type=Path, nargs='+', help='hash-locked pip requirements files')
    args = parser.parse_args(argv)
    locks = [args.build_requirements] + [lock for lock in args.locks if lock != args.build_requirements]
    try:
        packages = locked_packages(locks)
    except ValueError as error:
        print('fetch_python_packages: %s' % error, file=sys.stderr)
        return 1
    missing, unpinned = cache_state(args.cache, packages)
    if missing and not args.no_download:
        print('fetch_python_packages: downloading %s' % ', '.join('%s==%s' % (p.name, p.version) for p in missing))
        args.cache.mkdir(parents=True, exist_ok=True)
        try:
            download(args.cache, locks, args.build_requirements)
        except subprocess.CalledProcessError as error:
            print('fetch_python_packages: pip failed (%s)' % error, file=sys.stderr)
            return 1
        missing, unpinned = cache_state(args.cache, packages)
    for path in unpinned:
        print('fetch_python_packages: removing %s: its SHA-256 is not one its lock pins, so no role would ship it' % path)
        path.unlink()
    for package in missing:
        print('fetch_python_packages: no file of %s==%s in %s has a SHA-256 that %s pins (%s)'
              % (package.name, package.version, args.cache, package.lock, ', '.join(package.hashes)), file=sys.stderr)
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
