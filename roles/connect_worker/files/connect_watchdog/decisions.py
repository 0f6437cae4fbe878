# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Restarts the FAILED connectors and tasks of one Kafka Connect worker, with a growing backoff.

Plain Connect never restarts failed work by itself. This watchdog runs as a small service
next to each worker (role connect_worker, tasks/auto_restart.yml) and polls
GET /connectors?expand=status through the ConnectClient. It acts only on the connector
instances and tasks whose `worker_id` is its own worker's (host:port, as Connect reports
it), so the watchdogs of N workers never restart the same thing twice:

- a FAILED connector instance: POST /connectors/<n>/restart?includeTasks=true&onlyFailed=true
  (Connect restarts the failed tasks of that connector with it);
- a FAILED task: POST /connectors/<n>/tasks/<id>/restart.

Connectors that are PAUSED or STOPPED are left alone, tasks included. Restart n of one
connector instance or task follows restart n-1 after min(n*n + n, 60) minutes: 0, 2, 6, 12,
20, 30, 42, 56, then hourly; the count starts again once it has run longer than its next
delay. With `max_restarts` it stays FAILED after that many restarts (logged once, gauge
kafka_dr_connect_restart_cap_reached). The counts survive a restart of the watchdog in a
JSON state file; metrics are served in the Prometheus text format.

With `stall_seconds` it also restarts a MirrorSourceConnector task that is RUNNING but copies
nothing: it reads its worker's JMX exporter endpoint at each poll, and a task whose
source-record-write-total did not move for a whole window while its consumer's records-lag
stayed above 0 (or grew) gets POST /connectors/<n>/tasks/<id>/restart, through the same
backoff and cap. That history is kept in memory only (docs/auto_restart.md, "Stalled tasks").

The decisions (observe, track_stalls, find_stall, plan_restarts) are pure functions of the
REST answer, the exporter's page, the saved state and the time; Watchdog does the I/O around them. On a worker the module runs next to
connect_client.py and prometheus_text.py, as `python3 -m kafka_dr_watchdog.connect_watchdog
--config <file>`: the relative imports below work there and inside the collection alike.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import re
import signal
import socket
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import AbstractSet, Any, Callable, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Tuple

from .connect_client import ConnectApiError, ConnectClient, requests
from .prometheus_text import ExpositionError, Sample, parse_exposition

LOG = logging.getLogger('kafka_dr.connect_watchdog')

FAILED = 'FAILED'
RUNNING = 'RUNNING'
# Target states an operator chose (KIP-875 added STOPPED): the watchdog never overrides them.
LEFT_ALONE_STATES = frozenset({'PAUSED', 'STOPPED'})
# The `task` label of a connector instance in logs and metrics (tasks are numbered).
CONNECTOR_UNIT = 'connector'
HOURLY_MINUTES = 60
TRACE_LINES = 3
MASK = '********'
STATE_VERSION = 1
METRICS_PATH = '/metrics'
METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'
# The series of the worker's JMX exporter (extensions/monitoring/jmx_exporter/connect.yml) that
# stall detection reads: records a source task wrote, and per source partition of a
# MirrorSourceConnector task the records its consumer has not read yet (at its last fetch).
WRITE_TOTAL_METRIC = 'kafka_connect_source_task_source_record_write_total'
CONSUMER_LAG_METRIC = 'kafka_connect_mirror_source_consumer_records_lag'
EXPORTER_ACCEPT = 'text/plain; version=0.0.4'
# The two rules of a stall (see find_stall).
RECORDS_WAITING = 'waiting'
RECORDS_GROWING = 'growing'

# A JAAS line is masked whole; other secrets by their key (password, ssl.key.password, ...).
_JAAS_RE = re.compile(r'(sasl\.jaas\.config"?\s*[=:]\s*)[^\n]*', re.IGNORECASE)
_SECRET_VALUE_RE = re.compile(r'''((?:password|passwd|secret)[\w.-]*"?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;}\]]+)''', re.IGNORECASE)

# Errors of one poll: counted and logged, the next poll tries again.
_TRANSPORT_ERRORS: Tuple[type, ...] = (requests.RequestException,) if requests is not None else ()


class WatchdogError(Exception):
    """A bad settings file, or an answer of the REST API the watchdog cannot read."""


class ExporterError(Exception):
    """The worker's exporter endpoint did not answer with a readable page."""


# ---- the decisions (pure) ---------------------------------------------------------------------

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


# ---- stalled tasks (pure) ----------------------------------------------------------------------

@dataclass(frozen=True)
class TaskReading:
    """One task in the worker's exporter page: records written so far, records waiting on the source."""

    written: float
    waiting: float


@dataclass(frozen=True)
class StallTrack:
    """What the watchdog remembers of one RUNNING task of its worker between polls (in memory):
    since when its write counter has stayed at `written`, and the records waiting at each poll
    of the current window, as (time, records), oldest first."""

    quiet_since: float
    written: float
    waiting: Tuple[Tuple[float, float], ...]


def _task_key(labels: Mapping[str, str]) -> Optional[UnitKey]:
    connector, task = labels.get('connector'), labels.get('task', '')
    if not connector or not task.isdigit():
        return None
    return UnitKey(connector, int(task))


def task_readings(samples: Iterable[Sample]) -> Dict[UnitKey, TaskReading]:
    """The tasks with a write counter and at least one lag series (MirrorSourceConnector tasks);
    lag summed over their partitions. NaN and infinite values count as absent."""
    written: Dict[UnitKey, float] = {}
    waiting: Dict[UnitKey, float] = {}
    for sample in samples:
        key = _task_key(sample.labels)
        if key is None or not math.isfinite(sample.value):
            continue
        if sample.name == WRITE_TOTAL_METRIC:
            written[key] = sample.value
        elif sample.name == CONSUMER_LAG_METRIC:
            waiting[key] = waiting.get(key, 0.0) + max(sample.value, 0.0)
    return {key: TaskReading(written[key], waiting[key]) for key in written.keys() & waiting.keys()}


def watched_for_stall(observation: Observation, own_worker_id: str) -> bool:
    """A task of this worker that is RUNNING in a connector nobody paused or stopped."""
    return (observation.key.task is not None and observation.state == RUNNING and observation.worker_id == own_worker_id
            and observation.connector_state not in LEFT_ALONE_STATES)


def _window_points(points: Tuple[Tuple[float, float], ...], horizon: float) -> Tuple[Tuple[float, float], ...]:
    """The points from the last one at or before `horizon` on: that one opens the window."""
    start = 0
    for index, (at, _records) in enumerate(points):
        if at <= horizon:
            start = index
    return points[start:]


def track_task(track: Optional[StallTrack], reading: TaskReading, window: float, now: float) -> StallTrack:
    """The history of one task after this poll. Any move of the write counter starts it again:
    up is progress, down is a restart of the task (Connect registers its metrics anew)."""
    if track is None or reading.written != track.written:
        return StallTrack(now, reading.written, ((now, reading.waiting),))
    return replace(track, waiting=_window_points(track.waiting + ((now, reading.waiting),), now - window))


def track_stalls(snapshot: Snapshot, readings: Mapping[UnitKey, TaskReading], tracks: Mapping[UnitKey, StallTrack],
                 own_worker_id: str, window: float, now: float) -> Dict[UnitKey, StallTrack]:
    """The histories to keep after this poll. A task that is not RUNNING here, moved to another
    worker, or whose series vanished (rebalance, restart) is forgotten: it starts afresh."""
    kept: Dict[UnitKey, StallTrack] = {}
    for observation in snapshot.observations:
        reading = readings.get(observation.key)
        if reading is not None and watched_for_stall(observation, own_worker_id):
            kept[observation.key] = track_task(tracks.get(observation.key), reading, window, now)
    return kept


def find_stall(track: StallTrack, window: float, now: float) -> Optional[Stall]:
    """A stall when the write counter has not moved for a whole window and, over that window,
    records waited on the source at every poll, or more of them wait now than at its start."""
    first_at, waiting_before = track.waiting[0]
    if window <= 0 or first_at > now - window:
        return None
    waiting = track.waiting[-1][1]
    if all(records > 0 for _at, records in track.waiting):
        rule = RECORDS_WAITING
    elif waiting > waiting_before:
        rule = RECORDS_GROWING
    else:
        return None
    return Stall(now - track.quiet_since, waiting_before, waiting, rule)


def is_copying(track: StallTrack) -> bool:
    """False once a poll passed without a write while records wait: not healthy, even if RUNNING."""
    return len(track.waiting) < 2 or track.waiting[-1][1] <= 0


def mask_secrets(text: str) -> str:
    """Hide JAAS lines and password-like values in free text (a trace, an error message)."""
    return _SECRET_VALUE_RE.sub(r'\1' + MASK, _JAAS_RE.sub(r'\1' + MASK, text))


def trace_excerpt(trace: str, lines: int = TRACE_LINES) -> str:
    """The first lines of a trace, masked, on one line."""
    kept = [line.strip() for line in mask_secrets(trace).splitlines() if line.strip()]
    return ' | '.join(kept[:lines])


def format_delay(seconds: float) -> str:
    return '%dm' % (seconds // 60)


def format_restart(restart: Restart, outcome: str) -> str:
    """The one log line of a restart: the start of the trace of a failed one, the figures of a stalled one."""
    why = 'stalled=%s' % json.dumps(restart.stall.describe()) if restart.stall else 'trace=%s' % json.dumps(trace_excerpt(restart.trace))
    return 'restart connector=%s task=%s attempt=%d next_delay=%s outcome=%s %s' % (
        json.dumps(restart.key.connector), restart.key.label, restart.attempt, format_delay(restart.next_delay), outcome, why)


# ---- state file -------------------------------------------------------------------------------

def encode_states(states: Mapping[UnitKey, UnitState]) -> Dict[str, Any]:
    units = [dict(connector=key.connector, task=key.task, restarts=state.restarts, last_restart=state.last_restart,
                  running_since=state.running_since, cap_reached=state.cap_reached)
             for key, state in sorted(states.items(), key=lambda item: item[0].sort_key())]
    return {'version': STATE_VERSION, 'units': units}


def _optional_time(value: Any, name: str) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError('%s must be a number or null' % name)
    return float(value)


def decode_states(document: Any) -> Dict[UnitKey, UnitState]:
    """The states of a state file; ValueError when it is not one this version wrote."""
    if not isinstance(document, Mapping) or document.get('version') != STATE_VERSION or not isinstance(document.get('units'), list):
        raise ValueError('not a version %d state document' % STATE_VERSION)
    states: Dict[UnitKey, UnitState] = {}
    for unit in document['units']:
        if not isinstance(unit, Mapping) or not isinstance(unit.get('connector'), str):
            raise ValueError('a unit without a connector name')
        task, restarts = unit.get('task'), unit.get('restarts')
        if task is not None and (isinstance(task, bool) or not isinstance(task, int)):
            raise ValueError('task of %s must be a number or null' % unit['connector'])
        if isinstance(restarts, bool) or not isinstance(restarts, int) or restarts < 0:
            raise ValueError('restarts of %s must be a count' % unit['connector'])
        states[UnitKey(unit['connector'], task)] = UnitState(
            restarts, _optional_time(unit.get('last_restart'), 'last_restart'),
            _optional_time(unit.get('running_since'), 'running_since'), bool(unit.get('cap_reached')))
    return states


class StateStore:
    """The JSON state file: read once at start, replaced atomically (0600) when the state changes.

    A missing file is an empty history; an unreadable or corrupt one is logged and replaced
    by the next save, never fatal.
    """

    def __init__(self, path: str, logger: logging.Logger = LOG) -> None:
        self.path = path
        self.log = logger

    def load(self) -> Dict[UnitKey, UnitState]:
        try:
            with open(self.path, encoding='utf-8') as handle:
                return decode_states(json.load(handle))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            self.log.error('state file %s is unreadable or corrupt (%s): starting without restart history; '
                           'it is replaced on the next change', self.path, exc)
            return {}

    def save(self, states: Mapping[UnitKey, UnitState]) -> bool:
        directory = os.path.dirname(os.path.abspath(self.path))
        temporary = None
        try:
            # mkstemp creates the file 0600; os.replace keeps that mode.
            descriptor, temporary = tempfile.mkstemp(prefix='.state-', suffix='.json', dir=directory)
            with os.fdopen(descriptor, 'w', encoding='utf-8') as handle:
                json.dump(encode_states(states), handle, sort_keys=True)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, self.path)
            return True
        except OSError as exc:
            self.log.error('cannot write state file %s: %s', self.path, exc)
            if temporary is not None and os.path.exists(temporary):
                os.unlink(temporary)
            return False


# ---- metrics ----------------------------------------------------------------------------------

def _label_value(value: str) -> str:
    return value.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')


def _labels(key: UnitKey) -> str:
    return '{connector="%s",task="%s"}' % (_label_value(key.connector), _label_value(key.label))


class Metrics:
    """The counters and gauges of one watchdog; read by the metrics server's threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._restarts: Dict[UnitKey, int] = {}
        self._stall_restarts: Dict[UnitKey, int] = {}
        self._states: Dict[UnitKey, UnitState] = {}
        self._last_poll = 0.0
        self._poll_errors = 0
        self._metrics_errors = 0

    def restarted(self, key: UnitKey, stalled: bool = False) -> None:
        with self._lock:
            self._restarts[key] = self._restarts.get(key, 0) + 1
            if stalled:
                self._stall_restarts[key] = self._stall_restarts.get(key, 0) + 1

    def poll_failed(self) -> None:
        with self._lock:
            self._poll_errors += 1

    def metrics_read_failed(self) -> None:
        with self._lock:
            self._metrics_errors += 1

    def show_states(self, states: Mapping[UnitKey, UnitState]) -> None:
        """The cap gauges follow the remembered states (also the ones loaded at start)."""
        with self._lock:
            self._states = dict(states)

    def polled(self, now: float, states: Mapping[UnitKey, UnitState]) -> None:
        self.show_states(states)
        with self._lock:
            self._last_poll = now

    def render(self) -> str:
        with self._lock:
            restarts = sorted(self._restarts.items(), key=lambda item: item[0].sort_key())
            stall_restarts = sorted(self._stall_restarts.items(), key=lambda item: item[0].sort_key())
            states = sorted(self._states.items(), key=lambda item: item[0].sort_key())
            last_poll, poll_errors, metrics_errors = self._last_poll, self._poll_errors, self._metrics_errors
        lines = [
            '# HELP kafka_dr_connect_restarts_total Restarts of FAILED connectors (task="connector") and tasks, and of stalled'
            ' tasks, by this watchdog.',
            '# TYPE kafka_dr_connect_restarts_total counter',
        ]
        lines += ['kafka_dr_connect_restarts_total%s %d' % (_labels(key), count) for key, count in restarts]
        lines += [
            '# HELP kafka_dr_connect_stall_restarts_total Restarts of RUNNING tasks that wrote nothing while records waited'
            ' on the source.',
            '# TYPE kafka_dr_connect_stall_restarts_total counter',
        ]
        lines += ['kafka_dr_connect_stall_restarts_total%s %d' % (_labels(key), count) for key, count in stall_restarts]
        lines += [
            '# HELP kafka_dr_connect_restart_cap_reached 1 when a connector or task is left FAILED (or stalled) because it reached'
            ' max_restarts.',
            '# TYPE kafka_dr_connect_restart_cap_reached gauge',
        ]
        lines += ['kafka_dr_connect_restart_cap_reached%s %d' % (_labels(key), int(state.cap_reached)) for key, state in states]
        lines += [
            '# HELP kafka_dr_connect_watchdog_last_poll_timestamp_seconds Unix time of the last poll the REST API answered.',
            '# TYPE kafka_dr_connect_watchdog_last_poll_timestamp_seconds gauge',
            'kafka_dr_connect_watchdog_last_poll_timestamp_seconds %.3f' % last_poll,
            '# HELP kafka_dr_connect_watchdog_poll_errors_total Polls of the REST API that failed.',
            '# TYPE kafka_dr_connect_watchdog_poll_errors_total counter',
            'kafka_dr_connect_watchdog_poll_errors_total %d' % poll_errors,
            "# HELP kafka_dr_connect_watchdog_metrics_errors_total Reads of the worker's exporter endpoint that failed"
            ' (no stall restart meanwhile).',
            '# TYPE kafka_dr_connect_watchdog_metrics_errors_total counter',
            'kafka_dr_connect_watchdog_metrics_errors_total %d' % metrics_errors,
        ]
        return '\n'.join(lines) + '\n'


class _MetricsHandler(BaseHTTPRequestHandler):
    metrics: Metrics

    def do_GET(self) -> None:  # pylint: disable=invalid-name
        if self.path.split('?', 1)[0] != METRICS_PATH:
            self.send_error(404)
            return
        body = self.metrics.render().encode('utf-8')
        self.send_response(200)
        self.send_header('Content-Type', METRICS_CONTENT_TYPE)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # pylint: disable=redefined-builtin
        """Scrapes are not worth a log line."""


def serve_metrics(metrics: Metrics, address: str, port: int) -> ThreadingHTTPServer:
    """Serve GET /metrics on address:port from a daemon thread; port 0 picks a free one."""
    family = socket.AF_INET6 if ':' in address else socket.AF_INET
    server_class = type('MetricsServer', (ThreadingHTTPServer,), {'address_family': family, 'daemon_threads': True})
    handler = type('MetricsHandler', (_MetricsHandler,), {'metrics': metrics})
    server = server_class((address, port), handler)
    threading.Thread(target=server.serve_forever, name='metrics', daemon=True).start()
    return server


# ---- the worker's exporter ----------------------------------------------------------------------

class ExporterReader:
    """GET of the worker's JMX exporter endpoint, with basic authentication and a CA when set."""

    def __init__(self, url: str, username: str = '', password: str = '', ca_path: str = '', validate_certs: bool = True,
                 timeout: float = 10.0) -> None:
        if requests is None:
            raise RuntimeError('the Python library requests is required')
        self.url = url
        self.timeout = timeout
        self.session = requests.Session()
        self.session.headers.update({'Accept': EXPORTER_ACCEPT})
        if username:
            self.session.auth = (username, password)
        self.session.verify = (ca_path or True) if validate_certs else False

    def read(self) -> List[Sample]:
        """The samples of the page; ExporterError when there is no readable page."""
        try:
            response = self.session.get(self.url, timeout=self.timeout)
        except requests.RequestException as exc:
            raise ExporterError('GET %s failed: %s' % (self.url, exc.__class__.__name__)) from exc
        if response.status_code != 200:
            raise ExporterError('GET %s answered HTTP %d' % (self.url, response.status_code))
        try:
            return parse_exposition(response.content.decode('utf-8', errors='replace'))
        except ExpositionError as exc:
            raise ExporterError('GET %s: not the Prometheus text format (%s)' % (self.url, exc)) from exc


# ---- the watchdog -----------------------------------------------------------------------------

class Watchdog:
    """One poll: read the statuses (and the exporter), plan, send the restarts, log, keep the state and metrics."""

    def __init__(self, client: ConnectClient, worker_id: str, store: StateStore, max_restarts: int = 0,
                 clock: Callable[[], float] = time.time, metrics: Optional[Metrics] = None,
                 logger: logging.Logger = LOG, exporter: Optional[ExporterReader] = None, stall_seconds: float = 0) -> None:
        self.client = client
        self.worker_id = worker_id
        self.store = store
        self.max_restarts = max_restarts
        self.clock = clock
        self.metrics = metrics or Metrics()
        self.log = logger
        self.states = store.load()
        self.metrics.show_states(self.states)
        # Stall detection: off without an exporter or a window. Its history lives in memory only.
        self.exporter = exporter if stall_seconds > 0 else None
        self.stall_seconds = stall_seconds
        self.stall_tracks: Dict[UnitKey, StallTrack] = {}
        # None before the first read, then whether the last read failed: one log line per change.
        self.exporter_down: Optional[bool] = None

    def poll_once(self) -> Optional[Plan]:
        """None when the REST API did not answer usefully (a poll error)."""
        now = self.clock()
        try:
            snapshot = observe(self.client.list_connectors_status())
        except (ConnectApiError, WatchdogError) + _TRANSPORT_ERRORS as exc:
            self.metrics.poll_failed()
            self.log.warning('poll failed: %s', mask_secrets(str(exc)))
            return None
        stalls = self._find_stalls(snapshot, now)
        not_copying = frozenset(key for key, track in self.stall_tracks.items() if not is_copying(track))
        plan = plan_restarts(snapshot, self.states, self.worker_id, self.max_restarts, now, stalls, not_copying)
        for restart in plan.restarts:
            # A restarted task is watched afresh: a whole new window before it can count as stalled.
            self.stall_tracks.pop(restart.key, None)
            self._restart(restart)
        for key in plan.newly_capped:
            left = 'RUNNING without copying' if key in stalls else 'FAILED'
            self.log.error('cap connector=%s task=%s restarts=%d: max_restarts reached, left %s until it runs again '
                           '(restart it by hand once the cause is fixed)', json.dumps(key.connector), key.label,
                           plan.states[key].restarts, left)
        if plan.states != self.states:
            self.store.save(plan.states)
        self.states = plan.states
        self.metrics.polled(now, plan.states)
        return plan

    def _find_stalls(self, snapshot: Snapshot, now: float) -> Dict[UnitKey, Stall]:
        """Read the exporter, update the histories, and return the stalled tasks of this poll."""
        if self.exporter is None:
            return {}
        readings = self._read_exporter()
        if readings is None:
            # Nobody knows what the tasks did meanwhile: every window starts again after the outage.
            self.stall_tracks = {}
            return {}
        self.stall_tracks = track_stalls(snapshot, readings, self.stall_tracks, self.worker_id, self.stall_seconds, now)
        stalls = {key: find_stall(track, self.stall_seconds, now) for key, track in self.stall_tracks.items()}
        return {key: stall for key, stall in stalls.items() if stall is not None}

    def _read_exporter(self) -> Optional[Dict[UnitKey, TaskReading]]:
        """The task readings, or None (counted, logged once per outage) when the page cannot be had."""
        if self.exporter is None:
            return None
        try:
            readings = task_readings(self.exporter.read())
        except ExporterError as exc:
            self.metrics.metrics_read_failed()
            if not self.exporter_down:
                self.log.warning("cannot read the worker's metrics, no stall restart until they are back: %s",
                                 mask_secrets(str(exc)))
            self.exporter_down = True
            return None
        if self.exporter_down is not False:
            self.log.info("reading the worker's metrics at %s: %d MirrorSourceConnector tasks with write and lag figures",
                          self.exporter.url, len(readings))
        self.exporter_down = False
        return readings

    def _restart(self, restart: Restart) -> None:
        key = restart.key
        outcome = 'requested'
        try:
            if not restart.request:
                outcome = 'with-connector'
            elif key.task is None:
                self.client.restart(key.connector, include_tasks=True, only_failed=True)
            else:
                self.client.restart_task(key.connector, key.task)
        except (ConnectApiError,) + _TRANSPORT_ERRORS as exc:
            # The attempt still counts: a worker that refuses is not asked again before the next delay.
            self.log.warning(format_restart(restart, 'failed (%s)' % mask_secrets(str(exc))))
            return
        self.metrics.restarted(key, stalled=restart.stall is not None)
        self.log.info(format_restart(restart, outcome))


def run(watchdog: Watchdog, interval: float, stop: threading.Event) -> None:
    """Poll every `interval` seconds until `stop` is set."""
    while not stop.is_set():
        watchdog.poll_once()
        stop.wait(interval)


# ---- settings and entry point -----------------------------------------------------------------

@dataclass(frozen=True)
class WatchdogConfig:
    """The settings file the role writes (JSON, 0600, owned by the service user)."""

    urls: Tuple[str, ...]
    worker_id: str
    state_file: str
    poll_interval: float = 30.0
    max_restarts: int = 0
    metrics_address: str = '0.0.0.0'
    metrics_port: int = 9405
    username: str = ''
    password: str = field(default='', repr=False)
    ca_path: str = ''
    validate_certs: bool = True
    client_cert: str = ''
    client_key: str = ''
    timeout: float = 30.0
    # Stall detection (0: off) and the worker's JMX exporter endpoint it reads.
    stall_seconds: float = 0
    exporter_url: str = ''
    exporter_username: str = ''
    exporter_password: str = field(default='', repr=False)
    exporter_ca_path: str = ''


_CONFIG_TYPES: Dict[str, Tuple[type, ...]] = {
    'urls': (list,), 'worker_id': (str,), 'state_file': (str,), 'poll_interval': (int, float), 'max_restarts': (int,),
    'metrics_address': (str,), 'metrics_port': (int,), 'username': (str,), 'password': (str,), 'ca_path': (str,),
    'validate_certs': (bool,), 'client_cert': (str,), 'client_key': (str,), 'timeout': (int, float),
    'stall_seconds': (int, float), 'exporter_url': (str,), 'exporter_username': (str,), 'exporter_password': (str,),
    'exporter_ca_path': (str,),
}


def parse_config(document: Any) -> WatchdogConfig:
    """Checked settings; WatchdogError names the first wrong key (never a value)."""
    if not isinstance(document, Mapping):
        raise WatchdogError('the settings must be a JSON object')
    unknown = sorted(set(document) - set(_CONFIG_TYPES))
    if unknown:
        raise WatchdogError('unknown settings: %s' % ', '.join(unknown))
    for name, types in _CONFIG_TYPES.items():
        value = document.get(name)
        wrong_type = value is not None and (not isinstance(value, types) or (isinstance(value, bool) and bool not in types))
        if wrong_type:
            raise WatchdogError('setting %s must be %s' % (name, ' or '.join(kind.__name__ for kind in types)))
    missing = [name for name in ('urls', 'worker_id', 'state_file') if not document.get(name)]
    if missing:
        raise WatchdogError('missing settings: %s' % ', '.join(missing))
    if not all(isinstance(url, str) and url for url in document['urls']):
        raise WatchdogError('setting urls must list Kafka Connect base URLs')
    values = {name: value for name, value in document.items() if value is not None}
    values['urls'] = tuple(document['urls'])
    config = WatchdogConfig(**values)
    if config.poll_interval <= 0 or config.max_restarts < 0 or not 0 <= config.metrics_port < 65536:
        raise WatchdogError('poll_interval must be positive, max_restarts at least 0 and metrics_port 0-65535')
    check_stall_settings(config)
    return config


def check_stall_settings(config: WatchdogConfig) -> None:
    """A window of at least two polls, and an http(s) exporter URL when it is on."""
    if config.exporter_url and not config.exporter_url.startswith(('http://', 'https://')):
        raise WatchdogError("setting exporter_url must be an http:// or https:// URL of the worker's metrics endpoint")
    if not math.isfinite(config.stall_seconds) or config.stall_seconds < 0:
        raise WatchdogError('setting stall_seconds must be 0 (off) or a number of seconds')
    if config.stall_seconds and config.stall_seconds < 2 * config.poll_interval:
        raise WatchdogError('setting stall_seconds must be 0 (off) or at least twice poll_interval (%s s): a window '
                            'needs three polls' % config.poll_interval)
    if config.stall_seconds and not config.exporter_url:
        raise WatchdogError("setting stall_seconds needs exporter_url (the worker's metrics endpoint); 0 switches it off")


def load_config(path: str) -> WatchdogConfig:
    try:
        with open(path, encoding='utf-8') as handle:
            document = json.load(handle)
    except (OSError, ValueError) as exc:
        raise WatchdogError('cannot read settings %s: %s' % (path, exc)) from exc
    return parse_config(document)


def build_client(config: WatchdogConfig) -> ConnectClient:
    return ConnectClient(
        list(config.urls), username=config.username or None, password=config.password or None,
        client_cert=config.client_cert or None, client_key=config.client_key or None, ca_path=config.ca_path or None,
        validate_certs=config.validate_certs, timeout=config.timeout,
        # A rebalance is waited out within one poll interval; the next poll tries again.
        retry_timeout=min(config.timeout, config.poll_interval),
    )


def build_exporter(config: WatchdogConfig) -> Optional[ExporterReader]:
    if not config.stall_seconds:
        return None
    return ExporterReader(config.exporter_url, config.exporter_username, config.exporter_password, config.exporter_ca_path,
                          config.validate_certs, timeout=min(config.timeout, config.poll_interval))


def describe_stall_detection(config: WatchdogConfig) -> str:
    if not config.stall_seconds:
        return 'stall detection off'
    return 'stall detection over %ss from %s' % (config.stall_seconds, config.exporter_url)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description='Restart the FAILED connectors and tasks of one Kafka Connect worker.')
    parser.add_argument('--config', required=True, help='settings file (JSON)')
    arguments = parser.parse_args(argv)
    # journald stamps each line; stdout is where systemd collects them.
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format='%(levelname)s %(message)s')
    try:
        config = load_config(arguments.config)
        client = build_client(config)
        exporter = build_exporter(config)
    except (WatchdogError, RuntimeError, ValueError) as exc:
        LOG.error('%s', exc)
        return 2
    stop = threading.Event()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signal_number, lambda *_args: stop.set())
    metrics = Metrics()
    watchdog = Watchdog(client, config.worker_id, StateStore(config.state_file), config.max_restarts, metrics=metrics,
                        exporter=exporter, stall_seconds=config.stall_seconds)
    server = serve_metrics(metrics, config.metrics_address, config.metrics_port)
    LOG.info('watching worker %s through %s every %ss, max_restarts %s, metrics on %s:%s%s, state in %s, %s',
             config.worker_id, ', '.join(config.urls), config.poll_interval, config.max_restarts or 'none',
             config.metrics_address, server.server_address[1], METRICS_PATH, config.state_file,
             describe_stall_detection(config))
    try:
        run(watchdog, config.poll_interval, stop)
    finally:
        server.shutdown()
        server.server_close()
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
