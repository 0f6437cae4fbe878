# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The TLS key and trust stores that Kafka client settings name, checked on the host that reads them.

A store that is missing, unreadable by the service user, locked with another password, issued
by a CA the brokers do not use or about to expire only shows once a connector task starts and
fails, on every worker, in a log line. Each of these is found here before any connector changes.
keytool reads the stores (JKS and PKCS12 alike, with the JVM that runs Kafka); Python's ssl
module makes the TLS handshake with a broker against the trust store's certificates.
"""

from __future__ import annotations

import datetime
import grp
import os
import pwd
import re
import socket
import ssl
import stat
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

# keytool prints dates as java.util.Date does; these options make them English and UTC.
_KEYTOOL_LOCALE = ['-J-Duser.language=en', '-J-Duser.country=US', '-J-Duser.timezone=UTC']
_ALIAS = re.compile(r'^Alias name: (.*)$', re.MULTILINE)
_OWNER = re.compile(r'^Owner: (.*)$', re.MULTILINE)
_UNTIL = re.compile(r'^Valid from: .* until: (.*)$', re.MULTILINE)
_PEM = re.compile(r'-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----', re.DOTALL)
STORE_SETTINGS = (('truststore', 'ssl.truststore'), ('keystore', 'ssl.keystore'))
VERIFIED = 'verified'
_CLIENT_CERTIFICATE_ALERTS = frozenset({'TLSV13_ALERT_CERTIFICATE_REQUIRED', 'SSLV3_ALERT_BAD_CERTIFICATE',
                                        'SSLV3_ALERT_HANDSHAKE_FAILURE'})

Runner = Callable[[Sequence[str], str], Tuple[int, str, str]]


@dataclass
class StoreReport:
    """What was found about one store of one cluster's client settings."""

    cluster: str
    kind: str  # truststore or keystore
    path: str
    errors: List[str] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)
    certificates: List[Dict[str, object]] = field(default_factory=list)
    handshake: str = 'not tried'

    def as_dict(self) -> Dict[str, object]:
        return {'cluster': self.cluster, 'kind': self.kind, 'path': self.path, 'errors': list(self.errors),
                'warnings': list(self.warnings), 'certificates': list(self.certificates), 'handshake': self.handshake}


def run_command(argv: Sequence[str], stdin: str) -> Tuple[int, str, str]:
    done = subprocess.run(list(argv), input=stdin, capture_output=True, text=True, timeout=120, check=False)
    return done.returncode, done.stdout, done.stderr


def unreadable_reason(path: str, user: str) -> Optional[str]:
    """Why `user` cannot read `path` (a directory on the way it cannot enter, or the file's mode), or None."""
    try:
        account = pwd.getpwnam(user)
    except KeyError:
        return 'user %s does not exist on this host' % user
    if account.pw_uid == 0:
        return None
    gids = {account.pw_gid} | {group.gr_gid for group in grp.getgrall() if user in group.gr_mem}

    def allowed(info: os.stat_result, owner_bit: int, group_bit: int, other_bit: int) -> bool:
        if info.st_uid == account.pw_uid:
            return bool(info.st_mode & owner_bit)
        if info.st_gid in gids:
            return bool(info.st_mode & group_bit)
        return bool(info.st_mode & other_bit)

    directory = os.path.dirname(os.path.abspath(path))
    parents = []
    while True:
        parents.append(directory)
        if directory == os.path.dirname(directory):
            break
        directory = os.path.dirname(directory)
    for parent in reversed(parents):
        if not allowed(os.stat(parent), stat.S_IXUSR, stat.S_IXGRP, stat.S_IXOTH):
            return 'user %s cannot enter %s' % (user, parent)
    info = os.stat(path)
    if not allowed(info, stat.S_IRUSR, stat.S_IRGRP, stat.S_IROTH):
        return 'user %s cannot read it (owner %s, group %s, mode %04o)' % (
            user, _name(pwd.getpwuid, info.st_uid), _name(grp.getgrgid, info.st_gid), stat.S_IMODE(info.st_mode))
    return None


def _name(lookup: Callable, number: int) -> str:
    try:
        return lookup(number)[0]
    except KeyError:
        return str(number)


def java_date(text: str) -> datetime.datetime:
    """A date as keytool prints it with the options above, e.g. 'Fri Nov 27 19:00:00 UTC 2026'."""
    return datetime.datetime.strptime(text.strip().replace(' UTC ', ' '), '%a %b %d %H:%M:%S %Y').replace(
        tzinfo=datetime.timezone.utc)


def parse_listing(verbose: str) -> List[Dict[str, object]]:
    """Each entry of `keytool -list -v`: its alias, the owner and the expiry of its first certificate."""
    entries = []
    starts = [match.start() for match in _ALIAS.finditer(verbose)] + [len(verbose)]
    for start, end in zip(starts, starts[1:]):
        block = verbose[start:end]
        owner = _OWNER.search(block)
        until = _UNTIL.search(block)
        entries.append({'alias': _ALIAS.search(block).group(1).strip(),  # type: ignore[union-attr]
                        'subject': owner.group(1).strip() if owner else '',
                        'not_after': java_date(until.group(1)) if until else None})
    return entries


_RDN_NAMES = {'commonName': 'CN', 'organizationName': 'O', 'organizationalUnitName': 'OU', 'countryName': 'C',
              'localityName': 'L', 'stateOrProvinceName': 'ST', 'domainComponent': 'DC'}


def describe_pem(pem: str) -> Optional[Dict[str, object]]:
    """Subject and expiry of a PEM certificate, through the ssl module's own decoder (None where it lacks one)."""
    decode = getattr(getattr(ssl, '_ssl', None), '_test_decode_cert', None)
    if decode is None:
        return None
    with tempfile.NamedTemporaryFile('w', suffix='.pem', encoding='ascii') as handle:
        handle.write(pem + '\n')
        handle.flush()
        decoded = decode(handle.name)
    names = ['%s=%s' % (_RDN_NAMES.get(key, key), value) for rdn in reversed(decoded.get('subject', ())) for key, value in rdn]
    not_after = datetime.datetime.strptime(decoded['notAfter'], '%b %d %H:%M:%S %Y %Z').replace(tzinfo=datetime.timezone.utc)
    return {'subject': ', '.join(names), 'not_after': not_after}


def parse_rfc_listing(listing: str) -> List[Tuple[str, str]]:
    """(alias, PEM) of each entry of `keytool -list -rfc`."""
    entries = []
    starts = [match.start() for match in _ALIAS.finditer(listing)] + [len(listing)]
    for start, end in zip(starts, starts[1:]):
        block = listing[start:end]
        pem = _PEM.search(block)
        if pem:
            entries.append((_ALIAS.search(block).group(1).strip(), pem.group(0)))  # type: ignore[union-attr]
    return entries


class StoreReader:
    """Opens stores with keytool; the password goes in through a private file, never on a command line."""

    def __init__(self, keytool: str = 'keytool', runner: Runner = run_command) -> None:
        self.keytool = keytool
        self.runner = runner

    def _list(self, path: str, store_type: str, password: str, extra: Sequence[str]) -> Tuple[int, str, str]:
        with tempfile.TemporaryDirectory(prefix='kafka-store-') as scratch:
            password_file = os.path.join(scratch, 'storepass')
            with open(os.open(password_file, os.O_WRONLY | os.O_CREAT, 0o600), 'w', encoding='utf-8') as handle:
                handle.write(password)
            argv = [self.keytool] + _KEYTOOL_LOCALE + ['-list', '-keystore', path, '-storepass:file', password_file]
            if store_type:
                argv += ['-storetype', store_type]
            return self.runner(argv + list(extra), '')

    def read(self, path: str, store_type: str, password: str) -> Tuple[Optional[str], List[Dict[str, object]], List[str]]:
        """(error, entries, PEM certificates) of a store; the error is keytool's own words. One keytool
        run where Python decodes certificates, a second (-v) for the dates where it cannot. A PEM
        store (Kafka's ssl.*.type=PEM) is read as text: it has no store password."""
        if store_type.upper() == 'PEM':
            return read_pem_store(path)
        code, rfc, error = self._list(path, store_type, password, ['-rfc'])
        if code != 0:
            return _keytool_error(rfc + error), [], []
        listed = parse_rfc_listing(rfc)
        described = [describe_pem(pem) for _alias, pem in listed]
        if listed and all(described):
            entries = [dict(description, alias=alias) for (alias, _pem), description in zip(listed, described)]  # type: ignore[arg-type]
            return None, entries, [pem for _alias, pem in listed]
        code, verbose, error = self._list(path, store_type, password, ['-v'])
        if code != 0:
            return _keytool_error(verbose + error), [], []
        return None, parse_listing(verbose), [pem for _alias, pem in listed]


def read_pem_store(path: str) -> Tuple[Optional[str], List[Dict[str, object]], List[str]]:
    """The certificates of a PEM file, each with its subject and expiry where Python can decode them."""
    with open(path, encoding='ascii', errors='replace') as handle:
        pems = _PEM.findall(handle.read())
    entries: List[Dict[str, object]] = []
    for index, pem in enumerate(pems):
        description = describe_pem(pem) or {'subject': '', 'not_after': None}
        entries.append(dict(description, alias='certificate %d' % (index + 1)))
    return None, entries, pems


def _keytool_error(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    wanted = [line for line in lines if line.startswith('keytool error')]
    return (wanted or lines or ['keytool failed'])[-1][:300]


def handshake(host: str, port: int, pem_certificates: Sequence[str], check_hostname: bool, timeout: float = 10.0) -> str:
    """Connect to a broker and verify its chain against these certificates: 'verified' or why not."""
    context = ssl.create_default_context(cadata='\n'.join(pem_certificates))
    context.check_hostname = check_hostname
    # Java trusts any certificate of its trust store as an anchor (an intermediate CA too) and does
    # not apply the RFC 5280 strictness newer Pythons default to: judge the chain as Kafka would.
    context.verify_flags |= getattr(ssl, 'VERIFY_X509_PARTIAL_CHAIN', 0)
    context.verify_flags &= ~getattr(ssl, 'VERIFY_X509_STRICT', 0)
    try:
        with socket.create_connection((host, port), timeout=timeout) as raw:
            with context.wrap_socket(raw, server_hostname=host):
                return VERIFIED
    except ssl.SSLCertVerificationError as exc:
        return 'refused: %s' % (exc.verify_message or exc.reason or exc)
    except ssl.SSLError as exc:
        # The chain is verified when the broker's certificate arrives; a broker that wants a client
        # certificate (mutual TLS) ends the handshake only after that, with one of these alerts.
        if exc.reason in _CLIENT_CERTIFICATE_ALERTS:
            return VERIFIED
        return 'no handshake: %s' % exc
    except OSError as exc:
        return 'no handshake: %s' % exc


def bootstrap_endpoints(servers: str) -> List[Tuple[str, int]]:
    endpoints = []
    for entry in (part.strip() for part in servers.split(',')):
        host, _sep, port = entry.rpartition(':')
        if host and port.isdigit():
            endpoints.append((host.strip('[]'), int(port)))
    return endpoints


def check_store(report: StoreReport, settings: Mapping[str, str], prefix: str, reader: StoreReader, user: str,
                warn_days: int, now: datetime.datetime) -> List[str]:
    """Fills `report` for one store and returns its PEM certificates (for the handshake)."""
    path = report.path
    if not os.path.isfile(path):
        report.errors.append('%s does not exist' % path)
        return []
    reason = unreadable_reason(path, user) if user else None
    if reason:
        report.errors.append('%s: %s' % (path, reason))
    password = settings.get(prefix + '.password', '')
    error, entries, pems = reader.read(path, settings.get(prefix + '.type', ''), password)
    if error:
        report.errors.append('%s cannot be opened with its password (%s.password): %s' % (path, prefix, error))
        return []
    if not entries:
        report.errors.append('%s holds no certificate' % path)
    for entry in entries:
        not_after = entry['not_after']
        days_left = None if not_after is None else (not_after - now).days  # type: ignore[operator]
        report.certificates.append({'alias': entry['alias'], 'subject': entry['subject'], 'days_left': days_left,
                                    'not_after': not_after.isoformat() if not_after else None})  # type: ignore[union-attr]
        if days_left is None:
            continue
        named = '%s: certificate %s (%s)' % (path, entry['alias'], entry['subject'])
        if days_left < 0:
            report.errors.append('%s expired on %s' % (named, not_after.date()))  # type: ignore[union-attr]
        elif days_left < warn_days:
            report.warnings.append('%s expires on %s, in %d days' % (named, not_after.date(), days_left))  # type: ignore[union-attr]
    return pems


def check_cluster(alias: str, settings: Mapping[str, str], reader: StoreReader, user: str, warn_days: int,
                  now: datetime.datetime, verify_chain: bool = True) -> List[StoreReport]:
    """The reports of the stores one cluster's client settings name, the trust store's handshake included."""
    reports = []
    for kind, prefix in STORE_SETTINGS:
        path = settings.get(prefix + '.location', '')
        if not path:
            continue
        report = StoreReport(alias, kind, path)
        pems = check_store(report, settings, prefix, reader, user, warn_days, now)
        if kind == 'truststore' and pems and verify_chain:
            report.handshake = first_handshake(settings, pems)
            if report.handshake != VERIFIED:
                report.errors.append('%s does not verify the brokers of %s: %s' % (path, alias, report.handshake))
        reports.append(report)
    return reports


def first_handshake(settings: Mapping[str, str], pems: Sequence[str]) -> str:
    """The handshake with the first broker that answers; the last failure when none verifies."""
    check_hostname = settings.get('ssl.endpoint.identification.algorithm', 'https').lower() == 'https'
    outcome = 'no bootstrap server'
    for host, port in bootstrap_endpoints(settings.get('bootstrap.servers', '')):
        outcome = handshake(host, port, pems, check_hostname)
        if not outcome.startswith('no handshake'):
            return outcome
    return outcome
