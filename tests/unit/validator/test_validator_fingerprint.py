"""Fingerprint encoding and overflow-safe digests."""

from __future__ import annotations

import hashlib
from decimal import Decimal

import pytest
from pyspark.sql import functions as F

from validator_helpers import record, records_frame
from mm2_validator.fingerprint import (
    FP_A,
    FP_B,
    KEY_FP,
    KEY_PREVIEW,
    partition_digests,
    with_fingerprints,
    with_key_rank,
)


def fingerprints(spark, records):
    return with_fingerprints(records_frame(spark, "t", records)).orderBy("offset").collect()


def test_null_empty_and_field_boundaries_give_distinct_fingerprints(spark):
    rows = fingerprints(
        spark,
        [
            record(key=None, value=b"x"),
            record(key=b"", value=b"x"),
            record(key=b"ab", value=b"c"),  # same bytes as the next one, split differently
            record(key=b"a", value=b"bc"),
            record(key=b"a", value=None),
            record(key=b"a", value=b""),
        ],
    )
    assert len({(r[FP_A], r[FP_B]) for r in rows}) == len(rows)
    assert rows[0][KEY_FP] != rows[1][KEY_FP]


def test_same_content_gives_the_same_fingerprint_at_any_offset(spark):
    rows = fingerprints(spark, [record(headers=[("h", b"1")]), record(headers=[("h", b"1")])])
    assert (rows[0][FP_A], rows[0][FP_B]) == (rows[1][FP_A], rows[1][FP_B])


def test_the_key_preview_is_a_short_hash_unless_the_raw_prefix_is_asked_for(spark):
    key = b"customer-4711/with-a-long-tail"
    frame = records_frame(spark, "t", [record(key=key), record(key=None)])
    hashed = with_fingerprints(frame).orderBy("offset").collect()
    assert [r[KEY_PREVIEW] for r in hashed] == [hashlib.sha256(key).hexdigest()[:12], None]
    raw = with_fingerprints(frame, raw_key_preview=True).orderBy("offset").collect()
    assert [r[KEY_PREVIEW] for r in raw] == [key[:16].hex().upper(), None]


def test_digests_do_not_overflow_under_ansi_mode(ansi):
    # Pick a fingerprint whose positioned hash is above 2**60; 64 copies of it sum
    # past the LONG range, which raises under ANSI. The DECIMAL digest is exact.
    candidates = (
        ansi.range(64)
        .select(F.col("id").alias("fp"), F.xxhash64(F.col("id"), F.col("id"), F.lit(1)).alias("h"))
        .collect()
    )
    fp, positioned = next((r["fp"], r["h"]) for r in candidates if abs(r["h"]) > 2**60)
    frame = with_fingerprints(records_frame(ansi, "t", [record()] * 64))
    frame = (
        frame.withColumn(FP_A, F.lit(fp).cast("long"))
        .withColumn(FP_B, F.lit(fp).cast("long"))
        .withColumn("key_rank", F.lit(1))
    )
    row = partition_digests(frame).collect()[0]
    assert row["records"] == 64
    assert row["digest_a"] == Decimal(positioned) * 64
    assert abs(row["digest_a"]) > 2**63
    # The same sum in LONG arithmetic is what ANSI mode refuses.
    with pytest.raises(Exception, match="(?i)overflow"):
        frame.agg(F.sum(F.xxhash64(FP_A, FP_B, "key_rank"))).collect()


def test_fingerprinting_large_real_hash_sums_under_ansi_mode(ansi):
    # Many distinct records: their digest sums exceed the LONG range without failing.
    records = [record(key=str(i).encode(), value=b"x" * (i % 7)) for i in range(400)]
    row = partition_digests(with_key_rank(with_fingerprints(records_frame(ansi, "t", records)))).collect()[0]
    assert row["records"] == 400
    assert isinstance(row["digest_a"], Decimal)
