# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A secret written in clear into the model (a cluster's sasl_jaas_config or client_config, a flow's
settings) is refused before anything changes, naming where it is and how to refer to it instead;
placeholders pass; mirrormaker_inline_secrets accepts it and keeps it out of the plan's connectors."""

from __future__ import annotations

import json
from typing import Any, Callable, Dict

import pytest

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_literal_secrets import literal_secret
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_plan import plan

SECRETS = '/etc/kafka/connect/secrets'
PASSWORD = 'Lit3ral-Pw'
SCRAM = 'org.apache.kafka.common.security.scram.ScramLoginModule required'

Plan = Callable[..., Dict[str, Any]]


def sasl_cluster(**options: Any) -> Dict[str, Any]:
    cluster = {'bootstrap_servers': 'src-kafka-1:9094', 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'SCRAM-SHA-512'}
    cluster.update(options)
    return cluster


@pytest.fixture
def with_src(make_request: Callable[..., Dict[str, Any]]) -> Plan:
    """Plan with cluster src replaced by the given options; keyword arguments replace parts of the request."""
    def run(src: Dict[str, Any], **parts: Any) -> Dict[str, Any]:
        request = make_request(**parts)
        request['clusters']['src'] = src
        return plan(request)
    return run


def refused(result: Dict[str, Any]) -> str:
    assert result['errors'], 'expected the plan to refuse'
    assert result['connectors'] == [] and result['inline_configs'] == {}, 'a refused plan plans nothing'
    message = '\n'.join(result['errors'])
    assert PASSWORD not in message
    return message


# ---- what counts as a secret in clear ------------------------------------------------------

@pytest.mark.parametrize('key, value, what', [
    ('sasl.jaas.config', '%s username="mm2" password="%s";' % (SCRAM, PASSWORD), 'password='),
    ('sasl.jaas.config', '%s username="mm2" password=%s;' % (SCRAM, PASSWORD), 'password='),
    ('source.cluster.sasl.jaas.config', 'OAuthBearerLoginModule required clientId="c" clientSecret="%s";' % PASSWORD,
     'clientSecret='),
    ('ssl.key.password', PASSWORD, 'its value'),
    ('ssl.truststore.password', 1234, 'its value'),
    ('consumer.ssl.keystore.password', PASSWORD, 'its value'),
    ('value.converter.basic.auth.user.info', 'user:%s' % PASSWORD, 'its value'),
    ('sasl.oauthbearer.client.credentials.client.secret', PASSWORD, 'its value'),
    ('ssl.keystore.key', '-----BEGIN PRIVATE KEY-----', 'its value'),
])
def test_literal_secrets_are_found(key: str, value: Any, what: str) -> None:
    assert literal_secret(key, value) == what


@pytest.mark.parametrize('key, value', [
    ('sasl.jaas.config', '%s username="mm2" password="${file:%s/mm2.properties:sasl.password}";' % (SCRAM, SECRETS)),
    ('sasl.jaas.config', '%s username="mm2" password="${env:MM2_PASSWORD}";' % SCRAM),
    ('sasl.jaas.config', '%s username="mm2" password=${directory:/etc/kafka/pw:mm2};' % SCRAM),
    ('sasl.jaas.config', '${file:%s/jaas.properties:sasl.jaas.config}' % SECRETS),
    ('sasl.jaas.config', 'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true '
                         'keyTab="/etc/kafka/connect/secrets/mm2.keytab" principal="mm2@EXAMPLE.COM";'),
    ('sasl.jaas.config', '%s username="mm2" password="";' % SCRAM),
    ('ssl.key.password', '${file:%s/stores.properties:ssl.key.password}' % SECRETS),
    ('ssl.truststore.location', '/etc/kafka/tls/truststore.p12'),
    ('ssl.keystore.certificate.chain', '-----BEGIN CERTIFICATE-----'),
    ('sasl.oauthbearer.client.credentials.client.id', 'mm2'),
    ('ssl.key.password', ''),
])
def test_placeholders_and_settings_without_secrets_pass(key: str, value: str) -> None:
    assert literal_secret(key, value) is None


# ---- refused before anything changes -----------------------------------------------------------

def test_a_password_in_a_clusters_jaas_line_is_refused(with_src: Plan) -> None:
    jaas = '%s username="mm2" password="%s";' % (SCRAM, PASSWORD)
    message = refused(with_src(sasl_cluster(sasl_jaas_config=jaas)))
    assert message.startswith('cluster src: sasl_jaas_config gives password= in clear, which Kafka Connect would store '
                              'in its config topic and return from GET /connectors/<name>/config. ')
    assert 'Give the password as ${file:%s/<file>:<key>} inside the quotes (the value in mirrormaker_secret_files)' % SECRETS in message
    assert 'sasl_username with sasl_password_file' in message and 'sasl_jaas_config_file' in message
    assert message.endswith('or set mirrormaker_inline_secrets: true to accept secrets in the connector configs')


def test_a_password_in_client_config_names_the_option_that_refers_to_it(with_src: Plan) -> None:
    src = {'bootstrap_servers': 'src-kafka-1:9094', 'security_protocol': 'SSL',
           'client_config': {'ssl.key.password': PASSWORD, 'ssl.enabled.protocols': 'TLSv1.3'}}
    message = refused(with_src(src))
    assert message.startswith('cluster src: client_config ssl.key.password gives its value in clear')
    assert 'Use the cluster option ssl_key_password_file instead (a file in %s, the value in mirrormaker_secret_files)' % SECRETS in message
    assert 'ssl.enabled.protocols' not in message


def test_a_jaas_line_in_client_config_is_refused_too(with_src: Plan) -> None:
    src = sasl_cluster(sasl_jaas_config_file='jaas.properties',
                       client_config={'sasl.jaas.config': '%s username="mm2" password="%s";' % (SCRAM, PASSWORD)})
    assert 'cluster src: client_config sasl.jaas.config gives password= in clear' in refused(with_src(src))


@pytest.mark.parametrize('option, settings, origin', [
    ('extra_config', {'source': {'value.converter.basic.auth.user.info': 'u:%s' % PASSWORD}},
     'extra_config.source value.converter.basic.auth.user.info gives its value in clear'),
    ('extra_config', {'heartbeat': {'target.cluster.sasl.jaas.config': '%s password="%s";' % (SCRAM, PASSWORD)}},
     'extra_config.heartbeat target.cluster.sasl.jaas.config gives password= in clear'),
    ('checkpoint_clients', {'admin': {'custom.password': PASSWORD}},
     'checkpoint_clients.admin custom.password gives its value in clear'),
])
def test_a_flows_settings_are_checked(plan_errors: Callable[..., str], option: str, settings: Dict[str, Any], origin: str) -> None:
    message = plan_errors(flows=[{'source': 'src', 'target': 'dst', option: settings}])
    assert 'flow #1 (src -> dst): %s' % origin in message
    assert 'Give it as ${file:%s/<file>:<key>} (the value in mirrormaker_secret_files)' % SECRETS in message
    assert PASSWORD not in message


def test_site_defaults_are_checked_for_every_flow(plan_errors: Callable[..., str]) -> None:
    message = plan_errors(site_defaults={'extra_config': {'source': {'consumer.ssl.key.password': PASSWORD}}})
    assert 'flow #1 (src -> dst): extra_config.source consumer.ssl.key.password gives its value in clear' in message


def test_placeholders_pass(with_src: Plan) -> None:
    jaas = '%s username="mm2" password="${file:%s/mm2.properties:sasl.password}";' % (SCRAM, SECRETS)
    result = with_src(sasl_cluster(sasl_jaas_config=jaas, client_config={
        'ssl.key.password': '${file:%s/stores.properties:ssl.key.password}' % SECRETS}))
    assert result['errors'] == []
    assert result['connectors'][0]['config']['source.cluster.sasl.jaas.config'] == jaas


# ---- opted in: accepted, with a warning, kept out of the plan's connectors -------------------

def test_opted_in_a_secret_in_clear_is_accepted_and_masked(with_src: Plan) -> None:
    jaas = '%s username="mm2" password="%s";' % (SCRAM, PASSWORD)
    result = with_src(sasl_cluster(sasl_jaas_config=jaas), inline_secrets=True)
    assert result['errors'] == []
    assert any(warning.startswith('mirrormaker_inline_secrets: cluster src: sasl_jaas_config gives password= in clear')
               for warning in result['warnings'])
    source = result['connectors'][0]
    assert source['config']['source.cluster.sasl.jaas.config'] == '********'
    assert 'source.cluster.sasl.jaas.config' in source['secret_keys']
    assert result['inline_configs'][source['name']]['source.cluster.sasl.jaas.config'] == jaas
    shown = json.dumps({key: value for key, value in result.items() if key not in ('inline_configs', 'clusters')})
    assert PASSWORD not in shown
