# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Kafka broker on loopback that answers ApiVersions as a chosen release, or misbehaves, over
plain TCP or TLS; and a throwaway CA (the cryptography package) for its certificates.

The advertised versions below are the Apache Kafka brokers' own, spelt out per release (not
taken from the module under test), so the tests compare the estimate with real releases: up to
3.8 from the request schemas at each release tag of apache/kafka, 3.9 from its 3.9 branch, 4.0
from the KIP-896, KIP-890, KIP-1075 and KIP-1102 changes that release made.
"""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
import struct
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

# api key -> highest version, as each release's brokers advertise them (Produce 0, Fetch 1,
# ListOffsets 2, Metadata 3, OffsetCommit 8, OffsetFetch 9, FindCoordinator 10, JoinGroup 11,
# ApiVersions 18, CreateTopics 19).
APACHE_MAX_VERSIONS: Dict[str, Dict[int, int]] = {
    '0.10.2.0': {0: 2, 1: 3, 2: 1, 3: 2, 8: 2, 9: 2, 10: 0, 11: 1, 18: 0, 19: 1},
    '1.1.0': {0: 5, 1: 7, 2: 2, 3: 5, 8: 3, 9: 3, 10: 1, 11: 2, 18: 1, 19: 2},
    '2.0.0': {0: 6, 1: 8, 2: 3, 3: 6, 8: 4, 9: 4, 10: 2, 11: 3, 18: 2, 19: 3},
    '2.1.0': {0: 7, 1: 10, 2: 4, 3: 7, 8: 6, 9: 5, 10: 2, 11: 3, 18: 2, 19: 3},
    '2.4.0': {0: 8, 1: 11, 2: 5, 3: 9, 8: 8, 9: 6, 10: 3, 11: 6, 18: 3, 19: 5},
    '2.6.0': {0: 8, 1: 11, 2: 5, 3: 9, 8: 8, 9: 7, 10: 3, 11: 7, 18: 3, 19: 5},
    '2.8.0': {0: 9, 1: 12, 2: 6, 3: 11, 8: 8, 9: 7, 10: 3, 11: 7, 18: 3, 19: 7},
    '3.6.0': {0: 9, 1: 15, 2: 8, 3: 12, 8: 8, 9: 8, 10: 4, 11: 9, 18: 3, 19: 7},
    '3.9.0': {0: 11, 1: 17, 2: 9, 3: 12, 8: 9, 9: 9, 10: 6, 11: 9, 18: 4, 19: 7},
    '4.0.0': {0: 12, 1: 17, 2: 10, 3: 13, 8: 9, 9: 9, 10: 6, 11: 9, 18: 4, 19: 7},
}
# Kafka 4.0 dropped the versions older brokers' clients needed (KIP-896): its lowest ones.
APACHE_MIN_VERSIONS: Dict[str, Dict[int, int]] = {'4.0.0': {1: 4, 2: 1, 8: 2, 9: 1, 11: 2, 19: 2}}

Answer = Callable[[bytes], Optional[bytes]]


@dataclass
class RequestHeader:
    size: int
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str


def read_request(connection: socket.socket) -> Optional[Tuple[bytes, RequestHeader]]:
    head = b''
    while len(head) < 4:
        chunk = connection.recv(4 - len(head))
        if not chunk:
            return None
        head += chunk
    (size,) = struct.unpack('>i', head)
    body = b''
    while len(body) < size:
        chunk = connection.recv(size - len(body))
        if not chunk:
            return None
        body += chunk
    api_key, api_version, correlation_id, client_length = struct.unpack_from('>hhih', body, 0)
    client_id = body[10:10 + client_length].decode('utf-8')
    return body, RequestHeader(size, api_key, api_version, correlation_id, client_id)


def api_versions_response(correlation_id: int, release: str, error_code: int = 0) -> bytes:
    """ApiVersionsResponse v0 of a release: correlation id, error code, [api key, min, max]."""
    maxima = APACHE_MAX_VERSIONS[release]
    minima = APACHE_MIN_VERSIONS.get(release, {})
    entries = b''.join(struct.pack('>hhh', key, minima.get(key, 0), maxima[key]) for key in sorted(maxima))
    body = struct.pack('>i', correlation_id) + struct.pack('>hi', error_code, len(maxima)) + entries
    return struct.pack('>i', len(body)) + body


@dataclass
class FakeBroker:
    """Answers each connection once: `answer` gets the request's bytes (after the size) and returns
    the bytes to send, or None to close without a word. `silent` keeps the connection open unanswered."""

    answer: Answer
    context: Optional[ssl.SSLContext] = None
    silent: bool = False
    requests: List[RequestHeader] = field(default_factory=list)
    handshake_errors: List[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._server.bind(('127.0.0.1', 0))
        self._server.listen(8)
        self._server.settimeout(0.2)
        self.port: int = self._server.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def endpoint(self) -> str:
        return '127.0.0.1:%d' % self.port

    def start(self) -> 'FakeBroker':
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._server.close()

    def __enter__(self) -> 'FakeBroker':
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _address = self._server.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with connection:
                connection.settimeout(5)
                self._answer(connection)

    def _answer(self, connection: socket.socket) -> None:
        try:
            if self.context is not None:
                connection = self.context.wrap_socket(connection, server_side=True)
            request = read_request(connection)
            if request is None:
                return
            body, header = request
            self.requests.append(header)
            if self.silent:
                self._stop.wait(3)
                return
            reply = self.answer(body)
            if reply is not None:
                connection.sendall(reply)
        except (ssl.SSLError, OSError) as exc:
            self.handshake_errors.append(str(exc))


def answering_as(release: str) -> Answer:
    def answer(body: bytes) -> bytes:
        (correlation_id,) = struct.unpack_from('>i', body, 4)
        return api_versions_response(correlation_id, release)
    return answer


def answering_bytes(data: bytes) -> Answer:
    return lambda _body: data


def closing() -> Answer:
    return lambda _body: None


# ---- A throwaway CA ----------------------------------------------------------------------------

@dataclass
class Issued:
    certificate: Path
    key: Path


def _names(names: Sequence[str]) -> List[object]:
    from cryptography import x509  # pylint: disable=import-outside-toplevel
    alternatives: List[object] = []
    for name in names:
        try:
            alternatives.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alternatives.append(x509.DNSName(name))
    return alternatives


class ThrowawayCa:
    """A CA made for one test run, issuing server and client certificates as PEM files."""

    def __init__(self, directory: Path, name: str) -> None:
        from cryptography import x509  # pylint: disable=import-outside-toplevel
        from cryptography.hazmat.primitives import hashes, serialization  # pylint: disable=import-outside-toplevel
        from cryptography.hazmat.primitives.asymmetric import ec  # pylint: disable=import-outside-toplevel
        from cryptography.x509.oid import NameOID  # pylint: disable=import-outside-toplevel
        self._x509, self._hashes, self._serialization, self._ec, self._oid = x509, hashes, serialization, ec, NameOID
        self.directory = directory
        self.name = name
        self.key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        now = datetime.datetime.now(datetime.timezone.utc)
        self.certificate = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
                            .public_key(self.key.public_key()).serial_number(x509.random_serial_number())
                            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
                            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                                         crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
                            .add_extension(x509.SubjectKeyIdentifier.from_public_key(self.key.public_key()), critical=False)
                            .sign(self.key, hashes.SHA256()))
        self.pem = directory / ('%s.pem' % name)
        self.pem.write_bytes(self.certificate.public_bytes(serialization.Encoding.PEM))

    def issue(self, common_name: str, names: Sequence[str] = (), client: bool = False) -> Issued:
        x509, oid = self._x509, self._oid
        key = self._ec.generate_private_key(self._ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        usage = x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH if client else x509.oid.ExtendedKeyUsageOID.SERVER_AUTH
        builder = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(oid.COMMON_NAME, common_name)]))
                   .issuer_name(self.certificate.subject).public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=10))
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                   .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
                   .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self.key.public_key()), critical=False))
        if names:
            builder = builder.add_extension(x509.SubjectAlternativeName(_names(names)), critical=False)
        certificate = builder.sign(self.key, self._hashes.SHA256())
        encoding = self._serialization.Encoding.PEM
        issued = Issued(self.directory / ('%s.pem' % common_name), self.directory / ('%s.key' % common_name))
        issued.certificate.write_bytes(certificate.public_bytes(encoding))
        issued.key.write_bytes(key.private_bytes(encoding, self._serialization.PrivateFormat.PKCS8,
                                                 self._serialization.NoEncryption()))
        return issued


def server_context(issued: Issued, client_ca: Optional[Path] = None) -> ssl.SSLContext:
    """A broker's TLS context; with `client_ca`, it requires a client certificate issued by that CA."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(issued.certificate), str(issued.key))
    if client_ca is not None:
        context.load_verify_locations(cafile=str(client_ca))
        context.verify_mode = ssl.CERT_REQUIRED
    return context
