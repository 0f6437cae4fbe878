# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pure config functions and the REST client, in process."""

from __future__ import annotations

import importlib
import sys
import time
from types import ModuleType

import pytest

PACKAGE = 'ansible_collections.kafka_dr.mm2.plugins.module_utils'


@pytest.fixture(scope='module')
def utils(collections_path) -> ModuleType:
    """Import module_utils through the collection path, as the modules do."""
    if str(collections_path) not in sys.path:
        sys.path.insert(0, str(collections_path))
    return importlib.import_module(PACKAGE + '.connect_config')


@pytest.fixture(scope='module')
def client_module(utils) -> ModuleType:  # pylint: disable=unused-argument,redefined-outer-name
    return importlib.import_module(PACKAGE + '.connect_client')


# ---- connect_config --------------------------------------------------------------------------

def test_normalise_stringifies_trims_classes_and_adds_name(utils):
    normalised = utils.normalise_config(
        {'connector.class': ' a.B ', 'key.converter': ' c.D', 'tasks.max': 3, 'enabled': True, 'off': False,
         'topics': ['a', 'b'], 'topics.regex': ' keep spaces '},
        'n',
    )
    assert normalised == {
        'connector.class': 'a.B', 'key.converter': 'c.D', 'tasks.max': '3', 'enabled': 'true', 'off': 'false',
        'topics': 'a,b', 'topics.regex': ' keep spaces ', 'name': 'n',
    }


def test_normalise_rejects_null_and_nested_values(utils):
    with pytest.raises(utils.ConfigError, match='tasks.max'):
        utils.normalise_config({'tasks.max': None}, 'n')
    with pytest.raises(utils.ConfigError, match='nested'):
        utils.normalise_config({'nested': {'a': 1}}, 'n')


def test_diff_configs_sees_changed_added_removed(utils):
    differences = utils.diff_configs({'a': '1', 'b': '2', 'c': '3'}, {'a': '1', 'b': '20', 'd': '4'})
    assert differences == {'changed': ['b'], 'added': ['d'], 'removed': ['c']}
    assert utils.has_differences(differences)
    assert not utils.has_differences(utils.diff_configs({'a': '1'}, {'a': '1'}))


@pytest.mark.parametrize('key', [
    'source.cluster.sasl.jaas.config', 'producer.override.sasl.jaas.config', 'ssl.key.password', 'ssl.keystore.password',
    'consumer.ssl.truststore.password', 'basic.auth.user.info', 'sasl.oauthbearer.client.credentials.client.secret',
    'ssl.keystore.key', 'api.token',
])
def test_secret_keys(utils, key):
    assert utils.is_secret_key(key)


@pytest.mark.parametrize('key', ['tasks.max', 'ssl.keystore.location', 'ssl.keystore.type', 'sasl.oauthbearer.token.endpoint.url', 'topics'])
def test_not_secret_keys(utils, key):
    assert not utils.is_secret_key(key)


def test_mask_shows_placeholders_only(utils):
    masked = utils.mask_config({
        'a.password': 'plain',
        'b.password': '${file:/etc/kafka/s.properties:b}',
        'c.sasl.jaas.config': '${directory:/etc/kafka/secrets:jaas} ${env:EXTRA}',
        'd.password': 'prefix ${file:/x:y}',
        'tasks.max': '1',
    })
    assert masked == {
        'a.password': '********',
        'b.password': '${file:/etc/kafka/s.properties:b}',
        'c.sasl.jaas.config': '${directory:/etc/kafka/secrets:jaas} ${env:EXTRA}',
        'd.password': '********',
        'tasks.max': '1',
    }
    assert utils.secret_values({'a.password': 'plain', 'b.password': '${file:/x:y}'}) == {'plain'}


@pytest.mark.parametrize('version, expected', [
    ('3.9.1', (3, 9)), ('4.1.0', (4, 1)), ('7.6.1-ccs', (3, 6)), ('8.0.0-ce', (4, 0)), ('garbage', None), (None, None),
])
def test_kafka_version(utils, version, expected):
    assert utils.kafka_version(version) == expected


def test_map_removed_keys_by_version(utils):
    config = {'topics.blacklist': 'x', 'groups.blacklist': 'y', 'config.properties.blacklist': 'z', 'a->b.topics.blacklist': 'w'}
    unchanged, warnings = utils.map_removed_keys(config, (3, 9))
    assert unchanged == config and warnings == []
    mapped, warnings = utils.map_removed_keys(config, (4, 0))
    assert mapped == {'topics.exclude': 'x', 'groups.exclude': 'y', 'config.properties.exclude': 'z', 'a->b.topics.blacklist': 'w'}
    assert len(warnings) == 3
    with pytest.raises(utils.ConfigError, match='groups.blacklist and groups.exclude'):
        utils.map_removed_keys({'groups.blacklist': 'a', 'groups.exclude': 'b'}, (3, 9))


def test_exclude_keys_renamed_for_mirror_maker_before_2_8(utils):
    config = {'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector',
              'topics.exclude': 'x', 'config.properties.exclude': 'z'}
    mapped, warnings = utils.map_removed_keys(config, (2, 4))
    assert mapped == {'connector.class': config['connector.class'], 'topics.blacklist': 'x', 'config.properties.blacklist': 'z'}
    assert warnings == ['config key topics.exclude arrived in Kafka 2.8; sent as topics.blacklist to this 2.4 worker',
                        'config key config.properties.exclude arrived in Kafka 2.8; sent as config.properties.blacklist to this 2.4 worker']
    assert utils.map_removed_keys(config, (2, 8)) == (config, [])
    # Only MirrorMaker 2 is known to read these names; another connector's keys are its own.
    other = {'connector.class': 'com.example.Sink', 'topics.exclude': 'x'}
    assert utils.map_removed_keys(other, (2, 4)) == (other, [])


def test_load_config_document_forms(utils):
    assert utils.load_config_document({'a': '1'}) == ({'a': '1'}, None)
    assert utils.load_config_document('{"name": "n", "config": {"a": "1"}}') == ({'a': '1'}, 'n')
    assert utils.load_config_document('{"name": "n", "a": "1"}') == ({'name': 'n', 'a': '1'}, None)
    with pytest.raises(utils.ConfigError, match='not a valid JSON'):
        utils.load_config_document('{not json')
    with pytest.raises(utils.ConfigError, match='unexpected: tasks'):
        utils.load_config_document({'name': 'n', 'config': {}, 'tasks': []})
    with pytest.raises(utils.ConfigError, match='mapping'):
        utils.load_config_document('[1, 2]')
    with pytest.raises(utils.ConfigError, match='differs'):
        utils.check_names_agree('n', None, {'name': 'other'})


# ---- connect_client --------------------------------------------------------------------------

def test_client_fails_over_and_remembers(client_module, fake, closed_port_url):
    client = client_module.ConnectClient([closed_port_url, fake.url], retry_backoff=0.01)
    assert client.worker_info()['version'] == fake.version
    assert client.answered_url == fake.url
    assert client.preferred_url == fake.url


def test_client_retries_conflicts_with_bounded_time(client_module, fake):
    client = client_module.ConnectClient([fake.url], retry_backoff=0.01, retry_timeout=1)
    fake.answer_conflict(2)
    assert client.list_connectors() == []
    fake.answer_conflict(10 ** 9)
    started = time.monotonic()
    with pytest.raises(client_module.ConnectApiError) as raised:
        client.list_connectors()
    assert time.monotonic() - started < 3
    assert raised.value.status == 409
    assert raised.value.method == 'GET' and raised.value.path == '/connectors'
    assert 'stale configuration' in raised.value.message


def test_client_retries_rebalance_answers_given_as_server_errors(client_module, fake):
    client = client_module.ConnectClient([fake.url], retry_backoff=0.01, retry_timeout=5)
    fake.add_connector('c', {'connector.class': 'X'})
    fake.inject_error(500, 'Request cannot be completed because a rebalance is expected', path_contains='/config', times=2)
    fake.inject_error(503, 'Request timed out. The worker is currently ensuring membership in the cluster', times=1)
    assert client.get_config('c')['connector.class'] == 'X'
    assert len(fake.requests) == 4


def test_client_raises_other_server_errors_at_once(client_module, fake):
    client = client_module.ConnectClient([fake.url], retry_backoff=0.01, retry_timeout=5)
    fake.inject_error(500, 'Failed to find any class that implements Connector', times=3)
    with pytest.raises(client_module.ConnectApiError) as raised:
        client.list_connectors()
    assert raised.value.status == 500
    assert len(fake.requests) == 1
    assert 'retries' not in raised.value.message


@pytest.mark.parametrize('status, message, expected', [
    (409, 'Cannot complete request because of a conflicting operation', True),
    (503, 'worker is starting', True),
    (500, 'Request cannot be completed because a rebalance is expected', True),
    (500, 'Cannot complete request momentarily due to stale configuration', True),
    (500, 'NullPointerException', False),
    (400, 'rebalance is expected', False),
    (404, 'Connector c not found', False),
])
def test_is_transient(client_module, status, message, expected):
    assert client_module.is_transient(status, message) is expected


def test_client_errors_carry_server_message(client_module, fake):
    client = client_module.ConnectClient([fake.url])
    assert client.get_config('missing') is None
    with pytest.raises(client_module.ConnectApiError) as raised:
        client.pause('missing')
    assert raised.value.status == 404
    assert raised.value.message == 'Connector missing not found'
    assert str(raised.value) == 'PUT /connectors/missing/pause failed (HTTP 404): Connector missing not found'


def test_connector_path_quotes_names(client_module):
    assert client_module.connector_path('a b/c?d', 'config') == '/connectors/a%20b%2Fc%3Fd/config'
