# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every problem of the model is reported before the role changes anything."""

from __future__ import annotations

from typing import Any, Callable, Dict, List

import pytest

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_plan import plan

PlanErrors = Callable[..., str]
FLOW = {'source': 'src', 'target': 'dst'}


def flow(**options: Any) -> List[Dict[str, Any]]:
    return [dict(FLOW, **options)]


@pytest.mark.parametrize(('flows', 'message'), [
    ([{'source': 'src', 'target': 'nowhere'}], 'target "nowhere" is not a cluster alias of mm2_clusters (known: dst, src)'),
    ([{'source': 'elsewhere', 'target': 'dst'}], 'source "elsewhere" is not a cluster alias'),
    ([{'source': 'src', 'target': 'src'}], 'source and target are the same cluster "src"'),
    ([{'target': 'dst'}], 'source (a cluster alias) is required'),
    (flow(replication_policy='mirror'), 'replication_policy must be "default" or "identity"'),
    (flow(offset_syncs_topic_location='middle'), 'offset_syncs_topic_location must be "source" or "target"'),
    (flow(separator=''), 'separator must be a non-empty string'),
    (flow(topic='foo'), 'unknown option(s) topic'),
    (flow(sync_group_offsets=True, emit_checkpoints=False), 'sync_group_offsets needs emit_checkpoints'),
    (flow(refresh_topics_interval_seconds=0), 'refresh_topics_interval_seconds must be a whole number of seconds >= 1'),
    (flow(emit_heartbeats='sometimes'), 'emit_heartbeats must be true or false'),
    (flow(heartbeats_topic_location='both'), 'heartbeats_topic_location must be "source"'),
    (flow(replication_factor=0), 'replication_factor must be -1 (the broker default) or >= 1'),
    (flow(tasks_max={'source': 0}), 'tasks_max.source must be a whole number >= 1'),
    (flow(tasks_max={'sink': 2}), 'tasks_max keys must be source, checkpoint or heartbeat'),
    (flow(topics=[]), 'topics must be a non-empty list'),
    (flow(topics=['foo{1,2}']), 'contains a comma'),
    (flow(topics=['foo(']), 'is not a valid regular expression'),
    (flow(producer={'bootstrap.servers': 'x:1'}), 'connection settings come from mm2_clusters'),
    (flow(consumer={'consumer.max.poll.records': 10}), 'holds tuning only, without a prefix'),
    (flow(extra_config={'sink': {}}), 'extra_config keys must be source, checkpoint or heartbeat'),
    (flow(extra_config={'source': {'admin.timeout.ms': {'ms': 1}}}), 'extra_config.source: admin.timeout.ms must be a string'),
    (flow(producer={'linger.ms': [{'ms': 1}]}), 'producer: linger.ms must be a string, number, boolean or list'),
    (flow(connect_cluster='no_such_group'), 'connect_cluster "no_such_group" is not an inventory group with hosts'),
    (flow(name='bad name'), 'may hold letters, digits'),
    ([FLOW, FLOW], 'connector name mm2-src-dst-source is also used by flow src -> dst'),
    ([FLOW, {'source': 'dst', 'target': 'src', 'offset_syncs_topic_location': 'target'}],
     'would share the offset-syncs topic mm2-offset-syncs.dst.internal on cluster src'),
    ('src -> dst', 'must be a list of flows'),
])
def test_bad_flows_are_rejected(plan_errors: PlanErrors, flows: Any, message: str) -> None:
    assert message in plan_errors(flows=flows)


@pytest.mark.parametrize(('cluster', 'message'), [
    ({}, 'bootstrap_servers is required'),
    ({'bootstrap_servers': 'core-1-1:9092;core-1-2:9092'}, 'separated by commas (not semicolons)'),
    ({'bootstrap_servers': 'broker'}, 'must be host:port'),
    ({'bootstrap_servers': 'b:9092', 'security_protocol': 'TLS'}, 'security_protocol must be one of'),
    ({'bootstrap_servers': 'b:9092', 'security_protocol': 'SASL_SSL'}, 'needs sasl_mechanism'),
    ({'bootstrap_servers': 'b:9092', 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'SCRAM-SHA-512',
      'sasl_username': 'mm2'}, 'needs sasl_username and sasl_password_file'),
    ({'bootstrap_servers': 'b:9092', 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'OAUTHBEARER'},
     'needs sasl_jaas_config_file'),
    ({'bootstrap_servers': 'b:9092', 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'GSSAPI'},
     'sasl_mechanism GSSAPI needs sasl_kerberos_principal and sasl_kerberos_keytab_file'),
    ({'bootstrap_servers': 'b:9092', 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'GSSAPI',
      'sasl_kerberos_principal': 'mm2', 'sasl_kerberos_keytab_file': 'mm2.keytab'}, 'must be name[/host]@REALM'),
    ({'bootstrap_servers': 'b:9092', 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'GSSAPI',
      'sasl_kerberos_principal': 'mm2@R', 'sasl_kerberos_keytab_file': '/etc/krb5.keytab'},
     'must name a file in /etc/kafka/connect/secrets'),
    ({'bootstrap_servers': 'b:9092', 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'SCRAM-SHA-512',
      'sasl_username': 'mm2', 'sasl_password_file': 'p', 'sasl_kerberos_principal': 'mm2@R'}, 'is SCRAM-SHA-512, not GSSAPI'),
    ({'bootstrap_servers': 'b:9092', 'sasl_username': 'mm2'}, 'does not use SASL'),
    ({'bootstrap_servers': 'b:9092', 'sasl_password': 'hunter2'}, 'unknown option(s) sasl_password'),
    ({'bootstrap_servers': 'b:9092', 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'PLAIN',
      'sasl_username': 'mm"2', 'sasl_password_file': 'p'}, 'sasl_username must not contain quotes'),
    ({'bootstrap_servers': 'b:9092', 'security_protocol': 'SSL', 'ssl_keystore_password_file': '/etc/passwd'},
     'must name a file in /etc/kafka/connect/secrets'),
    ({'bootstrap_servers': 'b:9092', 'security_protocol': 'SSL', 'ssl_key_password_file': '../up.properties'},
     'must name a file in /etc/kafka/connect/secrets'),
    ({'bootstrap_servers': 'b:9092', 'client_config': {'max.poll.records': 10}},
     'client_config may only hold ssl.* and sasl.* connection settings'),
    ({'bootstrap_servers': 'b:9092', 'ssl_truststore_password_key': 'k'}, 'is set without ssl_truststore_password_file'),
    ({'bootstrap_servers': 'b:9092', 'security_protocol': 'SSL', 'ssl_truststore_src': 'files/ca.p12'},
     'ssl_truststore_src needs ssl_truststore_location'),
    ({'bootstrap_servers': 'b:9092', 'security_protocol': 'SSL', 'ssl_keystore_src': 'files/mm2.p12'},
     'ssl_keystore_src needs ssl_keystore_location'),
])
def test_bad_clusters_are_rejected(plan_errors: PlanErrors, lab_clusters: Dict[str, Any],
                                   cluster: Dict[str, Any], message: str) -> None:
    assert message in plan_errors(clusters=dict(lab_clusters, dst=cluster))


def test_alias_holding_the_separator_is_rejected(plan_errors: PlanErrors, lab_clusters: Dict[str, Any]) -> None:
    clusters = dict(lab_clusters, **{'us-west': {'bootstrap_servers': 'b:9092'}})
    flows = [{'source': 'us-west', 'target': 'dst', 'separator': '-'}]
    assert 'the source alias "us-west" contains the separator "-"' in plan_errors(clusters=clusters, flows=flows)


def test_bad_alias_is_rejected(plan_errors: PlanErrors, lab_clusters: Dict[str, Any]) -> None:
    clusters = dict(lab_clusters, **{'us.west': {'bootstrap_servers': 'b:9092'}})
    assert 'aliases may hold letters, digits' in plan_errors(clusters=clusters)


def test_bad_site_defaults_and_secret_file_names_are_rejected(plan_errors: PlanErrors) -> None:
    assert 'mm2_flow_defaults: unknown option(s) refresh_interval' in plan_errors(site_defaults={'refresh_interval': 5})
    assert 'file names must be plain names' in plan_errors(secret_file_names=['../x'])


def test_all_problems_are_reported_at_once(plan_errors: PlanErrors) -> None:
    text = plan_errors(flows=[{'source': 'src', 'target': 'src', 'replication_policy': 'x'},
                              {'source': 'src', 'target': 'nowhere'}])
    assert 'flow #1 (src -> src)' in text and 'flow #2 (src -> nowhere)' in text
    assert 'replication_policy' in text


def test_rejected_models_plan_no_cluster_settings(make_request: Callable[..., Dict[str, Any]]) -> None:
    result = plan(make_request(flows=[{'source': 'src', 'target': 'nowhere'}]))
    assert result['errors'] and result['clusters'] == {} and result['endpoints'] == []
