# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The MM2 settings of the reference guides as flow options (plugin_utils.mm2_flow_options): what each
renders into which connector, and every refusal, naming the flow and the option."""

from __future__ import annotations

from typing import Any, Callable, Dict, List

import pytest

PlanOk = Callable[..., Dict[str, Any]]
PlanErrors = Callable[..., str]
FLOW = {'source': 'src', 'target': 'dst'}
WHERE = 'flow #1 (src -> dst): '


def flow(**options: Any) -> List[Dict[str, Any]]:
    return [dict(FLOW, **options)]


def by_kind(result: Dict[str, Any]) -> Dict[str, Dict[str, str]]:
    return {connector['kind']: connector['config'] for connector in result['connectors']}


def test_unset_options_keep_mm2_defaults(plan_ok: PlanOk) -> None:
    configs = by_kind(plan_ok(flows=flow()))
    for config in configs.values():
        for key in ('config.properties.exclude', 'topic.filter.class', 'group.filter.class', 'admin.timeout.ms',
                    'consumer.poll.timeout.ms'):
            assert key not in config
        assert not [key for key in config if key.startswith(('admin.', 'source.admin.', 'target.admin.', 'target.consumer.'))]
    # internal_topic_replication_factor still gives every internal topic its factor.
    assert configs['source']['offset-syncs.topic.replication.factor'] == '-1'
    assert configs['checkpoint']['checkpoints.topic.replication.factor'] == '-1'
    assert configs['heartbeat']['heartbeats.topic.replication.factor'] == '-1'


def test_topic_config_sync_exclusions_go_to_the_source_connector(plan_ok: PlanOk) -> None:
    excluded = ['message\\.timestamp\\.type', 'min\\.insync\\.replicas', 'retention\\..*']
    configs = by_kind(plan_ok(flows=flow(sync_topic_configs_exclude=excluded)))
    assert configs['source']['config.properties.exclude'] == 'message\\.timestamp\\.type,min\\.insync\\.replicas,retention\\..*'
    assert 'config.properties.exclude' not in configs['checkpoint'] and 'config.properties.exclude' not in configs['heartbeat']


def test_an_empty_exclusion_list_syncs_every_topic_config(plan_ok: PlanOk) -> None:
    result = plan_ok(flows=flow(sync_topic_configs_exclude=[], heartbeats_topic_location='target'))
    assert by_kind(result)['source']['config.properties.exclude'] == ''
    assert result['warnings'] == []


def test_exclusions_without_the_timestamp_type_warn_when_heartbeats_are_replicated(plan_ok: PlanOk) -> None:
    result = plan_ok(flows=flow(sync_topic_configs_exclude='retention\\..*'))
    assert len(result['warnings']) == 1
    assert result['warnings'][0].startswith(WHERE + 'sync_topic_configs_exclude replaces MM2\'s default exclusions')
    assert 'message.timestamp.type' in result['warnings'][0]
    assert plan_ok(flows=flow(sync_topic_configs_exclude=['message\\..*']))['warnings'] == []
    assert plan_ok(flows=flow(sync_topic_configs_exclude=['x'], sync_topic_configs=False))['warnings'] == []


def test_filter_classes_go_where_mm2_reads_them(plan_ok: PlanOk) -> None:
    configs = by_kind(plan_ok(flows=flow(topic_filter_class=' com.example.mm2.TenantTopicFilter',
                                         group_filter_class='com.example.mm2.Filters$Groups')))
    assert configs['source']['topic.filter.class'] == configs['checkpoint']['topic.filter.class'] == 'com.example.mm2.TenantTopicFilter'
    assert configs['checkpoint']['group.filter.class'] == 'com.example.mm2.Filters$Groups'
    assert 'group.filter.class' not in configs['source']
    assert 'topic.filter.class' not in configs['heartbeat'] and 'group.filter.class' not in configs['heartbeat']


def test_timeouts_go_where_mm2_reads_them(plan_ok: PlanOk) -> None:
    configs = by_kind(plan_ok(flows=flow(admin_timeout_ms=120000, consumer_poll_timeout_ms='500')))
    assert {kind: config['admin.timeout.ms'] for kind, config in configs.items()} == {
        'source': '120000', 'checkpoint': '120000', 'heartbeat': '120000'}
    assert configs['source']['consumer.poll.timeout.ms'] == configs['checkpoint']['consumer.poll.timeout.ms'] == '500'
    assert 'consumer.poll.timeout.ms' not in configs['heartbeat']


def test_each_internal_topic_can_have_its_own_replication_factor(plan_ok: PlanOk) -> None:
    configs = by_kind(plan_ok(flows=flow(internal_topic_replication_factor=3, heartbeats_topic_replication_factor=-1,
                                         checkpoints_topic_replication_factor='2')))
    assert configs['source']['offset-syncs.topic.replication.factor'] == '3'
    assert configs['checkpoint']['checkpoints.topic.replication.factor'] == '2'
    assert configs['heartbeat']['heartbeats.topic.replication.factor'] == '-1'
    configs = by_kind(plan_ok(flows=flow(offset_syncs_topic_replication_factor=5)))
    assert configs['source']['offset-syncs.topic.replication.factor'] == '5'
    assert configs['checkpoint']['checkpoints.topic.replication.factor'] == '-1'


def test_checkpoint_and_heartbeat_client_overrides(plan_ok: PlanOk) -> None:
    configs = by_kind(plan_ok(flows=flow(
        checkpoint_clients={'source_admin': {'request.timeout.ms': 90000}, 'target_admin': {'retries': 10},
                            'consumer': {'fetch.max.wait.ms': 100}, 'source_consumer': {'max.poll.records': 50},
                            'target_consumer': {'max.poll.records': 60}, 'admin': {'retry.backoff.ms': 500},
                            'producer': {'linger.ms': 5, 'acks': 'all'}},
        heartbeat_clients={'admin': {'request.timeout.ms': 10000}, 'target_admin': {'retries': 3},
                           'producer': {'compression.type': 'none'}})))
    checkpoint, heartbeat = configs['checkpoint'], configs['heartbeat']
    assert checkpoint['source.admin.request.timeout.ms'] == '90000'
    assert checkpoint['target.admin.retries'] == '10'
    assert checkpoint['consumer.fetch.max.wait.ms'] == '100'
    assert checkpoint['source.consumer.max.poll.records'] == '50'
    assert checkpoint['target.consumer.max.poll.records'] == '60'
    assert checkpoint['admin.retry.backoff.ms'] == '500'
    assert checkpoint['producer.override.linger.ms'] == '5' and checkpoint['producer.override.acks'] == 'all'
    # The producer's connection stays the model's.
    assert checkpoint['producer.override.bootstrap.servers'] == 'dst-kafka-1:9092'
    assert heartbeat['admin.request.timeout.ms'] == '10000' and heartbeat['target.admin.retries'] == '3'
    assert heartbeat['producer.override.compression.type'] == 'none'
    assert heartbeat['producer.override.bootstrap.servers'] == 'src-kafka-1:9092'
    # The source connector keeps its own consumer and producer options.
    assert 'source.admin.request.timeout.ms' not in configs['source']
    assert configs['source']['producer.override.linger.ms'] == '20'


def test_client_overrides_merge_over_site_defaults_and_null_removes(plan_ok: PlanOk) -> None:
    site = {'checkpoint_clients': {'producer': {'linger.ms': 5, 'acks': 'all'}}}
    checkpoint = by_kind(plan_ok(site_defaults=site, flows=flow(checkpoint_clients={'producer': {'acks': None}})))['checkpoint']
    assert checkpoint['producer.override.linger.ms'] == '5'
    assert 'producer.override.acks' not in checkpoint


@pytest.mark.parametrize(('options', 'message'), [
    ({'sync_topic_configs_exclude': ['retention(']}, "sync_topic_configs_exclude pattern 'retention(' is not a valid regular expression"),
    ({'sync_topic_configs_exclude': ['a{1,2}']}, 'sync_topic_configs_exclude pattern \'a{1,2}\' is empty or contains a comma'),
    ({'sync_topic_configs_exclude': {'retention.ms': True}}, 'sync_topic_configs_exclude must be a list of topic config names'),
    ({'topic_filter_class': 'com.example.my-filter'}, "topic_filter_class 'com.example.my-filter' is not a Java class name"),
    ({'topic_filter_class': 'com.example.class.Filter'}, "topic_filter_class 'com.example.class.Filter' is not a Java class name"),
    ({'group_filter_class': 'com..Filter'}, "group_filter_class 'com..Filter' is not a Java class name"),
    ({'group_filter_class': ''}, 'group_filter_class must be a Java class name'),
    ({'group_filter_class': ['com.example.F']}, 'group_filter_class must be a Java class name'),
    ({'admin_timeout_ms': 0}, 'admin_timeout_ms must be a whole number of milliseconds >= 1, got 0'),
    ({'admin_timeout_ms': '1m'}, "admin_timeout_ms must be a whole number of milliseconds >= 1, got '1m'"),
    ({'consumer_poll_timeout_ms': -5}, 'consumer_poll_timeout_ms must be a whole number of milliseconds >= 1'),
    ({'consumer_poll_timeout_ms': True}, 'consumer_poll_timeout_ms must be a whole number of milliseconds >= 1'),
    ({'consumer_poll_timeout_ms': 2 ** 63}, 'consumer_poll_timeout_ms must be a whole number of milliseconds >= 1'),
    ({'checkpoints_topic_replication_factor': 0}, 'checkpoints_topic_replication_factor must be -1 (the broker default) or between 1'),
    ({'heartbeats_topic_replication_factor': -2}, 'heartbeats_topic_replication_factor must be -1'),
    ({'offset_syncs_topic_replication_factor': 40000}, 'offset_syncs_topic_replication_factor must be -1'),
    ({'checkpoint_clients': ['producer']}, 'checkpoint_clients must map clients (consumer, source_consumer'),
    ({'checkpoint_clients': {'sink': {}}}, 'checkpoint_clients keys must be consumer, source_consumer, target_consumer, admin, '
                                           'source_admin, target_admin, producer; unknown: sink'),
    ({'heartbeat_clients': {'consumer': {}}}, 'heartbeat_clients keys must be admin, target_admin, producer; unknown: consumer'),
    ({'heartbeat_clients': {'producer': 'acks=all'}}, 'heartbeat_clients.producer must be a mapping of Kafka client settings'),
    ({'checkpoint_clients': {'target_admin': {'security.protocol': 'PLAINTEXT'}}},
     'checkpoint_clients.target_admin: security.protocol is a connection setting, which the model sets from mm2_clusters'),
    ({'checkpoint_clients': {'producer': {'sasl.jaas.config': 'x'}}},
     'checkpoint_clients.producer: sasl.jaas.config is a connection setting'),
    ({'heartbeat_clients': {'producer': {'bootstrap.servers': 'elsewhere:9092'}}},
     'heartbeat_clients.producer: bootstrap.servers is a connection setting'),
    ({'heartbeat_clients': {'admin': {'ssl.truststore.location': '/tmp/t.p12'}}},
     'heartbeat_clients.admin: ssl.truststore.location is a connection setting'),
    ({'checkpoint_clients': {'consumer': {'consumer.max.poll.records': 5}}},
     'checkpoint_clients.consumer: consumer.max.poll.records carries a client prefix'),
    ({'checkpoint_clients': {'admin': {'timeout.ms': 5}}},
     'checkpoint_clients.admin: timeout.ms would render admin.timeout.ms, which MM2 reads as its own setting; use the option admin_timeout_ms'),
    ({'checkpoint_clients': {'consumer': {'poll.timeout.ms': 5}}},
     'checkpoint_clients.consumer: poll.timeout.ms would render consumer.poll.timeout.ms'),
    ({'consumer': {'poll.timeout.ms': 5}}, 'consumer: poll.timeout.ms would render consumer.poll.timeout.ms'),
    ({'checkpoint_clients': {'producer': {'linger.ms': {'ms': 5}}}}, 'checkpoint_clients.producer: linger.ms must be a string'),
])
def test_bad_options_are_refused_naming_flow_and_option(plan_errors: PlanErrors, options: Dict[str, Any], message: str) -> None:
    assert WHERE + message in plan_errors(flows=flow(**options))


@pytest.mark.parametrize(('options', 'kind', 'key', 'message'), [
    ({'sync_topic_configs_exclude': ['retention\\..*']}, 'source', 'config.properties.exclude',
     'sync_topic_configs_exclude and extra_config.source["config.properties.exclude"] both set config.properties.exclude'),
    ({'sync_topic_configs_exclude': ['retention\\..*']}, 'source', 'config.properties.blacklist',
     'sync_topic_configs_exclude and extra_config.source["config.properties.blacklist"] both set config.properties.exclude'),
    ({'topic_filter_class': 'com.example.F'}, 'checkpoint', 'topic.filter.class',
     'topic_filter_class and extra_config.checkpoint["topic.filter.class"] both set topic.filter.class'),
    ({'group_filter_class': 'com.example.G'}, 'checkpoint', 'group.filter.class', 'group_filter_class and extra_config.checkpoint'),
    ({'admin_timeout_ms': 1000}, 'heartbeat', 'admin.timeout.ms',
     'admin_timeout_ms and extra_config.heartbeat["admin.timeout.ms"] both set admin.timeout.ms; keep one of them'),
    ({'consumer_poll_timeout_ms': 1000}, 'source', 'consumer.poll.timeout.ms', 'consumer_poll_timeout_ms and extra_config.source'),
    ({'heartbeats_topic_replication_factor': 3}, 'heartbeat', 'heartbeats.topic.replication.factor',
     'heartbeats_topic_replication_factor and extra_config.heartbeat["heartbeats.topic.replication.factor"]'),
    ({'checkpoint_clients': {'target_admin': {'retries': 3}}}, 'checkpoint', 'target.admin.retries',
     'checkpoint_clients.target_admin and extra_config.checkpoint["target.admin.retries"] both set target.admin.retries'),
    ({'heartbeat_clients': {'producer': {'acks': 'all'}}}, 'heartbeat', 'producer.override.acks',
     'heartbeat_clients.producer and extra_config.heartbeat["producer.override.acks"] both set producer.override.acks'),
])
def test_an_option_also_in_extra_config_is_refused_naming_both(plan_errors: PlanErrors, options: Dict[str, Any],
                                                               kind: str, key: str, message: str) -> None:
    assert WHERE + message in plan_errors(flows=flow(extra_config={kind: {key: '1'}}, **options))


def test_extra_config_alone_still_sets_what_no_option_gives(plan_ok: PlanOk) -> None:
    # internal_topic_replication_factor has a built-in value; only the per-topic option conflicts.
    configs = by_kind(plan_ok(flows=flow(extra_config={'checkpoint': {'checkpoints.topic.replication.factor': 3,
                                                                      'target.admin.retries': 2}})))
    assert configs['checkpoint']['checkpoints.topic.replication.factor'] == '3'
    assert configs['checkpoint']['target.admin.retries'] == '2'


@pytest.mark.parametrize('key', ['heartbeats.topic.retention.ms', 'checkpoints.topic.retention.ms', 'offset.syncs.topic.retention.ms'])
def test_retention_keys_mm2_never_reads_are_refused(plan_errors: PlanErrors, key: str) -> None:
    errors = plan_errors(flows=flow(extra_config={'heartbeat': {key: 86400000}}))
    assert WHERE + 'extra_config.heartbeat %s: MM2 never reads this setting' % key in errors


def test_every_problem_of_the_options_is_reported_at_once(plan_errors: PlanErrors) -> None:
    errors = plan_errors(flows=flow(admin_timeout_ms=0, topic_filter_class='x-y', heartbeat_clients={'producer': {'sasl.mechanism': 'PLAIN'}}))
    assert errors.count(WHERE) == 3
