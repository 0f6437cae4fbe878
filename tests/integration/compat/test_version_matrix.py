"""The version matrix (`make compat`, docs/compatibility.md): flows between brokers of other
releases, started from unmodified distributions as an existing estate runs them
(tests/integration/estates.py), through the lab's Connect (the collection's release) and through a
plain `connect-distributed` of 3.9.1 that the collection did not provision.

Each cell deploys one flow with playbooks/mirrormaker.yml, then shows, from what it produced and
consumed:
- every record replicates, keys, values and headers equal;
- a topic config changed on the source after the first sync reaches the remote topic;
- a consumer group's commit on the source is synced to the target (MM2's offset sync);
- a planned failover (playbooks/failover.yml) skips nothing and re-reads nothing but the
  records the exact translation could not place;
- the PySpark validator (playbooks/validate.yml) passes.
Cells print their figures (-s) and append them to build/compat-figures.jsonl.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from ansible_collections.kafka_dr.mm2.plugins.module_utils import kafka_api_versions

from tests.integration import estates, lab

RUN_ID = f"{os.getpid()}{int(time.time()) % 100000}"
PREFIX = "compat-"
NODE = lab.CONNECT_WORKERS[0]
TOOL = "/var/tmp/drill_client.py"
TOOL_PYTHON = "/opt/kafka-dr/failover/venv/bin/python"
PARTITIONS = 2
RECORDS, CONSUMED = 600, 250
AFTER_FAILBACK = 100
RATE = 2000
TIMEOUT = 300
REPORTS = lab.REPO_ROOT / "build" / f"compat-{RUN_ID}"
FIGURES_FILE = lab.REPO_ROOT / "build" / "compat-figures.jsonl"
PLAIN_CONNECT = "compat-connect-1"


@dataclass(frozen=True)
class Cell:
    source: str
    target: str
    connect: str  # "lab": the lab's workers; otherwise the release of a plain connect-distributed

    @property
    def id(self) -> str:
        return f"{self.source}-to-{self.target}-connect-{self.connect}"

    def alias(self, side: str) -> str:
        return "k" + getattr(self, side).replace(".", "")

    @property
    def flow(self) -> str:
        return f"{self.alias('source')}->{self.alias('target')}"

    @property
    def topic(self) -> str:
        return f"orders.{self.alias('source')}{self.alias('target')}.{RUN_ID}"

    @property
    def remote(self) -> str:
        return f"{self.alias('source')}.{self.topic}"

    @property
    def group(self) -> str:
        return f"compat-app-{self.alias('source')}{self.alias('target')}-{RUN_ID}"

    @property
    def connectors(self) -> tuple[str, ...]:
        return tuple(f"{PREFIX}{self.alias('source')}-{self.alias('target')}-{kind}"
                     for kind in ("source", "checkpoint", "heartbeat"))


CELLS = (
    Cell("2.4.1", "4.4.0", "lab"),  # an old source into a new target
    Cell("4.4.0", "2.4.1", "lab"),  # a new source into an old target
    # Connectors only, on a Connect the collection did not build, backed by the flow's target
    # (as MM2 on Connect is deployed): the last 3.x, and the oldest MM2 that can be had.
    Cell("2.4.1", "3.9.1", "3.9.1"),
    Cell("3.9.1", "2.4.1", "2.8.2"),
)
# What status reports the workers lack (plugins/module_utils/connect_features.py).
LACKING = {"2.8.2": ["exactly_once_source", "offsets_alter", "offsets_read", "restart_include_tasks", "stop"]}
# Before 3.0 a worker refuses client overrides unless told otherwise; the flows' connectors carry
# producer.override.* (docs/compatibility.md).
WORKER_SETTINGS = {"2.8.2": {"connector.client.config.override.policy": "All"}}
# Failover stops the connectors where Connect has the stop endpoint (3.5), pauses them before.
STOPPED_STATE = {"lab": "STOPPED", "3.9.1": "STOPPED", "2.8.2": "PAUSED"}


def broker_name(version: str) -> str:
    return f"compat-kafka-{version.replace('.', '')}"


@pytest.fixture(scope="module")
def brokers(lab_brokers: tuple[str, str]) -> Iterator[dict[str, str]]:
    """One single-node cluster per release of the matrix, for the whole module."""
    versions = sorted({version for cell in CELLS for version in (cell.source, cell.target)})
    try:
        yield {version: estates.start_broker(broker_name(version), version) for version in versions}
    finally:
        for version in versions:
            lab.remove_container(broker_name(version))


@pytest.fixture
def plain_connect(brokers: dict[str, str], request: pytest.FixtureRequest) -> Iterator[str]:
    """A plain connect-distributed of the cell's release, backed by the cell's target cluster."""
    cell: Cell = request.node.callspec.params["cell"]
    try:
        yield estates.start_connect(PLAIN_CONNECT, cell.connect, f"{brokers[cell.target]}:9092",
                                    f"compat-connect-{cell.alias('connect')}", settings=WORKER_SETTINGS.get(cell.connect))
    finally:
        lab.remove_container(PLAIN_CONNECT)


@pytest.fixture(scope="module")
def drill_tool(lab_brokers: tuple[str, str]) -> None:
    """The drill's producer and consumer on the lab's task node, in the failover role's venv."""
    install = lab.run_playbook("playbooks/failover.yml", {"failover_flow": "src->dst"}, "--tags", "failover_install")
    assert install.returncode == 0, install.output[-4000:]
    subprocess.run(["docker", "cp", str(Path(__file__).parents[1] / "tools" / "drill_client.py"), f"{NODE}:{TOOL}"],
                   check=True)


def client(command: str, spec: dict[str, Any], timeout: int = 300) -> dict[str, Any]:
    done = subprocess.run(["docker", "exec", NODE, TOOL_PYTHON, TOOL, command, json.dumps(spec)],
                          capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"drill_client {command}: {done.stderr[-3000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def model(cell: Cell) -> dict[str, Any]:
    clusters = {cell.alias(side): {"bootstrap_servers": f"{broker_name(getattr(cell, side))}:9092"}
                for side in ("source", "target")}
    flow = {"source": cell.alias("source"), "target": cell.alias("target"), "topics": [r"orders\..*"],
            "sync_group_offsets": True, "sync_group_offsets_interval_seconds": 5,
            "emit_checkpoints_interval_seconds": 5, "refresh_groups_interval_seconds": 5,
            "refresh_topics_interval_seconds": 5, "sync_topic_configs_interval_seconds": 5}
    if cell.connect == "lab":
        # The lab's clusters stay in the model (the workers' own flow uses them).
        return {"mm2_clusters": dict(lab.inventory_vars()["mm2_clusters"], **clusters), "mm2_flows": [flow],
                "mirrormaker_connector_prefix": PREFIX}
    return {"mm2_clusters": clusters, "mm2_flows": [flow], "mirrormaker_connector_prefix": PREFIX}


def brownfield_inventory(cell: Cell, directory: Path) -> Path:
    """The inventory of an estate whose Connect the collection did not build: its one worker in
    connect_workers, its REST URL, no REST account, the account its worker runs as (root here);
    the topic checks and the failover module use the node's own Kafka."""
    release = estates.RELEASES[cell.connect]
    home = release.home
    java_tool = ["java", "-cp", f"{home}/libs/*"]
    inventory = {"all": {"children": {"connect_workers": {"hosts": {PLAIN_CONNECT: {
        "ansible_connection": "community.docker.docker", "ansible_python_interpreter": "/usr/bin/python3",
        "mirrormaker_connect_url": [f"http://{PLAIN_CONNECT}:{estates.CONNECT_PORT}"],
        "mirrormaker_connect_username": "",
        "mirrormaker_secrets_group": "root", "mirrormaker_keytab_owner": "root",
        # An unmodified worker has no config provider: flows without secrets only.
        "mirrormaker_connect_config_providers": [],
        "mirrormaker_topic_command": [*java_tool, release.topic_command],
        "mirrormaker_config_command": [*java_tool, "kafka.admin.ConfigCommand"],
        "failover_kafka_home": home,
    }}}}}}
    path = directory / "inventory.yml"
    path.write_text(yaml.safe_dump(inventory))
    return path


def playbook(cell: Cell, name: str, extra: dict[str, Any], inventory: Path | None) -> lab.PlaybookRun:
    options = ("-i", str(inventory)) if inventory is not None else ()
    return lab.run_playbook(name, dict(model(cell), **extra), *options)


def figures(cell: Cell, **values: Any) -> None:
    print(f"\nCOMPAT {cell.id}: " + ", ".join(f"{key}={value}" for key, value in values.items()))
    FIGURES_FILE.parent.mkdir(exist_ok=True)
    with FIGURES_FILE.open("a", encoding="utf-8") as figures_file:
        figures_file.write(json.dumps({"run": RUN_ID, "cell": cell.id, **values}, default=str) + "\n")


def remote_config(host: str, topic: str, key: str) -> str | None:
    return (lab.topic_config(host, topic) or {}).get(key) if topic in (lab.topic_names(host) or ()) else None


def synced_offsets(host: str, group: str, topic: str) -> dict[int, int] | None:
    offsets = {partition: offset for (name, partition), offset in lab.group_offsets(host, group).items() if name == topic}
    return offsets or None


@pytest.mark.parametrize("cell", CELLS, ids=lambda cell: cell.id)
def test_cell(cell: Cell, brokers: dict[str, str], drill_tool: None, request: pytest.FixtureRequest,
              tmp_path: Path) -> None:
    source, target = brokers[cell.source], brokers[cell.target]
    inventory = None
    if cell.connect != "lab":
        request.getfixturevalue("plain_connect")
        inventory = brownfield_inventory(cell, tmp_path)
    source_spec = {"bootstrap": f"{source}:9092", "client": {}}
    target_spec = {"bootstrap": f"{target}:9092", "client": {}}
    started = time.time()
    try:
        lab.create_topic(source, cell.topic, PARTITIONS, "retention.ms=604800000")
        produced = client("produce", dict(source_spec, topic=cell.topic, partitions=PARTITIONS, start=0, count=RECORDS,
                                          rate=RATE, prefix=RUN_ID))
        on_source = client("consume", dict(source_spec, topic=cell.topic, group=cell.group, max=CONSUMED, timeout=120))
        committed = synced_offsets(source, cell.group, cell.topic) or {}

        deployed = playbook(cell, "playbooks/mirrormaker.yml", {}, inventory)
        assert deployed.returncode == 0, deployed.output[-5000:]
        deployed_at = time.time()
        lab.wait_until(lambda: sum(lab.end_offsets(target, cell.remote).values()) >= RECORDS
                       if cell.remote in (lab.topic_names(target) or ()) else None, TIMEOUT,
                       f"{RECORDS} records in {cell.remote} on {target}")
        replicated_in = time.time() - deployed_at
        copies = lab.consume_all(target, cell.remote, RECORDS)
        originals = lab.consume_all(source, cell.topic, RECORDS)
        assert sorted((r.key, r.value, r.headers) for r in copies) == sorted((r.key, r.value, r.headers) for r in originals)

        # A config changed after the remote topic exists reaches it at the next sync.
        lab.alter_topic_config(source, cell.topic, "retention.ms", "86400000")
        lab.wait_until(lambda: remote_config(target, cell.remote, "retention.ms") == "86400000" or None, TIMEOUT,
                       f"retention.ms of {cell.remote} synced")

        # MM2 syncs the group's commit, translated, to the target.
        synced = lab.wait_until(lambda: synced_offsets(target, cell.group, cell.remote), TIMEOUT,
                                f"{cell.group} synced to {target}")

        status_file = tmp_path / "status.json"
        status_run = playbook(cell, "playbooks/status.yml",
                              {"mm2_status_format": "json", "mm2_status_json_file": str(status_file)}, inventory)
        status = json.loads(status_file.read_text())
        flow_status = next(flow for flow in status["flows"] if flow["connectors"]["source"] == cell.connectors[0])
        states = {connector["name"]: connector["state"] for cluster in status["clusters"]
                  for connector in cluster["connectors"]}
        workers = [worker["detail"] for cluster in status["clusters"] for worker in cluster["workers"]]
        lacking = sorted({entry["feature"] for cluster in status["clusters"] for entry in cluster["degraded"]})

        failed_over_at = time.time()
        reports = REPORTS / cell.id
        failover = playbook(cell, "playbooks/failover.yml", {
            "failover_flow": cell.flow, "failover_mode": "planned", "failover_groups": [cell.group],
            "failover_reports_dir": str(reports)}, inventory)
        assert failover.returncode == 0, failover.output[-6000:]
        report = json.loads((reports / f"failover-{cell.alias('source')}_to_{cell.alias('target')}-planned.json")
                            .read_text())
        held = {name: connector_state(cell, name) for name in cell.connectors}
        on_target = client("consume", dict(target_spec, topic=cell.remote, group=cell.group, max=None, timeout=180))
        wanted = {f"{RUN_ID}-{index}" for index in range(RECORDS)}
        consumed_source, consumed_target = set(on_source["values"]), set(on_target["values"])
        skipped = wanted - consumed_source - consumed_target
        rereads = consumed_source & consumed_target
        methods = report["summary"]["methods"]
        failback_at = time.time()
        # Failback: the group returns to the source, the original flow resumes; records written
        # on the source since then are the group's next, none re-read, none skipped.
        failback = playbook(cell, "playbooks/failback.yml", {
            "failover_flow": cell.flow, "failover_groups": [cell.group], "failover_reports_dir": str(reports)}, inventory)
        assert failback.returncode == 0, failback.output[-6000:]
        back_methods = json.loads((reports / f"failback-{cell.alias('source')}_to_{cell.alias('target')}.json")
                                  .read_text())["summary"]["methods"]
        client("produce", dict(source_spec, topic=cell.topic, partitions=PARTITIONS, start=RECORDS, count=AFTER_FAILBACK,
                               rate=RATE, prefix=RUN_ID))
        back_on_source = client("consume", dict(source_spec, topic=cell.topic, group=cell.group, max=None, timeout=120))
        resumed = {name: connector_state(cell, name) for name in cell.connectors}

        validated_at = time.time()
        validation = lab.run_playbook("playbooks/validate.yml", dict(
            model(cell), replication_check_flow=cell.flow, replication_check_source_client={},
            replication_check_target_client={}, replication_check_groups=[], replication_check_reports_dir=str(reports)))
        verdict = [line.strip() for line in validation.output.splitlines() if "verdict:" in line]
        figures(cell, produced=produced.get("count", RECORDS), replicated_s=round(replicated_in, 1),
                committed=committed, synced=synced, consumed_on_source=len(consumed_source),
                consumed_on_target=len(consumed_target), skipped=len(skipped), rereads=len(rereads), methods=methods,
                failover_s=round(failback_at - failed_over_at, 1), failback_methods=back_methods,
                failback_s=round(validated_at - failback_at, 1), read_after_failback=len(back_on_source["values"]),
                degraded=report.get("degraded"), verdict=verdict,
                cell_s=round(time.time() - started, 1), status_rc=status_run.returncode,
                status_problems=flow_status["problems"], status_warnings=flow_status["warnings"], workers=workers, lacking=lacking)
        assert flow_status["missing"] == [], flow_status
        assert {name: states.get(name) for name in cell.connectors} == dict.fromkeys(cell.connectors, "RUNNING"), states
        if cell.connect != "lab":
            assert workers == [f"Kafka {cell.connect}"], workers
        assert lacking == LACKING.get(cell.connect, []), lacking
        assert len(consumed_source) == CONSUMED
        # MM2 translates a commit to a target offset at or below its copy, never beyond.
        assert all(offset <= committed[partition] for partition, offset in synced.items()), (synced, committed)
        assert not skipped, sorted(skipped)[:20]
        assert not rereads, sorted(rereads)[:20]
        assert held == dict.fromkeys(cell.connectors, STOPPED_STATE[cell.connect]), held
        assert set(methods) <= {"exact", "after-last"}, methods
        assert set(back_on_source["values"]) == {f"{RUN_ID}-{index}" for index in range(RECORDS, RECORDS + AFTER_FAILBACK)}
        assert resumed == dict.fromkeys(cell.connectors, "RUNNING"), resumed
        assert validation.returncode == 0, validation.output[-6000:]
    finally:
        remove_flow(cell)


def connector_state(cell: Cell, name: str) -> str | None:
    status = connector_status(cell, name)
    return (status or {}).get("connector", {}).get("state")


def connector_status(cell: Cell, name: str) -> dict[str, Any] | None:
    if cell.connect == "lab":
        return lab.connector_status(name)
    return estates.rest_get(PLAIN_CONNECT, f"/connectors/{name}/status")


def remove_flow(cell: Cell) -> None:
    if cell.connect == "lab":
        reverse = tuple(f"{PREFIX}{cell.alias('target')}-{cell.alias('source')}-{kind}"
                        for kind in ("source", "checkpoint", "heartbeat"))
        for name in cell.connectors + reverse:
            lab.remove_connector(name)
    # The plain Connect goes with its container; the cell's topics go with the brokers.


# The estimate of module kafka_broker_versions (the mirrormaker preflight's floor check), on real brokers:
# the table tells releases apart by the API versions they changed, so 4.4.0 answers as "at least 4.0".
ESTIMATES = {"2.4.1": "2.4", "3.9.1": "3.9", "4.4.0": "4.0"}


def test_broker_versions_estimates_each_release(brokers: dict[str, str]) -> None:
    estimated = {version: kafka_api_versions.probe(estates.address(name), 9092).at_least
                 for version, name in brokers.items()}
    print(f"\nCOMPAT broker release estimates: {estimated}")
    assert estimated == ESTIMATES
