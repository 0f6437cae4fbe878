# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which processes listen on a TCP port of this host, read from /proc alone.

A host may already run a Kafka Connect of its own (EMR starts one on the task nodes at 8083):
the worker role must know who holds its REST port before it installs anything. /proc is read
directly, so that no tool (ss, lsof, netstat) needs to be installed on the host.

Naming the process of a socket means reading the links in /proc/<pid>/fd, which root may not do
without CAP_SYS_PTRACE (containers drop it). Such a socket is still reported, with the user that
opened it (/proc/net/tcp keeps it); it counts as the owner unit's when that unit runs a process
of that very user, and as someone else's otherwise.
"""

from __future__ import annotations

import os
import pwd
import re
from typing import Dict, Iterable, List, Optional, Set

# /proc/net/tcp{,6}: "sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ..."
_LISTEN_STATE = '0A'
_SOCKET_LINK = re.compile(r'^socket:\[(\d+)\]$')
_UNIT = re.compile(r'[^/]+\.(?:service|scope)$')

Holder = Dict[str, object]


def listening_sockets(port: int, proc_root: str = '/proc') -> Dict[str, int]:
    """Socket inode -> the uid that opened it, for each socket listening on `port` over IPv4 or IPv6."""
    sockets: Dict[str, int] = {}
    for table in ('tcp', 'tcp6'):
        try:
            with open(os.path.join(proc_root, 'net', table), encoding='ascii') as lines:
                rows = lines.read().splitlines()[1:]
        except OSError:  # no IPv6 on this host
            continue
        for row in rows:
            fields = row.split()
            if len(fields) >= 10 and fields[3] == _LISTEN_STATE and int(fields[1].rsplit(':', 1)[1], 16) == port:
                sockets[fields[9]] = int(fields[7])
    return sockets


def _socket_inodes(pid_dir: str) -> Set[str]:
    """The socket inodes a process holds open; empty when it is gone or not ours to read."""
    found: Set[str] = set()
    try:
        descriptors = os.listdir(os.path.join(pid_dir, 'fd'))
    except OSError:
        return found
    for descriptor in descriptors:
        try:
            match = _SOCKET_LINK.match(os.readlink(os.path.join(pid_dir, 'fd', descriptor)))
        except OSError:
            continue
        if match:
            found.add(match.group(1))
    return found


def _read(path: str) -> str:
    try:
        with open(path, 'rb') as handle:
            return handle.read().decode('utf-8', 'replace')
    except OSError:
        return ''


def systemd_unit(cgroup_text: str) -> Optional[str]:
    """The systemd unit a process runs in, from /proc/<pid>/cgroup: the innermost .service or .scope
    of systemd's own hierarchy (name=systemd on cgroup v1, the unified one on v2), where other
    controllers of v1 may stop at an outer scope."""
    paths: Dict[str, str] = {}
    for line in cgroup_text.splitlines():
        fields = line.split(':', 2)
        if len(fields) == 3:
            paths.setdefault(fields[1], fields[2])
    ordered = [paths.pop('name=systemd', ''), paths.pop('', '')] + list(paths.values())
    for path in ordered:
        units = [part for part in path.split('/') if _UNIT.match(part)]
        if units:
            return units[-1]
    return None


def process_uid(pid_dir: str) -> Optional[int]:
    """The real uid of a process, from its status (readable by anyone)."""
    for line in _read(os.path.join(pid_dir, 'status')).splitlines():
        if line.startswith('Uid:'):
            return int(line.split()[1])
    return None


def user_name(uid: Optional[int]) -> str:
    if uid is None:
        return ''
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def describe_process(pid: str, proc_root: str = '/proc') -> Holder:
    """What an operator needs to recognise a process: its id, name, user, command line and unit."""
    pid_dir = os.path.join(proc_root, pid)
    command = _read(os.path.join(pid_dir, 'cmdline')).replace('\0', ' ').strip()
    uid = process_uid(pid_dir)
    return {
        'pid': int(pid),
        'name': _read(os.path.join(pid_dir, 'comm')).strip(),
        'uid': uid,
        'user': user_name(uid),
        # A Java command line runs to kilobytes of class path: the start and the main class say enough.
        'command': command if len(command) <= 300 else command[:150] + ' ... ' + command[-140:],
        'unit': systemd_unit(_read(os.path.join(pid_dir, 'cgroup'))),
    }


def _pid_dirs(proc_root: str) -> List[str]:
    return sorted((entry for entry in os.listdir(proc_root) if entry.isdigit()), key=int)


def unit_uids(units: Iterable[str], proc_root: str = '/proc') -> Set[int]:
    """The uids of the processes that run in any of `units`."""
    wanted = set(units)
    uids: Set[int] = set()
    if not wanted:
        return uids
    for pid in _pid_dirs(proc_root):
        pid_dir = os.path.join(proc_root, pid)
        if systemd_unit(_read(os.path.join(pid_dir, 'cgroup'))) in wanted:
            uid = process_uid(pid_dir)
            if uid is not None:
                uids.add(uid)
    return uids


def port_holders(port: int, owner_units: Iterable[str] = (), proc_root: str = '/proc') -> List[Holder]:
    """Every process that holds a listening socket on `port`, each with `owned`: whether it runs in
    one of `owner_units`.

    A socket whose process cannot be read is reported with pid None and the user that opened
    it, so that the port is never taken for free when it is not.
    """
    owners = set(owner_units)
    sockets = listening_sockets(port, proc_root)
    holders: List[Holder] = []
    unmatched = set(sockets)
    for pid in _pid_dirs(proc_root):
        if not unmatched:
            break
        held = _socket_inodes(os.path.join(proc_root, pid)) & unmatched
        if held:
            unmatched -= held
            holder = describe_process(pid, proc_root)
            holder['owned'] = holder['unit'] in owners
            holders.append(holder)
    if unmatched:
        owner_uids = unit_uids(owners, proc_root)
        for uid in sorted({sockets[inode] for inode in unmatched}):
            holders.append({'pid': None, 'name': '', 'uid': uid, 'user': user_name(uid), 'command': '', 'unit': None,
                            'owned': uid in owner_uids})
    return holders


def describe_holder(holder: Holder) -> str:
    """One line naming a holder: its process id, name, user, unit and command line."""
    if holder['pid'] is None:
        return ('a process of user %s that cannot be named from here (no CAP_SYS_PTRACE, or another network '
                'namespace)' % (holder['user'] or '?'))
    return 'pid %s (%s, user %s, unit %s): %s' % (holder['pid'], holder['name'] or '?', holder['user'] or '?',
                                                  holder['unit'] or 'none', holder['command'])


def foreign_holders(holders: Iterable[Holder]) -> List[str]:
    """The holders outside the owner units, each described."""
    return [describe_holder(holder) for holder in holders if not holder['owned']]
