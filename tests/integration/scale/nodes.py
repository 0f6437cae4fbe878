"""The node lifecycle on the default lab (`make integration-scale`): a third task node that joins,
a worker drained, a node rebuilt under its own name with an empty disk, each while a paced
producer writes to a topic of the lab's flow, and each ended by the PySpark validator.

The lab's inventory (inventories/lab) lists two task nodes. The drills run the playbooks with it
and with an inventory of their own on top (build/scale/hosts.yml), which adds task-1-3 and sets
`connect_worker_state` per host: what an operator writes in `host_vars`. Its directory sits two
levels under the checkout, as inventories/lab does, so the lab's `lab_state_dir` (secrets, CA)
resolves the same for every host. Faults and containers are only those of the lab's network.
"""

from __future__ import annotations

import json
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import yaml

from tests.integration import figures, lab
from tests.integration.ha import drill

NEW_WORKER = "task-1-3"
WORKERS = (*lab.CONNECT_WORKERS, NEW_WORKER)
WORKER_SERVICE = "kafka-connect"
WATCHDOG_SERVICE = "kafka-connect-watchdog"
FLOW = "src->dst"
RUN_ID = drill.RUN_ID
SCALE_DIR = lab.REPO_ROOT / "build" / "scale"
INVENTORY = SCALE_DIR / "hosts.yml"
REPORTS = SCALE_DIR / f"reports-{RUN_ID}"
FIGURES = lab.REPO_ROOT / "build" / "scale-figures.jsonl"
PROMETHEUS = "http://127.0.0.1:19090"
# Offered load of each drill: records per second over three partitions, and for how long.
RATE = 150
SECONDS = 90


def write_inventory(members: tuple[str, ...] = WORKERS, absent: tuple[str, ...] = ()) -> Path:
    """The overlay inventory: the task nodes of the drill (beyond the lab's two) and the drained ones."""
    hosts = {host: ({"connect_worker_state": "absent"} if host in absent else None)
             for host in members}
    INVENTORY.parent.mkdir(parents=True, exist_ok=True)
    INVENTORY.write_text(yaml.safe_dump({"lab": {"children": {"connect_workers": {"hosts": hosts}}}}))
    return INVENTORY


def playbook(path: str, *options: str, extra: Optional[dict[str, Any]] = None, timeout: int = 1800) -> lab.PlaybookRun:
    """A playbook on the lab's inventory and the drill's overlay, as `-i ... -i ...` on the command line."""
    return lab.run_playbook(path, extra, "-i", str(lab.LAB_INVENTORIES["default"]), "-i", str(INVENTORY),
                            *options, timeout=timeout)


def passed(run: lab.PlaybookRun, what: str) -> lab.PlaybookRun:
    assert run.returncode == 0, f"{what}:\n{run.output[-6000:]}"
    return run


def record_figures(name: str, **values: Any) -> None:
    figures.record(FIGURES, "SCALE DRILL", RUN_ID, name, **values)


# ---- what the workers and the cluster say -------------------------------------------------------

def unit_state(host: str, unit: str) -> dict[str, str]:
    """ActiveState, UnitFileState, MainPID and the start time of a systemd unit on a node."""
    output = drill.docker("exec", host, "systemctl", "show", unit,
                          "-p", "ActiveState,UnitFileState,MainPID,ExecMainStartTimestampMonotonic")
    return dict(line.split("=", 1) for line in output.splitlines() if "=" in line)


def leader(ask: str) -> str:
    """The host of the Connect group's leader, as the worker last logged it (its assignment's leaderUrl)."""
    output = drill.docker("exec", ask, "sh", "-c", "grep -o \"leaderUrl='[^']*'\" /var/log/kafka/connect/connect.log | tail -n 1")
    return output.strip().split("//", 1)[-1].split(":", 1)[0]


def running_workers() -> tuple[str, ...]:
    return tuple(host for host in WORKERS
                 if lab.container_running(host) and unit_state(host, WORKER_SERVICE).get("ActiveState") == "active")


def assignments(ask: str) -> dict[str, int]:
    """How many connectors and tasks each worker (host) runs, from one worker's expanded status."""
    status, body = lab.connect_rest("GET", "/connectors?expand=status", worker=ask)
    assert status == 200, f"GET /connectors?expand=status on {ask}: {status} {body}"
    counts: dict[str, int] = {}
    for entry in body.values():
        states = [entry["status"]["connector"], *entry["status"]["tasks"]]
        for state in states:
            host = state["worker_id"].split(":", 1)[0]
            counts[host] = counts.get(host, 0) + 1
    return counts


def states(ask: str) -> dict[str, str]:
    """The state of every connector and task ("<connector>" and "<connector>/<task id>"), from one worker."""
    status, body = lab.connect_rest("GET", "/connectors?expand=status", worker=ask)
    assert status == 200, f"GET /connectors?expand=status on {ask}: {status} {body}"
    found = {}
    for name, entry in body.items():
        found[name] = entry["status"]["connector"]["state"]
        found.update({f"{name}/{task['id']}": task["state"] for task in entry["status"]["tasks"]})
    return found


def all_running(ask: str) -> bool:
    found = states(ask)
    return bool(found) and set(found.values()) == {"RUNNING"}


def scrape_targets(job: str) -> dict[str, str]:
    """Prometheus's active targets of a job: {host: health}."""
    with urllib.request.urlopen(f"{PROMETHEUS}/api/v1/targets?state=active", timeout=30) as answer:
        targets = json.load(answer)["data"]["activeTargets"]
    return {target["labels"]["instance"].split(":", 1)[0]: target["health"]
            for target in targets if target["labels"].get("job") == job}


# ---- a paced stream through the flow, a step in the middle of it -------------------------------

@dataclass(frozen=True)
class Stream:
    topic: str
    records: int
    stall: float
    step_seconds: float
    caught_up_seconds: float


def remote_of(topic: str) -> str:
    return f"src.{topic}"


def replicated(topic: str) -> int:
    try:
        return sum(lab.end_offsets(lab.TARGET_BROKER, remote_of(topic)).values())
    except RuntimeError:  # the remote topic does not exist yet
        return 0


def paced(name: str, step: Callable[[], None], rate: int = RATE, seconds: int = SECONDS) -> Stream:
    """Starts a paced producer on a new topic of the flow, waits until its records arrive on the
    target, runs `step`, then waits for the producer and for the target to hold every record.
    The stall is the longest time a remote partition did not move while its source had more."""
    topic = f"foo.scale-{name}-{RUN_ID}"
    producer = drill.start_producer(topic, rate * seconds, rate)
    with drill.ProgressWatch(remote_of(topic)) as watch:
        lab.wait_until(lambda: replicated(topic) > 0 or None, 120, f"the first records of {topic} on the target")
        started = time.time()
        step()
        step_seconds = time.time() - started
        drill.wait_producer(producer, timeout=seconds + 600)
        final = lab.end_offsets(lab.SOURCE_BROKER, topic)
        total = sum(final.values())
        produced_at = time.time()

        def caught_up() -> Optional[bool]:
            offsets = lab.end_offsets(lab.TARGET_BROKER, remote_of(topic))
            return True if all(offsets.get(partition, 0) >= end for partition, end in final.items()) else None
        lab.wait_until(caught_up, 600, f"every record of {topic} on the target")
        caught_up_seconds = time.time() - produced_at
    return Stream(topic, total, watch.longest_stall(final), round(step_seconds, 1), round(caught_up_seconds, 1))


@dataclass(frozen=True)
class Verdict:
    verdict: str
    totals: dict[str, int]
    run: lab.PlaybookRun


def validate(topic: str) -> Verdict:
    """The validation play (PySpark job on the flow's first task node) over one drill topic. A
    task that moves replays what it wrote since its last offset commit: duplicates are counted,
    within the drills' budget (a quarter of the records, as the HA drills); missing must be 0."""
    reports = REPORTS / topic
    run = playbook("playbooks/validate.yml", extra={
        "replication_check_flow": FLOW, "replication_check_topics": [topic], "replication_check_groups": [],
        "replication_check_max_duplicate_ratio": drill.DUPLICATE_BUDGET_RATIO,
        "replication_check_reports_dir": str(reports)})
    found = list(reports.glob("*-replication-report.json"))
    assert found, f"no validator report for {topic}:\n{run.output[-4000:]}"
    report = json.loads(found[0].read_text())
    return Verdict(report["verdict"], report["totals"], run)
