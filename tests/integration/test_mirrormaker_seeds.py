"""The reference guides' own connector JSON (tests/integration/fixtures/seeds, host names and
credentials substituted as its README lists) deploys through kafka_dr.mm2.connector and works:
source connectors replicate, checkpoint connectors run (and checkpoint a group where their
config allows), heartbeat connectors write heartbeats.

Seeds 000 and 003 (the EMR guides) mirror a one-node PLAINTEXT cluster this module starts
(`seed-src-kafka-1`) at the guides' release, Kafka 2.4.1 in ZooKeeper mode (tests/integration/estates.py;
the one cell of the version matrix, `make compat`, inside `make test`), into dst, the Kafka cluster
behind the lab's Connect workers, as they expect.
Their `^foo.*` then sees only the test's own topics, whatever the lab holds (the demo's
foo.orders, other tests' topics). The secured lab adds its client settings (SASL_SSL as User:mm2,
the password a ${file:...} placeholder) to the target side of their configs and grants, for the
test's duration, the rights their flow needs beyond the lab's own. Seed 001 uses SASL/SCRAM on
both sides: this module starts two one-node brokers with a SCRAM listener for it. Every connector
is stopped, its offsets deleted and then removed after its test, the topics it made on dst are
deleted by name, and the extra brokers removed.
"""

from __future__ import annotations

import json
import secrets
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_config import (
    load_config_document,
    map_removed_keys,
    normalise_config,
)
from tests.integration import estates, lab

SEEDS = Path(__file__).parent / "fixtures" / "seeds"
DEPLOY = "tests/integration/fixtures/deploy_connectors.yml"
# Modules import at the same second on both test processes: the suffix keeps their names apart.
RUN_ID = f"{time.strftime('%Y%m%d%H%M%S')}{uuid.uuid4().hex[:4]}"
TARGET = lab.TARGET_BROKER
EMR_SOURCE = "seed-src-kafka-1"
# "Kafka 2.12_2.4.1 or later", as the EMR guides put it.
EMR_RELEASE = "2.4.1"
SASL_SOURCE = "sasl-src-kafka-1"
SASL_TARGET = "sasl-dst-kafka-1"
SEED_SECRETS_FILE = "/etc/kafka/connect/secrets/seed-001.properties"
LAB_BROKERS_PER_CLUSTER = 1
RECORDS = 20
TIMEOUT = 240


@dataclass(frozen=True)
class SeedConnector:
    path: Path
    name: str
    config: dict[str, str]

    @property
    def kind(self) -> str:
        return self.config["connector.class"].strip().rsplit(".", 1)[1]


def seed_connectors(seed: str) -> list[SeedConnector]:
    """The seed's connectors in the guide's order: source, checkpoint, heartbeat."""
    connectors = []
    for path in sorted(SEEDS.glob(f"{seed}_*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        config, envelope_name = load_config_document(document)
        connectors.append(SeedConnector(path, envelope_name or config["name"], config))
    order = {"MirrorSourceConnector": 0, "MirrorCheckpointConnector": 1, "MirrorHeartbeatConnector": 2}
    return sorted(connectors, key=lambda connector: order[connector.kind])


def lab_overrides(connector: SeedConnector) -> dict[str, str]:
    """The secured lab's client settings for the sides of a seed that point at lab brokers."""
    overrides: dict[str, str] = {}
    for prefix in ("source.cluster.", "target.cluster."):
        host = connector.config[prefix + "bootstrap.servers"].split(":")[0]
        if host in lab.LAB_BROKERS:
            overrides.update(lab.client_settings(prefix, host))
    return overrides


def stored_as_expected(connector: SeedConnector) -> dict[str, str]:
    """What Connect should hold: the seed config (with the lab's overrides) as the module sends it to
    a Kafka 4 worker (class names trimmed, removed *.blacklist keys under their new names)."""
    config = {**connector.config, **lab_overrides(connector)}
    mapped, _warnings = map_removed_keys(normalise_config(config, connector.name), (4, 0))
    return mapped


def emr_guide_grants(alias: str, target_alias: str) -> list[lab.Grant]:
    """The EMR guides have no producer.override.*, so the workers' own producer (User:connect)
    writes the records, checkpoints and heartbeats to dst. Their source (the test's own broker,
    where the offset syncs live too) has no authorizer."""
    return lab.flow_grants(EMR_SOURCE, TARGET, alias, target_alias) + [
        lab.Grant(TARGET, ("Write", "Describe"), ("--topic", f"{alias}.", "--resource-pattern-type", "prefixed"),
                  principal="User:connect"),
        lab.Grant(TARGET, ("Write", "Describe"), ("--topic", "heartbeats"), principal="User:connect"),
    ]


# ---- what the seeds would create with a replication factor the one-broker lab cannot hold ------

def replication_factor(config: dict[str, str], key: str, default: int) -> int:
    return int(config.get(key, default))


def remote_name(config: dict[str, str], topic: str) -> str:
    if config.get("replication.policy.class", "").strip().endswith(".IdentityReplicationPolicy"):
        return topic
    return f"{config['source.cluster.alias']}.{topic}"


def offset_syncs_topic(config: dict[str, str]) -> tuple[str, str]:
    """("source" or "target", name): named after the flow's other cluster."""
    location = config.get("offset-syncs.topic.location", "source")
    other = config["target.cluster.alias"] if location == "source" else config["source.cluster.alias"]
    return location, f"mm2-offset-syncs.{other}.internal"


def topics_to_create_first(connectors: list[SeedConnector], source_topics: dict[str, int]) -> list[tuple[str, str, int, bool]]:
    """(side, topic, partitions, compacted) for the topics MM2 would create with more replicas
    than the lab has brokers. MM2 leaves existing topics alone, so creating them beforehand with
    the broker default lets the seed JSON run unchanged."""
    wanted: list[tuple[str, str, int, bool]] = []
    for connector in connectors:
        config = connector.config
        if connector.kind == "MirrorSourceConnector":
            if replication_factor(config, "replication.factor", 2) > LAB_BROKERS_PER_CLUSTER:
                wanted += [("target", remote_name(config, topic), partitions, False)
                           for topic, partitions in source_topics.items()]
            if replication_factor(config, "offset-syncs.topic.replication.factor", 3) > LAB_BROKERS_PER_CLUSTER:
                side, topic = offset_syncs_topic(config)
                wanted.append((side, topic, 1, True))
        elif connector.kind == "MirrorCheckpointConnector":
            if replication_factor(config, "checkpoints.topic.replication.factor", 3) > LAB_BROKERS_PER_CLUSTER:
                wanted.append(("target", f"{config['source.cluster.alias']}.checkpoints.internal", 1, True))
        elif replication_factor(config, "heartbeats.topic.replication.factor", 3) > LAB_BROKERS_PER_CLUSTER:
            wanted.append(("target", "heartbeats", 1, True))
    return wanted


def create_first(connectors: list[SeedConnector], source_topics: dict[str, int], source_host: str, target_host: str) -> None:
    for side, topic, partitions, compacted in topics_to_create_first(connectors, source_topics):
        host = source_host if side == "source" else target_host
        configs = ["cleanup.policy=compact"] if compacted else []
        lab.create_topic(host, topic, partitions, *configs)


# ---- observations ---------------------------------------------------------------------------

def deploy(connectors: list[SeedConnector]) -> lab.PlaybookRun:
    overrides: dict[str, str] = {}
    for connector in connectors:
        overrides.update(lab_overrides(connector))
    run = lab.run_playbook(DEPLOY, {"connector_files": [str(connector.path) for connector in connectors],
                                    "connector_overrides": overrides})
    assert run.returncode == 0, run.output[-4000:]
    return run


def total_records(host: str, topic: str) -> int:
    return sum(lab.end_offsets(host, topic).values()) if topic in lab.topic_names(host) else 0


def keys_since(host: str, topic: str, offset: int) -> bytes:
    """Keys of partition 0 from `offset` to its current end, one per line (MM2's heartbeat keys
    are binary: the two cluster aliases, each after a 2-byte length)."""
    return b"\n".join(key for key, _value in lab.read_partition(host, topic, 0, start=offset))


def seed_records(tag: str) -> list[lab.Record]:
    return [lab.Record(-1, f"{tag}-key-{index}", f"{tag} value {index}", (("seed", tag), ("seq", str(index))))
            for index in range(RECORDS)]


def running_with_tasks(name: str) -> list[dict[str, Any]] | None:
    status = lab.connector_status(name) or {}
    if status.get("connector", {}).get("state") != "RUNNING":
        return None
    tasks = status.get("tasks") or []
    return tasks if all(task.get("state") == "RUNNING" for task in tasks) else None


def assert_stored_unchanged(connectors: list[SeedConnector]) -> None:
    for connector in connectors:
        assert lab.connector_config(connector.name) == stored_as_expected(connector), connector.path.name


def remove_all(connectors: list[SeedConnector]) -> None:
    for connector in reversed(connectors):
        lab.remove_connector(connector.name)


# ---- seeds 000 and 003: the EMR guides, src -> dst ------------------------------------------------

@pytest.fixture(scope="module")
def emr_source(lab_brokers: tuple[str, str]) -> Iterator[str]:
    try:
        yield estates.start_broker(EMR_SOURCE, EMR_RELEASE)
    finally:
        lab.remove_container(EMR_SOURCE)


def emr_remote_topics(alias: str) -> list[str]:
    """Topics on dst that only the EMR guides' flow (source alias `alias`) makes."""
    return sorted(topic for topic in lab.topic_names(TARGET) if topic.startswith(f"{alias}."))


@pytest.mark.parametrize("seed", ["000", "003"])
def test_emr_guide_connectors_replicate(emr_source: str, seed: str) -> None:
    connectors = seed_connectors(seed)
    source, checkpoint, heartbeat = connectors
    alias = source.config["source.cluster.alias"]
    topic = f"foo.seed{seed}.{RUN_ID}"
    group = f"seed{seed}-app-{RUN_ID}"
    remote = remote_name(source.config, topic)
    heartbeats_start = lab.end_offsets(TARGET, "heartbeats").get(0, 0) if "heartbeats" in lab.topic_names(TARGET) else 0
    records = seed_records(seed)
    with lab.granted(emr_guide_grants(alias, source.config["target.cluster.alias"])):
        try:
            lab.create_topic(emr_source, topic, 2)
            lab.produce(emr_source, topic, records)
            # The checkpoint connector looks for groups when it starts (the guide keeps the 10 min refresh).
            assert len(lab.consume_timed(emr_source, topic, RECORDS, group=group)) == RECORDS
            create_first(connectors, {topic: 2}, emr_source, TARGET)

            deploy(connectors)
            assert_stored_unchanged(connectors)
            for connector in connectors:
                lab.wait_until(lambda: running_with_tasks(connector.name) is not None, TIMEOUT, f"{connector.name} running")

            lab.wait_until(lambda: total_records(TARGET, remote) >= RECORDS, TIMEOUT, f"{RECORDS} records in {remote}")
            mirrored = lab.consume_all(TARGET, remote, RECORDS)
            assert sorted((r.partition, r.key, r.value, r.headers) for r in mirrored) == \
                sorted((r.partition, r.key, r.value, r.headers) for r in lab.consume_all(emr_source, topic, RECORDS))
            lab.wait_until(lambda: total_records(TARGET, f"{alias}.checkpoints.internal") > 0, TIMEOUT,
                           f"checkpoints of {group} in {alias}.checkpoints.internal")
            lab.wait_until(lambda: alias.encode() in keys_since(TARGET, "heartbeats", heartbeats_start), TIMEOUT,
                           f"a heartbeat from {alias} in heartbeats")
        finally:
            remove_all(connectors)
            lab.delete_group(TARGET, group)
            lab.delete_topics(emr_source, topic)
            lab.delete_topics(TARGET, *emr_remote_topics(alias))


# ---- seed 001: SASL/SCRAM on both sides, IdentityReplicationPolicy, offset syncs on the target ----

@pytest.fixture(scope="module")
def sasl_clusters(lab_brokers: tuple[str, str]) -> Iterator[tuple[str, str]]:
    user = lab.ScramUser("mm2-seed", secrets.token_hex(16))
    try:
        lab.start_broker(SASL_SOURCE, user)
        lab.start_broker(SASL_TARGET, user)
        lab.worker_file(SEED_SECRETS_FILE, f"source.password={user.password}\ntarget.password={user.password}\n")
        yield SASL_SOURCE, SASL_TARGET
    finally:
        lab.worker_file(SEED_SECRETS_FILE, None)
        lab.remove_container(SASL_SOURCE)
        lab.remove_container(SASL_TARGET)


def test_sasl_guide_connectors_replicate(sasl_clusters: tuple[str, str]) -> None:
    source_host, target_host = sasl_clusters
    connectors = seed_connectors("001")
    source, checkpoint, heartbeat = connectors
    topic = f"orders.seed001.{RUN_ID}"
    records = seed_records("001")
    try:
        lab.create_topic(source_host, topic, 2)
        lab.produce(source_host, topic, records)
        create_first(connectors, {topic: 2}, source_host, target_host)

        run = deploy(connectors)
        # Kafka 4 removed the *.blacklist keys: the module renames them and says so.
        assert "topics.blacklist was removed in Kafka 4.0; sent as topics.exclude" in run.output
        assert "groups.blacklist was removed in Kafka 4.0; sent as groups.exclude" in run.output
        assert_stored_unchanged(connectors)
        for connector in connectors:
            lab.wait_until(lambda: running_with_tasks(connector.name) is not None, TIMEOUT, f"{connector.name} running")

        remote = remote_name(source.config, topic)
        assert remote == topic  # IdentityReplicationPolicy keeps the name
        lab.wait_until(lambda: total_records(target_host, remote) >= RECORDS, TIMEOUT, f"{RECORDS} records in {remote}")
        mirrored = lab.consume_all(target_host, remote, RECORDS)
        assert sorted((r.partition, r.key, r.value) for r in mirrored) == \
            sorted((r.partition, r.key, r.value) for r in lab.consume_all(source_host, topic, RECORDS))
        offset_syncs_side, offset_syncs = offset_syncs_topic(source.config)
        assert offset_syncs_side == "target"
        lab.wait_until(lambda: total_records(target_host, offset_syncs) > 0, TIMEOUT, f"offset syncs in {offset_syncs}")
        # No consumer group on the source: the checkpoint connector runs without tasks, as it should.
        assert running_with_tasks(checkpoint.name) == []
        hb_alias = heartbeat.config["source.cluster.alias"]
        lab.wait_until(lambda: hb_alias.encode() in keys_since(target_host, "heartbeats", 0), TIMEOUT,
                       f"a heartbeat from {hb_alias}")
    finally:
        remove_all(connectors)
