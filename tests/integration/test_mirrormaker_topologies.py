"""The mirrormaker role on the lab: idempotence, check mode, validation before change, and
aggregation of two sources into one target (with a second source broker, src2-kafka-1, that
this module creates on the lab network and removes), followed by pruning of the extra flow.
"""

from __future__ import annotations

import re
import time
import uuid
from typing import Any, Iterator

import pytest

from tests.integration import lab

SOURCE = lab.SOURCE_BROKER
TARGET = lab.TARGET_BROKER
SECOND_SOURCE = "src2-kafka-1"
# Modules import at the same second on both test processes: the suffix keeps their names apart.
RUN_ID = f"{time.strftime('%Y%m%d%H%M%S')}{uuid.uuid4().hex[:4]}"
PLAYBOOK = "playbooks/mirrormaker.yml"
FLOW_CONNECTORS = ("mm2-src-dst-source", "mm2-src-dst-checkpoint", "mm2-src-dst-heartbeat")
SECOND_FLOW_CONNECTORS = ("mm2-src2-dst-source", "mm2-src2-dst-checkpoint", "mm2-src2-dst-heartbeat")
HAND_MADE = "mm2-hand-made"        # the role's prefix, but not its naming: pruning must leave it alone
REPLICATION_TIMEOUT = 240


def role_connectors() -> list[str]:
    return [name for name in lab.connector_names() if re.fullmatch(r"mm2-.+-(source|checkpoint|heartbeat)", name)]


def deployed_configs() -> dict[str, dict[str, str] | None]:
    return {name: lab.connector_config(name) for name in FLOW_CONNECTORS}


@pytest.fixture(scope="module")
def first_run(lab_brokers: tuple[str, str]) -> lab.PlaybookRun:
    run = lab.run_playbook(PLAYBOOK)
    assert run.returncode == 0, run.output[-4000:]
    return run


@pytest.fixture(scope="module")
def deployed(first_run: lab.PlaybookRun) -> dict[str, dict[str, str] | None]:
    return deployed_configs()


def test_second_run_changes_nothing(first_run: lab.PlaybookRun) -> None:
    # On a lab that site.yml deployed, the first run is already a second one; after a run that
    # had to converge (another test changed the flows), one more run must change nothing.
    run = first_run if first_run.changed() == 0 else lab.run_playbook(PLAYBOOK)
    assert run.returncode == 0, run.output[-4000:]
    assert run.changed() == 0, run.recap()


def test_check_mode_predicts_no_change(deployed: dict[str, Any]) -> None:
    run = lab.run_playbook(PLAYBOOK, None, "--check", "--diff")
    assert run.returncode == 0, run.output[-4000:]
    assert run.changed() == 0, run.recap()


@pytest.mark.parametrize(("bad_flow", "message"), [
    ({"source": "src", "target": "nowhere"}, 'target "nowhere" is not a cluster alias'),
    ({"source": "src", "target": "src"}, "source and target are the same cluster"),
    ({"source": "src", "target": "dst", "name": "other", "replication_policy": "mirror"}, "replication_policy"),
    ({"source": "src", "target": "dst", "name": "other", "sync_group_offsets": True, "emit_checkpoints": False},
     "sync_group_offsets needs emit_checkpoints"),
])
def test_invalid_flow_fails_before_any_change(deployed: dict[str, Any], bad_flow: dict[str, Any], message: str) -> None:
    # The role's own connectors (its naming, as its prune sees them): other test modules add and
    # remove theirs meanwhile, some with the same prefix (the guides' connectors).
    connectors_before = role_connectors()
    flows = lab.inventory_vars()["mm2_flows"] + [bad_flow]
    run = lab.run_playbook(PLAYBOOK, {"mm2_flows": flows, "mm2_prune": True})
    assert run.returncode != 0
    assert message in run.output, run.output[-3000:]
    assert run.changed() == 0, run.recap()
    assert role_connectors() == connectors_before
    assert deployed_configs() == deployed


# ---- aggregation: src -> dst and src2 -> dst ------------------------------------------------

@pytest.fixture(scope="module")
def second_source(lab_brokers: tuple[str, str]) -> Iterator[str]:
    yield from lab.temporary_broker(SECOND_SOURCE)


def hand_made_heartbeat_config() -> dict[str, str]:
    converter = "org.apache.kafka.connect.converters.ByteArrayConverter"
    return {
        "connector.class": "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector",
        "source.cluster.alias": "handmade", "target.cluster.alias": "dst",
        **lab.client_settings("source.cluster.", SOURCE),
        **lab.client_settings("target.cluster.", TARGET),
        **lab.client_settings("producer.override.", TARGET),
        "heartbeats.topic.replication.factor": "-1", "emit.heartbeats.interval.seconds": "30",
        "key.converter": converter, "value.converter": converter, "header.converter": converter,
    }


@pytest.fixture
def second_flow_acls(deployed: dict[str, Any], second_source: str) -> Iterator[None]:
    """The rights of User:mm2 on dst for src2 -> dst (src2 is a test broker without ACLs)."""
    with lab.granted(lab.flow_grants(second_source, TARGET, "src2", "dst")):
        yield


@pytest.fixture
def aggregation(deployed: dict[str, Any], second_source: str, second_flow_acls: None) -> Iterator[str]:
    """src and src2 both replicate into dst; afterwards the src2 flow is pruned (a hand-made
    connector with the role's prefix survives) and the test's topics are deleted: its own (named
    after the run) and the src2 flow's remote, checkpoint and offset-sync topics, a run cut short
    included. Topics other tests create meanwhile stay."""
    topic = f"foo.agg.{RUN_ID}"
    model = lab.inventory_vars()
    clusters = dict(model["mm2_clusters"], src2={"bootstrap_servers": lab.bootstrap(second_source)})
    flows = model["mm2_flows"] + [{"source": "src2", "target": "dst", "topics": [r"foo\..*"],
                                   "offset_syncs_topic_location": "target"}]
    for host in (SOURCE, second_source):
        lab.create_topic(host, topic, 2)
        lab.produce(host, topic, [lab.Record(-1, f"key-{index}", f"{host} {index}", (("from", host),))
                                  for index in range(50)])
    status, body = lab.connect_rest("PUT", f"/connectors/{HAND_MADE}/config", hand_made_heartbeat_config())
    assert status in (200, 201), body
    run = lab.run_playbook(PLAYBOOK, {"mm2_clusters": clusters, "mm2_flows": flows})
    try:
        assert run.returncode == 0, run.output[-4000:]
        yield topic
    finally:
        pruned = lab.run_playbook(PLAYBOOK, {"mm2_prune": True})
        survivors = set(lab.connector_names())
        lab.remove_connector(HAND_MADE)
        lab.delete_mirrored_topics(
            SOURCE, lab.own_topics(SOURCE, RUN_ID),
            TARGET, lab.own_topics(TARGET, RUN_ID, ("src2.",), ("mm2-offset-syncs.src2.internal",)), FLOW_CONNECTORS[0])
    assert pruned.returncode == 0, pruned.output[-4000:]
    assert not survivors & set(SECOND_FLOW_CONNECTORS), survivors
    assert set(FLOW_CONNECTORS) | {HAND_MADE} <= survivors


def test_two_sources_aggregate_into_one_target(aggregation: str) -> None:
    topic = aggregation
    for alias, host in (("src", SOURCE), ("src2", SECOND_SOURCE)):
        remote = f"{alias}.{topic}"
        lab.wait_until(lambda: remote in lab.topic_names(TARGET) and sum(lab.end_offsets(TARGET, remote).values()) >= 50,
                       REPLICATION_TIMEOUT, f"50 records in {remote}")
        records = lab.consume_all(TARGET, remote, 50)
        assert {dict(record.headers)["from"] for record in records} == {host}
        assert lab.partition_count(TARGET, remote) == 2
    target_topics = lab.topic_names(TARGET)
    # Each source has its own checkpoints; the second flow keeps its offset syncs on the target.
    assert {"src.checkpoints.internal", "src2.checkpoints.internal", "mm2-offset-syncs.src2.internal"} <= target_topics
    # Each source's heartbeats arrive under its own prefix, with broker timestamps.
    assert {"src.heartbeats", "src2.heartbeats"} <= target_topics
    assert lab.topic_config(TARGET, "src2.heartbeats").get("message.timestamp.type") == "LogAppendTime"
    for name in SECOND_FLOW_CONNECTORS:
        assert (lab.connector_status(name) or {}).get("connector", {}).get("state") == "RUNNING", name
