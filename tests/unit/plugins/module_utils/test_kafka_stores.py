# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stores of Kafka client settings, checked with real material: openssl makes the CAs and the
broker certificate, keytool builds and opens the PKCS12 stores, and a TLS server on loopback
plays the broker."""

from __future__ import annotations

import datetime
import os
import shutil
import socket
import ssl
import subprocess
import threading
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_stores import (
    StoreReader,
    bootstrap_endpoints,
    check_cluster,
    java_date,
    parse_listing,
    parse_rfc_listing,
    unreadable_reason,
)

PASSWORD = 'store-secret-1'
NOW = datetime.datetime.now(datetime.timezone.utc)

needs_tools = pytest.mark.skipif(not (shutil.which('keytool') and shutil.which('openssl')), reason='needs keytool and openssl')


def openssl(*args: str) -> None:
    subprocess.run(['openssl'] + list(args), check=True, capture_output=True)


def make_ca(directory: Path, name: str) -> Path:
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '30', '-subj', '/CN=%s' % name,
            '-keyout', str(directory / (name + '.key')), '-out', str(directory / (name + '.pem')))
    return directory / (name + '.pem')


def make_server_cert(directory: Path, ca: str, days: int) -> None:
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-keyout', str(directory / 'server.key'),
            '-out', str(directory / 'server.csr'))
    (directory / 'san.ext').write_text('subjectAltName=DNS:localhost,IP:127.0.0.1\n')
    openssl('x509', '-req', '-in', str(directory / 'server.csr'), '-CA', str(directory / (ca + '.pem')),
            '-CAkey', str(directory / (ca + '.key')), '-CAcreateserial', '-days', str(days),
            '-extfile', str(directory / 'san.ext'), '-out', str(directory / 'server.pem'))


def trust_store(directory: Path, name: str, certificate: Path, password: str = PASSWORD) -> Path:
    store = directory / (name + '.p12')
    subprocess.run(['keytool', '-importcert', '-noprompt', '-alias', name, '-file', str(certificate), '-keystore', str(store),
                    '-storetype', 'PKCS12', '-storepass', password], check=True, capture_output=True)
    return store


@pytest.fixture(scope='module')
def tls_material(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, Any]]:
    """Two CAs, a broker certificate of the first valid 10 days, and a TLS server that presents it."""
    if not (shutil.which('keytool') and shutil.which('openssl')):
        pytest.skip('needs keytool and openssl')
    directory = tmp_path_factory.mktemp('stores')
    make_ca(directory, 'lab-ca')
    make_ca(directory, 'other-ca')
    make_server_cert(directory, 'lab-ca', days=10)
    plain = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    plain.load_cert_chain(str(directory / 'server.pem'), str(directory / 'server.key'))
    # A broker of mutual TLS over TLS 1.2: it ends the handshake when the client shows no certificate.
    mutual = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(directory / 'lab-ca.pem'))
    mutual.load_cert_chain(str(directory / 'server.pem'), str(directory / 'server.key'))
    mutual.verify_mode = ssl.CERT_REQUIRED
    mutual.maximum_version = ssl.TLSVersion.TLSv1_2
    stop = threading.Event()
    servers = [serve(plain, stop), serve(mutual, stop)]
    yield {'dir': directory, 'port': servers[0][0], 'mutual_port': servers[1][0],
           'lab': trust_store(directory, 'lab-ca', directory / 'lab-ca.pem'),
           'other': trust_store(directory, 'other-ca', directory / 'other-ca.pem')}
    stop.set()
    for _port, thread, server in servers:
        thread.join(timeout=5)
        server.close()


def serve(context: ssl.SSLContext, stop: threading.Event) -> Tuple[int, threading.Thread, socket.socket]:
    """A TLS server on loopback that completes (or refuses) handshakes until `stop` is set."""
    server = socket.socket()
    server.bind(('127.0.0.1', 0))
    server.listen(8)
    server.settimeout(0.2)

    def loop() -> None:
        while not stop.is_set():
            try:
                connection, _address = server.accept()
            except OSError:
                continue
            try:
                with context.wrap_socket(connection, server_side=True):
                    pass
            except (OSError, ssl.SSLError):
                connection.close()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return server.getsockname()[1], thread, server


def settings_for(store: Path, port: int, **more: str) -> Dict[str, str]:
    return dict({'bootstrap.servers': 'localhost:%d' % port, 'security.protocol': 'SSL',
                 'ssl.truststore.location': str(store), 'ssl.truststore.type': 'PKCS12',
                 'ssl.truststore.password': PASSWORD}, **more)


def check(settings: Dict[str, str], user: str = '', warn_days: int = 30) -> List[Dict[str, object]]:
    return [report.as_dict() for report in check_cluster('src', settings, StoreReader(), user, warn_days, NOW)]


@needs_tools
def test_a_good_trust_store_verifies_the_broker_and_names_its_ca(tls_material: Dict[str, Any]) -> None:
    (report,) = check(settings_for(tls_material['lab'], tls_material['port']), warn_days=5)
    assert report['errors'] == [] and report['warnings'] == [] and report['handshake'] == 'verified'
    (certificate,) = report['certificates']  # type: ignore[misc]
    assert certificate['alias'] == 'lab-ca' and certificate['subject'] == 'CN=lab-ca'
    assert 28 <= certificate['days_left'] <= 30


@needs_tools
def test_a_trust_store_of_another_ca_is_refused_by_the_handshake(tls_material: Dict[str, Any]) -> None:
    (report,) = check(settings_for(tls_material['other'], tls_material['port']))
    assert report['handshake'].startswith('refused: ')  # type: ignore[union-attr]
    assert report['errors'] == ['%s does not verify the brokers of src: %s' % (tls_material['other'], report['handshake'])]


@needs_tools
def test_a_wrong_password_is_named_with_the_file_and_never_printed(tls_material: Dict[str, Any]) -> None:
    (report,) = check(settings_for(tls_material['lab'], tls_material['port'], **{'ssl.truststore.password': 'wrong-one'}))
    (error,) = report['errors']  # type: ignore[misc]
    assert error.startswith('%s cannot be opened with its password (ssl.truststore.password): keytool error' % tls_material['lab'])
    assert 'wrong-one' not in error and PASSWORD not in error


@needs_tools
def test_a_missing_store_is_an_error(tls_material: Dict[str, Any]) -> None:
    missing = tls_material['dir'] / 'absent.p12'
    (report,) = check(settings_for(missing, tls_material['port']))
    assert report['errors'] == ['%s does not exist' % missing] and report['handshake'] == 'not tried'


@needs_tools
def test_a_certificate_that_expires_soon_is_a_warning_with_its_date(tls_material: Dict[str, Any]) -> None:
    store = trust_store(tls_material['dir'], 'broker', tls_material['dir'] / 'server.pem')
    (report,) = check(settings_for(store, tls_material['port'], **{'ssl.endpoint.identification.algorithm': ''}))
    (warning,) = report['warnings']  # type: ignore[misc]
    assert warning.startswith('%s: certificate broker (CN=localhost) expires on ' % store) and warning.endswith((', in 9 days', ', in 10 days'))


@needs_tools
def test_a_key_store_is_opened_and_listed_too(tls_material: Dict[str, Any]) -> None:
    directory = tls_material['dir']
    keystore = directory / 'client.p12'
    openssl('pkcs12', '-export', '-in', str(directory / 'server.pem'), '-inkey', str(directory / 'server.key'),
            '-name', 'client', '-out', str(keystore), '-passout', 'pass:' + PASSWORD)
    settings = settings_for(tls_material['lab'], tls_material['port'], **{
        'ssl.keystore.location': str(keystore), 'ssl.keystore.type': 'PKCS12', 'ssl.keystore.password': PASSWORD})
    truststore, key_store = check(settings, warn_days=1)
    assert (truststore['kind'], key_store['kind']) == ('truststore', 'keystore')
    assert key_store['errors'] == [] and key_store['handshake'] == 'not tried'
    assert [certificate['subject'] for certificate in key_store['certificates']] == ['CN=localhost']  # type: ignore[union-attr]


def test_a_store_the_service_user_cannot_read_is_named(tmp_path: Path) -> None:
    store = tmp_path / 'store.p12'
    store.write_bytes(b'x')
    os.chmod(str(store), 0o600)
    if os.getuid() == 0:
        os.chown(str(store), 0, 0)
    tmp_path.chmod(0o755)
    reason = unreadable_reason(str(store), 'nobody')
    assert reason is not None and reason.startswith('user nobody cannot ')
    assert unreadable_reason(str(store), 'no-such-user-here') == 'user no-such-user-here does not exist on this host'
    assert unreadable_reason(str(store), 'root') is None


def test_keytool_listing_and_dates_are_read() -> None:
    listing = ('Keystore type: PKCS12\n\nYour keystore contains 2 entries\n\nAlias name: ca-0\nCreation date: Nov 27, 2026\n'
               'Entry type: trustedCertEntry\n\nOwner: CN=Lab CA G2\nIssuer: CN=Lab CA G2\n'
               'Valid from: Fri Nov 27 19:00:00 UTC 2026 until: Sat Nov 27 19:00:00 UTC 2027\n\n'
               'Alias name: ca-1\nOwner: CN=Lab CA\nValid from: Mon Jan 01 00:00:00 UTC 2024 until: Tue Dec 01 08:30:00 UTC 2026\n')
    assert parse_listing(listing) == [
        {'alias': 'ca-0', 'subject': 'CN=Lab CA G2', 'not_after': java_date('Sat Nov 27 19:00:00 UTC 2027')},
        {'alias': 'ca-1', 'subject': 'CN=Lab CA', 'not_after': datetime.datetime(2026, 12, 1, 8, 30, tzinfo=datetime.timezone.utc)}]


def test_bootstrap_servers_become_endpoints() -> None:
    assert bootstrap_endpoints('b-1:9094, [::1]:9095,bad,b-2:x') == [('b-1', 9094), ('::1', 9095)]


@needs_tools
def test_without_pythons_decoder_the_dates_come_from_keytool(tls_material: Dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    from ansible_collections.kafka_dr.mm2.plugins.module_utils import kafka_stores  # pylint: disable=import-outside-toplevel
    expected = check(settings_for(tls_material['lab'], tls_material['port']))
    monkeypatch.setattr(kafka_stores, 'describe_pem', lambda pem: None)
    assert check(settings_for(tls_material['lab'], tls_material['port'])) == expected


def test_rfc_listing_pairs_aliases_with_their_certificates() -> None:
    listing = ('Keystore type: PKCS12\n\nAlias name: ca-0\nEntry type: trustedCertEntry\n\n-----BEGIN CERTIFICATE-----\nAAA\n'
               '-----END CERTIFICATE-----\n\nAlias name: client\nEntry type: PrivateKeyEntry\n'
               '-----BEGIN CERTIFICATE-----\nBBB\n-----END CERTIFICATE-----\n')
    assert parse_rfc_listing(listing) == [('ca-0', '-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----'),
                                          ('client', '-----BEGIN CERTIFICATE-----\nBBB\n-----END CERTIFICATE-----')]


@needs_tools
def test_a_broker_that_wants_a_client_certificate_still_verifies(tls_material: Dict[str, Any]) -> None:
    (good,) = check(settings_for(tls_material['lab'], tls_material['mutual_port']))
    assert good['handshake'] == 'verified' and good['errors'] == []
    (bad,) = check(settings_for(tls_material['other'], tls_material['mutual_port']))
    assert bad['handshake'].startswith('refused: ')  # type: ignore[union-attr]


@needs_tools
def test_a_pem_trust_store_is_read_as_text(tls_material: Dict[str, Any]) -> None:
    """Kafka's ssl.truststore.type=PEM (the lab's): no password, the certificates of the file."""
    pem = tls_material['dir'] / 'lab-ca.pem'
    (report,) = check(settings_for(pem, tls_material['port'], **{'ssl.truststore.type': 'PEM', 'ssl.truststore.password': ''}))
    assert report['errors'] == [] and report['handshake'] == 'verified'
    assert [(certificate['alias'], certificate['subject']) for certificate in report['certificates']] == [  # type: ignore[union-attr]
        ('certificate 1', 'CN=lab-ca')]
    (other,) = check(settings_for(tls_material['dir'] / 'other-ca.pem', tls_material['port'], **{'ssl.truststore.type': 'pem'}))
    assert other['handshake'].startswith('refused: ')  # type: ignore[union-attr]


@needs_tools
def test_an_intermediate_ca_alone_verifies_as_java_would(tls_material: Dict[str, Any], tmp_path: Path) -> None:
    """Java takes any certificate of its trust store as an anchor; OpenSSL wants a root unless told otherwise."""
    shutil.copy(str(tls_material['dir'] / 'lab-ca.pem'), str(tmp_path / 'lab-ca.pem'))
    shutil.copy(str(tls_material['dir'] / 'lab-ca.key'), str(tmp_path / 'lab-ca.key'))
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=lab-intermediate', '-keyout', str(tmp_path / 'mid.key'),
            '-out', str(tmp_path / 'mid.csr'))
    (tmp_path / 'ca.ext').write_text('basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n')
    openssl('x509', '-req', '-in', str(tmp_path / 'mid.csr'), '-CA', str(tmp_path / 'lab-ca.pem'), '-CAkey',
            str(tmp_path / 'lab-ca.key'), '-CAcreateserial', '-days', '20', '-extfile', str(tmp_path / 'ca.ext'),
            '-out', str(tmp_path / 'mid.pem'))
    (tmp_path / 'mid-ca.pem').write_text((tmp_path / 'mid.pem').read_text())
    (tmp_path / 'mid-ca.key').write_text((tmp_path / 'mid.key').read_text())
    make_server_cert(tmp_path, 'mid-ca', days=15)
    (tmp_path / 'chain.pem').write_text((tmp_path / 'server.pem').read_text() + (tmp_path / 'mid.pem').read_text())
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(tmp_path / 'chain.pem'), str(tmp_path / 'server.key'))
    stop = threading.Event()
    port, thread, server = serve(context, stop)
    try:
        (report,) = check(settings_for(tmp_path / 'mid.pem', port, **{'ssl.truststore.type': 'PEM'}))
    finally:
        stop.set()
        thread.join(timeout=5)
        server.close()
    assert report['handshake'] == 'verified' and report['errors'] == []
