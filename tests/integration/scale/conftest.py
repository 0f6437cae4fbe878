"""The node lifecycle drills (`make integration-scale`) run on the default lab, deployed by
`make lab-deploy`, one test at a time in file order. The session's end gives the lab back the
shape of inventories/lab whatever the drills left: the first worker running again, the third one
drained and its container removed, the drills' topics deleted, the workers without the drills' jar and the flow on its own policy,
and Prometheus's targets back to the two task nodes."""

from __future__ import annotations

from typing import Iterator

import pytest

from tests.integration import lab
from tests.integration.scale import nodes


def _restore() -> None:
    if lab.container_running(nodes.NEW_WORKER):
        nodes.write_inventory(absent=(nodes.NEW_WORKER,))
        nodes.passed(nodes.playbook("playbooks/connect.yml"), "the third worker drained")
        lab.remove_container(nodes.NEW_WORKER)
    # The drills' topics, of this run and of runs that stopped before their end.
    drilled = sorted(topic for topic in lab.topic_names(lab.SOURCE_BROKER) if topic.startswith("foo.scale-"))
    if drilled:
        remote = set(lab.topic_names(lab.TARGET_BROKER))
        lab.delete_mirrored_topics(lab.SOURCE_BROKER, drilled, lab.TARGET_BROKER,
                                   [nodes.remote_of(topic) for topic in drilled if nodes.remote_of(topic) in remote],
                                   "mm2-src-dst-source")
    # As `make lab-deploy`: a node the drills left without its container comes back too.
    for playbook, options in (("playbooks/lab.yml", ()), ("site.yml", ("--skip-tags", "validate"))):
        run = lab.run_playbook(playbook, None, *options)
        assert run.returncode == 0, f"{playbook} on the lab's own inventory:\n{run.output[-6000:]}"


@pytest.fixture(scope="session", autouse=True)
def scale_lab() -> Iterator[None]:
    if lab.LAB_SHAPE != "default":
        pytest.fail("tests/integration/scale run on the default lab: use `make integration-scale`")
    missing = [host for host in lab.CONNECT_WORKERS if not lab.container_running(host)]
    if missing:
        pytest.fail(f"the lab is not up ({', '.join(missing)} missing): use `make integration-scale`")
    yield
    _restore()
