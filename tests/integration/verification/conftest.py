"""The continuous verification drills (`make integration-verification`) run on the default lab
deployed by `make lab-deploy`, one test at a time in file order."""

from __future__ import annotations

import pytest

from tests.integration import lab


@pytest.fixture(scope="session", autouse=True)
def default_lab() -> None:
    if lab.LAB_SHAPE != "default":
        pytest.fail("tests/integration/verification run on the default lab: use `make integration-verification`")
    missing = [host for host in (*lab.LAB_BROKERS, *lab.CONNECT_WORKERS) if not lab.container_running(host)]
    if missing:
        pytest.fail(f"the lab is not up ({', '.join(missing)} missing): use `make integration-verification`")
