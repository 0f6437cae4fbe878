# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the restart watchdog's unit tests share: the settable clock, the fake worker's connector,
a watchdog on it, the requests and log lines to assert on, and the package installed as role
connect_worker installs it (tasks/auto_restart.yml), run as its systemd unit runs it."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest
import yaml

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_client import ConnectClient
from ansible_collections.kafka_dr.mm2.plugins.module_utils.prometheus_text import Sample, parse_exposition
from connect_watchdog.decisions import UnitKey
from connect_watchdog.rest import ExporterError
from connect_watchdog.stalls import CONSUMER_LAG_METRIC, WRITE_TOTAL_METRIC
from connect_watchdog.state import StateStore
from connect_watchdog.watchdog import Watchdog
from fake_connect import WORKER_ID, FakeConnect

REPO_ROOT = Path(__file__).resolve().parents[3]
ROLE = REPO_ROOT / 'roles' / 'connect_worker'
PACKAGE = ROLE / 'files' / 'connect_watchdog'
MODULE_UTILS = REPO_ROOT / 'plugins' / 'module_utils'

OTHER_WORKER = '127.0.0.2:8083'
MINUTE = 60.0
HOUR_SECONDS = 3600.0
CONFIG = {'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector', 'tasks.max': '2'}
TRACE = 'org.apache.kafka.common.errors.TopicAuthorizationException: Not authorized to access topics: [src.orders]\n' \
        '\tat org.apache.kafka.connect.runtime.AbstractWorkerSourceTask.sendRecords(AbstractWorkerSourceTask.java:420)\n'
REST_PASSWORD = 'rest-pw-never-logged'
CONNECTOR = 'mm2-src-dst-source'
TASK_0, TASK_1 = UnitKey(CONNECTOR, 0), UnitKey(CONNECTOR, 1)
SCRAPE_PASSWORD = 'scrape-pw-never-logged'


class Clock:
    """A settable clock for the watchdog (seconds)."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class FakeExporter:
    """The worker's exporter page as the JMX exporter writes it: a write counter per task and the
    consumer lag per source partition. `error` makes the next reads fail."""

    url = 'http://127.0.0.1:9404/metrics'

    def __init__(self) -> None:
        self.written: Dict[UnitKey, float] = {}
        self.lag: Dict[UnitKey, Dict[int, float]] = {}
        self.error: Optional[str] = None
        self.reads = 0

    def set(self, key: UnitKey, written: float, *lags: float) -> None:
        self.written[key] = written
        self.lag[key] = dict(enumerate(lags))

    def remove(self, key: UnitKey) -> None:
        self.written.pop(key, None)
        self.lag.pop(key, None)

    def page(self) -> str:
        lines = ['# TYPE %s counter' % WRITE_TOTAL_METRIC]
        lines += ['%s{connector="%s",task="%d"} %r' % (WRITE_TOTAL_METRIC, key.connector, key.task, value)
                  for key, value in self.written.items()]
        lines.append('# TYPE %s gauge' % CONSUMER_LAG_METRIC)
        lines += ['%s{connector="%s",partition="%d",source="src",source_topic="orders",target="dst",task="%d"} %r'
                  % (CONSUMER_LAG_METRIC, key.connector, partition, key.task, value)
                  for key, partitions in self.lag.items() for partition, value in partitions.items()]
        return '\n'.join(lines).replace('nan', 'NaN') + '\n'

    def read(self) -> List[Sample]:
        self.reads += 1
        if self.error:
            raise ExporterError(self.error)
        return parse_exposition(self.page())


def client_for(fake: FakeConnect, **options: object) -> ConnectClient:
    return ConnectClient([fake.url], retry_timeout=0.5, retry_backoff=0.01, timeout=5, **options)  # type: ignore[arg-type]


def watchdog_for(fake: FakeConnect, clock: Clock, state_file: Path, max_restarts: int = 0, **options: object) -> Watchdog:
    return Watchdog(client_for(fake, **options), WORKER_ID, StateStore(str(state_file)), max_restarts, clock=clock)


def restart_requests(fake: FakeConnect) -> List[Tuple[str, str]]:
    """(path, query) of the restart requests the fake received."""
    return [(request.path, '&'.join('%s=%s' % (key, value[0]) for key, value in sorted(request.query.items())))
            for request in fake.writes() if request.path.endswith('/restart')]


def restart_lines(caplog: pytest.LogCaptureFixture) -> List[str]:
    return [record.getMessage() for record in caplog.records if record.getMessage().startswith('restart ')]


def settings(**changes: object) -> dict:
    base = {'urls': ['https://task-1-1:8083'], 'worker_id': 'task-1-1:8083', 'state_file': '/var/lib/w/state.json',
            'poll_interval': 30, 'max_restarts': 0, 'metrics_address': '0.0.0.0', 'metrics_port': 9405,
            'username': 'operator', 'password': REST_PASSWORD, 'ca_path': '/etc/kafka/tls/ca.pem', 'validate_certs': True}
    base.update(changes)
    return base


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


# ---- the package as the role ships it ---------------------------------------------------------

def watchdog_block_vars() -> Dict[str, object]:
    """The variables of the role's block that runs the watchdog (tasks/auto_restart.yml)."""
    tasks = yaml.safe_load((ROLE / 'tasks' / 'auto_restart.yml').read_text())
    block = next(task for task in tasks if task['name'] == 'Run the restart watchdog')
    return block['vars']


def shared_modules() -> List[str]:
    """The collection's module_utils files the role ships into the package."""
    return list(watchdog_block_vars()['__connect_worker_watchdog_shared_modules'])  # type: ignore[call-overload]


def package_modules() -> List[Path]:
    return sorted(PACKAGE.glob('*.py'))


def install_package(home: Path) -> Path:
    """The package and the shared modules in home/connect_watchdog, as the role lays them down."""
    target = home / 'connect_watchdog'
    target.mkdir(parents=True)
    for source in package_modules() + [MODULE_UTILS / name for name in shared_modules()]:
        shutil.copy(source, target / source.name)
    return target


def start_service(home: Path, config: Path) -> 'subprocess.Popen[str]':
    """`python3 -m connect_watchdog --config <file>` with PYTHONPATH on home, as the unit runs it;
    started elsewhere than the checkout, so it imports only what was installed."""
    env = dict(os.environ, PYTHONPATH=str(home), PYTHONDONTWRITEBYTECODE='1')
    return subprocess.Popen([sys.executable, '-m', 'connect_watchdog', '--config', str(config)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=home.parent)


def wait_for_metrics(port: int, wanted: str, seconds: float = 20) -> str:
    """The service's metrics page once it holds `wanted`, or the last one read by the deadline."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + seconds
    metrics = ''
    while wanted not in metrics and time.monotonic() < deadline:
        time.sleep(0.1)
        try:
            with opener.open('http://127.0.0.1:%d/metrics' % port, timeout=2) as answer:
                metrics = answer.read().decode()
        except OSError:
            continue
    return metrics
