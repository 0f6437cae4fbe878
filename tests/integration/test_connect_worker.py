"""connect_worker refuses bad input before it changes anything on a running worker."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from typing import Iterator

import pytest

from tests.integration import ansible_run, lab

WORKER = lab.CONNECT_WORKERS[0]
PROPERTIES = "/etc/kafka/connect/connect-distributed.properties"


def worker_fingerprint() -> tuple[str, str]:
    """Checksum of the worker's properties and the PID of its JVM."""
    checksum = subprocess.run(["docker", "exec", WORKER, "sha256sum", PROPERTIES],
                              capture_output=True, text=True, check=True).stdout.split()[0]
    main_pid = subprocess.run(["docker", "exec", WORKER, "systemctl", "show", "-p", "MainPID", "--value", "kafka-connect"],
                              capture_output=True, text=True, check=True).stdout.strip()
    return checksum, main_pid


@pytest.fixture(scope="module")
def running_worker(lab_brokers: tuple[str, str]) -> tuple[str, str]:
    if not lab.container_running(WORKER):
        pytest.fail(f"{WORKER} is not running; bring the lab up with `make lab` and `ansible-playbook site.yml`")
    before = worker_fingerprint()
    assert before[1] not in ("", "0"), "the Connect worker is not running"
    return before


# Files the security cases point the worker at: a CA that did not sign the brokers'
# certificates, and a keytab only root can read.
# (Not /tmp: the container's systemd mounts a tmpfs there.)
PLANTED_DIR = "/var/lib/kafka-dr-itest"
FOREIGN_CA = PLANTED_DIR + "/foreign-ca.pem"
UNREADABLE_KEYTAB = PLANTED_DIR + "/unreadable.keytab"
REFUSED = "dst-kafka-1:9094 refused the worker's"
OTHER_SCRAM_MECHANISM = next(mechanism for mechanism in lab.MM2_PASSWORD_KEYS if mechanism != lab.scram_mechanism())


@pytest.fixture(scope="module")
def planted_files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    directory = tmp_path_factory.mktemp("worker-bad-input")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Not The Lab CA",
                    "-keyout", str(directory / "ca.key"), "-out", str(directory / "ca.pem")],
                   check=True, capture_output=True)
    subprocess.run(["docker", "exec", "-i", WORKER, "sh", "-c",
                    f"mkdir -p -m 0755 {PLANTED_DIR} && cat > {FOREIGN_CA} && chmod 0644 {FOREIGN_CA}"
                    f" && head -c 64 /dev/urandom > {UNREADABLE_KEYTAB} && chmod 0600 {UNREADABLE_KEYTAB}"],
                   input=(directory / "ca.pem").read_bytes(), check=True)
    yield
    subprocess.run(["docker", "exec", WORKER, "rm", "-rf", PLANTED_DIR], check=False)


# Each bad input (extra vars of one run) and what its run must print.
BAD_INPUTS: dict[str, tuple[str, list[str]]] = {
    "unknown-eos-value": ("connect_worker_exactly_once_source_support=sometimes",
                          ["connect_worker_exactly_once_source_support"]),
    "unreachable-bootstrap": ("connect_worker_bootstrap_servers=dst-kafka-1:19092",
                              ["cannot reach Kafka at dst-kafka-1:19092"]),
    "malformed-bootstrap": ("connect_worker_bootstrap_servers=dst-kafka-1", ["comma-separated host:port list"]),
    "rest-open-to-the-network": ("connect_worker_rest_scheme=http connect_worker_rest_basic_auth=false",
                                 # The listener binds the host's inventory address by default.
                                 [f"the REST API would listen on {lab.CONNECT_WORKERS[0]}:8083 with plain HTTP and no authentication",
                                  "connect_worker_rest_insecure=true", "Nothing was changed."]),
    "wrong-password": ("connect_worker_kafka_sasl_password=not-the-password",
                       [REFUSED + f" SASL_SSL/{lab.scram_mechanism()} settings for connect", "SaslAuthenticationException",
                        "invalid credentials", "Nothing was changed."]),
    # The brokers offer both SCRAM mechanisms (for a rotation without a window); the account has a
    # credential for the lab's current one only.
    "mechanism-without-a-credential": (f"connect_worker_kafka_sasl_mechanism={OTHER_SCRAM_MECHANISM}",
                                       [REFUSED + f" SASL_SSL/{OTHER_SCRAM_MECHANISM} settings for connect",
                                        "SaslAuthenticationException", "Nothing was changed."]),
    "unknown-mechanism": ("connect_worker_kafka_sasl_mechanism=SCRAM-SHA-1",
                          ["value of connect_worker_kafka_sasl_mechanism must be one of: SCRAM-SHA-512, SCRAM-SHA-256,"
                           " PLAIN, GSSAPI, got: SCRAM-SHA-1"]),
    "untrusted-broker-certificate": (f"connect_worker_kafka_ssl_truststore_location={FOREIGN_CA}",
                                     [REFUSED, "SslAuthenticationException", "Nothing was changed."]),
    "unreadable-keytab": ("connect_worker_kafka_sasl_mechanism=GSSAPI connect_worker_kafka_kerberos_principal=connect@LAB.EXAMPLE"
                          f" connect_worker_kafka_kerberos_keytab={UNREADABLE_KEYTAB}",
                          [REFUSED + " SASL_SSL/GSSAPI settings for connect@LAB.EXAMPLE",
                           "caused by LoginException: Could not login", "Nothing was changed."]),
}


@pytest.fixture(scope="module")
def bad_input_runs(running_worker: tuple[str, str], planted_files: None) -> dict[str, ansible_run.Run]:
    """Every bad input's run of playbooks/connect.yml, two at a time (the other tests share the cores): each stops before it changes
    anything, so they cannot disturb one another, and the worker is compared afterwards."""
    def run(extra_vars: str) -> ansible_run.Run:
        return ansible_run.playbook("playbooks/connect.yml", "--limit", WORKER, "-e", extra_vars)

    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = {case: pool.submit(run, extra_vars) for case, (extra_vars, _messages) in BAD_INPUTS.items()}
        return {case: future.result() for case, future in runs.items()}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_fails_clearly_and_leaves_the_worker_as_it_was(
        running_worker: tuple[str, str], bad_input_runs: dict[str, ansible_run.Run], case: str) -> None:
    run = bad_input_runs[case]

    assert run.returncode != 0
    # The result callback wraps long messages: compared with runs of spaces and line breaks as one space.
    output = " ".join(run.output.split())
    for expected in BAD_INPUTS[case][1]:
        assert expected in output, run.output[-3000:]
    assert "not-the-password" not in run.output
    assert worker_fingerprint() == running_worker
