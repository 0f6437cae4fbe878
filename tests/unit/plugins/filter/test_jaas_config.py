"""jaas_config writes the sasl.jaas.config line of each SASL mechanism, its values escaped as Kafka parses them."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.jaas_config import jaas_config, jaas_escape


@pytest.mark.parametrize('mechanism', ['SCRAM-SHA-512', 'SCRAM-SHA-256'])
def test_scram(mechanism: str) -> None:
    assert jaas_config(mechanism, username='connect', password='p@ss w0rd;') == (
        'org.apache.kafka.common.security.scram.ScramLoginModule required username="connect" password="p@ss w0rd;";')


def test_plain() -> None:
    assert jaas_config('PLAIN', username='validator', password='secret') == (
        'org.apache.kafka.common.security.plain.PlainLoginModule required username="validator" password="secret";')


def test_gssapi_uses_the_keytab_and_principal() -> None:
    assert jaas_config('GSSAPI', principal='connect/task-1.example.com@EXAMPLE.COM',
                       keytab='/etc/kafka/connect/secrets/kafka-client.keytab') == (
        'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true '
        'keyTab="/etc/kafka/connect/secrets/kafka-client.keytab" principal="connect/task-1.example.com@EXAMPLE.COM";')


def test_gssapi_ignores_a_password() -> None:
    line = jaas_config('GSSAPI', username='u', password='not-used', principal='p@R', keytab='/k')
    assert 'not-used' not in line


@pytest.mark.parametrize(('field', 'value', 'written'), [
    ('password', 'a"b', 'a\\"b'),
    ('password', 'a\\b', 'a\\\\b'),
    ('password', 'line\nbreak\r', 'line\\nbreak\\r'),
    ('username', 'x"', 'x\\"'),
])
def test_quotes_backslashes_and_line_breaks_are_escaped_as_kafka_reads_them(field: str, value: str, written: str) -> None:
    arguments = {'username': 'connect', 'password': 'secret', field: value}
    assert '%s="%s"' % (field, written) in jaas_config('SCRAM-SHA-512', **arguments)


@pytest.mark.parametrize(('mechanism', 'arguments', 'missing'), [
    ('SCRAM-SHA-512', {'username': 'connect'}, 'password'),
    ('PLAIN', {'password': 'secret'}, 'username'),
    ('GSSAPI', {'keytab': '/k'}, 'principal'),
    ('GSSAPI', {'principal': 'p@R'}, 'keytab'),
])
def test_missing_values_are_named(mechanism: str, arguments: dict, missing: str) -> None:
    with pytest.raises(AnsibleFilterError, match='needs %s' % missing):
        jaas_config(mechanism, **arguments)


def test_unknown_mechanism_is_refused() -> None:
    with pytest.raises(AnsibleFilterError, match="OAUTHBEARER"):
        jaas_config('OAUTHBEARER', username='u', password='p')


def test_jaas_escape_quotes_backslashes_and_line_breaks_only() -> None:
    assert jaas_escape('a"b\\c\nd\re\tf \u00e9') == 'a\\"b\\\\c\\nd\\re\tf \u00e9'
    assert jaas_escape('plain-secret-3') == 'plain-secret-3'
    with pytest.raises(AnsibleFilterError, match='jaas_escape: a JAAS value must be a string'):
        jaas_escape(3)  # type: ignore[arg-type]
