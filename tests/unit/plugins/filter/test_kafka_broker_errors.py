"""kafka_broker_errors reports what role kafka_broker's former Jinja rules reported.

fixtures/kafka_broker_rules_jinja.yml holds those rules as they were in tasks/validate.yml,
with the role variables they read; each case renders them with Ansible's templar and compares
with the filter's messages. The former messages broke one line (before "Nothing was changed.")
where the filter writes a space: messages are compared with their white space runs as one space.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.kafka_broker_errors import kafka_broker_errors

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'kafka_broker_rules_jinja.yml'
KEYTAB = Path(__file__).resolve()  # any file on this machine

# Role defaults for the checked variables, on host kafka-1 of a three-broker group.
BASE: Dict[str, Any] = {
    'inventory_hostname': 'kafka-1', 'groups': {'kafka': ['kafka-1', 'kafka-2', 'kafka-3'], 'all': ['kafka-1']},
    'kafka_broker_group': 'kafka', 'kafka_broker_cluster_id': 'MkU3OEVBNTcwNTJENDM2Qk', 'kafka_broker_node_id': 1,
    'kafka_broker_listener_name': 'PLAINTEXT', 'kafka_broker_port': 9092, 'kafka_broker_controller_port': 9093,
    'kafka_broker_plaintext_enabled': True, 'kafka_broker_sasl_ssl_enabled': False,
    'kafka_broker_sasl_ssl_listener_name': 'SASL_SSL', 'kafka_broker_sasl_ssl_port': 9094,
    'kafka_broker_sasl_mechanisms': ['SCRAM-SHA-512', 'PLAIN'], 'kafka_broker_plain_users': [],
    'kafka_broker_kerberos_principal': '', 'kafka_broker_kerberos_keytab_src': '',
    'kafka_broker_ssl_enabled': False, 'kafka_broker_ssl_listener_name': 'SSL', 'kafka_broker_ssl_port': 9095,
    'kafka_broker_inter_broker_listener': 'PLAINTEXT', 'kafka_broker_authorizer_enabled': False,
}
SECURED = {'kafka_broker_sasl_ssl_enabled': True, 'kafka_broker_ssl_enabled': True, 'kafka_broker_inter_broker_listener': 'SSL'}
GSSAPI = dict(SECURED, kafka_broker_sasl_mechanisms=['GSSAPI'], kafka_broker_kerberos_principal='kafka/kafka-1@EXAMPLE.COM')

CASES: Dict[str, Dict[str, Any]] = {
    'defaults': {},
    'host outside the group': {'inventory_hostname': 'kafka-9'},
    'no such group': {'kafka_broker_group': 'brokers'},
    'empty cluster id': {'kafka_broker_cluster_id': ''},
    'node id as a string': {'kafka_broker_node_id': '3'},
    'negative node id': {'kafka_broker_node_id': -1},
    'every listener': SECURED,
    'no listener': {'kafka_broker_plaintext_enabled': False},
    'names equal but for case': dict(SECURED, kafka_broker_ssl_listener_name='sasl_ssl'),
    'SSL port on the controller port': dict(SECURED, kafka_broker_ssl_port='9093'),
    'two listeners on one port': dict(SECURED, kafka_broker_sasl_ssl_port=9092),
    'inter-broker listener off': {'kafka_broker_inter_broker_listener': 'SSL'},
    'SASL_SSL without mechanisms': dict(SECURED, kafka_broker_sasl_mechanisms=[]),
    'PLAIN accounts': {'kafka_broker_plain_users': [{'username': 'ok.user-1', 'password': 'fine'},
                                                    {'username': 'bad user', 'password': 'a"b'},
                                                    {'username': 'b@d', 'password': 'c\\d'}]},
    'percent-encoded quote is no quote': {'kafka_broker_plain_users': [{'username': 'u', 'password': '%22%5C'}]},
    'authorizer without SSL': {'kafka_broker_authorizer_enabled': True},
    'authorizer with SSL': dict(SECURED, kafka_broker_authorizer_enabled='yes'),
    'SSL only': {'kafka_broker_plaintext_enabled': False, 'kafka_broker_ssl_enabled': True,
                 'kafka_broker_inter_broker_listener': 'SSL'},
    'SASL_SSL only': {'kafka_broker_plaintext_enabled': 'false', 'kafka_broker_sasl_ssl_enabled': 'true',
                      'kafka_broker_inter_broker_listener': 'SASL_SSL'},
    'GSSAPI': GSSAPI,
    'GSSAPI without a principal': dict(GSSAPI, kafka_broker_kerberos_principal=''),
    'GSSAPI with a user principal': dict(GSSAPI, kafka_broker_kerberos_principal='kafka@EXAMPLE.COM'),
    'GSSAPI with a keytab file': dict(GSSAPI, kafka_broker_kerberos_keytab_src=str(KEYTAB)),
    'GSSAPI with a missing keytab': dict(GSSAPI, kafka_broker_kerberos_keytab_src='/nonexistent/kafka.keytab'),
    'GSSAPI keytab is a directory': dict(GSSAPI, kafka_broker_kerberos_keytab_src=str(KEYTAB.parent)),
    'GSSAPI listed, SASL_SSL off': {'kafka_broker_sasl_mechanisms': ['GSSAPI'], 'kafka_broker_kerberos_principal': 'x'},
}


def one_line(message: str) -> str:
    return ' '.join(message.split())


def jinja_errors(settings: Dict[str, Any]) -> Tuple[List[str], List[Dict[str, Any]]]:
    """What the role's former rules reported for these settings, and the client listeners they read."""
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    variables: Dict[str, Any] = {name: trust_as_template(text) for name, text in old['__kafka_broker_derived'].items()}
    templar = Templar(loader=DataLoader(), variables=dict(variables, **settings))
    errors = [templar.template(trust_as_template(rule['msg'])) for rule in old['__kafka_broker_rules']
              if not templar.template(trust_as_template(rule['valid']))]
    return errors, templar.template(trust_as_template('{{ __kafka_broker_client_listeners }}'))


def checked(settings: Dict[str, Any], listeners: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The filter's input, as tasks/validate.yml builds it."""
    names = [name for name in settings if name not in ('groups', 'kafka_broker_listener_name', 'kafka_broker_port',
                                                       'kafka_broker_sasl_ssl_listener_name', 'kafka_broker_sasl_ssl_port',
                                                       'kafka_broker_ssl_listener_name', 'kafka_broker_ssl_port')]
    return dict({name: settings[name] for name in names},
                kafka_broker_group_members=settings['groups'].get(settings['kafka_broker_group'], []),
                kafka_broker_client_listeners=listeners)


@pytest.mark.parametrize('changes', CASES.values(), ids=list(CASES))
def test_same_messages_as_the_former_jinja(changes: Dict[str, Any]) -> None:
    settings = dict(BASE, **changes)
    expected, listeners = jinja_errors(settings)
    assert kafka_broker_errors(checked(settings, listeners)) == [one_line(message) for message in expected]


def test_the_defaults_are_valid() -> None:
    _errors, listeners = jinja_errors(BASE)
    assert kafka_broker_errors(checked(BASE, listeners)) == []


def test_plain_accounts_name_the_bad_names_and_never_a_password() -> None:
    settings = dict(BASE, **CASES['PLAIN accounts'])
    _errors, listeners = jinja_errors(settings)
    errors = kafka_broker_errors(checked(settings, listeners))
    assert errors[0] == ("kafka_broker: kafka_broker_plain_users names use letters, digits, '.', '_' and '-' "
                         "(got bad user, b@d). Nothing was changed.")
    assert len(errors) == 1 and not any('a"b' in error or 'c\\d' in error for error in errors)


def test_a_password_with_quotes_or_backslashes_is_accepted() -> None:
    """The JAAS file escapes them (filter jaas_escape in templates/jaas.conf.j2)."""
    settings = dict(BASE, kafka_broker_plain_users=[{'username': 'u', 'password': 'a"b\\c\nd'}])
    _errors, listeners = jinja_errors(settings)
    assert kafka_broker_errors(checked(settings, listeners)) == []


def test_a_missing_variable_is_an_error_of_the_task() -> None:
    with pytest.raises(AnsibleFilterError, match='missing kafka_broker_group_members'):
        kafka_broker_errors({name: value for name, value in BASE.items() if name != 'groups'})
