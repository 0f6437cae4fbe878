# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What several paths on a host are (module kafka_dr.mm2.path_info): one call instead of a stat per path."""

from __future__ import annotations

import grp
import hashlib
import os
import pwd
import stat
from typing import Any, Dict, List

CHUNK_BYTES = 1024 * 1024


class PathInfoError(Exception):
    """A path the module cannot describe (relative, or unreadable when a checksum was asked for)."""


def _name_of(lookup: Any, number: int) -> str:
    try:
        return lookup(number)[0]
    except KeyError:
        return str(number)


def sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, 'rb') as handle:
        for chunk in iter(lambda: handle.read(CHUNK_BYTES), b''):
            digest.update(chunk)
    return digest.hexdigest()


def describe(path: str, checksum: bool) -> Dict[str, Any]:
    """The path's type, owner, group and mode, following links (a link's own target is reported too); a regular
    file's SHA-256 when asked."""
    if not os.path.isabs(path):
        raise PathInfoError(f"'{path}' is not an absolute path")
    try:
        status = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return {'exists': False}
    except OSError as error:
        raise PathInfoError(f"{path}: {error.strerror}") from error
    kind = stat.S_IFMT(status.st_mode)
    info: Dict[str, Any] = {
        'exists': True,
        'isdir': kind == stat.S_IFDIR,
        'isreg': kind == stat.S_IFREG,
        'mode': f'{stat.S_IMODE(status.st_mode):04o}',
        'owner': _name_of(pwd.getpwuid, status.st_uid),
        'group': _name_of(grp.getgrgid, status.st_gid),
        'size': status.st_size,
    }
    if os.path.islink(path):
        info['link_target'] = os.readlink(path)
    if checksum and info['isreg']:
        try:
            info['checksum'] = sha256_of(path)
        except OSError as error:
            raise PathInfoError(f"{path}: {error.strerror}") from error
    return info


def describe_all(paths: List[str], checksum: bool) -> Dict[str, Any]:
    described = {path: describe(path, checksum) for path in paths}
    return {'paths': described, 'missing': [path for path, info in described.items() if not info['exists']]}
