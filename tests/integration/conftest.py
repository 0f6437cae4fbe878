"""Integration tests run against the lab that `make integration` brings up.

They run two at a time (`pytest -n 2`, pytest-xdist with `--dist loadgroup`): the work is
mostly waiting for MirrorMaker 2 and Kafka, so two streams of tests share the two cores
well. Each test module is one group (its module-scoped fixtures, such as extra brokers,
exist once), and the modules that deploy flows of the role's connector prefix (`mm2-`) with
the mirrormaker role share one group: the role's prune sees every such connector on the
Connect cluster, so those modules run one after the other. Modules that only add topics the
lab's flow replicates need not: the role's topic check forgets a source topic deleted while
it waits. The failover drill deploys its flows under a prefix of its own.

Whatever runs beside a test, it cleans up only what it named itself (names carry the run's
id, or an alias or prefix of the test's own), never "what appeared meanwhile"; it takes ACLs
through `lab.granted`, which counts holders across both processes so that one test's cleanup
never removes a right the other still needs; and runs of the validation job, which rewrite
its client settings on the task node, take turns (`lab.exclusive("validation")`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration import lab

LAB_FLOW_GROUP = "lab_flow"
LAB_FLOW_MODULES = frozenset({
    # Not a flow of the role's prefix, but its topics would be among those the lab-flow modules
    # find new on the lab and delete when they clean up.
    "test_bench_smoke.py",
    "test_mirrormaker_e2e.py",
    "test_mirrormaker_topologies.py",
    "test_security_lab.py",
})


def group_of(item: pytest.Item) -> str:
    module = Path(str(item.fspath)).name
    return LAB_FLOW_GROUP if module in LAB_FLOW_MODULES else module


# First: pytest-xdist's own hook turns the xdist_group marks into node ids on the workers.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(pytest.mark.xdist_group(group_of(item)))
    # Stable sort: the lab-flow group first, every module's tests in their file order.
    items.sort(key=lambda item: group_of(item) != LAB_FLOW_GROUP)


@pytest.fixture(scope="session")
def lab_brokers() -> tuple[str, str]:
    missing = [host for host in (lab.SOURCE_BROKER, lab.TARGET_BROKER) if not lab.container_running(host)]
    if missing:
        pytest.fail(f"lab hosts not running: {', '.join(missing)}; bring the lab up with `make lab`")
    return lab.SOURCE_BROKER, lab.TARGET_BROKER
