"""The default lab, deployed by `make lab-deploy`, for the rotation drills (`make integration-rotation`).

The drills run in file order, one at a time: each one owns the lab's credentials while it
changes them. The validation job is installed once for the session.
"""

from __future__ import annotations

import pytest

from tests.integration import lab
from tests.integration.rotation import rotation


@pytest.fixture(scope="session")
def rotlab() -> rotation.RotationLab:
    if lab.LAB_SHAPE != "default":
        pytest.fail("tests/integration/rotation run on the default lab: use `make integration-rotation`")
    rotlab = rotation.RotationLab()
    run = rotlab.playbook("playbooks/validate.yml", None, "--tags", "replication_check_install")
    assert run.returncode == 0, run.output[-4000:]
    return rotlab
