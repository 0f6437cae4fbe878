# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The restart watchdog as a service: the poll loop until stopped, and the package installed as
role connect_worker installs it, run as its systemd unit runs it (python3 -m connect_watchdog)."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path
from typing import Tuple

from connect_watchdog.service import run
from connect_watchdog.state import StateStore
from connect_watchdog.watchdog import Watchdog

from fake_connect import WORKER_ID, FakeConnect
from watchdog_helpers import (
    CONFIG,
    CONNECTOR,
    REST_PASSWORD,
    SCRAPE_PASSWORD,
    TASK_1,
    TRACE,
    FakeExporter,
    client_for,
    free_port,
    install_package,
    restart_requests,
    settings,
    start_service,
    wait_for_metrics,
)


def test_the_loop_polls_until_stopped(fake: FakeConnect, state_file: Path) -> None:
    fake.add_connector('flow-source', CONFIG)
    fake.fail_task('flow-source', 0, TRACE)
    watchdog = Watchdog(client_for(fake), WORKER_ID, StateStore(str(state_file)))
    stop = threading.Event()
    loop = threading.Thread(target=run, args=(watchdog, 0.01, stop), daemon=True)
    loop.start()
    deadline = time.monotonic() + 10
    while not restart_requests(fake) and time.monotonic() < deadline:
        time.sleep(0.01)
    stop.set()
    loop.join(timeout=5)
    assert not loop.is_alive()
    assert restart_requests(fake) == [('/connectors/flow-source/tasks/0/restart', '')]


def test_the_service_runs_from_the_files_the_role_installs(fake: FakeConnect, tmp_path: Path) -> None:
    """The package and the module_utils files the role installs, in a directory of their own, run as the unit runs them."""
    install_package(tmp_path / 'watchdog')
    fake.add_connector('flow-source', CONFIG)
    fake.fail_task('flow-source', 1, TRACE)
    port = free_port()
    config = tmp_path / 'watchdog.json'
    config.write_text(json.dumps(settings(urls=[fake.url], worker_id=WORKER_ID, state_file=str(tmp_path / 'state.json'),
                                          poll_interval=0.05, metrics_address='127.0.0.1', metrics_port=port,
                                          ca_path='')))
    service = start_service(tmp_path / 'watchdog', config)
    try:
        metrics = wait_for_metrics(port, 'kafka_dr_connect_restarts_total{')
        assert 'kafka_dr_connect_restarts_total{connector="flow-source",task="1"} 1' in metrics
    finally:
        service.send_signal(signal.SIGTERM)
        stdout, stderr = service.communicate(timeout=10)
    assert service.returncode == 0, stderr
    assert 'INFO watching worker %s through %s every 0.05s' % (WORKER_ID, fake.url) in stdout
    assert 'INFO restart connector="flow-source" task=1 attempt=1 next_delay=2m outcome=requested' in stdout
    assert REST_PASSWORD not in stdout + stderr
    assert json.loads((tmp_path / 'state.json').read_text())['units'][0]['restarts'] == 1


def test_the_service_restarts_a_stalled_task_from_a_served_page(fake: FakeConnect, tmp_path: Path,
                                                                exporter_server: Tuple[str, type]) -> None:
    """The installed files as the unit runs them, with a short window against a served exporter page."""
    url, handler = exporter_server
    page = FakeExporter()
    page.set(TASK_1, 500, 12345)
    handler.page = page.page()
    handler.credentials = 'scraper:' + SCRAPE_PASSWORD
    install_package(tmp_path / 'watchdog')
    fake.add_connector(CONNECTOR, CONFIG)
    port = free_port()
    config = tmp_path / 'watchdog.json'
    config.write_text(json.dumps({
        'urls': [fake.url], 'worker_id': WORKER_ID, 'state_file': str(tmp_path / 'state.json'), 'poll_interval': 0.05,
        'metrics_address': '127.0.0.1', 'metrics_port': port, 'stall_seconds': 0.2, 'exporter_url': url,
        'exporter_username': 'scraper', 'exporter_password': SCRAPE_PASSWORD}))
    service = start_service(tmp_path / 'watchdog', config)
    try:
        metrics = wait_for_metrics(port, 'kafka_dr_connect_stall_restarts_total{')
        assert 'kafka_dr_connect_stall_restarts_total{connector="%s",task="1"} 1' % CONNECTOR in metrics
    finally:
        service.send_signal(signal.SIGTERM)
        stdout, stderr = service.communicate(timeout=10)
    assert service.returncode == 0, stderr
    assert 'stall detection over 0.2s from %s' % url in stdout
    assert "INFO reading the worker's metrics at %s: 1 MirrorSourceConnector tasks" % url in stdout
    assert 'INFO restart connector="%s" task=1 attempt=1 next_delay=2m outcome=requested stalled="RUNNING but wrote ' \
           'nothing for 0 s while 12345 records wait on the source"' % CONNECTOR in stdout
    assert SCRAPE_PASSWORD not in stdout + stderr
    assert [request.path for request in fake.writes() if request.path.endswith('/restart')][0] == \
        '/connectors/%s/tasks/1/restart' % CONNECTOR
