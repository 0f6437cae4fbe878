# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What to restart and when: pure functions of the REST answer, the remembered states and the
time. Restart n of a key follows restart n-1 after min(n*n + n, 60) minutes; the count starts
again once the key has run longer than its next delay; with a cap the key is left as it is."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import AbstractSet, Any, Dict, FrozenSet, List, Mapping, Optional, Tuple

FAILED = 'FAILED'
RUNNING = 'RUNNING'
# Target states an operator chose (KIP-875 added STOPPED): the watchdog never overrides them.
LEFT_ALONE_STATES = frozenset({'PAUSED', 'STOPPED'})
# The `task` label of a connector instance in logs and metrics (tasks are numbered).
CONNECTOR_UNIT = 'connector'
HOURLY_MINUTES = 60
# The two rules of a stall (see stalls.find_stall).
RECORDS_WAITING = 'waiting'
RECORDS_GROWING = 'growing'


class WatchdogError(Exception):
    """A bad settings file, or an answer of the REST API the watchdog cannot read."""


def restart_delay(restarts_done: int) -> float:
    """Seconds between restart `restarts_done` and the next one: min(n*n + n, 60) minutes."""
    return 60.0 * min(restarts_done * restarts_done + restarts_done, HOURLY_MINUTES)


@dataclass(frozen=True)
class UnitKey:
    """A connector instance (task None) or one of its tasks."""

    connector: str
    task: Optional[int] = None

    @property
    def label(self) -> str:
        return CONNECTOR_UNIT if self.task is None else str(self.task)

    def sort_key(self) -> Tuple[str, int]:
        """The connector instance before its tasks, tasks by number."""
        return self.connector, -1 if self.task is None else self.task


@dataclass(frozen=True)
class UnitState:
    """What the watchdog remembers of one key: restarts since it last ran healthy, when the
    last one was, since when it has been seen RUNNING, and whether its cap was logged."""

    restarts: int = 0
    last_restart: Optional[float] = None
    running_since: Optional[float] = None
    cap_reached: bool = False


@dataclass(frozen=True)
class Observation:
    """One connector instance or task as GET /connectors?expand=status shows it."""

    key: UnitKey
    state: str
    worker_id: str
    connector_state: str
    trace: str = ''


@dataclass(frozen=True)
class Snapshot:
    observations: Tuple[Observation, ...]
    # Every connector listed, with or without a readable status: their history is kept.
    connectors: FrozenSet[str]


@dataclass(frozen=True)
class Stall:
    """Why a RUNNING task counts as stalled: how long its write counter has not moved, and the
    records waiting on the source at the start of the window and now."""

    quiet_seconds: float
    waiting_before: float
    waiting: float
    rule: str

    def describe(self) -> str:
        if self.rule == RECORDS_GROWING:
            return 'RUNNING but wrote nothing for %d s while the records waiting on the source grew from %d to %d' % (
                self.quiet_seconds, self.waiting_before, self.waiting)
        return 'RUNNING but wrote nothing for %d s while %d records wait on the source' % (self.quiet_seconds, self.waiting)


@dataclass(frozen=True)
class Restart:
    key: UnitKey
    attempt: int
    next_delay: float
    trace: str
    # False for a task that the restart of its connector (includeTasks, onlyFailed) restarts.
    request: bool = True
    # Set for a RUNNING task restarted because it copies nothing (None: it FAILED).
    stall: Optional[Stall] = None


@dataclass(frozen=True)
class Plan:
    restarts: Tuple[Restart, ...]
    newly_capped: Tuple[UnitKey, ...]
    states: Dict[UnitKey, UnitState]


def _unit_fields(status: Any) -> Tuple[str, str, str]:
    if not isinstance(status, Mapping):
        return '', '', ''
    return str(status.get('state') or ''), str(status.get('worker_id') or ''), str(status.get('trace') or '')


def observe(listing: Any) -> Snapshot:
    """The connector instances and tasks of GET /connectors?expand=status."""
    if not isinstance(listing, Mapping):
        raise WatchdogError('GET /connectors?expand=status answered %s, not an object' % type(listing).__name__)
    observations: List[Observation] = []
    for name, entry in listing.items():
        status = entry.get('status') if isinstance(entry, Mapping) else None
        if not isinstance(status, Mapping):
            continue
        connector_state, worker_id, trace = _unit_fields(status.get('connector'))
        observations.append(Observation(UnitKey(name), connector_state, worker_id, connector_state, trace))
        for task in status.get('tasks') or []:
            task_id = task.get('id') if isinstance(task, Mapping) else None
            if isinstance(task_id, int) and not isinstance(task_id, bool):
                state, worker_id, trace = _unit_fields(task)
                observations.append(Observation(UnitKey(name, task_id), state, worker_id, connector_state, trace))
    return Snapshot(tuple(observations), frozenset(listing))


def track_running(state: UnitState, running: bool, now: float) -> UnitState:
    """Note since when a key runs (and copies); forget its restarts once it ran longer than its next delay."""
    if not running:
        return replace(state, running_since=None)
    since = now if state.running_since is None else state.running_since
    if state.restarts and now - since > restart_delay(state.restarts):
        return UnitState()
    return replace(state, running_since=since)


def is_due(state: UnitState, now: float) -> bool:
    return state.last_restart is None or now >= state.last_restart + restart_delay(state.restarts)


def wants_restart(observation: Observation, own_worker_id: str) -> bool:
    return (observation.state == FAILED and observation.worker_id == own_worker_id
            and observation.connector_state not in LEFT_ALONE_STATES)


def restart_or_cap(observation: Observation, state: UnitState, stall: Optional[Stall], with_connector: bool,
                   max_restarts: int, now: float) -> Tuple[UnitState, Optional[Restart], bool]:
    """For a key that wants a restart: its new state, the restart due now if any, and whether it just reached the cap."""
    if max_restarts and state.restarts >= max_restarts:
        return replace(state, cap_reached=True), None, not state.cap_reached
    if not (with_connector or is_due(state, now)):
        return state, None, False
    attempt = state.restarts + 1
    restart = Restart(observation.key, attempt, restart_delay(attempt), observation.trace, request=not with_connector, stall=stall)
    return replace(state, restarts=attempt, last_restart=now, cap_reached=False), restart, False


def plan_restarts(snapshot: Snapshot, states: Mapping[UnitKey, UnitState], own_worker_id: str,
                  max_restarts: int, now: float, stalls: Optional[Mapping[UnitKey, Stall]] = None,
                  not_copying: AbstractSet[UnitKey] = frozenset()) -> Plan:
    """What to restart now, which keys just reached the cap, and the state to keep.

    Keys of connectors no longer listed are forgotten; keys without restarts are not kept.
    A connector instance comes before its tasks: when it is restarted, Connect restarts its
    failed tasks too, so this worker's failed tasks of it count that restart instead of
    getting a request of their own. A stalled task (`stalls`, see find_stall) goes through
    the same counts, delays and cap as a failed one; a task in `not_copying` is RUNNING but
    not healthy, so its restarts are not forgotten meanwhile.
    """
    stalls = stalls or {}
    kept = {key: state for key, state in states.items() if key.connector in snapshot.connectors}
    restarts: List[Restart] = []
    newly_capped: List[UnitKey] = []
    restarted_connectors = set()
    for observation in sorted(snapshot.observations, key=lambda item: item.key.sort_key()):
        key = observation.key
        state = track_running(kept.get(key, UnitState()), observation.state == RUNNING and key not in not_copying, now)
        failed = wants_restart(observation, own_worker_id)
        stall = None if failed else stalls.get(key)
        if failed or stall is not None:
            with_connector = failed and key.task is not None and key.connector in restarted_connectors
            state, restart, capped = restart_or_cap(observation, state, stall, with_connector, max_restarts, now)
            if capped:
                newly_capped.append(key)
            if restart is not None:
                restarts.append(restart)
                if key.task is None:
                    restarted_connectors.add(key.connector)
        kept[key] = state
    return Plan(tuple(restarts), tuple(newly_capped), {key: state for key, state in kept.items() if state.restarts})
