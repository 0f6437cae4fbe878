"""MM2 internal record formats, byte for byte."""

from __future__ import annotations

import struct

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_records import (
    Checkpoint,
    Heartbeat,
    OffsetSync,
    RecordFormatError,
    decode_checkpoint,
    decode_heartbeat,
    decode_offset_sync,
    encode_checkpoint,
    encode_heartbeat,
    encode_offset_sync,
)

CHECKPOINT_KEY = b"\x00\x06orders" + b"\x00\x0asrc.orders" + b"\x00\x00\x00\x03"
CHECKPOINT_VALUE = (
    b"\x00\x00"  # version 0
    + b"\x00\x00\x00\x00\x00\x00\x01\x2c"  # upstream 300
    + b"\x00\x00\x00\x00\x00\x00\x00\xc8"  # downstream 200
    + b"\x00\x02md"  # metadata "md"
)


def test_checkpoint_decodes_byte_exact():
    checkpoint = decode_checkpoint(CHECKPOINT_KEY, bytearray(CHECKPOINT_VALUE))
    assert checkpoint == Checkpoint("orders", "src.orders", 3, 300, 200, "md")
    assert encode_checkpoint(checkpoint) == (CHECKPOINT_KEY, CHECKPOINT_VALUE)


def test_checkpoint_strings_use_utf8_byte_lengths():
    checkpoint = Checkpoint("grüppe", "src.tópico", 0, 2**40, 0, "")
    key, value = encode_checkpoint(checkpoint)
    assert key.startswith(struct.pack(">h", len("grüppe".encode())) + "grüppe".encode())
    assert decode_checkpoint(key, value) == checkpoint


def test_offset_sync_decodes_byte_exact():
    key = b"\x00\x06orders" + b"\x00\x00\x00\x01"
    value = struct.pack(">q", 1_000_000_000_000) + struct.pack(">q", 7)
    sync = decode_offset_sync(key, value)
    assert sync == OffsetSync("orders", 1, 1_000_000_000_000, 7)
    assert encode_offset_sync(sync) == (key, value)


def test_heartbeat_decodes_byte_exact():
    key = b"\x00\x03src" + b"\x00\x03dst"
    value = b"\x00\x00" + struct.pack(">q", 1_700_000_000_123)
    heartbeat = decode_heartbeat(key, value)
    assert heartbeat == Heartbeat("src", "dst", 1_700_000_000_123)
    assert encode_heartbeat(heartbeat) == (key, value)


@pytest.mark.parametrize(
    "key, value, message",
    [
        (CHECKPOINT_KEY[:-1], CHECKPOINT_VALUE, "truncated"),
        (CHECKPOINT_KEY + b"\x00", CHECKPOINT_VALUE, "trailing"),
        (CHECKPOINT_KEY, b"\x00\x01" + CHECKPOINT_VALUE[2:], "unsupported version 1"),
        (CHECKPOINT_KEY, None, "null"),
        (b"\xff\xff" + CHECKPOINT_KEY[2:], CHECKPOINT_VALUE, "negative string length"),
    ],
)
def test_malformed_checkpoints_are_rejected(key, value, message):
    with pytest.raises(RecordFormatError, match=message):
        decode_checkpoint(key, value)
