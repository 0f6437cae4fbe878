"""A flow with `separator: "_"` end to end: the mirrormaker role deploys it, MM2 names every
topic with the separator, and the validation job, given only the flow's name, finds them.

The source is a broker container this module creates on the lab network (alias "sepsrc");
the flow runs on the lab's Connect cluster under a connector prefix of its own ("sep-"), so
no other test's prune or flow meets it.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.integration import lab

RUN_ID = f"{os.getpid()}{int(time.time()) % 100000}"
SOURCE = f"sep-src-{RUN_ID}"
ALIAS = "sepsrc"
PREFIX = "sep-"
TARGET = lab.TARGET_BROKER
TOPIC = f"sep.orders.{RUN_ID}"
REMOTE = f"{ALIAS}_{TOPIC}"
GROUP = f"sep-app-{RUN_ID}"
RECORDS, CONSUMED = 300, 120
CONNECTORS = tuple(f"{PREFIX}{ALIAS}-dst-{kind}" for kind in ("source", "checkpoint", "heartbeat"))
REPORTS = Path(__file__).resolve().parents[2] / "build" / f"separator-{RUN_ID}"
# MM2's names under the separator, on dst.
CHECKPOINTS = f"{ALIAS}_checkpoints_internal"
OFFSET_SYNCS = f"mm2-offset-syncs_{ALIAS}_internal"


def model() -> dict[str, Any]:
    inventory = lab.inventory_vars()
    clusters = dict(inventory["mm2_clusters"], **{ALIAS: {"bootstrap_servers": f"{SOURCE}:9092"}})
    flow = {"source": ALIAS, "target": "dst", "topics": [r"sep\..*"], "separator": "_"}
    return {"mm2_clusters": clusters, "mm2_flows": [flow], "mirrormaker_connector_prefix": PREFIX}


def grants() -> list[lab.Grant]:
    """User:mm2 on dst for this flow's names (prefix "sepsrc_", offset syncs kept on dst)."""
    remote = ("Create", "Alter", "Describe", "DescribeConfigs", "AlterConfigs", "Read", "Write")
    return [lab.Grant(TARGET, remote, ("--topic", f"{ALIAS}_", "--resource-pattern-type", "prefixed")),
            lab.Grant(TARGET, ("Create", "Describe", "DescribeConfigs", "Read", "Write"), ("--topic", OFFSET_SYNCS))]


@pytest.fixture(scope="module")
def separator_flow(lab_brokers: tuple[str, str]) -> Iterator[None]:
    """Records and a group on the source, the flow deployed, everything removed afterwards."""
    source = lab.start_broker(SOURCE)
    try:
        with lab.granted(grants()):
            lab.create_topic(source, TOPIC, 2)
            lab.produce(source, TOPIC, [lab.Record(index % 2, f"key-{index}", f"value {index}", (("n", str(index)),))
                                        for index in range(RECORDS)])
            assert len(lab.consume_timed(source, TOPIC, CONSUMED, group=GROUP)) == CONSUMED
            deployed = lab.run_playbook("playbooks/mirrormaker.yml", model())
            assert deployed.returncode == 0, deployed.output[-4000:]
            yield
    finally:
        for name in CONNECTORS:
            lab.remove_connector(name)
        lab.remove_container(SOURCE)
        lab.delete_topics(TARGET, *sorted(topic for topic in lab.topic_names(TARGET) or ()
                                          if topic.startswith(f"{ALIAS}_") or topic == OFFSET_SYNCS))
        lab.delete_group(TARGET, GROUP)


def test_mm2_names_every_topic_with_the_separator(separator_flow: None) -> None:
    lab.wait_until(lambda: sum(lab.end_offsets(TARGET, REMOTE).values()) == RECORDS or None
                   if REMOTE in lab.topic_names(TARGET) else None, 240, f"{RECORDS} records in {REMOTE}")
    names = lab.topic_names(TARGET)
    assert {REMOTE, CHECKPOINTS, OFFSET_SYNCS, f"{ALIAS}_heartbeats"} <= names, sorted(names)
    assert lab.topic_config(TARGET, f"{ALIAS}_heartbeats").get("message.timestamp.type") == "LogAppendTime"
    assert f"{ALIAS}.{TOPIC}" not in names and f"{ALIAS}.checkpoints.internal" not in names


def test_the_validator_follows_the_flows_separator(separator_flow: None) -> None:
    validator = lab.inventory_vars()["lab_validator_client"]
    run = lab.run_playbook("playbooks/validate.yml", dict(
        model(), replication_check_flow=f"{ALIAS}->dst", replication_check_source_client={},
        replication_check_target_client=validator, replication_check_groups=[GROUP],
        replication_check_reports_dir=str(REPORTS)))
    assert run.returncode == 0, run.output[-5000:]
    assert "verdict: PASS" in run.output, run.output[-3000:]
    assert CHECKPOINTS in run.output or any(CHECKPOINTS in path.read_text() for path in REPORTS.glob("*.json"))
    # The flow's heartbeats, written on its source and mirrored as sepsrc_heartbeats with broker
    # timestamps, give the report a latency.
    latencies = [json.loads(path.read_text()).get("latency") or {} for path in REPORTS.glob("*.json")]
    assert any(latency.get("p50_ms") is not None and latency.get("p99_ms") is not None for latency in latencies), latencies
