# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The restart watchdog against the fake Connect worker, with an injected clock: the backoff
schedule, its reset, the cap, ownership, paused and stopped connectors, the state file, the
metrics and the masked log line. Hours of schedule run in milliseconds."""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator, List, Tuple

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_client import ConnectClient
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_watchdog import (
    LOG,
    MASK,
    Metrics,
    Observation,
    Snapshot,
    StateStore,
    UnitKey,
    UnitState,
    Watchdog,
    WatchdogError,
    load_config,
    observe,
    parse_config,
    plan_restarts,
    restart_delay,
    run,
    serve_metrics,
    trace_excerpt,
)

from fake_connect import WORKER_ID, FakeConnect

OTHER_WORKER = '127.0.0.2:8083'
MINUTE = 60.0
HOUR_SECONDS = 3600.0
CONFIG = {'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector', 'tasks.max': '2'}
TRACE = 'org.apache.kafka.common.errors.TopicAuthorizationException: Not authorized to access topics: [src.orders]\n' \
        '\tat org.apache.kafka.connect.runtime.AbstractWorkerSourceTask.sendRecords(AbstractWorkerSourceTask.java:420)\n'
REST_PASSWORD = 'rest-pw-never-logged'


class Clock:
    """A settable clock for the watchdog (seconds)."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    # Loopback traffic must never go through a proxy configured in the environment.
    monkeypatch.setenv('NO_PROXY', '127.0.0.1,localhost')
    monkeypatch.setenv('no_proxy', '127.0.0.1,localhost')


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def state_file(tmp_path: Path) -> Path:
    return tmp_path / 'state.json'


@pytest.fixture
def log_lines(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    caplog.set_level(logging.INFO, logger=LOG.name)
    yield caplog


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


# ---- the schedule -----------------------------------------------------------------------------

def test_restart_delays_follow_the_schedule() -> None:
    assert [restart_delay(restarts) / MINUTE for restarts in range(11)] == [0, 2, 6, 12, 20, 30, 42, 56, 60, 60, 60]


def test_a_task_that_keeps_failing_is_restarted_on_the_schedule(fake: FakeConnect, clock: Clock, state_file: Path,
                                                                log_lines: pytest.LogCaptureFixture) -> None:
    fake.add_connector('flow-source', CONFIG)
    watchdog = watchdog_for(fake, clock, state_file)
    start = clock.now
    restarted_at = []
    # Each restart makes the task RUNNING; it fails again before the next poll sees it run.
    for attempt in range(1, 11):
        fake.fail_task('flow-source', 1, TRACE)
        due = (restarted_at[-1] if restarted_at else start) + restart_delay(attempt - 1)
        if attempt > 1:
            clock.now = due - 1
            assert watchdog.poll_once().restarts == ()
        clock.now = due
        (restart,) = watchdog.poll_once().restarts
        assert (restart.key, restart.attempt) == (UnitKey('flow-source', 1), attempt)
        restarted_at.append(clock.now)
    assert [(at - start) / MINUTE for at in restarted_at] == [0, 2, 8, 20, 40, 70, 112, 168, 228, 288]
    assert restart_requests(fake) == [('/connectors/flow-source/tasks/1/restart', '')] * 10
    lines = restart_lines(log_lines)
    assert lines[0].startswith('restart connector="flow-source" task=1 attempt=1 next_delay=2m outcome=requested trace=')
    assert 'attempt=3 next_delay=12m' in lines[2] and 'attempt=10 next_delay=60m' in lines[9]


def test_the_count_starts_again_after_a_healthy_run_longer_than_the_next_delay(fake: FakeConnect, clock: Clock,
                                                                               state_file: Path) -> None:
    fake.add_connector('flow-source', CONFIG)
    watchdog = watchdog_for(fake, clock, state_file)
    fake.fail_task('flow-source', 0, TRACE)
    assert [restart.attempt for restart in watchdog.poll_once().restarts] == [1]

    # Seen running for one minute only, then failed: the next restart waits its 2 minutes.
    clock.now += 30
    watchdog.poll_once()
    clock.now += MINUTE
    watchdog.poll_once()
    fake.fail_task('flow-source', 0, TRACE)
    clock.now += 10
    assert watchdog.poll_once().restarts == ()
    clock.now += 2 * MINUTE
    assert [restart.attempt for restart in watchdog.poll_once().restarts] == [2]

    # Running longer than the next delay (6 minutes): the history is gone, a new failure is attempt 1 at once.
    clock.now += 30
    watchdog.poll_once()
    clock.now += 6 * MINUTE + 1
    assert watchdog.poll_once().states == {}
    fake.fail_task('flow-source', 0, TRACE)
    clock.now += 5
    assert [restart.attempt for restart in watchdog.poll_once().restarts] == [1]


# ---- the cap ----------------------------------------------------------------------------------

def test_the_cap_stops_restarts_logs_once_and_sets_the_gauge(fake: FakeConnect, clock: Clock, state_file: Path,
                                                             log_lines: pytest.LogCaptureFixture) -> None:
    fake.add_connector('flow-source', CONFIG)
    watchdog = watchdog_for(fake, clock, state_file, max_restarts=2)
    key = UnitKey('flow-source', 0)
    for attempt in (1, 2):
        fake.fail_task('flow-source', 0, TRACE)
        clock.now += restart_delay(attempt - 1)
        assert [restart.attempt for restart in watchdog.poll_once().restarts] == [attempt]
    fake.fail_task('flow-source', 0, TRACE)
    for _poll in range(5):
        clock.now += 2 * HOUR_SECONDS
        plan = watchdog.poll_once()
        assert plan.restarts == ()
    assert len(restart_requests(fake)) == 2
    capped = [record for record in log_lines.records if record.getMessage().startswith('cap ')]
    assert [(record.levelname, record.getMessage().split(':')[0]) for record in capped] == \
        [('ERROR', 'cap connector="flow-source" task=0 restarts=2')]
    assert 'kafka_dr_connect_restart_cap_reached{connector="flow-source",task="0"} 1' in watchdog.metrics.render()
    assert watchdog.states[key].cap_reached

    # Restarted by hand once the cause is fixed, it runs longer than its next delay (6 minutes):
    # the cap and its gauge clear.
    fake.connectors['flow-source'].tasks[0].state = 'RUNNING'
    watchdog.poll_once()
    clock.now += 7 * MINUTE
    assert watchdog.poll_once().states == {}
    assert 'kafka_dr_connect_restart_cap_reached{' not in watchdog.metrics.render()


# ---- ownership, paused and stopped connectors ---------------------------------------------------

def test_only_this_workers_failed_tasks_are_restarted(fake: FakeConnect, clock: Clock, state_file: Path) -> None:
    connector = fake.add_connector('flow-source', CONFIG)
    connector.worker_id = OTHER_WORKER
    connector.tasks[1].worker_id = OTHER_WORKER
    fake.fail_connector('flow-source', TRACE)
    fake.fail_task('flow-source', 0, TRACE)
    fake.fail_task('flow-source', 1, TRACE)
    watchdog = watchdog_for(fake, clock, state_file)
    for _poll in range(3):
        watchdog.poll_once()
        clock.now += HOUR_SECONDS
    assert restart_requests(fake) == [('/connectors/flow-source/tasks/0/restart', '')]
    assert connector.state == 'FAILED' and connector.tasks[1].state == 'FAILED'
    assert set(watchdog.states) <= {UnitKey('flow-source', 0)}


def test_another_workers_watchdog_leaves_them_alone(fake: FakeConnect, clock: Clock, state_file: Path) -> None:
    fake.add_connector('flow-source', CONFIG)
    fake.fail_connector('flow-source', TRACE)
    fake.fail_task('flow-source', 0, TRACE)
    other = Watchdog(client_for(fake), OTHER_WORKER, StateStore(str(state_file)), clock=clock)
    assert other.poll_once().restarts == ()
    assert fake.writes() == []


def test_a_failed_connector_restarts_with_its_failed_tasks_in_one_request(fake: FakeConnect, clock: Clock, state_file: Path,
                                                                          log_lines: pytest.LogCaptureFixture) -> None:
    connector = fake.add_connector('flow-source', CONFIG)
    connector.tasks[1].worker_id = OTHER_WORKER
    fake.fail_connector('flow-source', TRACE)
    fake.fail_task('flow-source', 0, TRACE)
    fake.fail_task('flow-source', 1, TRACE)
    watchdog = watchdog_for(fake, clock, state_file)
    plan = watchdog.poll_once()
    assert [(restart.key, restart.request) for restart in plan.restarts] == \
        [(UnitKey('flow-source'), True), (UnitKey('flow-source', 0), False)]
    assert restart_requests(fake) == [('/connectors/flow-source/restart', 'includeTasks=true&onlyFailed=true')]
    # Connect restarted every failed part, the other worker's task included.
    assert connector.state == 'RUNNING' and [task.state for task in connector.tasks] == ['RUNNING', 'RUNNING']
    lines = restart_lines(log_lines)
    assert lines[0].startswith('restart connector="flow-source" task=connector attempt=1 next_delay=2m outcome=requested')
    assert lines[1].startswith('restart connector="flow-source" task=0 attempt=1 next_delay=2m outcome=with-connector')
    metrics = watchdog.metrics.render()
    assert 'kafka_dr_connect_restarts_total{connector="flow-source",task="connector"} 1' in metrics
    assert 'kafka_dr_connect_restarts_total{connector="flow-source",task="0"} 1' in metrics
    assert 'task="1"' not in metrics


def test_a_task_restarted_with_its_connector_counts_that_restart(fake: FakeConnect, clock: Clock, state_file: Path) -> None:
    fake.add_connector('flow-source', CONFIG)
    fake.fail_task('flow-source', 0, TRACE)
    watchdog = watchdog_for(fake, clock, state_file)
    assert [restart.attempt for restart in watchdog.poll_once().restarts] == [1]
    # Within the task's 2 minutes the connector fails too: its restart takes the task along.
    fake.fail_task('flow-source', 0, TRACE)
    fake.fail_connector('flow-source', TRACE)
    clock.now += 30
    assert [(restart.key.label, restart.attempt, restart.request) for restart in watchdog.poll_once().restarts] == \
        [('connector', 1, True), ('0', 2, False)]
    # So the task's next restart of its own waits 6 minutes from then.
    fake.fail_task('flow-source', 0, TRACE)
    clock.now += 5 * MINUTE
    assert watchdog.poll_once().restarts == ()
    clock.now += MINUTE
    assert [(restart.key.label, restart.attempt) for restart in watchdog.poll_once().restarts] == [('0', 3)]


def test_paused_connectors_are_never_touched(fake: FakeConnect, clock: Clock, state_file: Path) -> None:
    fake.add_connector('flow-source', CONFIG, state='PAUSED')
    fake.fail_task('flow-source', 0, TRACE)
    watchdog = watchdog_for(fake, clock, state_file)
    for _poll in range(3):
        assert watchdog.poll_once().restarts == ()
        clock.now += HOUR_SECONDS
    assert fake.writes() == []


@pytest.mark.parametrize('connector_state', ['PAUSED', 'STOPPED'])
def test_tasks_of_paused_or_stopped_connectors_are_never_planned(connector_state: str, clock: Clock) -> None:
    snapshot = Snapshot((Observation(UnitKey('flow-source'), connector_state, WORKER_ID, connector_state),
                         Observation(UnitKey('flow-source', 0), 'FAILED', WORKER_ID, connector_state, TRACE)),
                        frozenset({'flow-source'}))
    assert plan_restarts(snapshot, {}, WORKER_ID, 0, clock.now).restarts == ()


def test_history_of_deleted_connectors_is_forgotten(clock: Clock) -> None:
    states = {UnitKey('gone', 0): UnitState(3, clock.now), UnitKey('kept'): UnitState(1, clock.now)}
    # A connector listed without a readable status keeps its history.
    snapshot = observe({'kept': {'status': None}, 'other': {'status': {'connector': {'state': 'RUNNING'}, 'tasks': []}}})
    assert set(plan_restarts(snapshot, states, WORKER_ID, 0, clock.now).states) == {UnitKey('kept')}


def test_an_answer_that_is_not_a_listing_is_an_error() -> None:
    with pytest.raises(WatchdogError, match='not an object'):
        observe(['flow-source'])


# ---- the state file ---------------------------------------------------------------------------

def test_the_backoff_survives_a_restart_of_the_watchdog(fake: FakeConnect, clock: Clock, state_file: Path) -> None:
    fake.add_connector('flow-source', CONFIG)
    fake.fail_task('flow-source', 0, TRACE)
    assert [restart.attempt for restart in watchdog_for(fake, clock, state_file).poll_once().restarts] == [1]
    assert stat.S_IMODE(os.stat(state_file).st_mode) == 0o600
    assert [entry.name for entry in state_file.parent.iterdir()] == ['state.json']

    fake.fail_task('flow-source', 0, TRACE)
    restarted = watchdog_for(fake, clock, state_file)
    clock.now += MINUTE
    assert restarted.poll_once().restarts == ()
    clock.now += MINUTE
    assert [restart.attempt for restart in restarted.poll_once().restarts] == [2]
    saved = json.loads(state_file.read_text())
    assert saved['units'] == [{'connector': 'flow-source', 'task': 0, 'restarts': 2, 'last_restart': clock.now,
                               'running_since': None, 'cap_reached': False}]


@pytest.mark.parametrize('content', ['{"version": 1, "units": [', '{"version": 99, "units": []}',
                                     '{"version": 1, "units": [{"connector": "x", "task": "0", "restarts": 1}]}', '\x00\x01'])
def test_a_corrupt_state_file_is_logged_and_replaced(content: str, fake: FakeConnect, clock: Clock, state_file: Path,
                                                     log_lines: pytest.LogCaptureFixture) -> None:
    state_file.write_text(content)
    fake.add_connector('flow-source', CONFIG)
    fake.fail_task('flow-source', 0, TRACE)
    watchdog = watchdog_for(fake, clock, state_file)
    assert any('is unreadable or corrupt' in record.getMessage() and record.levelname == 'ERROR' for record in log_lines.records)
    assert [restart.attempt for restart in watchdog.poll_once().restarts] == [1]
    assert json.loads(state_file.read_text())['units'][0]['restarts'] == 1


def test_an_unwritable_state_file_is_logged_not_fatal(fake: FakeConnect, clock: Clock, tmp_path: Path,
                                                      log_lines: pytest.LogCaptureFixture) -> None:
    fake.add_connector('flow-source', CONFIG)
    fake.fail_task('flow-source', 0, TRACE)
    watchdog = watchdog_for(fake, clock, tmp_path / 'missing-dir' / 'state.json')
    assert [restart.attempt for restart in watchdog.poll_once().restarts] == [1]
    assert any(record.getMessage().startswith('cannot write state file') for record in log_lines.records)


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


# ---- logs -------------------------------------------------------------------------------------

def test_the_log_line_masks_secrets_in_the_trace_and_never_shows_the_rest_password(
        fake: FakeConnect, clock: Clock, state_file: Path, closed_port_url: str, log_lines: pytest.LogCaptureFixture) -> None:
    trace = ('org.apache.kafka.common.config.ConfigException: Invalid value for sasl.jaas.config='
             'org.apache.kafka.common.security.scram.ScramLoginModule required username="mm2" password="jaas-pw";\n'
             '\tat config ssl.truststore.password=store-pw, ssl.key.password: "key-pw" {"password": "json-pw"}\n'
             '\tat org.apache.kafka.connect.runtime.Worker.startTask(Worker.java:600)\n'
             '\tat a line beyond the excerpt\n')
    fake.add_connector('flow-source', CONFIG)
    fake.fail_task('flow-source', 0, trace)
    watchdog = watchdog_for(fake, clock, state_file, username='operator', password=REST_PASSWORD)
    watchdog.poll_once()
    assert fake.requests[0].authorization and fake.requests[0].authorization.startswith('Basic ')
    unreachable = Watchdog(ConnectClient([closed_port_url], 'operator', REST_PASSWORD, retry_timeout=0.1, timeout=2),
                           WORKER_ID, StateStore(str(state_file)), clock=clock)
    unreachable.poll_once()
    (line,) = restart_lines(log_lines)
    assert line.count(MASK) == 4 and 'Worker.startTask' in line and 'beyond the excerpt' not in line
    everything = log_lines.text + '\n'.join(record.getMessage() for record in log_lines.records)
    for secret in ('jaas-pw', 'store-pw', 'key-pw', 'json-pw', 'username="mm2"', REST_PASSWORD):
        assert secret not in everything


def test_trace_excerpt_keeps_the_first_lines_on_one_line() -> None:
    assert trace_excerpt('first\n\n  second  \nthird\nfourth\n') == 'first | second | third'
    assert trace_excerpt('') == ''


# ---- settings and the loop --------------------------------------------------------------------

def settings(**changes: object) -> dict:
    base = {'urls': ['https://task-1-1:8083'], 'worker_id': 'task-1-1:8083', 'state_file': '/var/lib/w/state.json',
            'poll_interval': 30, 'max_restarts': 0, 'metrics_address': '0.0.0.0', 'metrics_port': 9405,
            'username': 'operator', 'password': REST_PASSWORD, 'ca_path': '/etc/kafka/tls/ca.pem', 'validate_certs': True}
    base.update(changes)
    return base


def test_settings_are_read_and_the_password_stays_out_of_their_repr(tmp_path: Path) -> None:
    path = tmp_path / 'watchdog.json'
    path.write_text(json.dumps(settings()))
    config = load_config(str(path))
    assert (config.urls, config.worker_id, config.poll_interval, config.metrics_port) == \
        (('https://task-1-1:8083',), 'task-1-1:8083', 30, 9405)
    assert config.password == REST_PASSWORD and REST_PASSWORD not in repr(config)


@pytest.mark.parametrize('changes, message', [
    ({'pool_interval': 5}, 'unknown settings: pool_interval'),
    ({'max_restarts': '3'}, 'setting max_restarts must be int'),
    ({'validate_certs': 'yes'}, 'setting validate_certs must be bool'),
    ({'metrics_port': True}, 'setting metrics_port must be int'),
    ({'worker_id': ''}, 'missing settings: worker_id'),
    ({'urls': ['']}, 'setting urls must list'),
    ({'poll_interval': 0}, 'poll_interval must be positive'),
    ({'stall_seconds': '600'}, 'setting stall_seconds must be int or float'),
    ({'stall_seconds': -1}, r'stall_seconds must be 0 \(off\) or a number of seconds'),
    ({'stall_seconds': float('nan'), 'exporter_url': 'http://127.0.0.1:9404/metrics'}, 'stall_seconds must be 0'),
    ({'stall_seconds': 59}, r'stall_seconds must be 0 \(off\) or at least twice poll_interval \(30 s\)'),
    ({'stall_seconds': 600}, 'stall_seconds needs exporter_url'),
    ({'stall_seconds': 600, 'exporter_url': '127.0.0.1:9404/metrics'}, 'exporter_url must be an http:// or https:// URL'),
    ({'exporter_password': 7}, 'setting exporter_password must be str'),
])
def test_bad_settings_name_the_setting(changes: dict, message: str) -> None:
    with pytest.raises(WatchdogError, match=message) as error:
        parse_config(settings(**changes))
    assert REST_PASSWORD not in str(error.value)


def test_unreadable_settings_are_an_error(tmp_path: Path) -> None:
    with pytest.raises(WatchdogError, match='cannot read settings'):
        load_config(str(tmp_path / 'absent.json'))


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


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def test_the_service_runs_from_the_files_the_role_installs(fake: FakeConnect, collection_root: Path, tmp_path: Path) -> None:
    """The module_utils files the role installs, in a package directory of their own, run as the unit runs them."""
    package = tmp_path / 'watchdog' / 'kafka_dr_watchdog'
    package.mkdir(parents=True)
    for name in ('connect_client.py', 'connect_watchdog.py', 'prometheus_text.py'):
        shutil.copy(collection_root / 'plugins' / 'module_utils' / name, package / name)
    fake.add_connector('flow-source', CONFIG)
    fake.fail_task('flow-source', 1, TRACE)
    port = free_port()
    config = tmp_path / 'watchdog.json'
    config.write_text(json.dumps(settings(urls=[fake.url], worker_id=WORKER_ID, state_file=str(tmp_path / 'state.json'),
                                          poll_interval=0.05, metrics_address='127.0.0.1', metrics_port=port,
                                          ca_path='')))
    env = dict(os.environ, PYTHONPATH=str(tmp_path / 'watchdog'), PYTHONDONTWRITEBYTECODE='1')
    service = subprocess.Popen([sys.executable, '-m', 'kafka_dr_watchdog.connect_watchdog', '--config', str(config)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        deadline = time.monotonic() + 20
        metrics = ''
        while 'kafka_dr_connect_restarts_total{' not in metrics and time.monotonic() < deadline:
            time.sleep(0.1)
            try:
                with opener.open('http://127.0.0.1:%d/metrics' % port, timeout=2) as answer:
                    metrics = answer.read().decode()
            except OSError:
                continue
        assert 'kafka_dr_connect_restarts_total{connector="flow-source",task="1"} 1' in metrics
    finally:
        service.send_signal(signal.SIGTERM)
        stdout, stderr = service.communicate(timeout=10)
    assert service.returncode == 0, stderr
    assert 'INFO watching worker %s through %s every 0.05s' % (WORKER_ID, fake.url) in stdout
    assert 'INFO restart connector="flow-source" task=1 attempt=1 next_delay=2m outcome=requested' in stdout
    assert REST_PASSWORD not in stdout + stderr
    assert json.loads((tmp_path / 'state.json').read_text())['units'][0]['restarts'] == 1
