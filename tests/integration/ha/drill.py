"""Drills on the three-node lab (LAB_SHAPE=ha): a paced producer on the source, faults injected
into the lab's own containers, and the PySpark validator's verdict at the end.

Every fault targets only the containers of inventories/lab-ha on their own docker networks.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

from tests.integration import lab

PREVIOUS_VERSION = os.environ.get("KAFKA_DR_PREVIOUS_VERSION", "4.2.0")
CURRENT_VERSION = "4.3.1"
SOURCE_NETWORK = "kafka-dr-lab-ha-source"
BROKER_SERVICE = "kafka-broker"
WORKER_SERVICE = "kafka-connect"
RUN_ID = f"{int(time.time()) % 10**8:08d}"
REPORTS = lab.REPO_ROOT / "build" / f"ha-{RUN_ID}"
FIGURES = lab.REPO_ROOT / "build" / "ha-figures.jsonl"

# Paces records onto stdout (key TAB value), RATE per second: the console producer on the
# source broker reads them. Values are unique, so the validator can tell missing from duplicate.
_PACER = """
import sys, time
count, rate, prefix = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
started = time.time()
for index in range(count):
    pause = started + index / rate - time.time()
    if pause > 0:
        sys.stdout.flush()
        time.sleep(pause)
    sys.stdout.write("k%d\\t%s-%d\\n" % (index, prefix, index))
sys.stdout.flush()
"""


class HaLab:
    """The extra vars every playbook run of the session carries: the Kafka version the lab runs
    now, and whatever a drill added to the model (a flow, a broker setting)."""

    def __init__(self) -> None:
        self.extra: dict[str, Any] = {"kafka_install_version": PREVIOUS_VERSION}

    def playbook(self, playbook: str, extra: Optional[dict[str, Any]] = None, *options: str,
                 timeout: int = 1800) -> lab.PlaybookRun:
        return lab.run_playbook(playbook, dict(self.extra, **(extra or {})), *options, timeout=timeout)


def docker(*args: str, timeout: int = 120) -> str:
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"docker {' '.join(args[:3])}: {done.stderr[-1500:]}")
    return done.stdout


def record_figures(name: str, **values: Any) -> None:
    """Appends a drill's figures to build/ha-figures.jsonl and prints them (pytest -s)."""
    line = json.dumps(dict(drill=name, run=RUN_ID, **values), sort_keys=True)
    print(f"\nHA DRILL {line}")
    FIGURES.parent.mkdir(exist_ok=True)
    with FIGURES.open("a", encoding="utf-8") as figures_file:
        figures_file.write(line + "\n")


# ---- the producer -------------------------------------------------------------------------------

def start_producer(topic: str, count: int, rate: int, partitions: int = 3) -> subprocess.Popen:
    """The console producer on the source broker (its own admin listener: TLS with the broker
    certificate), acks=all with idempotence, fed by the pacer; the topic is created first."""
    lab.create_topic(lab.SOURCE_BROKER, topic, partitions)
    producer = (f"python3 -c '{_PACER}' {count} {rate} {topic} | {lab.KAFKA_RUN} "
                "org.apache.kafka.tools.ConsoleProducer "
                f"--bootstrap-server {lab.bootstrap(lab.SOURCE_BROKER)} --command-config {lab.ADMIN_CLIENT_CONFIG} "
                f"--topic {topic} --reader-property parse.key=true "
                "--producer-property acks=all --producer-property enable.idempotence=true "
                "--producer-property linger.ms=5")
    return subprocess.Popen(["docker", "exec", lab.SOURCE_BROKER, "bash", "-c", producer],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_producer(producer: subprocess.Popen, timeout: float = 600) -> None:
    _stdout, stderr = producer.communicate(timeout=timeout)
    assert producer.returncode == 0, f"producer exited {producer.returncode}: {stderr[-2000:]}"


def offsets_total(host: str, topic: str) -> int:
    return sum(lab.end_offsets(host, topic).values())


class Sampler:
    """A background thread, for the length of a `with` block, that appends what `sample` returns
    (None: nothing this time) to `samples`, then waits `interval` seconds."""

    interval = 1.0

    def __init__(self) -> None:
        self.samples: list[Any] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> Any:
        raise NotImplementedError

    def __enter__(self) -> "Sampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=60)

    def _run(self) -> None:
        while not self._stop.is_set():
            found = self.sample()
            if found is not None:
                self.samples.append(found)
            self._stop.wait(self.interval)


class ProgressWatch(Sampler):
    """Samples the remote topic's end offsets on the target, every two seconds or so, while a drill
    runs: the longest time any partition made no progress while the source had records for it
    is the drill's stall, the time replication took to resume after the fault."""

    interval = 2.0

    def __init__(self, remote_topic: str) -> None:
        super().__init__()
        self.remote_topic = remote_topic

    def sample(self) -> Optional[tuple[float, dict[int, int]]]:
        for broker in lab.TARGET_BROKERS:  # any broker answers; the first may be the one down
            try:
                return time.time(), lab.end_offsets(broker, self.remote_topic)
            except (RuntimeError, subprocess.TimeoutExpired):
                continue
        return None

    def longest_stall(self, final: dict[int, int]) -> float:
        """The longest gap between two samples that showed a partition moving, from its first
        replicated record until it reached `final` (the source's end offsets once the producer
        finished). About 2-4 s when nothing happened: the sampling's own resolution."""
        longest = 0.0
        for partition, goal in final.items():
            last_offset, last_progress = 0, None
            for at, offsets in self.samples:
                offset = offsets.get(partition, 0)
                if offset > last_offset:
                    if last_progress is not None:
                        longest = max(longest, at - last_progress)
                    last_offset, last_progress = offset, at
                if offset >= goal:
                    break
        return round(longest, 1)


# ---- faults -------------------------------------------------------------------------------------

def kill_service(host: str, service: str) -> None:
    """SIGKILL to the service's processes: no shutdown hook runs. systemd starts it again
    (Restart=on-failure, 5 s)."""
    docker("exec", host, "systemctl", "kill", "--signal=KILL", service)


def wait_service_active(host: str, service: str, timeout: float = 180) -> None:
    def active() -> Optional[bool]:
        done = subprocess.run(["docker", "exec", host, "systemctl", "is-active", service],
                              capture_output=True, text=True, check=False)
        return True if done.stdout.strip() == "active" else None
    lab.wait_until(active, timeout, f"{service} active on {host}")


class BrokerWatch(Sampler):
    """Samples, about once a second, how many target brokers accept connections on their client
    listener, probed from a worker with a plain TCP connect: the fewest up at any sample."""

    interval = 0.5
    PROBE = ("import socket, sys\n"
             "up = 0\n"
             "for host in sys.argv[1:]:\n"
             "    try:\n"
             "        socket.create_connection((host, %d), timeout=1).close(); up += 1\n"
             "    except OSError:\n"
             "        pass\n"
             "print(up)\n") % lab.CLIENT_PORT

    def __init__(self, brokers: tuple[str, ...]) -> None:
        super().__init__()
        self.brokers = brokers

    def sample(self) -> Optional[int]:
        done = subprocess.run(["docker", "exec", lab.CONNECT_WORKERS[-1], "python3", "-c", self.PROBE,
                               *self.brokers], capture_output=True, text=True, check=False, timeout=30)
        return int(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip().isdigit() else None

    @property
    def fewest_up(self) -> int:
        return min(self.samples) if self.samples else -1


# ---- the verdict --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Verdict:
    verdict: str
    totals: dict[str, int]
    duplicate_partitions: dict[str, int]
    duplicate_severity: str
    run: lab.PlaybookRun


# At-least-once: a task that dies re-sends what it wrote since its last offset commit (about 10 s
# of a partition's records here), so a one-minute drill's duplicates can pass a tenth of its
# records. The drills' budget: a quarter, a warning below it.
DUPLICATE_BUDGET_RATIO = 0.25


def validate(halab: HaLab, flow: str, topic: str) -> Verdict:
    """The validation play (PySpark job on the first task node) over one drill topic."""
    reports = REPORTS / topic
    run = halab.playbook("playbooks/validate.yml", {
        "replication_check_flow": flow, "replication_check_topics": [topic], "replication_check_groups": [],
        "replication_check_max_duplicate_ratio": DUPLICATE_BUDGET_RATIO,
        "replication_check_reports_dir": str(reports)})
    found = list(reports.glob("*-replication-report.json"))
    assert found, f"no validator report for {topic}:\n{run.output[-4000:]}"
    report = json.loads(found[0].read_text())
    duplicates = {f"{entry['target_topic']}-{partition['partition']}": partition["problems"]["duplicate"]
                  for entry in report["topics"] for partition in entry["partitions"]
                  if partition["problems"]["duplicate"]}
    return Verdict(report["verdict"], report["totals"], duplicates, report["duplicate_budget"]["severity"], run)


def during(producer_seconds: float, *steps: tuple[float, Callable[[], None]]) -> list[float]:
    """Runs each step at its offset (seconds) from now while a producer runs; returns when each ran."""
    started = time.time()
    ran = []
    for offset, step in steps:
        pause = started + offset - time.time()
        if pause > 0:
            time.sleep(pause)
        step()
        ran.append(time.time())
    assert time.time() - started < producer_seconds + 120, "the drill's steps outlasted its producer"
    return ran


def path_exists(host: str, path: str) -> bool:
    return subprocess.run(["docker", "exec", host, "test", "-e", path], check=False).returncode == 0


def read_link(host: str, path: str) -> str:
    return docker("exec", host, "readlink", "-f", path).strip()
