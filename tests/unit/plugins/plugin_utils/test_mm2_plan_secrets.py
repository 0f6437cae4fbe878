# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The connector configs' secrets on a Connect cluster without a config provider of ours: the plan
refuses placeholders nothing would resolve, or, when told to (mirrormaker_inline_secrets), puts the
values in, and keeps them out of everything but inline_configs."""

from __future__ import annotations

import json
from typing import Any, Callable, Dict

import pytest

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_clients import jaas_escape
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_failover_inputs import failover_inputs
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_plan import plan

FILE_PROVIDER = 'org.apache.kafka.common.config.provider.FileConfigProvider'
SECRETS = '/etc/kafka/connect/secrets'
# Characters a JAAS line escapes, so the test sees the escaping.
PASSWORD = 'mm2-"pw"\\7'
SRC_STORE = 'src-store-pw-41'
DST_STORE = 'dst-store-pw-42'
CLUSTERS = {
    'src': {'bootstrap_servers': 'src-kafka-1:9094', 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'SCRAM-SHA-512',
            'sasl_username': 'mm2', 'sasl_password_file': 'mm2.properties',
            'ssl_truststore_location': '/etc/kafka/tls/src.p12', 'ssl_truststore_password_file': 'stores.properties'},
    'dst': {'bootstrap_servers': 'dst-kafka-1:9094', 'security_protocol': 'SSL', 'ssl_truststore_location': '/etc/kafka/tls/dst.p12',
            'ssl_truststore_password_file': 'stores.properties', 'ssl_truststore_password_key': 'dst.truststore.password'},
}
VALUES = {'mm2.properties': {'sasl.password': PASSWORD},
          'stores.properties': {'ssl.truststore.password': SRC_STORE, 'dst.truststore.password': DST_STORE}}
ALL_SECRETS = (PASSWORD, jaas_escape(PASSWORD), SRC_STORE, DST_STORE)
JAAS_PLACEHOLDER = ('org.apache.kafka.common.security.scram.ScramLoginModule required username="mm2" '
                    'password="${file:%s/mm2.properties:sasl.password}";' % SECRETS)

Plan = Callable[..., Dict[str, Any]]


@pytest.fixture
def secure(make_request: Callable[..., Dict[str, Any]]) -> Plan:
    """Plan the secured clusters; keyword arguments replace parts of the request."""
    def run(**parts: Any) -> Dict[str, Any]:
        request = make_request(clusters=json.loads(json.dumps(CLUSTERS)), secret_file_names=sorted(VALUES), **parts)
        return plan(request)
    return run


def errors_of(result: Dict[str, Any]) -> str:
    assert result['errors'], 'expected the plan to refuse'
    assert result['connectors'] == [] and result['inline_configs'] == {}, 'a refused plan plans nothing'
    return '\n'.join(result['errors'])


def without_inline_configs(result: Dict[str, Any]) -> str:
    return json.dumps({key: value for key, value in result.items() if key != 'inline_configs'})


# ---- a provider resolves the placeholders ---------------------------------------------------

def test_the_default_is_the_file_provider_of_role_connect_worker(secure: Plan) -> None:
    result = secure()
    assert result['errors'] == [] and result['inline_configs'] == {}
    source = result['connectors'][0]
    assert source['config']['source.cluster.sasl.jaas.config'] == JAAS_PLACEHOLDER
    assert source['secret_keys'] == []
    assert source['secret_file_names'] == ['mm2.properties', 'stores.properties']


def test_a_declared_file_provider_that_may_read_the_secrets_directory_passes(secure: Plan) -> None:
    for allowed in ([SECRETS], '/etc/kafka/connect/secrets/, /opt/other', ['/etc/kafka']):
        providers = [{'name': 'env', 'class': 'org.apache.kafka.common.config.provider.EnvVarConfigProvider'},
                     {'name': 'file', 'class': FILE_PROVIDER, 'allowed_paths': allowed}]
        assert secure(config_providers=providers)['errors'] == []


def test_flows_without_secrets_need_no_provider(plan_ok: Plan) -> None:
    result = plan_ok(config_providers=[])
    assert result['connectors'] and result['inline_configs'] == {}


# ---- refused before anything changes ---------------------------------------------------------

def test_no_provider_is_refused_naming_the_settings_and_both_ways_out(secure: Plan) -> None:
    message = errors_of(secure(config_providers=[]))
    assert message.startswith('mirrormaker_connect_config_providers: ')
    assert 'cluster src (sasl.jaas.config, ssl.truststore.password)' in message
    assert 'cluster dst (ssl.truststore.password)' in message
    assert 'declare no FileConfigProvider named file (declared: none)' in message
    assert ('config.providers=file, config.providers.file.class=%s, config.providers.file.param.allowed.paths=%s'
            % (FILE_PROVIDER, SECRETS)) in message
    assert 'set mirrormaker_inline_secrets: true' in message and 'in clear in its config topic' in message
    assert not any(secret in message for secret in ALL_SECRETS)


def test_a_file_provider_under_another_name_is_named(secure: Plan) -> None:
    message = errors_of(secure(config_providers=[{'name': 'fp', 'class': FILE_PROVIDER}]))
    assert 'declared: fp (%s); the FileConfigProvider they declare as fp is not the one the placeholders name' % FILE_PROVIDER in message
    assert 'config.providers=fp,file, ' in message


def test_a_provider_named_file_of_another_class_is_refused(secure: Plan) -> None:
    message = errors_of(secure(config_providers=[{'name': 'file', 'class': 'com.example.VaultConfigProvider'}]))
    assert 'provider file of the workers is com.example.VaultConfigProvider, not a FileConfigProvider' in message


def test_allowed_paths_that_exclude_the_secrets_directory_are_refused(secure: Plan) -> None:
    providers = [{'name': 'file', 'class': FILE_PROVIDER, 'allowed_paths': ['/opt/connect/secrets', '/etc/kafka/connect/secrets-old']}]
    message = errors_of(secure(config_providers=providers))
    assert ('may only read /opt/connect/secrets, /etc/kafka/connect/secrets-old (allowed_paths), not %s/mm2.properties, '
            '%s/stores.properties' % (SECRETS, SECRETS)) in message


def test_a_placeholder_of_extra_config_names_its_connector(secure: Plan) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'extra_config': {'source': {'consumer.custom.token': '${file:/opt/x.properties:t}'}}}]
    providers = [{'name': 'file', 'class': FILE_PROVIDER, 'allowed_paths': [SECRETS]}]
    message = errors_of(secure(flows=flows, config_providers=providers))
    assert 'not /opt/x.properties' in message
    assert 'connector mm2-src-dst-source (consumer.custom.token)' in message


@pytest.mark.parametrize('providers, problem', [
    ({'name': 'file'}, 'must be a list of providers'),
    (['file'], 'must be a mapping with name, class'),
    ([{'name': 'file'}], 'class must be the Java class of config.providers.file.class'),
    ([{'name': 'my file', 'class': FILE_PROVIDER}], "name must be the provider's name in config.providers"),
    ([{'name': 'file', 'class': FILE_PROVIDER}, {'name': 'file', 'class': FILE_PROVIDER}], 'provider file is declared twice'),
    ([{'name': 'file', 'class': FILE_PROVIDER, 'params': {}}], 'unknown option(s) params'),
    ([{'name': 'file', 'class': FILE_PROVIDER, 'allowed_paths': ['secrets']}], 'allowed_paths must be a non-empty list of absolute paths'),
    ([{'name': 'file', 'class': FILE_PROVIDER, 'allowed_paths': []}], 'allowed_paths must be a non-empty list of absolute paths'),
])
def test_malformed_providers_are_refused(plan_errors: Callable[..., str], providers: Any, problem: str) -> None:
    assert problem in plan_errors(config_providers=providers)


def test_inline_secrets_must_be_a_boolean(plan_errors: Callable[..., str]) -> None:
    assert 'mirrormaker_inline_secrets: must be true or false' in plan_errors(inline_secrets='yes')


# ---- the values put in (mirrormaker_inline_secrets) -------------------------------------------

def test_opted_in_the_configs_to_deploy_hold_the_values(secure: Plan) -> None:
    result = secure(config_providers=[], inline_secrets=True, secret_values=VALUES)
    assert result['errors'] == []
    source = result['connectors'][0]
    deployed = result['inline_configs'][source['name']]
    # Inside the JAAS line's quotes the password is JAAS-escaped, as the secret file would hold it.
    assert deployed['source.cluster.sasl.jaas.config'] == JAAS_PLACEHOLDER.replace(
        '${file:%s/mm2.properties:sasl.password}' % SECRETS, 'mm2-\\"pw\\"\\\\7')
    assert deployed['source.cluster.ssl.truststore.password'] == SRC_STORE
    assert deployed['target.cluster.ssl.truststore.password'] == deployed['producer.override.ssl.truststore.password'] == DST_STORE
    assert source['secret_keys'] == ['producer.override.ssl.truststore.password', 'source.cluster.sasl.jaas.config',
                                     'source.cluster.ssl.truststore.password', 'target.cluster.ssl.truststore.password']
    # Everything else is the planned config, which keeps its placeholders.
    assert {key: value for key, value in deployed.items() if key not in source['secret_keys']} == {
        key: value for key, value in source['config'].items() if key not in source['secret_keys']}
    assert source['config']['source.cluster.sasl.jaas.config'] == JAAS_PLACEHOLDER
    assert sorted(result['inline_configs']) == sorted(result['desired_names'])
    # The deployed configs read no file; the role's own Kafka tools still do.
    assert source['secret_files'] == [] and source['secret_file_names'] == []
    assert result['secret_files'] == ['%s/mm2.properties' % SECRETS, '%s/stores.properties' % SECRETS]


def test_opted_in_a_warning_says_the_secrets_are_stored_in_clear(secure: Plan) -> None:
    warnings = ' '.join(secure(inline_secrets=True, secret_values=VALUES)['warnings'])
    assert 'mirrormaker_inline_secrets: the configs of mm2-src-dst-checkpoint, mm2-src-dst-heartbeat, mm2-src-dst-source' in warnings
    assert 'stores connector configs in clear in its config topic' in warnings


def test_no_secret_outside_inline_configs(secure: Plan) -> None:
    result = secure(config_providers=[], inline_secrets=True, secret_values=VALUES)
    assert any(jaas_escape(PASSWORD) in value for config in result['inline_configs'].values() for value in config.values())
    shown = without_inline_configs(result)
    assert not any(secret in shown or json.dumps(secret)[1:-1] in shown for secret in ALL_SECRETS)


def test_the_failover_of_an_inline_plan_still_reads_placeholders(secure: Plan, make_request: Callable[..., Dict[str, Any]]) -> None:
    request = make_request(clusters=json.loads(json.dumps(CLUSTERS)), secret_file_names=sorted(VALUES), config_providers=[],
                           inline_secrets=True, secret_values=VALUES)
    answer = failover_inputs(dict(request, flow='src->dst', plan=plan(request)))
    assert answer['errors'] == []
    assert answer['source_client']['sasl.jaas.config'] == JAAS_PLACEHOLDER
    assert not any(secret in json.dumps(answer) for secret in ALL_SECRETS)


def test_a_value_missing_from_the_secret_files_is_refused_without_a_provider(secure: Plan) -> None:
    values = {'mm2.properties': {'sasl.password': PASSWORD}, 'stores.properties': {'ssl.truststore.password': SRC_STORE}}
    message = errors_of(secure(config_providers=[], inline_secrets=True, secret_values=values))
    assert message.startswith('mirrormaker_inline_secrets: the values come from mirrormaker_secret_files, which lacks '
                              'stores.properties:dst.truststore.password, read by cluster dst (ssl.truststore.password)')
    assert 'config.providers=file, ' in message
    assert not any(secret in message for secret in ALL_SECRETS)


def test_a_value_missing_from_the_secret_files_is_left_to_a_provider(secure: Plan) -> None:
    values = {'mm2.properties': {'sasl.password': PASSWORD}}
    result = secure(inline_secrets=True, secret_values=values)
    assert result['errors'] == []
    source = result['connectors'][0]
    deployed = result['inline_configs'][source['name']]
    assert deployed['source.cluster.ssl.truststore.password'] == '${file:%s/stores.properties:ssl.truststore.password}' % SECRETS
    assert source['secret_keys'] == ['source.cluster.sasl.jaas.config']
    assert source['secret_file_names'] == ['stores.properties']


def test_a_secret_that_is_no_string_is_refused_without_showing_it(secure: Plan) -> None:
    values = {'mm2.properties': {'sasl.password': {'nested': 'hidden-value-9'}}, 'stores.properties': ['x']}
    message = errors_of(secure(inline_secrets=True, secret_values=values))
    assert 'mirrormaker_secret_files: file mm2.properties, key sasl.password: a secret must be a string or a number' in message
    assert 'mirrormaker_secret_files: file stores.properties must be a mapping of key -> secret value' in message
    assert 'hidden-value-9' not in message


def test_secret_values_are_not_read_unless_opted_in(secure: Plan) -> None:
    result = secure(secret_values=VALUES)
    assert result['errors'] == [] and result['inline_configs'] == {}
    assert not any(secret in json.dumps(result) for secret in ALL_SECRETS)


def test_clusters_sharing_a_secret_are_both_named(plan_errors: Callable[..., str]) -> None:
    secured = {'security_protocol': 'SASL_PLAINTEXT', 'sasl_mechanism': 'PLAIN', 'sasl_username': 'mm2',
               'sasl_password_file': 'mm2.properties'}
    clusters = {'src': dict(secured, bootstrap_servers='src:9094'), 'dst': dict(secured, bootstrap_servers='dst:9094')}
    message = plan_errors(clusters=clusters, config_providers=[])
    assert 'needed by cluster dst (sasl.jaas.config); cluster src (sasl.jaas.config); but' in message
