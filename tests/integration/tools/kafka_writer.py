"""Writes exact Kafka records (partition, key, value, headers, timestamp) from a JSON spec.

Runs on a lab task node inside the validator's venv: the Kafka Java client comes
through Spark's JVM, so records carry the timestamps and headers the test chose,
which the console producer cannot set.

Spec: {"bootstrap": "...", "client": {client settings, optional}, "topics": [{"name": "...", "partitions": N,
       "records": [{"partition": 0, "key": hex|null, "value": hex|null,
                    "headers": [[name, hex|null], ...], "timestamp": ms}]}]}
"""

from __future__ import annotations

import glob
import json
import sys

from pyspark.sql import SparkSession


def as_bytes(hex_text):
    return None if hex_text is None else bytearray.fromhex(hex_text)


def main(spec_path: str, jars_glob: str) -> None:
    with open(spec_path, encoding="utf-8") as spec_file:
        spec = json.load(spec_file)
    spark = (SparkSession.builder.master("local[1]").appName("kafka-writer")
             .config("spark.jars", ",".join(glob.glob(jars_glob))).config("spark.ui.enabled", "false")
             # A short-lived JVM: the C1 compiler alone and a serial GC spend far less CPU starting.
             .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC").getOrCreate())
    jvm = spark._jvm  # pylint: disable=protected-access
    settings = jvm.java.util.Properties()
    settings.setProperty("bootstrap.servers", spec["bootstrap"])
    for key, value in spec.get("client", {}).items():
        settings.setProperty(key, value)
    admin = jvm.org.apache.kafka.clients.admin.AdminClient.create(settings)
    new_topics = jvm.java.util.ArrayList()
    for topic in spec["topics"]:
        new_topics.add(jvm.org.apache.kafka.clients.admin.NewTopic(
            topic["name"], jvm.java.util.Optional.of(topic["partitions"]), jvm.java.util.Optional.empty()))
    admin.createTopics(new_topics).all().get()
    admin.close()

    producer_settings = jvm.java.util.Properties()
    producer_settings.setProperty("bootstrap.servers", spec["bootstrap"])
    for key, value in spec.get("client", {}).items():
        producer_settings.setProperty(key, value)
    producer_settings.setProperty("acks", "all")
    producer_settings.setProperty("enable.idempotence", "true")
    serializer = "org.apache.kafka.common.serialization.ByteArraySerializer"
    producer_settings.setProperty("key.serializer", serializer)
    producer_settings.setProperty("value.serializer", serializer)
    producer = jvm.org.apache.kafka.clients.producer.KafkaProducer(producer_settings)
    written = 0
    for topic in spec["topics"]:
        for record in topic["records"]:
            headers = jvm.java.util.ArrayList()
            for name, value in record["headers"]:
                headers.add(jvm.org.apache.kafka.common.header.internals.RecordHeader(name, as_bytes(value)))
            producer.send(jvm.org.apache.kafka.clients.producer.ProducerRecord(
                topic["name"], jvm.java.lang.Integer(record["partition"]), jvm.java.lang.Long(record["timestamp"]),
                as_bytes(record["key"]), as_bytes(record["value"]), headers))
            written += 1
    producer.flush()
    producer.close()
    spark.stop()
    print(json.dumps({"written": written}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
