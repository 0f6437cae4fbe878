"""Where the CPU goes while the lab copies: per container, and per group of JVM threads, the CPU
time a measured block (the timed half of a drain) used, per record it copied.

Two samples, before and after: each lab container's cgroup CPU time (read on the host), and the
CPU ticks of every thread of the JVMs in it by thread name (Linux keeps the first 15 characters
of a Java thread's name). Threads that ended between the samples (a tool JVM that came and went)
count in their container's total only. The parsing and the grouping are pure (unit tested); the
samples go through `docker exec`.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

# Runs in each container with its python3: one line per Java thread name with its user + system
# ticks summed over the JVMs.
SAMPLER = r"""
import os
ticks = {}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        if open("/proc/%s/comm" % pid).read().strip() != "java":
            continue
        for tid in os.listdir("/proc/%s/task" % pid):
            stat = open("/proc/%s/task/%s/stat" % (pid, tid)).read()
            name, fields = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
            ticks[name] = ticks.get(name, 0) + int(fields[11]) + int(fields[12])
    except (OSError, ValueError):
        continue
for name, value in ticks.items():
    print("thread", value, name, sep="\t")
"""
CLOCK_TICKS_PER_S = 100  # USER_HZ on Linux

# Thread names (their first 15 characters) and the group they are reported in: the threads that
# move records, then the JVM's own work. Anything else is reported as "other".
THREAD_GROUPS: tuple[tuple[str, str], ...] = (
    ("task-thread-", "connector task threads (consumer poll: fetch, TLS, decompression; send: compression)"),
    ("kafka-producer-", "producer network threads (TLS, requests)"),
    ("data-plane-kafk", "broker network threads and request handlers (TLS, log appends)"),
    ("GC Thread", "garbage collection"),
    ("G1 ", "garbage collection"),
    ("C2 CompilerThre", "JIT compiler"),
    ("C1 CompilerThre", "JIT compiler"),
)
OTHER = "other"


# Where the host keeps a container's CPU time (its cgroup, seen from the host: inside, a cgroup v1
# container sees the host's root): cgroup v1 with the cgroupfs driver, v2 with systemd, v2 with
# cgroupfs.
CGROUP_CPU_FILES = (
    ("/sys/fs/cgroup/cpuacct/docker/{id}/cpuacct.usage", 1e-3),
    ("/sys/fs/cgroup/system.slice/docker-{id}.scope/cpu.stat", 1.0),
    ("/sys/fs/cgroup/docker/{id}/cpu.stat", 1.0),
)


def parse_cgroup_usec(text: str, scale: float) -> int:
    """A cgroup's CPU time in microseconds: cpuacct.usage (nanoseconds, scale 1e-3) or cpu.stat's
    usage_usec line (scale 1)."""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 1:
            return int(int(parts[0]) * scale)
        if len(parts) == 2 and parts[0] == "usage_usec":
            return int(int(parts[1]) * scale)
    raise ValueError(f"no CPU time in {text[:200]!r}")


def container_cpu_usec(host: str) -> int:
    """The container's CPU time from its cgroup on the host."""
    container_id = subprocess.run(["docker", "inspect", "-f", "{{.Id}}", host], capture_output=True, text=True,
                                  timeout=60, check=True).stdout.strip()
    for pattern, scale in CGROUP_CPU_FILES:
        path = Path(pattern.format(id=container_id))
        if path.exists():
            return parse_cgroup_usec(path.read_text(), scale)
    raise ValueError(f"no cgroup CPU file for {host}")


def thread_group(name: str) -> str:
    return next((group for prefix, group in THREAD_GROUPS if name.startswith(prefix)), OTHER)


@dataclass
class Sample:
    """One container at one moment: its cgroup CPU time and its JVM threads' ticks by group."""

    cgroup_usec: int
    group_ticks: dict[str, int] = field(default_factory=dict)


def parse_sample(output: str, cgroup_usec: int) -> Sample:
    """The SAMPLER's lines, the thread ticks summed by thread_group."""
    sample = Sample(cgroup_usec)
    for line in output.splitlines():
        parts = line.split("\t")
        if parts[0] == "thread" and len(parts) == 3:
            group = thread_group(parts[2])
            sample.group_ticks[group] = sample.group_ticks.get(group, 0) + int(parts[1])
    return sample


def cpu_seconds_between(before: Sample, after: Sample) -> dict[str, float]:
    """CPU seconds a container used between two samples: its JVMs' threads by group (a group that
    only appears in `after`, threads started in between, counts from zero), their sum ("jvm"),
    and the whole container ("container", with every short-lived process, such as the benchmark's
    own offset polls)."""
    used = {"container": (after.cgroup_usec - before.cgroup_usec) / 1e6}
    for group, ticks in after.group_ticks.items():
        group_ticks = ticks - before.group_ticks.get(group, 0)
        if group_ticks > 0:
            used[group] = group_ticks / CLOCK_TICKS_PER_S
    used["jvm"] = sum(value for name, value in used.items() if name != "container")
    return used


def per_record_us(cpu_seconds: dict[str, dict[str, float]], records: int) -> dict[str, dict[str, float]]:
    """Microseconds of CPU per record copied, per container and group: unlike cores over a span,
    it does not depend on how long the measurement waited around the copy."""
    if records <= 0:
        raise ValueError("a profile per record needs records")
    return {host: {name: round(value * 1e6 / records, 1) for name, value in used.items()}
            for host, used in cpu_seconds.items()}


def sample(host: str) -> Sample:
    done = subprocess.run(["docker", "exec", host, "python3", "-c", SAMPLER], capture_output=True, text=True,
                          timeout=60, check=True)
    return parse_sample(done.stdout, container_cpu_usec(host))


class Profile:
    """Samples `hosts` at start() and stop(): the CPU seconds each container used in between, in
    total and by thread group. A failed sample leaves the profile empty rather than failing the
    measurement it watches."""

    def __init__(self, hosts: Sequence[str]) -> None:
        self.hosts = tuple(hosts)
        self.seconds = 0.0
        self.cpu_seconds: dict[str, dict[str, float]] = {}
        self._before: Optional[dict[str, Sample]] = None
        self._started = 0.0

    def _sample_all(self) -> Optional[dict[str, Sample]]:
        try:
            return {host: sample(host) for host in self.hosts}
        except (subprocess.SubprocessError, OSError, ValueError) as error:
            print(f"  no CPU profile: {error}")
            return None

    def start(self) -> None:
        self._before = self._sample_all()
        self._started = time.monotonic()

    def stop(self) -> None:
        if self._before is None:
            return
        after = self._sample_all()
        if after is None:
            return
        self.seconds = time.monotonic() - self._started
        self.cpu_seconds = {host: cpu_seconds_between(self._before[host], after[host]) for host in self.hosts}

    def as_dict(self, records: int) -> dict[str, object]:
        """The profile of a span in which `records` records were copied; empty when not sampled."""
        if not self.cpu_seconds or records <= 0:
            return {}
        per_record = per_record_us(self.cpu_seconds, records)
        return {"seconds": round(self.seconds, 1), "records": records, "cpu_us_per_record": per_record,
                "total_cpu_us_per_record": round(sum(used["jvm"] for used in per_record.values()), 1)}
