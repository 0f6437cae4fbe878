"""The MirrorSourceConnector configs the benchmark compares, and their deployment on the lab.

- defaults: the config the collection rendered for the lab's flow (the running
  mm2-src-dst-source connector, read back from Connect), pointed at one benchmark topic.
- stock: the first reference guide's source connector (tests/integration/fixtures/seeds/
  000_mm2-source-connector.json) with only what the secured lab needs changed: its client
  settings (SASL_SSL, as tests/integration/test_mirrormaker_seeds.py deploys it), its name, its
  topic list (its `^foo.*` would mirror the lab's own topics as well), and its producers' buffer
  (STOCK_PRODUCER_BUFFER: the lab's small worker heaps cannot hold the default's).

Only source connectors: heartbeats and checkpoints carry no records of the topic under test.
Connector names start with `bench-`, outside the role's prune prefix (`mm2-`).
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Optional

from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_naming import ReplicationNaming
from tests.integration import lab

# The lab's flows use the default replication policy.
NAMING = ReplicationNaming()

LAB_SOURCE_CONNECTOR = "mm2-src-dst-source"
# The defaults' connectors replicate under a source alias of their own. MirrorSourceConnector
# copies every heartbeats topic whatever its topic filter, from the start for a new connector:
# under the lab's alias each drain would append the whole source heartbeats topic to the lab's
# src.heartbeats again (stale heartbeats that wreck its latency figures and alerts).
BENCH_ALIAS = "bench"
STOCK_SEED = lab.REPO_ROOT / "tests" / "integration" / "fixtures" / "seeds" / "000_mm2-source-connector.json"
# The guide's config leaves each task's producer its default 32 MiB buffer. With linger 0 and 16 KiB
# batches its producers fall behind their consumers, the buffers fill, and at 100 B every buffered
# record also holds Connect's per-record objects: the guide's three tasks ran a 384 MiB lab worker
# out of heap. 4 MiB still holds hundreds of its 16 KiB batches (it sends one at a time).
STOCK_PRODUCER_BUFFER = {"producer.override.buffer.memory": str(4 * 1024 * 1024)}


@dataclass(frozen=True)
class Flow:
    """One connector config under test, and what the lab must hold for it to run."""

    label: str
    base_config: dict[str, str]
    grants: tuple[lab.Grant, ...] = ()
    # Topics MM2 would create with the guide's replication factor of 3, which the one-broker lab
    # cannot hold: created beforehand (MM2 leaves existing topics alone). (host, name, compacted)
    internal_topics: tuple[tuple[str, str, bool], ...] = field(default=())

    @property
    def source_alias(self) -> str:
        return self.base_config["source.cluster.alias"]

    def remote_topic(self, topic: str) -> str:
        return f"{self.source_alias}.{topic}"

    def config_for(self, name: str, topic: str, tasks_max: Optional[int] = None) -> dict[str, str]:
        return connector_config(self.base_config, name, topic, tasks_max)


def connector_config(base: dict[str, str], name: str, topic: str, tasks_max: Optional[int] = None) -> dict[str, str]:
    """A copy of base for one topic under a new name (tasks.max replaced when given)."""
    config = {**base, "name": name, "topics": "^" + re.escape(topic) + "$"}
    if tasks_max is not None:
        config["tasks.max"] = str(tasks_max)
    return config


def defaults_flow() -> Flow:
    live = lab.connector_config(LAB_SOURCE_CONNECTOR)
    if live is None:
        raise RuntimeError(f"{LAB_SOURCE_CONNECTOR} is not deployed: deploy the lab first (make lab-deploy)")
    config = {**live, "source.cluster.alias": BENCH_ALIAS}
    return Flow("defaults", config, tuple(lab.flow_grants(lab.SOURCE_BROKER, lab.TARGET_BROKER, BENCH_ALIAS,
                                                          config["target.cluster.alias"])))


def with_overrides(flow: Flow, label: str, overrides: dict[str, str]) -> Flow:
    """The flow under another label with some keys of its config replaced or added."""
    return replace(flow, label=label, base_config={**flow.base_config, **overrides})


def stock_config(seed: dict[str, str]) -> dict[str, str]:
    """The guide's config with the lab's client settings for both clusters (the guide's own
    bootstrap servers are replaced by them)."""
    config = dict(seed)
    config.update(lab.client_settings("source.cluster.", lab.SOURCE_BROKER))
    config.update(lab.client_settings("target.cluster.", lab.TARGET_BROKER))
    config.update(STOCK_PRODUCER_BUFFER)
    return config


def stock_grants(source_alias: str, target_alias: str) -> tuple[lab.Grant, ...]:
    """The guide sets no producer.override.*: the workers' own producer (User:connect) writes the
    remote topics. Its offset syncs stay on the source (MM2's default), where User:mm2 writes them."""
    return (*lab.flow_grants(lab.SOURCE_BROKER, lab.TARGET_BROKER, source_alias, target_alias),
            lab.Grant(lab.SOURCE_BROKER, ("Create", "Describe", "DescribeConfigs", "Read", "Write"),
                      ("--topic", NAMING.offset_syncs_topic(target_alias))),
            lab.Grant(lab.TARGET_BROKER, ("Write", "Describe"),
                      ("--topic", f"{source_alias}.", "--resource-pattern-type", "prefixed"),
                      principal="User:connect"))


def stock_flow() -> Flow:
    config = stock_config(json.loads(STOCK_SEED.read_text(encoding="utf-8")))
    source_alias, target_alias = config["source.cluster.alias"], config["target.cluster.alias"]
    return Flow("stock", config, stock_grants(source_alias, target_alias),
                ((lab.SOURCE_BROKER, NAMING.offset_syncs_topic(target_alias), True),))


# ---- on the lab -------------------------------------------------------------------------------

def tasks_running(name: str) -> bool:
    status = lab.connector_status(name) or {}
    tasks = status.get("tasks", [])
    return (status.get("connector", {}).get("state") == "RUNNING" and bool(tasks)
            and all(task.get("state") == "RUNNING" for task in tasks))


class TaskFailed(Exception):
    """A connector task is FAILED. Not a RuntimeError: lab.wait_until must not treat it as "not yet"."""


def failed_task_trace(status: dict[str, Any]) -> Optional[str]:
    """The first line of the error of the first FAILED task in a connector status, else None."""
    for task in status.get("tasks", []):
        if task.get("state") == "FAILED":
            lines = [line for line in str(task.get("trace", "")).splitlines() if "Caused by" in line]
            return (lines[-1] if lines else str(task.get("trace", "")).split("\n", 1)[0])[:500]
    return None


def raise_if_failed(name: str) -> bool:
    """True while no task of the connector has failed."""
    trace = failed_task_trace(lab.connector_status(name) or {})
    if trace is not None:
        raise TaskFailed(f"{name}: a task failed: {trace}")
    return True


def deploy(name: str, config: dict[str, str], timeout: float = 180) -> None:
    status, body = lab.connect_rest("PUT", f"/connectors/{name}/config", config)
    if status not in (200, 201):
        raise RuntimeError(f"deploying {name}: HTTP {status}: {body}")
    lab.wait_until(lambda: tasks_running(name), timeout, f"connector {name} to run its tasks")


def prepare_internal_topics(flow: Flow) -> None:
    for host, topic, compacted in flow.internal_topics:
        configs = ("cleanup.policy=compact",) if compacted else ()
        lab.create_topic(host, topic, 1, *configs)


@contextmanager
def granted(flow: Flow) -> Iterator[None]:
    """The flow's extra ACLs for the block; the ACLs MM2 synced for its remote topics go too."""
    if not flow.grants:
        yield
        return
    with lab.granted(list(flow.grants)):
        try:
            yield
        finally:
            if flow.source_alias != "src":
                lab.remove_synced_acls(lab.TARGET_BROKER, flow.source_alias)
                remove_flow_topics(flow)


def remove_flow_topics(flow: Flow) -> None:
    """The copies of the source's heartbeats and the offset syncs the flow's connectors made."""
    for host in (lab.SOURCE_BROKER, lab.TARGET_BROKER):
        made = {NAMING.remote_heartbeats_topic(flow.source_alias), NAMING.offset_syncs_topic(flow.source_alias)}
        left = made & lab.topic_names(host)
        if left:
            lab.delete_topics(host, *sorted(left))


def remove(name: str) -> None:
    """Best effort: a connector left behind must not hide the figure or the error before it."""
    try:
        lab.remove_connector(name)
    except (RuntimeError, lab.Deadline) as error:
        print(f"warning: could not remove connector {name}: {error}")
