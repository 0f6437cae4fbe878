# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The sandbox of the collection's services: every directive a unit gets, the directories it may write
written as systemd splits them back, the refusals, and the drop-in of a package's unit."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_brokers import kafka_broker_log_dirs
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.systemd_hardening import (
    hardening_directives,
    read_write_paths,
    systemd_hardened_dropin,
    systemd_hardening,
)

# What every service gets, as the brief of docs/security.md lists it.
REQUIRED = {
    'NoNewPrivileges': 'yes', 'ProtectSystem': 'strict', 'PrivateTmp': 'yes', 'ProtectHome': 'yes',
    'CapabilityBoundingSet': '', 'AmbientCapabilities': '', 'ProtectKernelTunables': 'yes',
    'ProtectKernelModules': 'yes', 'ProtectControlGroups': 'yes', 'RestrictSUIDSGID': 'yes', 'LockPersonality': 'yes',
    'RestrictRealtime': 'yes', 'RestrictNamespaces': 'yes', 'ProtectClock': 'yes', 'ProtectHostname': 'yes',
    'SystemCallArchitectures': 'native', 'UMask': '0027', 'PrivateDevices': 'yes', 'ProtectKernelLogs': 'yes',
}


def lines(text: str) -> Dict[str, List[str]]:
    found: Dict[str, List[str]] = {}
    for line in text.splitlines():
        key, value = line.split('=', 1)
        found.setdefault(key, []).append(value)
    return found


def test_a_jvm_service_gets_the_whole_sandbox_and_may_write_its_directories() -> None:
    directives = lines(systemd_hardening(['/var/lib/kafka/broker', '/var/log/kafka/broker'], 'dirs'))
    for key, value in REQUIRED.items():
        assert directives[key] == [value], key
    assert directives['ReadWritePaths'] == ['/var/lib/kafka/broker /var/log/kafka/broker']
    assert directives['SystemCallFilter'] == ['@system-service', '~@privileged @resources']
    assert directives['SystemCallErrorNumber'] == ['EPERM']
    assert directives['RestrictAddressFamilies'] == ['AF_UNIX AF_INET AF_INET6 AF_NETLINK']
    assert directives['ProtectProc'] == ['invisible']
    # A JIT compiler needs memory both writable and executable.
    assert 'MemoryDenyWriteExecute' not in directives


def test_read_write_paths_follow_protect_system() -> None:
    keys = [directive[0] for directive in hardening_directives(['/srv/a'], 'dirs')]
    assert keys.index('ReadWritePaths') == keys.index('ProtectSystem') + 1


def test_a_service_that_writes_its_state_directory_only_gets_no_read_write_paths() -> None:
    assert 'ReadWritePaths' not in lines(systemd_hardening([], 'nothing'))


def test_a_python_service_gets_memory_deny_write_execute() -> None:
    assert lines(systemd_hardening([], 'watchdog', no_jit=True))['MemoryDenyWriteExecute'] == ['yes']


def test_protect_proc_can_be_left_out() -> None:
    assert 'ProtectProc' not in lines(systemd_hardening([], 'prometheus', protect_proc=False))


@pytest.mark.parametrize(('paths', 'written'), [
    (['/data/kafka logs'], '"/data/kafka logs"'),
    (['/data/100%'], '/data/100%%'),
    (['/data/say "hi"'], '"/data/say \\"hi\\""'),
    (['/data/a/', '/data/a', '//data/b'], '/data/a /data/b'),
])
def test_paths_are_written_as_systemd_reads_them_back(paths: List[str], written: str) -> None:
    assert read_write_paths(paths, 'dirs') == written


@pytest.mark.parametrize(('paths', 'message'), [
    ('/var/lib/kafka', 'must be a list of paths'),
    (['var/lib/kafka'], 'is not an absolute path'),
    (['/var/lib/../etc'], 'holds a .. component'),
    (['/'], 'the root directory would make the whole file system writable'),
    (['/var/lib/kafka\nExecStartPre=/bin/sh'], 'must not hold a line break'),
    ([None], 'must be a string or a number'),
])
def test_unusable_paths_are_refused_naming_the_variable(paths: object, message: str) -> None:
    with pytest.raises(ValueError, match='kafka_broker_data_dir: .*%s' % message):
        systemd_hardening(paths, 'kafka_broker_data_dir')


def test_a_package_drop_in_holds_the_sandbox_and_the_operator_overrides_win() -> None:
    text = systemd_hardened_dropin({'Service': {'PrivateUsers': 'false', 'UMask': '0077'}, 'Unit': {'After': 'x.target'}},
                                   ['/var/lib/prometheus'], 'prometheus_systemd_overrides', no_jit=True, protect_proc=False)
    sections = text.split('[Unit]')
    service = lines('\n'.join(line for line in sections[0].splitlines() if not line.startswith('[')))
    assert service['ProtectSystem'] == ['strict'] and service['ReadWritePaths'] == ['/var/lib/prometheus']
    assert service['PrivateUsers'] == ['false'] and service['UMask'] == ['0077']
    assert service['SystemCallFilter'] == ['@system-service', '~@privileged @resources']
    assert service['MemoryDenyWriteExecute'] == ['yes'] and 'ProtectProc' not in service
    assert sections[1] == '\nAfter=x.target\n'


def test_a_package_drop_in_refuses_what_the_other_drop_ins_refuse() -> None:
    with pytest.raises(ValueError, match='prometheus_systemd_overrides: must map sections'):
        systemd_hardened_dropin(['Service'], [], 'prometheus_systemd_overrides')
    with pytest.raises(ValueError, match='line break'):
        systemd_hardened_dropin({'Service': {'Nice': '5\nUser=root'}}, [], 'prometheus_systemd_overrides')


@pytest.mark.parametrize(('properties', 'directories'), [
    ({'log.dirs': '/var/lib/kafka/broker'}, ['/var/lib/kafka/broker']),
    ({'log.dirs': '/data1/kafka, /data2/kafka', 'log.dir': '/ignored'}, ['/data1/kafka', '/data2/kafka']),
    ({'log.dir': '/data/kafka'}, ['/data/kafka']),
    ({}, ['/tmp/kafka-logs']),
    ({'log.dirs': '/data1/kafka', 'metadata.log.dir': '/meta/kafka'}, ['/data1/kafka', '/meta/kafka']),
    ({'log.dirs': '/data1/kafka', 'metadata.log.dir': '/data1/kafka'}, ['/data1/kafka']),
    ({'log.dirs': None, 'log.dir': '/data/kafka'}, ['/data/kafka']),
])
def test_the_broker_writes_the_directories_kafka_reads_from_its_properties(properties: dict, directories: List[str]) -> None:
    assert kafka_broker_log_dirs(properties) == directories


def test_the_broker_log_dirs_need_the_properties() -> None:
    with pytest.raises(ValueError, match='expects the broker properties'):
        kafka_broker_log_dirs('log.dirs=/data')


@pytest.mark.skipif(shutil.which('systemd-analyze') is None, reason='needs systemd-analyze')
def test_systemd_reads_the_paths_back(tmp_path: Path) -> None:
    """systemd-analyze verify parses a unit with the sandbox and unusual paths without a complaint about them."""
    unit = tmp_path / 'probe.service'
    unit.write_text('[Service]\nType=oneshot\nExecStart=/bin/true\nUser=daemon\n'
                    + systemd_hardening(['/srv/kafka logs', '/srv/100%'], 'dirs') + '\n')
    done = subprocess.run(['systemd-analyze', 'verify', '--man=no', str(unit)], capture_output=True, text=True, check=False)
    complaints = [line for line in done.stderr.splitlines() if 'probe.service' in line]
    assert complaints == [], done.stderr
