"""The validation job on a Spark standalone cluster (`make spark-cluster`, role spark_standalone):
the master on task-1-1 and a worker on each task node, closed by a shared secret; the job is
submitted to it (inventories/lab-options/spark_submit.yml) and validates replicated records.

The cluster's services are stopped at the end: they hold memory the other tests need."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.integration import ansible_run, lab

MASTER = lab.CONNECT_WORKERS[0]
SUBMIT_OPTIONS = "@inventories/lab-options/spark_submit.yml"
VENV = "/opt/kafka-dr/replication-check/venv"
RECORDS = 3000


def master_status() -> dict[str, Any]:
    fetch = f"import urllib.request; print(urllib.request.urlopen('http://{MASTER}:8080/json/').read().decode())"
    page = subprocess.run(["docker", "exec", MASTER, "python3", "-c", fetch],
                          capture_output=True, text=True, timeout=60, check=True).stdout
    return json.loads(page)


@pytest.fixture(scope="module")
def spark_cluster(lab_brokers: tuple[str, str]) -> Iterator[dict[str, Any]]:
    first = ansible_run.playbook("playbooks/spark.yml", timeout=900)
    try:
        assert first.returncode == 0, first.output[-4000:]
        yield {"first_run": first.output}
    finally:
        lab.stop_spark_cluster()


def recap_changes(output: str) -> dict[str, int]:
    recap = output[output.rindex("PLAY RECAP"):]
    return {line.split()[0]: int(line.split("changed=")[1].split()[0]) for line in recap.splitlines() if "changed=" in line}


def test_the_cluster_runs_a_worker_on_each_task_node_and_reruns_unchanged(spark_cluster: dict[str, Any]) -> None:
    status = master_status()
    assert status["status"] == "ALIVE"
    alive_hosts = {worker["host"] for worker in status["workers"] if worker["state"] == "ALIVE"}
    assert alive_hosts == set(lab.CONNECT_WORKERS), status
    rerun = ansible_run.playbook("playbooks/spark.yml")
    assert rerun.returncode == 0, rerun.output[-3000:]
    assert set(recap_changes(rerun.output).values()) == {0}, rerun.output[-2000:]


def test_a_job_without_the_cluster_secret_is_refused(spark_cluster: dict[str, Any]) -> None:
    """spark-submit with another secret (spark-submit's own settings, not the cluster's): the
    master refuses the driver's SASL handshake and does not let the application in. The driver
    would retry for a minute before it gives up; it is stopped once the refusal is logged."""
    probe = "/var/tmp/spark-auth-probe.py"
    subprocess.run(["docker", "exec", "-i", MASTER, "sh", "-c", f"cat > {probe}"], check=True, text=True,
                   input="from pyspark.sql import SparkSession\nprint(SparkSession.builder.getOrCreate().range(5).count())\n")
    driver = subprocess.Popen(
        ["docker", "exec", "-e", f"PYSPARK_PYTHON={VENV}/bin/python", MASTER, "timeout", "150",
         f"{VENV}/bin/spark-submit", "--master", f"spark://{MASTER}:7077",
         "--conf", "spark.executor.memory=512m", "--conf", "spark.cores.max=1",
         "--conf", "spark.authenticate=true", "--conf", "spark.authenticate.secret=not-the-cluster-secret", probe],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output: list[str] = []
    try:
        assert driver.stdout is not None
        for line in driver.stdout:
            output.append(line)
            if "SaslException" in line:
                break
    finally:
        subprocess.run(["docker", "exec", MASTER, "pkill", "-f", probe], check=False, capture_output=True)
        driver.wait(timeout=60)
    text = "".join(output)
    assert "SaslException" in text, text[-3000:]
    assert "\n5\n" not in f"\n{text}", text[-3000:]
    status = master_status()
    admitted = [app for app in status.get("completedapps", []) + status.get("activeapps", [])
                if app.get("name") == "spark-auth-probe.py"]
    assert admitted == [], admitted


def test_the_validation_job_runs_on_the_cluster_and_passes(spark_cluster: dict[str, Any], tmp_path: Path) -> None:
    topic = f"foo.sparkcluster.{int(time.time())}"
    lab.create_topic(lab.SOURCE_BROKER, topic, 3)
    try:
        lab.produce(lab.SOURCE_BROKER, topic, [
            lab.Record(partition=-1, key=f"k{index}", value=f"v{index}", headers=(("n", str(index)),))
            for index in range(RECORDS)
        ])
        apps_before = {app["id"] for app in master_status().get("completedapps", [])}
        run = ansible_run.playbook("playbooks/validate.yml", "-e", SUBMIT_OPTIONS, "-e", json.dumps({
            "replication_check_topics": [topic], "replication_check_topics_regex": "",
            "replication_check_groups": [], "replication_check_reports_dir": str(tmp_path)}))
        assert run.returncode == 0, run.output[-4000:]
        report = json.loads((tmp_path / f"{MASTER}-replication-report.json").read_text())
        assert report["verdict"] == "PASS"
        assert report["records_validated"] == RECORDS
        # The job ran on the cluster: a new application completed there, with executors on the workers.
        new_apps = [app for app in master_status().get("completedapps", []) if app["id"] not in apps_before]
        assert len(new_apps) == 1, new_apps
        assert new_apps[0]["state"] == "FINISHED", new_apps
    finally:
        lab.delete_mirrored_topics(lab.SOURCE_BROKER, [topic], lab.TARGET_BROKER, [f"src.{topic}"],
                                   "mm2-src-dst-source")
