"""Per-record fingerprints and per-partition digests.

A record's identity is what MM2 preserves: key bytes, value bytes, headers (order and
bytes) and the timestamp value. Each part is written into one canonical byte string in
which every field is self-delimiting, so null and empty differ and no two different
records share an encoding; two seeded 64-bit xxhash values of that string form a
128-bit fingerprint.

Partition digests are sums of 64-bit hashes done in DECIMAL(30,0): no 64-bit
overflow, so they hold under `spark.sql.ansi.enabled=true` (a sum of LONGs would
raise there).
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

# Columns added by `with_fingerprints` and kept by `slim_records`.
FP_A = "fp_a"
FP_B = "fp_b"
KEY_FP = "key_fp"
VALUE_FP = "value_fp"
HEADERS_FP = "headers_fp"
TS_MICROS = "ts_micros"
KEY_RANK = "key_rank"
KEY_PREVIEW = "key_preview"

# A different leading input gives a second, independent 64-bit hash of the same bytes.
_SECOND_HASH_SALT = "mm2-validator/fp-b"

# What a report shows of a record's key. Keys may be personal or secret data, so by default only
# enough of the key's SHA-256 to tell the reported keys apart and to find one a reader already
# knows (a key of few possible values can still be guessed by hashing candidates); asked for,
# the hex of the key's first bytes.
KEY_HASH_HEX_DIGITS = 12
RAW_KEY_PREVIEW_BYTES = 16

# Canonical encodings, as SQL so they run identically on Spark 3.5 and 4.x.
# A present field is 0x01, its decimal byte length, ':', then the bytes; null is 0x00.
_NULL_MARK = "X'00'"


def _field_sql(binary_sql: str) -> str:
    return (
        f"CASE WHEN ({binary_sql}) IS NULL THEN {_NULL_MARK} ELSE concat(X'01', "
        f"CAST(concat(CAST(length({binary_sql}) AS STRING), ':') AS BINARY), {binary_sql}) END"
    )


# Headers: their count, then per header its key (never null in Kafka) and its value.
# No headers and a null headers column mean the same thing: a record without headers.
_HEADERS_SQL = (
    "CASE WHEN headers IS NULL THEN CAST('0:' AS BINARY) ELSE concat("
    "CAST(concat(CAST(size(headers) AS STRING), ':') AS BINARY), "
    "aggregate(headers, X'', (acc, h) -> concat(acc, "
    + _field_sql("CAST(h.key AS BINARY)")
    + ", "
    + _field_sql("h.value")
    + "))) END"
)
_TIMESTAMP_SQL = _field_sql("CAST(CAST(unix_micros(timestamp) AS STRING) AS BINARY)")
_KEY_SQL = _field_sql("key")
_VALUE_SQL = _field_sql("value")


def canonical_record_bytes() -> Column:
    """The canonical encoding of (key, value, headers, timestamp)."""
    return F.expr(f"concat({_KEY_SQL}, {_VALUE_SQL}, {_HEADERS_SQL}, {_TIMESTAMP_SQL})")


def key_preview(raw: bool = False) -> Column:
    """The key as report examples show it: the first 12 hex digits of its SHA-256, or with `raw`
    the hex of its first 16 bytes; null for a null key."""
    if raw:
        return F.hex(F.substring("key", 1, RAW_KEY_PREVIEW_BYTES))
    return F.substring(F.sha2(F.col("key"), 256), 1, KEY_HASH_HEX_DIGITS)


def with_fingerprints(records: DataFrame, raw_key_preview: bool = False) -> DataFrame:
    """Add fingerprint columns to a DataFrame shaped like the Spark Kafka source.

    Keeps `partition`, `offset` and `timestampType`; adds the record fingerprint
    (fp_a, fp_b), hashes of the key / value / headers (to pair and explain content
    mismatches), the timestamp in microseconds and the key's preview for report
    examples (`key_preview`).
    """
    canonical = canonical_record_bytes()
    return records.select(
        F.col("partition").cast("int").alias("partition"),
        F.col("offset").cast("long").alias("offset"),
        F.col("timestampType").cast("int").alias("timestampType"),
        F.xxhash64(canonical).alias(FP_A),
        F.xxhash64(F.lit(_SECOND_HASH_SALT), canonical).alias(FP_B),
        F.xxhash64(F.expr(_KEY_SQL)).alias(KEY_FP),
        F.xxhash64(F.expr(_VALUE_SQL)).alias(VALUE_FP),
        F.xxhash64(F.expr(_HEADERS_SQL)).alias(HEADERS_FP),
        F.expr("unix_micros(timestamp)").alias(TS_MICROS),
        key_preview(raw_key_preview).alias(KEY_PREVIEW),
    )


def with_key_rank(fingerprinted: DataFrame) -> DataFrame:
    """Add each record's rank among the records of its key in its partition, by
    offset. Position-aware digests need it so that a reordering changes the digest;
    apply it to the whole compared range of a topic (after any union)."""
    by_key = Window.partitionBy("partition", KEY_FP).orderBy("offset")
    return fingerprinted.withColumn(KEY_RANK, F.row_number().over(by_key))


def _as_decimal(long_column: Column) -> Column:
    return long_column.cast("decimal(20,0)")


def partition_digests(fingerprinted: DataFrame, group_by: tuple[str, ...] = ("partition",)) -> DataFrame:
    """One row per partition (per `group_by`): record count and order-aware multiset
    digests, plus `required_records` / `window_records` when the records carry a
    `required` / `in_window` flag.

    Each record contributes hashes of (fingerprint, rank within its key), so equal
    digests mean the same records in the same per-key order. `digest_log_append`
    only sums records with LogAppendTime, so a timestamp-type change shows too.
    """
    positioned_a = F.xxhash64(F.col(FP_A), F.col(FP_B), F.col(KEY_RANK))
    positioned_b = F.xxhash64(F.lit(_SECOND_HASH_SALT), F.col(FP_A), F.col(FP_B), F.col(KEY_RANK))
    zero = F.lit(0).cast("decimal(20,0)")
    aggregates = [
        F.count(F.lit(1)).alias("records"),
        F.sum(_as_decimal(positioned_a)).alias("digest_a"),
        F.sum(_as_decimal(positioned_b)).alias("digest_b"),
        F.sum(F.when(F.col("timestampType") == 1, _as_decimal(positioned_a)).otherwise(zero)).alias(
            "digest_log_append"
        ),
    ]
    if "required" in fingerprinted.columns:
        aggregates.append(F.sum(F.when(F.col("required"), 1).otherwise(0)).alias("required_records"))
    if "in_window" in fingerprinted.columns:
        aggregates.append(F.sum(F.when(F.col("in_window"), 1).otherwise(0)).alias("window_records"))
    return fingerprinted.groupBy(*group_by).agg(*aggregates)
