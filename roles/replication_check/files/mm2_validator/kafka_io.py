"""The only code that talks to Kafka.

Metadata (topics, partitions, start/end offsets) comes from a Kafka consumer created
in Spark's JVM through py4j: the kafka-clients jar is already on the classpath for
the Spark Kafka source, so no Python Kafka library is needed. Records are read with
Spark's Kafka batch source over explicit per-partition offset ranges.

Everything above this module works on `KafkaCluster`, so tests can substitute
in-memory DataFrames.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping, Optional, Protocol, TypeVar

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from mm2_validator.config import ClusterAccess, ConfigError

# The schema of the Spark Kafka source with includeHeaders=true.
KAFKA_RECORD_SCHEMA = StructType(
    [
        StructField("key", BinaryType(), True),
        StructField("value", BinaryType(), True),
        StructField("topic", StringType(), True),
        StructField("partition", IntegerType(), True),
        StructField("offset", LongType(), True),
        StructField("timestamp", TimestampType(), True),
        StructField("timestampType", IntegerType(), True),
        StructField(
            "headers",
            ArrayType(StructType([StructField("key", StringType(), True), StructField("value", BinaryType(), True)])),
            True,
        ),
    ]
)

T = TypeVar("T")

# Uuid.ZERO_UUID as Kafka prints it: the id of a topic on a broker without topic ids.
_ZERO_TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAA"


class KafkaAccessError(RuntimeError):
    """A cluster could not be reached or refused the client (exit code 2)."""


class KafkaCluster(Protocol):
    """What the validator needs from one Kafka cluster."""

    name: str

    def list_topics(self) -> list[str]: ...

    def partitions(self, topic: str) -> list[int]:
        """Partition numbers; empty when the topic does not exist."""

    def start_offsets(self, topic: str, partitions: list[int]) -> dict[int, int]: ...

    def end_offsets(self, topic: str, partitions: list[int]) -> dict[int, int]: ...

    def read(self, topic: str, start: Mapping[int, int], end: Mapping[int, int]) -> DataFrame:
        """Records of [start, end) per partition, shaped like KAFKA_RECORD_SCHEMA."""

    def close(self) -> None: ...


def offsets_json(topic: str, offsets: Mapping[int, int]) -> str:
    """Per-partition offsets in the JSON form of startingOffsets/endingOffsets."""
    return json.dumps({topic: {str(p): int(o) for p, o in sorted(offsets.items())}})


def empty_records(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame([], KAFKA_RECORD_SCHEMA)


def read_whole_topic(cluster: KafkaCluster, topic: str) -> Optional[DataFrame]:
    """All records of a topic (None when it does not exist); for small internal topics."""
    partitions = cluster.partitions(topic)
    if not partitions:
        return None
    return cluster.read(topic, cluster.start_offsets(topic, partitions), cluster.end_offsets(topic, partitions))


def collect_internal_rows(records: DataFrame) -> list[tuple[Any, Any, int, int, int]]:
    """(key, value, offset, timestamp ms, timestamp type) of a small topic, in offset order."""
    rows = (
        records.select("key", "value", "offset", F.expr("unix_millis(timestamp)").alias("ts_ms"), "timestampType")
        .orderBy("partition", "offset")
        .collect()
    )
    return [(r["key"], r["value"], r["offset"], r["ts_ms"], r["timestampType"]) for r in rows]


class SparkKafkaCluster:
    """A `KafkaCluster` backed by Spark's Kafka source and a py4j Kafka consumer."""

    def __init__(self, spark: SparkSession, access: ClusterAccess, request_timeout_s: float = 30.0) -> None:
        self.name = access.name
        self._spark = spark
        self._access = access
        self._timeout_ms = int(request_timeout_s * 1000)
        self._consumer: Any = None

    # -- metadata through the JVM consumer ----------------------------------------

    def _jvm(self) -> Any:
        return self._spark.sparkContext._jvm  # type: ignore[attr-defined]

    def _call(self, what: str, action: Callable[[], T]) -> T:
        from py4j.protocol import Py4JJavaError

        try:
            return action()
        except Py4JJavaError as exc:
            java_error = exc.java_exception
            detail = f"{java_error.getClass().getName()}: {java_error.getMessage()}"
            raise KafkaAccessError(f"{self.name} cluster ({self._access.bootstrap}): {what} failed: {detail}") from None

    def _metadata_consumer(self) -> Any:
        if self._consumer is None:
            jvm = self._jvm()
            properties = jvm.java.util.Properties()
            for key, value in self._access.consumer_properties().items():
                properties.setProperty(key, value)
            for key, value in {
                "key.deserializer": "org.apache.kafka.common.serialization.ByteArrayDeserializer",
                "value.deserializer": "org.apache.kafka.common.serialization.ByteArrayDeserializer",
                "enable.auto.commit": "false",
                "allow.auto.create.topics": "false",
                "client.id": f"mm2-validator-{self.name}",
                "default.api.timeout.ms": str(self._timeout_ms),
                "request.timeout.ms": str(self._timeout_ms),
            }.items():
                properties.setProperty(key, value)
            consumer_class = jvm.org.apache.kafka.clients.consumer.KafkaConsumer
            if type(consumer_class).__name__ != "JavaClass":
                # py4j resolves unknown classes to packages: the jar is not on the classpath.
                raise ConfigError("kafka-clients is not on Spark's classpath: pass the Spark Kafka jars (--jars)")
            self._consumer = self._call("creating a consumer", lambda: consumer_class(properties))
        return self._consumer

    def _duration(self) -> Any:
        return self._jvm().java.time.Duration.ofMillis(self._timeout_ms)

    def _topic_partitions(self, topic: str, partitions: list[int]) -> Any:
        jvm = self._jvm()
        java_list = jvm.java.util.ArrayList()
        for partition in partitions:
            java_list.add(jvm.org.apache.kafka.common.TopicPartition(topic, int(partition)))
        return java_list

    def list_topics(self) -> list[str]:
        consumer = self._metadata_consumer()
        topics = self._call("listing topics", lambda: consumer.listTopics(self._duration()))
        return sorted(str(name) for name in topics.keySet())

    def partitions(self, topic: str) -> list[int]:
        consumer = self._metadata_consumer()
        infos = self._call(f"describing {topic}", lambda: consumer.partitionsFor(topic, self._duration()))
        if infos is None:
            return []
        return sorted(int(info.partition()) for info in infos)

    def _offsets(self, topic: str, partitions: list[int], earliest: bool) -> dict[int, int]:
        if not partitions:
            return {}
        consumer = self._metadata_consumer()
        java_partitions = self._topic_partitions(topic, partitions)
        if earliest:
            result = self._call(
                f"start offsets of {topic}", lambda: consumer.beginningOffsets(java_partitions, self._duration())
            )
        else:
            result = self._call(
                f"end offsets of {topic}", lambda: consumer.endOffsets(java_partitions, self._duration())
            )
        return {int(tp.partition()): int(result.get(tp)) for tp in result.keySet()}

    def start_offsets(self, topic: str, partitions: list[int]) -> dict[int, int]:
        return self._offsets(topic, partitions, earliest=True)

    def end_offsets(self, topic: str, partitions: list[int]) -> dict[int, int]:
        return self._offsets(topic, partitions, earliest=False)

    def topic_id(self, topic: str) -> Optional[str]:
        """The topic's id (brokers and clients 2.8 or later), None where the cluster or
        client does not give one; incremental mode tells a re-created topic by it."""
        try:
            jvm = self._jvm()
            properties = jvm.java.util.Properties()
            for key, value in self._access.consumer_properties().items():
                properties.setProperty(key, value)
            properties.setProperty("client.id", f"mm2-validator-{self.name}-admin")
            properties.setProperty("request.timeout.ms", str(self._timeout_ms))
            properties.setProperty("default.api.timeout.ms", str(self._timeout_ms))
            admin = jvm.org.apache.kafka.clients.admin.Admin.create(properties)
            try:
                topics = jvm.java.util.Collections.singletonList(topic)
                unit = jvm.java.util.concurrent.TimeUnit.MILLISECONDS
                description = admin.describeTopics(topics).all().get(self._timeout_ms, unit).get(topic)
                identifier = description.topicId()
            finally:
                admin.close()
        except Exception:  # noqa: BLE001 - no id: the partition count and log starts stand in
            return None
        text = None if identifier is None else str(identifier.toString())
        return None if not text or text == _ZERO_TOPIC_ID else text

    # -- records through the Spark Kafka source -------------------------------------

    def read(self, topic: str, start: Mapping[int, int], end: Mapping[int, int]) -> DataFrame:
        ranges = {p: (int(start[p]), int(end[p])) for p in end if p in start and int(end[p]) > int(start[p])}
        if not ranges:
            return empty_records(self._spark)
        options = self._access.spark_options()
        options.update(
            {
                "assign": json.dumps({topic: sorted(ranges)}),
                "startingOffsets": offsets_json(topic, {p: r[0] for p, r in ranges.items()}),
                "endingOffsets": offsets_json(topic, {p: r[1] for p, r in ranges.items()}),
                "includeHeaders": "true",
                # Compaction, transaction markers and retention leave offset gaps; the
                # comparison, not the reader, decides what is missing.
                "failOnDataLoss": "false",
            }
        )
        return self._spark.read.format("kafka").options(**options).load()

    def close(self) -> None:
        if self._consumer is not None:
            try:
                self._consumer.close()
            except Exception:  # closing is best effort: the JVM may already be gone
                pass
            self._consumer = None
