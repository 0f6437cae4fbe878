# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether a host's TLS material staged on the controller is still what the role would make
(role kafka_tls, action ``tls_staged``).

Building the material (CA check, host key, signing request, certificate, key stores) takes a
dozen crypto module runs per host on every run, even when nothing is due. After a build, the
role records a manifest next to the host's staged files: the inputs the material was made
from, a digest and mode of every file it depends on, and when the CA and host certificates
enter their renewal windows. A later run with the same inputs, untouched files and no renewal
due finds the material current and skips the build; any difference, or anything the manifest
cannot vouch for (a CA roll, provided files, a forced renewal), takes the full build, which
then records a new manifest.

The store password is kept as a salted PBKDF2 digest only: a changed password must rebuild
the PKCS12 key store, and the manifest sits beside the private key it protects.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import os
import stat
from typing import Any, Dict, List, Mapping, Optional, Tuple

MANIFEST_NAME = 'staged.json'
MANIFEST_VERSION = 1
PASSWORD_ITERATIONS = 100_000
# Files of a host's stage directory, relative to it; keystore.p12 only with PKCS12 stores.
HOST_FILES = ('key.pem', 'cert.pem', 'ca.pem', 'issuer.pem', 'chain.pem', 'keystore.pem')
PKCS12_FILE = 'keystore.p12'
# Files of the CA, relative to the CA directory.
CA_FILES = ('ca/ca.key', 'ca/ca.pem')
# A roll in progress keeps its new CA here; the manifest does not cover a roll.
NEXT_CA_CERT = 'ca-next/ca.pem'


def _digest(path: str) -> str:
    with open(path, 'rb') as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def _mode(path: str) -> str:
    return '%04o' % stat.S_IMODE(os.stat(path).st_mode)


def password_digest(password: str, salt: bytes) -> str:
    return hashlib.pbkdf2_hmac('sha256', password.encode('utf-8'), salt, PASSWORD_ITERATIONS).hex()


def not_after(cert_path: str) -> str:
    """The end of a PEM certificate's validity, as an ISO 8601 UTC time."""
    # Imported here: the sanity tests import plugins where cryptography may be missing.
    from cryptography import x509

    with open(cert_path, 'rb') as handle:
        cert = x509.load_pem_x509_certificate(handle.read())
    return cert.not_valid_after_utc.isoformat()


def inputs(params: Mapping[str, Any]) -> Dict[str, Any]:
    """What the material is made from, without the store password."""
    key_type = params['key_type']
    return {
        'key_type': key_type,
        'key_size': int(params['key_size']) if key_type == 'RSA' else None,
        'key_curve': params['key_curve'] if key_type == 'ECC' else None,
        'common_name': params['common_name'],
        'subject_alt_names': list(params['subject_alt_names']),
        'pkcs12': bool(params['pkcs12']),
        'ca_valid_days': int(params['ca_valid_days']),
        'cert_valid_days': int(params['cert_valid_days']),
    }


def _tracked(ca_dir: str, stage_dir: str, pkcs12: bool) -> Dict[str, str]:
    """Manifest name -> path of every file the staged material depends on."""
    names = HOST_FILES + ((PKCS12_FILE,) if pkcs12 else ())
    tracked = {'host/' + name: os.path.join(stage_dir, name) for name in names}
    tracked.update({name: os.path.join(ca_dir, name) for name in CA_FILES})
    return tracked


def _directories(ca_dir: str, stage_dir: str) -> Dict[str, str]:
    return {'ca_dir': ca_dir, 'ca': os.path.join(ca_dir, 'ca'), 'hosts': os.path.join(ca_dir, 'hosts'), 'host': stage_dir}


def build_manifest(params: Mapping[str, Any]) -> Dict[str, Any]:
    """The manifest of material just built (every tracked file must exist)."""
    ca_dir, stage_dir = params['ca_dir'], params['stage_dir']
    wanted = inputs(params)
    salt = os.urandom(16)
    files = {name: {'sha256': _digest(path), 'mode': _mode(path)}
             for name, path in _tracked(ca_dir, stage_dir, wanted['pkcs12']).items()}
    return {
        'version': MANIFEST_VERSION,
        'inputs': wanted,
        'store_password': {'salt': salt.hex(), 'pbkdf2_sha256': password_digest(params['store_password'], salt)},
        'files': files,
        'directories': {name: _mode(path) for name, path in _directories(ca_dir, stage_dir).items()},
        'not_after': {'ca': not_after(os.path.join(ca_dir, 'ca', 'ca.pem')),
                      'host': not_after(os.path.join(stage_dir, 'cert.pem'))},
    }


def _renewal_due(end: str, days: int, now: datetime.datetime) -> bool:
    return datetime.datetime.fromisoformat(end) <= now + datetime.timedelta(days=days)


def _load(path: str) -> Optional[Dict[str, Any]]:
    try:
        with open(path, 'r', encoding='utf-8') as handle:
            manifest = json.load(handle)
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def _file_differences(manifest: Mapping[str, Any], params: Mapping[str, Any]) -> List[str]:
    differences = []
    recorded_files = manifest.get('files') or {}
    tracked = _tracked(params['ca_dir'], params['stage_dir'], bool(params['pkcs12']))
    for name in sorted(set(tracked) | set(recorded_files)):
        path, recorded = tracked.get(name), recorded_files.get(name)
        if path is None or recorded is None or not os.path.isfile(path):
            differences.append(name)
        elif _mode(path) != recorded.get('mode') or _digest(path) != recorded.get('sha256'):
            differences.append(name)
    recorded_dirs = manifest.get('directories') or {}
    for name, path in _directories(params['ca_dir'], params['stage_dir']).items():
        if not os.path.isdir(path) or _mode(path) != recorded_dirs.get(name):
            differences.append(name + '/')
    return differences


def _password_matches(manifest: Mapping[str, Any], password: str) -> bool:
    recorded = manifest.get('store_password') or {}
    try:
        salt = bytes.fromhex(recorded['salt'])
    except (KeyError, TypeError, ValueError):
        return False
    return hmac.compare_digest(password_digest(password, salt), str(recorded.get('pbkdf2_sha256', '')))


def why_not_current(params: Mapping[str, Any], now: datetime.datetime) -> Optional[str]:
    """None when the staged material is current; otherwise why the role must build it."""
    if params['mode'] != 'generate':
        return 'the operator provides the files (kafka_tls_mode provided)'
    if params['ca_roll'] != 'none':
        return 'a CA roll step (kafka_tls_ca_roll %s) runs' % params['ca_roll']
    if params['force_renew']:
        return 'kafka_tls_force_renew asks for new keys and certificates'
    if os.path.exists(os.path.join(params['ca_dir'], NEXT_CA_CERT)):
        return 'a CA roll is in progress (%s exists)' % NEXT_CA_CERT
    manifest = _load(os.path.join(params['stage_dir'], MANIFEST_NAME))
    if manifest is None or manifest.get('version') != MANIFEST_VERSION:
        return 'no manifest of an earlier build'
    wanted, recorded = inputs(params), manifest.get('inputs') or {}
    if recorded != wanted:
        changed = sorted(key for key, value in wanted.items() if recorded.get(key) != value)
        return 'the settings changed since the last build: %s' % ', '.join(changed or ['(shape)'])
    differences = _file_differences(manifest, params)
    if differences:
        return 'files changed since the last build: %s' % ', '.join(differences)
    if not _password_matches(manifest, params['store_password']):
        return 'the store password changed since the last build'
    ends = manifest.get('not_after') or {}
    try:
        if _renewal_due(ends['ca'], int(params['ca_renew_days']), now):
            return 'the CA certificate is due for renewal'
        if _renewal_due(ends['host'], int(params['renew_days']), now):
            return "the host's certificate is due for renewal"
    except (KeyError, TypeError, ValueError):
        return 'the manifest lacks the certificates\' validity'
    return None


def check(params: Mapping[str, Any], now: Optional[datetime.datetime] = None) -> Tuple[bool, str]:
    """(current, reason) for the task's result."""
    reason = why_not_current(params, now or datetime.datetime.now(datetime.timezone.utc))
    return (reason is None, reason or 'the staged material is what this run would build')


def record(params: Mapping[str, Any]) -> Dict[str, Any]:
    """Write the manifest of the material just built; returns what it holds, secrets aside."""
    manifest = build_manifest(params)
    path = os.path.join(params['stage_dir'], MANIFEST_NAME)
    scratch = path + '.tmp'
    descriptor = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, 'w', encoding='utf-8') as handle:
        json.dump(manifest, handle, indent=1, sort_keys=True)
    os.replace(scratch, path)
    return {key: value for key, value in manifest.items() if key != 'store_password'}
