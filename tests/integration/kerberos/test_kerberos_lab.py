"""Kerberos end to end on the lab of inventories/lab-krb: a real MIT KDC, brokers that offer GSSAPI
alone on their SASL_SSL listener, and every client (the Connect worker, MirrorMaker 2's source and
target clients, the PySpark validation job) logging in with a keytab.

The tests run in file order: the replication first, then the refusals, which leave the lab as
they found it.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.integration import lab

REALM = "KAFKA-DR.LAB"
KDC = "krb-kdc-1"
WORKER = lab.CONNECT_WORKERS[0]
WORKER_SERVICE = "kafka-connect"
# The worker's own keytab lives beside its properties, outside the directory connector placeholders read.
WORKER_KEYTAB = "/etc/kafka/connect/kafka-client.keytab"
BROKER_LOG = "/var/log/kafka/broker/server.log"
RUN_ID = f"{int(time.time()) % 10**8:08d}"
# The principals the lab's clients log in as, and the ACL principal each maps to (DEFAULT rules).
CLIENT_PRINCIPALS = {f"connect/{WORKER}@{REALM}": "connect", f"mm2@{REALM}": "mm2", f"validator@{REALM}": "validator"}


def docker(*args: str, timeout: int = 120) -> str:
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"docker {' '.join(args[:3])}: {done.stderr[-1500:]}")
    return done.stdout


def kadmin(query: str, expected: str) -> None:
    """A query to the realm's database on the KDC host. kadmin.local exits 0 even when a query
    fails (the reason goes to stderr), so the caller names what success prints."""
    done = subprocess.run(["docker", "exec", KDC, "kadmin.local", "-r", REALM, "-q", query],
                          capture_output=True, text=True, timeout=60, check=True)
    assert expected in done.stdout + done.stderr, f"kadmin.local {query}: {done.stderr}"


def export_keytab(principal: str, destination: Path) -> None:
    """ktadd on the KDC (which gives the principal a new key), then the keytab to the controller."""
    on_kdc = f"/var/tmp/{destination.name}"  # not /tmp: docker cp does not see a tmpfs
    docker("exec", KDC, "rm", "-f", on_kdc)
    kadmin(f"ktadd -k {on_kdc} {principal}", "added to keytab")
    docker("cp", f"{KDC}:{on_kdc}", str(destination))
    docker("exec", KDC, "rm", "-f", on_kdc)
    destination.chmod(0o600)


def authenticated_ids(broker: str) -> set[str]:
    """The principals a broker logged as authenticated over GSSAPI."""
    log = docker("exec", broker, "cat", BROKER_LOG, timeout=60)
    return set(re.findall(r"Successfully authenticated client: authenticationID=([^;]+);", log))


def worker_state() -> tuple[str, str]:
    """The worker's process id and its keytab's checksum: what a refused change must leave alone."""
    pid = docker("exec", WORKER, "systemctl", "show", "-p", "MainPID", "--value", WORKER_SERVICE).strip()
    checksum = docker("exec", WORKER, "sha256sum", WORKER_KEYTAB).split()[0]
    return pid, checksum


def owner_and_mode(host: str, path: str) -> str:
    return docker("exec", host, "stat", "-c", "%U %a", path).strip()


def test_records_replicate_between_kerberized_clusters(krb_lab: dict[str, lab.PlaybookRun], tmp_path: Path) -> None:
    topic = f"foo.krb-{RUN_ID}"
    lab.create_topic(lab.SOURCE_BROKER, topic, 2)
    lab.produce(lab.SOURCE_BROKER, topic, [lab.Record(0, f"k{index}", f"kerberos-{index}", (("run", RUN_ID),)) for index in range(2000)])
    remote = f"src.{topic}"
    lab.wait_until(lambda: sum(lab.end_offsets(lab.TARGET_BROKER, remote).values()) >= 2000, 180,
                   f"2000 records on {remote}")

    run = lab.run_playbook("playbooks/validate.yml", {
        "replication_check_topics": [topic], "replication_check_groups": [],
        "replication_check_reports_dir": str(tmp_path)})
    assert run.returncode == 0, run.output[-4000:]
    report = json.loads(next(tmp_path.glob("*-replication-report.json")).read_text())
    print(f"\nvalidator: {report['verdict']} {json.dumps(report['totals'])}")
    assert report["verdict"] == "PASS"
    assert report["totals"]["source_records"] == 2000 and report["totals"]["missing"] == 0

    # Each client completed a GSSAPI handshake: the worker and MM2 with the target, MM2 and the
    # validation job with both clusters.
    target_ids, source_ids = authenticated_ids(lab.TARGET_BROKER), authenticated_ids(lab.SOURCE_BROKER)
    print(f"target broker authenticated {sorted(target_ids)}; source broker {sorted(source_ids)}")
    assert set(CLIENT_PRINCIPALS) <= target_ids
    assert {f"mm2@{REALM}", f"validator@{REALM}"} <= source_ids
    # No password account exists to fall back on: GSSAPI is the listener's only mechanism.
    assert "sasl.enabled.mechanisms=GSSAPI\n" in docker("exec", lab.TARGET_BROKER, "cat", "/etc/kafka/broker/server.properties")

    # Keytabs belong to the service user that reads them, and nobody else reads them.
    assert owner_and_mode(lab.SOURCE_BROKER, "/etc/kafka/broker/secrets/kafka.keytab") == "kafka 600"
    assert owner_and_mode(WORKER, WORKER_KEYTAB) == "kafka 600"
    # Nothing of the worker's own is where connector placeholders read: only the connectors' secrets.
    assert not {"kafka-client.keytab", "worker.properties"} & set(docker("exec", WORKER, "ls", "-A", lab.WORKER_SECRETS_DIR).split())
    assert owner_and_mode(WORKER, f"{lab.WORKER_SECRETS_DIR}/mm2.keytab") == "kafka 600"
    # Connector configs name the keytab, never a secret.
    config = lab.connector_config("mm2-src-dst-source")
    assert config is not None
    assert config["source.cluster.sasl.jaas.config"].endswith(
        f'keyTab="{lab.WORKER_SECRETS_DIR}/mm2.keytab" principal="mm2@{REALM}";')


def test_a_rerun_changes_nothing(krb_lab: dict[str, lab.PlaybookRun]) -> None:
    # The realm (a keytab exported again would re-key its principal), then the whole deployment.
    for playbook, options in (("playbooks/lab.yml", ("--tags", "kerberos_kdc")), ("site.yml", ("--skip-tags", "validate"))):
        run = lab.run_playbook(playbook, None, *options)
        assert run.returncode == 0, run.output[-4000:]
        changed = {host: counters["changed"] for host, counters in run.recap().items() if counters.get("changed")}
        assert changed == {}, f"{playbook} changed {changed}:\n{run.output[-4000:]}"


def refused_login(principal: str, keytab: Path) -> str:
    """Runs the worker's play with another principal and keytab; returns its failure message."""
    before = worker_state()
    run = lab.run_playbook("playbooks/connect.yml", {
        "connect_worker_kafka_kerberos_principal": principal,
        "connect_worker_kafka_kerberos_keytab_src": str(keytab)})
    assert run.returncode != 0, "the worker's play accepted a login the KDC refuses"
    assert worker_state() == before, "the refused settings reached the worker"
    found = re.search(r"Kafka at \S+ refused the worker's .*?Nothing was changed\.", run.output, re.DOTALL)
    assert found, run.output[-4000:]
    message = " ".join(found.group(0).split())
    print(f"\n{message}")
    assert principal in message
    return message


@pytest.fixture()
def principal_name(krb_lab: dict[str, lab.PlaybookRun]) -> str:
    return f"krbtest-{RUN_ID}-{time.monotonic_ns() % 10**6}"


def test_a_stale_keytab_is_refused_before_anything_changes(principal_name: str, tmp_path: Path) -> None:
    principal = f"{principal_name}@{REALM}"
    kadmin(f"addprinc -randkey {principal}", "created")
    try:
        stale = tmp_path / "stale.keytab"
        export_keytab(principal, stale)
        export_keytab(principal, tmp_path / "current.keytab")  # the principal's key changes again
        message = refused_login(principal, stale)
        assert "does not hold the principal's current key" in message, message
    finally:
        kadmin(f"delprinc -force {principal}", "deleted")


def test_a_missing_principal_is_refused_before_anything_changes(principal_name: str, tmp_path: Path) -> None:
    principal = f"{principal_name}@{REALM}"
    kadmin(f"addprinc -randkey {principal}", "created")
    keytab = tmp_path / "removed.keytab"
    export_keytab(principal, keytab)
    kadmin(f"delprinc -force {principal}", "deleted")  # as when the account is removed from the KDC
    message = refused_login(principal, keytab)
    assert "Client not found in Kerberos database" in message and "the KDC has no such principal" in message, message
