"""The PySpark validator on the lab catches each fault kind and passes a faithful copy.

Real MM2 replication validated through playbooks/validate.yml is proven elsewhere, once per
mode: on the Spark cluster (test_spark_cluster.py, the lab's flow) and in local mode
(test_separator_flow.py, and both directions of the failover drill)."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable

from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_records import Checkpoint, encode_checkpoint
from tests.integration import ansible_run, lab

NODE = lab.CONNECT_WORKERS[0]
JOB_HOME = "/opt/kafka-dr/replication-check"
JOB_PYTHON = f"{JOB_HOME}/venv/bin/python"
JARS_GLOB = f"{JOB_HOME}/jars/*.jar"
PARTITIONS = 2
RECORDS_PER_PARTITION = 60
KEYS_PER_PARTITION = 6
# Recent timestamps: records older than the retention (7 days) would be deleted at once.
BASE_TIMESTAMP_MS = (int(time.time()) - 3600) * 1000

Record = dict  # {"partition", "key", "value", "headers", "timestamp"} with hex payloads


def source_records() -> list[Record]:
    records = []
    for partition in range(PARTITIONS):
        for index in range(RECORDS_PER_PARTITION):
            records.append({
                "partition": partition,
                "key": f"p{partition}-key-{index % KEYS_PER_PARTITION}".encode().hex(),
                "value": f"value-{partition}-{index}".encode().hex(),
                "headers": [["seq", str(index).encode().hex()], ["empty", ""], ["null", None]],
                "timestamp": BASE_TIMESTAMP_MS + partition * 100_000 + index,
            })
    return records


def drop_one(records: list[Record]) -> list[Record]:
    return records[:10] + records[11:]


def duplicate_run(records: list[Record]) -> list[Record]:
    return records[:20] + records[15:20] + records[20:]


def swap_same_key_pair(records: list[Record]) -> list[Record]:
    swapped = list(records)
    swapped[12], swapped[12 + KEYS_PER_PARTITION] = swapped[12 + KEYS_PER_PARTITION], swapped[12]
    return swapped


def alter(field: str, change: Callable[[Record], object]) -> Callable[[list[Record]], list[Record]]:
    def apply(records: list[Record]) -> list[Record]:
        altered = [dict(record) for record in records]
        altered[30][field] = change(altered[30])
        return altered
    return apply


FAULTS: dict[str, tuple[Callable[[list[Record]], list[Record]], str]] = {
    "missing": (drop_one, "missing"),
    "duplicate": (duplicate_run, "duplicate"),
    "swapped": (swap_same_key_pair, "order_violation"),
    "value": (alter("value", lambda record: "ff" + record["value"]), "content_mismatch"),
    "header": (alter("headers", lambda record: [["seq", "ff"], ["empty", ""], ["null", None]]), "content_mismatch"),
    "timestamp": (alter("timestamp", lambda record: record["timestamp"] + 1), "content_mismatch"),
}


def checkpoint_record(group: str, topic: str, partition: int, upstream: int, downstream: int) -> Record:
    """A MirrorCheckpointConnector record: key group+topic+partition, value version+offsets+metadata."""
    key, value = encode_checkpoint(Checkpoint(group, topic, partition, upstream, downstream, ""))
    return {"partition": 0, "key": key.hex(), "value": value.hex(), "headers": [], "timestamp": BASE_TIMESTAMP_MS}


def as_exact(record: Record) -> lab.ExactRecord:
    def raw(hex_text: str | None) -> bytes | None:
        return None if hex_text is None else bytes.fromhex(hex_text)
    return lab.ExactRecord(partition=record["partition"], key=raw(record["key"]), value=raw(record["value"]),
                           headers=tuple((name, raw(value)) for name, value in record["headers"]),
                           timestamp=record["timestamp"])


def write(host: str, topics: list[dict]) -> None:
    """Create the topics on a lab broker and write their records exactly as given."""
    for topic in topics:
        lab.create_topic(host, topic["name"], topic["partitions"])
        lab.write_exact(host, topic["name"], [as_exact(record) for record in topic["records"]])


def install_validator() -> None:
    """The validation role lays down the job, its runtime and its client settings (User:validator
    over SASL_SSL) on the node."""
    install = ansible_run.playbook("playbooks/validate.yml", "--tags", "replication_check_install")
    assert install.returncode == 0, install.output[-3000:]


def node_jars() -> str:
    listing = subprocess.run(["docker", "exec", NODE, "sh", "-c", f"ls {JARS_GLOB}"],
                             capture_output=True, text=True, check=True).stdout.split()
    return ",".join(listing)


def run_validator(*args: str) -> tuple[int, dict]:
    """The job run by hand with the client settings the role wrote. Other tests' validation runs
    write other settings there (their own flows' clusters): the install is repeated under the
    same lock as the run."""
    report = f"/var/tmp/validator-report-{int(time.time() * 1000)}.json"
    with lab.exclusive("validation"):
        install_validator()
        done = run_job(report, *args)
    body = subprocess.run(["docker", "exec", NODE, "cat", report], capture_output=True, text=True, check=False).stdout
    assert body, f"no report (exit {done.returncode}): {done.stdout[-2000:]} {done.stderr[-3000:]}"
    return done.returncode, json.loads(body)


def run_job(report: str, *args: str) -> subprocess.CompletedProcess:
    # The lab's Spark settings, as the role passes them (small jobs: C1 only, serial GC).
    spark_conf = [f"--spark-conf={key}={value}"
                  for key, value in lab.inventory_vars()["replication_check_spark_conf"].items()]
    return subprocess.run(
        ["docker", "exec", "-e", f"PYTHONPATH={JOB_HOME}/job", NODE, JOB_PYTHON, "-m", "mm2_validator",
         "--source-alias", "src", "--target-alias", "dst",
         "--source-bootstrap", f"{lab.SOURCE_BROKER}:{lab.CLIENT_PORT}",
         "--target-bootstrap", f"{lab.TARGET_BROKER}:{lab.CLIENT_PORT}",
         "--source-properties", f"{JOB_HOME}/secrets/source.properties",
         "--target-properties", f"{JOB_HOME}/secrets/target.properties",
         "--offset-syncs-bootstrap", f"{lab.TARGET_BROKER}:{lab.CLIENT_PORT}",
         "--master", "local[2]", "--jars", node_jars(), "--report-json", report, *spark_conf, *args],
        capture_output=True, text=True, check=False, timeout=900)


def test_each_fault_kind_is_caught_and_a_faithful_copy_passes(lab_brokers: tuple[str, str]) -> None:
    run_id = int(time.time())
    source = source_records()
    source_topics, target_topics, expectations = [], [], {}
    for kind, (fault, expected_problem) in {**FAULTS, "clean": (list, "")}.items():
        name = f"vfault-{kind}-{run_id}"
        source_topics.append({"name": name, "partitions": PARTITIONS, "records": source})
        copy = [record for record in source if record["partition"] == 1]
        faulty_partition_0 = fault([record for record in source if record["partition"] == 0])
        target_topics.append({"name": f"src.{name}", "partitions": PARTITIONS, "records": faulty_partition_0 + copy})
        expectations[name] = expected_problem
    checkpoints_topic = f"vfault-checkpoints-{run_id}"
    clean_target = f"src.vfault-clean-{run_id}"
    # Upstream 30 translated to downstream 40 skips ten records; 20 -> 20 is exact.
    target_topics.append({"name": checkpoints_topic, "partitions": 1, "records": [
        checkpoint_record("skipper", clean_target, 0, upstream=30, downstream=40),
        checkpoint_record("careful", clean_target, 0, upstream=20, downstream=20),
    ]})
    try:
        write(lab.SOURCE_BROKER, source_topics)
        write(lab.TARGET_BROKER, target_topics)

        exit_code, report = run_validator("--topics", ",".join(expectations), "--groups", "skipper,careful",
                                          "--checkpoints-topic", checkpoints_topic, "--catchup-timeout", "10")

        assert exit_code == 1
        assert report["verdict"] == "FAIL"
        by_topic = {topic["source_topic"]: topic for topic in report["topics"]}
        for name, expected_problem in expectations.items():
            partition_0, partition_1 = sorted(by_topic[name]["partitions"], key=lambda entry: entry["partition"])
            assert all(count == 0 for count in partition_1["problems"].values()), (name, partition_1)
            if expected_problem:
                assert partition_0["problems"][expected_problem] > 0, (name, partition_0)
            else:
                assert all(count == 0 for count in partition_0["problems"].values()), (name, partition_0)
        field_of = {"value": "value", "header": "headers", "timestamp": "timestamp"}
        for kind, field in field_of.items():
            partition_0 = min(by_topic[f"vfault-{kind}-{run_id}"]["partitions"], key=lambda entry: entry["partition"])
            assert partition_0["content_mismatch_fields"][field] > 0, (kind, partition_0)
        verdicts = {entry["group"]: entry for entry in report["checkpoints"]["partitions"]}
        assert verdicts["skipper"]["safe"] is False and verdicts["skipper"]["skipped_records"] == 10
        assert verdicts["careful"]["safe"] is True
    finally:
        # The lab's flow does not match vfault-*: each side's copies are removed on their own.
        lab.delete_topics(lab.SOURCE_BROKER, *(topic["name"] for topic in source_topics))
        lab.delete_topics(lab.TARGET_BROKER, *(topic["name"] for topic in target_topics))
