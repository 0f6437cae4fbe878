"""The lab's Prometheus scrapes every broker and worker, and no alert or dashboard query is dead.

Every PromQL expression of the alert rules (extensions/monitoring/prometheus) and of the
Grafana dashboard (extensions/monitoring/grafana) runs against the lab's Prometheus
(playbooks/monitoring.yml). A dashboard query must return series. An alert expression
returns nothing while all is well, so each metric it reads must have series that carry
the labels it matches on: a rule that reads a metric the exporters do not serve (a renamed
bean, a rule typo) would never fire, and this is where that shows.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
import urllib.parse
import urllib.request
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from tests.integration import lab

PROMETHEUS = "http://127.0.0.1:19090"
MONITORING = lab.REPO_ROOT / "extensions" / "monitoring"
ALERT_RULES = MONITORING / "prometheus" / "mm2_alerts.yml"
DASHBOARD = MONITORING / "grafana" / "mm2-overview.json"
EXPECTED_TARGETS = {"kafka-connect": 2, "kafka-connect-watchdog": 2, "kafka-broker": 2}
TIMEOUT = 240
# How long a dashboard series may stay missing while a task moves between workers (a few scrapes).
SERIES_GAP_SECONDS = 90

# The restart watchdog serves a series per connector or task only once it restarted it
# (tests/integration/test_auto_restart.py reads them after a real restart; the unit tests of
# the watchdog, the stall restarts).
AFTER_A_RESTART_ONLY = {"kafka_dr_connect_restarts_total", "kafka_dr_connect_restart_cap_reached",
                        "kafka_dr_connect_stall_restarts_total"}

# The readiness exporter of role readiness (readiness_exporter_enabled) and the continuous verification
# exporter of role replication_check (replication_check_continuous) are opt-in: their series, and the
# dashboard panels and alerts that read them, are checked only when Prometheus scrapes them.
OPT_IN_JOBS = {"kafka-dr-readiness": "kafka_dr_readiness_", "kafka-dr-verification": "kafka_dr_verification_"}


def unscraped_jobs() -> set[str]:
    scraped = targets_by_job()
    return {job for job in OPT_IN_JOBS if not scraped.get(job)}


def reads_unscraped(expression: str, unscraped: set[str]) -> bool:
    return any(OPT_IN_JOBS[job] in expression or job in expression for job in unscraped)


# Grafana's variables, as the dashboard's "All" would set them.
GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$connector": ".*", "$flow": ".*", "$source": ".*",
                     "$target": ".*", "$worker": ".*"}
PROMQL_WORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless",
                "offset", "inf", "nan"}
LABEL_LISTS = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
SELECTOR = re.compile(r"(?<![\w.$])([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?")


def query(expression: str) -> list[dict[str, Any]]:
    url = f"{PROMETHEUS}/api/v1/query?{urllib.parse.urlencode({'query': expression})}"
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            answer = json.load(response)
    except urllib.error.HTTPError as error:
        raise AssertionError(f"Prometheus refused {expression!r}: {error.read().decode(errors='replace')}") from error
    assert answer["status"] == "success", f"{expression!r}: {answer}"
    return answer["data"]["result"]


def firing(alert: str, **labels: str) -> dict[str, Any] | None:
    """The first firing alert of that name whose labels include `labels`, or None."""
    with urllib.request.urlopen(f"{PROMETHEUS}/api/v1/alerts", timeout=30) as response:
        alerts = json.load(response)["data"]["alerts"]
    return next((entry for entry in alerts if entry["labels"]["alertname"] == alert and entry["state"] == "firing"
                 and all(entry["labels"].get(name) == value for name, value in labels.items())), None)


def targets_by_job() -> dict[str, list[dict[str, Any]]]:
    with urllib.request.urlopen(f"{PROMETHEUS}/api/v1/targets?state=active", timeout=30) as response:
        active = json.load(response)["data"]["activeTargets"]
    jobs: dict[str, list[dict[str, Any]]] = {}
    for target in active:
        jobs.setdefault(target["labels"]["job"], []).append(target)
    return jobs


def selectors(expression: str) -> list[str]:
    """The metric selectors of a PromQL expression (name plus label matchers), without functions."""
    text = LABEL_LISTS.sub(" ", expression)
    found = []
    for match in SELECTOR.finditer(text):
        name, matchers = match.group(1), match.group(2) or ""
        if name.lower() in PROMQL_WORDS or text[match.end():].lstrip().startswith("("):
            continue
        found.append(name + matchers)
    return found


def unreadable(selector: str) -> str:
    """Why an alert's selector reads nothing that exists, or "" when it does.

    The selector itself may match nothing while all is well (status="failed"), so the metric
    is queried by name and each label the selector matches on must be one its series carry.
    """
    name = selector.split("{")[0]
    series = query(name)
    if not series:
        return "no series of the metric"
    matched_labels = set(re.findall(r'(\w+)\s*(?:=~|!~|!=|=)\s*"', selector[len(name):]))
    carried = set().union(*(entry["metric"] for entry in series))
    absent = sorted(matched_labels - carried)
    return f"no series carries label(s) {', '.join(absent)}" if absent else ""


def alert_expressions() -> Iterator[tuple[str, str]]:
    for group in yaml.safe_load(ALERT_RULES.read_text())["groups"]:
        for rule in group["rules"]:
            yield rule.get("alert") or rule["record"], rule["expr"]


def with_variables(expression: str) -> str:
    for variable, value in GRAFANA_VARIABLES.items():
        expression = expression.replace(variable, value)
    return expression


def dashboard_expressions() -> Iterator[tuple[str, str]]:
    dashboard = json.loads(DASHBOARD.read_text())

    def panels(items: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for panel in items:
            yield panel
            yield from panels(panel.get("panels", []))

    for panel in panels(dashboard["panels"]):
        for target in panel.get("targets", []):
            if target.get("expr"):
                yield panel["title"], with_variables(target["expr"])
    for variable in dashboard.get("templating", {}).get("list", []):
        definition = variable.get("query")
        text = definition.get("query", "") if isinstance(definition, dict) else str(definition or "")
        label_values = re.fullmatch(r"label_values\((.+),\s*\w+\)", text)
        if label_values:
            yield f"variable {variable['name']}", with_variables(label_values.group(1))


@pytest.fixture(scope="module")
def checkpointed_group(lab_brokers: tuple[str, str]) -> Iterator[str]:
    """A consumer group on a replicated topic of the test's own, so checkpoint metrics exist."""
    source, target = lab_brokers
    suffix = uuid.uuid4().hex[:8]
    topic, group = f"foo.mon.{suffix}", f"mon-{suffix}"
    lab.create_topic(source, topic, 1)
    lab.produce(source, topic, [lab.Record(partition=0, key=f"k{n}", value=f"v{n}", headers=(("test", "monitoring"),)) for n in range(20)])
    lab.consume_timed(source, topic, 20, group=group)
    try:
        yield group
    finally:
        # Sources first, then the copies once MM2 stopped following them (it would bring them back).
        lab.delete_mirrored_group(source, target, group, "mm2-src-dst-checkpoint")
        lab.delete_mirrored_topics(source, [topic], target, [f"src.{topic}"], "mm2-src-dst-source")


def test_prometheus_scrapes_every_broker_worker_and_watchdog() -> None:
    def all_up() -> dict[str, list[dict[str, Any]]] | None:
        jobs = targets_by_job()
        counts = {job: sum(target["health"] == "up" for target in jobs.get(job, [])) for job in EXPECTED_TARGETS}
        return jobs if counts == EXPECTED_TARGETS else None

    jobs = lab.wait_until(all_up, TIMEOUT, f"scrape targets up: {EXPECTED_TARGETS}", interval=5)
    clusters = {target["labels"].get("cluster") for target in jobs["kafka-broker"]}
    assert clusters == {"src", "dst"}


def test_selector_extraction_sees_metrics_not_functions_or_labels() -> None:
    found = selectors('max by (connector, task) (rate(kafka_connect_task_status{status="failed", connector=~"a(b)"}[5m]))'
                      ' > 0 and on (instance) up{job="kafka-connect"} unless vector(1)')
    assert found == ['kafka_connect_task_status{status="failed", connector=~"a(b)"}', 'up{job="kafka-connect"}']


def test_every_dashboard_query_returns_series(checkpointed_group: str) -> None:
    expressions = list(dashboard_expressions())
    assert len(expressions) >= 20
    lab.wait_until(lambda: query(f'kafka_connect_mirror_checkpoint_latency_ms_max{{group="{checkpointed_group}"}}'),
                   TIMEOUT, f"checkpoint metrics of group {checkpointed_group}", interval=5)
    unscraped = unscraped_jobs()

    def missing_series() -> list[str]:
        return [f"{title}: {expression}" for title, expression in expressions
                if not reads_unscraped(expression, unscraped) and not query(expression)]

    # A series may be missing for a scrape or two while a task moves between workers (another module
    # restarted one): the new worker exports it once it has copied a record and Prometheus scraped it.
    deadline = time.monotonic() + SERIES_GAP_SECONDS
    missing = missing_series()
    while missing and time.monotonic() < deadline:
        time.sleep(5)
        missing = missing_series()
    assert missing == [], "dashboard queries without series:\n" + "\n".join(missing)
    print(f"{len(expressions)} dashboard queries, each with series")


def test_every_alert_expression_parses_and_reads_metrics_that_exist(checkpointed_group: str) -> None:
    rules = list(alert_expressions())
    assert len(rules) >= 15
    lab.wait_until(lambda: query(f'kafka_connect_mirror_checkpoint_latency_ms_max{{group="{checkpointed_group}"}}'),
                   TIMEOUT, f"checkpoint metrics of group {checkpointed_group}", interval=5)
    checked, missing = 0, []
    unscraped = unscraped_jobs()
    for name, expression in rules:
        query(expression)  # parses and evaluates, series or not
        for selector in selectors(expression):
            if selector.split("{")[0] in AFTER_A_RESTART_ONLY or reads_unscraped(selector, unscraped):
                continue
            checked += 1
            problem = unreadable(selector)
            if problem:
                missing.append(f"{name}: {selector}: {problem}")
    assert missing == [], "alert rules reading metrics without series:\n" + "\n".join(missing)
    assert checked >= len([rule for rule in rules if not reads_unscraped(rule[1], unscraped)])
    print(f"{len(rules)} rules, {checked} selectors, each with series")


def status_document(tmp_path: Path, **extra_vars: Any) -> tuple[int, str, dict[str, Any]]:
    """playbooks/status.yml as an operator runs it, with its JSON document written on the controller."""
    document = tmp_path / f"status-{uuid.uuid4().hex[:6]}.json"
    run = lab.run_playbook("playbooks/status.yml",
                           {"mm2_status_format": "json", "mm2_status_json_file": str(document), **extra_vars})
    return run.returncode, run.output, json.loads(document.read_text()) if document.exists() else {}


def cluster_problems_of_other_tests(document: dict[str, Any]) -> list[str]:
    """Problems status.yml found outside the lab flow: connectors that tests running beside this one
    deploy, fail on purpose or stop (they make the run's verdict unhealthy, as they should)."""
    return [problem for problem in document.get("problems", []) if not problem.startswith("flow src-dst:")]


def test_status_reports_the_lab_flow_healthy_with_replicated_heartbeats(tmp_path: Path) -> None:
    def healthy_with_figures() -> tuple[int, str, dict[str, Any]] | None:
        returncode, output, document = status_document(tmp_path)
        flow = next((flow for flow in document.get("flows", []) if flow["name"] == "src-dst"), None)
        ready = (flow is not None and flow["healthy"] and flow["latency_p99_ms"] is not None
                 and flow["heartbeat_age"]["exact"])
        return (returncode, output, document) if ready else None

    # The p99 latency needs two scrapes of a histogram that has seen records; on the 2-core
    # machine with the other tests' brokers and workers busy this has taken up to 4 minutes.
    returncode, output, document = lab.wait_until(healthy_with_figures, 2 * TIMEOUT,
                                                  "a healthy src-dst flow with heartbeat figures", interval=15)
    flow = next(flow for flow in document["flows"] if flow["name"] == "src-dst")
    others = cluster_problems_of_other_tests(document)
    assert flow["problems"] == []
    assert (returncode == 0) == (not others) and document["healthy"] is (not others), (returncode, others)
    assert flow["missing"] == [] and flow["heartbeats_topic"] == "src.heartbeats"
    assert flow["heartbeat_age"]["seconds"] < 60
    assert flow["records_per_second"] > 0
    assert all(worker["reachable"] for worker in document["clusters"][0]["workers"])
    assert lab.lab_secret("rest") not in output
    print(f"status: {flow['records_per_second']:.1f} records/s, latency p99 {flow['latency_p99_ms']:.0f} ms, "
          f"heartbeat {flow['heartbeat_age']['seconds']:.0f} s ago")


def test_status_fails_clearly_when_prometheus_does_not_answer(tmp_path: Path) -> None:
    returncode, output, document = status_document(tmp_path, mm2_status_prometheus_url="http://prometheus-1:9")
    assert returncode != 0
    assert "Prometheus at http://prometheus-1:9 is unreachable" in output
    assert document == {}  # the play stopped before it wrote a verdict


# ---- bad input for the exporter: clear messages, nothing changed ------------------------------

WORKER = lab.CONNECT_WORKERS[0]


def worker_main_pid() -> str:
    return lab._docker("exec", WORKER, "systemctl", "show", "--property=MainPID", "--value", "kafka-connect").strip()


def test_a_wrong_agent_checksum_stops_the_run_before_any_change() -> None:
    pid_before = worker_main_pid()
    run = lab.run_playbook("playbooks/connect.yml", {"jmx_exporter_jar_checksum": "sha256:" + "0" * 64}, "--limit", WORKER)
    assert run.returncode != 0
    assert "has SHA-256" in run.output and "nothing was installed" in run.output
    assert run.changed() == 0
    assert worker_main_pid() == pid_before


def test_an_exporter_port_held_by_another_process_stops_the_run_before_any_change() -> None:
    port = 9471
    lab._docker("exec", "-d", WORKER, "python3", "-m", "http.server", str(port), "--bind", "127.0.0.1")
    try:
        lab.wait_until(lambda: f":{port}" in lab._docker("exec", WORKER, "ss", "-Htln"), 30, f"a listener on {port}")
        pid_before = worker_main_pid()
        run = lab.run_playbook("playbooks/connect.yml", {"connect_worker_metrics_port": port}, "--limit", WORKER)
        assert run.returncode != 0
        assert f"Port {port} on {WORKER} is held by" in run.output and "python3" in run.output
        assert run.changed() == 0
        assert worker_main_pid() == pid_before
    finally:
        with contextlib.suppress(RuntimeError):
            lab._docker("exec", WORKER, "pkill", "-f", f"http.server {port}")


def test_a_rule_file_that_does_not_parse_is_refused_and_the_server_keeps_its_rules(tmp_path: Path) -> None:
    broken = tmp_path / "broken_alerts.yml"
    broken.write_text("groups:\n  - name: broken\n    rules:\n      - alert: NoExpression\n        expr: sum(\n")
    rules_before = {rule["name"] for group in prometheus_api("rules")["groups"] for rule in group["rules"]}
    run = lab.run_playbook("playbooks/monitoring.yml", {"prometheus_rule_files": [str(ALERT_RULES), str(broken)]})
    assert run.returncode != 0
    # promtool's own words, with the file and the rule (the result callback wraps long messages).
    output = " ".join(run.output.split())
    assert "broken_alerts.yml: rejected by `promtool check rules %s`" in output
    assert '"NoExpression": could not parse expression' in output and "Nothing was changed." in output
    # The alert rules and the budgets role prometheus renders (the RPO, continuous verification's staleness).
    assert lab._docker("exec", "prometheus-1", "ls", "/etc/prometheus/rules").split() == [
        "mm2_alerts.yml", "mm2_rpo.yml", "mm2_verification_budget.yml"]
    rules_after = {rule["name"] for group in prometheus_api("rules")["groups"] for rule in group["rules"]}
    assert rules_after == rules_before and "NoExpression" not in rules_after


def prometheus_api(path: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{PROMETHEUS}/api/v1/{path}", timeout=30) as response:
        return json.load(response)["data"]
