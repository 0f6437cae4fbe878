"""DR readiness drills on the default lab (`make integration-readiness`, docs/readiness.md): the
readiness exporter runs for the lab's flow and Prometheus scrapes it, then each drill makes the
lab go wrong in one way and checks what `playbooks/readiness.yml`, the exporter's metrics and the
alerts say against what was done:

- a consumer whose group has no binding on the target: NOT READY, naming the binding;
- a source topic with a higher `min.insync.replicas` than its remote topic: named;
- MM2's checkpoints topic switched to `cleanup.policy=delete`: NOT READY, naming it and its fix;
- the flow paused while the source's records are deleted past its position: the truncation
  sentinel counts exactly the records deleted, and the alert fires;
- the flow paused while a copied partition is emptied and a topic MM2 never copied is written and
  emptied: both losses counted exactly, metric and alert, then accepted once and no longer counted;
- a source topic deleted and re-created under its name: detected within one refresh interval.

The drills pause the lab's flow: they run alone on the lab, outside `make test`. A planned and
an unplanned failover against readiness's prediction are in tests/integration/test_failover_drill.py.
Figures in build/readiness-figures.jsonl.
"""

from __future__ import annotations

import json
import time
from typing import Any, Iterator

import pytest

from tests.integration import deleted_records, figures, lab
from tests.integration import test_monitoring as monitoring

RUN_ID = f"{int(time.time()) % 10**8:08d}"
FLOW = "src->dst"
FLOW_LABEL = "src-dst"
SOURCE_CONNECTOR = "mm2-src-dst-source"
TRUNCATED = f"foo.rdy-truncated-{RUN_ID}"
EMPTIED = f"foo.rdy-emptied-{RUN_ID}"
NEVER_COPIED = f"foo.rdy-never-{RUN_ID}"  # created while the flow is paused
RECREATED = f"foo.rdy-recreated-{RUN_ID}"
CONFIGURED = f"foo.rdy-config-{RUN_ID}"
TOPICS = (TRUNCATED, EMPTIED, RECREATED, CONFIGURED)
APP = f"User:rdy-app-{RUN_ID}"
APP_GROUP = f"rdy-group-{RUN_ID}"
COPIED, AFTER_PAUSE, DELETE_BEFORE = 200, 300, 400
EMPTIED_AFTER_PAUSE, NEVER_COPIED_RECORDS = 500, 300
INTERVAL = 15
REPORTS = lab.REPO_ROOT / "build" / f"readiness-{RUN_ID}"
FIGURES = lab.REPO_ROOT / "build" / "readiness-figures.jsonl"
EXPORTER = {"readiness_flow": FLOW, "readiness_exporter_enabled": True, "readiness_exporter_interval": INTERVAL,
            "readiness_fail": False, "readiness_state_dir": str(REPORTS)}


def record_figures(name: str, **values: Any) -> None:
    figures.record(FIGURES, "READINESS DRILL", RUN_ID, name, **values)


def readiness(**extra: Any) -> tuple[lab.PlaybookRun, dict[str, Any]]:
    """One run of playbooks/readiness.yml (its exporter kept as deployed); the JSON document."""
    document = REPORTS / f"readiness-{time.monotonic_ns()}.json"
    run = lab.run_playbook("playbooks/readiness.yml", dict(EXPORTER, readiness_json_file=str(document), **extra))
    assert run.returncode == 0, run.output[-5000:]
    return run, json.loads(document.read_text())


def series(expression: str) -> list[dict[str, Any]]:
    return monitoring.query(expression)


def connector_state(name: str) -> str:
    return (lab.connector_status(name) or {}).get("connector", {}).get("state", "")


def tasks_paused(name: str) -> bool:
    status = lab.connector_status(name) or {}
    states = [status.get("connector", {}).get("state"), *(task["state"] for task in status.get("tasks", []))]
    return len(states) > 1 and set(states) == {"PAUSED"}


def replicated(topic: str) -> int:
    try:
        return sum(lab.end_offsets(lab.TARGET_BROKER, f"src.{topic}").values())
    except RuntimeError:
        return 0


def produce(topic: str, start: int, count: int) -> None:
    records = [lab.Record(partition=0, key=f"k{index}", value=f"{topic}-{index}", headers=(("n", str(index)),))
               for index in range(start, start + count)]
    lab.produce(lab.SOURCE_BROKER, topic, records)


def delete_records(topic: str, before: int) -> None:
    deleted_records.delete_before(lab.SOURCE_BROKER, topic, before)


@pytest.fixture(scope="module")
def exporter() -> Iterator[None]:
    """The drills' topics, copied; the exporter deployed and scraped; all of it undone afterwards."""
    REPORTS.mkdir(parents=True, exist_ok=True)
    try:
        for topic in TOPICS:
            lab.create_topic(lab.SOURCE_BROKER, topic, 1)
            produce(topic, 0, COPIED)
        for topic in TOPICS:
            lab.wait_until(lambda topic=topic: replicated(topic) >= COPIED or None, 180, f"{topic} on the target")
        readiness()
        monitoring = lab.run_playbook("playbooks/monitoring.yml", EXPORTER)
        assert monitoring.returncode == 0, monitoring.output[-5000:]
        yield
    finally:
        if connector_state(SOURCE_CONNECTOR) == "PAUSED":
            lab.connect_rest("PUT", f"/connectors/{SOURCE_CONNECTOR}/resume")
        for topic in TOPICS:
            lab.change_acl(lab.SOURCE_BROKER, False, APP, ["Read"], "--topic", topic)
        lab.change_acl(lab.SOURCE_BROKER, False, APP, ["Read"], "--group", APP_GROUP)
        off = dict(EXPORTER, readiness_exporter_enabled=False)
        for playbook in ("playbooks/readiness.yml", "playbooks/monitoring.yml"):
            run = lab.run_playbook(playbook, off)
            assert run.returncode == 0, run.output[-5000:]
        owned = [*TOPICS, NEVER_COPIED]
        lab.delete_mirrored_topics(lab.SOURCE_BROKER, owned, lab.TARGET_BROKER, [f"src.{topic}" for topic in owned],
                                   SOURCE_CONNECTOR)


def test_the_exporter_serves_the_figures_and_prometheus_scrapes_them(exporter: None) -> None:
    rerun = lab.run_playbook("playbooks/readiness.yml", EXPORTER)  # no JSON document to write this time
    assert rerun.returncode == 0 and rerun.changed() == 0, rerun.output[-4000:]
    lab.wait_until(lambda: series(f'kafka_dr_readiness_ready{{flow="{FLOW_LABEL}"}}') or None, 180,
                   "the readiness series in Prometheus")
    for name in ("uncopied_records", "uncopied_seconds", "untranslated_groups", "last_success_timestamp_seconds"):
        assert series(f'kafka_dr_readiness_{name}{{flow="{FLOW_LABEL}"}}'), name
    budget = series("mm2:rpo_budget_seconds")
    assert budget and float(budget[0]["value"][1]) > 0, budget


def test_a_consumer_without_its_group_on_the_target_is_not_ready(exporter: None) -> None:
    lab.change_acl(lab.SOURCE_BROKER, True, APP, ["Read"], "--topic", CONFIGURED)
    lab.change_acl(lab.SOURCE_BROKER, True, APP, ["Read"], "--group", APP_GROUP)
    flow = {"source": "src", "target": "dst", "topics": ["foo\\..*"],
            "consumers": [{"principal": APP, "groups": [APP_GROUP]}]}
    _run, report = readiness(mm2_flows=[flow])
    wanted = f"{APP} ALLOW READ on GROUP:LITERAL:{APP_GROUP} from *"
    entry = next(acl for acl in report["acls"] if acl["principal"] == APP)
    assert wanted in entry["missing"], entry
    assert report["verdict"] == "NOT READY" and any(wanted in problem for problem in report["problems"]), report["problems"]
    record_figures("consumer-acl", missing=entry["missing"])


def test_a_lower_min_insync_on_the_target_is_named(exporter: None) -> None:
    lab.alter_topic_config(lab.SOURCE_BROKER, CONFIGURED, "min.insync.replicas", "2")
    _run, report = readiness()
    named = [entry for entry in report["configs"]
             if entry["topic"] == CONFIGURED and entry["setting"] == "min.insync.replicas"]
    assert named and named[0]["source"] == 2 and named[0]["target"] == 1, report["configs"]
    assert any(f"src.{CONFIGURED}" in warning and "min.insync.replicas" in warning for warning in report["warnings"]), \
        report["warnings"]
    record_figures("min-insync", finding=named[0]["message"])


def test_an_internal_topic_that_is_not_compacted_is_named_with_its_fix(exporter: None) -> None:
    topic = "src.checkpoints.internal"
    lab.alter_topic_config(lab.TARGET_BROKER, topic, "cleanup.policy", "delete")
    try:
        _run, report = readiness()
    finally:
        lab.alter_topic_config(lab.TARGET_BROKER, topic, "cleanup.policy", "compact")
    entry = next(internal for internal in report["internal_topics"] if internal["topic"] == topic)
    finding = next(found for found in entry["findings"] if found["setting"] == "cleanup.policy")
    assert finding["severity"] == "problem", finding
    assert f"--entity-name {topic}" in finding["fix"] and "cleanup.policy=compact" in finding["fix"], finding
    assert report["verdict"] == "NOT READY" and any(topic in problem for problem in report["problems"]), report["problems"]
    assert lab.topic_config(lab.TARGET_BROKER, topic).get("cleanup.policy") == "compact"
    _run, after = readiness()
    fixed = next(internal for internal in after["internal_topics"] if internal["topic"] == topic)
    assert not [found for found in fixed["findings"] if found["setting"] == "cleanup.policy"], fixed
    record_figures("internal-topic", finding=finding["message"], fix=finding["fix"])


def test_records_deleted_past_a_paused_flow_are_counted_and_alerted(exporter: None) -> None:
    lab.connect_rest("PUT", f"/connectors/{SOURCE_CONNECTOR}/pause")
    lab.wait_until(lambda: tasks_paused(SOURCE_CONNECTOR) or None, 120, "the source connector and its tasks PAUSED")
    produce(TRUNCATED, COPIED, AFTER_PAUSE)
    # What MM2 copied before its tasks stopped polling: the records deleted beyond it are the lost ones.
    copied = replicated(TRUNCATED)
    delete_records(TRUNCATED, DELETE_BEFORE)
    deleted_uncopied = DELETE_BEFORE - copied
    assert copied >= COPIED and deleted_uncopied > 0, copied
    started = time.time()
    _run, report = readiness()
    sentinel = next(entry for entry in report["sentinels"] if entry["kind"] == "truncated" and entry["topic"] == TRUNCATED)
    assert sentinel["lost"] == deleted_uncopied, sentinel
    assert report["verdict"] == "NOT READY"
    selector = f'kafka_dr_readiness_truncated_records{{flow="{FLOW_LABEL}",topic="{TRUNCATED}"}}'
    # The exporter serves every topic's figure from its first round, at 0 before the delete.
    metric = lab.wait_until(lambda: [entry for entry in series(selector) if float(entry["value"][1]) > 0] or None,
                            4 * INTERVAL + 60, "the truncation in Prometheus")
    assert float(metric[0]["value"][1]) == deleted_uncopied, metric
    alert = lab.wait_until(lambda: monitoring.firing("MM2SourceRecordsTruncated"), 300, "MM2SourceRecordsTruncated firing")
    record_figures("truncation", copied_before_pause=copied, deleted_uncopied=deleted_uncopied, readiness_lost=sentinel["lost"],
                   metric=float(metric[0]["value"][1]), alert_after_s=round(time.time() - started, 1),
                   alert_labels=alert["labels"])
    lab.connect_rest("PUT", f"/connectors/{SOURCE_CONNECTOR}/resume")
    lab.wait_until(lambda: connector_state(SOURCE_CONNECTOR) == "RUNNING" or None, 120, "the source connector RUNNING")


def pause_source_connector() -> None:
    lab.connect_rest("PUT", f"/connectors/{SOURCE_CONNECTOR}/pause")
    lab.wait_until(lambda: tasks_paused(SOURCE_CONNECTOR) or None, 120, "the source connector and its tasks PAUSED")


def resume_source_connector() -> None:
    lab.connect_rest("PUT", f"/connectors/{SOURCE_CONNECTOR}/resume")
    lab.wait_until(lambda: connector_state(SOURCE_CONNECTOR) == "RUNNING" or None, 120, "the source connector RUNNING")


def lost_metric(topic: str) -> list[dict[str, Any]] | None:
    selector = f'kafka_dr_readiness_truncated_records{{flow="{FLOW_LABEL}",topic="{topic}"}}'
    return [entry for entry in series(selector) if float(entry["value"][1]) > 0] or None


def test_an_emptied_partition_and_one_never_copied_are_counted_alerted_and_accepted(exporter: None) -> None:
    """The partitions that end empty: what MM2 had not copied of them is lost, and nothing says "nothing to copy"."""
    pause_source_connector()
    produce(EMPTIED, COPIED, EMPTIED_AFTER_PAUSE)
    copied = replicated(EMPTIED)
    lab.create_topic(lab.SOURCE_BROKER, NEVER_COPIED, 1)
    produce(NEVER_COPIED, 0, NEVER_COPIED_RECORDS)
    emptied_end = COPIED + EMPTIED_AFTER_PAUSE
    delete_records(EMPTIED, emptied_end)
    delete_records(NEVER_COPIED, NEVER_COPIED_RECORDS)
    expected = {EMPTIED: emptied_end - copied, NEVER_COPIED: NEVER_COPIED_RECORDS}
    assert copied >= COPIED and expected[EMPTIED] > 0, copied
    started = time.time()
    _run, report = readiness()
    points = {point["topic"]: point for point in report["recovery_point"]}
    sentinels = {entry["topic"]: entry for entry in report["sentinels"] if entry["kind"] == "truncated"}
    for topic, lost in expected.items():
        assert (points[topic]["method"], points[topic]["empty_because"], points[topic]["lost"]) == ("empty", "truncated", lost)
        assert sentinels[topic]["lost"] == lost, sentinels[topic]
    assert points[NEVER_COPIED]["newest_copied"] is None and report["verdict"] == "NOT READY"
    measured: dict[str, Any] = {}
    for topic, lost in expected.items():
        metric = lab.wait_until(lambda topic=topic: lost_metric(topic), 4 * INTERVAL + 60, f"the loss of {topic} in Prometheus")
        assert float(metric[0]["value"][1]) == lost, metric
        alert = lab.wait_until(lambda topic=topic: monitoring.firing("MM2SourceRecordsTruncated", topic=topic), 300,
                               f"MM2SourceRecordsTruncated firing for {topic}")
        measured[topic] = {"lost": lost, "metric": float(metric[0]["value"][1]), "alert_after_s": round(time.time() - started, 1),
                           "alert_labels": alert["labels"]}
    resume_source_connector()
    # Accepted once (the owners were told): the state keeps the log starts, the next run counts nothing more.
    # The exporter, redeployed accepting, accepts at its next measurement; then both are redeployed as before.
    accepted_at = time.time()
    _run, accepting = readiness(readiness_accept_truncated=True)
    assert {entry["topic"] for entry in accepting["sentinels"] if entry["kind"] == "truncated"} >= set(expected)
    lab.wait_until(lambda: all(not lost_metric(topic) for topic in expected) or None, 4 * INTERVAL + 60,
                   "the accepted losses at 0 in Prometheus")
    cleared_s = round(time.time() - accepted_at, 1)
    _run, after = readiness()
    assert not [entry for entry in after["sentinels"] if entry["kind"] == "truncated" and entry["topic"] in expected], after
    assert {points[topic]["topic"]: 0 for topic in expected} == {
        point["topic"]: point["lost"] for point in after["recovery_point"] if point["topic"] in expected}
    record_figures("emptied", copied_before_pause=copied, cases=measured, accepted_cleared_s=cleared_s)


def test_a_recreated_source_topic_is_detected_within_one_interval(exporter: None) -> None:
    lab.delete_topics(lab.SOURCE_BROKER, RECREATED)
    lab.wait_until(lambda: RECREATED not in lab.topic_names(lab.SOURCE_BROKER) or None, 60, f"{RECREATED} deleted")
    lab.create_topic(lab.SOURCE_BROKER, RECREATED, 1)
    recreated_at = time.time()
    selector = f'kafka_dr_readiness_recreated_topics{{flow="{FLOW_LABEL}"}} > 0'
    lab.wait_until(lambda: series(selector) or None, 4 * INTERVAL + 60, "the re-creation in Prometheus")
    detected_s = time.time() - recreated_at
    # The exporter measures every INTERVAL seconds and Prometheus scrapes it every 15 s or so.
    assert detected_s <= 2 * INTERVAL + 30, detected_s
    status = lab.run_playbook("playbooks/status.yml")
    alert = lab.wait_until(lambda: monitoring.firing("MM2SourceTopicRecreated"), 300, "MM2SourceTopicRecreated firing")
    record_figures("recreated", detected_s=round(detected_s, 1), interval_s=INTERVAL, alert_labels=alert["labels"],
                   status_names_it="re-created" in status.output)
    assert "re-created" in status.output, status.output[-4000:]


def test_the_dashboards_readiness_panels_have_series(exporter: None) -> None:
    """Last, while the drills' sentinels still show: every query of the dashboard's readiness row."""
    panels = [(title, expression) for title, expression in monitoring.dashboard_expressions()
              if monitoring.reads_unscraped(expression, {"kafka-dr-readiness"})]
    assert len(panels) >= 6, panels
    # The drills' groups commit nothing, so no group has a failover cost for the exporter to report.
    panels = [(title, expression) for title, expression in panels if "failover_rereads" not in expression]
    empty = [f"{title}: {expression}" for title, expression in panels if not monitoring.query(expression)]
    assert empty == [], "readiness panels without series:\n" + "\n".join(empty)
    record_figures("dashboard", readiness_queries=len(panels))
