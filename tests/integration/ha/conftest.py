"""The three-node lab for the drills of this directory (`make integration-ha`).

The session deploys the lab at the previous Kafka release: the rolling upgrade drill, last,
moves it to the current one. The tests run in file order, one at a time: each drill owns the
lab while it injects its faults. KAFKA_DR_HA_DEPLOYED=1 skips the deployment (a lab already
deployed at the previous release, while a drill is being written).
"""

from __future__ import annotations

import os

import pytest

from tests.integration import lab
from tests.integration.ha import drill


@pytest.fixture(scope="session")
def halab() -> drill.HaLab:
    if lab.LAB_SHAPE != "ha":
        pytest.fail("tests/integration/ha run on the three-node lab: use `make integration-ha` (LAB_SHAPE=ha)")
    halab = drill.HaLab()
    if os.environ.get("KAFKA_DR_HA_DEPLOYED") == "1":  # while developing a drill: the lab is already up
        return halab
    # playbooks/lab.yml provisions the brokers already: site.yml goes on from the workers.
    for playbook, options in (("playbooks/lab.yml", ()), ("site.yml", ("--skip-tags", "kafka,validate")),
                              ("playbooks/validate.yml", ("--tags", "replication_check_install"))):
        run = halab.playbook(playbook, None, *options)
        assert run.returncode == 0, f"{playbook}:\n{run.output[-6000:]}"
    return halab
