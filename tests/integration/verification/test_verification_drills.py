"""Continuous verification drills on the default lab (`make integration-verification`,
docs/validator.md "Continuous verification"): role replication_check runs the validator's
increments on a timer for the drills' topics of the lab's flow, its exporter is scraped by the
lab's Prometheus, and each drill runs under a paced producer while the increments go on:

- a Connect worker SIGKILLed: 0 missing, its replays counted as duplicates (warnings);
- the verification job itself SIGKILLed and restarted in the middle of an increment: every
  source record judged exactly once, the counts equal to the batch validator's over the topic;
- the target's broker restarted: 0 missing, verification resumes;
- the target tampered with (records deleted before an increment judged them, foreign records
  added): the findings are exactly those, with their offsets, and the alert fires.

Each drill has a topic of its own (the pacer's records repeat across runs of one topic). Figures in
build/verification-figures.jsonl. Afterwards the drills' units, state and scrape job are removed.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from typing import Any, Callable, Iterator, Optional

import pytest

from tests.integration import continuous as continuous_units
from tests.integration import deleted_records, figures, lab
from tests.integration import test_monitoring as monitoring
from tests.integration.ha import drill

RUN_ID = f"{int(time.time()) % 10**8:08d}"
FLOW = "src->dst"
# The flow's own name (role replication_check's default): status.yml shows its verification.
VERIFY_FLOW = "src-dst"
UNIT = continuous_units.unit(VERIFY_FLOW)
NODE = lab.CONNECT_WORKERS[0]
STATE_DIR = continuous_units.STATE_DIR
SOURCE_CONNECTOR = "mm2-src-dst-source"
WORKER_SERVICE = "kafka-connect"
BROKER_SERVICE = "kafka-broker"
FIGURES = lab.REPO_ROOT / "build" / "verification-figures.jsonl"
REPORTS = lab.REPO_ROOT / "build" / f"verification-{RUN_ID}"
KILLED, RESTARTED, BROKER, TAMPERED, BESIDE, BURST = (
    f"foo.vd-{name}-{RUN_ID}" for name in ("killed", "restarted", "broker", "tampered", "beside", "burst"))
# BESIDE carries the load while the tamper drill holds the timer.
LOAD_TOPICS = (KILLED, RESTARTED, BROKER, BESIDE, BURST)
TOPICS = (*LOAD_TOPICS, TAMPERED)
SEEDED = 30
# Increments start this many seconds after the previous one ended (the drills' own; default 60).
INTERVAL = 10
# Offered load of each drill: records per second over three partitions, and for how long.
RATE = 100
SECONDS = 75
CONTINUOUS = {"replication_check_flow": FLOW, "replication_check_continuous": True,
              "replication_check_continuous_interval": INTERVAL,
              "replication_check_topics": list(TOPICS), "replication_check_groups": [],
              "replication_check_max_duplicate_ratio": drill.DUPLICATE_BUDGET_RATIO}
# The tamper drill: records copied and proven first, then (the timer held) more records copied, the
# first of them deleted on the target before any increment judged them, foreign records appended.
TAMPER_PROVEN, TAMPER_COPIED, TAMPER_DELETED, TAMPER_FOREIGN, TAMPER_AFTER = 100, 50, 20, 7, 10
FINDING_KINDS = ("missing", "unexpected", "content_mismatch", "order_violation", "timestamp_type_change", "truncated")


def record_figures(name: str, **values: Any) -> None:
    figures.record(FIGURES, "VERIFICATION DRILL", RUN_ID, name, **values)


def node(*command: str, timeout: int = 120) -> str:
    return drill.docker("exec", NODE, *command, timeout=timeout)


# ---- what the exporter says -----------------------------------------------------------------------

Sample = continuous_units.Sample


def metrics() -> list[Sample]:
    return continuous_units.metrics(NODE)


def per_partition(samples: list[Sample], name: str, topic: str) -> dict[int, float]:
    return continuous_units.per_partition(samples, name, VERIFY_FLOW, topic)


def findings(samples: list[Sample], topic: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for metric, labels, value in samples:
        if metric == "kafka_dr_verification_findings_total" and labels.get("flow") == VERIFY_FLOW and labels.get("topic") == topic:
            counts[labels["kind"]] = counts.get(labels["kind"], 0) + int(value)
    return counts


def flow_figure(samples: list[Sample], name: str) -> float:
    value = continuous_units.flow_figure(samples, name, VERIFY_FLOW)
    assert value is not None, f"no kafka_dr_verification_{name} for flow {VERIFY_FLOW}"
    return value


def wait_proven(topic: str, timeout: float = 600) -> list[Sample]:
    """Until every source record of the topic is proven (the proven offsets reach the source's
    ends); the exporter's samples then."""
    ends = lab.end_offsets(lab.SOURCE_BROKER, topic)

    def proven() -> Optional[list[Sample]]:
        samples = metrics()
        offsets = per_partition(samples, "proven_offset", topic)
        return samples if all(offsets.get(partition, -1) >= end for partition, end in ends.items()) else None
    return lab.wait_until(proven, timeout, f"continuous verification of {topic} up to {ends}", interval=3)


def service_state() -> str:
    return continuous_units.service_state(NODE, VERIFY_FLOW)


def wait_increment_running(seconds_in: float, timeout: float = 180) -> None:
    """Until an increment has run for `seconds_in` seconds (Spark started, its snapshot taken)."""
    lab.wait_until(lambda: service_state() == "activating" or None, timeout, f"an increment of {UNIT} running", interval=0.5)
    time.sleep(seconds_in)
    assert service_state() == "activating", f"the increment of {UNIT} ended within {seconds_in} s"


# ---- the load -----------------------------------------------------------------------------------------

def remote(topic: str) -> str:
    return f"src.{topic}"


def under_load(topic: str, step: Callable[[], None]) -> dict[str, Any]:
    """A paced producer on the drill's topic; `step` once its first records are on the target; then
    until the producer ended, the target holds every record and the verification proved them all."""
    producer = drill.start_producer(topic, RATE * SECONDS, RATE)
    lab.wait_until(lambda: sum(lab.end_offsets(lab.TARGET_BROKER, remote(topic)).values()) > SEEDED or None, 120,
                   f"the first records of {topic} on the target")
    time.sleep(10)
    step()
    drill.wait_producer(producer, timeout=SECONDS + 600)
    ends = lab.end_offsets(lab.SOURCE_BROKER, topic)
    produced_at = time.time()
    lab.wait_until(lambda: all(offset >= ends[partition] for partition, offset
                               in lab.end_offsets(lab.TARGET_BROKER, remote(topic)).items()) or None,
                   600, f"every record of {topic} on the target")
    copied_at = time.time()
    samples = wait_proven(topic)
    return {"samples": samples, "source_records": sum(ends.values()), "copied_s": round(copied_at - produced_at, 1),
            "proven_after_copied_s": round(time.time() - copied_at, 1)}


def assert_lossless(topic: str, load: dict[str, Any]) -> dict[str, int]:
    """0 missing, unexpected, changed or truncated; every source record judged exactly once."""
    samples = load["samples"]
    found = findings(samples, topic)
    wrong = {kind: found.get(kind, 0) for kind in ("missing", "unexpected", "content_mismatch", "truncated") if found.get(kind, 0)}
    assert wrong == {}, f"{topic}: {found}"
    verified = int(sum(per_partition(samples, "records_verified_total", topic).values()))
    assert verified == load["source_records"], f"{topic}: {verified} records judged, the source holds {load['source_records']}"
    return found


# ---- the drills' lab ----------------------------------------------------------------------------------

def remove_drill_units() -> None:
    continuous_units.remove(NODE, VERIFY_FLOW)


def seed(topic: str, count: int, partitions: int) -> None:
    lab.create_topic(lab.SOURCE_BROKER, topic, partitions)
    lab.produce(lab.SOURCE_BROKER, topic, [lab.Record(partition=0, key=f"seed{index}", value=f"{topic}-seed-{index}",
                                                      headers=(("n", str(index)),)) for index in range(count)])


@pytest.fixture(scope="module")
def continuous() -> Iterator[lab.PlaybookRun]:
    """The drills' topics seeded and copied; continuous verification of them deployed and scraped."""
    REPORTS.mkdir(parents=True, exist_ok=True)
    remove_drill_units()  # a state of other topics from an earlier deployment
    try:
        for topic in LOAD_TOPICS:
            seed(topic, SEEDED, 3)
        seed(TAMPERED, TAMPER_PROVEN, 1)
        for topic in TOPICS:
            expected = TAMPER_PROVEN if topic == TAMPERED else SEEDED
            lab.wait_until(lambda topic=topic, expected=expected: drill.offsets_total(lab.TARGET_BROKER, remote(topic)) >= expected
                           or None, 180, f"{topic} on the target")
        started = time.monotonic()
        run = lab.run_playbook("playbooks/validate.yml", CONTINUOUS)
        assert run.returncode == 0, run.output[-6000:]
        record_figures("deploy", seconds=round(time.monotonic() - started, 1), changed=run.changed())
        monitoring_run = lab.run_playbook("playbooks/monitoring.yml", {"replication_check_continuous": True})
        assert monitoring_run.returncode == 0, monitoring_run.output[-5000:]
        yield run
    finally:
        remove_drill_units()
        restored = lab.run_playbook("playbooks/monitoring.yml")
        assert restored.returncode == 0, restored.output[-5000:]
        lab.delete_mirrored_topics(lab.SOURCE_BROKER, list(TOPICS), lab.TARGET_BROKER, [remote(topic) for topic in TOPICS],
                                   SOURCE_CONNECTOR)


def test_deployed_as_services_and_a_rerun_changes_nothing(continuous: lab.PlaybookRun) -> None:
    rerun = lab.run_playbook("playbooks/validate.yml", CONTINUOUS)
    assert rerun.returncode == 0, rerun.output[-5000:]
    assert rerun.changed() == 0, rerun.output[-5000:]
    timers = node("systemctl", "list-timers", f"{UNIT}.timer", "--no-pager")
    assert f"{UNIT}.timer" in timers, timers
    # Each as its own account (docs/security.md, "Services on the hosts"); ps shortens longer names without a width.
    owner = node("ps", "-o", "user:32=", "-C", "python", "-C", "python3", "-o", "args=")
    assert any(line.split()[0] == "kafka-dr-verification" and "mm2_validator.continuous serve" in line
               for line in owner.splitlines()), owner
    account = node("systemctl", "show", "-p", "User", "-p", "Group", f"{UNIT}.service")
    assert sorted(account.split()) == ["Group=kafka-dr-verify", "User=kafka-dr-verify"], account
    samples = wait_proven(TAMPERED)
    assert per_partition(samples, "proven_offset", TAMPERED) == {0: TAMPER_PROVEN}
    assert flow_figure(samples, "interval_seconds") == INTERVAL
    record_figures("rerun", changed=rerun.changed(), first_increment_records=flow_figure(samples, "last_records_verified"))


def test_a_port_held_by_another_program_is_refused_before_any_change(continuous: lab.PlaybookRun) -> None:
    port = 9417
    holder = subprocess.Popen(["docker", "exec", NODE, "python3", "-m", "http.server", str(port), "--bind", "127.0.0.1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        lab.wait_until(lambda: str(port) in node("ss", "-ltn") or None, 30, f"a program on port {port}")
        run = lab.run_playbook("playbooks/validate.yml", dict(CONTINUOUS, replication_check_exporter_port=port))
        assert run.returncode != 0, run.output[-3000:]
        assert f"port {port} (replication_check_exporter_port)" in run.output and "Nothing was changed" in run.output, run.output[-3000:]
        assert run.changed() == 0, run.output[-3000:]
    finally:
        subprocess.run(["docker", "exec", NODE, "pkill", "-f", f"http.server {port}"], check=False, capture_output=True)
        holder.wait(timeout=30)


def test_a_worker_killed_replays_as_duplicates_and_loses_nothing(continuous: lab.PlaybookRun) -> None:
    load = under_load(KILLED, lambda: drill.kill_service(lab.CONNECT_WORKERS[-1], WORKER_SERVICE))
    found = assert_lossless(KILLED, load)
    drill.wait_service_active(lab.CONNECT_WORKERS[-1], WORKER_SERVICE)
    record_figures("worker_sigkill", records=load["source_records"], duplicates=found.get("duplicate", 0),
                   copied_s=load["copied_s"], proven_after_copied_s=load["proven_after_copied_s"], findings=found)


def test_a_burst_of_worker_crashes_within_a_minute_passes_the_default_budget(continuous: lab.PlaybookRun) -> None:
    """Three SIGKILLs within a minute, the first worker twice: each replays what its tasks copied
    since their last offset commit. The batch validator, with the role's default duplicate budget,
    gives PASS with 0 missing: the budget holds per replay the data shows."""
    first, second = lab.CONNECT_WORKERS[-1], lab.CONNECT_WORKERS[0]
    kills: list[float] = []

    def burst() -> None:
        started = time.monotonic()
        drill.kill_service(first, WORKER_SERVICE)
        kills.append(0.0)
        time.sleep(15)
        drill.kill_service(second, WORKER_SERVICE)
        kills.append(round(time.monotonic() - started, 1))
        drill.wait_service_active(first, WORKER_SERVICE)
        # Time for the restarted worker to take its tasks back, so the third kill ends running tasks.
        time.sleep(max(0.0, 40 - (time.monotonic() - started)))
        drill.kill_service(first, WORKER_SERVICE)
        kills.append(round(time.monotonic() - started, 1))

    load = under_load(BURST, burst)
    found = assert_lossless(BURST, load)
    for host in (first, second):
        drill.wait_service_active(host, WORKER_SERVICE)
    assert kills[-1] <= 60, f"the kills spread over more than a minute: {kills}"
    reports = REPORTS / BURST
    batch = lab.run_playbook("playbooks/validate.yml", {
        "replication_check_flow": FLOW, "replication_check_topics": [BURST], "replication_check_groups": [],
        "replication_check_reports_dir": str(reports)})
    report = json.loads(next(reports.glob("*-replication-report.json")).read_text())
    budget = report["duplicate_budget"]
    assert batch.returncode == 0 and report["verdict"] == "PASS", (report["totals"], budget, batch.output[-3000:])
    assert report["totals"]["missing"] == 0, report["totals"]
    assert report["totals"]["source_records"] == load["source_records"], report["totals"]
    assert report["totals"]["duplicate"] == found.get("duplicate", 0), (report["totals"], found)
    assert budget["delivery"] == "at-least-once" and budget["max_duplicate_ratio"] == 0.1, budget
    record_figures("worker_burst", records=load["source_records"], kills_at_s=kills, duplicates=report["totals"]["duplicate"],
                   replays=budget.get("replays"), allowed=budget["allowed_duplicates"], verdict=report["verdict"])


def test_the_verification_job_killed_or_restarted_mid_run_judges_every_record_once(continuous: lab.PlaybookRun) -> None:
    before = metrics()
    failures_before = flow_figure(before, "failures_total")
    runs_before = flow_figure(before, "runs_total")

    def interrupt() -> None:
        wait_increment_running(6)
        node("systemctl", "kill", "--signal=KILL", f"{UNIT}.service")
        wait_increment_running(6)
        node("systemctl", "restart", "--no-block", f"{UNIT}.service")

    # A worker SIGKILLed too, so the boundary between increments carries replays to judge.
    def kill_all() -> None:
        drill.kill_service(lab.CONNECT_WORKERS[-1], WORKER_SERVICE)
        interrupt()

    load = under_load(RESTARTED, kill_all)
    found = assert_lossless(RESTARTED, load)
    after = load["samples"]
    failures = flow_figure(after, "failures_total") - failures_before
    assert failures >= 1, f"the SIGKILLed increment was not counted as failed: {failures}"
    # The batch validator over the whole topic: the same duplicates, the same verdict on the rest.
    reports = REPORTS / RESTARTED
    batch = lab.run_playbook("playbooks/validate.yml", {
        "replication_check_flow": FLOW, "replication_check_topics": [RESTARTED], "replication_check_groups": [],
        "replication_check_max_duplicate_ratio": drill.DUPLICATE_BUDGET_RATIO, "replication_check_reports_dir": str(reports)})
    report = json.loads(next(reports.glob("*-replication-report.json")).read_text())
    assert report["totals"]["missing"] == 0, batch.output[-3000:]
    assert report["totals"]["duplicate"] == found.get("duplicate", 0), (report["totals"], found)
    assert report["totals"]["source_records"] == load["source_records"], report["totals"]
    record_figures("verification_restart", records=load["source_records"], duplicates=found.get("duplicate", 0),
                   batch_duplicates=report["totals"]["duplicate"], failed_increments=failures,
                   increments=flow_figure(after, "runs_total") - runs_before, findings=found)


def test_a_target_broker_restart_loses_nothing_and_verification_resumes(continuous: lab.PlaybookRun) -> None:
    def restart_broker() -> None:
        drill.docker("exec", lab.TARGET_BROKER, "systemctl", "restart", BROKER_SERVICE, timeout=300)
    load = under_load(BROKER, restart_broker)
    found = assert_lossless(BROKER, load)
    record_figures("target_broker_restart", records=load["source_records"], duplicates=found.get("duplicate", 0),
                   copied_s=load["copied_s"], proven_after_copied_s=load["proven_after_copied_s"], findings=found,
                   failures_total=flow_figure(load["samples"], "failures_total"))


def produce_tamper_records(topic: str, start: int, count: int) -> None:
    lab.produce(lab.SOURCE_BROKER, topic, [lab.Record(partition=0, key=f"t{index}", value=f"{topic}-{index}",
                                                      headers=(("n", str(index)),)) for index in range(start, start + count)])


def delete_target_records(topic: str, before: int) -> None:
    deleted_records.delete_before(lab.TARGET_BROKER, topic, before)


def kept_reports() -> list[dict[str, Any]]:
    """The increments' JSON reports on the node, one per increment: the kept increment-<run>.json
    files and latest.json, which the unit's ExecStopPost hook archives a moment after the metrics
    show the increment's positions."""
    listing = node("python3", "-c", "import glob, json, sys; json.dump([json.load(open(name)) for name in "
                   f"sorted(glob.glob('{STATE_DIR}/reports/{VERIFY_FLOW}/*.json'))], sys.stdout)")
    by_run = {document["incremental"]["run"]: document for document in json.loads(listing)}
    return [by_run[run] for run in sorted(by_run)]


def test_records_deleted_and_added_on_the_target_are_found_exactly(continuous: lab.PlaybookRun) -> None:
    """Under load (a paced producer on another drill topic), the increments held for the tamper only:
    copies an increment already proved are not read again, so the deletion must reach records no
    increment has judged yet."""
    target = remote(TAMPERED)
    load = drill.start_producer(BESIDE, RATE * 60, RATE)
    try:
        found, evidence, figures_of_tamper = tamper(target)
        drill.wait_producer(load, timeout=700)
    finally:
        if load.poll() is None:  # the drill failed: its producer must not re-create the topic after the teardown
            subprocess.run(["docker", "exec", lab.SOURCE_BROKER, "pkill", "-f", BESIDE], capture_output=True, check=False)
            load.kill()
    # The load beside it: copied and proven like the other drills' topics.
    assert_lossless(BESIDE, dict(samples=wait_proven(BESIDE), source_records=drill.offsets_total(lab.SOURCE_BROKER, BESIDE)))
    record_figures("tamper", deleted=TAMPER_DELETED, foreign=TAMPER_FOREIGN, findings=found, evidence=len(evidence), **figures_of_tamper)


def tamper(target: str) -> tuple[dict[str, int], list[dict[str, Any]], dict[str, Any]]:
    """The timer held, the tamper, the timer again: the findings, their evidence and the drill's times."""
    node("systemctl", "stop", f"{UNIT}.timer")
    lab.wait_until(lambda: service_state() in ("inactive", "failed") or None, 600, f"{UNIT}.service idle")
    tamper_start = time.time()
    produce_tamper_records(TAMPERED, TAMPER_PROVEN, TAMPER_COPIED)
    copied = TAMPER_PROVEN + TAMPER_COPIED
    lab.wait_until(lambda: lab.end_offsets(lab.TARGET_BROKER, target).get(0, 0) >= copied or None, 120, f"{target} at {copied}")
    assert lab.end_offsets(lab.TARGET_BROKER, target)[0] == copied, "the flow replayed records of the tamper topic"
    deleted_before = TAMPER_PROVEN + TAMPER_DELETED
    delete_target_records(target, deleted_before)
    lab.produce(lab.TARGET_BROKER, target, [lab.Record(partition=0, key=f"foreign{index}", value=f"not-from-the-source-{index}",
                                                       headers=(("origin", "drill"),)) for index in range(TAMPER_FOREIGN)])
    produce_tamper_records(TAMPERED, copied, TAMPER_AFTER)
    final_target = copied + TAMPER_FOREIGN + TAMPER_AFTER
    lab.wait_until(lambda: lab.end_offsets(lab.TARGET_BROKER, target).get(0, 0) >= final_target or None, 120,
                   f"{target} at {final_target}")
    node("systemctl", "start", f"{UNIT}.timer")
    resumed = time.time()
    samples = wait_proven(TAMPERED)
    proven_s = time.time() - resumed
    found = findings(samples, TAMPERED)
    assert {kind: found.get(kind, 0) for kind in FINDING_KINDS} == {
        "missing": TAMPER_DELETED, "unexpected": TAMPER_FOREIGN, "content_mismatch": 0, "order_violation": 0,
        "timestamp_type_change": 0, "truncated": 0}, found
    assert found.get("duplicate", 0) == 0, found
    # The evidence: each finding's offsets in the increments' reports on the node.
    evidence = [finding for document in kept_reports()
                for finding in document["incremental"]["findings"] if finding["topic"] == TAMPERED]
    missing = sorted(finding["source_offset"] for finding in evidence if finding["kind"] == "missing")
    unexpected = sorted(finding["target_offset"] for finding in evidence if finding["kind"] == "unexpected")
    assert missing == list(range(TAMPER_PROVEN, deleted_before)), missing
    assert unexpected == list(range(copied, copied + TAMPER_FOREIGN)), unexpected
    alert = lab.wait_until(lambda: monitoring.firing("MM2VerificationFinding", flow=VERIFY_FLOW, topic=TAMPERED, kind="missing") or None,
                           360, "MM2VerificationFinding firing for the deleted records", interval=5)
    alerted_s = time.time() - resumed
    assert monitoring.firing("MM2VerificationFinding", flow=VERIFY_FLOW, topic=TAMPERED, kind="unexpected"), "no alert for the foreign records"
    return found, evidence, {"proven_after_resume_s": round(proven_s, 1), "alert_after_resume_s": round(alerted_s, 1),
                             "held_s": round(resumed - tamper_start, 1), "alert_summary": alert["annotations"]["summary"]}


def test_prometheus_has_the_verification_series_and_the_dashboard_row(continuous: lab.PlaybookRun) -> None:
    """Last, while the tamper's findings still count: every query of the dashboard's verification row."""
    proven = monitoring.query(f'kafka_dr_verification_proven_offset{{flow="{VERIFY_FLOW}"}}')
    assert len(proven) == 3 * len(LOAD_TOPICS) + 1, proven
    panels = [(title, expression) for title, expression in monitoring.dashboard_expressions()
              if monitoring.reads_unscraped(expression, {"kafka-dr-verification"})]
    assert len(panels) >= 4, panels
    empty = [f"{title}: {expression}" for title, expression in panels if not monitoring.query(expression)]
    assert empty == [], "verification panels without series:\n" + "\n".join(empty)
    # status.yml: a "verified" line for the flow, and the tamper's findings as problems (so it fails).
    status = lab.run_playbook("playbooks/status.yml")
    verified = re.findall(r"verified\s+up to offset [^\n']*", status.output)
    assert verified, status.output[-4000:]
    for count in (TAMPER_DELETED, TAMPER_FOREIGN):  # "missing" / "unexpected" follow, wrapped
        assert f"continuous verification: {count} records of {TAMPERED}-0" in status.output, status.output[-4000:]
    assert status.returncode != 0 and "UNHEALTHY" in status.output, status.output[-4000:]
    record_figures("dashboard", verification_queries=len(panels), status_line=verified[0][:300])
