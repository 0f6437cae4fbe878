"""jaas_config writes the sasl.jaas.config line of each SASL mechanism, and refuses values that break it."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.jaas_config import jaas_config


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


@pytest.mark.parametrize(('field', 'value'), [('password', 'a"b'), ('password', 'a\\b'), ('username', 'x"')])
def test_quotes_and_backslashes_are_refused_without_showing_the_value(field: str, value: str) -> None:
    arguments = {'username': 'connect', 'password': 'secret', field: value}
    with pytest.raises(AnsibleFilterError) as raised:
        jaas_config('SCRAM-SHA-512', **arguments)
    assert field in str(raised.value) and 'double quote or a backslash' in str(raised.value)
    assert value not in str(raised.value)


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
