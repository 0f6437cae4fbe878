"""kafka_broker_derived gives role kafka_broker the client listeners and JVM options its former Jinja gave.

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
# The filter's options that were role variables of their own, by that variable.
INTERNAL = {'gssapi': '__kafka_broker_gssapi', 'jaas_file': '__kafka_broker_jaas_file'}

# The role's defaults.
BASE: Dict[str, Any] = {
    'plaintext_enabled': True, 'listener_name': 'PLAINTEXT', 'port': 9092, 'sasl_ssl_enabled': False,
    'sasl_ssl_listener_name': 'SASL_SSL', 'sasl_ssl_port': 9094, 'ssl_enabled': False, 'ssl_listener_name': 'SSL', 'ssl_port': 9093,
    'gssapi': False, 'jaas_file': '/etc/kafka/secrets/jaas.conf', 'krb5_conf': '/etc/krb5.conf',
}

CASES: Dict[str, Dict[str, Any]] = {
    'defaults': {},
    'every listener': {'sasl_ssl_enabled': True, 'ssl_enabled': True},
    'every listener, switches as strings': {'plaintext_enabled': 'yes', 'sasl_ssl_enabled': 'True', 'ssl_enabled': 'on'},
    'TLS only': {'plaintext_enabled': False, 'ssl_enabled': True},
    'no listener': {'plaintext_enabled': 'no'},
    'renamed listeners, ports as strings': {'listener_name': 'INTERNAL', 'port': '19092', 'ssl_enabled': True,
                                            'ssl_listener_name': 'Internal_TLS', 'ssl_port': '19093'},
    'SASL_SSL with GSSAPI': {'sasl_ssl_enabled': True, 'gssapi': True, 'krb5_conf': '/etc/kafka/krb5.conf'},
    'GSSAPI as a string': {'sasl_ssl_enabled': True, 'gssapi': 'True'},
    'SASL_SSL without GSSAPI': {'sasl_ssl_enabled': True, 'plaintext_enabled': False},
}


def jinja_values(settings: Dict[str, Any]) -> Dict[str, Any]:
    """What the role's former Jinja rendered for these settings."""
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    variables: Dict[str, Any] = {name: trust_as_template(text) for name, text in old.items()}
    variables.update({INTERNAL.get(name, 'kafka_broker_' + name): value for name, value in settings.items()})
    templar = Templar(loader=DataLoader(), variables=variables)
    return {name: templar.template(trust_as_template('{{ __kafka_broker_%s }}' % name))
            for name in ('client_listeners', 'jvm_security_options')}


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
