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


def validator_rate(topic: str) -> tuple[float, dict]:
    jars = subprocess.run(["docker", "exec", VALIDATOR_NODE, "sh", "-c", f"ls {JOB_HOME}/jars/*.jar"],
                          capture_output=True, text=True, check=True).stdout.split()
    report_path = "/var/tmp/bench-report.json"
    done = subprocess.run(
        ["docker", "exec", "-e", f"PYTHONPATH={JOB_HOME}/job", VALIDATOR_NODE, f"{JOB_HOME}/venv/bin/python", "-m",
         "mm2_validator", "--source-alias", "src", "--target-alias", "dst",
         "--source-bootstrap", f"{lab.SOURCE_BROKER}:{lab.CLIENT_PORT}",
         "--target-bootstrap", f"{lab.TARGET_BROKER}:{lab.CLIENT_PORT}",
         "--source-properties", f"{JOB_HOME}/secrets/source.properties",
         "--target-properties", f"{JOB_HOME}/secrets/target.properties",
         "--offset-syncs-bootstrap", f"{lab.TARGET_BROKER}:{lab.CLIENT_PORT}",
         "--topics", topic, "--master", "local[2]", "--jars", ",".join(jars),
         "--spark-conf", "spark.driver.memory=1g", "--report-json", report_path],
        capture_output=True, text=True, check=False, timeout=3600)
    report = json.loads(subprocess.run(["docker", "exec", VALIDATOR_NODE, "cat", report_path],
                                       capture_output=True, text=True, check=True).stdout)
    if done.returncode != 0:
        raise SystemExit(f"validator exited {done.returncode}: {done.stdout[-2000:]}")
    return report["records_validated"] / report["elapsed_s"], report


def job_installed() -> bool:
    return subprocess.run(["docker", "exec", VALIDATOR_NODE, "test", "-d", f"{JOB_HOME}/jars"],
                          capture_output=True, check=False).returncode == 0


def measure(records: int) -> dict:
    """The validator's figures on a fresh topic of the lab's flow (foo.*), or why they were skipped."""
    if not job_installed():
        return {"skipped": f"the validation job is not installed on {VALIDATOR_NODE} "
                           "(ansible-playbook playbooks/validate.yml --tags replication_check_install)"}
    topic = f"foo.bench.{int(time.time())}"
    remote = f"src.{topic}"
    lab.create_topic(lab.SOURCE_BROKER, topic, 3)
    try:
        lab.kafka_run(lab.SOURCE_BROKER, "org.apache.kafka.tools.ProducerPerformance", "--topic", topic,
                      "--num-records", str(records), "--record-size", "200", "--throughput", "-1",
                      "--command-config", lab.ADMIN_CLIENT_CONFIG,
                      "--producer-props", f"bootstrap.servers={lab.bootstrap(lab.SOURCE_BROKER)}", "acks=all",
                      "linger.ms=20", "batch.size=262144", timeout=1800)
        replication_s = wait_for_replication(remote, records, timeout_s=1800)
        validated_per_s, report = validator_rate(topic)
        source_per_s = consumer_rate(lab.SOURCE_BROKER, topic, records)
        target_per_s = consumer_rate(lab.TARGET_BROKER, remote, records)
    finally:
        lab.delete_mirrored_topics(lab.SOURCE_BROKER, [topic], lab.TARGET_BROKER, [remote], "mm2-src-dst-source")
    plain_per_s = 2 * records / (records / source_per_s + records / target_per_s)
    return {"records": records, "caught_up_s": round(replication_s, 1), "verdict": report["verdict"],
            "elapsed_s": report["elapsed_s"], "records_per_s": round(validated_per_s, 1),
            "consumer_source_per_s": round(source_per_s, 1), "consumer_target_per_s": round(target_per_s, 1),
            "plain_pairs_per_s": round(plain_per_s / 2, 1), "ratio": round(validated_per_s / (plain_per_s / 2), 3)}


def main() -> None:
    figures = measure(int(os.environ.get("BENCH_RECORDS", "1000000")))
    for name, value in figures.items():
        print(f"{name:<24} {value}")


if __name__ == "__main__":
    main()
