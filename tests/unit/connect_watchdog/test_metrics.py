# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Prometheus text the restart watchdog serves: restarts, caps, polls and errors, and the
endpoint that serves it."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_client import ConnectClient
from connect_watchdog.decisions import UnitKey
from connect_watchdog.metrics import Metrics
from connect_watchdog.service import serve_metrics
from connect_watchdog.state import StateStore
from connect_watchdog.watchdog import Watchdog

from fake_connect import WORKER_ID, FakeConnect
from watchdog_helpers import CONFIG, MINUTE, TRACE, Clock, client_for, restart_lines, watchdog_for


# ---- metrics ----------------------------------------------------------------------------------

def test_metrics_text_counts_restarts_polls_and_errors(fake: FakeConnect, clock: Clock, state_file: Path,
                                                       closed_port_url: str) -> None:
    fake.add_connector('flow "eu"\\source', CONFIG)
    fake.fail_task('flow "eu"\\source', 1, TRACE)
    metrics = Metrics()
    watchdog = Watchdog(client_for(fake), WORKER_ID, StateStore(str(state_file)), clock=clock, metrics=metrics)
    assert 'kafka_dr_connect_watchdog_last_poll_timestamp_seconds 0.000' in metrics.render()
    watchdog.poll_once()
    text = metrics.render()
    assert text.splitlines() == [
        '# HELP kafka_dr_connect_restarts_total Restarts of FAILED connectors (task="connector") and tasks, and of stalled'
        ' tasks, by this watchdog.',
        '# TYPE kafka_dr_connect_restarts_total counter',
        'kafka_dr_connect_restarts_total{connector="flow \\"eu\\"\\\\source",task="1"} 1',
        '# HELP kafka_dr_connect_stall_restarts_total Restarts of RUNNING tasks that wrote nothing while records waited on the'
        ' source.',
        '# TYPE kafka_dr_connect_stall_restarts_total counter',
        '# HELP kafka_dr_connect_restart_cap_reached 1 when a connector or task is left FAILED (or stalled) because it reached'
        ' max_restarts.',
        '# TYPE kafka_dr_connect_restart_cap_reached gauge',
        'kafka_dr_connect_restart_cap_reached{connector="flow \\"eu\\"\\\\source",task="1"} 0',
        '# HELP kafka_dr_connect_watchdog_last_poll_timestamp_seconds Unix time of the last poll the REST API answered.',
        '# TYPE kafka_dr_connect_watchdog_last_poll_timestamp_seconds gauge',
        'kafka_dr_connect_watchdog_last_poll_timestamp_seconds %.3f' % clock.now,
        '# HELP kafka_dr_connect_watchdog_poll_errors_total Polls of the REST API that failed.',
        '# TYPE kafka_dr_connect_watchdog_poll_errors_total counter',
        'kafka_dr_connect_watchdog_poll_errors_total 0',
        "# HELP kafka_dr_connect_watchdog_metrics_errors_total Reads of the worker's exporter endpoint that failed (no stall"
        ' restart meanwhile).',
        '# TYPE kafka_dr_connect_watchdog_metrics_errors_total counter',
        'kafka_dr_connect_watchdog_metrics_errors_total 0',
    ]
    polled_at = clock.now
    unreachable = Watchdog(ConnectClient([closed_port_url], retry_timeout=0.1, timeout=2), WORKER_ID,
                           StateStore(str(state_file)), clock=clock, metrics=metrics)
    clock.now += MINUTE
    assert unreachable.poll_once() is None
    text = metrics.render()
    assert 'kafka_dr_connect_watchdog_poll_errors_total 1' in text
    assert 'kafka_dr_connect_watchdog_last_poll_timestamp_seconds %.3f' % polled_at in text


def test_a_refused_restart_counts_as_an_attempt_but_not_as_a_restart(fake: FakeConnect, clock: Clock, state_file: Path,
                                                                     log_lines: pytest.LogCaptureFixture) -> None:
    fake.add_connector('flow-source', CONFIG)
    fake.fail_task('flow-source', 0, TRACE)
    fake.inject_error(404, 'Unknown task: flow-source-0', method='POST', path_contains='/restart')
    watchdog = watchdog_for(fake, clock, state_file)
    watchdog.poll_once()
    assert watchdog.states[UnitKey('flow-source', 0)].restarts == 1
    assert 'kafka_dr_connect_restarts_total{' not in watchdog.metrics.render()
    (line,) = restart_lines(log_lines)
    assert 'outcome=failed (POST /connectors/flow-source/tasks/0/restart failed (HTTP 404): Unknown task' in line
    clock.now += MINUTE
    assert watchdog.poll_once().restarts == ()


def test_the_metrics_endpoint_serves_the_text_format() -> None:
    metrics = Metrics()
    metrics.restarted(UnitKey('flow-source', 2))
    server = serve_metrics(metrics, '127.0.0.1', 0)
    try:
        base = 'http://127.0.0.1:%d' % server.server_address[1]
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(base + '/metrics', timeout=5) as answer:
            assert answer.status == 200
            assert answer.headers['Content-Type'] == 'text/plain; version=0.0.4; charset=utf-8'
            assert 'kafka_dr_connect_restarts_total{connector="flow-source",task="2"} 1' in answer.read().decode()
        with pytest.raises(urllib.error.HTTPError) as missing:
            opener.open(base + '/', timeout=5)
        assert missing.value.code == 404
    finally:
        server.shutdown()
        server.server_close()
