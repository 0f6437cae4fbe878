"""The restart watchdog of role connect_worker on the lab: a MirrorSourceConnector task that dies
for a real reason comes back by itself once the reason is gone.

A source cluster of its own (a broker container this module creates on the lab network, alias
"arsrc") replicates into the lab's dst through a flow deployed by the mirrormaker role under a
connector prefix of its own ("ar-"), so no other test's prune or flow meets it. User:mm2 loses
WRITE on the flow's remote topics (prefix "arsrc." on dst, granted by this module only), so the
source task's producer is refused and the task fails; the watchdog of the worker that runs the
task restarts it (and again, with its backoff, while the right is missing); once WRITE is back
the next restart sticks and the records written meanwhile arrive. Nothing but the watchdog
restarts the task: plain Connect leaves a FAILED task FAILED.

It runs in its own xdist group (one group per module, tests/integration/conftest.py). It waits
for the watchdog's second restart, two minutes after the first, so it takes about five minutes.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from typing import Any, Iterator

import pytest

from tests.integration import lab

RUN_ID = f"{os.getpid()}{int(time.time()) % 100000}"
SOURCE = f"ar-src-{RUN_ID}"
ALIAS = "arsrc"
PREFIX = "ar-"
TARGET = lab.TARGET_BROKER
TOPIC = f"ar.orders.{RUN_ID}"
REMOTE = f"{ALIAS}.{TOPIC}"
CONNECTORS = tuple(f"{PREFIX}{ALIAS}-dst-{kind}" for kind in ("source", "checkpoint", "heartbeat"))
SOURCE_CONNECTOR = CONNECTORS[0]
FIRST, SECOND = 200, 300
WATCHDOG = "kafka-connect-watchdog"
METRICS_URL = "http://127.0.0.1:9405/metrics"
# The remote topics' prefix on dst, where User:mm2 loses and gets back WRITE.
REMOTE_PREFIX = ("--topic", f"{ALIAS}.", "--resource-pattern-type", "prefixed")
# Poll interval (30 s) plus the failure itself.
FIRST_RESTART_TIMEOUT = 240
# The second restart comes 2 minutes after the first, a third 6 minutes after that.
RECOVERY_TIMEOUT = 600


def model() -> dict[str, Any]:
    inventory = lab.inventory_vars()
    clusters = dict(inventory["mm2_clusters"], **{ALIAS: {"bootstrap_servers": f"{SOURCE}:9092"}})
    flow = {"source": ALIAS, "target": "dst", "topics": [r"ar\..*"]}
    return {"mm2_clusters": clusters, "mm2_flows": [flow], "mirrormaker_connector_prefix": PREFIX}


def records(start: int, count: int) -> list[lab.Record]:
    return [lab.Record(0, f"key-{index}", f"{RUN_ID}-{index}", (("n", str(index)),)) for index in range(start, start + count)]


def on_worker(worker: str, *command: str) -> str:
    done = subprocess.run(["docker", "exec", worker, *command], capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:3])} on {worker} exited {done.returncode}: {done.stderr[-1000:]}")
    return done.stdout


def watchdog_metrics(worker: str) -> str:
    return on_worker(worker, "python3", "-c",
                     f"import urllib.request; print(urllib.request.urlopen({METRICS_URL!r}, timeout=10).read().decode())")


def restart_lines(since: int) -> dict[str, list[str]]:
    """The watchdogs' restart lines for this module's connectors since a Unix time, by worker."""
    lines: dict[str, list[str]] = {}
    for worker in lab.CONNECT_WORKERS:
        journal = on_worker(worker, "journalctl", "--unit", WATCHDOG, "--since", f"@{since}", "--no-pager", "--output", "cat")
        lines[worker] = [line for line in journal.splitlines()
                         if re.search(rf'restart connector="{re.escape(PREFIX)}{ALIAS}-dst-\w+" ', line)]
    return lines


def remote_values() -> set[str] | None:
    """Values on the remote topic once it holds at least every record produced (duplicates allowed)."""
    total = sum(lab.end_offsets(TARGET, REMOTE).values()) if REMOTE in lab.topic_names(TARGET) else 0
    if total < FIRST + SECOND:
        return None
    return {record.value for record in lab.consume_all(TARGET, REMOTE, total)}


def tasks_of(name: str) -> list[dict[str, Any]]:
    return (lab.connector_status(name) or {}).get("tasks", [])


@pytest.fixture(scope="module")
def auto_restart_flow(lab_brokers: tuple[str, str]) -> Iterator[None]:
    """A one-partition topic with records on the test's own source, the flow deployed and its
    first records on dst; everything removed afterwards."""
    source = lab.start_broker(SOURCE)
    try:
        with lab.granted(lab.flow_grants(source, TARGET, ALIAS, "dst")):
            lab.create_topic(source, TOPIC, 1)
            lab.produce(source, TOPIC, records(0, FIRST))
            deployed = lab.run_playbook("playbooks/mirrormaker.yml", model())
            assert deployed.returncode == 0, deployed.output[-4000:]
            lab.wait_until(lambda: sum(lab.end_offsets(TARGET, REMOTE).values()) >= FIRST or None
                           if REMOTE in lab.topic_names(TARGET) else None, 240, f"{FIRST} records in {REMOTE}")
            yield
    finally:
        for name in CONNECTORS:
            lab.remove_connector(name)
        lab.remove_container(SOURCE)
        lab.delete_topics(TARGET, *sorted(topic for topic in lab.topic_names(TARGET) or ()
                                          if topic.startswith(f"{ALIAS}.") or topic == f"mm2-offset-syncs.{ALIAS}.internal"))


def test_every_worker_runs_a_watchdog_that_polls() -> None:
    for worker in lab.CONNECT_WORKERS:
        assert on_worker(worker, "systemctl", "is-active", WATCHDOG).strip() == "active", worker
        metrics = watchdog_metrics(worker)
        match = re.search(r"^kafka_dr_connect_watchdog_last_poll_timestamp_seconds (\S+)$", metrics, re.M)
        assert match, metrics
        # Polled within the last three intervals (30 s each).
        assert time.time() - float(match.group(1)) < 90, (worker, match.group(1))


def test_a_task_refused_by_the_target_is_restarted_once_the_right_is_back(auto_restart_flow: None) -> None:
    started = int(time.time()) - 1
    # One task for the test's topic, and one for the heartbeats the flow writes on its source.
    assert {task["state"] for task in tasks_of(SOURCE_CONNECTOR)} == {"RUNNING"}, lab.connector_status(SOURCE_CONNECTOR)
    lab.change_acl(TARGET, False, "User:mm2", ["Write"], *REMOTE_PREFIX)
    try:
        lab.produce(SOURCE, TOPIC, records(FIRST, SECOND))
        first = lab.wait_until(lambda: {worker: lines for worker, lines in restart_lines(started).items() if lines} or None,
                               FIRST_RESTART_TIMEOUT, f"a watchdog to restart {SOURCE_CONNECTOR}", interval=5)
    finally:
        lab.change_acl(TARGET, True, "User:mm2", ["Write"], *REMOTE_PREFIX)
    # One watchdog, the one of the worker running the task, restarted it (the unit tests prove
    # that only the owner acts; here a rebalance caused by another module may move the task).
    line = next(iter(first.values()))[0]
    assert re.search(r'task=\d+ attempt=1 next_delay=2m outcome=requested trace="\S', line), line

    values = lab.wait_until(remote_values, RECOVERY_TIMEOUT, f"{FIRST + SECOND} records in {REMOTE}", interval=10)
    assert {f"{RUN_ID}-{index}" for index in range(FIRST + SECOND)} <= values
    # Each task has its own backoff: the heartbeats' task (its remote topic has the same prefix)
    # may still wait for its next restart when the test topic's task has copied everything.
    try:
        lab.wait_until(lambda: {task["state"] for task in tasks_of(SOURCE_CONNECTOR)} == {"RUNNING"} or None,
                       RECOVERY_TIMEOUT, f"every task of {SOURCE_CONNECTOR} to run again", interval=10)
    except lab.Deadline as exc:
        pytest.fail(f"{exc}: {tasks_of(SOURCE_CONNECTOR)}")

    lines = restart_lines(started)
    assert sum(len(found) for found in lines.values()) >= 1, lines
    for worker, found in lines.items():
        if found:
            metrics = watchdog_metrics(worker)
            counted = re.findall(rf'^kafka_dr_connect_restarts_total\{{connector="{re.escape(SOURCE_CONNECTOR)}",task="\d+"\}} (\d+)$',
                                 metrics, re.M)
            assert counted and sum(int(count) for count in counted) >= 1, (worker, metrics)
    # No secret reaches the journal: the REST password of the lab is not in any line.
    rest_password = lab.lab_secret("rest")
    for worker in lab.CONNECT_WORKERS:
        journal = on_worker(worker, "journalctl", "--unit", WATCHDOG, "--since", f"@{started}", "--no-pager", "--output", "cat")
        assert rest_password not in journal, worker
