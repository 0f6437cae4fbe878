# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Stall detection of the restart watchdog: a RUNNING MirrorSourceConnector task whose write
counter does not move while records wait on the source. The decision rules firing and not
firing, the history reset on restarts, rebalances and vanished series, exporter outages, the
restart through the backoff and cap it shares with failed tasks, and the metrics. The fake
Connect worker and an injected clock run hours of polls in milliseconds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_client import (
    ConnectApiError,
    ConnectClient,
    connector_path,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.prometheus_text import Sample
from connect_watchdog.decisions import RECORDS_GROWING, RECORDS_WAITING, Observation, Snapshot, UnitKey
from connect_watchdog.stalls import (
    CONSUMER_LAG_METRIC,
    WRITE_TOTAL_METRIC,
    StallTrack,
    TaskReading,
    find_stall,
    is_copying,
    task_readings,
    track_stalls,
    track_task,
)
from connect_watchdog.state import StateStore
from connect_watchdog.watchdog import Watchdog

from fake_connect import WORKER_ID, FakeConnect
from watchdog_helpers import CONFIG, CONNECTOR, OTHER_WORKER, TASK_0, TASK_1, Clock, FakeExporter


POLL = 30.0
LONG_STEP = 240.0
WINDOW = 600.0
HOUR = 3600.0


@pytest.fixture
def exporter() -> FakeExporter:
    return FakeExporter()


class DirectClient:
    """The three calls the watchdog makes, answered by the fake worker's request handler in
    process: hours of polls in a fraction of a second. The service test goes over HTTP."""

    def __init__(self, fake: FakeConnect) -> None:
        self.fake = fake

    def _call(self, method: str, path: str) -> object:
        status, body = self.fake.handle(method, path, None)
        if status >= 400:
            raise ConnectApiError(status, str((body or {}).get('message')), method, path)
        return body

    def list_connectors_status(self) -> object:
        return self._call('GET', '/connectors?expand=status')

    def restart(self, name: str, include_tasks: bool = False, only_failed: bool = False) -> object:
        return self._call('POST', connector_path(name, 'restart') + '?includeTasks=%s&onlyFailed=%s'
                          % (str(include_tasks).lower(), str(only_failed).lower()))

    def restart_task(self, name: str, task_id: int) -> None:
        self._call('POST', connector_path(name, 'tasks', str(task_id), 'restart'))


def watchdog_for(fake: FakeConnect, clock: Clock, tmp_path: Path, exporter: FakeExporter, max_restarts: int = 0,
                 window: float = WINDOW) -> Watchdog:
    return Watchdog(DirectClient(fake), WORKER_ID, StateStore(str(tmp_path / 'state.json')), max_restarts,  # type: ignore[arg-type]
                    clock=clock, exporter=exporter, stall_seconds=window)  # type: ignore[arg-type]


def restart_paths(fake: FakeConnect) -> List[str]:
    return [request.path for request in fake.writes() if request.path.endswith('/restart')]


def messages(caplog: pytest.LogCaptureFixture, start: str) -> List[Tuple[str, str]]:
    return [(record.levelname, record.getMessage()) for record in caplog.records if record.getMessage().startswith(start)]


def poll_until(watchdog: Watchdog, clock: Clock, end: float, step: float = POLL) -> List[Tuple[float, int, str]]:
    """Poll every `step` seconds up to `end` seconds from now; (seconds, attempt, key label) of each restart.
    Hours are polled in long steps: each poll is a real request to the fake worker."""
    start = clock.now
    restarts = []
    while clock.now - start <= end:
        plan = watchdog.poll_once()
        assert plan is not None
        restarts += [(clock.now - start, restart.attempt, restart.key.label) for restart in plan.restarts]
        clock.now += step
    clock.now -= step
    return restarts


# ---- the readings ---------------------------------------------------------------------------------

def test_readings_sum_the_lag_of_a_task_over_its_partitions() -> None:
    exporter = FakeExporter()
    exporter.set(TASK_0, 500, 10, 5, float('nan'))
    exporter.set(TASK_1, 7)
    exporter.lag[TASK_1] = {}
    samples = exporter.read() + [
        # A sink task's counter, and a lag series of a task without a write counter: neither is read.
        Sample('kafka_connect_sink_task_sink_record_send_total', {'connector': 'sink', 'task': '0'}, 3),
        Sample(CONSUMER_LAG_METRIC, {'connector': 'other', 'task': '0', 'partition': '0'}, 4),
        Sample(WRITE_TOTAL_METRIC, {'connector': 'odd', 'task': 'x'}, 1),
    ]
    assert task_readings(samples) == {TASK_0: TaskReading(500, 15)}


def test_an_all_nan_lag_counts_as_no_lag_series() -> None:
    exporter = FakeExporter()
    exporter.set(TASK_0, 500, float('nan'))
    assert task_readings(exporter.read()) == {}


# ---- the decision rules (pure) -------------------------------------------------------------------

def history(points: List[Tuple[float, float, float]], window: float = WINDOW) -> Optional[StallTrack]:
    """The track after polls of (seconds, written, waiting)."""
    track = None
    for at, written, waiting in points:
        track = track_task(track, TaskReading(written, waiting), window, at)
    return track


def polls(seconds: float, written: float = 500, waiting: float = 100) -> List[Tuple[float, float, float]]:
    return [(at * POLL, written, waiting) for at in range(int(seconds // POLL) + 1)]


def test_records_waiting_a_whole_window_without_a_write_is_a_stall() -> None:
    assert find_stall(history(polls(WINDOW - POLL)), WINDOW, WINDOW - POLL) is None
    stall = find_stall(history(polls(WINDOW)), WINDOW, WINDOW)
    assert stall is not None and (stall.rule, stall.quiet_seconds, stall.waiting) == (RECORDS_WAITING, 600, 100)
    assert stall.describe() == 'RUNNING but wrote nothing for 600 s while 100 records wait on the source'


def test_a_lag_that_grows_without_a_write_is_a_stall_even_from_zero() -> None:
    points = [(at, 500, 0 if at < 300 else at) for at, _written, _waiting in polls(WINDOW)]
    stall = find_stall(history(points), WINDOW, WINDOW)
    assert stall is not None and (stall.rule, stall.waiting_before, stall.waiting) == (RECORDS_GROWING, 0, 600)
    assert stall.describe() == 'RUNNING but wrote nothing for 600 s while the records waiting on the source grew from 0 to 600'


@pytest.mark.parametrize('waiting', [
    lambda at: 0,                        # an idle source
    lambda at: 100 if at < 300 else 0,   # caught up within the window
    lambda at: 100 if at != 330 else 0,  # one poll saw nothing waiting
    lambda at: 600 - at,                 # shrinking: it reads, the batch is not written yet
])
def test_no_stall_when_records_did_not_wait_at_every_poll_or_grow(waiting) -> None:  # type: ignore[no-untyped-def]
    points = [(at, 500, waiting(at)) for at, _written, _waiting in polls(WINDOW)]
    assert find_stall(history(points), WINDOW, WINDOW) is None


def test_a_write_starts_the_window_again() -> None:
    points = [(at, 500 if at < 300 else 501, 100) for at, _written, _waiting in polls(WINDOW + 300)]
    track = history(points)
    assert track is not None and track.quiet_since == 300
    assert find_stall(track, WINDOW, WINDOW + 270) is None
    assert find_stall(track, WINDOW, WINDOW + 300) is not None


def test_a_counter_that_went_back_is_a_restarted_task() -> None:
    points = [(at, 500 if at < 300 else 0, 100) for at, _written, _waiting in polls(WINDOW)]
    track = history(points)
    assert track is not None and (track.quiet_since, track.written) == (300, 0)
    assert find_stall(track, WINDOW, WINDOW) is None


def test_the_history_keeps_one_window_of_points() -> None:
    track = history(polls(10 * WINDOW))
    assert track is not None and len(track.waiting) == WINDOW // POLL + 1
    assert track.waiting[0][0] == 9 * WINDOW and track.quiet_since == 0


def test_a_stall_needs_no_window_when_detection_is_off() -> None:
    assert find_stall(history(polls(WINDOW)), 0, WINDOW) is None


def test_copying_means_written_since_the_last_poll_or_nothing_waiting() -> None:
    assert is_copying(history([(0, 1, 100)]))  # type: ignore[arg-type]
    assert is_copying(history([(0, 1, 100), (30, 2, 100)]))  # type: ignore[arg-type]
    assert is_copying(history([(0, 1, 0), (30, 1, 0)]))  # type: ignore[arg-type]
    assert not is_copying(history([(0, 1, 100), (30, 1, 100)]))  # type: ignore[arg-type]


def snapshot_of(*observations: Observation) -> Snapshot:
    return Snapshot(observations, frozenset(observation.key.connector for observation in observations))


@pytest.mark.parametrize('observation', [
    Observation(TASK_0, 'RUNNING', OTHER_WORKER, 'RUNNING'),      # moved to another worker
    Observation(TASK_0, 'PAUSED', WORKER_ID, 'PAUSED'),
    Observation(TASK_0, 'RUNNING', WORKER_ID, 'STOPPED'),
    Observation(TASK_0, 'UNASSIGNED', WORKER_ID, 'RUNNING'),     # being rebalanced or restarted
    Observation(TASK_0, 'FAILED', WORKER_ID, 'RUNNING'),         # the failed-task rules handle it
    Observation(UnitKey(CONNECTOR), 'RUNNING', WORKER_ID, 'RUNNING'),
])
def test_only_running_tasks_of_this_worker_are_tracked(observation: Observation) -> None:
    track = history(polls(WINDOW))
    readings = {TASK_0: TaskReading(500, 100), UnitKey(CONNECTOR): TaskReading(500, 100)}
    assert track_stalls(snapshot_of(observation), readings, {observation.key: track}, WORKER_ID, WINDOW, WINDOW + 30) == {}


def test_a_task_without_readings_is_forgotten() -> None:
    track = history(polls(WINDOW))
    observation = Observation(TASK_0, 'RUNNING', WORKER_ID, 'RUNNING')
    assert track_stalls(snapshot_of(observation), {}, {TASK_0: track}, WORKER_ID, WINDOW, WINDOW + 30) == {}  # type: ignore[dict-item]
    kept = track_stalls(snapshot_of(observation), {TASK_0: TaskReading(500, 100)}, {TASK_0: track},  # type: ignore[dict-item]
                        WORKER_ID, WINDOW, WINDOW + 30)
    assert kept[TASK_0].quiet_since == 0


# ---- the watchdog: restarts, shared backoff and cap ------------------------------------------------

def test_a_stalled_task_is_restarted_logged_and_counted(fake: FakeConnect, clock: Clock, tmp_path: Path,
                                                        exporter: FakeExporter, log_lines: pytest.LogCaptureFixture) -> None:
    fake.add_connector(CONNECTOR, CONFIG)
    exporter.set(TASK_0, 9000, 0, 0)         # idle: nothing waits
    exporter.set(TASK_1, 500, 12000, 345)    # 12345 records wait, none is written
    watchdog = watchdog_for(fake, clock, tmp_path, exporter)
    clock.now += 12
    assert poll_until(watchdog, clock, WINDOW) == [(WINDOW, 1, '1')]
    assert restart_paths(fake) == ['/connectors/%s/tasks/1/restart' % CONNECTOR]
    assert messages(log_lines, 'restart ') == [(
        'INFO', 'restart connector="%s" task=1 attempt=1 next_delay=2m outcome=requested '
                'stalled="RUNNING but wrote nothing for 600 s while 12345 records wait on the source"' % CONNECTOR)]
    assert messages(log_lines, "reading the worker's metrics") == [
        ('INFO', "reading the worker's metrics at http://127.0.0.1:9404/metrics: 2 MirrorSourceConnector tasks with write "
                 "and lag figures")]
    metrics = watchdog.metrics.render()
    assert 'kafka_dr_connect_stall_restarts_total{connector="%s",task="1"} 1' % CONNECTOR in metrics
    assert 'kafka_dr_connect_restarts_total{connector="%s",task="1"} 1' % CONNECTOR in metrics
    assert 'task="0"' not in metrics
    assert 'kafka_dr_connect_watchdog_metrics_errors_total 0' in metrics
    # The restart starts its history again: no stall before a whole new window.
    assert TASK_1 not in watchdog.stall_tracks
    assert poll_until(watchdog, clock, WINDOW - POLL) == []


def test_stall_restarts_follow_the_backoff_and_their_count_is_not_forgotten_while_stalled(
        fake: FakeConnect, clock: Clock, tmp_path: Path, exporter: FakeExporter) -> None:
    fake.add_connector(CONNECTOR, CONFIG)
    exporter.set(TASK_0, 500, 100)
    watchdog = watchdog_for(fake, clock, tmp_path, exporter)
    # A window each, then the 12 and 20 minutes of restarts 4 and 5 (after 3 and 4).
    assert poll_until(watchdog, clock, 3800) == [(600, 1, '0'), (1230, 2, '0'), (1860, 3, '0'), (2580, 4, '0'), (3780, 5, '0')]
    saved = json.loads((tmp_path / 'state.json').read_text())['units']
    assert [(unit['task'], unit['restarts']) for unit in saved] == [(0, 5)]


def test_a_task_that_copies_again_after_a_stall_restart_is_forgotten(fake: FakeConnect, clock: Clock, tmp_path: Path,
                                                                     exporter: FakeExporter) -> None:
    fake.add_connector(CONNECTOR, CONFIG)
    exporter.set(TASK_0, 500, 100)
    watchdog = watchdog_for(fake, clock, tmp_path, exporter)
    assert poll_until(watchdog, clock, WINDOW) == [(WINDOW, 1, '0')]
    # After the restart it copies: its counter moves at every poll, longer than the next delay (2 minutes).
    for written in range(1, 7):
        clock.now += POLL
        exporter.set(TASK_0, written, 100)
        watchdog.poll_once()
    assert watchdog.states == {}


def test_failed_and_stalled_restarts_share_one_count(fake: FakeConnect, clock: Clock, tmp_path: Path,
                                                     exporter: FakeExporter) -> None:
    fake.add_connector(CONNECTOR, CONFIG)
    exporter.set(TASK_0, 500, 100)
    watchdog = watchdog_for(fake, clock, tmp_path, exporter)
    assert poll_until(watchdog, clock, WINDOW) == [(WINDOW, 1, '0')]
    # One minute later it fails: restart 2 waits the 2 minutes after restart 1.
    fake.fail_task(CONNECTOR, 0, 'org.apache.kafka.connect.errors.ConnectException: boom')
    clock.now += 60
    assert watchdog.poll_once().restarts == ()
    clock.now += 60
    (restart,) = watchdog.poll_once().restarts
    assert (restart.attempt, restart.stall) == (2, None)
    metrics = watchdog.metrics.render()
    assert 'kafka_dr_connect_restarts_total{connector="%s",task="0"} 2' % CONNECTOR in metrics
    assert 'kafka_dr_connect_stall_restarts_total{connector="%s",task="0"} 1' % CONNECTOR in metrics


def test_the_cap_leaves_a_stalled_task_running_and_says_so_once(fake: FakeConnect, clock: Clock, tmp_path: Path,
                                                                exporter: FakeExporter,
                                                                log_lines: pytest.LogCaptureFixture) -> None:
    fake.add_connector(CONNECTOR, CONFIG)
    exporter.set(TASK_0, 500, 100)
    watchdog = watchdog_for(fake, clock, tmp_path, exporter, max_restarts=2)
    assert [attempt for _at, attempt, _label in poll_until(watchdog, clock, 3 * HOUR, LONG_STEP)] == [1, 2]
    assert len(restart_paths(fake)) == 2
    assert [message.split(':')[0] for _level, message in messages(log_lines, 'cap ')] == \
        ['cap connector="%s" task=0 restarts=2' % CONNECTOR]
    assert 'left RUNNING without copying until it runs again' in messages(log_lines, 'cap ')[0][1]
    assert 'kafka_dr_connect_restart_cap_reached{connector="%s",task="0"} 1' % CONNECTOR in watchdog.metrics.render()


# ---- what is never a stall ------------------------------------------------------------------------

def test_paused_connectors_idle_sources_and_tasks_without_lag_are_left_alone(fake: FakeConnect, clock: Clock,
                                                                             tmp_path: Path, exporter: FakeExporter) -> None:
    fake.add_connector('paused-source', CONFIG, state='PAUSED')
    fake.add_connector(CONNECTOR, CONFIG)
    exporter.set(UnitKey('paused-source', 0), 500, 100)   # a paused task keeps its last lag
    exporter.set(TASK_0, 500, 0)                           # idle source
    exporter.written[TASK_1] = 500                         # no lag series (not a MirrorSourceConnector task)
    watchdog = watchdog_for(fake, clock, tmp_path, exporter)
    assert poll_until(watchdog, clock, 2 * HOUR, LONG_STEP) == []
    assert fake.writes() == []


def test_another_workers_task_is_its_watchdogs_business(fake: FakeConnect, clock: Clock, tmp_path: Path,
                                                        exporter: FakeExporter) -> None:
    connector = fake.add_connector(CONNECTOR, CONFIG)
    connector.tasks[0].worker_id = OTHER_WORKER
    exporter.set(TASK_0, 500, 100)
    assert poll_until(watchdog_for(fake, clock, tmp_path, exporter), clock, HOUR, LONG_STEP) == []


def test_a_rebalance_or_vanished_series_starts_the_window_again(fake: FakeConnect, clock: Clock, tmp_path: Path,
                                                                exporter: FakeExporter) -> None:
    connector = fake.add_connector(CONNECTOR, CONFIG)
    exporter.set(TASK_0, 500, 100)
    exporter.set(TASK_1, 500, 100)
    watchdog = watchdog_for(fake, clock, tmp_path, exporter)
    poll_until(watchdog, clock, WINDOW - 2 * POLL)
    # Task 0's series vanish for one poll; task 1 runs on another worker for one poll.
    clock.now += POLL
    exporter.remove(TASK_0)
    connector.tasks[1].worker_id = OTHER_WORKER
    watchdog.poll_once()
    assert set(watchdog.stall_tracks) == set()
    exporter.set(TASK_0, 500, 100)
    connector.tasks[1].worker_id = WORKER_ID
    clock.now += POLL
    assert poll_until(watchdog, clock, WINDOW - POLL) == []
    clock.now += POLL
    assert sorted(restart.key.label for restart in watchdog.poll_once().restarts) == ['0', '1']


def test_a_restart_by_someone_else_starts_the_window_again(fake: FakeConnect, clock: Clock, tmp_path: Path,
                                                           exporter: FakeExporter) -> None:
    connector = fake.add_connector(CONNECTOR, CONFIG)
    exporter.set(TASK_0, 500, 100)
    watchdog = watchdog_for(fake, clock, tmp_path, exporter)
    poll_until(watchdog, clock, WINDOW - 2 * POLL)
    # Restarted by hand: seen RESTARTING once, then running with a new counter.
    connector.tasks[0].state = 'RESTARTING'
    clock.now += POLL
    watchdog.poll_once()
    connector.tasks[0].state = 'RUNNING'
    exporter.set(TASK_0, 0, 100)
    clock.now += POLL
    assert poll_until(watchdog, clock, WINDOW - POLL) == []


# ---- exporter outages ------------------------------------------------------------------------------

def test_an_unreadable_exporter_is_counted_logged_once_and_never_restarts(fake: FakeConnect, clock: Clock, tmp_path: Path,
                                                                          exporter: FakeExporter,
                                                                          log_lines: pytest.LogCaptureFixture) -> None:
    fake.add_connector(CONNECTOR, CONFIG)
    exporter.set(TASK_0, 500, 100)
    watchdog = watchdog_for(fake, clock, tmp_path, exporter)
    poll_until(watchdog, clock, WINDOW - POLL)
    exporter.error = 'GET http://127.0.0.1:9404/metrics failed: ConnectionError'
    clock.now += POLL
    assert poll_until(watchdog, clock, HOUR, LONG_STEP) == []
    polls_down = int(HOUR // LONG_STEP) + 1
    assert 'kafka_dr_connect_watchdog_metrics_errors_total %d' % polls_down in watchdog.metrics.render()
    assert 'kafka_dr_connect_watchdog_poll_errors_total 0' in watchdog.metrics.render()
    assert messages(log_lines, 'cannot read') == [
        ('WARNING', "cannot read the worker's metrics, no stall restart until they are back: "
                    'GET http://127.0.0.1:9404/metrics failed: ConnectionError')]
    # Back: logged, and a whole window before a stall counts (nobody knows what happened meanwhile).
    exporter.error = None
    clock.now += POLL
    assert poll_until(watchdog, clock, WINDOW - POLL) == []
    assert len(messages(log_lines, "reading the worker's metrics")) == 2
    clock.now += POLL
    assert [restart.key for restart in watchdog.poll_once().restarts] == [TASK_0]
    # A second outage is logged again.
    exporter.error = 'GET http://127.0.0.1:9404/metrics answered HTTP 503'
    clock.now += POLL
    watchdog.poll_once()
    assert len(messages(log_lines, 'cannot read')) == 2


def test_without_a_window_the_exporter_is_never_read(fake: FakeConnect, clock: Clock, tmp_path: Path,
                                                     exporter: FakeExporter) -> None:
    fake.add_connector(CONNECTOR, CONFIG)
    exporter.set(TASK_0, 500, 100)
    watchdog = watchdog_for(fake, clock, tmp_path, exporter, window=0)
    assert poll_until(watchdog, clock, HOUR, LONG_STEP) == []
    assert exporter.reads == 0


def test_a_failed_rest_poll_reads_no_metrics(clock: Clock, tmp_path: Path, exporter: FakeExporter, closed_port_url: str) -> None:
    watchdog = Watchdog(ConnectClient([closed_port_url], retry_timeout=0.1, timeout=2), WORKER_ID,
                        StateStore(str(tmp_path / 'state.json')), clock=clock, exporter=exporter,  # type: ignore[arg-type]
                        stall_seconds=WINDOW)
    assert watchdog.poll_once() is None
    assert exporter.reads == 0
