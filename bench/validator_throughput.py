"""Records validated per second by the PySpark job, next to a plain Kafka consumer.

On the lab, in one run: produce N records to a source topic that the lab's MM2 flow
replicates, wait until the target holds them all, then time
  1. the validator comparing both topics record by record (its own elapsed time), and
  2. kafka-consumer-perf-test (ConsumerPerformance) reading the source and the target topic,
and print the rates side by side with their ratio.

It is one part of `make bench` (BENCH_PARTS=validator runs it alone); it needs the
validation job installed on the first Connect worker.
"""

from __future__ import annotations

import json
import os
import subprocess
import time

from tests.integration import lab

VALIDATOR_NODE = lab.CONNECT_WORKERS[0]
JOB_HOME = "/opt/kafka-dr/replication-check"


def target_record_count(topic: str) -> int:
    output = lab.kafka_run(lab.TARGET_BROKER, "org.apache.kafka.tools.GetOffsetShell",
                           "--bootstrap-server", lab.bootstrap(lab.TARGET_BROKER), "--topic", topic)
    return sum(int(line.rsplit(":", 1)[1]) for line in output.splitlines() if line.count(":") >= 2)


def wait_for_replication(topic: str, expected: int, timeout_s: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        try:
            if target_record_count(topic) >= expected:
                return time.monotonic() - started
        except RuntimeError:
            pass  # the remote topic is not created yet
        time.sleep(2)
    raise SystemExit(f"target {topic} did not reach {expected} records within {timeout_s} s")


def consumer_rate(host: str, topic: str, records: int) -> float:
    """Records per second of ConsumerPerformance reading the whole topic once."""
    output = lab.kafka_run(host, "org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server", lab.bootstrap(host),
                           "--topic", topic, "--messages", str(records), "--timeout", "60000", timeout=900)
    header, values = [line for line in output.splitlines() if line.strip()][-2:]
    columns = dict(zip([name.strip() for name in header.split(",")], [value.strip() for value in values.split(",")]))
    return float(columns["nMsg.sec"])


# The lab's Spark standalone cluster (`make spark-cluster`): the job is submitted to its master
# with the cluster's spark-defaults.conf (its secret) and executors that fit its workers.
CLUSTER_MASTER = f"spark://{VALIDATOR_NODE}:7077"
CLUSTER_ENVIRONMENT = ("SPARK_CONF_DIR=/etc/spark", f"PYSPARK_PYTHON={JOB_HOME}/venv/bin/python")
CLUSTER_CONF = ("spark.executor.memory=512m", "spark.executor.cores=1", "spark.cores.max=2")
LOCAL_CONF = ("spark.driver.memory=1g",)


def validator_rate(topic: str, on_cluster: bool = False) -> tuple[float, dict]:
    """Source records validated per second (the job's own elapsed time), in-process Spark or on the cluster."""
    jars = subprocess.run(["docker", "exec", VALIDATOR_NODE, "sh", "-c", f"ls {JOB_HOME}/jars/*.jar"],
                          capture_output=True, text=True, check=True).stdout.split()
    report_path = "/var/tmp/bench-report.json"
    environment = [f"PYTHONPATH={JOB_HOME}/job", *(CLUSTER_ENVIRONMENT if on_cluster else ())]
    spark_conf = [f"--spark-conf={setting}" for setting in (CLUSTER_CONF if on_cluster else LOCAL_CONF)]
    done = subprocess.run(
        ["docker", "exec", *(argument for variable in environment for argument in ("-e", variable)), VALIDATOR_NODE,
         f"{JOB_HOME}/venv/bin/python", "-m",
         "mm2_validator", "--source-alias", "src", "--target-alias", "dst",
         "--source-bootstrap", f"{lab.SOURCE_BROKER}:{lab.CLIENT_PORT}",
         "--target-bootstrap", f"{lab.TARGET_BROKER}:{lab.CLIENT_PORT}",
         "--source-properties", f"{JOB_HOME}/secrets/source.properties",
         "--target-properties", f"{JOB_HOME}/secrets/target.properties",
         "--offset-syncs-bootstrap", f"{lab.TARGET_BROKER}:{lab.CLIENT_PORT}",
         "--topics", topic, "--master", CLUSTER_MASTER if on_cluster else "local[2]", "--jars", ",".join(jars),
         *spark_conf, "--report-json", report_path],
        capture_output=True, text=True, check=False, timeout=3600)
    report = json.loads(subprocess.run(["docker", "exec", VALIDATOR_NODE, "cat", report_path],
                                       capture_output=True, text=True, check=True).stdout)
    if done.returncode != 0:
        raise SystemExit(f"validator exited {done.returncode}: {done.stdout[-2000:]}")
    return report["records_validated"] / report["elapsed_s"], report


def start_cluster() -> bool:
    """Start the lab's Spark standalone cluster (idempotent); False when it cannot run here."""
    run = lab.run_playbook("playbooks/spark.yml", None, timeout=900)
    return run.returncode == 0


def produce_replicated(topic: str, records: int) -> float:
    """Produce records of 200 B to a source topic of the lab's flow; seconds until all are on the target."""
    lab.create_topic(lab.SOURCE_BROKER, topic, 3)
    lab.kafka_run(lab.SOURCE_BROKER, "org.apache.kafka.tools.ProducerPerformance", "--topic", topic,
                  "--num-records", str(records), "--record-size", "200", "--throughput", "-1",
                  "--command-config", lab.ADMIN_CLIENT_CONFIG,
                  "--producer-props", f"bootstrap.servers={lab.bootstrap(lab.SOURCE_BROKER)}", "acks=all",
                  "linger.ms=20", "batch.size=262144", timeout=1800)
    return wait_for_replication(f"src.{topic}", records, timeout_s=1800)


def scale_figures(seconds_1x: float, seconds_4x: float, records: int) -> dict:
    """Cost growth from 1x to 4x the records (the goal: at most 4.4x the time)."""
    return {"records_1x": records, "records_4x": 4 * records, "seconds_1x": round(seconds_1x, 1),
            "seconds_4x": round(seconds_4x, 1), "time_ratio_4x": round(seconds_4x / seconds_1x, 2)}


def job_installed() -> bool:
    return subprocess.run(["docker", "exec", VALIDATOR_NODE, "test", "-d", f"{JOB_HOME}/jars"],
                          capture_output=True, check=False).returncode == 0


def measure(records: int, on_cluster: bool = True) -> dict:
    """The validator's figures on fresh topics of the lab's flow (foo.*): in-process Spark at 1x and
    4x the records, next to a plain consumer, and the same on the Spark standalone cluster."""
    if not job_installed():
        return {"skipped": f"the validation job is not installed on {VALIDATOR_NODE} "
                           "(ansible-playbook playbooks/validate.yml --tags replication_check_install)"}
    run_id = int(time.time())
    topic_1x, topic_4x = f"foo.bench.{run_id}.x1", f"foo.bench.{run_id}.x4"
    try:
        replication_s = produce_replicated(topic_1x, records)
        produce_replicated(topic_4x, 4 * records)
        validated_per_s, report = validator_rate(topic_1x)
        report_4x = validator_rate(topic_4x)[1]
        source_per_s = consumer_rate(lab.SOURCE_BROKER, topic_1x, records)
        target_per_s = consumer_rate(lab.TARGET_BROKER, f"src.{topic_1x}", records)
        cluster = cluster_figures(topic_1x, topic_4x, records) if on_cluster else {"skipped": "not asked for"}
    finally:
        lab.delete_mirrored_topics(lab.SOURCE_BROKER, [topic_1x, topic_4x], lab.TARGET_BROKER,
                                   [f"src.{topic_1x}", f"src.{topic_4x}"], "mm2-src-dst-source")
    plain_per_s = 2 * records / (records / source_per_s + records / target_per_s)
    return {"records": records, "caught_up_s": round(replication_s, 1), "verdict": report["verdict"],
            "elapsed_s": report["elapsed_s"], "records_per_s": round(validated_per_s, 1),
            "consumer_source_per_s": round(source_per_s, 1), "consumer_target_per_s": round(target_per_s, 1),
            "plain_pairs_per_s": round(plain_per_s / 2, 1), "ratio": round(validated_per_s / (plain_per_s / 2), 3),
            "scale": scale_figures(report["elapsed_s"], report_4x["elapsed_s"], records), "cluster": cluster}


def cluster_figures(topic_1x: str, topic_4x: str, records: int) -> dict:
    """The job submitted to the lab's Spark standalone cluster, started for the measure and stopped after."""
    if not start_cluster():
        return {"skipped": "playbooks/spark.yml failed: the Spark standalone cluster did not start"}
    try:
        per_s_1x, report_1x = validator_rate(topic_1x, on_cluster=True)
        report_4x = validator_rate(topic_4x, on_cluster=True)[1]
    finally:
        lab.stop_spark_cluster()
    return {"records_per_s": round(per_s_1x, 1), "verdict": report_1x["verdict"],
            "scale": scale_figures(report_1x["elapsed_s"], report_4x["elapsed_s"], records)}


def main() -> None:
    figures = measure(int(os.environ.get("BENCH_RECORDS", "1000000")), os.environ.get("BENCH_SPARK_CLUSTER", "1") == "1")
    for name, value in figures.items():
        print(f"{name:<24} {value}")


if __name__ == "__main__":
    main()
