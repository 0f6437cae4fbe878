"""Credentials rotated while MirrorMaker 2 replicates, with nothing lost (docs/security.md,
"Rotating credentials"): SCRAM passwords, host certificates, a CA roll.

Each drill changes the inventory's source of truth (the lab's secret files in .lab/secrets, or
extra vars), reruns site.yml under a paced producer, and asserts that no connector or task
FAILED, that no worker logged an authentication error, that the validator finds 0 missing,
and that a second run changes nothing. The lab is left in its rotated state, which is
consistent: the secret files, the brokers and the workers all hold the new credentials.
"""

from __future__ import annotations

import subprocess

from tests.integration.ha import drill
from tests.integration import lab
from tests.integration.rotation import rotation
from tests.integration.rotation.rotation import RotationLab

WORKER_SECRETS = ("/etc/kafka/connect/secrets/mm2.properties", "/etc/kafka/connect/worker-secrets.properties")


def login_works(broker: str, username: str, password: str, mechanism: str) -> bool:
    """Whether the broker's SASL_SSL listener accepts the SCRAM account: the client settings go
    through stdin into a 0600 scratch file of the broker container, removed right after."""
    settings = ("security.protocol=SASL_SSL\nsasl.mechanism=%s\n"
                "ssl.truststore.type=PEM\nssl.truststore.location=%s\n"
                "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                'username="%s" password="%s";\n') % (mechanism, lab.LAB_CA, username, password)
    script = ("umask 077; f=$(mktemp); cat > \"$f\"; "
              f"timeout 60 {lab.KAFKA_RUN} org.apache.kafka.tools.ClusterTool cluster-id "
              f"--bootstrap-server {broker}:{lab.CLIENT_PORT} --command-config \"$f\"; rc=$?; rm -f \"$f\"; exit $rc")
    done = subprocess.run(["docker", "exec", "-i", broker, "bash", "-c", script], input=settings,
                          capture_output=True, text=True, timeout=120, check=False)
    return done.returncode == 0 and "Cluster ID:" in done.stdout


def file_digests(host: str, *paths: str) -> dict[str, str]:
    output = drill.docker("exec", host, "sha256sum", *paths)
    return {line.split()[1]: line.split()[0] for line in output.splitlines()}


def certificate_serial(host: str) -> str:
    return drill.docker("exec", host, "openssl", "x509", "-noout", "-serial", "-in", "/etc/kafka/tls/cert.pem").strip()


def served_serial(endpoint: str) -> str:
    """Serial of the certificate a broker or worker presents now, read from a worker that trusts the lab CA."""
    script = ("openssl s_client -connect %s -CAfile %s </dev/null 2>/dev/null | openssl x509 -noout -serial"
              % (endpoint, lab.LAB_CA))
    return drill.docker("exec", lab.CONNECT_WORKERS[-1], "bash", "-c", script).strip()


def trusted_subjects(host: str) -> list[str]:
    """Subjects of the CA certificates in the host's trust bundle (ca.pem)."""
    script = (f"openssl crl2pkcs7 -nocrl -certfile {lab.LAB_CA} | openssl pkcs7 -print_certs -noout "
              "| sed -n 's/^subject=//p'")
    return [line.strip() for line in drill.docker("exec", host, "bash", "-c", script).splitlines() if line.strip()]


def certificate_issuer(host: str) -> str:
    return drill.docker("exec", host, "openssl", "x509", "-noout", "-issuer", "-in",
                        "/etc/kafka/tls/cert.pem").strip().removeprefix("issuer=").strip()


def endpoints() -> dict[str, str]:
    """Every TLS endpoint of the lab: each broker's client listener, each worker's REST API."""
    found = {broker: f"{broker}:{lab.CLIENT_PORT}" for broker in lab.LAB_BROKERS}
    found.update({worker: f"{worker}:8083" for worker in lab.CONNECT_WORKERS})
    return found


def common_figures(changes: list[rotation.Change], verdicts: dict) -> dict:
    return dict(produced=sum(change.produced for change in changes), records=verdicts["records"],
                missing=verdicts["missing"], duplicates=verdicts["duplicates"], verdicts=verdicts["verdicts"],
                change_seconds=[change.seconds for change in changes],
                longest_stall_seconds=max(change.stall for change in changes),
                worker_restarts=[change.restarts for change in changes])


ACCOUNTS = ("connect", "mm2")
# Where each account has a credential: mm2 on both clusters, connect on the one behind the workers.
ACCOUNT_BROKERS = ((lab.SOURCE_BROKER, "mm2"), (lab.TARGET_BROKER, "mm2"), (lab.TARGET_BROKER, "connect"))


def logins(mechanism: str, passwords: dict[str, str]) -> dict[str, bool]:
    return {f"{broker} {name}": login_works(broker, name, passwords[name], mechanism) for broker, name in ACCOUNT_BROKERS}


def test_scram_rotation_without_a_window(rotlab: RotationLab) -> None:
    """New passwords for the MM2 account (both clusters) and the workers' connect account, with no
    moment where a client's credential is refused: Kafka keeps one password per account and
    mechanism, so the new passwords become the other SCRAM mechanism's credentials (stage), the
    clients move to that mechanism (switch: a rolling restart of the workers, the connectors
    reconfigured), then the old mechanism's credentials are deleted (retire). docs/security.md."""
    old_mechanism = lab.scram_mechanism()
    new_mechanism = rotation.other_scram_mechanism(old_mechanism)
    old = {name: lab.lab_secret(name) for name in ACCOUNTS}
    new = {name: rotation.new_password() for name in ACCOUNTS}
    changes = []

    staged = [{"name": name, "mechanism": new_mechanism, "password": new[name]} for name in ACCOUNTS]
    changes.append(rotation.change_under_load(rotlab, "scram-stage", {
        "lab_scram_rotation_accounts": staged,
        "lab_mm2_rotation_secrets": {lab.MM2_PASSWORD_KEYS[new_mechanism]: new["mm2"]}}))
    rotation.assert_clean(changes[-1])
    assert all(logins(old_mechanism, old).values()) and all(logins(new_mechanism, new).values())

    # The inventory's source of truth moves: the lab's files hold the new mechanism and passwords,
    # the old credentials are still declared (as an operator keeps them until the switch is done).
    rotation.record_scram_mechanism(new_mechanism)
    for name in ACCOUNTS:
        rotation.write_secret(name, new[name])
    before = {worker: file_digests(worker, *WORKER_SECRETS) for worker in lab.CONNECT_WORKERS}
    previous = [{"name": name, "mechanism": old_mechanism, "password": old[name]} for name in ACCOUNTS]
    changes.append(rotation.change_under_load(rotlab, "scram-switch", {
        "lab_scram_rotation_accounts": previous,
        "lab_mm2_rotation_secrets": {lab.MM2_PASSWORD_KEYS[old_mechanism]: old["mm2"]}}))
    rotation.assert_clean(changes[-1])
    assert all(count == 1 for count in changes[-1].restarts.values()), changes[-1].restarts
    for worker in lab.CONNECT_WORKERS:
        assert file_digests(worker, WORKER_SECRETS[1]) != {WORKER_SECRETS[1]: before[worker][WORKER_SECRETS[1]]}
    configs = [config for config in map(lab.connector_config, lab.connector_names())
               if config and (config.get("source.cluster.alias"), config.get("target.cluster.alias")) == ("src", "dst")]
    assert len(configs) == 3, configs
    assert all(config["source.cluster.sasl.mechanism"] == config["target.cluster.sasl.mechanism"] == new_mechanism
               for config in configs)

    retired = [{"name": name, "mechanism": old_mechanism, "state": "absent"} for name in ACCOUNTS]
    changes.append(rotation.change_under_load(rotlab, "scram-retire", {"lab_scram_rotation_accounts": retired}))
    rotation.assert_clean(changes[-1])
    assert logins(new_mechanism, new) == {key: True for key in logins(new_mechanism, new)}
    assert not any(logins(old_mechanism, old).values()), "an old credential still logs in"
    # A routine run afterwards (no rotation vars) changes nothing.
    rotation.assert_idempotent(rotlab)

    verdicts = rotation.verdict_figures(rotlab, changes)
    rotation.record_figures("scram-password", steps=["stage", "switch", "retire"], mechanisms=[old_mechanism, new_mechanism],
                            **common_figures(changes, verdicts))
    assert verdicts["missing"] == 0 and "FAIL" not in verdicts["verdicts"], verdicts


def test_host_certificate_renewal(rotlab: RotationLab) -> None:
    """kafka_tls_force_renew: every host gets a new key and certificate from the CA."""
    hosts = (*lab.LAB_BROKERS, *lab.CONNECT_WORKERS)
    before = {host: certificate_serial(host) for host in hosts}

    change = rotation.change_under_load(rotlab, "renew", {"kafka_tls_force_renew": True})
    rotation.assert_clean(change)

    after = {host: certificate_serial(host) for host in hosts}
    assert all(after[host] != before[host] for host in hosts), (before, after)
    # The restarted services present the new certificates.
    assert {host: served_serial(endpoint) for host, endpoint in endpoints().items()} == after
    assert all(count == 1 for count in change.restarts.values()), change.restarts
    rotation.assert_idempotent(rotlab)

    verdicts = rotation.verdict_figures(rotlab, [change])
    rotation.record_figures("host-certificates", **common_figures([change], verdicts))
    assert verdicts["missing"] == 0 and "FAIL" not in verdicts["verdicts"], verdicts


def test_ca_roll(rotlab: RotationLab) -> None:
    """kafka_tls_ca_roll add -> switch -> retire, one site.yml run each. A client keeps the trust
    store and certificate it started with, so each step has a producer (and topic) of its own,
    started after the step before, as an operator restarts clients between the steps."""
    hosts = (*lab.LAB_BROKERS, *lab.CONNECT_WORKERS)
    old_ca = trusted_subjects(lab.SOURCE_BROKER)
    assert len(old_ca) == 1, old_ca
    changes = []

    changes.append(rotation.change_under_load(rotlab, "ca-add", {"kafka_tls_ca_roll": "add"}))
    rotation.assert_clean(changes[-1])
    both = trusted_subjects(lab.SOURCE_BROKER)
    assert len(both) == 2 and both[0] == old_ca[0], both
    new_ca = both[1]
    assert {host: trusted_subjects(host) for host in hosts} == {host: both for host in hosts}
    assert {host: certificate_issuer(host) for host in hosts} == {host: old_ca[0] for host in hosts}

    changes.append(rotation.change_under_load(rotlab, "ca-switch", {"kafka_tls_ca_roll": "switch"}))
    rotation.assert_clean(changes[-1])
    assert {host: certificate_issuer(host) for host in hosts} == {host: new_ca for host in hosts}

    changes.append(rotation.change_under_load(rotlab, "ca-retire", {"kafka_tls_ca_roll": "retire"}))
    rotation.assert_clean(changes[-1])
    assert {host: trusted_subjects(host) for host in hosts} == {host: [new_ca] for host in hosts}
    served = {host: served_serial(endpoint) for host, endpoint in endpoints().items()}
    assert served == {host: certificate_serial(host) for host in hosts}
    # A routine run afterwards (no roll step) changes nothing.
    rotation.assert_idempotent(rotlab)

    verdicts = rotation.verdict_figures(rotlab, changes)
    rotation.record_figures("ca-roll", steps=["add", "switch", "retire"], **common_figures(changes, verdicts))
    assert verdicts["missing"] == 0 and "FAIL" not in verdicts["verdicts"], verdicts
