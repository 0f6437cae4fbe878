# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Module kafka_dr.mm2.connector with secrets in its config (mirrormaker_inline_secrets) logs the config on
the host with those secrets masked, as its diff shows them, and still sends them to the worker."""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest
from connector_runner import FAST_POLLING
from host_log import SINKS, leaked, run_logged

from ansible_collections.kafka_dr.mm2.plugins.modules import connector

NAME = 'mm2-src-dst-source'
BYTES = 'org.apache.kafka.connect.converters.ByteArrayConverter'
# Quotes and a backslash (escaped in a JAAS line and in a repr), and an '@' after a URL with a port:
# Ansible's URL heuristic would cut that password and leave its tail for no_log_values to miss.
JAAS_PASSWORD = 'hl-jaas-pw-5519'
STORE_PASSWORD = "hl-st0re-'pw'@7731-tail"
OPAQUE_KEY = 'source.cluster.sasl.login.custom.opaque'
OPAQUE = 'hl-opaque-token-8842'
REST_PASSWORD = 'hl-rest-pw-1207'
SECRETS = {'jaas': JAAS_PASSWORD, 'store': STORE_PASSWORD, 'opaque': OPAQUE, 'rest': REST_PASSWORD, 'store tail': '7731-tail'}


def inline_config() -> Dict[str, Any]:
    return {
        'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector',
        'source.cluster.alias': 'src',
        'target.cluster.alias': 'dst',
        'source.cluster.bootstrap.servers': 'src-kafka-1:9094',
        'source.cluster.metrics.url': 'https://metrics.example:8443',
        'target.cluster.ssl.truststore.password': STORE_PASSWORD,
        'source.cluster.sasl.jaas.config': ('org.apache.kafka.common.security.scram.ScramLoginModule required '
                                            'username="mm2" password="%s\\"\\\\x";' % JAAS_PASSWORD),
        'source.cluster.ssl.keystore.location': '${file:/etc/kafka/connect/secrets/mm2.properties:keystore}',
        OPAQUE_KEY: OPAQUE,
        'tasks.max': 1,
        'key.converter': BYTES,
        'value.converter': BYTES,
    }


def module_args(fake: Any, config: Any) -> Dict[str, Any]:
    return {**FAST_POLLING, 'url': [fake.url], 'url_username': 'operator', 'url_password': REST_PASSWORD,
            'name': NAME, 'config': config, 'secret_keys': [OPAQUE_KEY], 'validate': False}


@pytest.mark.parametrize('sink', SINKS)
def test_the_host_log_shows_the_config_with_its_secrets_masked(fake: Any, sink: str) -> None:
    result, logged = run_logged(connector.main, module_args(fake, inline_config()), sink=sink, diff=True)
    assert result['changed'] is True and 'failed' not in result, result.get('msg')
    assert 'Invoked with' in logged and "'source.cluster.bootstrap.servers': 'src-kafka-1:9094'" in logged
    assert "'target.cluster.ssl.truststore.password': '********'" in logged
    assert '${file:/etc/kafka/connect/secrets/mm2.properties:keystore}' in logged
    assert leaked(logged, SECRETS) == []
    # The worker got the secrets themselves.
    stored = fake.connectors[NAME].config
    assert stored['target.cluster.ssl.truststore.password'] == STORE_PASSWORD and stored[OPAQUE_KEY] == OPAQUE
    assert leaked(json.dumps(result), SECRETS) == []


def test_a_json_document_is_logged_masked(fake: Any) -> None:
    document = json.dumps({'name': NAME, 'config': inline_config()})
    result, logged = run_logged(connector.main, module_args(fake, document))
    assert result['changed'] is True, result.get('msg')
    assert "'source.cluster.alias': 'src'" in logged and leaked(logged, SECRETS) == []


def test_a_text_that_is_no_config_document_is_logged_as_a_mask(fake: Any) -> None:
    broken = json.dumps(inline_config())[:-1]
    result, logged = run_logged(connector.main, module_args(fake, broken))
    assert result['failed'] is True and 'not a valid JSON document' in result['msg']
    assert "config=********" in logged and leaked(logged, SECRETS) == []
