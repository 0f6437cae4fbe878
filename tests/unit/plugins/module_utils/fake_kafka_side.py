# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""In-memory clusters and connectors for the failover logic (the KafkaSide and Connectors protocols)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import KafkaRecord, KafkaSideError, Member
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_records import Checkpoint, encode_checkpoint

TopicPartition = Tuple[str, int]


def record(offset: int, value: str, timestamp: int = 1_700_000_000_000, key: Optional[bytes] = b'k') -> KafkaRecord:
    return KafkaRecord(offset, timestamp, key, value.encode(), (('h', b'v'),))


def source_log(count: int, start_ts: int = 1_700_000_000_000) -> List[KafkaRecord]:
    """Source records whose values and timestamps all differ."""
    return [record(offset, 'value-%d' % offset, start_ts + offset) for offset in range(count)]


def copies(source: Sequence[KafkaRecord], source_offsets: Sequence[int]) -> List[KafkaRecord]:
    """A target log holding copies of these source offsets, in this order (replays included)."""
    by_offset = {r.offset: r for r in source}
    return [KafkaRecord(position, by_offset[o].timestamp, by_offset[o].key, by_offset[o].value, by_offset[o].headers)
            for position, o in enumerate(source_offsets)]


def checkpoint_record(offset: int, group: str, topic: str, partition: int, upstream: int, downstream: int,
                      timestamp: int) -> KafkaRecord:
    key, value = encode_checkpoint(Checkpoint(group, topic, partition, upstream, downstream, ''))
    return KafkaRecord(offset, timestamp, key, value, ())


@dataclass
class FakeSide:
    name: str
    logs: Dict[TopicPartition, List[KafkaRecord]] = field(default_factory=dict)
    commits: Dict[str, Dict[TopicPartition, int]] = field(default_factory=dict)
    members: Dict[str, List[Member]] = field(default_factory=dict)
    unreachable: bool = False
    writes: List[Tuple[str, Dict[TopicPartition, int]]] = field(default_factory=list)
    reads: int = 0

    def _check(self, action: str) -> None:
        if self.unreachable:
            raise KafkaSideError(self.name, action, 'TimeoutException: Timed out waiting for a node assignment.')

    def groups(self) -> List[str]:
        self._check('list consumer groups')
        return sorted(self.commits)

    def group_members(self, group: str) -> List[Member]:
        self._check('describe group %s' % group)
        return list(self.members.get(group, []))

    def committed_offsets(self, group: str) -> Dict[TopicPartition, int]:
        self._check('read offsets of group %s' % group)
        return dict(self.commits.get(group, {}))

    def end_offsets(self, partitions: Sequence[TopicPartition]) -> Dict[TopicPartition, int]:
        self._check('read end offsets')
        return {tp: (self.logs[tp][-1].offset + 1 if self.logs.get(tp) else 0) for tp in partitions}

    def read(self, partition: TopicPartition, start: int, limit: int) -> Iterator[KafkaRecord]:
        self._check('read %s-%d' % partition)
        given = 0
        for item in self.logs.get(partition, []):
            if item.offset >= start and given < limit:
                self.reads += 1
                given += 1
                yield item

    def alter_offsets(self, group: str, offsets: Mapping[TopicPartition, int]) -> None:
        self._check('write offsets of group %s' % group)
        self.writes.append((group, dict(offsets)))
        self.commits.setdefault(group, {}).update(offsets)


@dataclass
class FakeConnectors:
    """`halted` is PAUSED for a worker before Kafka 3.5, which pauses instead of stopping."""

    state: Dict[str, str]
    stop_calls: int = 0
    halted: str = 'STOPPED'
    worker_version: str = '3.9.1'

    def states(self) -> Dict[str, str]:
        return dict(self.state)

    def halted_state(self) -> str:
        return self.halted

    def degradations(self) -> List[Dict[str, str]]:
        if self.halted == 'STOPPED':
            return []
        return [{'feature': 'stop', 'worker_version': self.worker_version, 'instead': 'paused instead'}]

    def stop(self) -> List[str]:
        self.stop_calls += 1
        stopped = sorted(name for name, state in self.state.items() if state != self.halted)
        for name in stopped:
            self.state[name] = self.halted
        return stopped


class FakeClock:
    """time.time and time.sleep of a test: sleeping advances the clock and runs a hook."""

    def __init__(self, now: float = 1_700_000_100.0) -> None:
        self.now = now
        self.on_sleep = None

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        if self.on_sleep is not None:
            self.on_sleep()
