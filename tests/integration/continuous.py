"""Role replication_check's continuous verification on a lab node, as the drills
(tests/integration/verification) and the benchmark (bench/verification_cost.py) read and remove it:
the exporter's samples, a flow's timer and service, and its removal with its state."""

from __future__ import annotations

import re
import subprocess
from typing import Optional

STATE_DIR = "/var/lib/kafka-dr/validator"
EXPORTER_PORT = 9407
EXPORTER_SERVICE = "kafka-dr-verification"

Sample = tuple[str, dict[str, str], float]
METRIC_LINE = re.compile(r"^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>[^}]*)\})?\s+(?P<value>\S+)$")
LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def unit(flow: str) -> str:
    return f"kafka-dr-verify-{flow}"


def parse(text: str) -> list[Sample]:
    """Prometheus text format as (name, labels, value) per sample."""
    samples = []
    for line in text.splitlines():
        match = METRIC_LINE.match(line.strip())
        if match and not line.startswith("#"):
            samples.append((match["name"], dict(LABEL.findall(match["labels"] or "")), float(match["value"])))
    return samples


def metrics(node: str) -> list[Sample]:
    """The exporter's /metrics, read on its node."""
    done = subprocess.run(["docker", "exec", node, "python3", "-c", "import urllib.request, sys; sys.stdout.write(urllib.request."
                           f"urlopen('http://127.0.0.1:{EXPORTER_PORT}/metrics', timeout=10).read().decode())"],
                          capture_output=True, text=True, check=False, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"the verification exporter on {node}: {done.stderr[-1000:]}")
    return parse(done.stdout)


def per_partition(samples: list[Sample], name: str, flow: str, topic: str) -> dict[int, float]:
    return {int(labels["partition"]): value for metric, labels, value in samples
            if metric == f"kafka_dr_verification_{name}" and labels.get("flow") == flow and labels.get("topic") == topic}


def flow_figure(samples: list[Sample], name: str, flow: str) -> Optional[float]:
    return next((value for metric, labels, value in samples
                 if metric == f"kafka_dr_verification_{name}" and labels.get("flow") == flow), None)


def service_state(node: str, flow: str) -> str:
    done = subprocess.run(["docker", "exec", node, "systemctl", "show", f"{unit(flow)}.service", "-p", "ActiveState", "--value"],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip()


def remove(node: str, flow: str) -> None:
    """A flow's timer, service, state and reports; the exporter too when no other flow is left.
    (`replication_check_continuous: false` leaves installed units alone, as an operator's would.)"""
    name = unit(flow)
    script = (f"systemctl disable --now {name}.timer; systemctl stop {name}.service; systemctl reset-failed {name}.service; "
              f"rm -f /etc/systemd/system/{name}.service /etc/systemd/system/{name}.timer {STATE_DIR}/{flow}.*; "
              f"rm -rf {STATE_DIR}/reports/{flow}; "
              f"if ! ls {STATE_DIR}/*.prom >/dev/null 2>&1; then systemctl disable --now {EXPORTER_SERVICE}; "
              f"rm -f /etc/systemd/system/{EXPORTER_SERVICE}.service; fi; systemctl daemon-reload")
    subprocess.run(["docker", "exec", node, "sh", "-c", script], capture_output=True, text=True, check=False, timeout=120)
