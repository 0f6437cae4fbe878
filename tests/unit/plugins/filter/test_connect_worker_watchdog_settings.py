"""connect_worker_watchdog_settings gives the restart watchdog the settings the role's former Jinja gave.

fixtures/connect_worker_watchdog_settings_jinja.yml holds that Jinja as it was in vars/main.yml; each
case renders it with Ansible's templar and compares with the filter, as values and as watchdog.json.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.connect_worker_watchdog_settings import connect_worker_watchdog_settings

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'connect_worker_watchdog_settings_jinja.yml'
# The role variable each option of the filter was, as the former Jinja read it.
VARIABLES = {
    'health_base_url': '__connect_worker_health_base_url', 'properties': '__connect_worker_effective_properties',
    'rest_advertised_host': 'connect_worker_rest_advertised_host', 'rest_port': 'connect_worker_rest_port',
    'state_file': '__connect_worker_watchdog_state_file', 'poll_interval': 'connect_worker_auto_restart_poll_interval',
    'max_restarts': 'connect_worker_auto_restart_max_restarts', 'metrics_address': 'connect_worker_auto_restart_metrics_address',
    'metrics_port': 'connect_worker_auto_restart_metrics_port', 'rest_https': '__connect_worker_rest_https',
    'rest_ca_path': 'connect_worker_rest_ca_path', 'rest_basic_auth': 'connect_worker_rest_basic_auth',
    'rest_users': 'connect_worker_rest_users', 'metrics_enabled': 'connect_worker_metrics_enabled',
    'stall_seconds': 'connect_worker_auto_restart_stall_seconds', 'exporter_url': '__connect_worker_watchdog_exporter_url',
    'exporter_username': 'jmx_exporter_basic_auth_username', 'exporter_password': 'jmx_exporter_basic_auth_password',
    'exporter_ca_path': 'connect_worker_auto_restart_exporter_ca_path',
}
# An exporter account the inventory does not set: undefined for the Jinja, '' for the filter (default('')).
UNSET = object()

BASE: Dict[str, Any] = {
    'health_base_url': 'http://127.0.0.1:8083', 'properties': {'rest.advertised.host.name': 'task-1', 'rest.advertised.port': 8083},
    'rest_advertised_host': 'task-1', 'rest_port': 8083, 'state_file': '/var/lib/kafka-connect-watchdog/state.json',
    'poll_interval': 30, 'max_restarts': 0, 'metrics_address': '0.0.0.0', 'metrics_port': 9405, 'rest_https': False,
    'rest_ca_path': '/etc/kafka/tls/ca.pem', 'rest_basic_auth': False, 'rest_users': [], 'metrics_enabled': True,
    'stall_seconds': 600, 'exporter_url': 'http://127.0.0.1:9404/metrics', 'exporter_username': '', 'exporter_password': '',
    'exporter_ca_path': '/etc/kafka/tls/ca.pem',
}
USERS = [{'username': 'operator', 'password': 'p"w\\1'}, {'username': 'reader', 'password': 'r'}]

CASES: Dict[str, Dict[str, Any]] = {
    'defaults': {},
    'https with basic auth': {'health_base_url': 'https://task-1.example.com:8083', 'rest_https': True, 'rest_basic_auth': True,
                              'rest_users': USERS},
    'basic auth as a string': {'rest_basic_auth': 'yes', 'rest_users': USERS},
    'basic auth off with users': {'rest_basic_auth': 'no', 'rest_users': USERS},
    'numbers as strings': {'poll_interval': '15', 'max_restarts': '3', 'metrics_port': '9500', 'stall_seconds': '120'},
    'numbers that are not': {'poll_interval': 'soon', 'stall_seconds': '2.5', 'metrics_port': None},
    'stall detection off: no exporter': {'metrics_enabled': False, 'exporter_username': 'prom', 'exporter_password': 'pp'},
    'stall detection off as a string': {'metrics_enabled': 'no'},
    'stall detection off: zero seconds': {'stall_seconds': '0'},
    'exporter over https with an account': {'exporter_url': ' https://task-1:9404/metrics ', 'exporter_username': 'prom',
                                            'exporter_password': 'pp', 'exporter_ca_path': '/etc/jmx/ca.pem'},
    'exporter url only starts like https': {'exporter_url': 'http://https.example:9404/metrics'},
    'exporter account unset': {'exporter_username': UNSET, 'exporter_password': UNSET},
    'properties advertise another worker': {'properties': {'rest.advertised.host.name': 'other', 'rest.advertised.port': '9083'}},
    'properties leave the worker id empty': {'properties': {'rest.advertised.host.name': '', 'rest.advertised.port': None}},
    'properties without the worker id': {'properties': {}, 'rest_port': '8443', 'rest_advertised_host': ' task-1 '},
    'urls with spaces': {'health_base_url': '  http://127.0.0.1:8083 \n'},
    'worker id settings left empty': {'properties': {'rest.advertised.port': 0}, 'rest_advertised_host': None, 'rest_port': None},
}


def trusted(value: Any) -> Any:
    """The fixture's strings, nested ones included, as templates."""
    if isinstance(value, dict):
        return {key: trusted(item) for key, item in value.items()}
    if isinstance(value, list):
        return [trusted(item) for item in value]
    return trust_as_template(value) if isinstance(value, str) else value


def jinja_settings(settings: Dict[str, Any]) -> Dict[str, Any]:
    """What the role's former Jinja rendered for these settings."""
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    variables: Dict[str, Any] = {name: trusted(value) for name, value in old.items()}
    variables.update({VARIABLES[name]: value for name, value in settings.items() if value is not UNSET})
    templar = Templar(loader=DataLoader(), variables=variables)
    return templar.template(trust_as_template('{{ __connect_worker_watchdog_settings }}'))


def filter_input(settings: Dict[str, Any]) -> Dict[str, Any]:
    """The filter's input as vars/main.yml gives it."""
    return {name: '' if value is UNSET else value for name, value in settings.items()}


@pytest.mark.parametrize('changes', CASES.values(), ids=list(CASES))
def test_same_settings_as_the_former_jinja(changes: Dict[str, Any]) -> None:
    settings = dict(BASE, **changes)
    expected = jinja_settings(settings)
    result = connect_worker_watchdog_settings(filter_input(settings))
    assert result == expected
    assert json.dumps(result, indent=4, sort_keys=True) == json.dumps(expected, indent=4, sort_keys=True)


def test_stall_detection_needs_the_exporter() -> None:
    result = connect_worker_watchdog_settings(dict(BASE, metrics_enabled=False, exporter_username='prom'))
    assert (result['stall_seconds'], result['exporter_url'], result['exporter_username'], result['exporter_ca_path']) == (0, '', '', '')


def test_basic_auth_without_users_is_refused() -> None:
    with pytest.raises(AnsibleFilterError, match='first REST user'):
        connect_worker_watchdog_settings(dict(BASE, rest_basic_auth=True))


def test_a_missing_setting_is_named() -> None:
    with pytest.raises(AnsibleFilterError, match='missing exporter_ca_path'):
        connect_worker_watchdog_settings({name: value for name, value in BASE.items() if name != 'exporter_ca_path'})
