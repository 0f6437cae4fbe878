# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What role kafka_install decides from what it read on the hosts: the service account, the unpacking.

Logic behind the filters kafka_install_account_as_wanted and kafka_install_unpack_due. Errors are
ValueError; the filters turn them into AnsibleFilterError.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

# The unpacked release's libs directory: a host missing it gets the distribution unpacked.
_LIBS = re.compile(r'.*/libs$')


def account_as_wanted(entry: Mapping[str, Any], home: Any, shell: Any, group: Any) -> bool:
    """Whether `getent passwd <user> && id -gn <user>` shows the account as wanted: the home and shell of the
    passwd line, then the primary group. A lookup that failed (or did not run) shows no account."""
    if not isinstance(entry, Mapping):
        raise ValueError('kafka_install_account_as_wanted expects the lookup\'s result, got %s' % type(entry).__name__)
    if entry.get('rc', 1) != 0:
        return False
    lines = entry.get('stdout_lines')
    if not isinstance(lines, list):
        raise ValueError('kafka_install_account_as_wanted: the lookup\'s result has no stdout_lines')
    return len(lines) == 2 and str(lines[0]).split(':')[5:7] == [home, shell] and lines[1] == group


def _flat(values: Any) -> Iterable[Any]:
    """The values of nested lists, as Ansible's flatten gives them (None, 'None' and 'null' left out)."""
    for value in values:
        if isinstance(value, (list, tuple)):
            yield from _flat(value)
        elif value not in (None, 'None', 'null'):
            yield value


def unpack_due(play_hosts: Iterable[str], hostvars: Mapping[str, Mapping[str, Any]]) -> bool:
    """Whether some host of the play lacks this version's unpacked release (the libs directory module path_info
    reported missing in __kafka_install_paths): the controller then unpacks the distribution."""
    if isinstance(play_hosts, (str, bytes, Mapping)):
        raise ValueError('kafka_install_unpack_due expects the play\'s hosts, got %s' % type(play_hosts).__name__)
    missing = []
    for host in play_hosts:
        paths = hostvars[host].get('__kafka_install_paths')
        if not isinstance(paths, Mapping) or 'missing' not in paths:
            raise ValueError('kafka_install_unpack_due: %s has no __kafka_install_paths from module path_info' % host)
        missing.append(paths['missing'])
    return any(isinstance(path, str) and _LIBS.match(path) for path in _flat(missing))
