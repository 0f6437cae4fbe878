"""Whether the staged TLS material of a host is current: real keys and certificates in a temporary CA
directory, a manifest recorded after a build, then each thing that must send the role back to building."""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
from typing import Any, Dict, Tuple

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils import tls_staged

NOW = datetime.datetime(2026, 6, 1, tzinfo=datetime.timezone.utc)
PASSWORD = 'store-secret-123'


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


def _certificate(subject: str, key: ec.EllipticCurvePrivateKey, issuer: str, issuer_key: ec.EllipticCurvePrivateKey,
                 days: int) -> bytes:
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(NOW - datetime.timedelta(days=1))
            .not_valid_after(NOW + datetime.timedelta(days=days))
            .sign(issuer_key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM)


def _write(path: Path, content: bytes, mode: int) -> None:
    path.write_bytes(content)
    path.chmod(mode)


def build_material(ca_dir: Path, host: str = 'src-kafka-1', host_days: int = 365, ca_days: int = 3650) -> Path:
    """What a build of the role leaves on the controller for one host (contents need only be real PEM)."""
    stage_dir = ca_dir / 'hosts' / host
    for directory in (ca_dir, ca_dir / 'ca', ca_dir / 'hosts', stage_dir):
        directory.mkdir(mode=0o700, exist_ok=True)
        directory.chmod(0o700)
    ca_key, host_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_pem = _certificate('lab CA', ca_key, 'lab CA', ca_key, ca_days)
    cert_pem = _certificate(host, host_key, 'lab CA', ca_key, host_days)
    _write(ca_dir / 'ca' / 'ca.key', _key_pem(ca_key), 0o600)
    _write(ca_dir / 'ca' / 'ca.pem', ca_pem, 0o644)
    _write(stage_dir / 'key.pem', _key_pem(host_key), 0o600)
    _write(stage_dir / 'cert.pem', cert_pem, 0o644)
    for name in ('ca.pem', 'issuer.pem'):
        _write(stage_dir / name, ca_pem, 0o644)
    _write(stage_dir / 'chain.pem', cert_pem + ca_pem, 0o644)
    _write(stage_dir / 'keystore.pem', _key_pem(host_key) + cert_pem + ca_pem, 0o600)
    _write(stage_dir / 'keystore.p12', b'pkcs12 bytes', 0o600)
    return stage_dir


def params(ca_dir: Path, stage_dir: Path, **changes: Any) -> Dict[str, Any]:
    """The arguments the role passes, with its defaults."""
    base = {
        'ca_dir': str(ca_dir), 'stage_dir': str(stage_dir), 'mode': 'generate', 'ca_roll': 'none', 'force_renew': False,
        'key_type': 'ECC', 'key_size': 2048, 'key_curve': 'secp256r1', 'common_name': stage_dir.name,
        'subject_alt_names': ['DNS:' + stage_dir.name], 'pkcs12': True, 'store_password': PASSWORD,
        'ca_valid_days': 3650, 'ca_renew_days': 365, 'cert_valid_days': 365, 'renew_days': 30,
    }
    base.update(changes)
    return base


@pytest.fixture
def recorded(tmp_path: Path) -> Tuple[Path, Path]:
    ca_dir = tmp_path / 'tls'
    stage_dir = build_material(ca_dir)
    tls_staged.record(params(ca_dir, stage_dir))
    return ca_dir, stage_dir


def test_material_recorded_after_a_build_is_current(recorded: Tuple[Path, Path]) -> None:
    assert tls_staged.check(params(*recorded), NOW) == (True, 'the staged material is what this run would build')


def test_the_manifest_is_private_and_holds_no_password(recorded: Tuple[Path, Path]) -> None:
    manifest_path = recorded[1] / tls_staged.MANIFEST_NAME
    assert manifest_path.stat().st_mode & 0o777 == 0o600
    text = manifest_path.read_text()
    assert PASSWORD not in text
    assert set(json.loads(text)['files']) == {'ca/ca.key', 'ca/ca.pem', 'host/key.pem', 'host/cert.pem', 'host/ca.pem',
                                              'host/issuer.pem', 'host/chain.pem', 'host/keystore.pem',
                                              'host/keystore.p12'}


def test_material_without_a_manifest_is_built(tmp_path: Path) -> None:
    ca_dir = tmp_path / 'tls'
    stage_dir = build_material(ca_dir)
    assert tls_staged.check(params(ca_dir, stage_dir), NOW) == (False, 'no manifest of an earlier build')


def test_an_unreadable_manifest_is_built_again(recorded: Tuple[Path, Path]) -> None:
    (recorded[1] / tls_staged.MANIFEST_NAME).write_text('{not json')
    assert tls_staged.check(params(*recorded), NOW) == (False, 'no manifest of an earlier build')


@pytest.mark.parametrize('changes, reason', [
    ({'mode': 'provided'}, 'the operator provides the files (kafka_tls_mode provided)'),
    ({'ca_roll': 'add'}, 'a CA roll step (kafka_tls_ca_roll add) runs'),
    ({'force_renew': True}, 'kafka_tls_force_renew asks for new keys and certificates'),
    ({'subject_alt_names': ['DNS:src-kafka-1', 'IP:10.0.0.5']}, 'the settings changed since the last build: subject_alt_names'),
    ({'key_curve': 'secp384r1'}, 'the settings changed since the last build: key_curve'),
    ({'key_type': 'RSA'}, 'the settings changed since the last build: key_curve, key_size, key_type'),
    ({'common_name': 'broker.example'}, 'the settings changed since the last build: common_name'),
    ({'pkcs12': False}, 'the settings changed since the last build: pkcs12'),
    ({'store_password': 'another-secret'}, 'the store password changed since the last build'),
    ({'renew_days': 400}, "the host's certificate is due for renewal"),
    ({'ca_renew_days': 3700}, 'the CA certificate is due for renewal'),
])
def test_each_setting_that_changes_the_material_sends_the_role_back_to_building(
        recorded: Tuple[Path, Path], changes: Dict[str, Any], reason: str) -> None:
    assert tls_staged.check(params(*recorded, **changes), NOW) == (False, reason)


def test_an_unrelated_key_size_does_not_matter_for_ecc_keys(recorded: Tuple[Path, Path]) -> None:
    assert tls_staged.check(params(*recorded, key_size=4096), NOW)[0] is True


def test_time_alone_brings_the_renewal_window(recorded: Tuple[Path, Path]) -> None:
    later = NOW + datetime.timedelta(days=340)
    assert tls_staged.check(params(*recorded), later) == (False, "the host's certificate is due for renewal")


@pytest.mark.parametrize('name', ['ca/ca.pem', 'ca/ca.key', 'hosts/src-kafka-1/cert.pem', 'hosts/src-kafka-1/keystore.p12'])
def test_a_file_changed_behind_the_role_is_built_again(recorded: Tuple[Path, Path], name: str) -> None:
    path = recorded[0] / name
    path.write_bytes(path.read_bytes() + b'\n')
    current, reason = tls_staged.check(params(*recorded), NOW)
    assert not current
    assert reason.startswith('files changed since the last build: ') and name.split('/')[-1] in reason


def test_a_removed_file_or_a_loosened_mode_is_built_again(recorded: Tuple[Path, Path]) -> None:
    ca_dir, stage_dir = recorded
    (stage_dir / 'keystore.pem').chmod(0o644)
    assert tls_staged.check(params(ca_dir, stage_dir), NOW) == (False, 'files changed since the last build: host/keystore.pem')
    (stage_dir / 'keystore.pem').chmod(0o600)
    (stage_dir / 'chain.pem').unlink()
    assert tls_staged.check(params(ca_dir, stage_dir), NOW) == (False, 'files changed since the last build: host/chain.pem')
    (stage_dir / 'chain.pem').write_bytes(b'')
    os.chmod(ca_dir / 'hosts', 0o755)
    assert tls_staged.check(params(ca_dir, stage_dir), NOW)[1] == 'files changed since the last build: host/chain.pem, hosts/'


def test_a_ca_roll_in_progress_is_never_current(recorded: Tuple[Path, Path]) -> None:
    ca_dir, stage_dir = recorded
    (ca_dir / 'ca-next').mkdir()
    (ca_dir / 'ca-next' / 'ca.pem').write_bytes((ca_dir / 'ca' / 'ca.pem').read_bytes())
    assert tls_staged.check(params(ca_dir, stage_dir), NOW) == (False, 'a CA roll is in progress (ca-next/ca.pem exists)')


def test_recording_again_after_a_build_makes_it_current_again(recorded: Tuple[Path, Path]) -> None:
    ca_dir, stage_dir = recorded
    build_material(ca_dir)
    assert not tls_staged.check(params(ca_dir, stage_dir), NOW)[0]
    manifest = tls_staged.record(params(ca_dir, stage_dir))
    assert 'store_password' not in manifest
    assert tls_staged.check(params(ca_dir, stage_dir), NOW)[0] is True


def test_without_pkcs12_the_p12_file_is_not_part_of_the_material(tmp_path: Path) -> None:
    ca_dir = tmp_path / 'tls'
    stage_dir = build_material(ca_dir)
    (stage_dir / 'keystore.p12').unlink()
    tls_staged.record(params(ca_dir, stage_dir, pkcs12=False))
    assert tls_staged.check(params(ca_dir, stage_dir, pkcs12=False), NOW)[0] is True
