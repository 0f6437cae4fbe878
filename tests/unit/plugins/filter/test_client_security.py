"""client_security: one Kafka client's security settings and secrets, for each protocol."""

from __future__ import annotations

from typing import Any, Dict

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.client_security import client_security

STORES = {
    'ssl_truststore_type': 'PEM', 'ssl_truststore_location': '/etc/kafka/tls/ca.pem', 'ssl_truststore_password': '',
    'ssl_keystore_type': 'PKCS12', 'ssl_keystore_location': '/etc/kafka/tls/keystore.p12',
    'ssl_keystore_password': 'store-secret', 'ssl_key_password': 'key-secret',
}
LOGIN = {'sasl_username': 'connect', 'sasl_password': 'scram-secret', 'kerberos_principal': 'connect/task-1@EXAMPLE.COM',
         'kerberos_keytab': '/etc/kafka/connect/secrets/client.keytab', 'kerberos_service_name': 'kafka'}
TRUST = {'security.protocol': None, 'ssl.truststore.type': 'PEM', 'ssl.truststore.location': '/etc/kafka/tls/ca.pem'}
KEYS = {'ssl.keystore.type': 'PKCS12', 'ssl.keystore.location': '/etc/kafka/tls/keystore.p12'}
KEY_SECRETS = {'ssl.keystore.password': 'store-secret', 'ssl.key.password': 'key-secret'}
SCRAM_LINE = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="connect" password="scram-secret";'


def security(protocol: str, **options: Any) -> Dict[str, Any]:
    return client_security(dict(STORES, **LOGIN, security_protocol=protocol, **options))


def test_plaintext_is_the_protocol_alone() -> None:
    assert security('PLAINTEXT', sasl_mechanism='PLAIN', ssl_client_certificate=True) == {
        'settings': {'security.protocol': 'PLAINTEXT'}, 'secrets': {}}


@pytest.mark.parametrize('certificate', [False, True, 'yes'])
def test_ssl_trusts_the_ca_and_shows_a_certificate_when_asked(certificate: Any) -> None:
    result = security('SSL', ssl_client_certificate=certificate)
    shows = certificate in (True, 'yes')
    assert result['settings'] == dict(TRUST, **{'security.protocol': 'SSL'}, **(KEYS if shows else {}))
    # The empty trust store password is left out.
    assert result['secrets'] == (KEY_SECRETS if shows else {})


@pytest.mark.parametrize('mechanism', ['SCRAM-SHA-256', 'SCRAM-SHA-512'])
def test_scram_over_plaintext_has_no_stores(mechanism: str) -> None:
    result = security('SASL_PLAINTEXT', sasl_mechanism=mechanism, ssl_client_certificate=True)
    assert result == {'settings': {'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': mechanism},
                      'secrets': {'sasl.jaas.config': SCRAM_LINE}}


def test_plain_over_tls_with_a_trust_store_password() -> None:
    result = security('SASL_SSL', sasl_mechanism='PLAIN', ssl_truststore_password='trust-secret')
    assert result['settings'] == dict(TRUST, **{'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'PLAIN'})
    assert result['secrets'] == {
        'sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required username="connect" '
                            'password="scram-secret";',
        'ssl.truststore.password': 'trust-secret'}


def test_kerberos_logs_in_with_its_keytab_and_names_the_service() -> None:
    result = security('SASL_SSL', sasl_mechanism='GSSAPI', ssl_client_certificate=True)
    assert result['settings'] == dict(TRUST, **{'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'GSSAPI',
                                                'sasl.kerberos.service.name': 'kafka'}, **KEYS)
    assert result['secrets'] == dict(KEY_SECRETS, **{'sasl.jaas.config': (
        'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true '
        'keyTab="/etc/kafka/connect/secrets/client.keytab" principal="connect/task-1@EXAMPLE.COM";')})


def test_placeholders_pass_through() -> None:
    placeholder = '${file:/etc/kafka/secrets/mm2.properties:ssl.truststore.password}'
    assert security('SSL', ssl_truststore_password=placeholder)['secrets'] == {'ssl.truststore.password': placeholder}


@pytest.mark.parametrize('options, message', [
    ({'security_protocol': 'SASL'}, 'security_protocol must be one of'),
    ({'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'OAUTHBEARER'}, 'SASL mechanism must be one of'),
    ({'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'PLAIN', 'sasl_username': ''}, 'needs username'),
    ({'security_protocol': 'SSL', 'ssl_client_certificate': 'maybe'}, 'must be a boolean'),
    ({'security_protocol': 'SSL', 'sasl_mechnism': 'PLAIN'}, 'unknown option'),
])
def test_bad_input_is_refused_without_its_secrets(options: Dict[str, Any], message: str) -> None:
    with pytest.raises(AnsibleFilterError, match=message) as raised:
        client_security({**STORES, **LOGIN, **options})
    assert 'secret' not in str(raised.value).replace('secrets', '')
