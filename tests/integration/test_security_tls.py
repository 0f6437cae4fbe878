"""Role kafka_tls on a container this module starts itself: issue, renew, bring your own CA.

The container (sec-it-tls-1 on the docker network kafka-dr-secure-it) is removed at the
end; nothing else is touched. Java's keytool, in the container, reads back the stores.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
from pathlib import Path
from typing import Iterator

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from tests.integration import ansible_run

# Named per run: two checkouts testing at once on one docker engine never share them.
CONTAINER = f"sec-it-tls-{os.getpid()}"
NETWORK = f"kafka-dr-secure-it-{os.getpid()}"
IMAGE = os.environ.get("KAFKA_DR_BASE_IMAGE", "kafka-dr/bookworm-systemd:3")
STORE_PASSWORD = "it-store-Rk4qZe"
TLS_DIR = "/etc/kafka/tls"

PLAYBOOK = """
- name: TLS material
  hosts: all
  gather_facts: false
  roles:
    - role: kafka_dr.mm2.kafka_tls
"""


def docker(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["docker", *args], capture_output=True, text=True, check=check, timeout=300)


def in_container(*args: str) -> str:
    return docker("exec", CONTAINER, *args).stdout


@pytest.fixture(scope="module")
def container() -> Iterator[str]:
    docker("rm", "-f", CONTAINER, check=False)
    if docker("network", "inspect", NETWORK, check=False).returncode != 0:
        docker("network", "create", NETWORK)
    docker("run", "-d", "--name", CONTAINER, "--hostname", CONTAINER, "--network", NETWORK,
           "--entrypoint", "sleep", IMAGE, "infinity")
    try:
        yield CONTAINER
    finally:
        docker("rm", "-f", CONTAINER, check=False)
        docker("network", "rm", NETWORK, check=False)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tls")


def converge(workdir: Path, name: str, **variables: object) -> ansible_run.Run:
    """Runs the role on the container with these variables; returns the run (output in JSON lines)."""
    inventory = {"all": {"hosts": {CONTAINER: {
        "ansible_connection": "community.docker.docker",
        "ansible_python_interpreter": "/usr/bin/python3",
        "kafka_tls_ca_dir": str(workdir / "ca"),
        "kafka_tls_store_password": STORE_PASSWORD,
        **variables,
    }}}}
    (workdir / (name + ".yml")).write_text(yaml.safe_dump(inventory), encoding="utf-8")
    playbook = workdir / "tls.yml"
    playbook.write_text(PLAYBOOK, encoding="utf-8")
    return ansible_run.playbook(str(playbook), "-i", str(workdir / (name + ".yml")))


def changed_count(run: ansible_run.Run) -> int:
    recap = [line for line in run.output.splitlines() if line.startswith(CONTAINER) and "changed=" in line]
    assert recap, run.output[-3000:]
    return int(recap[-1].split("changed=")[1].split()[0])


def certificate_serial() -> int:
    pem = in_container("cat", TLS_DIR + "/cert.pem").encode()
    return x509.load_pem_x509_certificates(pem)[0].serial_number


def keytool_list(store: str) -> str:
    return docker("exec", "-e", "STOREPASS=" + STORE_PASSWORD, CONTAINER, "keytool", "-list",
                  "-keystore", TLS_DIR + "/" + store, "-storetype", "PKCS12", "-storepass:env", "STOREPASS").stdout


def test_generate_is_idempotent_with_private_files(container: str, workdir: Path) -> None:
    first = converge(workdir, "generate")
    assert first.returncode == 0, first.output[-4000:]
    assert changed_count(first) > 0
    second = converge(workdir, "generate")
    assert second.returncode == 0, second.output[-4000:]
    assert changed_count(second) == 0

    modes = in_container("stat", "-c", "%n %U:%G %a", TLS_DIR, *(TLS_DIR + "/" + name for name in (
        "ca.pem", "cert.pem", "key.pem", "keystore.pem", "keystore.p12", "truststore.p12"))).splitlines()
    assert modes == [
        TLS_DIR + " root:kafka 750",
        TLS_DIR + "/ca.pem root:kafka 644",
        TLS_DIR + "/cert.pem root:kafka 644",
        TLS_DIR + "/key.pem kafka:kafka 600",
        TLS_DIR + "/keystore.pem kafka:kafka 600",
        TLS_DIR + "/keystore.p12 kafka:kafka 600",
        TLS_DIR + "/truststore.p12 root:kafka 640",
    ]
    assert "PrivateKeyEntry" in keytool_list("keystore.p12")
    assert "trustedCertEntry" in keytool_list("truststore.p12")
    assert (workdir / "ca" / "ca" / "ca.key").stat().st_mode & 0o777 == 0o600


def remaining_validity() -> datetime.timedelta:
    pem = in_container("cat", TLS_DIR + "/cert.pem").encode()
    not_after = x509.load_pem_x509_certificates(pem)[0].not_valid_after_utc
    return not_after - datetime.datetime.now(datetime.timezone.utc)


def test_certificate_is_renewed_near_expiry_only(container: str, workdir: Path) -> None:
    ca_dir = str(workdir / "renewal")
    short = converge(workdir, "short", kafka_tls_ca_dir=ca_dir, kafka_tls_cert_valid_days=10, kafka_tls_renew_days=5)
    assert short.returncode == 0, short.output[-4000:]
    serial_short = certificate_serial()
    assert datetime.timedelta(days=9) < remaining_validity() <= datetime.timedelta(days=10)

    # 10 days left, renewal window 5 days: kept.
    kept = converge(workdir, "short", kafka_tls_ca_dir=ca_dir, kafka_tls_cert_valid_days=10, kafka_tls_renew_days=5)
    assert kept.returncode == 0, kept.output[-4000:]
    assert changed_count(kept) == 0
    assert certificate_serial() == serial_short

    # 10 days left, renewal window 20 days: re-issued, valid 30 days.
    renewed = converge(workdir, "renew", kafka_tls_ca_dir=ca_dir, kafka_tls_cert_valid_days=30, kafka_tls_renew_days=20)
    assert renewed.returncode == 0, renewed.output[-4000:]
    assert certificate_serial() != serial_short
    assert datetime.timedelta(days=29) < remaining_validity() <= datetime.timedelta(days=30)

    again = converge(workdir, "renew", kafka_tls_ca_dir=ca_dir, kafka_tls_cert_valid_days=30, kafka_tls_renew_days=20)
    assert again.returncode == 0, again.output[-4000:]
    assert changed_count(again) == 0


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _ca(common_name: str) -> tuple[rsa.RSAPrivateKey, x509.Certificate]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(_name(common_name)).issuer_name(_name(common_name))
                   .public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=30))
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .sign(key, hashes.SHA256()))
    return key, certificate


def _host_certificate(host_key: rsa.RSAPrivateKey, issuer: x509.Certificate, issuer_key: rsa.RSAPrivateKey,
                      not_before: datetime.datetime, not_after: datetime.datetime) -> x509.Certificate:
    return (x509.CertificateBuilder().subject_name(_name(CONTAINER)).issuer_name(issuer.subject)
            .public_key(host_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(not_before).not_valid_after(not_after)
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(CONTAINER)]), critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
                           critical=False)
            .sign(issuer_key, hashes.SHA256()))


@pytest.fixture(scope="module")
def own_ca(workdir: Path) -> dict[str, Path]:
    """An operator's CA bundle (two CAs), a host certificate and its encrypted PKCS#1 key, a stray key,
    an expired certificate of the same key and one signed by a CA outside the bundle."""
    ca_key, ca_cert = _ca("Operator Root CA")
    other_ca = _ca("Operator Other CA")[1]
    outside_key, outside_ca = _ca("Somebody Else CA")
    host_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = datetime.datetime.now(datetime.timezone.utc)
    host_cert = _host_certificate(host_key, ca_cert, ca_key, now, now + datetime.timedelta(days=30))
    expired_cert = _host_certificate(host_key, ca_cert, ca_key, now - datetime.timedelta(days=30),
                                     now - datetime.timedelta(days=1))
    outside_cert = _host_certificate(host_key, outside_ca, outside_key, now, now + datetime.timedelta(days=30))
    directory = workdir / "own"
    directory.mkdir()
    files = {"bundle": directory / "bundle.pem", "cert": directory / "host.crt", "key": directory / "host.key",
             "stray": directory / "stray.key", "expired": directory / "expired.crt", "outside": directory / "outside.crt"}
    files["bundle"].write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM) + other_ca.public_bytes(serialization.Encoding.PEM))
    files["cert"].write_bytes(host_cert.public_bytes(serialization.Encoding.PEM))
    files["expired"].write_bytes(expired_cert.public_bytes(serialization.Encoding.PEM))
    files["outside"].write_bytes(outside_cert.public_bytes(serialization.Encoding.PEM))
    files["key"].write_bytes(host_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.BestAvailableEncryption(b"key-passphrase")))
    files["stray"].write_bytes(rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    for path in files.values():
        path.chmod(0o600)
    return files


@pytest.mark.parametrize(("certificate", "expected_message"), [
    ("expired", "Kafka clients would refuse it. Nothing was deployed."),
    ("outside", "peers trusting that bundle would refuse it. Nothing was deployed."),
], ids=["expired-certificate", "certificate-from-another-ca"])
def test_provided_certificate_that_peers_would_refuse_is_not_deployed(
        container: str, workdir: Path, own_ca: dict[str, Path], certificate: str, expected_message: str) -> None:
    before = in_container("sha256sum", TLS_DIR + "/cert.pem")
    run = converge(workdir, "refused-" + certificate, kafka_tls_mode="provided",
                   kafka_tls_ca_dir=str(workdir / ("stage-" + certificate)),
                   kafka_tls_provided_ca_cert=str(own_ca["bundle"]), kafka_tls_provided_cert=str(own_ca[certificate]),
                   kafka_tls_provided_key=str(own_ca["key"]), kafka_tls_provided_key_passphrase="key-passphrase")
    assert run.returncode != 0
    assert expected_message in run.output, run.output[-3000:]
    assert in_container("sha256sum", TLS_DIR + "/cert.pem") == before


def test_provided_key_that_does_not_match_is_refused(container: str, workdir: Path, own_ca: dict[str, Path]) -> None:
    before = in_container("sha256sum", TLS_DIR + "/cert.pem")
    run = converge(workdir, "mismatch", kafka_tls_mode="provided", kafka_tls_ca_dir=str(workdir / "stage-bad"),
                   kafka_tls_provided_ca_cert=str(own_ca["bundle"]), kafka_tls_provided_cert=str(own_ca["cert"]),
                   kafka_tls_provided_key=str(own_ca["stray"]))
    assert run.returncode != 0
    assert "is not the key of" in run.output
    assert in_container("sha256sum", TLS_DIR + "/cert.pem") == before


def test_provided_ca_certificate_and_encrypted_key(container: str, workdir: Path, own_ca: dict[str, Path]) -> None:
    variables = dict(kafka_tls_mode="provided", kafka_tls_ca_dir=str(workdir / "stage"),
                     kafka_tls_provided_ca_cert=str(own_ca["bundle"]), kafka_tls_provided_cert=str(own_ca["cert"]),
                     kafka_tls_provided_key=str(own_ca["key"]), kafka_tls_provided_key_passphrase="key-passphrase")
    run = converge(workdir, "provided", **variables)
    assert run.returncode == 0, run.output[-4000:]
    assert "key-passphrase" not in run.output

    assert in_container("cat", TLS_DIR + "/ca.pem") == own_ca["bundle"].read_text()
    assert in_container("head", "-n", "1", TLS_DIR + "/key.pem").strip() == "-----BEGIN PRIVATE KEY-----"
    chain = x509.load_pem_x509_certificates(in_container("cat", TLS_DIR + "/keystore.pem").encode())
    assert [certificate.subject.rfc4514_string() for certificate in chain] == [
        "CN=" + CONTAINER, "CN=Operator Root CA", "CN=Operator Other CA"]
    trusted = keytool_list("truststore.p12")
    assert trusted.count("trustedCertEntry") == 2, trusted

    again = converge(workdir, "provided", **variables)
    assert again.returncode == 0, again.output[-4000:]
    assert changed_count(again) == 0


def test_no_private_key_in_output(container: str, workdir: Path) -> None:
    run = converge(workdir, "generate")
    assert run.returncode == 0, run.output[-4000:]
    assert "PRIVATE KEY" not in run.output
    assert STORE_PASSWORD not in run.output
    assert json.dumps(STORE_PASSWORD) not in run.output
