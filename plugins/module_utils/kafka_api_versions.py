# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which Kafka release a broker answers as, from its ApiVersions response.

The 4.x clients of the collection (the failover module's JVM, the validator) speak no protocol
version older than Kafka 2.1 brokers understand (KIP-896): a 2.0 broker would only fail them
later, in an obscure error. One ApiVersions request tells a broker's release beforehand.

ApiVersionsRequest v0 (api key 18) is answered by every broker since 0.10.0, and a SASL listener
answers it before authentication, so no credentials are needed. The request is written here
byte for byte, over plain TCP or Python's ssl module, with no Kafka client library.

The release is estimated from the highest versions of Produce, Fetch, ListOffsets and Metadata
the broker advertises (RELEASE_MAX_VERSIONS): the newest release whose four maxima it reaches.
Brokers advertise their stable versions whatever their configuration, and these four APIs are
never forwarded to a controller, so they are the same on every broker of a release.
"""

from __future__ import annotations

import socket
import ssl
import struct
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

PRODUCE, FETCH, LIST_OFFSETS, METADATA = 0, 1, 2, 3
API_VERSIONS = 18
MARKER_APIS = (PRODUCE, FETCH, LIST_OFFSETS, METADATA)
API_NAMES = {PRODUCE: 'Produce', FETCH: 'Fetch', LIST_OFFSETS: 'ListOffsets', METADATA: 'Metadata', API_VERSIONS: 'ApiVersions'}

# The highest (Produce, Fetch, ListOffsets, Metadata) version each release's brokers advertise,
# read from Apache Kafka's sources at each release tag: the request schemas of Protocol.java and
# the request classes up to 2.1, the "validVersions" of common/message/*Request.json from 2.2.
# Releases that add none of the four (0.10.2, 2.5, 2.6, 3.2 to 3.4, 3.6) are not told apart:
# such a broker counts as the release before.
RELEASE_MAX_VERSIONS: Tuple[Tuple[str, Tuple[int, int, int, int]], ...] = (
    ('0.10.0', (2, 2, 0, 1)),
    ('0.10.1', (2, 3, 1, 2)),
    ('0.11.0', (3, 5, 2, 4)),
    ('1.0', (5, 6, 2, 5)),
    ('1.1', (5, 7, 2, 5)),
    ('2.0', (6, 8, 3, 6)),
    ('2.1', (7, 10, 4, 7)),
    ('2.2', (7, 10, 5, 7)),
    ('2.3', (7, 11, 5, 8)),
    ('2.4', (8, 11, 5, 9)),
    ('2.7', (8, 12, 5, 9)),
    ('2.8', (9, 12, 6, 11)),
    ('3.0', (9, 12, 7, 11)),
    ('3.1', (9, 13, 7, 12)),
    ('3.5', (9, 15, 8, 12)),
    ('3.7', (10, 16, 8, 12)),
    ('3.8', (11, 16, 8, 12)),
    ('3.9', (11, 17, 9, 12)),
    ('4.0', (12, 17, 10, 13)),
)
RELEASES = tuple(release for release, _maxima in RELEASE_MAX_VERSIONS)
# The oldest brokers the 4.x clients talk to (KIP-896).
CLIENT_FLOOR = '2.1'

CLIENT_ID = 'kafka_dr.mm2'
MAX_RESPONSE_BYTES = 1 << 20
# Alerts a broker that wants a client certificate ends the handshake (or the first read) with.
CLIENT_CERTIFICATE_ALERTS = frozenset({'TLSV13_ALERT_CERTIFICATE_REQUIRED', 'SSLV3_ALERT_BAD_CERTIFICATE',
                                       'SSLV3_ALERT_HANDSHAKE_FAILURE'})


class ProbeError(Exception):
    """A broker that could not be asked, or whose answer is not Kafka's; str() names host:port."""

    def __init__(self, endpoint: str, message: str) -> None:
        super().__init__('%s: %s' % (endpoint, message))
        self.endpoint = endpoint
        self.message = message


class UnreachableError(ProbeError):
    """No TCP connection: the name does not resolve, the port is closed, or the connection timed out."""


class TlsError(ProbeError):
    """No TLS session. `cause` is 'setup' (the CA or client certificate does not load), 'verify'
    (the broker's certificate or name is not trusted), 'client_certificate' (the broker wants a
    client certificate and none was given) or 'handshake' (anything else)."""

    def __init__(self, endpoint: str, message: str, cause: str) -> None:
        super().__init__(endpoint, message)
        self.cause = cause


class NoAnswerError(ProbeError):
    """Connected, but the other end closed the connection or kept silent instead of answering."""


class NotKafkaError(ProbeError):
    """Something answered, but not with a Kafka ApiVersions response."""


@dataclass(frozen=True)
class ApiVersion:
    api_key: int
    min_version: int
    max_version: int


@dataclass(frozen=True)
class TlsSettings:
    """How to reach a TLS listener: the CAs (a PEM file, PEM text, or neither for this host's own
    CAs), whether the broker's name must match its certificate, and a client certificate for a
    listener that asks for one (PEM, the key in `keyfile` or in `certfile` itself)."""

    ca_file: Optional[str] = None
    ca_pem: Optional[str] = None
    check_hostname: bool = True
    certfile: Optional[str] = None
    keyfile: Optional[str] = None
    key_password: Optional[str] = None

    @property
    def own_ca(self) -> bool:
        return bool(self.ca_file or self.ca_pem)


@dataclass
class BrokerVersions:
    """A broker's ApiVersions answer and the release it answers as."""

    endpoint: str
    error_code: int
    api_versions: List[ApiVersion] = field(default_factory=list)

    def max_version(self, api_key: int) -> int:
        """The highest version of an API the broker advertises; -1 when it lacks the API."""
        return max((api.max_version for api in self.api_versions if api.api_key == api_key), default=-1)

    @property
    def at_least(self) -> str:
        return estimate_release(self.api_versions)

    def as_dict(self) -> Dict[str, object]:
        return {'endpoint': self.endpoint, 'at_least': self.at_least,
                'api_versions': [{'api_key': api.api_key, 'min_version': api.min_version, 'max_version': api.max_version}
                                 for api in self.api_versions]}


def release_key(release: str) -> Tuple[int, ...]:
    return tuple(int(part) for part in release.split('.'))


def known_release(text: str) -> Optional[str]:
    """The release of the table that a version such as '2.1', '2.1.1' or '0.11.0.2' names, or None."""
    parts = str(text).strip().split('.')
    if not all(part.isdigit() for part in parts):
        return None
    wanted = parts[:3] if parts[0] == '0' else parts[:2]
    release = '.'.join(str(int(part)) for part in wanted)
    return release if release in RELEASES else None


def estimate_release(api_versions: Sequence[ApiVersion]) -> str:
    """The newest release of RELEASE_MAX_VERSIONS whose four maxima the broker reaches, and those
    of every release before it; the first release (ApiVersions came with it) when none is reached."""
    maxima = {key: max((api.max_version for api in api_versions if api.api_key == key), default=-1) for key in MARKER_APIS}
    reached = RELEASES[0]
    for release, versions in RELEASE_MAX_VERSIONS[1:]:
        if any(maxima[key] < version for key, version in zip(MARKER_APIS, versions)):
            break
        reached = release
    return reached


def missing_for(api_versions: Sequence[ApiVersion], release: str) -> List[str]:
    """The versions of Produce, Fetch, ListOffsets and Metadata that `release` brought and a broker
    does not advertise, e.g. ['Produce v7', 'Fetch v10']."""
    versions = dict(RELEASE_MAX_VERSIONS)[release]
    return ['%s v%d' % (API_NAMES[key], version) for key, version in zip(MARKER_APIS, versions)
            if max((api.max_version for api in api_versions if api.api_key == key), default=-1) < version]


def is_below(at_least: str, floor: str) -> bool:
    return release_key(at_least) < release_key(floor)


def encode_request(correlation_id: int, client_id: str = CLIENT_ID) -> bytes:
    """ApiVersionsRequest v0 with request header v1: api key, version, correlation id, client id; no body."""
    client = client_id.encode('utf-8')
    message = struct.pack('>hhih', API_VERSIONS, 0, correlation_id, len(client)) + client
    return struct.pack('>i', len(message)) + message


def parse_response(payload: bytes, correlation_id: int) -> Tuple[int, List[ApiVersion]]:
    """(error code, api versions) of an ApiVersionsResponse v0 without its size prefix; ValueError
    saying what is wrong when it is not one."""
    if len(payload) < 10:
        raise ValueError('a %d-byte answer is too short for an ApiVersions response' % len(payload))
    (answered_id,) = struct.unpack_from('>i', payload, 0)
    if answered_id != correlation_id:
        raise ValueError('the answer carries correlation id %d, not the request\'s %d' % (answered_id, correlation_id))
    error_code, count = struct.unpack_from('>hi', payload, 4)
    if count < 0 or 10 + 6 * count != len(payload):
        raise ValueError('the answer claims %d API entries in %d bytes' % (count, len(payload) - 10))
    apis = [ApiVersion(*struct.unpack_from('>hhh', payload, 10 + 6 * index)) for index in range(count)]
    if not any(api.api_key == API_VERSIONS for api in apis):
        raise ValueError('the answer does not list ApiVersions itself, as every Kafka broker does')
    if any(api.min_version > api.max_version or api.min_version < 0 for api in apis):
        raise ValueError('the answer holds an API whose lowest version is above its highest')
    return error_code, apis


def describe_bytes(head: bytes) -> str:
    """What the first bytes of an answer that is not Kafka look like."""
    if len(head) >= 2 and head[0] in (0x15, 0x16) and head[1] == 0x03:
        return 'a TLS record: this listener speaks TLS (security_protocol SSL or SASL_SSL)'
    if head.startswith(b'HTTP/'):
        return 'an HTTP answer (%r)' % head[:40].split(b'\r\n', 1)[0].decode('ascii', 'replace')
    if head.startswith(b'SSH-'):
        return 'an SSH server\'s greeting'
    return 'bytes %r' % head[:16]


def tls_context(settings: TlsSettings) -> ssl.SSLContext:
    """A client context that judges the broker's chain as Java does: any certificate of the trust
    store is an anchor, an intermediate CA too, and RFC 5280 strictness is not applied."""
    if settings.own_ca:
        context = ssl.create_default_context(cafile=settings.ca_file, cadata=settings.ca_pem)
    else:
        context = ssl.create_default_context()
    context.check_hostname = settings.check_hostname
    context.verify_flags |= getattr(ssl, 'VERIFY_X509_PARTIAL_CHAIN', 0)
    context.verify_flags &= ~getattr(ssl, 'VERIFY_X509_STRICT', 0)
    if settings.certfile:
        context.load_cert_chain(settings.certfile, settings.keyfile or None, settings.key_password or None)
    return context


def _tls_error(endpoint: str, exc: ssl.SSLError, certificate_given: bool) -> TlsError:
    if isinstance(exc, ssl.SSLCertVerificationError):
        return TlsError(endpoint, 'the broker\'s certificate is not trusted: %s' % (exc.verify_message or exc.reason or exc), 'verify')
    if exc.reason in CLIENT_CERTIFICATE_ALERTS and not certificate_given:
        return TlsError(endpoint, 'the broker ended the TLS handshake (%s): it asks for a client certificate, and none was given'
                        % exc.reason, 'client_certificate')
    return TlsError(endpoint, 'TLS handshake failed: %s' % exc, 'handshake')


def _read_exactly(connection: socket.socket, size: int) -> bytes:
    chunks = []
    left = size
    while left:
        chunk = connection.recv(min(left, 65536))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b''.join(chunks)


def _exchange(connection: socket.socket, endpoint: str, correlation_id: int, timeout: float) -> BrokerVersions:
    connection.sendall(encode_request(correlation_id))
    head = _read_exactly(connection, 4)
    if not head:
        raise NoAnswerError(endpoint, 'the broker closed the connection without answering ApiVersions: a broker older '
                            'than Kafka 0.10, or a listener of another security protocol')
    if len(head) < 4:
        raise NotKafkaError(endpoint, 'answered %s, then closed the connection' % describe_bytes(head))
    (size,) = struct.unpack('>i', head)
    if not 10 <= size <= MAX_RESPONSE_BYTES:
        connection.settimeout(min(timeout, 1.0))
        try:
            head += connection.recv(60)
        except OSError:
            pass
        raise NotKafkaError(endpoint, 'answered with something that is not Kafka: %s' % describe_bytes(head))
    payload = _read_exactly(connection, size)
    if len(payload) < size:
        raise NotKafkaError(endpoint, 'announced a %d-byte answer and closed the connection after %d bytes' % (size, len(payload)))
    try:
        error_code, apis = parse_response(payload, correlation_id)
    except ValueError as exc:
        raise NotKafkaError(endpoint, 'answered with something that is not a Kafka ApiVersions response: %s' % exc) from None
    if error_code != 0:
        raise NotKafkaError(endpoint, 'answered ApiVersions v0 with error code %d' % error_code)
    return BrokerVersions(endpoint, error_code, apis)


def format_endpoint(host: str, port: int) -> str:
    return '[%s]:%d' % (host, port) if ':' in host else '%s:%d' % (host, port)


def probe(host: str, port: int, tls: Optional[TlsSettings] = None, timeout: float = 10.0,
          correlation_id: int = 1) -> BrokerVersions:
    """Ask one broker for its API versions, over TLS when `tls` is given; a ProbeError otherwise."""
    endpoint = format_endpoint(host, port)
    try:
        raw = socket.create_connection((host, port), timeout=timeout)
    except socket.timeout:
        raise UnreachableError(endpoint, 'no connection within %g s' % timeout) from None
    except socket.gaierror as exc:
        raise UnreachableError(endpoint, 'the name does not resolve (%s)' % (exc.strerror or exc)) from None
    except OSError as exc:
        raise UnreachableError(endpoint, 'no connection (%s)' % (exc.strerror or exc)) from None
    certificate_given = bool(tls and tls.certfile)
    connection = raw
    try:
        if tls is not None:
            try:
                context = tls_context(tls)
            except (ssl.SSLError, OSError) as exc:
                raise TlsError(endpoint, 'the CA or client certificate cannot be loaded: %s' % exc, 'setup') from None
            connection = context.wrap_socket(raw, server_hostname=host)
        try:
            return _exchange(connection, endpoint, correlation_id, timeout)
        except (ssl.SSLEOFError, ConnectionResetError, NoAnswerError):
            # Over TLS 1.3 the client's handshake ends before the broker has seen a client
            # certificate: a broker that wants one ends the connection at the first request.
            if tls is None or certificate_given:
                raise
            raise TlsError(endpoint, 'the broker ended the connection after the TLS handshake without answering: it asks '
                           'for a client certificate, it seems, and none was given', 'client_certificate') from None
    except ssl.SSLError as exc:
        raise _tls_error(endpoint, exc, certificate_given) from None
    except socket.timeout:
        raise NoAnswerError(endpoint, 'no answer within %g s' % timeout) from None
    except ConnectionError as exc:
        raise NoAnswerError(endpoint, 'the connection broke before an answer (%s)' % (exc.strerror or exc)) from None
    finally:
        connection.close()
        raw.close()


def probe_first(endpoints: Sequence[Tuple[str, int]], tls: Optional[TlsSettings] = None,
                timeout: float = 10.0) -> BrokerVersions:
    """The answer of the first endpoint that takes a connection; an UnreachableError naming every
    endpoint when none does. Any other problem of that endpoint is raised as it is."""
    failures = []
    for host, port in endpoints:
        try:
            return probe(host, port, tls, timeout)
        except UnreachableError as exc:
            failures.append(str(exc))
    raise UnreachableError(', '.join(format_endpoint(host, port) for host, port in endpoints) or 'no bootstrap server',
                           'no bootstrap server takes a connection (%s)' % ('; '.join(failures) or 'none given'))


def parse_endpoint(entry: str) -> Tuple[str, int]:
    """host and port of a host:port bootstrap entry ([v6] addresses without their brackets); ValueError otherwise."""
    host, _separator, port = entry.strip().rpartition(':')
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError('bootstrap entry %r is not host:port' % entry)
    return host.strip('[]'), int(port)
