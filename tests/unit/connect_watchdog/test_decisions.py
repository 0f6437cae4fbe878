# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the restart watchdog restarts and when, against the fake Connect worker with an injected
clock: the backoff schedule, its reset, the cap, ownership, paused and stopped connectors, and a
connector restarted with its failed tasks. Hours of schedule run in milliseconds."""

from __future__ import annotations

from pathlib import Path

import pytest

from connect_watchdog.decisions import (
    Observation,
    Snapshot,
    UnitKey,
    UnitState,
    WatchdogError,
    observe,
    plan_restarts,
    restart_delay,
)
from connect_watchdog.state import StateStore
from connect_watchdog.watchdog import Watchdog

from fake_connect import WORKER_ID, FakeConnect
from watchdog_helpers import (
    CONFIG,
    HOUR_SECONDS,
    MINUTE,
    OTHER_WORKER,
    TRACE,
    Clock,
    client_for,
    restart_lines,
    restart_requests,
    watchdog_for,
)


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
