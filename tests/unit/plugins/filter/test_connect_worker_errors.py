"""connect_worker_errors reports what role connect_worker's former Jinja rules reported.

fixtures/connect_worker_rules_jinja.yml holds those rules as they were in tasks/validate.yml;
each case renders them with Ansible's templar and compares with the filter's messages.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.connect_worker_errors import connect_worker_errors

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'connect_worker_rules_jinja.yml'

# The checked variables as the former Jinja rules knew them: plain HTTP without authentication, which the rules
# of a REST listener open to the network refuse unless connect_worker_rest_insecure (tested on their own below).
BASE: Dict[str, Any] = {
    'connect_worker_bootstrap_servers': 'dst-kafka-1:9092,dst-kafka-2:9092', 'connect_worker_rest_port': 8083,
    'connect_worker_jmx_port': 0, 'connect_worker_heap': '1g', 'connect_worker_auto_restart': True,
    'connect_worker_auto_restart_poll_interval': 30, 'connect_worker_auto_restart_max_restarts': 0,
    'connect_worker_auto_restart_metrics_port': 9405, 'connect_worker_auto_restart_stall_seconds': 600,
    'connect_worker_auto_restart_exporter_url': '', 'connect_worker_kafka_security_protocol': 'PLAINTEXT',
    'connect_worker_kafka_sasl_mechanism': 'SCRAM-SHA-512', 'connect_worker_kafka_sasl_username': '',
    'connect_worker_kafka_sasl_password': '', 'connect_worker_kafka_kerberos_principal': '',
    'connect_worker_kafka_kerberos_keytab': '/etc/kafka/connect/secrets/client.keytab', 'connect_worker_rest_scheme': 'http',
    'connect_worker_rest_ssl_keystore_type': 'PKCS12', 'connect_worker_rest_basic_auth': False, 'connect_worker_rest_users': [],
    'connect_worker_rest_listen_address': '0.0.0.0', 'connect_worker_rest_ssl_client_auth': 'none',
    'connect_worker_rest_insecure': True, 'connect_worker_rest_admin_port': 8084,
    'connect_worker_client_config_override_policy': 'All', 'kafka_install_version': '3.9.1',
}
# The role's defaults: HTTPS with basic authentication, given its first account.
SECURE = dict(BASE, connect_worker_rest_scheme='https', connect_worker_rest_basic_auth=True, connect_worker_rest_insecure=False,
              connect_worker_rest_users=[{'username': 'operator', 'password': 'x'}])

CASES: Dict[str, Dict[str, Any]] = {
    'defaults': {},
    'one server with spaces': {'connect_worker_bootstrap_servers': ' a:1 , b:2 '},
    'no port': {'connect_worker_bootstrap_servers': 'dst-kafka-1'},
    'empty bootstrap': {'connect_worker_bootstrap_servers': '  '},
    'trailing comma': {'connect_worker_bootstrap_servers': 'a:1,'},
    'space in a host': {'connect_worker_bootstrap_servers': 'a b:1'},
    'ports as strings': {'connect_worker_rest_port': '8083', 'connect_worker_auto_restart_metrics_port': '9405'},
    'rest port 0': {'connect_worker_rest_port': 0},
    'rest port too high': {'connect_worker_rest_port': 65536},
    'rest port not a number': {'connect_worker_rest_port': 'eighty'},
    'rest port a decimal string': {'connect_worker_rest_port': '8083.7'},
    'everything wrong with auto restart': {
        'connect_worker_auto_restart_poll_interval': 0, 'connect_worker_auto_restart_max_restarts': -1,
        'connect_worker_auto_restart_metrics_port': 8083, 'connect_worker_auto_restart_stall_seconds': -5,
        'connect_worker_auto_restart_exporter_url': 'ftp://x'},
    'everything wrong, auto restart off': {
        'connect_worker_auto_restart': 'no', 'connect_worker_auto_restart_poll_interval': 0,
        'connect_worker_auto_restart_max_restarts': -1, 'connect_worker_auto_restart_metrics_port': 8083,
        'connect_worker_auto_restart_stall_seconds': -5},
    'auto restart as a string yes': {'connect_worker_auto_restart': 'yes', 'connect_worker_auto_restart_metrics_port': 70000},
    'metrics port on the JMX port': {'connect_worker_jmx_port': 9999, 'connect_worker_auto_restart_metrics_port': '9999'},
    'stall window shorter than two polls': {'connect_worker_auto_restart_stall_seconds': 59},
    'stall window two polls': {'connect_worker_auto_restart_stall_seconds': 60},
    'stall detection off': {'connect_worker_auto_restart_stall_seconds': 0, 'connect_worker_auto_restart_poll_interval': 45},
    'exporter over https': {'connect_worker_auto_restart_exporter_url': 'https://w1:9404/metrics'},
    'exporter without a scheme': {'connect_worker_auto_restart_exporter_url': 'w1:9404/metrics'},
    'heap without a unit': {'connect_worker_heap': '1024'},
    'heap in megabytes': {'connect_worker_heap': '512M'},
    'SCRAM without a password': {'connect_worker_kafka_security_protocol': 'SASL_SSL', 'connect_worker_kafka_sasl_username': 'c'},
    'SCRAM with its login': {'connect_worker_kafka_security_protocol': 'SASL_PLAINTEXT',
                             'connect_worker_kafka_sasl_username': 'c', 'connect_worker_kafka_sasl_password': 'p'},
    'SSL needs no login': {'connect_worker_kafka_security_protocol': 'SSL'},
    'GSSAPI without a principal': {'connect_worker_kafka_security_protocol': 'SASL_SSL',
                                   'connect_worker_kafka_sasl_mechanism': 'GSSAPI'},
    'GSSAPI with a principal': {'connect_worker_kafka_security_protocol': 'SASL_SSL', 'connect_worker_kafka_sasl_mechanism': 'GSSAPI',
                                'connect_worker_kafka_kerberos_principal': 'connect/w1@EXAMPLE.COM'},
    'GSSAPI mechanism on PLAINTEXT': {'connect_worker_kafka_sasl_mechanism': 'GSSAPI'},
    'quote in a password': {'connect_worker_kafka_sasl_password': 'a"b'},
    'backslash in a keytab path': {'connect_worker_kafka_kerberos_keytab': 'C:\\keytab'},
    'percent-encoded quote is no quote': {'connect_worker_kafka_sasl_password': 'a%22b%5C'},
    'number as a password': {'connect_worker_kafka_sasl_password': 1234},
    'https with a PEM key store': {'connect_worker_rest_scheme': 'https', 'connect_worker_rest_ssl_keystore_type': 'PEM'},
    'PEM key store over http': {'connect_worker_rest_ssl_keystore_type': 'PEM'},
    'basic auth over http without users': {'connect_worker_rest_basic_auth': True},
    'basic auth as a string over https': {'connect_worker_rest_basic_auth': 'True', 'connect_worker_rest_scheme': 'https',
                                          'connect_worker_rest_users': [{'username': 'operator', 'password': 'x'}]},
    'basic auth off as a string': {'connect_worker_rest_basic_auth': 'false'},
}


def jinja_errors(settings: Dict[str, Any]) -> List[str]:
    """What the role's former rules reported for these settings."""
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    variables: Dict[str, Any] = {name: trust_as_template(text) for name, text in old['__connect_worker_derived'].items()}
    templar = Templar(loader=DataLoader(), variables=dict(variables, **settings))
    errors = []
    for rule in old['__connect_worker_rules']:
        if not templar.template(trust_as_template(rule['valid'])):
            errors.append(templar.template(trust_as_template(rule['msg'])))
    return errors


@pytest.mark.parametrize('changes', CASES.values(), ids=list(CASES))
def test_same_messages_as_the_former_jinja(changes: Dict[str, Any]) -> None:
    settings = dict(BASE, **changes)
    assert connect_worker_errors(settings) == jinja_errors(settings)


def test_the_defaults_are_valid_and_every_rule_can_break() -> None:
    assert connect_worker_errors(BASE) == []
    assert len(connect_worker_errors(dict(BASE, **CASES['everything wrong with auto restart']))) == 4
    assert len(connect_worker_errors(dict(BASE, **CASES['everything wrong, auto restart off']))) == 0


def test_messages_name_the_variables_and_never_a_password() -> None:
    settings = dict(BASE, connect_worker_kafka_security_protocol='SASL_SSL', connect_worker_kafka_sasl_username='',
                    connect_worker_kafka_sasl_password='se"cret')
    errors = connect_worker_errors(settings)
    assert len(errors) == 1 and 'connect_worker_kafka_sasl_password' in errors[0] and 'se"cret' not in errors[0]
    assert errors[0].endswith('Nothing was changed.')


def test_quotes_and_backslashes_are_accepted() -> None:
    """The worker's login line escapes them (kafka_clients.jaas_login_line)."""
    settings = dict(BASE, connect_worker_kafka_security_protocol='SASL_SSL', connect_worker_kafka_sasl_username='u\\"1',
                    connect_worker_kafka_sasl_password='a"b\\c', connect_worker_kafka_kerberos_keytab='C:\\keytab')
    assert connect_worker_errors(settings) == []


def test_a_missing_variable_is_an_error_of_the_task() -> None:
    settings = dict(BASE)
    del settings['connect_worker_heap']
    with pytest.raises(AnsibleFilterError, match='missing connect_worker_heap'):
        connect_worker_errors(settings)
    with pytest.raises(AnsibleFilterError, match='expects a mapping'):
        connect_worker_errors(['connect_worker_heap'])  # type: ignore[arg-type]


def test_the_secure_defaults_pass() -> None:
    assert connect_worker_errors(SECURE) == []


@pytest.mark.parametrize(('changes', 'gaps'), [
    ({'connect_worker_rest_scheme': 'http', 'connect_worker_rest_basic_auth': False}, 'plain HTTP and no authentication'),
    ({'connect_worker_rest_basic_auth': False}, 'with no authentication'),
    ({'connect_worker_rest_basic_auth': 'no', 'connect_worker_rest_listen_address': '10.0.0.5'}, 'no authentication'),
])
def test_a_rest_listener_open_to_the_network_is_refused_naming_the_opt_in(changes: Dict[str, Any], gaps: str) -> None:
    (error,) = connect_worker_errors(dict(SECURE, **changes))
    assert gaps in error and 'connect_worker_rest_insecure=true' in error and error.endswith('Nothing was changed.')
    assert 'connect_worker_rest_listen_address=127.0.0.1' in error


@pytest.mark.parametrize('changes', [
    {'connect_worker_rest_basic_auth': False, 'connect_worker_rest_ssl_client_auth': 'required'},
    {'connect_worker_rest_scheme': 'http', 'connect_worker_rest_basic_auth': False, 'connect_worker_rest_listen_address': '127.0.0.1'},
    {'connect_worker_rest_scheme': 'http', 'connect_worker_rest_basic_auth': False, 'connect_worker_rest_listen_address': '::1'},
    {'connect_worker_rest_scheme': 'http', 'connect_worker_rest_basic_auth': False, 'connect_worker_rest_listen_address': 'localhost'},
    {'connect_worker_rest_scheme': 'http', 'connect_worker_rest_basic_auth': False, 'connect_worker_rest_insecure': 'yes'},
])
def test_client_certificates_loopback_or_the_opt_in_are_accepted(changes: Dict[str, Any]) -> None:
    assert connect_worker_errors(dict(SECURE, **changes)) == []


def test_requested_client_certificates_are_no_authentication() -> None:
    (error,) = connect_worker_errors(dict(SECURE, connect_worker_rest_basic_auth=False, connect_worker_rest_ssl_client_auth='requested'))
    assert 'no authentication' in error


@pytest.mark.parametrize('port', [8083, 70000, -1])
def test_the_admin_port_is_another_valid_port_or_zero(port: int) -> None:
    (error,) = connect_worker_errors(dict(SECURE, connect_worker_rest_admin_port=port))
    assert 'connect_worker_rest_admin_port' in error
    assert connect_worker_errors(dict(SECURE, connect_worker_rest_admin_port=0)) == []


@pytest.mark.parametrize('version', ['4.2.0', '4.3.1', '5.0'])
def test_the_allowlist_policy_is_accepted_from_kafka_4_2(version: str) -> None:
    settings = dict(SECURE, connect_worker_client_config_override_policy='Allowlist', kafka_install_version=version)
    assert connect_worker_errors(settings) == []


@pytest.mark.parametrize('version', ['4.1.1', '3.9.1', 'trunk'])
def test_the_allowlist_policy_on_older_kafka_is_refused_naming_the_fallback(version: str) -> None:
    settings = dict(SECURE, connect_worker_client_config_override_policy='Allowlist', kafka_install_version=version)
    (error,) = connect_worker_errors(settings)
    assert 'needs Kafka 4.2 or later (kafka_install_version is %s)' % version in error
    assert 'set the policy to All' in error and error.endswith('Nothing was changed.')
