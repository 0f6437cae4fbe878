"""Replays per crash (part `replays`; docs/performance.md "Replays per crash").

A source task commits its offsets every `offset.flush.interval.ms` (a worker setting). A worker
killed with SIGKILL commits nothing more, so when its tasks start again they copy once more every
record since their last commit: under at-least-once those are the duplicates a crash leaves. For
each flush interval measured, the Connect workers are rolled to it (playbooks/connect.yml, one
worker at a time behind the role's health gate), then:

1. **Cost.** The defaults' drain of a backlog (the same source records each time, a fresh remote
   topic), the fastest of three: records/s with this interval.
2. **Replay.** A paced producer offers RATE records/s for SECONDS to a topic the defaults' connector
   copies; KILLS times a worker running tasks of the connector is SIGKILLed (the workers in turn
   when the tasks are spread) and systemd starts it again. Each kill comes once the tasks have
   copied again for one interval and a random part of another, so it lands at a random point of
   the commit cycle. Once the target is caught up and still, the
   records the target holds beyond the source's are the replays. Divided by the killed tasks'
   share of the offered rate (their share of the topic's partitions) summed over the kills, they
   are the seconds of a task's traffic one crash replays on average: the time since the task's
   last offset commit, at most the interval. (The lab's runs replayed well under half of it on
   average: read the interval as the bound, not as the expected replay.)

The role's default interval is measured last, by a run of the playbook without the override: the
workers are left as the role deploys them.
"""

from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import yaml

from bench import flows, measures, perf_tools
from bench.replication import SOURCE, TARGET, Cleanup, drain, retry
from tests.integration import lab
from tests.integration.ha import drill

WORKER_SERVICE = "kafka-connect"
FLUSH_VARIABLE = "connect_worker_offset_flush_interval_ms"
ROLE_DEFAULTS = lab.REPO_ROOT / "roles" / "connect_worker" / "defaults" / "main.yml"
# Two per source task of the defaults (tasks.max 2).
PARTITIONS = 4
# The target is still when its end offsets did not move over this many seconds.
STILL_S = 15.0
# Seconds beyond the commit cycle before a kill, and kept free at the load's end.
KILL_MARGIN_S = 3.0


@dataclass(frozen=True)
class Settings:
    run_id: str
    flush_values_ms: tuple[int, ...]
    rate: int
    seconds: int
    drain_records: int
    kills: int = 3
    drains: int = 3
    record_size: int = 1024


def role_default_ms(defaults_file: Path = ROLE_DEFAULTS) -> int:
    return int(yaml.safe_load(defaults_file.read_text(encoding="utf-8"))[FLUSH_VARIABLE])


def measuring_order(values_ms: Sequence[int], default_ms: int) -> list[Optional[int]]:
    """The intervals to roll the workers to, the role's default last as None (the playbook without
    the override), so that the workers end as the role deploys them."""
    others = sorted({value for value in values_ms if value != default_ms}, reverse=True)
    return [*others, None]


# MirrorSourceTask's key for the partitions a task copies ("topic-0,topic-2").
ASSIGNED_PARTITIONS = "task.assigned.partitions"


def partitions_per_task(task_configs: list[dict[str, Any]], topic: str) -> dict[int, int]:
    """Task id -> how many partitions of `topic` it copies, from GET /connectors/<name>/tasks (a
    task may copy the source's heartbeats too, which carry no load)."""
    def of_topic(assigned: str) -> int:
        return sum(1 for item in assigned.split(",") if item.rsplit("-", 1)[0] == topic)
    return {int(entry["id"]["task"]): of_topic(str(entry.get("config", {}).get(ASSIGNED_PARTITIONS, "")))
            for entry in task_configs}


def killed_share(status: dict[str, Any], partitions: dict[int, int], host: str) -> tuple[int, int]:
    """(partitions the tasks on `host` copy, partitions in all): the killed worker's share of the traffic."""
    on_host = sum(partitions.get(int(task.get("id", -1)), 0) for task in status.get("tasks", [])
                  if worker_host(str(task.get("worker_id", ""))) == host)
    return on_host, sum(partitions.values())


def worker_host(worker_id: str) -> str:
    """host of "host:port" (the REST advertised name the worker reports)."""
    return re.sub(r":\d+$", "", worker_id)


def replayed_seconds(extra_copies: int, rate: float, shares: Sequence[tuple[int, int]]) -> Optional[float]:
    """Seconds of the killed tasks' traffic one crash replayed, on average: the copies beyond the
    source's records over the records per second the killed tasks were copying, summed over the
    crashes (the producer spreads records evenly by key). shares: (killed partitions, partitions) per crash."""
    copying = sum(rate * killed / total for killed, total in shares if total > 0)
    if copying <= 0:
        return None
    return round(extra_copies / copying, 2)


def settle_seconds(flush_ms: int, draw: Callable[[float, float], float] = random.uniform) -> float:
    """How long the tasks copy after a restart before the next kill: a whole interval, so a commit
    happened since, and a random part of another, so each kill lands at a random point of the
    commit cycle (the replay is then between 0 and the interval)."""
    interval_s = flush_ms / 1000
    return round(interval_s + draw(0.0, interval_s) + KILL_MARGIN_S, 1)


def roll_workers(flush_ms: Optional[int]) -> float:
    """The workers rolled to `flush_ms` (None: the role's default); the seconds it took."""
    started = time.monotonic()
    run = lab.run_playbook("playbooks/connect.yml", {FLUSH_VARIABLE: flush_ms} if flush_ms is not None else None,
                           timeout=1800)
    if run.returncode != 0:
        raise RuntimeError(f"playbooks/connect.yml with {FLUSH_VARIABLE}={flush_ms} failed: {run.output[-3000:]}")
    return round(time.monotonic() - started, 1)


def task_hosts(name: str) -> list[str]:
    """The lab workers running the connector's tasks, by task id."""
    status = lab.connector_status(name) or {}
    tasks = sorted(status.get("tasks", []), key=lambda task: task.get("id", 0))
    return [host for host in (worker_host(str(task.get("worker_id", ""))) for task in tasks) if host in lab.CONNECT_WORKERS]


def next_victim(name: str, previous: Optional[str]) -> str:
    """A worker running tasks of the connector, another than the one killed last when there is one."""
    hosts = task_hosts(name)
    if not hosts:
        raise RuntimeError(f"{name}: no task runs on a lab worker")
    return next((host for host in hosts if host != previous), hosts[0])


def wait_tasks_back(name: str, host: str, timeout: float = 300) -> None:
    """The killed worker answers again and the connector's tasks all run (on whichever worker)."""
    drill.wait_service_active(host, WORKER_SERVICE)
    lab.wait_until(lambda: lab.connect_rest("GET", "/", worker=host)[0] == 200 or None, timeout, f"{host}'s REST API")
    lab.wait_until(lambda: flows.tasks_running(name) or None, timeout, f"the tasks of {name} to run again")


def wait_still(topic: str, at_least: int, timeout: float = 600) -> int:
    """The target topic's records once it holds `at_least` and its end offsets stopped moving."""
    last: dict[str, Any] = {"total": -1, "since": time.monotonic()}

    def still() -> Optional[int]:
        total = sum(lab.end_offsets(TARGET, topic).values())
        now = time.monotonic()
        if total != last["total"]:
            last.update(total=total, since=now)
            return None
        return total if total >= at_least and now - last["since"] >= STILL_S else None
    return lab.wait_until(still, timeout, f"{topic} to hold {at_least} records and stay still", interval=3)


def replay_run(cleanup: Cleanup, flow: flows.Flow, settings: Settings, flush_ms: int) -> dict[str, Any]:
    """settings.kills SIGKILLs under the paced load; the extra copies they left and what one crash
    replays on average, in seconds of the killed tasks' traffic."""
    label = str(flush_ms)
    topic = cleanup.topic(SOURCE, f"bench.{settings.run_id}.replay{label}")
    remote = cleanup.topic(TARGET, flow.remote_topic(topic))
    name = f"bench-{settings.run_id}-replay{label}"
    lab.create_topic(SOURCE, topic, PARTITIONS)
    lab.create_topic(TARGET, remote, PARTITIONS)
    cleanup.connectors.append(name)
    retry(lambda: flows.deploy(name, flow.config_for(name, topic)), f"deploy {name}")
    _status, task_configs = lab.connect_rest("GET", f"/connectors/{name}/tasks")
    partitions = partitions_per_task(task_configs, topic)
    producer = drill.start_producer(topic, settings.rate * settings.seconds, settings.rate, PARTITIONS)
    lab.wait_until(lambda: sum(lab.end_offsets(TARGET, remote).values()) > 0 or None, 120, f"the first records in {remote}")
    started = time.monotonic()
    kills: list[dict[str, Any]] = []
    victim: Optional[str] = None
    next_kill = settle_seconds(flush_ms)
    # Each kill waits for the tasks to copy again for a while: one during a restart replays little.
    while len(kills) < settings.kills and next_kill < settings.seconds - KILL_MARGIN_S:
        time.sleep(max(0.0, next_kill - (time.monotonic() - started)))
        victim = next_victim(name, victim)
        killed, total = killed_share(lab.connector_status(name) or {}, partitions, victim)
        drill.kill_service(victim, WORKER_SERVICE)
        kills.append({"host": victim, "at_s": round(time.monotonic() - started, 1), "partitions": killed, "of": total})
        wait_tasks_back(name, victim)
        next_kill = time.monotonic() - started + settle_seconds(flush_ms)
    drill.wait_producer(producer, timeout=settings.seconds + 600)
    source_records = sum(lab.end_offsets(SOURCE, topic).values())
    target_records = wait_still(remote, source_records)
    flows.remove(name)
    cleanup.connectors.remove(name)
    extra = target_records - source_records
    return {"source_records": source_records, "target_records": target_records, "extra_copies": extra, "kills": kills,
            "replayed_s": replayed_seconds(extra, settings.rate, [(kill["partitions"], kill["of"]) for kill in kills])}


def cost_run(cleanup: Cleanup, flow: flows.Flow, settings: Settings, backlog: str, label: str) -> measures.Drain:
    """The fastest of settings.drains drains of the backlog (a short drain varies from run to run)."""
    remote = flow.remote_topic(backlog)
    drained = []
    for attempt in range(settings.drains):
        retry(lambda: lab.create_topic(TARGET, cleanup.topic(TARGET, remote), PARTITIONS,
                                       "message.timestamp.type=LogAppendTime"), f"create {remote}")
        drained.append(drain(cleanup, flow, f"bench-{settings.run_id}-flush{label}-{attempt}", backlog,
                             settings.drain_records, settings.record_size))
        retry(lambda: lab.delete_topics(TARGET, remote), f"delete {remote}")
        lab.wait_until(lambda: remote not in lab.topic_names(TARGET), 60, f"{remote} to be deleted")
    return max(drained, key=lambda figure: figure.rate.records_per_s)


def measure(settings: Settings) -> dict[str, Any]:
    default_ms = role_default_ms()
    flow = flows.defaults_flow()
    backlog = f"bench.{settings.run_id}.flushcost"
    points: list[dict[str, Any]] = []
    cleanup = Cleanup()
    try:
        retry(lambda: lab.create_topic(SOURCE, cleanup.topic(SOURCE, backlog), PARTITIONS), f"create {backlog}")
        perf_tools.fill_topic(SOURCE, backlog, settings.drain_records, settings.record_size)
        for flush_ms in measuring_order(settings.flush_values_ms, default_ms):
            value_ms = default_ms if flush_ms is None else flush_ms
            print(f"offset.flush.interval.ms={value_ms}: rolling the workers")
            rolled_s = roll_workers(flush_ms)
            drained = cost_run(cleanup, flow, settings, backlog, str(value_ms))
            print(f"offset.flush.interval.ms={value_ms}: {settings.kills} worker SIGKILLs at {settings.rate} records/s")
            replay = replay_run(cleanup, flow, settings, value_ms)
            points.append({"flush_ms": value_ms, "role_default": flush_ms is None, "roll_s": rolled_s,
                           "drain": drained.as_dict(), **replay})
    finally:
        cleanup.run()
    return with_costs({"rate": settings.rate, "seconds": settings.seconds, "record_size": settings.record_size,
                       "drain_records": settings.drain_records, "role_default_ms": default_ms, "points": points})


def with_costs(figures: dict[str, Any]) -> dict[str, Any]:
    """Each interval's drain rate as a ratio to the fastest interval's: its throughput cost."""
    rates = [point["drain"]["records_per_s"] for point in figures["points"]]
    best = max(rates, default=0.0)
    for point, rate in zip(figures["points"], rates):
        point["drain_ratio_to_best"] = measures.ratio(rate, best)
    return figures
