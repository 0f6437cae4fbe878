"""connect_worker_derived gives role connect_worker the values its former Jinja gave.

fixtures/connect_worker_derived_jinja.yml holds that Jinja as it was in vars/main.yml; each case
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

from ansible_collections.kafka_dr.mm2.plugins.filter.connect_worker_derived import connect_worker_derived
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.connect_workers import CONNECT_WORKER_DERIVED_OPTIONS

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'connect_worker_derived_jinja.yml'
# The filter's options that are role switches, by the role variable that held them.
SWITCHES = {'rest_https': '__connect_worker_rest_https', 'rest_jaas_file': '__connect_worker_rest_jaas_file',
            'kafka_tls': '__connect_worker_kafka_tls', 'kafka_client_certificate': '__connect_worker_kafka_client_certificate',
            'kafka_gssapi': '__connect_worker_kafka_gssapi'}

# The role's defaults, with the switches the defaults give.
BASE: Dict[str, Any] = {
    'jmx_port': 0, 'rest_https': False, 'rest_basic_auth': False, 'rest_jaas_file': '/etc/kafka/connect/auth/rest-jaas.conf',
    'krb5_conf': '/etc/krb5.conf', 'kafka_tls': False, 'kafka_client_certificate': False, 'kafka_gssapi': False,
    'kafka_ssl_truststore_location': '/etc/kafka/connect/tls/truststore.p12',
    'kafka_ssl_keystore_location': '/etc/kafka/connect/tls/keystore.p12',
    'rest_ssl_keystore_location': '/etc/kafka/connect/tls/rest-keystore.p12',
    'rest_ssl_truststore_location': '/etc/kafka/connect/tls/rest-truststore.p12', 'rest_ca_path': '/etc/kafka/connect/tls/ca.pem',
    'rest_ssl_keystore_password': '', 'rest_ssl_key_password': '', 'rest_ssl_truststore_password': '',
    'rest_advertised_host': 'dst-connect-1', 'metrics_address': '0.0.0.0', 'metrics_port': 9404,
    'jmx_exporter_tls_keystore_path': '', 'auto_restart_exporter_url': '', 'auto_restart_metrics_address': '127.0.0.1',
    'auto_restart_metrics_port': 9405, 'rest_port': 8083, 'rest_listen_address': '0.0.0.0',
}

CASES: Dict[str, Dict[str, Any]] = {
    'defaults': {},
    'jmx on': {'jmx_port': 9999},
    'jmx port as a string': {'jmx_port': '9999'},
    'jmx port not a number': {'jmx_port': 'off'},
    'jmx port a decimal string': {'jmx_port': '0.5'},
    'https with every password': {'rest_https': True, 'rest_ssl_keystore_password': 'k"s', 'rest_ssl_key_password': 'kp',
                                  'rest_ssl_truststore_password': 'ts'},
    'https with one password': {'rest_https': True, 'rest_ssl_keystore_password': 'ks', 'rest_port': '8443'},
    'passwords without https': {'rest_ssl_keystore_password': 'ks', 'rest_ssl_truststore_password': 'ts'},
    'kafka tls with a client certificate': {'kafka_tls': True, 'kafka_client_certificate': True, 'rest_https': True},
    'kafka tls only': {'kafka_tls': True},
    'basic auth and kerberos': {'rest_basic_auth': True, 'kafka_gssapi': True, 'rest_https': True},
    'basic auth as a string': {'rest_basic_auth': 'yes'},
    'exporter tls': {'jmx_exporter_tls_keystore_path': '/etc/jmx/keystore.p12'},
    'exporter tls on an address': {'jmx_exporter_tls_keystore_path': '/etc/jmx/keystore.p12', 'metrics_address': '10.0.0.5'},
    'metrics on ipv6 any': {'metrics_address': '::', 'auto_restart_metrics_address': '::'},
    'metrics on an ipv6 address': {'metrics_address': 'fd00::5', 'auto_restart_metrics_address': 'fd00::7'},
    'metrics on an empty address': {'metrics_address': '', 'auto_restart_metrics_address': ''},
    'metrics on a name': {'metrics_address': 'connect-1.internal', 'auto_restart_metrics_address': '0.0.0.0'},
    'exporter url set': {'auto_restart_exporter_url': 'https://exporter:9404/metrics', 'metrics_address': 'fd00::5'},
    'ports as strings': {'metrics_port': '9404', 'auto_restart_metrics_port': '9405', 'rest_port': '8083'},
    'https on another name': {'rest_https': True, 'rest_advertised_host': 'task-1.example.com', 'rest_port': 9443},
    'https, host and port left empty': {'rest_https': True, 'rest_advertised_host': None, 'rest_port': None},
}


def role_variables(settings: Dict[str, Any]) -> Dict[str, Any]:
    """The role variables the former Jinja read."""
    variables = {'connect_worker_' + name: value for name, value in settings.items() if name not in SWITCHES}
    variables.update({role_name: settings[name] for name, role_name in SWITCHES.items()})
    variables['jmx_exporter_tls_keystore_path'] = settings['jmx_exporter_tls_keystore_path']
    return variables


def jinja_values(settings: Dict[str, Any]) -> Dict[str, Any]:
    """What the role's former Jinja rendered for these settings."""
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    variables: Dict[str, Any] = {name: trust_as_template(text) for name, text in old.items()}
    variables.update(role_variables(settings))
    templar = Templar(loader=DataLoader(), variables=variables)
    names = ('jmx_options', 'rest_secrets', 'security_jvm_options', 'store_paths', 'watchdog_exporter_url', 'watchdog_metrics_url',
             'watchdog_exporter_tls', 'health_base_url')
    return {name: templar.template(trust_as_template('{{ __connect_worker_%s }}' % name)) for name in names}


def filter_input(settings: Dict[str, Any], exporter_tls: Any) -> Dict[str, Any]:
    """The filter's input as vars/main.yml gives it."""
    worker = {name: value for name, value in settings.items() if name in CONNECT_WORKER_DERIVED_OPTIONS}
    worker['exporter_tls'] = exporter_tls
    return worker


@pytest.mark.parametrize('changes', CASES.values(), ids=list(CASES))
def test_same_values_as_the_former_jinja(changes: Dict[str, Any]) -> None:
    settings = dict(BASE, **changes)
    expected = jinja_values(settings)
    exporter_tls = expected.pop('watchdog_exporter_tls')
    assert connect_worker_derived(filter_input(settings, exporter_tls)) == expected


def test_defaults_derive_nothing_but_the_urls() -> None:
    result = connect_worker_derived(filter_input(BASE, False))
    assert result['jmx_options'] == [] and result['rest_secrets'] == {} and result['store_paths'] == []
    assert result['watchdog_exporter_url'] == 'http://127.0.0.1:9404/metrics'
    assert result['watchdog_metrics_url'] == 'http://127.0.0.1:9405/metrics'
    assert result['health_base_url'] == 'http://127.0.0.1:8083'


@pytest.mark.parametrize('address, url', [('10.0.0.5', 'http://10.0.0.5:8083'), ('task-1', 'http://task-1:8083'),
                                          ('fd00::5', 'http://[fd00::5]:8083'), ('::', 'http://127.0.0.1:8083')])
def test_plain_http_health_gate_calls_the_address_the_listener_binds(address: str, url: str) -> None:
    assert connect_worker_derived(filter_input(dict(BASE, rest_listen_address=address), False))['health_base_url'] == url


def test_https_health_gate_calls_the_name_in_the_certificate_whatever_the_address() -> None:
    result = connect_worker_derived(filter_input(dict(BASE, rest_https=True, rest_listen_address='10.0.0.5'), False))
    assert result['health_base_url'] == 'https://dst-connect-1:8083'


def test_missing_settings_are_named() -> None:
    worker = filter_input(BASE, False)
    del worker['rest_ca_path']
    with pytest.raises(AnsibleFilterError, match='missing rest_ca_path'):
        connect_worker_derived(worker)


def test_a_list_is_refused() -> None:
    with pytest.raises(AnsibleFilterError, match='expects a mapping'):
        connect_worker_derived([])  # type: ignore[arg-type]
