"""Both lab clusters are real Kafka: keyed records with headers make a full round trip."""

from __future__ import annotations

import subprocess
import time
from collections import Counter, defaultdict

import pytest

from tests.integration import lab

RECORD_COUNT = 10_000
PARTITIONS = 3


def sample_records(cluster: str) -> list[lab.Record]:
    return [
        lab.Record(partition=-1, key=f"key-{index:05d}", value=f"{cluster}-value-{index}-" + "x" * (index % 17),
                   headers=(("seq", str(index)), ("origin", cluster)))
        for index in range(RECORD_COUNT)
    ]


@pytest.mark.parametrize("side", ["source", "target"])
def test_round_trip_keys_values_headers(lab_brokers: tuple[str, str], side: str) -> None:
    host = lab_brokers[0] if side == "source" else lab_brokers[1]
    topic = f"itest.roundtrip.{int(time.time() * 1000)}"
    lab.create_topic(host, topic, PARTITIONS)
    try:
        sent = sample_records(side)

        lab.produce(host, topic, sent)
        received = lab.consume_all(host, topic, expected=RECORD_COUNT)

        def content(record: lab.Record) -> tuple[str, str, tuple[tuple[str, str], ...]]:
            return record.key, record.value, record.headers

        assert len(received) == RECORD_COUNT
        assert Counter(map(content, received)) == Counter(map(content, sent))
        # Every partition is used, and within a partition the producer's order holds.
        sequences_by_partition: dict[int, list[int]] = defaultdict(list)
        for record in received:
            sequences_by_partition[record.partition].append(int(dict(record.headers)["seq"]))
        assert sorted(sequences_by_partition) == list(range(PARTITIONS))
        for sequences in sequences_by_partition.values():
            assert sequences == sorted(sequences)
    finally:
        lab.delete_topics(host, topic)


def test_clusters_have_distinct_ids(lab_brokers: tuple[str, str]) -> None:
    cluster_ids = {
        host: lab.kafka_run(host, "org.apache.kafka.tools.ClusterTool", "cluster-id",
                            "--bootstrap-server", lab.bootstrap(host)).strip()
        for host in lab_brokers
    }
    assert all(value.startswith("Cluster ID: ") for value in cluster_ids.values()), cluster_ids
    assert len(set(cluster_ids.values())) == 2


def test_the_test_process_resolves_every_host_of_the_lab_to_its_container() -> None:
    """What every drill suite relies on, checked on the running lab: each host of the shape's
    inventory resolves, in the test process's hosts file, to an address docker gives that container."""
    resolved = lab.admin().resolvable()
    for host in lab.inventory_hosts():
        inspected = subprocess.run(["docker", "inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}",
                                    host], capture_output=True, text=True, check=True, timeout=60)
        addresses = inspected.stdout.split()
        assert resolved.get(host) in addresses, (host, resolved.get(host), addresses)
