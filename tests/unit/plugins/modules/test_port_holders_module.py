# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Module kafka_dr.mm2.port_holders as Ansible runs it: arguments in, JSON out."""

from __future__ import annotations

import socket
from typing import Any


def test_a_listening_port_is_reported_and_nothing_changes(run_module: Any) -> None:
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as server:
        server.bind(('::1', 0))
        server.listen(1)
        result = run_module('port_holders', port=server.getsockname()[1])
    assert result['changed'] is False
    assert len(result['holders']) == 1 and isinstance(result['holders'][0]['pid'], int)


def test_a_free_port_has_no_holder(run_module: Any) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(('127.0.0.1', 0))
        port = probe.getsockname()[1]
    assert run_module('port_holders', port=port)['holders'] == []


def test_a_port_out_of_range_fails_the_task(run_module: Any) -> None:
    result = run_module('port_holders', port=70000)
    assert result['failed'] is True and 'between 1 and 65535' in result['msg']
