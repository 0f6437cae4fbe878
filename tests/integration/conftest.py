"""Integration tests run against the lab that `make integration` brings up."""

from __future__ import annotations

import pytest

from tests.integration import lab


@pytest.fixture(scope="session")
def lab_brokers() -> tuple[str, str]:
    missing = [host for host in (lab.SOURCE_BROKER, lab.TARGET_BROKER) if not lab.container_running(host)]
    if missing:
        pytest.fail(f"lab hosts not running: {', '.join(missing)}; bring the lab up with `make lab`")
    return lab.SOURCE_BROKER, lab.TARGET_BROKER
