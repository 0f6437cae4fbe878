# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The systemd sandbox every service of the collection runs in (docs/security.md, "Services on the hosts").

Controller-side logic behind the filters systemd_hardening and systemd_hardened_dropin. Every service runs
as an unprivileged user with no capability, no new privileges, a read-only view of the whole file system
(ProtectSystem=strict) but for the directories it writes (ReadWritePaths=, and the StateDirectory= systemd
manages itself), a private /tmp, no home directories, no kernel tunables, modules, logs or clock, a system
call filter of ordinary services and files created without access for others (UMask=0027).

Left out on purpose: MemoryDenyWriteExecute= breaks a JVM's JIT compiler (offered for Python services
that start no JVM); PrivateUsers= fails in containers that may not create user namespaces (the lab's);
ProcSubset=pid hides /proc/meminfo and /proc/loadavg, which JVMs read; PrivateNetwork= and IP address
lists would cut the services off the network they serve. systemd skips the namespace-based settings
(ProtectSystem=, PrivateTmp=, ReadWritePaths= ...) in a container that may not mount; the system call
filters, capabilities and NoNewPrivileges= hold everywhere.

Paths are checked (absolute, no control characters, no .. component), written with %% for %, and quoted
when they hold blanks, quotes or backslashes, as systemd splits ReadWritePaths= into words. Errors are
ValueError.
"""

from __future__ import annotations

import posixpath
from typing import Any, Dict, Iterable, List, Mapping, Tuple, Union

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.systemd_units import (
    NEEDS_QUOTES_RE,
    quoted,
    specifiers_escaped,
    systemd_dropin,
    unit_text,
)

# The sandbox, in the order the units list it. SystemCallFilter= appears twice: an allow list, then what
# is taken out of it again (systemd-analyze security checks each group).
SANDBOX: Tuple[Tuple[str, str], ...] = (
    ('NoNewPrivileges', 'yes'),
    ('CapabilityBoundingSet', ''),
    ('AmbientCapabilities', ''),
    ('ProtectSystem', 'strict'),
    ('PrivateTmp', 'yes'),
    ('PrivateDevices', 'yes'),
    ('PrivateMounts', 'yes'),
    ('ProtectHome', 'yes'),
    ('ProtectProc', 'invisible'),
    ('ProtectKernelTunables', 'yes'),
    ('ProtectKernelModules', 'yes'),
    ('ProtectKernelLogs', 'yes'),
    ('ProtectControlGroups', 'yes'),
    ('ProtectClock', 'yes'),
    ('ProtectHostname', 'yes'),
    ('RestrictSUIDSGID', 'yes'),
    ('RestrictNamespaces', 'yes'),
    ('RestrictRealtime', 'yes'),
    ('LockPersonality', 'yes'),
    ('RemoveIPC', 'yes'),
    ('RestrictAddressFamilies', 'AF_UNIX AF_INET AF_INET6 AF_NETLINK'),
    ('SystemCallArchitectures', 'native'),
    ('SystemCallFilter', '@system-service'),
    ('SystemCallFilter', '~@privileged @resources'),
    ('SystemCallErrorNumber', 'EPERM'),
    ('UMask', '0027'),
)
# Only for services that start no JVM: a JIT compiler needs memory that is writable and executable.
NO_JIT = ('MemoryDenyWriteExecute', 'yes')
# Not for a unit with PrivateUsers=yes (Debian's prometheus.service): systemd cannot mount the /proc of its
# own that ProtectProc= needs inside that user namespace, and the service fails to start (217/USER).
PROTECT_PROC = 'ProtectProc'


def _paths(paths: Any, name: str) -> List[str]:
    if isinstance(paths, (str, Mapping)) or not isinstance(paths, Iterable):
        raise ValueError('%s: the directories a service writes must be a list of paths, got %s' % (name, type(paths).__name__))
    result: List[str] = []
    for path in paths:
        text = unit_text(path, name)
        if not text.startswith('/'):
            raise ValueError('%s: %r is not an absolute path; systemd needs one for ReadWritePaths=' % (name, text))
        if '..' in text.split('/'):
            raise ValueError('%s: %r holds a .. component; give the directory itself' % (name, text))
        normal = posixpath.normpath(text)
        # normpath keeps a leading //, which is still the root for systemd.
        normal = '/' + normal.lstrip('/')
        if normal == '/':
            raise ValueError('%s: the root directory would make the whole file system writable' % name)
        if normal not in result:
            result.append(normal)
    return result


def read_write_paths(paths: Any, name: str) -> str:
    """The value of ReadWritePaths=: each path with %% for % and quoted when it holds blanks, quotes or backslashes."""
    return ' '.join(quoted(specifiers_escaped(path)) if NEEDS_QUOTES_RE.search(path) else specifiers_escaped(path)
                    for path in _paths(paths, name))


def hardening_directives(paths: Any, name: str, no_jit: bool = False, protect_proc: bool = True) -> List[Tuple[str, str]]:
    """The sandbox as (directive, value) pairs, ReadWritePaths= after ProtectSystem= when the service writes outside
    its StateDirectory=, MemoryDenyWriteExecute= with `no_jit`, ProtectProc= unless `protect_proc` is false."""
    writes = read_write_paths(paths, name)
    directives: List[Tuple[str, str]] = []
    for directive in SANDBOX:
        if directive[0] == PROTECT_PROC and not protect_proc:
            continue
        directives.append(directive)
        if directive[0] == 'ProtectSystem' and writes:
            directives.append(('ReadWritePaths', writes))
    if no_jit:
        directives.append(NO_JIT)
    return directives


def systemd_hardening(paths: Any, name: str, no_jit: bool = False, protect_proc: bool = True) -> str:
    """The sandbox as lines of a unit's [Service] section (no line break after the last one)."""
    return '\n'.join('%s=%s' % directive for directive in hardening_directives(paths, name, no_jit, protect_proc))


def hardening_section(paths: Any, name: str, no_jit: bool = False, protect_proc: bool = True) -> Dict[str, Union[str, List[str]]]:
    """The sandbox as the [Service] directives of a drop-in mapping, a repeated directive as a list."""
    section: Dict[str, Union[str, List[str]]] = {}
    for directive, value in hardening_directives(paths, name, no_jit, protect_proc):
        if directive in section:
            previous = section[directive]
            section[directive] = (previous if isinstance(previous, list) else [previous]) + [value]
        else:
            section[directive] = value
    return section


def systemd_hardened_dropin(overrides: Any, paths: Any, name: str, no_jit: bool = False, protect_proc: bool = True) -> str:
    """A drop-in for a unit the collection does not write (a package's): the sandbox in [Service], then the
    operator's overrides (section -> directive -> value), which replace a directive of the sandbox they name."""
    if overrides in (None, ''):
        overrides = {}
    if not isinstance(overrides, Mapping):
        raise ValueError('%s: must map sections to directives, got %s' % (name, type(overrides).__name__))
    merged: Dict[str, Any] = {'Service': hardening_section(paths, name, no_jit, protect_proc)}
    for section, directives in overrides.items():
        if section in merged and isinstance(directives, Mapping):
            merged[section] = {**merged[section], **directives}
        else:
            merged[section] = directives
    return systemd_dropin(merged, name)
