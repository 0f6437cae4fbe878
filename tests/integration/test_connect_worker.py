"""connect_worker refuses bad input before it changes anything on a running worker."""

from __future__ import annotations

import subprocess

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


@pytest.mark.parametrize(
    ("extra_vars", "expected_message"),
    [
        ("connect_worker_exactly_once_source_support=sometimes", "connect_worker_exactly_once_source_support"),
        ("connect_worker_bootstrap_servers=dst-kafka-1:19092", "cannot reach Kafka at dst-kafka-1:19092"),
        ("connect_worker_bootstrap_servers=dst-kafka-1", "comma-separated host:port list"),
    ],
    ids=["unknown-eos-value", "unreachable-bootstrap", "malformed-bootstrap"],
)
def test_bad_input_fails_clearly_and_leaves_the_worker_as_it_was(
        running_worker: tuple[str, str], extra_vars: str, expected_message: str) -> None:
    run = ansible_run.playbook("playbooks/connect.yml", "--limit", WORKER, "-e", extra_vars)

    assert run.returncode != 0
    assert expected_message in run.output
    assert worker_fingerprint() == running_worker
