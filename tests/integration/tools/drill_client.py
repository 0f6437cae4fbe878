"""Producer and consumer of the failover drill, run on a lab task node.

Kafka's Java clients come from the node's Kafka install, driven through py4j (the failover
role's venv has it). The consumer commits exactly what it returned, so the drill knows
every value a group consumed and where it stopped.

    drill_client.py produce '{"bootstrap": ..., "client": {...}, "topic": ..., "partitions": 3,
                              "start": 0, "count": 6000, "rate": 300, "prefix": "run1"}'
    drill_client.py consume '{"bootstrap": ..., "client": {...}, "topic": ..., "group": ...,
                              "max": 2500 or null (to the end), "timeout": 120}'

Client values may hold ${file:PATH:KEY} placeholders (the workers' secret files). Prints JSON.
"""

from __future__ import annotations

import json
import re
import sys
import time

from py4j.java_gateway import GatewayParameters, JavaGateway, launch_gateway
from py4j.protocol import Py4JJavaError

KAFKA_LIBS = "/opt/kafka/current/libs/*"
PLACEHOLDER = re.compile(r"\$\{file:([^:}]+):([^}]+)\}")


def resolve(value: str) -> str:
    def secret(match: re.Match) -> str:
        with open(match.group(1), encoding="utf-8") as handle:
            for line in handle:
                key, _sep, found = line.strip().partition("=")
                if key == match.group(2):
                    return found
        raise KeyError(match.group(2))
    return PLACEHOLDER.sub(secret, value)


def gateway() -> JavaGateway:
    port, token = launch_gateway(classpath=KAFKA_LIBS, die_on_exit=True, enable_auth=True,
                                 javaopts=["-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                                           "-Dorg.apache.logging.log4j.level=OFF"])
    return JavaGateway(gateway_parameters=GatewayParameters(port=port, auth_token=token, auto_convert=True))


def properties(jvm, spec: dict, extra: dict) -> object:
    props = jvm.java.util.Properties()
    settings = dict(spec.get("client", {}), **{"bootstrap.servers": spec["bootstrap"]}, **extra)
    for key, value in settings.items():
        props.setProperty(key, resolve(str(value)))
    return props


def produce(jvm, spec: dict) -> dict:
    admin = jvm.org.apache.kafka.clients.admin.Admin.create(properties(jvm, spec, {}))
    existing = set(admin.listTopics().names().get())
    if spec["topic"] not in existing:
        topic = jvm.org.apache.kafka.clients.admin.NewTopic(spec["topic"], spec["partitions"], jvm.java.lang.Short(1))
        admin.createTopics([topic]).all().get()
    admin.close()
    serializer = "org.apache.kafka.common.serialization.StringSerializer"
    producer = jvm.org.apache.kafka.clients.producer.KafkaProducer(properties(jvm, spec, {
        "key.serializer": serializer, "value.serializer": serializer, "acks": "all", "enable.idempotence": "true",
        "linger.ms": "5"}))
    started = time.time()
    interval = 1.0 / float(spec["rate"])
    futures = []
    for index in range(spec["start"], spec["start"] + spec["count"]):
        due = started + (index - spec["start"]) * interval
        pause = due - time.time()
        if pause > 0:
            time.sleep(pause)
        record = jvm.org.apache.kafka.clients.producer.ProducerRecord(
            spec["topic"], index % spec["partitions"], "k%d" % index, "%s-%d" % (spec["prefix"], index))
        futures.append(producer.send(record))
    producer.flush()
    for future in futures:
        future.get()
    producer.close()
    return {"sent": spec["count"], "started": started, "ended": time.time()}


def consume(jvm, spec: dict) -> dict:
    deserializer = "org.apache.kafka.common.serialization.StringDeserializer"
    consumer = jvm.org.apache.kafka.clients.consumer.KafkaConsumer(properties(jvm, spec, {
        "group.id": spec["group"], "enable.auto.commit": "false", "auto.offset.reset": "earliest",
        # The producer creates the topic with its partitions; a consumer must not create it first.
        "allow.auto.create.topics": "false",
        "key.deserializer": deserializer, "value.deserializer": deserializer, "max.poll.records": "200"}))
    deadline = time.time() + spec.get("timeout", 120)
    partitions = []
    while not partitions and time.time() < deadline:  # a producer may still be creating the topic
        partitions = [jvm.org.apache.kafka.common.TopicPartition(spec["topic"], info.partition())
                      for info in consumer.partitionsFor(spec["topic"]) or []]
        if not partitions:
            time.sleep(1)
    consumer.assign(partitions)
    ends = consumer.endOffsets(partitions)
    limit = spec.get("max")
    values, next_offsets, first_at = [], {}, None
    poll = jvm.java.time.Duration.ofMillis(500)
    while time.time() < deadline and (limit is None or len(values) < limit):
        if limit is None and all(consumer.position(tp) >= ends.get(tp) for tp in partitions):
            break
        batch = consumer.poll(poll)
        for record in (record for tp in partitions for record in batch.records(tp)):
            if limit is not None and len(values) >= limit:
                break
            first_at = first_at or time.time()
            values.append(record.value())
            next_offsets[(record.topic(), record.partition())] = record.offset() + 1
    commit = jvm.java.util.HashMap()
    for (topic, partition), offset in next_offsets.items():
        commit.put(jvm.org.apache.kafka.common.TopicPartition(topic, partition),
                   jvm.org.apache.kafka.clients.consumer.OffsetAndMetadata(offset))
    if next_offsets:
        consumer.commitSync(commit)
    consumer.close()
    return {"values": values, "first_record_at": first_at,
            "committed": {str(partition): offset for (_topic, partition), offset in sorted(next_offsets.items())}}


def main() -> None:
    command, spec = sys.argv[1], json.loads(sys.argv[2])
    java = gateway()
    try:
        result = {"produce": produce, "consume": consume}[command](java.jvm, spec)
    except Py4JJavaError as exc:
        sys.exit("%s failed: %s" % (command, exc.java_exception.toString()))
    finally:
        java.shutdown()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
