"""connect_worker_properties gives role connect_worker the properties its former Jinja gave.

fixtures/connect_worker_properties_jinja.yml holds that Jinja as it was in vars/main.yml; each case
renders it with Ansible's templar and compares with the filter, as a mapping and as the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.client_properties import client_properties
from ansible_collections.kafka_dr.mm2.plugins.filter.connect_worker_properties import connect_worker_properties
from ansible_collections.kafka_dr.mm2.plugins.filter.properties import to_properties

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'connect_worker_properties_jinja.yml'
# The former Jinja's one call of a collection filter, which a bare templar does not load: the
# same function, called as a global.
FILTER_CALL = ('__connect_worker_kafka_client_settings | combine(__connect_worker_kafka_client_refs) | kafka_dr.mm2.client_properties',
               'client_properties(__connect_worker_kafka_client_settings | combine(__connect_worker_kafka_client_refs))')
# The filter's options that were role variables of their own, by that variable; the others are connect_worker_<option>.
INTERNAL = {'base': '__connect_worker_base_properties', 'kafka_client_settings': '__connect_worker_kafka_client_settings',
            'kafka_client_refs': '__connect_worker_kafka_client_refs', 'rest_https': '__connect_worker_rest_https',
            'rest_secret_refs': '__connect_worker_secret_refs', 'properties': 'connect_worker_properties'}
SECRETS = '/etc/kafka/connect/secrets/worker.properties'

BASE: Dict[str, Any] = {
    'base': {'bootstrap.servers': 'broker-1:9092', 'group.id': 'connect-mm2', 'listeners': 'http://0.0.0.0:8083',
             'rest.advertised.listener': 'http', 'rest.advertised.port': 8083, 'client.rack': None},
    'kafka_security_protocol': 'PLAINTEXT', 'kafka_client_settings': {}, 'kafka_client_refs': {}, 'rest_https': False,
    'rest_port': 8083, 'rest_ssl_keystore_type': 'PKCS12', 'rest_ssl_keystore_location': '/etc/kafka/tls/keystore.p12',
    'rest_ssl_truststore_type': 'PKCS12', 'rest_ssl_truststore_location': '/etc/kafka/tls/truststore.p12',
    'rest_ssl_client_auth': 'none', 'rest_ssl_cipher_suites': [], 'rest_secret_refs': {}, 'rest_basic_auth': False,
    'properties': {}, 'rest_listen_address': '0.0.0.0', 'rest_admin_port': 0,
}
SCRAM = {'kafka_security_protocol': 'SASL_SSL',
         'kafka_client_settings': {'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'SCRAM-SHA-512',
                                   'ssl.truststore.location': '/etc/kafka/tls/ca.pem', 'ssl.truststore.type': 'PEM'},
         'kafka_client_refs': {'sasl.jaas.config': '${file:%s:sasl.jaas.config}' % SECRETS}}
REST_REFS = {'rest.ssl.keystore.password': '${file:%s:rest.ssl.keystore.password}' % SECRETS,
             'rest.ssl.truststore.password': '${file:%s:rest.ssl.truststore.password}' % SECRETS}

CASES: Dict[str, Dict[str, Any]] = {
    'defaults': {},
    'SASL_SSL clients': SCRAM,
    'SSL clients with a setting the placeholders replace': {
        'kafka_security_protocol': 'SSL', 'kafka_client_settings': {'security.protocol': 'SSL', 'ssl.key.password': 'x'},
        'kafka_client_refs': {'ssl.key.password': '${file:%s:ssl.key.password}' % SECRETS}},
    'PLAINTEXT ignores client settings': {'kafka_client_settings': {'security.protocol': 'PLAINTEXT'}},
    'HTTPS with two passwords and ciphers': {'rest_https': True, 'rest_secret_refs': REST_REFS, 'rest_port': '8443',
                                             'rest_ssl_cipher_suites': ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384'],
                                             'rest_ssl_client_auth': 'required'},
    'HTTPS without passwords': {'rest_https': True},
    'HTTPS, port left empty': {'rest_https': True, 'rest_port': None, 'rest_ssl_cipher_suites': 'AB'},
    'refs without HTTPS': {'rest_secret_refs': REST_REFS},
    'basic auth': {'rest_basic_auth': True},
    'basic auth as a string': {'rest_basic_auth': 'yes'},
    'basic auth off as a string': {'rest_basic_auth': 'no'},
    'everything, the user wins': dict(SCRAM, rest_https=True, rest_basic_auth=True, rest_secret_refs=REST_REFS, properties={
        'listeners': 'https://10.0.0.5:8443', 'sasl.mechanism': 'PLAIN', 'rest.extension.classes': None, 'client.rack': 'a'}),
}


def trusted(value: Any) -> Any:
    """The fixture's strings, nested ones included, as templates."""
    if isinstance(value, dict):
        return {key: trusted(item) for key, item in value.items()}
    return trust_as_template(value) if isinstance(value, str) else value


def jinja_properties(settings: Dict[str, Any]) -> Dict[str, Any]:
    """What the role's former Jinja rendered for these settings."""
    text = OLD_JINJA.read_text(encoding='utf-8')
    assert FILTER_CALL[0] in text
    old = yaml.safe_load(text.replace(*FILTER_CALL))
    variables: Dict[str, Any] = {name: trusted(value) for name, value in old.items()}
    variables.update({INTERNAL.get(name, 'connect_worker_' + name): value for name, value in settings.items()})
    variables['client_properties'] = client_properties
    templar = Templar(loader=DataLoader(), variables=variables)
    return templar.template(trust_as_template('{{ __connect_worker_effective_properties }}'))


@pytest.mark.parametrize('changes', CASES.values(), ids=list(CASES))
def test_same_properties_as_the_former_jinja(changes: Dict[str, Any]) -> None:
    settings = dict(BASE, **changes)
    expected = jinja_properties(settings)
    result = connect_worker_properties(settings)
    assert result == expected
    assert to_properties(result) == to_properties(expected)


def test_defaults_are_the_base() -> None:
    assert connect_worker_properties(BASE) == BASE['base']


def test_the_listener_binds_the_chosen_address_and_the_admin_endpoints_stay_on_loopback() -> None:
    result = connect_worker_properties(dict(BASE, rest_listen_address='10.0.0.5', rest_admin_port=8084))
    assert (result['listeners'], result['admin.listeners']) == ('http://10.0.0.5:8083', 'http://127.0.0.1:8084')
    secure = connect_worker_properties(dict(BASE, rest_https=True, rest_listen_address='::1', rest_admin_port='8084'))
    assert (secure['listeners'], secure['admin.listeners']) == ('https://[::1]:8083', 'http://127.0.0.1:8084')
    assert 'admin.listeners' not in connect_worker_properties(BASE)


def test_each_client_reads_its_secrets_through_placeholders() -> None:
    result = connect_worker_properties(dict(BASE, **SCRAM))
    for prefix in ('', 'producer.', 'consumer.', 'admin.'):
        assert result[prefix + 'sasl.jaas.config'] == '${file:%s:sasl.jaas.config}' % SECRETS
        assert result[prefix + 'security.protocol'] == 'SASL_SSL'


def test_https_leaves_out_the_passwords_without_placeholder() -> None:
    result = connect_worker_properties(dict(BASE, rest_https=True, rest_secret_refs=REST_REFS))
    assert result['listeners'] == 'https://0.0.0.0:8083' and result['rest.advertised.listener'] == 'https'
    assert result['listeners.https.ssl.key.password'] is None
    assert 'listeners.https.ssl.key.password' not in to_properties(result)


def test_a_missing_setting_is_named() -> None:
    with pytest.raises(AnsibleFilterError, match='missing rest_port'):
        connect_worker_properties({name: value for name, value in BASE.items() if name != 'rest_port'})


def test_user_properties_must_be_a_mapping() -> None:
    with pytest.raises(AnsibleFilterError, match='combine expects mappings'):
        connect_worker_properties(dict(BASE, properties=['listeners=x']))
