# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The plan's broker_probes: what module kafka_broker_versions needs of each cluster of the flows,
given to it as they are."""

from __future__ import annotations

from typing import Any, Callable, Dict

from fake_kafka_broker import FakeBroker, answering_as

SECRETS_DIR = '/etc/kafka/connect/secrets'


def test_each_cluster_of_the_flows_gets_its_bootstrap_protocol_and_trust(plan_ok: Callable[..., Dict[str, Any]]) -> None:
    result = plan_ok(clusters={
        'src': {'bootstrap_servers': 'b-1:9096, b-2:9096', 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'SCRAM-SHA-512',
                'sasl_username': 'mm2', 'sasl_password_file': 'src.properties',
                'ssl_truststore_location': '/etc/kafka/connect/tls/src-truststore.p12', 'ssl_truststore_type': 'PKCS12',
                'ssl_truststore_password_file': 'src.properties', 'client_config': {'ssl.endpoint.identification.algorithm': ''},
                'ssl_keystore_location': '/etc/kafka/connect/tls/src-client.pem', 'ssl_keystore_type': 'PEM',
                'ssl_key_password_file': 'src.properties'},
        'dst': {'bootstrap_servers': ['dst-1:9092'], 'security_protocol': 'SASL_PLAINTEXT', 'sasl_mechanism': 'PLAIN',
                'sasl_username': 'mm2', 'sasl_password_file': 'dst.properties'},
        'unused': {'bootstrap_servers': 'x:1'},
    })
    placeholder = '${file:%s/src.properties:%%s}' % SECRETS_DIR
    assert result['broker_probes'] == [
        {'alias': 'dst', 'bootstrap': ['dst-1:9092'], 'security_protocol': 'SASL_PLAINTEXT'},
        {'alias': 'src', 'bootstrap': ['b-1:9096', 'b-2:9096'], 'security_protocol': 'SASL_SSL', 'ssl_check_hostname': False,
         'ssl_truststore_location': '/etc/kafka/connect/tls/src-truststore.p12', 'ssl_truststore_type': 'PKCS12',
         'ssl_truststore_password': placeholder % 'ssl.truststore.password',
         'ssl_certfile': '/etc/kafka/connect/tls/src-client.pem', 'ssl_key_password': placeholder % 'ssl.key.password'},
    ]


def test_a_plain_tls_cluster_checks_host_names_as_kafka_does(plan_ok: Callable[..., Dict[str, Any]]) -> None:
    result = plan_ok(clusters={'src': {'bootstrap_servers': 'b-1:9094', 'security_protocol': 'SSL'},
                               'dst': {'bootstrap_servers': 'd-1:9092'}})
    assert result['broker_probes'][1] == {'alias': 'src', 'bootstrap': ['b-1:9094'], 'security_protocol': 'SSL',
                                          'ssl_check_hostname': True}


def test_the_module_takes_the_probes_as_they_are(plan_ok: Callable[..., Dict[str, Any]], run_module: Any) -> None:
    with FakeBroker(answering_as('2.0.0')) as old, FakeBroker(answering_as('3.9.0')) as new:
        probes = plan_ok(clusters={'src': {'bootstrap_servers': [old.endpoint]},
                                   'dst': {'bootstrap_servers': new.endpoint}})['broker_probes']
        result = run_module('kafka_broker_versions', clusters=probes)
    assert result['failed'] is True
    assert result['msg'].startswith("cluster 'src' (%s) answers as Kafka 2.0" % old.endpoint)
    assert result['clusters']['dst']['at_least'] == '3.9'
