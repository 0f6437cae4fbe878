# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the readiness check of one flow takes from the model: the failover's inputs, the offset syncs, the
group filter and offset.lag.max MM2 runs with, and the flow's application principals (checked by the plan)."""

from __future__ import annotations

from typing import Any, Callable, Dict

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_plan import plan
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_readiness_inputs import readiness_inputs


def inputs(make_request: Callable[..., Dict[str, Any]], flow: str = 'src->dst', **parts: Any) -> Dict[str, Any]:
    request = make_request(**parts)
    return readiness_inputs(dict(request, flow=flow, plan=plan(request)))


def test_the_flows_defaults_give_mm2s_own_filter_and_no_principals(make_request: Callable[..., Dict[str, Any]]) -> None:
    answer = inputs(make_request)
    assert answer['errors'] == []
    assert (answer['offset_syncs_topic'], answer['offset_syncs_location']) == ('mm2-offset-syncs.dst.internal', 'source')
    assert answer['groups'] == ['.*'] and answer['groups_exclude'] == ['console-consumer-.*', 'connect-.*', '__.*']
    assert answer['offset_lag_max'] == 100 and answer['consumers'] == [] and answer['producers'] == []
    assert answer['checkpoints_topic'] == 'src.checkpoints.internal' and answer['source_client']['bootstrap.servers']


def test_the_flows_options_are_what_mm2_runs_with(make_request: Callable[..., Dict[str, Any]]) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*'], 'groups': ['app-.*', 'orders'],
              'groups_exclude': ['app-test'], 'offset_lag_max': 10, 'offset_syncs_topic_location': 'target',
              'consumers': ['User:app', {'principal': 'User:b', 'groups': ['b-1']}],
              'producers': [{'principal': 'User:w', 'transactional_ids': ['w-tx']}]}]
    answer = inputs(make_request, flows=flows)
    assert answer['errors'] == []
    assert answer['groups'] == ['app-.*', 'orders'] and answer['groups_exclude'] == ['app-test']
    assert answer['offset_lag_max'] == 10
    assert (answer['offset_syncs_topic'], answer['offset_syncs_location']) == ('mm2-offset-syncs.src.internal', 'target')
    assert answer['consumers'] == [{'principal': 'User:app', 'groups': []}, {'principal': 'User:b', 'groups': ['b-1']}]
    assert answer['producers'] == [{'principal': 'User:w', 'transactional_ids': ['w-tx']}]


def test_extra_config_decides_the_lag(make_request: Callable[..., Dict[str, Any]]) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*'], 'extra_config': {'source': {'offset.lag.max': 7}}}]
    answer = inputs(make_request, flows=flows)
    assert answer['errors'] == [] and answer['offset_lag_max'] == 7


def test_bad_principals_are_refused_by_the_plan(plan_errors: Callable[..., str]) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*'],
              'consumers': ['app', {'principal': 'User:x', 'group': ['g']}, 5],
              'producers': 'User:w'}]
    errors = plan_errors(flows=flows)
    assert 'consumers[0]: principal must be Type:name, for example User:app' in errors
    assert "consumers[1]: unknown key(s) group; known: principal, groups" in errors
    assert 'consumers[2] must be a principal or a mapping' in errors
    assert 'producers must be a list of principals' in errors


def test_an_unknown_flow_is_an_error(make_request: Callable[..., Dict[str, Any]]) -> None:
    assert 'no flow of mm2_flows' in inputs(make_request, flow='src->nowhere')['errors'][0]


def test_mm2s_internal_topics_with_the_replication_factors_the_plan_sets(make_request: Callable[..., Dict[str, Any]]) -> None:
    answer = inputs(make_request)
    assert answer['internal_topics'] == [
        {'name': 'src.checkpoints.internal', 'side': 'target', 'kind': 'checkpoints', 'compacted': True,
         'replication_factor': -1, 'setting': 'checkpoints.topic.replication.factor'},
        {'name': 'mm2-offset-syncs.dst.internal', 'side': 'source', 'kind': 'offset-syncs', 'compacted': True,
         'replication_factor': -1, 'setting': 'offset-syncs.topic.replication.factor'},
        {'name': 'heartbeats', 'side': 'source', 'kind': 'heartbeats', 'compacted': False,
         'replication_factor': -1, 'setting': 'heartbeats.topic.replication.factor'}]
    assert answer['connect_client'] == {}


def test_the_flows_options_place_and_size_mm2s_internal_topics(make_request: Callable[..., Dict[str, Any]]) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*'], 'offset_syncs_topic_location': 'target',
              'heartbeats_topic_location': 'target', 'internal_topic_replication_factor': 3,
              'extra_config': {'checkpoint': {'checkpoints.topic.replication.factor': 2}}}]
    topics = {topic['kind']: topic for topic in inputs(make_request, flows=flows)['internal_topics']}
    assert (topics['offset-syncs']['name'], topics['offset-syncs']['side']) == ('mm2-offset-syncs.src.internal', 'target')
    assert topics['heartbeats']['side'] == 'target' and topics['offset-syncs']['replication_factor'] == 3
    assert topics['checkpoints']['replication_factor'] == 2


# connect-distributed.properties as role connect_worker renders them for a SASL_SSL Kafka (abridged).
WORKER_PROPERTIES = {
    'bootstrap.servers': 'dst-kafka-1:9094', 'group.id': 'connect-mm2-lab',
    'config.storage.topic': 'connect-mm2-lab-configs', 'offset.storage.topic': 'connect-mm2-lab-offsets',
    'status.storage.topic': 'connect-mm2-lab-status', 'config.storage.replication.factor': '-1',
    'offset.storage.replication.factor': 3, 'status.storage.replication.factor': '2',
    'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'SCRAM-SHA-512',
    'sasl.jaas.config': '${file:/etc/kafka/connect/secrets/worker.properties:sasl.jaas.config}',
    'ssl.truststore.location': '/etc/kafka/tls/ca.pem', 'producer.security.protocol': 'SASL_SSL',
    'listeners.https.ssl.keystore.location': '/etc/kafka/tls/rest.p12', 'rest.advertised.port': 8443, 'client.rack': None,
}


def test_the_connect_clusters_topics_and_client_come_from_the_workers_properties(
        make_request: Callable[..., Dict[str, Any]]) -> None:
    request = make_request()
    answer = readiness_inputs(dict(request, flow='src->dst', plan=plan(request), connect_properties=WORKER_PROPERTIES))
    connect = [topic for topic in answer['internal_topics'] if topic['side'] == 'connect']
    assert connect == [
        {'name': 'connect-mm2-lab-configs', 'side': 'connect', 'kind': 'config', 'compacted': True,
         'replication_factor': -1, 'setting': 'config.storage.replication.factor'},
        {'name': 'connect-mm2-lab-offsets', 'side': 'connect', 'kind': 'offset', 'compacted': True,
         'replication_factor': 3, 'setting': 'offset.storage.replication.factor'},
        {'name': 'connect-mm2-lab-status', 'side': 'connect', 'kind': 'status', 'compacted': True,
         'replication_factor': 2, 'setting': 'status.storage.replication.factor'}]
    assert answer['connect_client'] == {
        'bootstrap.servers': 'dst-kafka-1:9094', 'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'SCRAM-SHA-512',
        'sasl.jaas.config': '${file:/etc/kafka/connect/secrets/worker.properties:sasl.jaas.config}',
        'ssl.truststore.location': '/etc/kafka/tls/ca.pem'}
    unset = dict(WORKER_PROPERTIES)
    del unset['status.storage.replication.factor']
    answer = readiness_inputs(dict(request, flow='src->dst', plan=plan(request), connect_properties=unset))
    assert [topic['replication_factor'] for topic in answer['internal_topics'] if topic['kind'] == 'status'] == [3]
    # Without a bootstrap the workers' Kafka cannot be read: none of its topics.
    answer = readiness_inputs(dict(request, flow='src->dst', plan=plan(request),
                                   connect_properties=dict(WORKER_PROPERTIES, **{'bootstrap.servers': ''})))
    assert answer['connect_client'] == {} and all(topic['side'] != 'connect' for topic in answer['internal_topics'])
