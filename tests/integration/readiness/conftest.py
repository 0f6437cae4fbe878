"""The readiness drills (`make integration-readiness`) run on the default lab deployed by
`make lab-deploy`, one test at a time in file order: they pause the lab's flow."""

from __future__ import annotations

import pytest

from tests.integration import lab


@pytest.fixture(scope="session", autouse=True)
def default_lab() -> None:
    if lab.LAB_SHAPE != "default":
        pytest.fail("tests/integration/readiness run on the default lab: use `make integration-readiness`")
    missing = [host for host in (*lab.LAB_BROKERS, *lab.CONNECT_WORKERS) if not lab.container_running(host)]
    if missing:
        pytest.fail(f"the lab is not up ({', '.join(missing)} missing): use `make integration-readiness`")
