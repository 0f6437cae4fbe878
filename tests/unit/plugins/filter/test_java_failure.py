"""java_failure turns a Java tool's output into 'first exception, caused by root cause'."""

from __future__ import annotations

from pathlib import Path

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.java_failure import java_failure

# Real tool output, kept in files: its lines are as long as Java prints them.
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# ClusterTool prints the message of what it caught, then its stack trace.
SCRAM_REFUSED = (FIXTURES / "scram_refused.txt").read_text(encoding="utf-8")

UNTRUSTED_CA = (FIXTURES / "untrusted_ca.txt").read_text(encoding="utf-8")

KEYTAB_UNREADABLE = (FIXTURES / "keytab_unreadable.txt").read_text(encoding="utf-8")


def test_the_root_cause_repeating_the_first_exception_is_said_once() -> None:
    assert java_failure(SCRAM_REFUSED) == (
        'SaslAuthenticationException: Authentication failed during authentication due to invalid credentials '
        'with SASL mechanism SCRAM-SHA-512')


def test_first_exception_and_last_cause() -> None:
    assert java_failure(UNTRUSTED_CA) == (
        'SslAuthenticationException: SSL handshake failed, caused by SunCertPathBuilderException: '
        'unable to find valid certification path to requested target')


def test_package_names_are_dropped_and_the_last_cause_wins() -> None:
    assert java_failure(KEYTAB_UNREADABLE) == (
        'KafkaException: Failed to create new KafkaAdminClient, caused by LoginException: Could not login: the client is '
        'being asked for a password, but the Kafka client code does not currently support obtaining a password from the '
        'user. not available to garner  authentication information from the user')


def test_long_messages_are_cut() -> None:
    chain = 'CN=broker,O=lab ' * 40
    reason = java_failure('javax.net.ssl.SSLHandshakeException: %s\nCaused by: java.security.cert.CertificateException: %s'
                          % (chain, chain))
    first, root = reason.split(', caused by ')
    assert first.startswith('SSLHandshakeException: CN=broker') and len(first) == 300 and first.endswith('...')
    assert root.startswith('CertificateException: CN=broker') and len(root) <= 300 and root.endswith('...')


def test_lines_as_a_list_like_stdout_lines_plus_stderr_lines() -> None:
    assert java_failure(['Cluster ID: abc'] + UNTRUSTED_CA.splitlines()) == java_failure(UNTRUSTED_CA)


def test_errors_count_like_exceptions() -> None:
    assert java_failure('java.lang.OutOfMemoryError: Java heap space') == 'OutOfMemoryError: Java heap space'


def test_only_a_cause() -> None:
    assert java_failure('Caused by: java.net.UnknownHostException: broker-9') == 'UnknownHostException: broker-9'


@pytest.mark.parametrize('output', ['', None, [], 'Cluster ID: 4L6g3nShT-eMCtK--X86sw\n', 'timeout: sending signal TERM'])
def test_no_exception_gives_an_empty_reason(output: object) -> None:
    assert java_failure(output) == ''  # type: ignore[arg-type]


def test_other_input_is_refused() -> None:
    with pytest.raises(AnsibleFilterError, match='text or a list'):
        java_failure({'stdout': 'x'})  # type: ignore[arg-type]


# A keytab whose principal the KDC no longer has, and one exported before the key changed.
KERBEROS_CLIENT_NOT_FOUND = (FIXTURES / "kerberos_client_not_found.txt").read_text(encoding="utf-8")
KERBEROS_STALE_KEYTAB = (FIXTURES / "kerberos_stale_keytab.txt").read_text(encoding="utf-8")


def test_a_login_failure_gives_the_kdc_answer_and_what_it_means() -> None:
    # Java's own check beneath the login failure ("Identifier doesn't match") is not the reason.
    assert java_failure(KERBEROS_CLIENT_NOT_FOUND) == (
        'KafkaException: Failed to create new KafkaAdminClient, caused by LoginException: Client not found in Kerberos '
        'database (6) - CLIENT_NOT_FOUND (meaning: the KDC has no such principal)')


def test_a_stale_keytab_is_named_as_such() -> None:
    assert java_failure(KERBEROS_STALE_KEYTAB) == (
        'KafkaException: Failed to create new KafkaAdminClient, caused by LoginException: Checksum failed '
        "(meaning: the keytab does not hold the principal's current key (exported before the key changed, or another "
        "principal's keytab))")
