# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kafka_dr.mm2.connector and connector_info with secrets in the config itself (mirrormaker_inline_secrets),
run as real module processes against the fake Connect worker: Connect stores and returns the values in
clear, the module compares them for idempotence, and no output holds one."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable

import pytest
from connector_runner import connector_runner

SOURCE_CLASS = 'org.apache.kafka.connect.mirror.MirrorSourceConnector'
BYTES = 'org.apache.kafka.connect.converters.ByteArrayConverter'
# A password with the characters a JAAS line escapes: it appears escaped in the line, unescaped in messages.
PASSWORD = 'inl1ne-"pw"\\x'
JAAS_PASSWORD = 'inl1ne-\\"pw\\"\\\\x'
NEW_PASSWORD = 'r0tated-pw-2'
STORE_PASSWORD = 'store-pw-7731'
# A setting whose name does not say that it holds a secret: only secret_keys marks it.
OPAQUE_KEY = 'source.cluster.sasl.login.custom.opaque'
OPAQUE = 'opaque-token-5519'
SECRET_KEYS = ['source.cluster.sasl.jaas.config', 'target.cluster.ssl.truststore.password', OPAQUE_KEY]


def jaas(password: str) -> str:
    return 'org.apache.kafka.common.security.scram.ScramLoginModule required username="mm2" password="%s";' % password


def inline_config(jaas_password: str = JAAS_PASSWORD, **overrides: Any) -> Dict[str, Any]:
    config: Dict[str, Any] = {
        'connector.class': SOURCE_CLASS,
        'source.cluster.alias': 'src',
        'target.cluster.alias': 'dst',
        'source.cluster.bootstrap.servers': 'src-kafka-1:9094',
        'source.cluster.sasl.jaas.config': jaas(jaas_password),
        'target.cluster.ssl.truststore.password': STORE_PASSWORD,
        OPAQUE_KEY: OPAQUE,
        'topics': '.*',
        'tasks.max': '1',
        'key.converter': BYTES,
        'value.converter': BYTES,
    }
    config.update(overrides)
    return config


@pytest.fixture
def connector(fake, run_module):
    return connector_runner(run_module, fake.url, diff=True, secret_keys=SECRET_KEYS)


def assert_nothing_shown(result: Dict[str, Any], secrets: Iterable[str] = (PASSWORD, JAAS_PASSWORD, STORE_PASSWORD, OPAQUE)) -> None:
    """Neither the result (diff, invocation, messages) nor the module's raw output holds a secret, in any spelling."""
    dumped = json.dumps(result)
    for secret in secrets:
        for spelling in (secret, json.dumps(secret)[1:-1]):
            assert spelling not in dumped
            assert spelling not in result['_stdout']


def succeeded(result: Dict[str, Any]) -> Dict[str, Any]:
    assert not result.get('failed'), result.get('msg')
    return result


def test_created_with_the_values_and_every_output_masked(fake, connector):
    created = succeeded(connector(name='mm2-src-dst-source', config=inline_config(), state='running'))
    assert created['changed'] is True
    # The worker got the values themselves.
    stored = fake.connectors['mm2-src-dst-source'].config
    assert stored['source.cluster.sasl.jaas.config'] == jaas(JAAS_PASSWORD)
    assert stored[OPAQUE_KEY] == OPAQUE
    for key in SECRET_KEYS:
        assert created['config'][key] == '********'
        assert created['diff']['after']['config'][key] == '********'
    assert created['config']['source.cluster.bootstrap.servers'] == 'src-kafka-1:9094'
    assert created['invocation']['module_args']['secret_keys'] == SECRET_KEYS
    assert_nothing_shown(created)


def test_rerun_with_the_same_values_changes_nothing(fake, connector):
    fake.add_connector('mm2-src-dst-source', dict(inline_config(), name='mm2-src-dst-source'))
    rerun = succeeded(connector(name='mm2-src-dst-source', config=inline_config(), state='running'))
    assert rerun['changed'] is False
    assert rerun['config_changes'] == {'changed': [], 'added': [], 'removed': []}
    assert fake.writes() == []
    assert_nothing_shown(rerun)


@pytest.mark.parametrize('check_mode', [False, True], ids=['applied', 'check mode'])
def test_a_changed_secret_is_written_and_its_diff_masked(fake, connector, check_mode):
    fake.add_connector('mm2-src-dst-source', dict(inline_config(), name='mm2-src-dst-source'))
    result = succeeded(connector(check_mode=check_mode, name='mm2-src-dst-source', config=inline_config(NEW_PASSWORD)))
    assert result['changed'] is True
    assert result['config_changes']['changed'] == ['source.cluster.sasl.jaas.config']
    assert result['diff']['before']['config']['source.cluster.sasl.jaas.config'] == '********'
    assert result['diff']['after']['config']['source.cluster.sasl.jaas.config'] == '******** (changed)'
    # An unchanged secret reads the same on both sides.
    assert result['diff']['after']['config'][OPAQUE_KEY] == result['diff']['before']['config'][OPAQUE_KEY] == '********'
    assert_nothing_shown(result, (PASSWORD, JAAS_PASSWORD, NEW_PASSWORD, STORE_PASSWORD, OPAQUE))
    stored = fake.connectors['mm2-src-dst-source'].config['source.cluster.sasl.jaas.config']
    assert stored == jaas(JAAS_PASSWORD if check_mode else NEW_PASSWORD)


def test_a_message_quoting_the_password_alone_is_scrubbed(fake, connector):
    fake.inject_error(500, 'Failed to store config: login with password %s refused' % PASSWORD, method='PUT', path_contains='/config')
    result = connector(name='mm2-src-dst-source', config=inline_config(), validate=False)
    assert result['failed'] is True
    assert 'Failed to store config' in result['msg']
    assert_nothing_shown(result)


def test_validation_errors_quoting_a_secret_are_scrubbed(fake, connector):
    fake.validation_errors = {OPAQUE_KEY: ['Invalid value %s for configuration %s' % (OPAQUE, OPAQUE_KEY)]}
    result = connector(name='mm2-src-dst-source', config=inline_config())
    assert result['failed'] is True
    assert OPAQUE_KEY in result['msg']
    assert fake.writes() == []
    assert_nothing_shown(result)


def test_a_config_that_fails_early_still_hides_its_secrets(fake, connector):
    # A name that disagrees fails before the config is normalised: the invocation must not echo the secrets.
    result = connector(name='mm2-src-dst-source', config=dict(inline_config(), name='another-name'))
    assert result['failed'] is True
    assert 'differs from the connector name' in result['msg']
    assert_nothing_shown(result)


def test_a_json_document_with_secret_keys_is_hidden_whole(fake, connector):
    document = json.dumps({'name': 'mm2-src-dst-source', 'config': inline_config()})
    created = succeeded(connector(name='mm2-src-dst-source', config=document))
    assert created['changed'] is True
    assert created['invocation']['module_args']['config'] == 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER'
    assert_nothing_shown(created)
    broken = connector(name='mm2-src-dst-source', config=document[:-1])
    assert broken['failed'] is True
    assert_nothing_shown(broken)


def test_connector_info_masks_the_keys_it_is_told(fake, run_module):
    fake.add_connector('mm2-src-dst-source', dict(inline_config(), name='mm2-src-dst-source'))
    listing = succeeded(run_module('connector_info', url=fake.url, secret_keys=[OPAQUE_KEY], retry_backoff=0.05))
    config = listing['connectors']['mm2-src-dst-source']['config']
    assert config[OPAQUE_KEY] == config['source.cluster.sasl.jaas.config'] == '********'
    assert_nothing_shown(listing)
