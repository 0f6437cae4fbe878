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


# The order in which pytest-xdist hands out the groups (`--no-loadscope-reorder`): mostly
# longest first, measured on a clean clone on the project's 2-core machine (the drill about
# 900 s, the lab-flow group 840 s, the rest under 310 s each), so that the two processes end
# close together; by number of tests, the drill started late and the phase ran two minutes
# longer. Each process starts with two groups, the first and third to one, the second and fourth
# to the other: the validator's faults therefore run after the drill on the same process, not
# beside the drill's own validation runs (they share the task node and the `validation` lock,
# and side by side the faults module took three times as long). A new module goes where its time
# puts it; one left out runs last.
LONGEST_FIRST = (
    "test_failover_drill.py",
    LAB_FLOW_GROUP,
    "test_validator_faults.py",
    "test_mirrormaker_seeds.py",
    "test_auto_restart.py",
    "test_spark_cluster.py",
    "test_security_tls.py",
    "test_connect_worker.py",
    "test_separator_flow.py",
    "test_monitoring.py",
    "test_kafka_acls.py",
    "test_connector_module.py",
    "test_lab_kafka.py",
    "test_native_codecs.py",
    "test_secret_round_trip.py",
)


def group_of(item: pytest.Item) -> str:
    module = Path(str(item.fspath)).name
    return LAB_FLOW_GROUP if module in LAB_FLOW_MODULES else module


def rank_of(group: str) -> int:
    return LONGEST_FIRST.index(group) if group in LONGEST_FIRST else len(LONGEST_FIRST)


# First: pytest-xdist's own hook turns the xdist_group marks into node ids on the workers.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(pytest.mark.xdist_group(group_of(item)))
    # Stable sort: the longest groups first, every module's tests in their file order.
    items.sort(key=lambda item: rank_of(group_of(item)))


@pytest.fixture(scope="session")
def lab_brokers() -> tuple[str, str]:
    missing = [host for host in (lab.SOURCE_BROKER, lab.TARGET_BROKER) if not lab.container_running(host)]
    if missing:
        pytest.fail(f"lab hosts not running: {', '.join(missing)}; bring the lab up with `make lab`")
    return lab.SOURCE_BROKER, lab.TARGET_BROKER
