# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the failover of one flow takes from the model: MM2's own client settings and names."""

from __future__ import annotations

from typing import Any, Callable, Dict

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_failover_inputs import failover_inputs
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_plan import plan

SECURED = {'bootstrap_servers': ['src-kafka-1:9094'], 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'SCRAM-SHA-512',
           'sasl_username': 'mm2', 'sasl_password_file': 'mm2.properties',
           'ssl_truststore_location': '/etc/kafka/tls/ca.pem', 'ssl_truststore_type': 'PEM'}


def inputs(make_request: Callable[..., Dict[str, Any]], flow: str = 'src->dst', **parts: Any) -> Dict[str, Any]:
    request = make_request(secret_file_names=['mm2.properties'], **parts)
    return failover_inputs(dict(request, flow=flow, plan=plan(request)))


def test_the_flow_gives_mm2s_client_settings_with_placeholders(
        make_request: Callable[..., Dict[str, Any]], lab_clusters: Dict[str, Any]) -> None:
    clusters = dict(lab_clusters, src=SECURED)
    answer = inputs(make_request, clusters=clusters)
    assert answer['errors'] == []
    assert answer['source_client'] == {
        'bootstrap.servers': 'src-kafka-1:9094', 'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'SCRAM-SHA-512',
        'ssl.truststore.location': '/etc/kafka/tls/ca.pem', 'ssl.truststore.type': 'PEM',
        'sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required username="mm2" '
                            'password="${file:/etc/kafka/connect/secrets/mm2.properties:sasl.password}";'}
    assert answer['target_client'] == {'bootstrap.servers': 'dst-kafka-1:9092', 'security.protocol': 'PLAINTEXT'}
    assert answer['flow_connectors'] == ['mm2-src-dst-source', 'mm2-src-dst-checkpoint', 'mm2-src-dst-heartbeat']
    assert (answer['source_alias'], answer['target_alias'], answer['checkpoints_topic']) == (
        'src', 'dst', 'src.checkpoints.internal')
    assert answer['replication_policy'] == 'default' and answer['separator'] == '.'


def test_the_flows_naming_follows_its_options(make_request: Callable[..., Dict[str, Any]]) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*'], 'separator': '_'}]
    answer = inputs(make_request, flows=flows)
    assert answer['separator'] == '_' and answer['checkpoints_topic'] == 'src_checkpoints_internal'


def test_an_unknown_flow_is_an_error(make_request: Callable[..., Dict[str, Any]]) -> None:
    answer = inputs(make_request, flow='src->nowhere')
    assert answer['errors'] and 'no flow of mm2_flows' in answer['errors'][0]


def test_a_flow_of_another_connect_cluster_is_an_error(make_request: Callable[..., Dict[str, Any]]) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*'], 'connect_cluster': 'connect_dr'}]
    answer = inputs(make_request, flows=flows)
    assert 'not run by the Connect cluster of this play' in answer['errors'][0]
    assert 'src-dst (Connect cluster connect_dr)' in answer['errors'][0]


def test_the_reverse_flow_swaps_the_clusters_and_keeps_the_options() -> None:
    from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_failover_inputs import reverse_flow
    flows = [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*'], 'groups': ['app-.*'], 'name': 'orders',
              'offset_syncs_topic_location': 'target'}]
    answer = reverse_flow({'flow': 'src->dst', 'flows': flows})
    assert answer['reverse_flow'] == {'source': 'dst', 'target': 'src', 'topics': ['foo\\..*'], 'groups': ['app-.*'],
                                      'name': 'orders-back', 'offset_syncs_topic_location': 'target'}
    assert answer['reference'] == 'dst->src' and answer['declared'] is False
    declared = flows + [{'source': 'dst', 'target': 'src', 'topics': ['bar']}]
    assert reverse_flow({'flow': 'orders', 'flows': declared})['reverse_flow'] == declared[1]


def test_no_reverse_flow_for_identity_or_unknown_flows() -> None:
    from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_failover_inputs import reverse_flow
    identity = [{'source': 'src', 'target': 'dst', 'replication_policy': 'identity'}]
    assert 'would loop' in reverse_flow({'flow': 'src->dst', 'flows': identity})['errors'][0]
    assert 'no flow of mm2_flows' in reverse_flow({'flow': 'a->b', 'flows': identity})['errors'][0]
