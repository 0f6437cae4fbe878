# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Running Kafka's admin tools: the command line, failures in the tool's own words, timeouts."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Sequence

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_tool import (
    KafkaAdmin,
    KafkaToolError,
    ToolResult,
    failure_reason,
    run_process,
)

ACL_ERROR = ToolResult(1, (
    'Error while executing ACL command: org.apache.kafka.common.errors.SecurityDisabledException: '
    'No Authorizer is configured.\n'
    'java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.SecurityDisabledException: '
    'No Authorizer is configured.\n'
    '\tat java.base/java.util.concurrent.CompletableFuture.reportGet(CompletableFuture.java:396)\n'
    'Caused by: org.apache.kafka.common.errors.SecurityDisabledException: No Authorizer is configured.\n'), '')
TLS_ERROR = ToolResult(1, (
    'Error while executing ACL command: org.apache.kafka.common.errors.SslAuthenticationException: '
    'SSL handshake failed\n'
    'java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.SslAuthenticationException: '
    'SSL handshake failed\n'
    'Caused by: org.apache.kafka.common.errors.SslAuthenticationException: SSL handshake failed\n'
    'Caused by: javax.net.ssl.SSLHandshakeException: PKIX path building failed: '
    'sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path\n'
    '\t... 12 more\n'), '')
USAGE_ERROR = ToolResult(1, '', (
    'You must provide at least one resource: --topic <topic> or --cluster or --group <group>\n'
    'Option                                   Description\n'
    '------                                   -----------\n'))
MISSING_CLASS = ToolResult(1, '', (
    'Error: Could not find or load main class org.apache.kafka.tools.AclCommand\n'
    'Caused by: java.lang.ClassNotFoundException: org.apache.kafka.tools.AclCommand\n'))


@pytest.mark.parametrize('result, reason', [
    (ACL_ERROR, 'SecurityDisabledException: No Authorizer is configured.'),
    (TLS_ERROR, 'SslAuthenticationException: SSL handshake failed, caused by SSLHandshakeException: PKIX path '
                'building failed: SunCertPathBuilderException: unable to find valid certification path'),
    (USAGE_ERROR, 'You must provide at least one resource: --topic <topic> or --cluster or --group <group>'),
    (MISSING_CLASS, 'this Kafka has no class org.apache.kafka.tools.AclCommand (Kafka 3.x names it '
                    'kafka.admin.AclCommand)'),
    (ToolResult(124, '', 'no answer within 5 s'), 'no answer within 5 s'),
    (ToolResult(3, '', ''), 'exit code 3 without a message'),
])
def test_failures_read_as_the_tool_put_them(result: ToolResult, reason: str) -> None:
    assert failure_reason(result) == reason


def test_a_long_message_is_cut() -> None:
    reason = failure_reason(ToolResult(1, 'Error while executing ACL command: IllegalStateException: ' + 'x' * 500, ''))

    assert reason.startswith('IllegalStateException: xxx') and reason.endswith('...') and len(reason) == 300


def test_every_run_gets_the_connection_and_is_counted() -> None:
    seen: List[Sequence[str]] = []

    def runner(argv: Sequence[str], timeout: float) -> ToolResult:
        seen.append(list(argv) + [str(timeout)])
        return ToolResult(0, 'ok', '')

    admin = KafkaAdmin('kafka-1:9095', '/etc/kafka/admin.properties', kafka_run='/opt/kafka/kafka-run', timeout=30,
                       runner=runner)
    assert admin.run('org.apache.kafka.tools.AclCommand', ['--list'], 'listing').stdout == 'ok'
    assert seen == [['/opt/kafka/kafka-run', 'org.apache.kafka.tools.AclCommand', '--bootstrap-server', 'kafka-1:9095',
                     '--command-config', '/etc/kafka/admin.properties', '--list', '30']]
    assert admin.runs == ['listing']


def test_a_plaintext_connection_has_no_command_config() -> None:
    assert KafkaAdmin('kafka-1:9092').connection_args() == ['--bootstrap-server', 'kafka-1:9092']


def test_a_failed_run_raises_with_the_action_and_reason() -> None:
    admin = KafkaAdmin('kafka-1:9095', runner=lambda argv, timeout: ACL_ERROR)

    with pytest.raises(KafkaToolError) as raised:
        admin.run('org.apache.kafka.tools.AclCommand', ['--list'], 'listing the ACLs')

    assert str(raised.value) == 'listing the ACLs: SecurityDisabledException: No Authorizer is configured.'
    assert raised.value.result.rc == 1 and admin.runs == ['listing the ACLs']


def test_processes_run_without_a_shell_and_time_out(tmp_path: Path) -> None:
    done = run_process([sys.executable, '-c', 'import sys; print("a b"); sys.stderr.write("e")'], 10)
    assert done == ToolResult(0, 'a b\n', 'e')

    hung = run_process([sys.executable, '-c', 'import time; time.sleep(5)'], 0.5)
    assert hung.rc == 124 and hung.stderr == 'no answer within 0.5 s'

    missing = run_process([str(tmp_path / 'no-such-kafka-run')], 5)
    assert missing.rc == 127 and 'no-such-kafka-run' in missing.stderr
