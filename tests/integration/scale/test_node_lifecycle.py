"""Task nodes that come and go (docs/production.md, "Scale out, scale in, replace a node"), each
under a paced producer and each ended by the validator with 0 records missing. The tests run in
file order and build on each other: the third node joins, the first is drained, the second is
lost and rebuilt, then a replication policy is installed from a jar; the session's end gives the
lab back its two workers.

Figures in build/scale-figures.jsonl: the stall of each drill (the longest time the replicated
stream did not move), the step's own time and the catch-up after the producer ended.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.integration import lab
from tests.integration.scale import nodes

FIRST, SECOND = lab.CONNECT_WORKERS
THIRD = nodes.NEW_WORKER
# Connect's incremental cooperative assignor holds the connectors and tasks of a member that left
# the group for scheduled.rebalance.max.delay.ms (the lab's 60 s) before it gives them to the
# others, whether the member crashed or left cleanly; only when the leader itself leaves does the
# next leader, which has no memory of the old assignment, hand them out at once. A crashed
# member is noticed after session.timeout.ms (10 s) on top of that.
REBALANCE_DELAY = 60.0
SESSION_TIMEOUT = 10.0
POLICY_SOURCE = lab.REPO_ROOT / "tests" / "integration" / "fixtures" / "scale"
POLICY_CLASS = "kafka.dr.lab.LabReplicationPolicy"
SCALE_OUT = ("--limit", f"{THIRD},monitoring", "--tags", "connect,mirrormaker,monitoring")


def _lossless(stream: nodes.Stream) -> nodes.Verdict:
    verdict = nodes.validate(stream.topic)
    assert verdict.totals["source_records"] == stream.records, verdict.totals
    assert verdict.totals["missing"] == 0, (verdict.totals, verdict.run.output[-3000:])
    assert verdict.totals["content_mismatch"] == 0 and verdict.totals["unexpected"] == 0, verdict.totals
    assert verdict.verdict in ("PASS", "WARN"), (verdict.verdict, verdict.totals)
    return verdict


def _figures(name: str, stream: nodes.Stream, verdict: nodes.Verdict, **more: object) -> None:
    nodes.record_figures(name, records=stream.records, stall_s=stream.stall, step_s=stream.step_seconds,
                         caught_up_s=stream.caught_up_seconds, missing=verdict.totals["missing"],
                         duplicates=verdict.totals["duplicate"], verdict=verdict.verdict, **more)


def test_a_third_worker_joins_without_restarting_the_others() -> None:
    before = {host: nodes.unit_state(host, nodes.WORKER_SERVICE) for host in (FIRST, SECOND)}

    def scale_out() -> None:
        nodes.write_inventory()
        nodes.passed(nodes.playbook("playbooks/lab.yml", "--limit", THIRD), "the new node's container")
        nodes.passed(nodes.playbook("site.yml", *SCALE_OUT), "the scale-out run")

    stream = nodes.paced("scale-out", scale_out)
    verdict = _lossless(stream)
    after = {host: nodes.unit_state(host, nodes.WORKER_SERVICE) for host in (FIRST, SECOND)}
    for host in (FIRST, SECOND):
        assert after[host]["MainPID"] == before[host]["MainPID"], f"{host} restarted: {before[host]} -> {after[host]}"
    lab.wait_until(lambda: nodes.assignments(FIRST).get(THIRD) or None, 180, f"a connector or task on {THIRD}")
    assert nodes.scrape_targets("kafka-connect").get(THIRD) == "up" or lab.wait_until(
        lambda: nodes.scrape_targets("kafka-connect").get(THIRD) == "up" or None, 120, f"Prometheus scraping {THIRD}")
    rerun = nodes.passed(nodes.playbook("site.yml", *SCALE_OUT), "the scale-out rerun")
    assert rerun.changed() == 0, rerun.output[-4000:]
    _figures("scale-out", stream, verdict, assignments=nodes.assignments(FIRST))


def test_draining_the_first_worker_moves_its_tasks_at_once() -> None:
    assert nodes.assignments(SECOND).get(FIRST), "the first worker runs nothing to drain"
    leader = nodes.leader(SECOND)

    def drain() -> None:
        nodes.write_inventory(absent=(FIRST,))
        nodes.passed(nodes.playbook("playbooks/connect.yml", "--limit", FIRST), "the drain")

    stream = nodes.paced("drain", drain)
    verdict = _lossless(stream)
    _figures("drain-first", stream, verdict, leader=leader, drained_the_leader=leader == FIRST,
             rebalance_delay_s=REBALANCE_DELAY)
    # No worse than the delay: the drain's clean stop spares the session timeout a crash waits.
    assert stream.stall < REBALANCE_DELAY + SESSION_TIMEOUT, stream
    state = nodes.unit_state(FIRST, nodes.WORKER_SERVICE)
    assert (state["ActiveState"], state["UnitFileState"]) == ("inactive", "disabled"), state
    assert FIRST not in nodes.assignments(SECOND)
    nodes.passed(nodes.playbook("playbooks/monitoring.yml"), "monitoring after the drain")
    # Prometheus applies a new configuration on its reload, a moment after the play.
    lab.wait_until(lambda: FIRST not in nodes.scrape_targets("kafka-connect") or None, 120,
                   f"Prometheus to stop scraping {FIRST}")
    rerun = nodes.passed(nodes.playbook("playbooks/connect.yml", "--limit", FIRST), "the drain's rerun")
    assert rerun.changed() == 0, rerun.output[-4000:]


def test_draining_the_last_workers_is_refused_before_anything_changes() -> None:
    nodes.write_inventory(absent=nodes.WORKERS)
    run = nodes.playbook("playbooks/connect.yml")
    nodes.write_inventory(absent=(FIRST,))
    assert run.returncode != 0
    assert "last worker" in run.output, run.output[-3000:]
    for host in (SECOND, THIRD):
        assert nodes.unit_state(host, nodes.WORKER_SERVICE)["ActiveState"] == "active", host


def test_the_second_node_comes_back_with_an_empty_disk() -> None:
    def lose_and_rebuild() -> None:
        lab.remove_container(SECOND)  # the node is gone at once: no clean shutdown
        nodes.passed(nodes.playbook("playbooks/lab.yml", "--limit", SECOND), "the empty node")
        assert subprocess.run(["docker", "exec", SECOND, "test", "-e", "/opt/kafka"], check=False).returncode != 0
        nodes.passed(nodes.playbook("site.yml", "--limit", f"{SECOND},monitoring",
                                    "--tags", "connect,mirrormaker,monitoring"), "the rebuild")

    leader = nodes.leader(THIRD)
    stream = nodes.paced("replace", lose_and_rebuild)
    verdict = _lossless(stream)
    _figures("replace-second", stream, verdict, assignments=nodes.assignments(THIRD), leader=leader,
             lost_the_leader=leader == SECOND)
    assert nodes.unit_state(SECOND, nodes.WORKER_SERVICE)["ActiveState"] == "active"
    try:
        lab.wait_until(lambda: nodes.all_running(THIRD) or None, 180, "every connector and task RUNNING")
    except lab.Deadline as late:
        raise AssertionError(f"{late}: {nodes.states(THIRD)}") from None
    lab.wait_until(lambda: nodes.assignments(THIRD).get(SECOND) or None, 300, f"a connector or task on {SECOND}")


@pytest.fixture(scope="module")
def policy_jar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A jar holding one replication policy class, compiled against the workers' own
    connect-mirror-client jar."""
    if shutil.which("javac") is None:
        pytest.fail("javac is missing: `make integration-scale` installs openjdk-17-jdk-headless")
    build = tmp_path_factory.mktemp("policy")
    worker = nodes.running_workers()[0]
    listing = subprocess.run(["docker", "exec", worker, "sh", "-c",
                              "ls /opt/kafka/current/libs/connect-mirror-client-*.jar /opt/kafka/current/libs/kafka-clients-*.jar"],
                             capture_output=True, text=True, check=True).stdout.split()
    class_path = []
    for jar in listing:
        subprocess.run(["docker", "cp", f"{worker}:{jar}", str(build / Path(jar).name)], check=True, capture_output=True)
        class_path.append(str(build / Path(jar).name))
    sources = [str(path) for path in POLICY_SOURCE.rglob("*.java")]
    compiled = subprocess.run(["javac", "--release", "17", "-cp", ":".join(class_path), "-d", str(build / "classes"), *sources],
                              capture_output=True, text=True, check=False)
    assert compiled.returncode == 0, compiled.stderr
    jar = nodes.SCALE_DIR / "lab-replication-policy.jar"
    subprocess.run(["jar", "--create", "--file", str(jar), "-C", str(build / "classes"), "."], check=True, capture_output=True)
    return jar


def _policy_flow(policy: str | None) -> dict[str, object]:
    """The lab's flow (inventories/lab/group_vars/all.yml) with every connector on another policy class."""
    flow: dict[str, object] = {"source": "src", "target": "dst", "topics": ["foo\\..*"]}
    if policy:
        flow["extra_config"] = {kind: {"replication.policy.class": policy} for kind in ("source", "checkpoint", "heartbeat")}
    return {"mm2_flows": [flow]}


def test_a_replication_policy_from_its_own_jar_runs_the_flow(policy_jar: Path) -> None:
    workers = nodes.running_workers()
    if THIRD not in workers:  # run alone, on the lab's own two workers
        nodes.write_inventory(members=lab.CONNECT_WORKERS)
    digest = hashlib.sha256(policy_jar.read_bytes()).hexdigest()
    jar = {"src": str(policy_jar), "name": "lab-replication-policy", "classpath": True}
    wrong = nodes.playbook("playbooks/connect.yml", extra={"connect_worker_plugin_jars": [dict(jar, sha256="0" * 64)]})
    assert wrong.returncode != 0 and "lab-replication-policy.jar" in wrong.output, wrong.output[-3000:]
    for host in workers:
        assert subprocess.run(["docker", "exec", host, "sh", "-c", "ls /opt/kafka/connect-classpath/lab-replication-policy 2>/dev/null"],
                              capture_output=True, text=True, check=False).stdout.strip() == "", host

    jars = {"connect_worker_plugin_jars": [dict(jar, sha256=digest)]}
    installed = {}

    def install_and_switch() -> None:
        installed["connect"] = nodes.passed(nodes.playbook("playbooks/connect.yml", extra=jars), "the policy jar")
        installed["flow"] = nodes.passed(nodes.playbook("playbooks/mirrormaker.yml", extra=dict(jars, **_policy_flow(POLICY_CLASS))),
                                         "the flow on the policy")

    stream = nodes.paced("policy-jar", install_and_switch)
    verdict = _lossless(stream)
    for connector in lab.connector_names():
        config = lab.connector_config(connector) or {}
        if config.get("connector.class", "").startswith("org.apache.kafka.connect.mirror."):
            assert config.get("replication.policy.class") == POLICY_CLASS, (connector, config)
    _figures("policy-jar", stream, verdict, sha256=digest)
    try:
        lab.wait_until(lambda: nodes.all_running(workers[0]) or None, 180, "every connector and task RUNNING on the policy")
    except lab.Deadline as late:
        raise AssertionError(f"{late}: {nodes.states(workers[0])}") from None
    nodes.passed(nodes.playbook("playbooks/mirrormaker.yml", extra=dict(jars, **_policy_flow(None))), "the flow back on its policy")
