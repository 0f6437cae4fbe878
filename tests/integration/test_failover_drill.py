"""The failover drill on the lab, with playbooks/failover.yml as an operator runs it.

A source cluster of its own (a broker container this module creates on the lab network,
alias "drsrc") replicates into the lab's dst through a flow deployed by the mirrormaker
role under a connector prefix of its own ("drill-"), so the lab's flow and other tests'
prunes never meet it. A producer writes at a steady rate while a consumer group consumes on the source;
then the group is failed over, planned (the source answers), and a second group unplanned
(the source broker is killed). Every figure is computed from the values the drill
produced and consumed:

- skipped: records on the target that the group consumed on neither cluster (must be 0);
- re-read: records the group consumed on both clusters, against what MM2's checkpoint
  alone would have made it re-read;
- RTO: seconds from the start of the playbook to the group's first record on the target;
- RPO (unplanned): records produced on the source that never reached the target, and the
  seconds between the newest replicated record and the cut.

Then the source comes back and the first group fails back (playbooks/failback.yml): the
reverse flow copies what producers wrote on dst during the outage to the source, the
original flow resumes, and the group continues on the source with nothing skipped; the
PySpark validator then checks both directions.

`make drill` runs this module alone and prints the figures (-s); every run also appends them
to build/drill-figures.jsonl.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_failover import decode_checkpoint

from tests.integration import lab

RUN_ID = f"{os.getpid()}{int(time.time()) % 100000}"
SOURCE = f"drill-src-{RUN_ID}"
ALIAS = "drsrc"
PREFIX = "drill-"
TARGET = lab.TARGET_BROKER
TARGET_BOOTSTRAP = f"{TARGET}:{lab.CLIENT_PORT}"
TOPIC = f"orders.{RUN_ID}"
REMOTE = f"{ALIAS}.{TOPIC}"
PARTITIONS = 3
NODE = lab.CONNECT_WORKERS[0]
TOOL = "/var/tmp/drill_client.py"
TOOL_PYTHON = "/opt/kafka-dr/failover/venv/bin/python"
FLOW = f"{ALIAS}->dst"
KINDS = ("source", "checkpoint", "heartbeat")
CONNECTORS = tuple(f"{PREFIX}{ALIAS}-dst-{kind}" for kind in KINDS)
REVERSE_CONNECTORS = tuple(f"{PREFIX}dst-{ALIAS}-{kind}" for kind in KINDS)
RATE = 300
# emit_checkpoints_interval_seconds of the lab's flows (inventories/lab/group_vars/all.yml).
CHECKPOINT_INTERVAL_S = 5
FIRST_BATCH, FIRST_CONSUMED = 6000, 2500
SECOND_BATCH, SECOND_CONSUMED = 3000, 5000
# Written on dst while it is the primary, partly consumed there, then failed back.
OUTAGE_START, OUTAGE_BATCH, OUTAGE_CONSUMED = 100000, 2000, 800
PLANNED_GROUP = f"drill-planned-{RUN_ID}"
UNPLANNED_GROUP = f"drill-unplanned-{RUN_ID}"
REPORTS = Path(__file__).resolve().parents[2] / "build" / f"drill-{RUN_ID}"


def model() -> dict[str, Any]:
    """The drill's own flow only, under its own connector prefix."""
    inventory = lab.inventory_vars()
    clusters = dict(inventory["mm2_clusters"], **{ALIAS: {"bootstrap_servers": f"{SOURCE}:9092"}})
    return {"mm2_clusters": clusters, "mm2_flows": [{"source": ALIAS, "target": "dst", "topics": [r"orders\..*"]}],
            "mirrormaker_connector_prefix": PREFIX}


def client(command: str, spec: dict[str, Any], timeout: int = 300) -> dict[str, Any]:
    done = subprocess.run(["docker", "exec", NODE, TOOL_PYTHON, TOOL, command, json.dumps(spec)],
                          capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"drill_client {command}: {done.stderr[-3000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def background(command: str, spec: dict[str, Any]) -> subprocess.Popen:
    return subprocess.Popen(["docker", "exec", NODE, TOOL_PYTHON, TOOL, command, json.dumps(spec)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finished(process: subprocess.Popen, timeout: int = 300) -> dict[str, Any]:
    stdout, stderr = process.communicate(timeout=timeout)
    assert process.returncode == 0, stderr[-3000:]
    return json.loads(stdout.strip().splitlines()[-1])


def source_spec(**fields: Any) -> dict[str, Any]:
    return dict({"bootstrap": f"{SOURCE}:9092", "client": {}}, **fields)


def target_spec(**fields: Any) -> dict[str, Any]:
    return dict({"bootstrap": TARGET_BOOTSTRAP, "client": lab.client_settings("", TARGET)}, **fields)


def produce(start: int, count: int) -> subprocess.Popen:
    return background("produce", source_spec(topic=TOPIC, partitions=PARTITIONS, start=start, count=count,
                                             rate=RATE, prefix=RUN_ID))


def values(start: int, count: int) -> set[str]:
    return {f"{RUN_ID}-{index}" for index in range(start, start + count)}


def failover(mode: str, group: str, *options: str) -> tuple[lab.PlaybookRun, float, dict[str, Any]]:
    started = time.time()
    run = lab.run_playbook("playbooks/failover.yml", dict(model(), failover_flow=FLOW, failover_mode=mode,
                                                          failover_groups=[group], failover_reports_dir=str(REPORTS)),
                           *options)
    report_file = REPORTS / f"failover-{ALIAS}_to_dst-{mode}.json"
    report = json.loads(report_file.read_text()) if report_file.exists() else {}
    return run, started, report


def newest_checkpoints(group: str) -> dict[str, int]:
    """The newest upstream offset MM2 checkpointed for the group, per remote partition
    ("<topic>-<partition>"), decoded as module mm2_failover decodes checkpoints."""
    newest: dict[str, int] = {}
    for key, value in lab.read_partition(TARGET, f"{ALIAS}.checkpoints.internal"):
        checkpoint = decode_checkpoint(key, value, 0)
        if checkpoint is not None and checkpoint.group == group:
            newest[f"{checkpoint.topic}-{checkpoint.partition}"] = checkpoint.upstream
    return newest


def wait_for_checkpoint(group: str, committed: dict[str, int]) -> None:
    def covered() -> bool | None:
        newest = newest_checkpoints(group)
        return all(newest.get(f"{REMOTE}-{partition}", -1) >= offset
                   for partition, offset in committed.items()) or None
    lab.wait_until(covered, 180, f"checkpoints of {group} to cover its commits", interval=3)


def readiness(group: str) -> dict[str, Any]:
    """What playbooks/readiness.yml predicts for the group, were the flow failed over now."""
    document = REPORTS / f"readiness-{group}.json"
    document.parent.mkdir(parents=True, exist_ok=True)
    run = lab.run_playbook("playbooks/readiness.yml", dict(model(), readiness_flow=FLOW, readiness_groups=[group],
                                                           readiness_fail=False, readiness_json_file=str(document),
                                                           readiness_state_dir=str(REPORTS),
                                                           readiness_failover_reports_dir=str(REPORTS)))
    assert run.returncode == 0, run.output[-4000:]
    return next(entry for entry in json.loads(document.read_text())["groups"] if entry["group"] == group)


FIGURES_FILE = lab.REPO_ROOT / "build" / "drill-figures.jsonl"


def figures(name: str, **values_: Any) -> None:
    """Printed (seen with -s, as `make drill` runs) and appended to build/drill-figures.jsonl,
    so a run of the whole suite keeps them too."""
    print(f"\nDRILL {name}: " + ", ".join(f"{key}={value}" for key, value in values_.items()))
    FIGURES_FILE.parent.mkdir(exist_ok=True)
    with FIGURES_FILE.open("a", encoding="utf-8") as figures_file:
        figures_file.write(json.dumps({"run": RUN_ID, "figure": name, **values_}, default=str) + "\n")


@pytest.fixture(scope="module")
def drill_source(lab_brokers: tuple[str, str]) -> Iterator[str]:
    yield from lab.temporary_broker(SOURCE)


@pytest.fixture(scope="module")
def drill_flow(drill_source: str) -> Iterator[None]:
    """The flow drill -> dst deployed by the mirrormaker role, the drill tool on the node; all removed after."""
    # Producers and consumers of the drill use MM2's account on dst: the topic they write there
    # during the outage too.
    outage_topic = lab.Grant(TARGET, ("Create", "Describe", "DescribeConfigs", "Read", "Write"), ("--topic", TOPIC))
    with lab.granted(lab.flow_grants(drill_source, TARGET, ALIAS, "dst") + [outage_topic]):
        lab.create_topic(drill_source, TOPIC, PARTITIONS)
        install = lab.run_playbook("playbooks/failover.yml", dict(model(), failover_flow=FLOW),
                                   "--tags", "failover_install")
        assert install.returncode == 0, install.output[-4000:]
        subprocess.run(["docker", "cp", str(Path(__file__).parent / "tools" / "drill_client.py"), f"{NODE}:{TOOL}"],
                       check=True)
        deployed = lab.run_playbook("playbooks/mirrormaker.yml", model())
        try:
            assert deployed.returncode == 0, deployed.output[-4000:]
            yield
        finally:
            for name in CONNECTORS + REVERSE_CONNECTORS:
                lab.remove_connector(name)
            lab.delete_topics(TARGET, *sorted(topic for topic in lab.topic_names(TARGET) or ()
                                              if topic.startswith(f"{ALIAS}.") or topic in (
                                                  f"mm2-offset-syncs.{ALIAS}.internal", TOPIC)))
            for group in (PLANNED_GROUP, UNPLANNED_GROUP):
                lab.delete_group(TARGET, group)


@pytest.fixture(scope="module")
def planned(drill_flow: None) -> dict[str, Any]:
    """A steady producer; a group on the source that reads FIRST_CONSUMED records once it is done,
    so that the group is far behind the end, where MM2 keeps few offset syncs; the group fails
    over, planned, and then reads the target to the end."""
    finished(produce(0, FIRST_BATCH))
    on_source = client("consume", source_spec(topic=TOPIC, group=PLANNED_GROUP, max=FIRST_CONSUMED, timeout=120))
    predicted = readiness(PLANNED_GROUP)
    run, started, report = failover("planned", PLANNED_GROUP)
    assert run.returncode == 0, run.output[-5000:]
    on_target = client("consume", target_spec(topic=REMOTE, group=PLANNED_GROUP, max=None, timeout=180))
    return {"run": run, "started": started, "report": report, "source": on_source, "target": on_target,
            "predicted": predicted}


def test_planned_failover_skips_nothing_and_rereads_almost_nothing(planned: dict[str, Any]) -> None:
    produced = values(0, FIRST_BATCH)
    consumed_source, consumed_target = set(planned["source"]["values"]), set(planned["target"]["values"])
    skipped = produced - consumed_source - consumed_target
    rereads = len(consumed_source & consumed_target)
    partitions = planned["report"]["groups"][0]["partitions"]
    checkpoint_rereads = rereads + sum(part["rereads_avoided"] or 0 for part in partitions)
    rto = planned["target"]["first_record_at"] - planned["started"]
    figures("planned", produced=len(produced), consumed_on_source=len(consumed_source),
            consumed_on_target=len(consumed_target), skipped=len(skipped), rereads=rereads,
            checkpoint_rereads=checkpoint_rereads, methods=planned["report"]["summary"]["methods"],
            not_replicated=planned["report"]["summary"]["not_replicated"], rto_s=round(rto, 1),
            readiness_planned_rereads=planned["predicted"]["planned_rereads"],
            readiness_unplanned_rereads=planned["predicted"]["unplanned_rereads"])
    assert len(consumed_source) == FIRST_CONSUMED
    # What readiness said a planned failover would re-read is what it re-read.
    assert planned["predicted"]["planned_rereads"] == rereads, (planned["predicted"], rereads)
    assert not skipped, sorted(skipped)[:20]
    assert rereads <= max(10 * PARTITIONS, checkpoint_rereads // 100), (rereads, checkpoint_rereads)
    assert {part["method"] for part in partitions} <= {"exact", "after-last"}, partitions
    assert planned["report"]["summary"]["not_replicated"] == 0
    assert sorted(planned["report"]["connectors_stopped"]) == sorted(CONNECTORS)
    assert all(lab.connector_status(name)["connector"]["state"] == "STOPPED" for name in CONNECTORS)
    assert f"planned failover of flow {FLOW}" in planned["run"].output


def test_a_second_failover_is_a_no_op_that_says_so(planned: dict[str, Any]) -> None:
    run, _started, report = failover("planned", PLANNED_GROUP)
    assert run.returncode == 0, run.output[-4000:]
    assert run.changed() == 0, run.recap()
    assert report["already_done"] and "already done" in run.output


def test_bad_requests_change_nothing(planned: dict[str, Any]) -> None:
    unknown = lab.run_playbook("playbooks/failover.yml", dict(model(), failover_flow=f"{ALIAS}->nowhere",
                                                              failover_groups=[PLANNED_GROUP]))
    assert unknown.returncode != 0 and "no flow of mm2_flows" in unknown.output, unknown.output[-3000:]
    ghost = lab.run_playbook("playbooks/failover.yml", dict(model(), failover_flow=FLOW, failover_mode="unplanned",
                                                            failover_groups=[f"ghost-{RUN_ID}"]))
    assert ghost.returncode != 0 and "no checkpoint on the target for group(s) ghost-" in ghost.output, \
        ghost.output[-3000:]
    for run in (unknown, ghost):
        assert run.changed() == 0, run.recap()


def test_a_group_with_members_on_the_source_is_refused_by_name(planned: dict[str, Any]) -> None:
    member = subprocess.Popen(["docker", "exec", SOURCE, lab.KAFKA_RUN, "org.apache.kafka.tools.consumer.ConsoleConsumer",
                               "--bootstrap-server", f"{SOURCE}:9092", "--topic", TOPIC, "--group",
                               f"drill-busy-{RUN_ID}", "--timeout-ms", "120000"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        lab.wait_until(lambda: f"drill-busy-{RUN_ID}" in lab.kafka_run(
            SOURCE, "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", "--bootstrap-server",
            f"{SOURCE}:9092", "--describe", "--members", "--group", f"drill-busy-{RUN_ID}") or None,
            120, "the console consumer to join its group", interval=3)
        run, _started, _report = failover("planned", f"drill-busy-{RUN_ID}")
    finally:
        member.kill()
    assert run.returncode != 0
    assert f"still active: drill-busy-{RUN_ID} (console-consumer" in run.output, run.output[-3000:]
    assert run.changed() == 0, run.recap()


@pytest.fixture(scope="module")
def unplanned(planned: dict[str, Any], drill_source: str) -> dict[str, Any]:
    """The flow resumed; more records; a second group on the source; the source broker killed; the
    group failed over, unplanned; it then reads the target to the end."""
    resumed = lab.run_playbook("playbooks/mirrormaker.yml", model())
    assert resumed.returncode == 0, resumed.output[-4000:]
    producer = produce(FIRST_BATCH, SECOND_BATCH)
    on_source = client("consume", source_spec(topic=TOPIC, group=UNPLANNED_GROUP, max=SECOND_CONSUMED, timeout=120))
    finished(producer)
    wait_for_checkpoint(UNPLANNED_GROUP, on_source["committed"])
    predicted = readiness(UNPLANNED_GROUP)
    cut_at = time.time()
    subprocess.run(["docker", "kill", drill_source], check=True, capture_output=True)
    run, started, report = failover("unplanned", UNPLANNED_GROUP)
    assert run.returncode == 0, run.output[-5000:]
    on_target = client("consume", target_spec(topic=REMOTE, group=UNPLANNED_GROUP, max=None, timeout=180))
    everything = client("consume", target_spec(topic=REMOTE, group=f"drill-all-{RUN_ID}", max=None, timeout=180))
    lab.delete_group(TARGET, f"drill-all-{RUN_ID}")
    too_early = lab.run_playbook("playbooks/failback.yml", dict(model(), failover_flow=FLOW,
                                                                failover_groups=[PLANNED_GROUP]))
    return {"run": run, "started": started, "report": report, "source": on_source, "target": on_target,
            "all": everything, "cut_at": cut_at, "too_early": too_early, "predicted": predicted}


def test_unplanned_failover_skips_nothing_and_reports_rpo(unplanned: dict[str, Any]) -> None:
    produced = values(0, FIRST_BATCH + SECOND_BATCH)
    on_target = set(unplanned["all"]["values"])
    consumed_source, consumed_target = set(unplanned["source"]["values"]), set(unplanned["target"]["values"])
    skipped = on_target - consumed_source - consumed_target
    lost_at_cut = produced - on_target
    rereads = len(consumed_source & consumed_target)
    rto = unplanned["target"]["first_record_at"] - unplanned["started"]
    partitions = unplanned["report"]["groups"][0]["partitions"]
    figures("unplanned", produced=len(produced), consumed_on_source=len(consumed_source),
            consumed_on_target=len(consumed_target), skipped=len(skipped), rereads=rereads,
            rpo_records=len(lost_at_cut), oldest_checkpoint_s=unplanned["report"]["summary"]["oldest_checkpoint_age_s"],
            rto_s=round(rto, 1), readiness_unplanned_rereads=unplanned["predicted"]["unplanned_rereads"],
            readiness_unplanned_skipped=unplanned["predicted"]["unplanned_skipped"])
    assert not skipped, sorted(skipped)[:20]
    # Readiness read the same checkpoints before the cut: what it predicted for an unplanned failover is
    # what the group re-read, within the records of one checkpoint interval (a newer checkpoint may land between).
    assert unplanned["predicted"]["unplanned_skipped"] == 0, unplanned["predicted"]
    assert abs(unplanned["predicted"]["unplanned_rereads"] - rereads) <= RATE * CHECKPOINT_INTERVAL_S, \
        (unplanned["predicted"], rereads)
    assert {part["method"] for part in partitions} == {"checkpoint"}
    assert all(part["checkpoint_age_s"] is not None for part in partitions)
    assert f"unplanned failover of flow {FLOW}" in unplanned["run"].output


def test_failback_waits_for_the_original_source(unplanned: dict[str, Any]) -> None:
    too_early = unplanned["too_early"]
    assert too_early.returncode != 0
    assert f"cannot reach cluster '{ALIAS}'" in too_early.output and "no connector was changed" in too_early.output, \
        too_early.output[-3000:]
    assert too_early.changed() == 0, too_early.recap()


def validate(flow: str, source_client: dict[str, Any], target_client: dict[str, Any]) -> lab.PlaybookRun:
    return lab.run_playbook("playbooks/validate.yml", dict(
        model(), mm2_flows=model()["mm2_flows"] + [{"source": "dst", "target": ALIAS, "topics": [r"orders\..*"]}],
        replication_check_flow=flow, replication_check_source_client=source_client,
        replication_check_target_client=target_client, replication_check_groups=[],
        replication_check_reports_dir=str(REPORTS)))


@pytest.fixture(scope="module")
def failback(planned: dict[str, Any], unplanned: dict[str, Any], drill_source: str) -> dict[str, Any]:
    """dst is the primary: producers write orders.<run> there and the first group reads part of it.
    The source comes back and the group fails back."""
    producer = background("produce", target_spec(topic=TOPIC, partitions=PARTITIONS, start=OUTAGE_START,
                                                 count=OUTAGE_BATCH, rate=RATE, prefix=RUN_ID))
    on_target = client("consume", target_spec(topic=TOPIC, group=PLANNED_GROUP, max=OUTAGE_CONSUMED, timeout=120))
    finished(producer)
    subprocess.run(["docker", "start", drill_source], check=True, capture_output=True)
    lab.run_broker(drill_source)
    started = time.time()
    run = lab.run_playbook("playbooks/failback.yml", dict(model(), failover_flow=FLOW, failover_groups=[PLANNED_GROUP],
                                                          failover_reports_dir=str(REPORTS)))
    report_file = REPORTS / f"failback-{ALIAS}_to_dst.json"
    report = json.loads(report_file.read_text()) if report_file.exists() else {}
    assert run.returncode == 0, run.output[-6000:]
    back_outage = client("consume", source_spec(topic=f"dst.{TOPIC}", group=PLANNED_GROUP, max=None, timeout=180))
    back_original = client("consume", source_spec(topic=TOPIC, group=PLANNED_GROUP, max=None, timeout=180))
    every_original = client("consume", source_spec(topic=TOPIC, group=f"drill-all-src-{RUN_ID}", max=None, timeout=180))
    return {"run": run, "started": started, "report": report, "outage_consumed": on_target,
            "back_outage": back_outage, "back_original": back_original, "every_original": every_original}


def test_failback_returns_the_group_with_nothing_skipped(planned: dict[str, Any], failback: dict[str, Any]) -> None:
    outage = values(OUTAGE_START, OUTAGE_BATCH)
    consumed_outage = set(failback["outage_consumed"]["values"]) | set(failback["back_outage"]["values"])
    originals = set(failback["every_original"]["values"])
    consumed_originals = (set(planned["source"]["values"]) | set(planned["target"]["values"])
                          | set(failback["back_original"]["values"]))
    rereads = len(set(failback["outage_consumed"]["values"]) & set(failback["back_outage"]["values"]))
    methods = failback["report"]["summary"]["methods"]
    rto = (failback["back_outage"]["first_record_at"] or failback["back_original"]["first_record_at"]) - failback["started"]
    figures("failback", outage_records=len(outage), skipped_outage=len(outage - consumed_outage), rereads_outage=rereads,
            originals=len(originals), skipped_originals=len(originals - consumed_originals), methods=methods,
            rto_s=round(rto, 1))
    assert outage <= consumed_outage, sorted(outage - consumed_outage)[:20]
    assert originals == values(0, FIRST_BATCH + SECOND_BATCH)
    assert originals <= consumed_originals, sorted(originals - consumed_originals)[:20]
    assert methods.get("origin") == PARTITIONS, methods
    assert all(lab.connector_status(name)["connector"]["state"] == "RUNNING" for name in CONNECTORS)
    assert all(lab.connector_status(name)["connector"]["state"] == "STOPPED" for name in REVERSE_CONNECTORS)


def test_after_failback_both_directions_validate(failback: dict[str, Any]) -> None:
    validator = lab.inventory_vars()["lab_validator_client"]
    forward = validate(FLOW, {}, validator)
    backward = validate(f"dst->{ALIAS}", validator, {})
    for run in (forward, backward):
        summary = [line for line in run.output.splitlines() if "verdict:" in line]
        figures("validator", summary=summary)
    assert forward.returncode == 0, forward.output[-5000:]
    assert backward.returncode == 0, backward.output[-5000:]
