# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Connector configs the plan renders from mm2_clusters and mm2_flows (plugin_utils.mm2_plan, mm2_connectors)."""

from __future__ import annotations

import re
from typing import Any, Callable, Dict

import pytest

BYTES = 'org.apache.kafka.connect.converters.ByteArrayConverter'
IDENTITY = 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy'
DEFAULT_POLICY = 'org.apache.kafka.connect.mirror.DefaultReplicationPolicy'
PlanOk = Callable[..., Dict[str, Any]]


def by_kind(result: Dict[str, Any], flow: str = 'src-dst') -> Dict[str, Dict[str, str]]:
    return {connector['kind']: connector['config'] for connector in result['connectors'] if connector['flow'] == flow}


def test_one_flow_gives_three_named_connectors_in_deploy_order(plan_ok: PlanOk) -> None:
    result = plan_ok()
    assert [connector['name'] for connector in result['connectors']] == [
        'mm2-src-dst-source', 'mm2-src-dst-checkpoint', 'mm2-src-dst-heartbeat']
    assert [connector['config']['connector.class'].rsplit('.', 1)[1] for connector in result['connectors']] == [
        'MirrorSourceConnector', 'MirrorCheckpointConnector', 'MirrorHeartbeatConnector']
    assert result['desired_names'] == [connector['name'] for connector in result['connectors']]


def test_every_connector_is_byte_exact_and_knows_both_clusters(plan_ok: PlanOk) -> None:
    configs = by_kind(plan_ok())
    for config in configs.values():
        assert config['key.converter'] == config['value.converter'] == config['header.converter'] == BYTES
        assert config['source.cluster.alias'] == 'src' and config['target.cluster.alias'] == 'dst'
        assert config['source.cluster.bootstrap.servers'] == 'src-kafka-1:9092'
        assert all(isinstance(value, str) for value in config.values())
    for kind in ('source', 'checkpoint'):
        assert configs[kind]['target.cluster.bootstrap.servers'] == 'dst-kafka-1:9092'
        # Records go to the flow's target whichever Kafka cluster backs the Connect workers.
        assert configs[kind]['producer.override.bootstrap.servers'] == 'dst-kafka-1:9092'


def test_heartbeats_are_written_on_the_source_by_default(plan_ok: PlanOk) -> None:
    heartbeat = by_kind(plan_ok())['heartbeat']
    # Its admin client (topic creation) and Connect's producer reach the source; the aliases stay
    # the flow's, so each heartbeat says src -> dst once replicated as src.heartbeats.
    assert heartbeat['target.cluster.bootstrap.servers'] == 'src-kafka-1:9092'
    assert heartbeat['producer.override.bootstrap.servers'] == 'src-kafka-1:9092'
    assert heartbeat['source.cluster.alias'] == 'src' and heartbeat['target.cluster.alias'] == 'dst'
    assert heartbeat['emit.heartbeats.enabled'] == 'true'
    assert 'heartbeats.replication.enabled' not in by_kind(plan_ok())['source']


def test_heartbeats_on_the_target_keep_stock_mm2(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'heartbeats_topic_location': 'target'}]
    heartbeat = by_kind(plan_ok(flows=flows))['heartbeat']
    assert heartbeat['target.cluster.bootstrap.servers'] == 'dst-kafka-1:9092'
    assert heartbeat['producer.override.bootstrap.servers'] == 'dst-kafka-1:9092'
    assert plan_ok(flows=flows)['flows'][0]['heartbeats_cluster'] == 'dst'
    assert plan_ok()['flows'][0]['heartbeats_cluster'] == 'src'


def test_heartbeats_carry_the_credentials_of_the_cluster_they_reach(plan_ok: PlanOk, lab_clusters: Dict[str, Any]) -> None:
    clusters = dict(lab_clusters, src={'bootstrap_servers': 'src:9096', 'security_protocol': 'SASL_SSL',
                                       'sasl_mechanism': 'SCRAM-SHA-512', 'sasl_username': 'mm2',
                                       'sasl_password_file': 'src.properties'})
    result = plan_ok(clusters=clusters)
    heartbeat = next(connector for connector in result['connectors'] if connector['kind'] == 'heartbeat')
    placeholder = '${file:/etc/kafka/connect/secrets/src.properties:sasl.password}'
    for prefix in ('source.cluster.', 'target.cluster.', 'producer.override.'):
        assert placeholder in heartbeat['config'][prefix + 'sasl.jaas.config']
        assert heartbeat['config'][prefix + 'security.protocol'] == 'SASL_SSL'
    assert heartbeat['secret_file_names'] == ['src.properties']


def test_defaults_put_correctness_first(plan_ok: PlanOk) -> None:
    configs = by_kind(plan_ok())
    assert configs['checkpoint']['sync.group.offsets.enabled'] == 'true'
    assert configs['checkpoint']['emit.checkpoints.enabled'] == 'true'
    assert configs['source']['replication.factor'] == '-1'
    assert configs['source']['offset-syncs.topic.replication.factor'] == '-1'
    assert configs['checkpoint']['checkpoints.topic.replication.factor'] == '-1'
    assert configs['heartbeat']['heartbeats.topic.replication.factor'] == '-1'
    assert configs['source']['consumer.allow.auto.create.topics'] == 'false'
    assert configs['source']['producer.override.compression.type'] == 'lz4'
    assert configs['source']['replication.policy.class'] == DEFAULT_POLICY


def test_only_kafka_4_key_names_are_rendered(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*'], 'topics_exclude': ['foo\\.tmp\\..*'],
              'groups_exclude': ['batch-.*']}]
    configs = by_kind(plan_ok(flows=flows))
    rendered_keys = {key for config in configs.values() for key in config}
    assert not {key for key in rendered_keys if 'blacklist' in key or 'whitelist' in key}
    assert configs['source']['topics.exclude'] == 'foo\\.tmp\\..*'
    assert configs['checkpoint']['groups.exclude'] == 'batch-.*'
    assert configs['checkpoint']['topics'] == 'foo\\..*'


def test_unset_excludes_keep_mm2_defaults(plan_ok: PlanOk) -> None:
    configs = by_kind(plan_ok())
    assert 'topics.exclude' not in configs['source'] and 'groups.exclude' not in configs['checkpoint']


def test_identity_policy_is_set_on_all_three_connectors(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'replication_policy': 'identity', 'separator': '_'}]
    for config in by_kind(plan_ok(flows=flows)).values():
        assert config['replication.policy.class'] == IDENTITY
        assert config['replication.policy.separator'] == '_'


def test_flow_settings_reach_the_right_connector(plan_ok: PlanOk) -> None:
    flows = [{
        'source': 'src', 'target': 'dst', 'tasks_max': {'source': 6},
        'offset_syncs_topic_location': 'target', 'offset_lag_max': 50,
        'sync_topic_configs_interval_seconds': 30, 'refresh_topics_interval_seconds': 15,
        'refresh_groups_interval_seconds': 20, 'emit_checkpoints_interval_seconds': 10,
        'sync_group_offsets_interval_seconds': 11, 'emit_heartbeats_interval_seconds': 3,
        'sync_topic_acls': False,
    }]
    configs = by_kind(plan_ok(flows=flows))
    assert configs['source']['tasks.max'] == '6'
    assert configs['checkpoint']['tasks.max'] == '1' and configs['heartbeat']['tasks.max'] == '1'
    assert configs['source']['offset-syncs.topic.location'] == configs['checkpoint']['offset-syncs.topic.location'] == 'target'
    assert configs['source']['offset.lag.max'] == '50'
    assert configs['source']['sync.topic.configs.interval.seconds'] == '30'
    assert configs['source']['refresh.topics.interval.seconds'] == '15'
    assert configs['source']['sync.topic.acls.enabled'] == 'false'
    assert configs['checkpoint']['refresh.groups.interval.seconds'] == '20'
    assert configs['checkpoint']['emit.checkpoints.interval.seconds'] == '10'
    assert configs['checkpoint']['sync.group.offsets.interval.seconds'] == '11'
    assert configs['heartbeat']['emit.heartbeats.interval.seconds'] == '3'
    assert 'topics' not in configs['heartbeat']


def test_tuning_goes_to_consumer_and_producer_override_never_to_cluster_prefixes(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'consumer': {'fetch.min.bytes': 65536},
              'producer': {'linger.ms': 100, 'compression.type': None}}]
    source = by_kind(plan_ok(flows=flows))['source']
    assert source['consumer.fetch.min.bytes'] == '65536'
    assert source['producer.override.linger.ms'] == '100'
    assert 'producer.override.compression.type' not in source
    cluster_keys = [key.split('.cluster.', 1)[1] for key in source if '.cluster.' in key and not key.endswith('.alias')]
    assert set(cluster_keys) == {'bootstrap.servers', 'security.protocol'}


def test_extra_config_is_applied_last_and_null_removes(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'extra_config': {
        'source': {'config.properties.exclude': 'retention\\..*', 'sync.topic.acls.interval.seconds': None},
        'heartbeat': {'tasks.max': 1, 'admin.timeout.ms': 120000}}}]
    configs = by_kind(plan_ok(flows=flows))
    assert configs['source']['config.properties.exclude'] == 'retention\\..*'
    assert 'sync.topic.acls.interval.seconds' not in configs['source']
    assert configs['heartbeat']['admin.timeout.ms'] == '120000'


def test_site_defaults_sit_between_builtin_defaults_and_the_flow(plan_ok: PlanOk) -> None:
    site = {'refresh_topics_interval_seconds': 5, 'tasks_max': {'source': 2}, 'producer': {'linger.ms': 5}}
    flows = [{'source': 'src', 'target': 'dst', 'refresh_topics_interval_seconds': 7}]
    source = by_kind(plan_ok(flows=flows, site_defaults=site))['source']
    assert source['refresh.topics.interval.seconds'] == '7'
    assert source['tasks.max'] == '2'
    assert source['producer.override.linger.ms'] == '5'
    assert source['producer.override.batch.size'] == '131072'


def test_exactly_once_asks_for_transactions_and_committed_reads(plan_ok: PlanOk) -> None:
    source = by_kind(plan_ok(flows=[{'source': 'src', 'target': 'dst', 'exactly_once': True}]))['source']
    assert source['exactly.once.support'] == 'required'
    assert source['consumer.isolation.level'] == 'read_committed'


def test_secrets_are_placeholders_resolved_on_the_workers(plan_ok: PlanOk, lab_clusters: Dict[str, Any]) -> None:
    clusters = dict(lab_clusters, dst={
        'bootstrap_servers': 'b-1.example:9096,b-2.example:9096', 'security_protocol': 'SASL_SSL',
        'sasl_mechanism': 'SCRAM-SHA-512', 'sasl_username': 'mm2', 'sasl_password_file': 'dst.properties',
        'ssl_truststore_location': '/etc/kafka/connect/tls/dst-ca.p12', 'ssl_truststore_type': 'PKCS12',
        'ssl_truststore_password_file': 'dst.properties', 'client_config': {'ssl.endpoint.identification.algorithm': 'https'},
    })
    result = plan_ok(clusters=clusters)
    source = by_kind(result)['source']
    placeholder = '${file:/etc/kafka/connect/secrets/dst.properties:sasl.password}'
    jaas = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="mm2" password="%s";' % placeholder
    for prefix in ('target.cluster.', 'producer.override.'):
        assert source[prefix + 'sasl.jaas.config'] == jaas
        assert source[prefix + 'sasl.mechanism'] == 'SCRAM-SHA-512'
        assert source[prefix + 'security.protocol'] == 'SASL_SSL'
        assert source[prefix + 'ssl.truststore.password'] == '${file:/etc/kafka/connect/secrets/dst.properties:ssl.truststore.password}'
        assert source[prefix + 'ssl.endpoint.identification.algorithm'] == 'https'
    assert source['target.cluster.bootstrap.servers'] == 'b-1.example:9096,b-2.example:9096'
    assert result['secret_files'] == ['/etc/kafka/connect/secrets/dst.properties']
    # The heartbeat connector reaches only src (it writes heartbeats there), which has no secret here.
    assert {connector['kind']: connector['secret_file_names'] for connector in result['connectors']} == {
        'source': ['dst.properties'], 'checkpoint': ['dst.properties'], 'heartbeat': []}
    assert result['clusters']['dst']['client_properties']['config.providers'] == 'file'
    assert result['clusters']['dst']['client_properties']['sasl.jaas.config'] == jaas


def test_client_settings_without_secrets_declare_no_config_provider(plan_ok: PlanOk) -> None:
    """A worker that holds no secret may lack the secrets directory, where the provider would not start."""
    clusters = {'src': {'bootstrap_servers': 'old-1:9092'}, 'dst': {'bootstrap_servers': 'new-1:9092'}}
    properties = plan_ok(clusters=clusters)['clusters']['src']['client_properties']
    assert properties['bootstrap.servers'] == 'old-1:9092'
    assert not any(key.startswith('config.providers') for key in properties), properties


def test_plain_mechanism_uses_the_plain_login_module(plan_ok: PlanOk, lab_clusters: Dict[str, Any]) -> None:
    clusters = dict(lab_clusters, src={'bootstrap_servers': 'src:9092', 'security_protocol': 'SASL_PLAINTEXT',
                                       'sasl_mechanism': 'PLAIN', 'sasl_username': 'mm2',
                                       'sasl_password_file': 'src.properties', 'sasl_password_key': 'password'})
    source = by_kind(plan_ok(clusters=clusters))['source']
    assert source['source.cluster.sasl.jaas.config'].startswith('org.apache.kafka.common.security.plain.PlainLoginModule required')
    assert '${file:/etc/kafka/connect/secrets/src.properties:password}' in source['source.cluster.sasl.jaas.config']


def test_kerberos_logs_in_with_the_keytab_every_worker_must_hold(plan_ok: PlanOk, lab_clusters: Dict[str, Any]) -> None:
    kerberos = {'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'GSSAPI', 'sasl_kerberos_principal': 'mm2@EXAMPLE.COM',
                'sasl_kerberos_keytab_file': 'mm2.keytab'}
    clusters = {'src': dict(kerberos, bootstrap_servers='src:9094'),
                'dst': dict(kerberos, bootstrap_servers='dst:9094', sasl_kerberos_service_name='kafka-dst')}
    result = plan_ok(clusters=clusters)
    source = by_kind(result)['source']
    jaas = ('com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true '
            'keyTab="/etc/kafka/connect/secrets/mm2.keytab" principal="mm2@EXAMPLE.COM";')
    assert source['source.cluster.sasl.jaas.config'] == jaas == source['target.cluster.sasl.jaas.config']
    assert source['source.cluster.sasl.kerberos.service.name'] == 'kafka'
    assert source['target.cluster.sasl.kerberos.service.name'] == 'kafka-dst'
    assert source['producer.override.sasl.mechanism'] == 'GSSAPI'
    # The keytab is a file the workers must hold: the role checks it before deploying, and
    # connectors reading it restart when it changes.
    assert result['secret_files'] == ['/etc/kafka/connect/secrets/mm2.keytab']
    assert {connector['kind']: connector['secret_file_names'] for connector in result['connectors']} == {
        'source': ['mm2.keytab'], 'checkpoint': ['mm2.keytab'], 'heartbeat': ['mm2.keytab']}


def test_aggregation_gives_each_source_its_own_connectors(plan_ok: PlanOk, lab_clusters: Dict[str, Any]) -> None:
    clusters = dict(lab_clusters, src2={'bootstrap_servers': 'src2-kafka-1:9092'})
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*']},
             {'source': 'src2', 'target': 'dst', 'topics': ['foo\\..*']}]
    result = plan_ok(clusters=clusters, flows=flows)
    assert len(result['desired_names']) == len(set(result['desired_names'])) == 6
    first, second = by_kind(result, 'src-dst'), by_kind(result, 'src2-dst')
    assert first['source']['source.cluster.bootstrap.servers'] == 'src-kafka-1:9092'
    assert second['source']['source.cluster.bootstrap.servers'] == 'src2-kafka-1:9092'
    assert second['source']['target.cluster.alias'] == first['source']['target.cluster.alias'] == 'dst'
    assert result['source_aliases'] == ['src', 'src2']


def test_bidirectional_with_default_policy_plans_cleanly(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst'}, {'source': 'dst', 'target': 'src'}]
    result = plan_ok(flows=flows)
    assert result['warnings'] == []
    assert by_kind(result, 'dst-src')['source']['producer.override.bootstrap.servers'] == 'src-kafka-1:9092'


def test_bidirectional_identity_is_flagged(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'replication_policy': 'identity'},
             {'source': 'dst', 'target': 'src', 'replication_policy': 'identity'}]
    warnings = plan_ok(flows=flows)['warnings']
    assert len(warnings) == 1 and 'cannot detect loops' in warnings[0]


def test_named_flows_share_a_pair(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'name': 'orders', 'topics': ['orders\\..*']},
             {'source': 'src', 'target': 'dst', 'name': 'audit', 'topics': ['audit\\..*'], 'tasks_max': {'source': 1}}]
    assert plan_ok(flows=flows)['desired_names'] == [
        'mm2-orders-source', 'mm2-orders-checkpoint', 'mm2-orders-heartbeat',
        'mm2-audit-source', 'mm2-audit-checkpoint', 'mm2-audit-heartbeat']


def test_flows_of_another_connect_cluster_are_left_to_it(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst'}, {'source': 'dst', 'target': 'src', 'connect_cluster': 'connect_dr'},
             {'source': 'src', 'target': 'dst', 'name': 'here', 'connect_cluster': 'connect_workers'}]
    result = plan_ok(flows=flows)
    assert [flow['name'] for flow in result['flows']] == ['src-dst', 'here']
    assert result['flows_elsewhere'] == ['dst-src (Connect cluster connect_dr)']


@pytest.mark.parametrize('prefix', ['mm2-', 'dr.'])
def test_managed_pattern_follows_the_prefix(plan_ok: PlanOk, prefix: str) -> None:
    result = plan_ok(connector_prefix=prefix)
    assert result['desired_names'][0] == prefix + 'src-dst-source'
    assert re.match(result['managed_pattern'], prefix + 'src-dst-heartbeat')


def test_an_empty_endpoint_identification_algorithm_turns_the_host_name_check_off(plan_ok: PlanOk) -> None:
    """Documented as the way to skip the check where broker names do not match their certificates."""
    tls = {'security_protocol': 'SSL', 'ssl_truststore_location': '/etc/kafka/tls/ca.pem', 'ssl_truststore_type': 'PEM'}
    clusters = {'src': dict(tls, bootstrap_servers='old-1:9093', ssl_endpoint_identification_algorithm=''),
                'dst': dict(tls, bootstrap_servers='new-1:9093')}
    result = plan_ok(clusters=clusters)
    source = by_kind(result)['source']
    assert source['source.cluster.ssl.endpoint.identification.algorithm'] == ''
    assert 'target.cluster.ssl.endpoint.identification.algorithm' not in source
    assert result['clusters']['src']['client_properties']['ssl.endpoint.identification.algorithm'] == ''
