"""End to end on the lab: the inventory's src -> dst flow, deployed by playbooks/mirrormaker.yml,
replicates records, topic configs, partitions, new topics and consumer group offsets; a second,
reverse flow makes it active/active without loops.

Topic and group names carry a per-run suffix, and every test removes what it created, so the
module runs on a lab that other tests (or earlier runs) use too.
"""

from __future__ import annotations

import time
import uuid
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterator

import pytest

from tests.integration import lab

SOURCE = lab.SOURCE_BROKER
TARGET = lab.TARGET_BROKER
# Modules import at the same second on both test processes: the suffix keeps their names apart.
RUN_ID = f"{time.strftime('%Y%m%d%H%M%S')}{uuid.uuid4().hex[:4]}"
RECORD_COUNT = 10_000
HALF = RECORD_COUNT // 2
PARTITIONS = 3
RETENTION_MS = "3600000"           # not the broker default (7 days), so MM2 must copy it
CHANGED_RETENTION_MS = "7200000"
FLOW_CONNECTORS = ("mm2-src-dst-source", "mm2-src-dst-checkpoint", "mm2-src-dst-heartbeat")
REPLICATION_TIMEOUT = 420          # deadlines of polls (the lab flow's intervals are 5 s; a busy 2-core lab needs the slack)
MM2_DEFAULT_OFFSET_LAG_MAX = 100


def order_records(first: int, count: int) -> list[lab.Record]:
    """Keyed records with two headers; the seq header makes every record unique."""
    return [
        lab.Record(partition=-1, key=f"order-{index:05d}", value=f"order {index} " + "x" * (index % 23),
                   headers=(("seq", str(index)), ("run", RUN_ID)))
        for index in range(first, first + count)
    ]


def remote_total(topic: str, expected: int) -> int | None:
    """Total records of a topic on the target once it reached `expected`, else None."""
    return mirrored_total(TARGET, topic, expected)


def mirrored_total(host: str, topic: str, expected: int) -> int | None:
    if topic not in lab.topic_names(host):
        return None
    total = sum(lab.end_offsets(host, topic).values())
    return total if total >= expected else None


def records_by_partition(records: list[lab.TimedRecord]) -> dict[int, list[tuple]]:
    by_partition: dict[int, list[tuple]] = defaultdict(list)
    for record in records:
        by_partition[record.partition].append(record.content())
    return dict(by_partition)


def first_occurrences(contents: list[tuple]) -> list[tuple]:
    """Records in order with replays (at-least-once duplicates) dropped."""
    seen: set[tuple] = set()
    ordered = []
    for content in contents:
        if content not in seen:
            seen.add(content)
            ordered.append(content)
    return ordered


@pytest.fixture(scope="module")
def lab_flow(lab_brokers: tuple[str, str]) -> tuple[str, ...]:
    """The inventory's flow, deployed (a no-op when site.yml already did it)."""
    run = lab.run_playbook("playbooks/mirrormaker.yml")
    assert run.returncode == 0, run.output[-4000:]
    for name in FLOW_CONNECTORS:
        assert (lab.connector_status(name) or {}).get("connector", {}).get("state") == "RUNNING", name
    return FLOW_CONNECTORS


def test_heartbeats_written_on_the_source_reach_the_target_with_broker_timestamps(lab_flow: tuple[str, ...]) -> None:
    """heartbeats_topic_location: source (the default): the heartbeat connector writes src's heartbeats,
    the flow mirrors them to dst as src.heartbeats, and the role gave that topic LogAppendTime."""
    assert "heartbeats" in lab.topic_names(SOURCE)
    assert "src.heartbeats" in lab.topic_names(TARGET)
    assert lab.topic_config(TARGET, "src.heartbeats").get("message.timestamp.type") == "LogAppendTime"
    before = sum(lab.end_offsets(TARGET, "src.heartbeats").values())
    # The lab emits a heartbeat every 5 s: new ones keep arriving.
    lab.wait_until(lambda: sum(lab.end_offsets(TARGET, "src.heartbeats").values()) > before or None,
                   REPLICATION_TIMEOUT, "a new heartbeat in src.heartbeats on dst")


@dataclass(frozen=True)
class OrdersScenario:
    topic: str
    remote: str
    group: str
    committed_on_source: dict[int, int]
    synced_on_target: dict[int, int]
    offset_lag_max: int


@pytest.fixture(scope="module")
def orders(lab_flow: tuple[str, ...]) -> Iterator[OrdersScenario]:
    """foo.orders.<run>: 3 partitions, retention.ms set; 5,000 records, a group that consumed them
    all, its offsets synced to the target, then 5,000 more, everything replicated."""
    topic = f"foo.orders.{RUN_ID}"
    remote = f"src.{topic}"
    group = f"orders-app-{RUN_ID}"
    try:
        lab.create_topic(SOURCE, topic, PARTITIONS, f"retention.ms={RETENTION_MS}")
        lab.produce(SOURCE, topic, order_records(0, HALF))
        lab.wait_until(lambda: remote_total(remote, HALF), REPLICATION_TIMEOUT, f"{HALF} records in {remote}")

        consumed = lab.consume_timed(SOURCE, topic, HALF, group=group)
        assert len(consumed) == HALF
        committed = {partition: offset for (name, partition), offset in lab.group_offsets(SOURCE, group).items()
                     if name == topic}
        assert sum(committed.values()) == HALF, committed

        def synced_offsets() -> dict[int, int] | None:
            offsets = {partition: offset for (name, partition), offset in lab.group_offsets(TARGET, group).items()
                       if name == remote}
            return offsets if len(offsets) == PARTITIONS else None

        synced = lab.wait_until(synced_offsets, REPLICATION_TIMEOUT, f"offsets of group {group} on the target")
        lab.produce(SOURCE, topic, order_records(HALF, HALF))
        lab.wait_until(lambda: remote_total(remote, RECORD_COUNT), REPLICATION_TIMEOUT,
                       f"{RECORD_COUNT} records in {remote}")
        config = lab.connector_config(FLOW_CONNECTORS[0]) or {}
        yield OrdersScenario(topic, remote, group, committed, synced,
                             int(config.get("offset.lag.max", MM2_DEFAULT_OFFSET_LAG_MAX)))
    finally:
        late = f"foo.late.{RUN_ID}"
        lab.delete_mirrored_group(SOURCE, TARGET, group, FLOW_CONNECTORS[1])
        lab.delete_mirrored_topics(SOURCE, [topic, late], TARGET, [remote, f"src.{late}"], FLOW_CONNECTORS[0])


def test_every_record_arrives_with_key_value_headers_and_timestamp(orders: OrdersScenario) -> None:
    source_records = lab.consume_timed(SOURCE, orders.topic, RECORD_COUNT)
    target_total = sum(lab.end_offsets(TARGET, orders.remote).values())
    target_records = lab.consume_timed(TARGET, orders.remote, target_total)

    assert len(source_records) == RECORD_COUNT
    assert len(target_records) == target_total >= RECORD_COUNT
    source_partitions = records_by_partition(source_records)
    target_partitions = records_by_partition(target_records)
    assert sorted(source_partitions) == sorted(target_partitions) == list(range(PARTITIONS))
    for partition, contents in source_partitions.items():
        # Same partition, same order, same key/value/headers/timestamp; replays are allowed, losses are not.
        assert first_occurrences(target_partitions[partition]) == contents, f"partition {partition} differs"


def test_group_resumes_on_target_without_skipping(orders: OrdersScenario) -> None:
    # MM2 translates conservatively: never past the committed position, at most offset.lag.max behind.
    for partition, upstream in orders.committed_on_source.items():
        downstream = orders.synced_on_target[partition]
        assert upstream - orders.offset_lag_max <= downstream <= upstream, (partition, upstream, downstream)

    ends = lab.end_offsets(TARGET, orders.remote)
    positions = {partition: offset for (name, partition), offset in lab.group_offsets(TARGET, orders.group).items()
                 if name == orders.remote}
    remaining = sum(ends[partition] - positions[partition] for partition in ends)
    resumed = lab.consume_timed(TARGET, orders.remote, remaining, group=orders.group, from_beginning=False)

    second_half = {str(index) for index in range(HALF, RECORD_COUNT)}
    read_sequences = [dict(record.headers)["seq"] for record in resumed]
    assert second_half <= set(read_sequences), "records after the committed position were skipped"
    reread = [record for record in resumed if int(dict(record.headers)["seq"]) < HALF]
    reread_per_partition: dict[int, int] = defaultdict(int)
    for record in reread:
        reread_per_partition[record.partition] += 1
    assert all(count <= orders.offset_lag_max for count in reread_per_partition.values()), reread_per_partition


def test_topic_config_is_synced_and_follows_changes(orders: OrdersScenario) -> None:
    lab.wait_until(lambda: lab.topic_config(TARGET, orders.remote).get("retention.ms") == RETENTION_MS,
                   REPLICATION_TIMEOUT, f"retention.ms={RETENTION_MS} on {orders.remote}")
    lab.alter_topic_config(SOURCE, orders.topic, "retention.ms", CHANGED_RETENTION_MS)
    lab.wait_until(lambda: lab.topic_config(TARGET, orders.remote).get("retention.ms") == CHANGED_RETENTION_MS,
                   REPLICATION_TIMEOUT, f"retention.ms={CHANGED_RETENTION_MS} on {orders.remote}")


def test_partitions_added_on_source_appear_on_target(orders: OrdersScenario) -> None:
    lab.add_partitions(SOURCE, orders.topic, PARTITIONS + 1)
    lab.wait_until(lambda: lab.partition_count(TARGET, orders.remote) == PARTITIONS + 1,
                   REPLICATION_TIMEOUT, f"{PARTITIONS + 1} partitions of {orders.remote}")


def test_new_matching_topic_is_picked_up(orders: OrdersScenario) -> None:
    late = f"foo.late.{RUN_ID}"
    lab.create_topic(SOURCE, late, 1)
    lab.produce(SOURCE, late, order_records(0, 10))
    lab.wait_until(lambda: remote_total(f"src.{late}", 10), REPLICATION_TIMEOUT, f"10 records in src.{late}")


def test_unmatched_topic_is_not_replicated(orders: OrdersScenario) -> None:
    other = f"bar.orders.{RUN_ID}"
    barrier = f"foo.barrier.{RUN_ID}"
    try:
        lab.create_topic(SOURCE, other, 1)
        lab.create_topic(SOURCE, barrier, 1)
        # Once the barrier (created after the other topic) is mirrored, MM2 has seen both.
        lab.wait_until(lambda: f"src.{barrier}" in lab.topic_names(TARGET), REPLICATION_TIMEOUT, f"src.{barrier}")
        assert f"src.{other}" not in lab.topic_names(TARGET)
    finally:
        lab.delete_mirrored_topics(SOURCE, [other, barrier], TARGET, [f"src.{barrier}"], FLOW_CONNECTORS[0])


# ---- active/active: the inventory's flow plus dst -> src, both with DefaultReplicationPolicy ----

REVERSE_CONNECTORS = ("mm2-dst-src-source", "mm2-dst-src-checkpoint", "mm2-dst-src-heartbeat")


def reverse_flow() -> dict:
    # Its pattern also matches the remote topics src.foo.bidi.* on dst: only MM2's cycle
    # detection keeps them from coming back as dst.src.foo.bidi.*.
    return {"source": "dst", "target": "src", "topics": [r"(.*\.)?foo\.bidi\..*"]}


@dataclass(frozen=True)
class ActiveActiveTopics:
    on_source: str      # created on src, mirrored to dst
    on_target: str      # created on dst, mirrored to src
    barrier: str        # created on dst after src.<on_source> exists there


@pytest.fixture
def reverse_flow_acls(lab_flow: tuple[str, ...]) -> Iterator[None]:
    """The rights of User:mm2 for dst -> src, on top of the lab's least-privilege src -> dst."""
    with lab.granted(lab.flow_grants(TARGET, SOURCE, "dst", "src")):
        yield


@pytest.fixture
def active_active(lab_flow: tuple[str, ...], reverse_flow_acls: None) -> Iterator[ActiveActiveTopics]:
    """The inventory's flows plus dst -> src. Afterwards the reverse flow is pruned and its topics
    are deleted, sources first so MM2 has nothing left to mirror: the test's own (named after the
    run) and, on src, every topic of the reverse flow (its copies, checkpoints and offset syncs,
    a run cut short included). Topics other tests create meanwhile stay, and so does the
    heartbeats topic on dst, which other flows out of dst share."""
    topics = ActiveActiveTopics(f"foo.bidi.a.{RUN_ID}", f"foo.bidi.b.{RUN_ID}", f"foo.bidi.c.{RUN_ID}")
    flows = lab.inventory_vars()["mm2_flows"]
    run = lab.run_playbook("playbooks/mirrormaker.yml", {"mm2_flows": flows + [reverse_flow()]})
    try:
        assert run.returncode == 0, run.output[-4000:]
        yield topics
    finally:
        pruned = lab.run_playbook("playbooks/mirrormaker.yml", {"mm2_prune": True})
        lab.delete_mirrored_topics(
            SOURCE, lab.own_topics(SOURCE, RUN_ID, ("dst.",), ("mm2-offset-syncs.dst.internal",)),
            TARGET, lab.own_topics(TARGET, RUN_ID), FLOW_CONNECTORS[0])
        lab.remove_synced_acls(SOURCE, "dst")
    assert pruned.returncode == 0, pruned.output[-4000:]
    remaining = set(lab.connector_names())
    assert not remaining & set(REVERSE_CONNECTORS), remaining
    assert set(FLOW_CONNECTORS) <= remaining


def test_bidirectional_flows_replicate_both_ways_without_loops(active_active: ActiveActiveTopics) -> None:
    topics = active_active
    records = order_records(0, 100)
    lab.create_topic(SOURCE, topics.on_source, 1)
    lab.create_topic(TARGET, topics.on_target, 1)
    lab.produce(SOURCE, topics.on_source, records)
    lab.produce(TARGET, topics.on_target, records)
    lab.wait_until(lambda: mirrored_total(TARGET, f"src.{topics.on_source}", len(records)), REPLICATION_TIMEOUT,
                   f"src.{topics.on_source} on dst")
    lab.wait_until(lambda: mirrored_total(SOURCE, f"dst.{topics.on_target}", len(records)), REPLICATION_TIMEOUT,
                   f"dst.{topics.on_target} on src")

    # Once the reverse flow has mirrored the barrier, it has also considered src.<on_source>
    # (older than the barrier) and, were it looping, mirrored it back as dst.src.<on_source>.
    lab.create_topic(TARGET, topics.barrier, 1)
    lab.wait_until(lambda: f"dst.{topics.barrier}" in lab.topic_names(SOURCE), REPLICATION_TIMEOUT,
                   f"dst.{topics.barrier} on src")
    source_topics = lab.topic_names(SOURCE)
    target_topics = lab.topic_names(TARGET)
    # Each flow writes heartbeats on its source and mirrors them once; none comes back (dst.src.heartbeats).
    assert {"heartbeats", "dst.heartbeats"} <= source_topics and {"heartbeats", "src.heartbeats"} <= target_topics
    assert f"dst.src.{topics.on_source}" not in source_topics
    assert not [topic for topic in source_topics if topic.startswith("dst.src.")]
    assert not [topic for topic in target_topics if topic.startswith("src.dst.")]

    mirrored_back = lab.consume_timed(SOURCE, f"dst.{topics.on_target}", len(records))
    assert sorted((record.key, record.value, record.headers) for record in mirrored_back) == \
        sorted((record.key, record.value, record.headers) for record in records)
