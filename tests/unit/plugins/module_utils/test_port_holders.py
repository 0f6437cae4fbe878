# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Who listens on a port, from /proc: a fake /proc tree for each case, and this very process on the real one."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.port_holders import (
    foreign_holders,
    listening_sockets,
    port_holders,
    systemd_unit,
    user_name,
)

HEADER = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n'


def socket_row(address: str, port: int, state: str, inode: int, uid: int = 997) -> str:
    return '   0: %s:%04X 00000000:0000 %s 00000000:00000000 00:00000000 00000000  %d        0 %d 1\n' % (
        address, port, state, uid, inode)


def fake_proc(root: Path, tcp: List[str], tcp6: List[str], processes: Dict[str, Dict[str, object]],
              unreadable: Tuple[str, ...] = ()) -> str:
    """A /proc tree; the fd directories of `unreadable` pids are left out, as root without CAP_SYS_PTRACE sees them."""
    (root / 'net').mkdir(parents=True)
    (root / 'net' / 'tcp').write_text(HEADER + ''.join(tcp))
    (root / 'net' / 'tcp6').write_text(HEADER + ''.join(tcp6))
    (root / 'self').mkdir()
    for pid, process in processes.items():
        (root / pid).mkdir()
        (root / pid / 'status').write_text('Name:\t%s\nUid:\t%d\t%d\t%d\t%d\n' % ((process['comm'],) + (process['uid'],) * 4))
        if pid not in unreadable:
            fd_dir = root / pid / 'fd'
            fd_dir.mkdir()
            for number, inode in enumerate(process['inodes']):  # type: ignore[arg-type]
                os.symlink('socket:[%d]' % inode, str(fd_dir / str(number + 3)))
            os.symlink('/dev/null', str(fd_dir / '0'))
        (root / pid / 'comm').write_text(str(process['comm']) + '\n')
        (root / pid / 'cmdline').write_bytes(b'\0'.join(arg.encode() for arg in process['argv']) + b'\0')  # type: ignore
        (root / pid / 'cgroup').write_text(str(process['cgroup']))
    return str(root)


EMR_CONNECT = {'inodes': [5101, 5102], 'comm': 'java', 'uid': 0, 'argv': ['java', '-Xmx1g', 'org.apache.kafka.connect.cli.ConnectDistributed'],
               'cgroup': '0::/system.slice/kafka-connect-emr.service\n'}
OUR_WORKER = {'inodes': [6201], 'comm': 'java', 'uid': 997, 'argv': ['java', 'ConnectDistributed'],
              'cgroup': '0::/system.slice/docker-abc.scope/system.slice/kafka-connect.service\n'}
SHELL = {'inodes': [7301], 'comm': 'bash', 'uid': 1000, 'argv': ['bash'], 'cgroup': '0::/user.slice/user-1000.slice/session-3.scope\n'}


def test_a_port_held_over_ipv6_by_another_service_is_named(tmp_path: Path) -> None:
    root = fake_proc(tmp_path, [socket_row('0100007F', 9092, '0A', 4001)],
                     [socket_row('00000000000000000000000000000000', 8083, '0A', 5101, uid=0)],
                     {'812': EMR_CONNECT, '90': SHELL})
    holders = port_holders(8083, ['kafka-connect.service'], root)
    assert holders == [{'pid': 812, 'name': 'java', 'uid': 0, 'user': 'root', 'unit': 'kafka-connect-emr.service',
                        'command': 'java -Xmx1g org.apache.kafka.connect.cli.ConnectDistributed', 'owned': False}]
    assert foreign_holders(holders) == [
        'pid 812 (java, user root, unit kafka-connect-emr.service): java -Xmx1g org.apache.kafka.connect.cli.ConnectDistributed']


def test_only_listening_sockets_count(tmp_path: Path) -> None:
    # 01 is ESTABLISHED: a client connected to 8083 elsewhere does not hold the port here.
    root = fake_proc(tmp_path, [socket_row('0100007F', 8083, '01', 7301)], [], {'90': SHELL})
    assert listening_sockets(8083, root) == {}
    assert port_holders(8083, ['kafka-connect.service'], root) == []


def test_the_owner_units_own_their_port(tmp_path: Path) -> None:
    root = fake_proc(tmp_path, [socket_row('00000000', 8083, '0A', 6201)], [], {'55': OUR_WORKER, '90': SHELL})
    holders = port_holders(8083, ['kafka-connect.service'], root)
    assert [(holder['unit'], holder['owned']) for holder in holders] == [('kafka-connect.service', True)]
    assert foreign_holders(holders) == []
    assert foreign_holders(port_holders(8083, [], root)) != []


def test_an_unreadable_socket_is_the_owner_units_when_it_runs_as_its_user(tmp_path: Path) -> None:
    """Root without CAP_SYS_PTRACE (a container) cannot read the worker's fds: the socket's user decides."""
    root = fake_proc(tmp_path, [socket_row('00000000', 8083, '0A', 6201, uid=997)], [], {'55': OUR_WORKER, '90': SHELL},
                     unreadable=('55',))
    holders = port_holders(8083, ['kafka-connect.service'], root)
    assert [(holder['pid'], holder['uid'], holder['owned']) for holder in holders] == [(None, 997, True)]
    # The same socket while the owner unit does not run (another program of that user): refused.
    assert foreign_holders(port_holders(8083, ['other.service'], root)) == [
        'a process of user %s that cannot be named from here (no CAP_SYS_PTRACE, or another network namespace)'
        % user_name(997)]


def test_a_socket_without_a_readable_process_still_holds_the_port(tmp_path: Path) -> None:
    root = fake_proc(tmp_path, [socket_row('00000000', 8083, '0A', 9999, uid=0)], [], {'90': SHELL})
    assert port_holders(8083, ['kafka-connect.service'], root) == [
        {'pid': None, 'name': '', 'uid': 0, 'user': 'root', 'command': '', 'unit': None, 'owned': False}]


def test_a_long_command_line_keeps_its_start_and_end(tmp_path: Path) -> None:
    java = dict(EMR_CONNECT, argv=['java', '-cp', ':'.join(['/usr/lib/kafka/libs/lib%d.jar' % n for n in range(200)]),
                                   'org.apache.kafka.connect.cli.ConnectDistributed', '/etc/kafka/connect-distributed.properties'])
    root = fake_proc(tmp_path, [socket_row('00000000', 8083, '0A', 5101)], [], {'812': java})
    (holder,) = port_holders(8083, [], root)
    command = str(holder['command'])
    assert len(command) < 300 and command.startswith('java -cp /usr/lib/kafka/libs/lib0.jar')
    assert command.endswith('ConnectDistributed /etc/kafka/connect-distributed.properties')


@pytest.mark.parametrize(('cgroup', 'unit'), [
    ('0::/system.slice/kafka-connect.service\n', 'kafka-connect.service'),
    ('12:pids:/system.slice/emr-kafka-connect.service\n1:name=systemd:/system.slice/emr-kafka-connect.service\n',
     'emr-kafka-connect.service'),
    ('0::/\n', None),
    # Docker on cgroup v1: other controllers may stop at the container's scope; systemd's own hierarchy does not.
    ('4:memory:/system.slice/docker-1f.scope\n1:name=systemd:/system.slice/docker-1f.scope/system.slice/kafka-connect.service\n'
     '0::/system.slice/docker-1f.scope\n', 'kafka-connect.service'),
    ('', None),
])
def test_units_from_cgroup_v1_and_v2(cgroup: str, unit: object) -> None:
    assert systemd_unit(cgroup) == unit


def test_this_process_is_found_on_the_real_proc() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(('127.0.0.1', 0))
        server.listen(1)
        port = server.getsockname()[1]
        holders = port_holders(port)
    assert [(holder['pid'], holder['uid'], holder['owned']) for holder in holders] == [(os.getpid(), os.getuid(), False)]
    assert 'python' in str(holders[0]['name']) or 'pytest' in str(holders[0]['command'])
