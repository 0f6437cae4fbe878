# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A dedicated-mode mm2.properties converted into the model (plugin_utils.mm2_dedicated): the reference
guides' examples (fixtures/mm2_dedicated_*.properties, their text as the guides print it), what
the model plans from the result, secrets kept out of it, and every refusal naming line and key."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any, Callable, Dict

import pytest

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_dedicated import dedicated_secret_files, from_dedicated

FIXTURES = Path(__file__).resolve().parent / 'fixtures'
ONE_WAY = (FIXTURES / 'mm2_dedicated_one_way.properties').read_text(encoding='utf-8')
HDINSIGHT = (FIXTURES / 'mm2_dedicated_hdinsight.properties').read_text(encoding='utf-8')
PlanOk = Callable[..., Dict[str, Any]]


def properties(text: str) -> str:
    return textwrap.dedent(text).lstrip('\n')


def refusal(text: str) -> str:
    with pytest.raises(ValueError) as caught:
        from_dedicated(text)
    return str(caught.value)


MINIMAL = properties('''
    clusters = a, b
    a.bootstrap.servers = a-1:9092
    b.bootstrap.servers = b-1:9092
    a->b.enabled = true
''')


# ---- the guides' examples -------------------------------------------------------------------

def test_the_one_way_guide_example_converts() -> None:
    model = from_dedicated(ONE_WAY)
    assert model['mm2_clusters'] == {
        'src': {'bootstrap_servers': ['SRC_BROKERS:9092'], 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'PLAIN',
                'sasl_username': 'user', 'sasl_password_file': 'src.properties'},
        'dst': {'bootstrap_servers': ['DST_BROKERS:9092'], 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'PLAIN',
                'sasl_username': 'user', 'sasl_password_file': 'dst.properties'},
    }
    assert model['mm2_flows'] == [{
        'source': 'src', 'target': 'dst', 'topics': ['orders|payments|users'], 'replication_policy': 'default',
        'tasks_max': {'source': 4, 'checkpoint': 4}, 'replication_factor': 3, 'internal_topic_replication_factor': 3,
        'sync_topic_configs': True, 'sync_group_offsets': True, 'emit_heartbeats': True,
        'refresh_topics_interval_seconds': 60, 'refresh_groups_interval_seconds': 60,
    }]
    assert model['secrets'] == [
        {'cluster': 'src', 'setting': 'sasl.jaas.config password', 'file': 'src.properties', 'key': 'sasl.password',
         'line': 35, 'provided': False},
        {'cluster': 'dst', 'setting': 'sasl.jaas.config password', 'file': 'dst.properties', 'key': 'sasl.password',
         'line': 39, 'provided': False},
    ]
    assert model['unmapped'] == []
    # The guide secures only src's consumer and dst's producer; the model has one connection per cluster.
    assert model['notes'][0].startswith("lines 33, 34, 35: the consumer client's security.protocol, sasl.mechanism, "
                                        'sasl.jaas.config became the connection of cluster src')
    assert model['notes'][1].startswith('lines 37, 38, 39: the producer client')


def test_the_one_way_model_plans_cleanly_with_the_role_defaults(plan_ok: PlanOk) -> None:
    model = from_dedicated(ONE_WAY)
    result = plan_ok(clusters=model['mm2_clusters'], flows=model['mm2_flows'], secret_file_names=['src.properties', 'dst.properties'])
    configs = {connector['kind']: connector['config'] for connector in result['connectors']}
    assert result['desired_names'] == ['mm2-src-dst-source', 'mm2-src-dst-checkpoint', 'mm2-src-dst-heartbeat']
    source = configs['source']
    assert source['topics'] == 'orders|payments|users'
    assert source['tasks.max'] == '4' and configs['checkpoint']['tasks.max'] == '4'
    assert source['replication.factor'] == '3' and source['offset-syncs.topic.replication.factor'] == '3'
    assert configs['checkpoint']['checkpoints.topic.replication.factor'] == '3'
    assert configs['heartbeat']['heartbeats.topic.replication.factor'] == '3'
    assert source['source.cluster.sasl.jaas.config'] == (
        'org.apache.kafka.common.security.plain.PlainLoginModule required username="user" '
        'password="${file:/etc/kafka/connect/secrets/src.properties:sasl.password}";')
    assert source['producer.override.sasl.jaas.config'].endswith('dst.properties:sasl.password}";')


def test_no_secret_value_leaves_the_converter() -> None:
    assert '"pass"' not in json.dumps(from_dedicated(ONE_WAY))
    assert dedicated_secret_files(ONE_WAY) == {'dst.properties': {'sasl.password': 'pass'}, 'src.properties': {'sasl.password': 'pass'}}


def test_the_hdinsight_guide_example_is_refused_for_its_empty_bootstrap_servers() -> None:
    message = refusal(HDINSIGHT)
    assert message.startswith('the mm2.properties cannot be converted (2 problems):')
    assert '- line 7: source.bootstrap.servers: names no host:port (fill in the brokers of cluster source)' in message
    assert '- line 8: destination.bootstrap.servers: names no host:port (fill in the brokers of cluster destination)' in message


def test_the_hdinsight_guide_example_converts_once_its_brokers_are_filled_in(plan_ok: PlanOk) -> None:
    text = HDINSIGHT.replace('source.bootstrap.servers =,,', 'source.bootstrap.servers =hn0-src:9092,hn1-src:9092')
    text = text.replace('destination.bootstrap.servers =,,', 'destination.bootstrap.servers = hn0-dst:9092, hn1-dst:9092')
    model = from_dedicated(text)
    assert model['mm2_clusters'] == {'source': {'bootstrap_servers': ['hn0-src:9092', 'hn1-src:9092']},
                                     'destination': {'bootstrap_servers': ['hn0-dst:9092', 'hn1-dst:9092']}}
    assert model['mm2_flows'] == [{'source': 'source', 'target': 'destination', 'topics': ['toa.evehicles-latest-dev']}]
    assert model['secrets'] == [] and model['unmapped'] == [] and model['notes'] == []
    plan_ok(clusters=model['mm2_clusters'], flows=model['mm2_flows'])


# ---- mapping ----------------------------------------------------------------------------

def test_flow_settings_and_top_level_defaults() -> None:
    # A backslash escapes in a properties file: a regular expression's \. is written \\. there.
    model = from_dedicated(MINIMAL + properties(r'''
        b->a.enabled = true
        topics = orders\\..*, payments\\..*
        topics.blacklist = .*\\.internal
        groups.exclude = console-consumer-.*
        sync.group.offsets.enabled = false
        emit.checkpoints.interval.seconds = 20
        replication.policy.separator = _
        a->b.topics = orders\\..*
        a->b.replication.policy.class = org.apache.kafka.connect.mirror.IdentityReplicationPolicy
        a->b.config.properties.blacklist = retention\\..*, message\\.timestamp\\.type
        a->b.offset-syncs.topic.location = target
        a->b.checkpoints.topic.replication.factor = 2
        a->b.consumer.max.poll.records = 1000
        a->b.admin.timeout.ms = 120000
        a->b.topic.filter.class = com.example.TenantFilter
    '''))
    a_to_b, b_to_a = model['mm2_flows']
    assert a_to_b == {
        'source': 'a', 'target': 'b', 'topics': ['orders\\..*'], 'topics_exclude': ['.*\\.internal'],
        'groups_exclude': ['console-consumer-.*'], 'replication_policy': 'identity', 'separator': '_',
        'sync_group_offsets': False, 'emit_checkpoints_interval_seconds': 20,
        'sync_topic_configs_exclude': ['retention\\..*', 'message\\.timestamp\\.type'], 'offset_syncs_topic_location': 'target',
        'checkpoints_topic_replication_factor': 2, 'admin_timeout_ms': 120000, 'topic_filter_class': 'com.example.TenantFilter',
        'consumer': {'max.poll.records': '1000'},
    }
    assert b_to_a == {'source': 'b', 'target': 'a', 'topics': ['orders\\..*', 'payments\\..*'], 'topics_exclude': ['.*\\.internal'],
                      'groups_exclude': ['console-consumer-.*'], 'separator': '_', 'sync_group_offsets': False,
                      'emit_checkpoints_interval_seconds': 20}


def test_client_tuning_goes_to_the_flows_that_use_the_client() -> None:
    model = from_dedicated(MINIMAL + properties('''
        a.consumer.fetch.max.bytes = 52428800
        b.producer.linger.ms = 50
        b.producer.compression.type = zstd
    '''))
    flow = model['mm2_flows'][0]
    assert flow['consumer'] == {'fetch.max.bytes': '52428800'}
    assert flow['producer'] == {'linger.ms': '50', 'compression.type': 'zstd'}


def test_settings_without_an_option_go_to_extra_config_of_their_connectors() -> None:
    model = from_dedicated(MINIMAL + properties('''
        emit.offset-syncs.enabled = false
        replication.policy.internal.topic.separator.enabled = false
        a->b.replication.policy.class = com.example.PrefixPolicy
    '''))
    extra = model['mm2_flows'][0]['extra_config']
    assert extra['source'] == {'emit.offset-syncs.enabled': 'false', 'replication.policy.internal.topic.separator.enabled': 'false',
                               'replication.policy.class': 'com.example.PrefixPolicy'}
    assert extra['checkpoint'] == extra['heartbeat'] == {'replication.policy.internal.topic.separator.enabled': 'false',
                                                         'replication.policy.class': 'com.example.PrefixPolicy'}
    assert 'custom replication policy com.example.PrefixPolicy' in model['notes'][0]


def test_unequal_internal_topic_factors_stay_per_topic() -> None:
    flow = from_dedicated(MINIMAL + 'heartbeats.topic.replication.factor = 3\ncheckpoints.topic.replication.factor = -1\n')['mm2_flows'][0]
    assert flow['heartbeats_topic_replication_factor'] == 3 and flow['checkpoints_topic_replication_factor'] == -1
    assert 'internal_topic_replication_factor' not in flow


def test_tls_and_top_level_security_with_secret_references() -> None:
    model = from_dedicated(MINIMAL + properties('''
        security.protocol = SSL
        ssl.truststore.location = /etc/mm2/truststore.jks
        ssl.truststore.password = trust-secret
        b.ssl.truststore.password = ${file:/etc/kafka/connect/secrets/b.properties:truststore}
        b.ssl.keystore.location = /etc/mm2/b-keystore.p12
        b.ssl.keystore.type = PKCS12
        b.ssl.keystore.password = keystore-secret
        b.ssl.key.password = key-secret
        b.ssl.enabled.protocols = TLSv1.3
    '''))
    assert model['mm2_clusters']['a'] == {'bootstrap_servers': ['a-1:9092'], 'security_protocol': 'SSL',
                                          'ssl_truststore_location': '/etc/mm2/truststore.jks',
                                          'ssl_truststore_password_file': 'a.properties'}
    b = model['mm2_clusters']['b']
    assert b['ssl_truststore_password_file'] == '/etc/kafka/connect/secrets/b.properties'
    assert b['ssl_truststore_password_key'] == 'truststore'
    assert (b['ssl_keystore_password_file'], b['ssl_key_password_file'], b['ssl_keystore_type']) == ('b.properties', 'b.properties', 'PKCS12')
    assert b['client_config'] == {'ssl.enabled.protocols': 'TLSv1.3'}
    provided = [secret for secret in model['secrets'] if secret['provided']]
    assert provided == [{'cluster': 'b', 'setting': 'ssl.truststore.password', 'file': '/etc/kafka/connect/secrets/b.properties',
                         'key': 'truststore', 'line': 8, 'provided': True}]
    assert '-secret' not in json.dumps(model)
    assert dedicated_secret_files(MINIMAL + properties('''
        security.protocol = SSL
        ssl.truststore.password = trust-secret
        b.ssl.key.password = key-secret
    ''')) == {'a.properties': {'ssl.truststore.password': 'trust-secret'},
              'b.properties': {'ssl.key.password': 'key-secret', 'ssl.truststore.password': 'trust-secret'}}


def test_other_logins_become_a_jaas_reference_or_a_keytab() -> None:
    model = from_dedicated(MINIMAL + properties(r'''
        a.security.protocol = SASL_SSL
        a.sasl.mechanism = OAUTHBEARER
        a.sasl.jaas.config = org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \
            clientId="mm2" clientSecret="s3cr\\\"et";
        b.security.protocol = SASL_PLAINTEXT
        b.sasl.mechanism = GSSAPI
        b.sasl.kerberos.service.name = kafka
        b.sasl.jaas.config = com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true \
            keyTab="/etc/security/keytabs/mm2.keytab" principal="mm2/task-1@EXAMPLE.COM";
    '''))
    a, b = model['mm2_clusters']['a'], model['mm2_clusters']['b']
    assert a['sasl_jaas_config_file'] == 'a.properties' and 'sasl_jaas_config_key' not in a
    assert (b['sasl_kerberos_principal'], b['sasl_kerberos_keytab_file'], b['sasl_kerberos_service_name']) == (
        'mm2/task-1@EXAMPLE.COM', 'mm2.keytab', 'kafka')
    assert 'line 12: install the keytab /etc/security/keytabs/mm2.keytab on the workers as mm2.keytab' in model['notes'][0]
    assert 's3cr' not in json.dumps(model)
    secret = dedicated_secret_files(MINIMAL + properties(r'''
        a.security.protocol = SASL_SSL
        a.sasl.mechanism = SCRAM-SHA-512
        a.sasl.jaas.config = org.apache.kafka.common.security.scram.ScramLoginModule required username="mm2" password="p\\\"w\\\\d";
    '''))
    # The properties file reads p\"w\\d into the JAAS line, and Kafka's JAAS parser the password below
    # (the role escapes it again when it writes the secret file).
    assert secret == {'a.properties': {'sasl.password': 'p"w\\d'}}


def test_worker_settings_and_disabled_flows_are_not_carried_over() -> None:
    model = from_dedicated(MINIMAL + properties('''
        config.storage.replication.factor = 3
        key.converter = org.apache.kafka.connect.converters.ByteArrayConverter
        dedicated.mode.enable.internal.rest = true
        b.offset.storage.replication.factor = 3
        b->a.enabled = false
        b->a.topics = x
    '''))
    assert [(item['line'], item['key']) for item in model['unmapped']] == [
        (5, 'config.storage.replication.factor'), (6, 'key.converter'), (7, 'dedicated.mode.enable.internal.rest'),
        (8, 'b.offset.storage.replication.factor'), (9, 'b->a.enabled'), (10, 'b->a.topics')]
    assert 'ByteArrayConverter' in model['unmapped'][1]['reason']
    assert 'role connect_worker' in model['unmapped'][0]['reason']
    assert model['unmapped'][5]['reason'] == 'flow b->a is not enabled (no b->a.enabled = true): no flow'
    assert len(model['mm2_flows']) == 1


def test_a_backslash_the_properties_file_ate_is_a_note() -> None:
    model = from_dedicated(MINIMAL + properties(r'''
        a->b.topics = orders\..*
        topics.exclude = tmp\\..*
        groups.exclude = test\.*
        a.sasl.jaas.config = org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p\w";
    '''))
    assert model['mm2_flows'][0]['topics'] == ['orders..*'] and model['mm2_flows'][0]['topics_exclude'] == ['tmp\\..*']
    assert [note.split(':')[0] for note in model['notes']] == ['line 5', 'line 7']
    assert model['notes'][0] == ("line 5: a->b.topics: MM2 read 'orders..*', as Java reads a properties file: a backslash there "
                                 "escapes the next character (a regular expression's \\. is written \\\\. in it)")


def test_java_properties_syntax_and_line_numbers() -> None:
    text = properties(r'''
        # comment
        ! another comment
        clusters : a, \
                   b
        a.bootstrap.servers   a-1:9092
        b.bootstrap.servers=b-1:9092
        a->b.enabled=TRUE
        a->b.topics=caf\u00e9\\..*
        a->b.no.such.setting=1
    ''')
    assert 'line 9: a->b.no.such.setting: not a MirrorMaker 2 connector setting' in refusal(text)
    model = from_dedicated(text.replace('a->b.no.such.setting=1\n', ''))
    assert model['mm2_flows'] == [{'source': 'a', 'target': 'b', 'topics': ['caf\u00e9\\..*']}]


# ---- refusals ---------------------------------------------------------------------------

@pytest.mark.parametrize(('extra', 'message'), [
    ('a->c.enabled = true\n', 'line 5: a->c.enabled: names the cluster alias c, which "clusters" (line 1) does not list (a, b)'),
    ('x->y.topics = .*\n', 'line 5: x->y.topics: names the cluster alias x and y, which "clusters" (line 1) does not list'),
    ('a->a.enabled = true\n', 'line 5: a->a.enabled: a flow replicates between two clusters'),
    ('tasks.max = many\n', "line 5: tasks.max: must be a whole number >= 1, got 'many'"),
    ('replication.factor = 0\n', "line 5: replication.factor: must be -1 (the broker default) or a whole number >= 1, got '0'"),
    ('emit.heartbeats.enabled = yes\n', "line 5: emit.heartbeats.enabled: must be true or false, got 'yes'"),
    ('topics.exclude = x\ntopics.blacklist = y\n', 'line 6: topics.blacklist: sets topics_exclude like line 5 (topics.exclude); keep one'),
    ('readahead.queue.capacity = 500\n', "line 5: readahead.queue.capacity: not a setting of MirrorMaker 2's dedicated mode"),
    ('a.admin.request.timeout.ms = 1000\n', 'line 5: a.admin.request.timeout.ms: admin client tuning has no place in the model'),
    ('a.max.poll.records = 5\n', 'line 5: a.max.poll.records: not a client setting of cluster a that the model can take'),
    ('a.security.protocol = SSL\na.consumer.security.protocol = SASL_SSL\n',
     'line 6: a.consumer.security.protocol: differs from line 5 (a.security.protocol): the model has one connection per cluster'),
    ('a.security.protocol = TLS\n', "line 5: a.security.protocol: must be one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL, got 'TLS'"),
    ('a.sasl.client.secret.value = x\n', 'line 5: a.sasl.client.secret.value: holds a secret the model takes only by reference'),
    ('a.ssl.truststore.password = ${env:TRUST}\n', 'line 5: a.ssl.truststore.password: reads its secret from a config provider other than file'),
    ('a->b.producer.acks = all\n', 'line 5: a->b.producer.acks: not a MirrorMaker 2 connector setting the model can take for a flow'),
    ('a->b.topics = x\na->b.topics = y\n', 'line 6: a->b.topics: repeats line 5 (Java keeps the last one silently); keep one'),
    ('a.bootstrap.servers = a-1;a-2\n', 'line 5: a.bootstrap.servers: repeats line 2'),
])
def test_what_cannot_be_mapped_is_refused_naming_line_and_key(extra: str, message: str) -> None:
    assert message in refusal(MINIMAL + extra)


@pytest.mark.parametrize(('text', 'message'), [
    ('a.bootstrap.servers = a:1\n', 'no "clusters" line'),
    ('clusters = a\na.bootstrap.servers = a:1\n', 'line 1: clusters: names 1 cluster(s); a flow needs two'),
    ('clusters = a, b.c\n', "line 1: clusters: alias 'b.c' may hold letters"),
    ('clusters = a, b\na.bootstrap.servers = a:1\na->b.enabled = true\n', 'line 1: clusters: cluster b has no b.bootstrap.servers'),
    ('clusters = a, b\na.bootstrap.servers = a:1\nb.bootstrap.servers = b;1\na->b.enabled = true\n',
     'line 3: b.bootstrap.servers: entries must be host:port: b;1'),
    ('clusters = a, b\na.bootstrap.servers = a:1\nb.bootstrap.servers = b:1\n', 'line 1: clusters: no flow is enabled'),
])
def test_a_file_without_what_a_flow_needs_is_refused(text: str, message: str) -> None:
    assert message in refusal(text)


def test_every_problem_is_listed_at_once() -> None:
    message = refusal(MINIMAL + 'a->c.enabled = true\ntasks.max = 0\nfoo = bar\n')
    assert message.startswith('the mm2.properties cannot be converted (3 problems):')
