"""Credential rotation drills on the default lab: a paced producer on a topic of the lab's flow
(src -> dst, topics foo.*) while site.yml changes a credential, then the Connect REST status
seen during the change, the workers' logs of the change window, and the validator's verdict.

The producer, the progress watch and the validator are those of tests/integration/ha/drill.py.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Optional

from tests.integration.ha import drill
from tests.integration import lab

FIGURES = lab.REPO_ROOT / "build" / "rotation-figures.jsonl"
FLOW = "src->dst"
SOURCE_ALIAS = "src"
WORKER_LOG = "/var/log/kafka/connect/connect.log"
WORKER_SERVICE = "kafka-connect"
# What a refused credential or certificate leaves in a worker's log; a task that dies says
# the last one.
AUTH_ERRORS = ("SaslAuthenticationException", "SSLHandshakeException", "SslAuthenticationException",
               "Authentication failed", "unrecoverable exception")
# Records per second of the drills' producers.
RATE = 40


class RotationLab(drill.HaLab):
    """Playbook runs on the default lab, at its own Kafka version (no extra vars)."""

    def __init__(self) -> None:
        super().__init__()
        self.extra = {}


def drill_topic(name: str) -> str:
    """A fresh topic of the flow's pattern (foo\\..*) per drill and run."""
    return f"foo.rotation-{name}-{drill.RUN_ID}"


def new_password() -> str:
    """32 characters from [0-9a-f]: nothing a JAAS value would have to escape."""
    return secrets.token_hex(16)


def write_secret(name: str, value: str) -> None:
    """A new value in the lab's secret file: the inventory's password lookups read it as the
    account's password from now on (the file is the source of truth, never printed)."""
    path = lab.REPO_ROOT / lab.LAB_STATE_DIR / "secrets" / name
    path.write_text(value + "\n", encoding="utf-8")
    path.chmod(0o600)


def other_scram_mechanism(mechanism: str) -> str:
    return next(other for other in lab.MM2_PASSWORD_KEYS if other != mechanism)


def record_scram_mechanism(mechanism: str) -> None:
    """The lab's clients use `mechanism` from now on (the inventory's lab_scram_mechanism reads it)."""
    (lab.REPO_ROOT / lab.LAB_STATE_DIR / "scram-mechanism").write_text(mechanism + "\n", encoding="utf-8")


def record_figures(name: str, **values: Any) -> None:
    """Appends a drill's figures to build/rotation-figures.jsonl and prints them (pytest -s)."""
    line = json.dumps(dict(drill=name, run=drill.RUN_ID, **values), sort_keys=True)
    print(f"\nROTATION DRILL {line}")
    FIGURES.parent.mkdir(exist_ok=True)
    with FIGURES.open("a", encoding="utf-8") as figures_file:
        figures_file.write(line + "\n")


# ---- what the Connect cluster showed during the change ----------------------------------------

class StatusWatch(drill.Sampler):
    """Samples every connector's and task's state through the REST API (any worker that answers,
    as one of them may be restarting): each FAILED unit seen, with the time it was seen."""

    interval = 2.0

    def __init__(self) -> None:
        super().__init__()
        self.connectors: list[str] = []

    def sample(self) -> Optional[list[str]]:
        for worker in lab.CONNECT_WORKERS:
            try:
                status, names = lab.connect_rest("GET", "/connectors?expand=status", worker=worker)
            except (RuntimeError, subprocess.TimeoutExpired, ValueError):
                continue
            if status != 200 or not isinstance(names, dict):
                continue
            self.connectors = sorted(names)
            return failed_units(names)
        return None

    @property
    def failed(self) -> list[str]:
        return sorted({unit for found in self.samples for unit in found})


def failed_units(expanded: dict[str, Any]) -> list[str]:
    """'<connector>' or '<connector>/<task id>' of each FAILED unit of GET /connectors?expand=status."""
    failed = []
    for name, entry in expanded.items():
        status = entry.get("status", {})
        if status.get("connector", {}).get("state") == "FAILED":
            failed.append(name)
        failed += [f"{name}/{task['id']}" for task in status.get("tasks", []) if task.get("state") == "FAILED"]
    return failed


_LOG_SCAN = """
import sys
since, path, patterns = sys.argv[1], sys.argv[2], sys.argv[3:]
found, inside = [], False
for line in open(path, errors='replace'):
    if line.startswith('['):
        inside = line[1:20] >= since
    if inside and any(pattern in line for pattern in patterns):
        found.append(line.strip()[:300])
print('\\n'.join(found))
"""


def worker_log_errors(since: float) -> dict[str, list[str]]:
    """Lines of each worker's connect.log (log4j time stamps, UTC) and of its journal since `since`
    that name an authentication failure or a task that died."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(since))
    found = {}
    for worker in lab.CONNECT_WORKERS:
        log = drill.docker("exec", worker, "python3", "-c", _LOG_SCAN, stamp, WORKER_LOG, *AUTH_ERRORS)
        journal = drill.docker("exec", worker, "journalctl", "-u", WORKER_SERVICE, "--no-pager", "-o", "cat",
                               "--since", f"@{int(since)}")
        lines = [line for line in log.splitlines() if line.strip()]
        lines += [line.strip()[:300] for line in journal.splitlines() if any(p in line for p in AUTH_ERRORS)]
        if lines:
            found[worker] = lines[:20]
    return found


def worker_restarts(since: float) -> dict[str, int]:
    """How many times systemd started each worker since `since`: the change's rolling restarts."""
    counts = {}
    for worker in lab.CONNECT_WORKERS:
        journal = drill.docker("exec", worker, "journalctl", "-u", WORKER_SERVICE, "--no-pager", "-o", "cat",
                               "--since", f"@{int(since)}")
        counts[worker] = sum(1 for line in journal.splitlines() if line.startswith("Started "))
    return counts


# ---- the producer --------------------------------------------------------------------------------

class PacedProducer:
    """The console producer on the source broker, set up as drill.start_producer sets it up (its
    admin listener, acks=all, idempotence), but fed from this process at `rate` records per second
    until stop(): a change of unknown length is covered from before it starts until after it
    ends. Values are unique per topic, so the validator tells missing from duplicate."""

    def __init__(self, topic: str, rate: int = RATE, partitions: int = 3) -> None:
        lab.create_topic(lab.SOURCE_BROKER, topic, partitions)
        self.topic, self.rate, self.sent = topic, rate, 0
        # The producer's own log goes to a file: a pipe nobody reads would block it.
        self.log_path = lab.REPO_ROOT / "build" / f"rotation-producer-{topic}.log"
        self.log_path.parent.mkdir(exist_ok=True)
        self._log = self.log_path.open("w", encoding="utf-8")
        command = (f"{lab.KAFKA_RUN} org.apache.kafka.tools.ConsoleProducer "
                   f"--bootstrap-server {lab.bootstrap(lab.SOURCE_BROKER)} --command-config {lab.ADMIN_CLIENT_CONFIG} "
                   f"--topic {topic} --reader-property parse.key=true "
                   "--producer-property acks=all --producer-property enable.idempotence=true "
                   "--producer-property linger.ms=5")
        self.process = subprocess.Popen(["docker", "exec", "-i", lab.SOURCE_BROKER, "bash", "-c", command],
                                        stdin=subprocess.PIPE, stdout=self._log, stderr=subprocess.STDOUT, text=True)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._feed, daemon=True)
        self._thread.start()

    def _feed(self) -> None:
        assert self.process.stdin is not None
        started = time.monotonic()
        while not self._stop.is_set():
            due = int((time.monotonic() - started) * self.rate)
            lines = [f"k{index}\t{self.topic}-{index}\n" for index in range(self.sent, due)]
            if lines:
                self.process.stdin.write("".join(lines))
                self.process.stdin.flush()
                self.sent = due
            self._stop.wait(0.05)

    def running(self) -> bool:
        return self.process.poll() is None and self._thread.is_alive()

    def stop(self, timeout: float = 300) -> int:
        """Ends the input: the console producer sends what it holds, then exits. Returns the lines fed."""
        self._stop.set()
        self._thread.join(timeout=30)
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=timeout)
        self._log.close()
        assert self.process.returncode == 0, (f"producer exited {self.process.returncode}: "
                                              f"{self.log_path.read_text()[-2000:]}")
        return self.sent


# ---- one change under load ---------------------------------------------------------------------

@dataclass
class Change:
    """One site.yml run under a paced producer, and what was seen meanwhile."""
    name: str
    seconds: float = 0.0
    run: Optional[lab.PlaybookRun] = None
    produced: int = 0
    producer_outlived_change: bool = False
    failed_units: list[str] = field(default_factory=list)
    log_errors: dict[str, list[str]] = field(default_factory=dict)
    restarts: dict[str, int] = field(default_factory=dict)
    stall: float = 0.0


def change_under_load(rotlab: RotationLab, name: str, extra: Optional[dict[str, Any]],
                      margin_seconds: float = 15) -> Change:
    """Starts a producer on a fresh topic, lets replication run `margin_seconds`, runs site.yml
    (with `extra`), lets the producer write `margin_seconds` more, then stops it and waits until
    the target holds every record. The checks' window runs from the start of the site.yml run."""
    topic = drill_topic(name)
    change = Change(name)
    producer = PacedProducer(topic)
    with StatusWatch() as status, drill.ProgressWatch(f"{SOURCE_ALIAS}.{topic}") as progress:
        time.sleep(margin_seconds)
        started = time.time()
        change.run = rotlab.playbook("site.yml", extra, "--skip-tags", "validate")
        change.seconds = round(time.time() - started, 1)
        time.sleep(margin_seconds)
        change.producer_outlived_change = producer.running()
        producer.stop()
        final = lab.end_offsets(lab.SOURCE_BROKER, topic)
        lab.wait_until(lambda: caught_up(f"{SOURCE_ALIAS}.{topic}", final) or None, 180,
                       f"{SOURCE_ALIAS}.{topic} to catch up")
    change.produced = sum(final.values())
    change.failed_units = status.failed
    change.log_errors = worker_log_errors(started)
    change.restarts = worker_restarts(started)
    change.stall = progress.longest_stall(final)
    return change


def caught_up(remote_topic: str, final: dict[int, int]) -> bool:
    """Every partition of the remote topic at least as long as the source's: at-least-once delivery
    may add duplicates (the validator counts them), so equal offsets cannot be the test."""
    target = lab.end_offsets(lab.TARGET_BROKER, remote_topic)
    return all(target.get(partition, 0) >= offset for partition, offset in final.items())


def topic_of(change: Change) -> str:
    return drill_topic(change.name)


def assert_clean(change: Change) -> None:
    """The change's run passed, the producer wrote during all of it, and the Connect cluster saw no
    FAILED connector or task and no authentication error."""
    assert change.run is not None and change.run.returncode == 0, f"site.yml failed:\n{change.run.output[-6000:]}"
    assert change.producer_outlived_change, f"the producer of {change.name} ended before the change did"
    assert change.failed_units == [], f"FAILED during {change.name}: {change.failed_units}"
    assert change.log_errors == {}, f"authentication errors during {change.name}: {change.log_errors}"


def assert_idempotent(rotlab: RotationLab, extra: Optional[dict[str, Any]] = None) -> lab.PlaybookRun:
    """A second site.yml run with the same inventory changes nothing."""
    again = rotlab.playbook("site.yml", extra, "--skip-tags", "validate")
    assert again.returncode == 0, again.output[-4000:]
    changed = {host: counters["changed"] for host, counters in again.recap().items() if counters.get("changed")}
    assert changed == {}, f"second run changed {changed}:\n{changed_tasks(again.output)}"
    return again


def changed_tasks(output: str) -> str:
    """The task headers followed by a changed line, to say what a rerun changed."""
    lines, task = [], ""
    for line in output.splitlines():
        if line.startswith("TASK ["):
            task = line
        elif line.startswith("changed:") and task:
            lines.append(task)
            task = ""
    return "\n".join(lines)


def verdict_figures(rotlab: RotationLab, changes: list[Change]) -> dict[str, Any]:
    """The validator over each change's topic: records, missing and duplicates summed."""
    figures = {"records": 0, "missing": 0, "duplicates": 0, "verdicts": []}
    for change in changes:
        verdict = drill.validate(rotlab, FLOW, topic_of(change))
        figures["records"] += verdict.totals.get("source_records", 0)
        figures["missing"] += verdict.totals.get("missing", 0)
        figures["duplicates"] += verdict.totals.get("duplicate", 0)
        figures["verdicts"].append(verdict.verdict)
    return figures
