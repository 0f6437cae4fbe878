"""The Kerberos lab for the tests of this directory (`make integration-krb`, LAB_SHAPE=krb).

The session provisions the lab (the KDC, then the brokers with GSSAPI) and deploys the worker
and MirrorMaker 2 on it. KAFKA_DR_KRB_DEPLOYED=1 skips both (a lab already
deployed, while a test is being written).
"""

from __future__ import annotations

import os

import pytest

from tests.integration import lab


@pytest.fixture(scope="session")
def krb_lab() -> dict[str, lab.PlaybookRun]:
    if lab.LAB_SHAPE != "krb":
        pytest.fail("tests/integration/kerberos run on the Kerberos lab: use `make integration-krb` (LAB_SHAPE=krb)")
    runs: dict[str, lab.PlaybookRun] = {}
    if os.environ.get("KAFKA_DR_KRB_DEPLOYED") == "1":
        return runs
    # playbooks/lab.yml provisions the realm and the brokers: site.yml goes on from the worker
    # (the first test's validation play installs the job).
    for playbook, options in (("playbooks/lab.yml", ()), ("site.yml", ("--skip-tags", "kafka,validate"))):
        run = lab.run_playbook(playbook, None, *options)
        assert run.returncode == 0, f"{playbook}:\n{run.output[-6000:]}"
        runs[playbook] = run
    return runs
