# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Decoders (and encoders, for tests and tooling) of MM2's internal record formats.

All use Kafka's protocol types, big-endian: STRING is an int16 byte length followed
by UTF-8 bytes; INT16/INT32/INT64 are signed fixed-width integers.

- checkpoint key:   group STRING, topic STRING, partition INT32
- checkpoint value: version INT16 (0), upstream offset INT64, downstream offset INT64,
                    metadata STRING
- offset-sync key:  topic STRING, partition INT32
- offset-sync value: upstream offset INT64, downstream offset INT64
- heartbeat key:    source alias STRING, target alias STRING
- heartbeat value:  version INT16 (0), timestamp INT64 (ms)

The failover module and the validator job both decode with this file (the replication_check
role ships it into the validator package). Standard library only.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

SUPPORTED_VERSION = 0


class RecordFormatError(ValueError):
    """Bytes that are not a well-formed MM2 internal record."""


class _Reader:
    """Sequential big-endian reader over one record's key or value bytes."""

    def __init__(self, data: bytes, what: str) -> None:
        self._data = data
        self._pos = 0
        self._what = what

    def _take(self, size: int) -> bytes:
        if self._pos + size > len(self._data):
            raise RecordFormatError(f"{self._what}: truncated at byte {self._pos} (need {size} more)")
        chunk = self._data[self._pos : self._pos + size]
        self._pos += size
        return chunk

    def int16(self) -> int:
        return struct.unpack(">h", self._take(2))[0]

    def int32(self) -> int:
        return struct.unpack(">i", self._take(4))[0]

    def int64(self) -> int:
        return struct.unpack(">q", self._take(8))[0]

    def string(self) -> str:
        length = self.int16()
        if length < 0:
            raise RecordFormatError(f"{self._what}: negative string length {length}")
        raw = self._take(length)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordFormatError(f"{self._what}: string is not UTF-8") from exc

    def version(self) -> int:
        version = self.int16()
        if version != SUPPORTED_VERSION:
            raise RecordFormatError(f"{self._what}: unsupported version {version}")
        return version

    def finish(self) -> None:
        if self._pos != len(self._data):
            raise RecordFormatError(f"{self._what}: {len(self._data) - self._pos} trailing bytes")


def _require_bytes(data: object, what: str) -> bytes:
    if data is None:
        raise RecordFormatError(f"{what}: null")
    return bytes(data)  # Spark hands back bytearray


def _string_bytes(text: str) -> bytes:
    raw = text.encode("utf-8")
    return struct.pack(">h", len(raw)) + raw


@dataclass(frozen=True)
class Checkpoint:
    group: str
    topic: str  # the remote (target) topic name
    partition: int
    upstream_offset: int
    downstream_offset: int
    metadata: str


def decode_checkpoint(key: object, value: object) -> Checkpoint:
    key_reader = _Reader(_require_bytes(key, "checkpoint key"), "checkpoint key")
    group, topic, partition = key_reader.string(), key_reader.string(), key_reader.int32()
    key_reader.finish()
    value_reader = _Reader(_require_bytes(value, "checkpoint value"), "checkpoint value")
    value_reader.version()
    upstream, downstream = value_reader.int64(), value_reader.int64()
    metadata = value_reader.string()
    value_reader.finish()
    return Checkpoint(group, topic, partition, upstream, downstream, metadata)


def encode_checkpoint(checkpoint: Checkpoint) -> tuple[bytes, bytes]:
    key = _string_bytes(checkpoint.group) + _string_bytes(checkpoint.topic) + struct.pack(">i", checkpoint.partition)
    value = struct.pack(
        ">hqq", SUPPORTED_VERSION, checkpoint.upstream_offset, checkpoint.downstream_offset
    ) + _string_bytes(checkpoint.metadata)
    return key, value


@dataclass(frozen=True)
class OffsetSync:
    topic: str  # the source topic name
    partition: int
    upstream_offset: int
    downstream_offset: int


def decode_offset_sync(key: object, value: object) -> OffsetSync:
    key_reader = _Reader(_require_bytes(key, "offset-sync key"), "offset-sync key")
    topic, partition = key_reader.string(), key_reader.int32()
    key_reader.finish()
    value_reader = _Reader(_require_bytes(value, "offset-sync value"), "offset-sync value")
    upstream, downstream = value_reader.int64(), value_reader.int64()
    value_reader.finish()
    return OffsetSync(topic, partition, upstream, downstream)


def encode_offset_sync(sync: OffsetSync) -> tuple[bytes, bytes]:
    key = _string_bytes(sync.topic) + struct.pack(">i", sync.partition)
    return key, struct.pack(">qq", sync.upstream_offset, sync.downstream_offset)


@dataclass(frozen=True)
class Heartbeat:
    source_alias: str
    target_alias: str
    timestamp_ms: int


def decode_heartbeat(key: object, value: object) -> Heartbeat:
    key_reader = _Reader(_require_bytes(key, "heartbeat key"), "heartbeat key")
    source_alias, target_alias = key_reader.string(), key_reader.string()
    key_reader.finish()
    value_reader = _Reader(_require_bytes(value, "heartbeat value"), "heartbeat value")
    value_reader.version()
    timestamp = value_reader.int64()
    value_reader.finish()
    return Heartbeat(source_alias, target_alias, timestamp)


def encode_heartbeat(heartbeat: Heartbeat) -> tuple[bytes, bytes]:
    key = _string_bytes(heartbeat.source_alias) + _string_bytes(heartbeat.target_alias)
    return key, struct.pack(">hq", SUPPORTED_VERSION, heartbeat.timestamp_ms)
