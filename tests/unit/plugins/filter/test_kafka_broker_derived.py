"""kafka_broker_derived gives role kafka_broker the listeners, switches, JVM options and admin connection its former Jinja gave.

fixtures/kafka_broker_derived_jinja.yml holds that Jinja as it was in vars/main.yml; each case
renders it with Ansible's templar and compares with the filter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.kafka_broker_derived import kafka_broker_derived

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'kafka_broker_derived_jinja.yml'
# The filter's option that was a role variable of its own, by that variable.
INTERNAL = {'jaas_file': '__kafka_broker_jaas_file'}
# What the filter returns, each the former role variable __kafka_broker_<name>.
VALUES = ('client_listeners', 'jvm_security_options', 'gssapi', 'tls_needed', 'listeners', 'advertised_listeners',
          'listener_security_protocol_map', 'admin_tls', 'admin_bootstrap', 'admin_connection', 'ship_keytab', 'ship_krb5_conf')

# The role's defaults.
BASE: Dict[str, Any] = {
    'plaintext_enabled': True, 'listener_name': 'PLAINTEXT', 'port': 9092, 'sasl_ssl_enabled': False,
    'sasl_ssl_listener_name': 'SASL_SSL', 'sasl_ssl_port': 9094, 'ssl_enabled': False, 'ssl_listener_name': 'SSL', 'ssl_port': 9093,
    'sasl_mechanisms': ['SCRAM-SHA-512', 'PLAIN'], 'jaas_file': '/etc/kafka/secrets/jaas.conf', 'krb5_conf': '/etc/krb5.conf',
    'advertised_host': 'kafka-1', 'controller_port': 9093, 'controller_protocol': 'PLAINTEXT',
    'admin_client_config': '/etc/kafka/broker/admin-client.properties', 'kerberos_keytab_src': '', 'krb5_conf_src': '',
}
GSSAPI = {'sasl_ssl_enabled': True, 'sasl_mechanisms': ['GSSAPI', 'SCRAM-SHA-512']}

CASES: Dict[str, Dict[str, Any]] = {
    'defaults': {},
    'every listener': {'sasl_ssl_enabled': True, 'ssl_enabled': True},
    'every listener, switches as strings': {'plaintext_enabled': 'yes', 'sasl_ssl_enabled': 'True', 'ssl_enabled': 'on'},
    'TLS only': {'plaintext_enabled': False, 'ssl_enabled': True},
    'no listener': {'plaintext_enabled': 'no'},
    'renamed listeners, ports as strings': {'listener_name': 'INTERNAL', 'port': '19092', 'ssl_enabled': True,
                                            'ssl_listener_name': 'Internal_TLS', 'ssl_port': '19093'},
    'SASL_SSL with GSSAPI': dict(GSSAPI, krb5_conf='/etc/kafka/krb5.conf'),
    'SASL_SSL as a string with GSSAPI': dict(GSSAPI, sasl_ssl_enabled='True'),
    'GSSAPI listed, SASL_SSL off': {'sasl_mechanisms': ['GSSAPI'], 'kerberos_keytab_src': 'files/kafka.keytab'},
    'GSSAPI in a string of mechanisms': {'sasl_ssl_enabled': True, 'sasl_mechanisms': 'PLAIN,GSSAPI'},
    'SASL_SSL without GSSAPI': {'sasl_ssl_enabled': True, 'plaintext_enabled': False},
    'GSSAPI with both files shipped': dict(GSSAPI, kerberos_keytab_src='files/kafka.keytab', krb5_conf_src='files/krb5.conf'),
    'GSSAPI with the keytab shipped': dict(GSSAPI, kerberos_keytab_src='files/kafka.keytab'),
    'controller on SSL': {'controller_protocol': 'SSL', 'controller_port': '19093'},
    'SSL admin connection': {'ssl_enabled': True, 'advertised_host': 'kafka-1.example.com', 'ssl_port': 19093},
    'no client listener': {'plaintext_enabled': False},
    'settings left empty': {'advertised_host': None, 'port': None, 'controller_port': None, 'listener_name': None},
    'settings left empty, SSL': {'advertised_host': None, 'ssl_enabled': True, 'ssl_port': None},
}


def jinja_values(settings: Dict[str, Any]) -> Dict[str, Any]:
    """What the role's former Jinja rendered for these settings."""
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    variables: Dict[str, Any] = {name: trust_as_template(text) for name, text in old.items()}
    variables.update({INTERNAL.get(name, 'kafka_broker_' + name): value for name, value in settings.items()})
    templar = Templar(loader=DataLoader(), variables=variables)
    return {name: templar.template(trust_as_template('{{ __kafka_broker_%s }}' % name)) for name in VALUES}


@pytest.mark.parametrize('changes', CASES.values(), ids=list(CASES))
def test_same_values_as_the_former_jinja(changes: Dict[str, Any]) -> None:
    settings = dict(BASE, **changes)
    assert kafka_broker_derived(settings) == jinja_values(settings)


def test_listeners_keep_their_order() -> None:
    listeners = kafka_broker_derived(dict(BASE, sasl_ssl_enabled=True, ssl_enabled=True))['client_listeners']
    assert [listener['protocol'] for listener in listeners] == ['PLAINTEXT', 'SASL_SSL', 'SSL']


def test_missing_settings_are_named() -> None:
    settings = dict(BASE)
    del settings['ssl_port']
    with pytest.raises(AnsibleFilterError, match='kafka_broker_derived is missing ssl_port'):
        kafka_broker_derived(settings)


def test_listener_properties_of_every_listener() -> None:
    result = kafka_broker_derived(dict(BASE, sasl_ssl_enabled=True, ssl_enabled=True, controller_protocol='SSL'))
    assert result['listeners'] == 'PLAINTEXT://0.0.0.0:9092,SASL_SSL://0.0.0.0:9094,SSL://0.0.0.0:9093,CONTROLLER://0.0.0.0:9093'
    assert result['advertised_listeners'] == 'PLAINTEXT://kafka-1:9092,SASL_SSL://kafka-1:9094,SSL://kafka-1:9093'
    assert result['listener_security_protocol_map'] == 'CONTROLLER:SSL,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL'
    assert result['admin_connection'] == ['--bootstrap-server', 'kafka-1:9093', '--command-config',
                                          '/etc/kafka/broker/admin-client.properties']
