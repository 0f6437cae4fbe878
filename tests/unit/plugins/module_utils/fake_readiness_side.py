# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""In-memory clusters for the readiness logic: the failover's fake side plus the admin reads
(log-start offsets, topic descriptions and configs, broker config, ACLs) and MM2's internal records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_acls import AclBinding
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import KafkaRecord, TopicInfo
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_records import OffsetSync, encode_offset_sync

from fake_kafka_side import FakeSide

TopicPartition = Tuple[str, int]


def sync_record(offset: int, topic: str, partition: int, upstream: int, downstream: int) -> KafkaRecord:
    key, value = encode_offset_sync(OffsetSync(topic, partition, upstream, downstream))
    return KafkaRecord(offset, 1_700_000_000_000, key, value, ())


def sync_log(entries: Sequence[Tuple[str, int, int, int]]) -> List[KafkaRecord]:
    """Offset-syncs topic records from (topic, partition, upstream, downstream), in this order."""
    return [sync_record(offset, *entry) for offset, entry in enumerate(entries)]


@dataclass
class FakeAdminSide(FakeSide):
    """A cluster with topics: partitions come from `partitions` (else from the logs), end offsets may be
    pinned in `ends` (a log whose records were all deleted still ends where it ended)."""

    partitions: Dict[str, int] = field(default_factory=dict)
    replication: Dict[str, int] = field(default_factory=dict)
    topic_ids: Dict[str, str] = field(default_factory=dict)
    configs: Dict[str, Dict[str, str]] = field(default_factory=dict)
    broker: Dict[str, str] = field(default_factory=lambda: {'default.replication.factor': '1', 'min.insync.replicas': '1'})
    bindings: Optional[List[AclBinding]] = None
    ends: Dict[TopicPartition, int] = field(default_factory=dict)
    default_config: Dict[str, str] = field(default_factory=lambda: {
        'cleanup.policy': 'delete', 'max.message.bytes': '1048588', 'min.insync.replicas': '1',
        'retention.ms': '604800000', 'retention.bytes': '-1'})

    def _topic_names(self) -> List[str]:
        return sorted(set(self.partitions) | {tp[0] for tp in self.logs})

    def topics(self) -> List[str]:
        self._check('list topics')
        return self._topic_names()

    def describe_topics(self, names: Sequence[str]) -> Dict[str, TopicInfo]:
        self._check('describe topics')
        known = self._topic_names()
        described = {}
        for name in names:
            if name not in known:
                continue
            count = self.partitions.get(name) or 1 + max(tp[1] for tp in self.logs if tp[0] == name)
            described[name] = TopicInfo(name, self.topic_ids.get(name), count, self.replication.get(name, 1))
        return described

    def end_offsets(self, partitions: Sequence[TopicPartition]) -> Dict[TopicPartition, int]:
        found = super().end_offsets(partitions)
        return {tp: self.ends.get(tp, offset) for tp, offset in found.items()}

    def start_offsets(self, partitions: Sequence[TopicPartition]) -> Dict[TopicPartition, int]:
        self._check('read log-start offsets')
        ends = self.end_offsets(partitions)
        return {tp: (self.logs[tp][0].offset if self.logs.get(tp) else ends[tp]) for tp in partitions}

    def topic_configs(self, names: Sequence[str]) -> Dict[str, Dict[str, str]]:
        self._check('describe topic configs')
        return {name: dict(self.default_config, **self.configs.get(name, {})) for name in names}

    def broker_config(self) -> Dict[str, str]:
        self._check('describe broker configs')
        return dict(self.broker)

    def acls(self) -> Optional[List[AclBinding]]:
        self._check('describe ACLs')
        return None if self.bindings is None else list(self.bindings)
