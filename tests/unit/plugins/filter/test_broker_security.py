"""broker_security gives role kafka_broker's server.properties the security settings its Jinja gave.

fixtures/broker_security_jinja.yml holds that Jinja as it was in vars/main.yml; each case renders
it with Ansible's templar and compares with the filter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.broker_security import broker_security
from ansible_collections.kafka_dr.mm2.plugins.filter.file_placeholders import file_placeholders
from ansible_collections.kafka_dr.mm2.plugins.filter.properties import to_properties

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'broker_security_jinja.yml'
# The former Jinja's one call of a collection filter, which a bare templar does not load: the
# same function, called as a global.
FILTER_CALL = ('__kafka_broker_tls_secrets | kafka_dr.mm2.file_placeholders(__kafka_broker_tls_secrets_file)',
               'file_placeholders(__kafka_broker_tls_secrets, __kafka_broker_tls_secrets_file)')

# The role's defaults, without their templates.
BASE: Dict[str, Any] = {
    'ssl_enabled': False, 'sasl_ssl_enabled': False, 'controller_protocol': 'PLAINTEXT',
    'secrets_dir': '/etc/kafka/secrets', 'ssl_keystore_type': 'PEM', 'ssl_keystore_location': '/etc/kafka/tls/keystore.pem',
    'ssl_keystore_password': '', 'ssl_key_password': '', 'ssl_truststore_type': 'PEM',
    'ssl_truststore_location': '/etc/kafka/tls/ca.pem', 'ssl_truststore_password': '',
    'ssl_principal_mapping_rules': 'RULE:^CN=([^,]+).*$/$1/,DEFAULT', 'ssl_listener_name': 'SSL', 'ssl_client_auth': 'required',
    'sasl_mechanisms': ['SCRAM-SHA-512', 'PLAIN'], 'kerberos_service_name': 'kafka', 'kerberos_principal_to_local_rules': ['DEFAULT'],
    'authorizer_enabled': False, 'super_users': ['User:kafka-1', 'User:kafka-2'], 'allow_everyone_if_no_acl_found': False,
}
PKCS12 = {'ssl_keystore_type': 'PKCS12', 'ssl_keystore_location': '/etc/kafka/tls/keystore.p12', 'ssl_keystore_password': 'ks',
          'ssl_key_password': 'k', 'ssl_truststore_type': 'JKS', 'ssl_truststore_password': 'ts'}

CASES: Dict[str, Dict[str, Any]] = {
    'defaults': {},
    'SSL listener': {'ssl_enabled': True, 'controller_protocol': 'SSL'},
    'SSL listener, controller in plain text': {'ssl_enabled': 'yes'},
    'controller on SSL alone': {'controller_protocol': 'SSL'},
    'SASL_SSL alone': {'sasl_ssl_enabled': True},
    'SASL_SSL without mechanisms': {'sasl_ssl_enabled': True, 'sasl_mechanisms': []},
    'every listener with PKCS12 stores': dict(PKCS12, ssl_enabled=True, sasl_ssl_enabled=True, controller_protocol='SSL'),
    'one store password': {'ssl_enabled': True, 'ssl_truststore_password': 'ts'},
    'passwords without TLS': dict(PKCS12),
    'client certificates requested, listener renamed': {'ssl_enabled': True, 'ssl_client_auth': 'requested',
                                                        'ssl_listener_name': 'Internal_TLS'},
    'GSSAPI': {'sasl_ssl_enabled': True, 'ssl_enabled': True, 'sasl_mechanisms': ['GSSAPI', 'SCRAM-SHA-256'],
               'kerberos_service_name': 'kafka-svc', 'kerberos_principal_to_local_rules': ['RULE:[2:$1](kafka)s/.*/kafka/', 'DEFAULT']},
    'GSSAPI listed, SASL_SSL off': {'sasl_mechanisms': ['GSSAPI']},
    'authorizer': {'ssl_enabled': True, 'controller_protocol': 'SSL', 'authorizer_enabled': True},
    'authorizer open by default, as strings': {'ssl_enabled': 'true', 'authorizer_enabled': 'True',
                                               'allow_everyone_if_no_acl_found': 'yes', 'super_users': []},
    'authorizer without TLS': {'authorizer_enabled': True, 'super_users': ['User:admin']},
}


def trusted(value: Any) -> Any:
    """The fixture's strings, nested ones included, as templates."""
    if isinstance(value, dict):
        return {key: trusted(item) for key, item in value.items()}
    return trust_as_template(value) if isinstance(value, str) else value


def jinja_security(settings: Dict[str, Any]) -> Dict[str, Any]:
    """What the role's former Jinja rendered for these settings."""
    text = OLD_JINJA.read_text(encoding='utf-8')
    assert FILTER_CALL[0] in text
    old = yaml.safe_load(text.replace(*FILTER_CALL))
    variables: Dict[str, Any] = {name: trusted(value) for name, value in old.items()}
    variables.update({'kafka_broker_' + name: value for name, value in settings.items()}, file_placeholders=file_placeholders)
    templar = Templar(loader=DataLoader(), variables=variables)
    return {name: templar.template(trust_as_template('{{ __kafka_broker_%s }}' % variable))
            for name, variable in (('properties', 'security_properties'), ('tls_secrets', 'tls_secrets'), ('secrets_needed', 'secrets_needed'))}


@pytest.mark.parametrize('changes', CASES.values(), ids=list(CASES))
def test_same_settings_as_the_former_jinja(changes: Dict[str, Any]) -> None:
    settings = dict(BASE, **changes)
    expected = jinja_security(settings)
    result = broker_security(settings)
    assert result == expected
    assert to_properties(result['properties']) == to_properties(expected['properties'])


def test_defaults_add_nothing() -> None:
    assert broker_security(BASE) == {'properties': {}, 'tls_secrets': {}, 'secrets_needed': False}


def test_passwords_are_placeholders() -> None:
    result = broker_security(dict(BASE, **PKCS12, ssl_enabled=True))
    assert result['properties']['ssl.keystore.password'] == '${file:/etc/kafka/secrets/tls.properties:ssl.keystore.password}'
    assert 'ks' not in result['properties'].values() and result['tls_secrets']['ssl.keystore.password'] == 'ks'


def test_a_missing_setting_is_an_error() -> None:
    with pytest.raises(AnsibleFilterError, match='missing super_users'):
        broker_security({name: value for name, value in BASE.items() if name != 'super_users'})
