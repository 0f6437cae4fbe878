"""The production shape: a three-node target cluster and three Connect workers (LAB_SHAPE=ha).

In file order: the shape itself; a broker setting rolled one broker at a time; chaos drills
while a producer writes (worker SIGKILLs, a target broker killed, the workers cut off the
source for 60 s) under at-least-once; the worker kills again on an exactly-once flow; last, the
rolling upgrade to the current Kafka release during replication. Each drill ends with the
PySpark validator: 0 missing records, duplicates reported. Figures go to build/ha-figures.jsonl.
"""

from __future__ import annotations

import subprocess
import time
from typing import Any, Callable

from tests.integration.ha import drill
from tests.integration.ha.drill import BROKER_SERVICE, RUN_ID, WORKER_SERVICE
from tests.integration import lab

RATE = 250  # records per second from the drills' producer: steady load the two cores sustain
SOURCE_FLOW = "src->dst"
EOS_ALIAS = "eos"


def since_epoch_starts(host: str, service: str, since: float) -> int:
    """How many times systemd started the service since `since` (journal lines)."""
    journal = drill.docker("exec", host, "journalctl", "-u", service, "--since", f"@{int(since)}", "--no-pager",
                           "-o", "cat")
    return sum(1 for line in journal.splitlines() if line.startswith("Started "))


def wait_fully_replicated(timeout: float = 300) -> None:
    """No under-replicated or unavailable partition on the target: the next drill starts whole."""
    def healthy() -> bool:
        output = lab.kafka_run(lab.TARGET_BROKER, lab.TOPIC_COMMAND, "--bootstrap-server",
                               lab.bootstrap(lab.TARGET_BROKER), "--describe", "--under-replicated-partitions",
                               "--unavailable-partitions")
        return output.strip() == ""
    lab.wait_until(healthy, timeout, "every target partition fully replicated", interval=3)


def chaos_drill(halab: drill.HaLab, name: str, flow: str, topic: str, seconds: int,
                steps: list[tuple[float, Callable[[], None]]]) -> tuple[drill.Verdict, dict[str, Any]]:
    """Producer for `seconds`, each step at its offset, the remote topic's progress sampled
    throughout; then the validator over the drill's topic."""
    source_alias = flow.split("->", 1)[0]
    producer = drill.start_producer(topic, RATE * seconds, RATE)
    started = time.time()
    with drill.ProgressWatch(f"{source_alias}.{topic}") as progress:
        drill.during(seconds, *steps)
        drill.wait_producer(producer)
        final = lab.end_offsets(lab.SOURCE_BROKER, topic)
        lab.wait_until(lambda: progress.samples and all(
            progress.samples[-1][1].get(partition, 0) >= goal for partition, goal in final.items()),
            600, f"{source_alias}.{topic} to catch up", interval=2)
    verdict = drill.validate(halab, flow, topic)
    figures = {"produced": sum(final.values()), "missing": verdict.totals["missing"],
               "duplicates": verdict.totals["duplicate"], "duplicates_by_partition": verdict.duplicate_partitions,
               "longest_stall_seconds": progress.longest_stall(final), "verdict": verdict.verdict,
               "seconds": round(time.time() - started, 1)}
    drill.record_figures(name, **figures)
    return verdict, figures


def assert_nothing_lost(verdict: drill.Verdict, figures: dict[str, Any]) -> None:
    assert verdict.totals["source_records"] == figures["produced"], (verdict.totals, figures)
    assert verdict.totals["missing"] == 0, (verdict.totals, verdict.run.output[-3000:])
    assert verdict.totals["content_mismatch"] == 0 and verdict.totals["unexpected"] == 0, verdict.totals


def assert_duplicates_within_budget(verdict: drill.Verdict) -> None:
    """At-least-once: duplicates are reported, per partition and where, and within the budget they
    are a warning, not a FAIL."""
    assert verdict.verdict == "PASS", verdict.run.output[-3000:]
    assert verdict.duplicate_severity == ("warning" if verdict.totals["duplicate"] else "none"), \
        (verdict.duplicate_severity, verdict.totals)
    assert sum(verdict.duplicate_partitions.values()) == verdict.totals["duplicate"], verdict.duplicate_partitions


# ---- the shape ----------------------------------------------------------------------------------

def test_the_target_keeps_three_replicas_two_in_sync_and_three_workers_share_the_tasks(
        halab: drill.HaLab) -> None:
    described = lab.kafka_run(lab.TARGET_BROKER, lab.TOPIC_COMMAND, "--bootstrap-server",
                              lab.bootstrap(lab.TARGET_BROKER), "--describe", "--topic",
                              "connect-mm2-lab-.*|mm2-offset-syncs\\.src\\.internal|src\\.checkpoints\\.internal|"
                              "src\\.heartbeats")
    factors = {line.split("\t")[0].split(": ", 1)[1]: line.split("ReplicationFactor: ", 1)[1].split("\t")[0]
               for line in described.splitlines() if line.startswith("Topic:") and "ReplicationFactor" in line}
    assert set(factors) >= {"connect-mm2-lab-configs", "connect-mm2-lab-offsets", "connect-mm2-lab-status",
                            "mm2-offset-syncs.src.internal", "src.checkpoints.internal", "src.heartbeats"}, factors
    assert set(factors.values()) == {"3"}, factors
    for node, broker in enumerate(lab.TARGET_BROKERS, start=1):
        settings = lab.kafka_run(broker, lab.CONFIG_COMMAND, "--bootstrap-server", lab.bootstrap(broker),
                                 "--describe", "--entity-type", "brokers", "--entity-name", str(node), "--all")
        assert "min.insync.replicas=2 " in settings and "default.replication.factor=3 " in settings, broker

    tasks_by_worker = lab.wait_until(_running_tasks_by_worker, 180, "every connector and task RUNNING")
    assert len(tasks_by_worker) >= 2, f"the flow's tasks sit on one worker only: {tasks_by_worker}"


def _running_tasks_by_worker() -> dict[str, int]:
    by_worker: dict[str, int] = {}
    for name in lab.connector_names():
        status = lab.connector_status(name) or {}
        # The checkpoint connector has no task until a group is there to checkpoint.
        tasks = status.get("tasks", [])
        if status.get("connector", {}).get("state") != "RUNNING" or any(task["state"] != "RUNNING" for task in tasks):
            return {}
        for task in tasks:
            by_worker[task["worker_id"]] = by_worker.get(task["worker_id"], 0) + 1
    return by_worker


# ---- a setting rolled through the brokers ---------------------------------------------------------

def test_a_broker_setting_restarts_the_target_one_broker_at_a_time(halab: drill.HaLab) -> None:
    since = time.time() - 1
    # One setting, for the target's brokers only: the source broker has nothing to change.
    halab.extra["kafka_broker_properties"] = (
        "{{ {'log.cleaner.backoff.ms': 15001} if inventory_hostname in groups['target_kafka'] else {} }}")
    with drill.BrokerWatch(lab.TARGET_BROKERS) as watch:
        run = halab.playbook("playbooks/kafka.yml")
        elapsed = round(time.time() - since, 1)
    assert run.returncode == 0, run.output[-5000:]
    recap = run.recap()
    starts = {broker: since_epoch_starts(broker, BROKER_SERVICE, since) for broker in lab.LAB_BROKERS}
    drill.record_figures("broker-setting-rolled", seconds=elapsed, fewest_brokers_up=watch.fewest_up,
                         samples=len(watch.samples), starts=starts,
                         changed={host: counters["changed"] for host, counters in recap.items()})
    assert recap[lab.SOURCE_BROKER]["changed"] == 0, recap
    assert all(recap[broker]["changed"] > 0 for broker in lab.TARGET_BROKERS), recap
    assert starts == {lab.SOURCE_BROKER: 0, **{broker: 1 for broker in lab.TARGET_BROKERS}}, starts
    # Sampled about every second from a worker: a broker was seen down (so the watch saw the
    # restarts), never two at once.
    assert watch.fewest_up == 2, f"fewest target brokers up: {watch.fewest_up} over {len(watch.samples)} samples"
    rerun = halab.playbook("playbooks/kafka.yml")
    assert rerun.returncode == 0 and rerun.changed() == 0, rerun.recap()


# ---- chaos under at-least-once ------------------------------------------------------------------------

def test_two_workers_killed_one_after_the_other_lose_nothing(halab: drill.HaLab) -> None:
    first, second = lab.CONNECT_WORKERS[0], lab.CONNECT_WORKERS[1]
    verdict, figures = chaos_drill(halab, "worker-sigkill", SOURCE_FLOW, f"foo.ha-kill-{RUN_ID}", 60, [
        (15, lambda: drill.kill_service(first, WORKER_SERVICE)),
        (35, lambda: drill.kill_service(second, WORKER_SERVICE))])
    assert_nothing_lost(verdict, figures)
    assert_duplicates_within_budget(verdict)
    for worker in (first, second):
        drill.wait_service_active(worker, WORKER_SERVICE)


def test_a_target_broker_killed_and_restarted_loses_nothing(halab: drill.HaLab) -> None:
    victim = lab.TARGET_BROKERS[1]
    verdict, figures = chaos_drill(halab, "target-broker-killed", SOURCE_FLOW, f"foo.ha-broker-{RUN_ID}", 60, [
        (15, lambda: drill.docker("kill", victim)),
        (40, lambda: drill.docker("start", victim))])
    assert_nothing_lost(verdict, figures)
    assert_duplicates_within_budget(verdict)
    wait_fully_replicated()


def test_workers_cut_off_the_source_for_a_minute_resume_by_themselves(halab: drill.HaLab) -> None:
    def cut() -> None:
        for worker in lab.CONNECT_WORKERS:
            drill.docker("network", "disconnect", drill.SOURCE_NETWORK, worker)

    def heal() -> None:
        for worker in lab.CONNECT_WORKERS:
            drill.docker("network", "connect", drill.SOURCE_NETWORK, worker)
    try:
        verdict, figures = chaos_drill(halab, "source-partition-60s", SOURCE_FLOW, f"foo.ha-partition-{RUN_ID}", 90,
                                       [(10, cut), (70, heal)])
    finally:
        for worker in lab.CONNECT_WORKERS:  # a failed step must not leave the lab cut off
            subprocess.run(["docker", "network", "connect", drill.SOURCE_NETWORK, worker], capture_output=True,
                           check=False)
    assert_nothing_lost(verdict, figures)
    assert_duplicates_within_budget(verdict)


# ---- exactly-once ----------------------------------------------------------------------------------

def test_an_exactly_once_flow_survives_worker_kills_without_a_duplicate(halab: drill.HaLab) -> None:
    # KIP-618 on a live Connect cluster: the workers run "preparing" (the lab's setting); the
    # second step rolls every worker to "enabled", one at a time.
    started = time.time()
    halab.extra["connect_worker_exactly_once_source_support"] = "enabled"
    rolled = halab.playbook("playbooks/connect.yml")
    assert rolled.returncode == 0, rolled.output[-5000:]
    enabling_seconds = round(time.time() - started, 1)
    inventory = lab.inventory_vars()
    halab.extra["mm2_clusters"] = dict(inventory["mm2_clusters"], **{EOS_ALIAS: inventory["mm2_clusters"]["src"]})
    halab.extra["mm2_flows"] = inventory["mm2_flows"] + [
        {"source": EOS_ALIAS, "target": "dst", "topics": [r"bar\..*"], "exactly_once": True}]
    deployed = halab.playbook("playbooks/mirrormaker.yml")
    assert deployed.returncode == 0, deployed.output[-5000:]
    first, third = lab.CONNECT_WORKERS[0], lab.CONNECT_WORKERS[2]
    verdict, figures = chaos_drill(halab, "worker-sigkill-exactly-once", f"{EOS_ALIAS}->dst",
                                   f"bar.ha-eos-{RUN_ID}", 60, [
                                       (15, lambda: drill.kill_service(first, WORKER_SERVICE)),
                                       (35, lambda: drill.kill_service(third, WORKER_SERVICE))])
    drill.record_figures("exactly-once-enabled-on-live-workers", seconds=enabling_seconds)
    assert_nothing_lost(verdict, figures)
    assert verdict.totals["duplicate"] == 0, verdict.totals
    assert verdict.verdict == "PASS", verdict.run.output[-3000:]
    for worker in (first, third):
        drill.wait_service_active(worker, WORKER_SERVICE)


# ---- the rolling upgrade --------------------------------------------------------------------------

def test_a_rolling_upgrade_during_replication_loses_nothing_and_keeps_the_old_release(
        halab: drill.HaLab) -> None:
    previous_dir = f"/opt/kafka/kafka_2.13-{drill.PREVIOUS_VERSION}"
    current_dir = f"/opt/kafka/kafka_2.13-{drill.CURRENT_VERSION}"
    hosts = (*lab.LAB_BROKERS, *lab.CONNECT_WORKERS)
    assert {drill.read_link(host, "/opt/kafka/current") for host in hosts} == {previous_dir}
    topic = f"foo.ha-upgrade-{RUN_ID}"
    producer = drill.start_producer(topic, RATE * 240, RATE)
    started = time.time()
    halab.extra["kafka_install_version"] = drill.CURRENT_VERSION
    with drill.BrokerWatch(lab.TARGET_BROKERS) as watch:
        run = halab.playbook("site.yml", None, "--skip-tags", "validate")
    upgrade_seconds = round(time.time() - started, 1)
    assert run.returncode == 0, run.output[-6000:]
    starts = {host: since_epoch_starts(host, BROKER_SERVICE if host in lab.LAB_BROKERS else WORKER_SERVICE,
                                       started - 1) for host in hosts}
    drill.wait_producer(producer)
    produced = drill.offsets_total(lab.SOURCE_BROKER, topic)
    verdict = drill.validate(halab, SOURCE_FLOW, topic)
    drill.record_figures("rolling-upgrade", from_version=drill.PREVIOUS_VERSION, to_version=drill.CURRENT_VERSION,
                         upgrade_seconds=upgrade_seconds, fewest_brokers_up=watch.fewest_up, starts=starts,
                         produced=produced, missing=verdict.totals["missing"], duplicates=verdict.totals["duplicate"],
                         verdict=verdict.verdict)
    assert {drill.read_link(host, "/opt/kafka/current") for host in hosts} == {current_dir}
    # The previous release stays for a rollback (set kafka_install_version back).
    assert all(drill.path_exists(host, previous_dir) for host in hosts)
    assert all(count == 1 for count in starts.values()), starts
    assert watch.fewest_up == 2, f"fewest target brokers up: {watch.fewest_up}"
    assert_nothing_lost(verdict, {"produced": produced})
    assert_duplicates_within_budget(verdict)
