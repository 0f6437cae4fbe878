# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Module kafka_dr.mm2.kafka_broker_versions as Ansible runs it, against fake brokers on loopback
that answer ApiVersions as chosen Kafka releases, over TCP and TLS."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest
from fake_kafka_broker import FakeBroker, ThrowawayCa, answering_as, answering_bytes, closing, server_context

pytest.importorskip('cryptography')

SECRET = 'trust-p@ss=1'
CLIENT_FLOOR_WORDS = "the collection needs brokers at 2.1 or later (its 4.x clients' protocol floor)"


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


@pytest.fixture
def brokers() -> Iterator[Dict[str, FakeBroker]]:
    started = {release: FakeBroker(answering_as(release)).start() for release in ('2.0.0', '2.4.0', '2.8.0', '4.0.0')}
    yield started
    for broker in started.values():
        broker.stop()


@pytest.fixture(scope='module')
def pki(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Any]:
    directory = tmp_path_factory.mktemp('pki')
    ca = ThrowawayCa(directory, 'lab-ca')
    return {'directory': directory, 'ca': ca, 'broker': ca.issue('broker', ['localhost', '127.0.0.1'])}


def test_a_broker_below_the_floor_fails_the_task_naming_cluster_broker_release_and_floor(
        run_module: Any, brokers: Dict[str, FakeBroker]) -> None:
    old, new = brokers['2.0.0'], brokers['2.4.0']
    result = run_module('kafka_broker_versions', clusters=[
        {'alias': 'emr-src', 'bootstrap': [old.endpoint]},
        {'alias': 'dst', 'bootstrap': new.endpoint, 'security_protocol': 'SASL_PLAINTEXT'},
    ])
    assert result['failed'] is True and result['changed'] is False
    assert result['msg'] == ("cluster 'emr-src' (%s) answers as Kafka 2.0 (it lacks Produce v7, Fetch v10, ListOffsets v4, "
                             "Metadata v7, which 2.1 brought); %s" % (old.endpoint, CLIENT_FLOOR_WORDS))
    assert result['refused'] == [result['msg']] and result['floor'] == '2.1'
    assert result['clusters']['emr-src']['below_floor'] is True and result['clusters']['emr-src']['status'] == 'below_floor'
    assert result['clusters']['dst'] == dict(result['clusters']['dst'], endpoint=new.endpoint, at_least='2.4',
                                             below_floor=False, status='ok', reason='')


def test_clusters_at_or_above_the_floor_pass_in_check_mode_too(run_module: Any, brokers: Dict[str, FakeBroker]) -> None:
    result = run_module('kafka_broker_versions', check_mode=True, clusters=[
        {'alias': 'src', 'bootstrap': '127.0.0.1:%d,%s' % (closed_port(), brokers['2.8.0'].endpoint)},
        {'alias': 'dst', 'bootstrap': [brokers['4.0.0'].endpoint]},
    ])
    assert result.get('failed') is not True and result['changed'] is False, result
    assert {alias: (entry['endpoint'], entry['at_least']) for alias, entry in result['clusters'].items()} == {
        'src': (brokers['2.8.0'].endpoint, '2.8'), 'dst': (brokers['4.0.0'].endpoint, '4.0')}
    assert {'api_key': 1, 'min_version': 4, 'max_version': 17} in result['clusters']['dst']['api_versions']
    assert result['refused'] == [] and result['unknown'] == []
    # Each broker was asked once, with ApiVersions v0.
    assert [(request.api_key, request.api_version) for request in brokers['2.8.0'].requests] == [(18, 0)]


def test_a_higher_floor_is_named_as_given(run_module: Any, brokers: Dict[str, FakeBroker]) -> None:
    result = run_module('kafka_broker_versions', floor='3.0.2', clusters=[{'alias': 'src', 'bootstrap': [brokers['2.8.0'].endpoint]}])
    assert result['failed'] is True and result['floor'] == '3.0'
    assert result['msg'] == ("cluster 'src' (%s) answers as Kafka 2.8 (it lacks ListOffsets v7, which 3.0 brought); the "
                             "collection needs brokers at 3.0 or later (the floor given)" % brokers['2.8.0'].endpoint)


def test_a_floor_the_estimate_cannot_tell_is_refused(run_module: Any) -> None:
    result = run_module('kafka_broker_versions', floor='2.5', clusters=[{'alias': 'src', 'bootstrap': ['b:9092']}])
    assert result['failed'] is True and 'floor must be a release the estimate tells apart' in result['msg']
    assert '2.4, 2.7' in result['msg'] and "got '2.5'" in result['msg']


def test_clusters_that_cannot_be_asked_fail_the_task_each_named(run_module: Any) -> None:
    first, second = closed_port(), closed_port()
    with FakeBroker(closing()) as silent_one, FakeBroker(answering_bytes(b'HTTP/1.1 400 Bad Request\r\n\r\n')) as web:
        result = run_module('kafka_broker_versions', timeout=2, clusters=[
            {'alias': 'gone', 'bootstrap': ['127.0.0.1:%d' % first, '127.0.0.1:%d' % second]},
            {'alias': 'old', 'bootstrap': [silent_one.endpoint]},
            {'alias': 'web', 'bootstrap': [web.endpoint]},
            {'alias': 'typo', 'bootstrap': ['b-1;9092']},
        ])
    assert result['failed'] is True
    gone, old, web_reason, typo = result['refused']
    assert gone.startswith("cluster 'gone': ") and '127.0.0.1:%d' % first in gone and 'no bootstrap server takes a connection' in gone
    assert old.startswith("cluster 'old': %s: the broker closed the connection without answering" % silent_one.endpoint)
    assert web_reason.startswith("cluster 'web': %s: answered with something that is not Kafka: an HTTP answer" % web.endpoint)
    assert typo == "cluster 'typo': bootstrap entry 'b-1;9092' is not host:port"
    assert all(entry['status'] == 'error' and entry['at_least'] == 'unknown' for entry in result['clusters'].values())


def test_repeated_aliases_are_refused(run_module: Any) -> None:
    result = run_module('kafka_broker_versions', clusters=[{'alias': 'a', 'bootstrap': ['b:1']}, {'alias': 'a', 'bootstrap': ['c:1']}])
    assert result['failed'] is True and 'a repeated' in result['msg']


def test_tls_with_a_pem_ca_file_verifies_and_estimates(run_module: Any, pki: Dict[str, Any]) -> None:
    with FakeBroker(answering_as('2.4.0'), context=server_context(pki['broker'])) as broker:
        result = run_module('kafka_broker_versions', clusters=[
            {'alias': 'src', 'bootstrap': ['localhost:%d' % broker.port], 'security_protocol': 'SASL_SSL',
             'ssl_ca_file': str(pki['ca'].pem)},
            {'alias': 'pem-store', 'bootstrap': ['127.0.0.1:%d' % broker.port], 'security_protocol': 'SSL',
             'ssl_truststore_location': str(pki['ca'].pem), 'ssl_truststore_type': 'PEM'},
        ])
    assert result.get('failed') is not True, result
    assert [entry['at_least'] for entry in result['clusters'].values()] == ['2.4', '2.4']


def test_sasl_ssl_without_a_ca_that_verifies_is_unknown_not_a_failure(run_module: Any, pki: Dict[str, Any]) -> None:
    with FakeBroker(answering_as('2.0.0'), context=server_context(pki['broker'])) as broker:
        result = run_module('kafka_broker_versions', clusters=[
            {'alias': 'emr', 'bootstrap': [broker.endpoint], 'security_protocol': 'SASL_SSL'}])
    assert result.get('failed') is not True, result
    entry = result['clusters']['emr']
    assert entry['status'] == 'unknown' and entry['below_floor'] is False and entry['at_least'] == 'unknown'
    assert "cluster 'emr': the broker version was not checked: %s: the broker's certificate is not trusted" % broker.endpoint \
        in entry['reason']
    assert "this host's CAs were tried" in entry['reason']
    assert result['unknown'] == [entry['reason']] and json.dumps(entry['reason'])[1:-1] in json.dumps(result['warnings'])


def test_a_given_ca_that_does_not_verify_the_broker_fails(run_module: Any, pki: Dict[str, Any], tmp_path: Path) -> None:
    other = ThrowawayCa(tmp_path, 'other-ca')
    with FakeBroker(answering_as('2.4.0'), context=server_context(pki['broker'])) as broker:
        result = run_module('kafka_broker_versions', clusters=[
            {'alias': 'src', 'bootstrap': [broker.endpoint], 'security_protocol': 'SSL', 'ssl_ca_file': str(other.pem)}])
    assert result['failed'] is True
    assert result['msg'].startswith("cluster 'src': %s: the broker's certificate is not trusted" % broker.endpoint)


def keytool_store(directory: Path, ca_pem: Path, store_type: str) -> Path:
    store = directory / ('truststore.%s' % store_type.lower())
    subprocess.run(['keytool', '-importcert', '-noprompt', '-alias', 'lab-ca', '-file', str(ca_pem), '-keystore', str(store),
                    '-storetype', store_type, '-storepass', SECRET], check=True, capture_output=True)
    return store


@pytest.mark.skipif(not shutil.which('keytool'), reason='needs keytool')
@pytest.mark.parametrize('store_type', ['JKS', 'PKCS12'])
def test_a_java_trust_store_is_read_with_keytool_and_its_password_placeholder(
        run_module: Any, pki: Dict[str, Any], tmp_path: Path, store_type: str) -> None:
    store = keytool_store(tmp_path, pki['ca'].pem, store_type)
    secrets = tmp_path / 'src.properties'
    secrets.write_text('ssl.truststore.password=%s\n' % SECRET.replace('=', '\\='))
    placeholder = '${file:%s:ssl.truststore.password}' % secrets
    with FakeBroker(answering_as('2.0.0'), context=server_context(pki['broker'])) as broker:
        result = run_module('kafka_broker_versions', clusters=[
            {'alias': 'emr-src', 'bootstrap': ['localhost:%d' % broker.port], 'security_protocol': 'SASL_SSL',
             'ssl_truststore_location': str(store), 'ssl_truststore_type': store_type, 'ssl_truststore_password': placeholder}])
    # The store's CA verified the broker, so its release is known: below the floor.
    assert result['failed'] is True, result
    assert result['msg'].startswith("cluster 'emr-src' (localhost:%d) answers as Kafka 2.0" % broker.port)
    assert CLIENT_FLOOR_WORDS in result['msg']
    assert SECRET not in json.dumps(result)


@pytest.mark.skipif(not shutil.which('keytool'), reason='needs keytool')
def test_a_trust_store_that_does_not_open_is_unknown(run_module: Any, pki: Dict[str, Any], tmp_path: Path) -> None:
    store = keytool_store(tmp_path, pki['ca'].pem, 'PKCS12')
    with FakeBroker(answering_as('2.4.0'), context=server_context(pki['broker'])) as broker:
        result = run_module('kafka_broker_versions', clusters=[
            {'alias': 'src', 'bootstrap': [broker.endpoint], 'security_protocol': 'SSL', 'ssl_truststore_location': str(store),
             'ssl_truststore_type': 'PKCS12', 'ssl_truststore_password': 'not-the-password'},
            {'alias': 'dst', 'bootstrap': [broker.endpoint], 'security_protocol': 'SSL', 'ssl_truststore_location': str(store),
             'ssl_truststore_password': '${file:%s:nope}' % (tmp_path / 'absent.properties')}])
    assert result.get('failed') is not True, result
    src, dst = result['clusters']['src'], result['clusters']['dst']
    assert src['status'] == dst['status'] == 'unknown'
    assert src['reason'].startswith("cluster 'src': the broker version was not checked: trust store %s cannot be read: keytool error" % store)
    assert "the trust store's password cannot be read: cannot read secret file" in dst['reason']
    assert broker.requests == []


def test_a_listener_that_wants_a_client_certificate_is_unknown_without_one_and_judged_with_one(
        run_module: Any, pki: Dict[str, Any]) -> None:
    client = pki['ca'].issue('mm2-client', client=True)
    combined = pki['directory'] / 'mm2-client-with-key.pem'
    combined.write_text(client.certificate.read_text() + client.key.read_text())
    context = server_context(pki['broker'], client_ca=pki['ca'].pem)
    with FakeBroker(answering_as('2.4.0'), context=context) as broker:
        result = run_module('kafka_broker_versions', clusters=[
            {'alias': 'without', 'bootstrap': [broker.endpoint], 'security_protocol': 'SSL', 'ssl_ca_file': str(pki['ca'].pem)},
            {'alias': 'with', 'bootstrap': [broker.endpoint], 'security_protocol': 'SSL', 'ssl_ca_file': str(pki['ca'].pem),
             'ssl_certfile': str(combined)}])
    assert result.get('failed') is not True, result
    assert result['clusters']['without']['status'] == 'unknown'
    assert 'client certificate' in result['clusters']['without']['reason']
    assert result['clusters']['with']['at_least'] == '2.4'
