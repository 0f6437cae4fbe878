# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ApiVersions client against a fake broker on loopback: the request it writes, the release
it estimates from real releases' answers, each way an answer can fail, and TLS with a CA, a
host name, and a client certificate, all made for the test."""

from __future__ import annotations

import socket
import ssl
import struct
from pathlib import Path
from typing import Iterator

import pytest
from fake_kafka_broker import (
    APACHE_MAX_VERSIONS,
    FakeBroker,
    ThrowawayCa,
    answering_as,
    answering_bytes,
    api_versions_response,
    closing,
    server_context,
)

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_api_versions import (
    CLIENT_ID,
    RELEASES,
    ApiVersion,
    NoAnswerError,
    NotKafkaError,
    TlsError,
    TlsSettings,
    UnreachableError,
    encode_request,
    estimate_release,
    is_below,
    known_release,
    missing_for,
    parse_endpoint,
    parse_response,
    probe,
    probe_first,
)

pytest.importorskip('cryptography')


def versions_of(release: str) -> list:
    return [ApiVersion(key, 0, version) for key, version in APACHE_MAX_VERSIONS[release].items()]


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize('release, expected', [
    ('0.10.2.0', '0.10.1'),  # 0.10.2 added none of the four APIs' versions
    ('1.1.0', '1.1'),
    ('2.0.0', '2.0'),
    ('2.1.0', '2.1'),
    ('2.4.0', '2.4'),
    ('2.6.0', '2.4'),  # nor did 2.5 and 2.6
    ('2.8.0', '2.8'),
    ('3.6.0', '3.5'),
    ('3.9.0', '3.9'),
    ('4.0.0', '4.0'),
])
def test_each_release_is_estimated_from_what_its_brokers_advertise(release: str, expected: str) -> None:
    assert estimate_release(versions_of(release)) == expected


def test_a_broker_is_only_as_new_as_the_oldest_api_it_keeps_up_with() -> None:
    # Fetch of 3.9, Produce of 2.0: every version up to a release must be there.
    mixed = [ApiVersion(0, 0, 6), ApiVersion(1, 0, 17), ApiVersion(2, 0, 9), ApiVersion(3, 0, 12), ApiVersion(18, 0, 3)]
    assert estimate_release(mixed) == '2.0'
    assert missing_for(mixed, '2.1') == ['Produce v7']
    assert missing_for(versions_of('2.0.0'), '2.1') == ['Produce v7', 'Fetch v10', 'ListOffsets v4', 'Metadata v7']


def test_floors_compare_as_releases_and_name_known_releases_only() -> None:
    assert is_below('2.0', '2.1') and is_below('0.11.0', '2.1') and is_below('2.4', '3.0')
    assert not is_below('2.1', '2.1') and not is_below('4.0', '2.1') and not is_below('2.10', '2.9')
    assert known_release('2.1') == '2.1' and known_release('2.4.1') == '2.4' and known_release('0.11.0.3') == '0.11.0'
    assert known_release('2.5') is None and known_release('two') is None and known_release('0.10.2') is None
    assert RELEASES[0] == '0.10.0' and list(RELEASES) == sorted(RELEASES, key=lambda r: tuple(map(int, r.split('.'))))


def test_the_request_is_api_versions_v0_with_a_client_id() -> None:
    request = encode_request(7)
    assert struct.unpack('>i', request[:4]) == (len(request) - 4,)
    assert struct.unpack('>hhih', request[4:14]) == (18, 0, 7, len(CLIENT_ID))
    assert request[14:].decode() == CLIENT_ID


def test_a_fake_broker_of_2_0_answers_as_2_0_over_tcp() -> None:
    with FakeBroker(answering_as('2.0.0')) as broker:
        answer = probe('127.0.0.1', broker.port, correlation_id=42)
    (header,) = broker.requests
    assert (header.api_key, header.api_version, header.correlation_id, header.client_id) == (18, 0, 42, CLIENT_ID)
    assert answer.endpoint == broker.endpoint and answer.error_code == 0
    assert answer.at_least == '2.0' and answer.max_version(1) == 8 and answer.max_version(99) == -1
    assert {'api_key': 18, 'min_version': 0, 'max_version': 2} in answer.as_dict()['api_versions']


def test_kafka_4_answers_with_its_raised_minimum_versions() -> None:
    with FakeBroker(answering_as('4.0.0')) as broker:
        answer = probe('127.0.0.1', broker.port)
    assert answer.at_least == '4.0'
    assert ApiVersion(1, 4, 17) in answer.api_versions


def test_the_first_bootstrap_server_that_takes_a_connection_answers() -> None:
    refused = closed_port()
    with FakeBroker(answering_as('3.9.0')) as broker:
        answer = probe_first([('127.0.0.1', refused), ('127.0.0.1', broker.port)], timeout=2)
    assert answer.endpoint == broker.endpoint and answer.at_least == '3.9'


def test_no_bootstrap_server_to_connect_to_names_each_endpoint() -> None:
    first, second = closed_port(), closed_port()
    with pytest.raises(UnreachableError) as raised:
        probe_first([('127.0.0.1', first), ('127.0.0.1', second)], timeout=2)
    assert '127.0.0.1:%d' % first in str(raised.value) and '127.0.0.1:%d' % second in str(raised.value)
    assert 'no connection' in str(raised.value)


def test_a_name_that_does_not_resolve_is_unreachable() -> None:
    with pytest.raises(UnreachableError) as raised:
        probe('broker.invalid', 9092, timeout=2)
    assert raised.value.endpoint == 'broker.invalid:9092' and 'does not resolve' in str(raised.value)


def test_a_broker_that_closes_without_answering_is_named() -> None:
    with FakeBroker(closing()) as broker:
        with pytest.raises(NoAnswerError) as raised:
            probe('127.0.0.1', broker.port, timeout=2)
    assert str(raised.value).startswith(broker.endpoint + ': the broker closed the connection without answering')
    assert 'older than Kafka 0.10' in str(raised.value)


def test_a_broker_that_keeps_silent_times_out() -> None:
    with FakeBroker(closing(), silent=True) as broker:
        with pytest.raises(NoAnswerError) as raised:
            probe('127.0.0.1', broker.port, timeout=0.5)
    assert 'no answer within 0.5 s' in str(raised.value)


@pytest.mark.parametrize('data, words', [
    (b'HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n', 'an HTTP answer'),
    (b'\x15\x03\x03\x00\x02\x02\x50', 'this listener speaks TLS'),
    (b'SSH-2.0-OpenSSH_9.2\r\n', 'SSH'),
    (b'\x00\x00', 'then closed the connection'),
])
def test_an_answer_that_is_not_kafka_says_what_it_looks_like(data: bytes, words: str) -> None:
    with FakeBroker(answering_bytes(data)) as broker:
        with pytest.raises(NotKafkaError) as raised:
            probe('127.0.0.1', broker.port, timeout=2)
    assert raised.value.endpoint == broker.endpoint and words in str(raised.value)


def test_a_kafka_shaped_answer_is_still_checked() -> None:
    right = api_versions_response(1, '2.4.0')
    with FakeBroker(answering_bytes(api_versions_response(9, '2.4.0'))) as broker:
        with pytest.raises(NotKafkaError, match='correlation id 9, not the request\'s 1'):
            probe('127.0.0.1', broker.port, timeout=2)
    with FakeBroker(answering_bytes(right[:-3])) as broker:
        with pytest.raises(NotKafkaError, match='closed the connection after'):
            probe('127.0.0.1', broker.port, timeout=2)
    with FakeBroker(answering_bytes(api_versions_response(1, '2.4.0', error_code=35))) as broker:
        with pytest.raises(NotKafkaError, match='error code 35'):
            probe('127.0.0.1', broker.port, timeout=2)
    without_itself = struct.pack('>ihi', 1, 0, 1) + struct.pack('>hhh', 0, 0, 8)
    with pytest.raises(ValueError, match='does not list ApiVersions'):
        parse_response(without_itself, 1)
    with pytest.raises(ValueError, match='claims 5 API entries'):
        parse_response(struct.pack('>ihi', 1, 0, 5) + struct.pack('>hhh', 18, 0, 3), 1)


def test_bootstrap_entries_are_host_and_port() -> None:
    assert parse_endpoint(' b-1.kafka:9092 ') == ('b-1.kafka', 9092)
    assert parse_endpoint('[fd00::1]:9094') == ('fd00::1', 9094)
    for wrong in ('b-1', 'b-1:', ':9092', 'b-1:99999'):
        with pytest.raises(ValueError, match='is not host:port'):
            parse_endpoint(wrong)


# ---- TLS -------------------------------------------------------------------------------------------

@pytest.fixture(scope='module')
def pki(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    directory = tmp_path_factory.mktemp('pki')
    ca = ThrowawayCa(directory, 'lab-ca')
    other = ThrowawayCa(directory, 'other-ca')
    yield {
        'ca': ca, 'other': other,
        'broker': ca.issue('broker', ['localhost', '127.0.0.1']),
        'misnamed': ca.issue('misnamed', ['broker-9.example']),
        'client': ca.issue('mm2-client', client=True),
    }


def test_tls_with_the_ca_file_verifies_the_broker_and_its_name(pki: dict) -> None:
    with FakeBroker(answering_as('2.8.0'), context=server_context(pki['broker'])) as broker:
        by_file = probe('127.0.0.1', broker.port, TlsSettings(ca_file=str(pki['ca'].pem)), timeout=5)
        by_text = probe('localhost', broker.port, TlsSettings(ca_pem=pki['ca'].pem.read_text()), timeout=5)
    assert by_file.at_least == by_text.at_least == '2.8'


def test_tls_refuses_a_broker_of_another_ca(pki: dict) -> None:
    with FakeBroker(answering_as('2.8.0'), context=server_context(pki['broker'])) as broker:
        with pytest.raises(TlsError) as raised:
            probe('127.0.0.1', broker.port, TlsSettings(ca_file=str(pki['other'].pem)), timeout=5)
        with pytest.raises(TlsError) as own_cas:
            probe('127.0.0.1', broker.port, TlsSettings(), timeout=5)
    assert raised.value.cause == own_cas.value.cause == 'verify'
    assert str(raised.value).startswith(broker.endpoint + ': the broker\'s certificate is not trusted')


def test_tls_checks_the_name_unless_told_not_to(pki: dict) -> None:
    with FakeBroker(answering_as('3.9.0'), context=server_context(pki['misnamed'])) as broker:
        with pytest.raises(TlsError) as raised:
            probe('127.0.0.1', broker.port, TlsSettings(ca_file=str(pki['ca'].pem)), timeout=5)
        unchecked = probe('127.0.0.1', broker.port, TlsSettings(ca_file=str(pki['ca'].pem), check_hostname=False), timeout=5)
    assert raised.value.cause == 'verify' and '127.0.0.1' in str(raised.value)
    assert unchecked.at_least == '3.9'


@pytest.mark.parametrize('tls_1_2', [False, True], ids=['TLS 1.3', 'TLS 1.2'])
def test_a_listener_that_asks_for_a_client_certificate_gets_one(pki: dict, tls_1_2: bool) -> None:
    # TLS 1.2 ends the handshake with an alert; TLS 1.3 ends the connection at the first request.
    context = server_context(pki['broker'], client_ca=pki['ca'].pem)
    if tls_1_2:
        context.maximum_version = ssl.TLSVersion.TLSv1_2
    with FakeBroker(answering_as('2.4.0'), context=context) as broker:
        with pytest.raises(TlsError) as raised:
            probe('127.0.0.1', broker.port, TlsSettings(ca_file=str(pki['ca'].pem)), timeout=5)
        client = pki['client']
        answer = probe('127.0.0.1', broker.port, TlsSettings(ca_file=str(pki['ca'].pem), certfile=str(client.certificate),
                                                             keyfile=str(client.key)), timeout=5)
    assert raised.value.cause == 'client_certificate' and 'asks for a client certificate' in str(raised.value)
    assert answer.at_least == '2.4'


def test_a_ca_file_that_does_not_load_is_a_setup_failure(tmp_path: Path) -> None:
    with FakeBroker(answering_as('2.4.0')) as broker:
        with pytest.raises(TlsError) as raised:
            probe('127.0.0.1', broker.port, TlsSettings(ca_file=str(tmp_path / 'absent.pem')), timeout=2)
    assert raised.value.cause == 'setup'


def test_tls_spoken_to_a_plaintext_broker_fails_the_handshake(pki: dict) -> None:
    with FakeBroker(closing()) as broker:
        with pytest.raises((TlsError, NoAnswerError)) as raised:
            probe('127.0.0.1', broker.port, TlsSettings(ca_file=str(pki['ca'].pem)), timeout=2)
    assert raised.value.endpoint == broker.endpoint
