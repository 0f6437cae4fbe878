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

The decisions (observe, plan_restarts) are pure functions of the REST answer, the saved
state and the time; Watchdog does the I/O around them. On a worker the module runs next to
connect_client.py, as `python3 -m kafka_dr_watchdog.connect_watchdog --config <file>`: the
relative import below works there and inside the collection alike.
"""

from __future__ import annotations

import argparse
import json
import logging
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
from typing import Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from .connect_client import ConnectApiError, ConnectClient, requests

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

# A JAAS line is masked whole; other secrets by their key (password, ssl.key.password, ...).
_JAAS_RE = re.compile(r'(sasl\.jaas\.config"?\s*[=:]\s*)[^\n]*', re.IGNORECASE)
_SECRET_VALUE_RE = re.compile(r'''((?:password|passwd|secret)[\w.-]*"?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;}\]]+)''', re.IGNORECASE)

# Errors of one poll: counted and logged, the next poll tries again.
_TRANSPORT_ERRORS: Tuple[type, ...] = (requests.RequestException,) if requests is not None else ()


class WatchdogError(Exception):
    """A bad settings file, or an answer of the REST API the watchdog cannot read."""


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
class Restart:
    key: UnitKey
    attempt: int
    next_delay: float
    trace: str
    # False for a task that the restart of its connector (includeTasks, onlyFailed) restarts.
    request: bool = True


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


def track_running(state: UnitState, observed: str, now: float) -> UnitState:
    """Note since when a key runs; forget its restarts once it ran longer than its next delay."""
    if observed != RUNNING:
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


def plan_restarts(snapshot: Snapshot, states: Mapping[UnitKey, UnitState], own_worker_id: str,
                  max_restarts: int, now: float) -> Plan:
    """What to restart now, which keys just reached the cap, and the state to keep.

    Keys of connectors no longer listed are forgotten; keys without restarts are not kept.
    A connector instance comes before its tasks: when it is restarted, Connect restarts its
    failed tasks too, so this worker's failed tasks of it count that restart instead of
    getting a request of their own.
    """
    kept = {key: state for key, state in states.items() if key.connector in snapshot.connectors}
    restarts: List[Restart] = []
    newly_capped: List[UnitKey] = []
    restarted_connectors = set()
    for observation in sorted(snapshot.observations, key=lambda item: item.key.sort_key()):
        key = observation.key
        state = track_running(kept.get(key, UnitState()), observation.state, now)
        if wants_restart(observation, own_worker_id):
            with_connector = key.task is not None and key.connector in restarted_connectors
            if max_restarts and state.restarts >= max_restarts:
                if not state.cap_reached:
                    newly_capped.append(key)
                    state = replace(state, cap_reached=True)
            elif with_connector or is_due(state, now):
                attempt = state.restarts + 1
                restarts.append(Restart(key, attempt, restart_delay(attempt), observation.trace, request=not with_connector))
                state = replace(state, restarts=attempt, last_restart=now, cap_reached=False)
                if key.task is None:
                    restarted_connectors.add(key.connector)
        kept[key] = state
    return Plan(tuple(restarts), tuple(newly_capped), {key: state for key, state in kept.items() if state.restarts})


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
    """The one log line of a restart."""
    return 'restart connector=%s task=%s attempt=%d next_delay=%s outcome=%s trace=%s' % (
        json.dumps(restart.key.connector), restart.key.label, restart.attempt, format_delay(restart.next_delay),
        outcome, json.dumps(trace_excerpt(restart.trace)))


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
        self._states: Dict[UnitKey, UnitState] = {}
        self._last_poll = 0.0
        self._poll_errors = 0

    def restarted(self, key: UnitKey) -> None:
        with self._lock:
            self._restarts[key] = self._restarts.get(key, 0) + 1

    def poll_failed(self) -> None:
        with self._lock:
            self._poll_errors += 1

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
            states = sorted(self._states.items(), key=lambda item: item[0].sort_key())
            last_poll, poll_errors = self._last_poll, self._poll_errors
        lines = [
            '# HELP kafka_dr_connect_restarts_total Restarts of FAILED connectors (task="connector") and tasks by this watchdog.',
            '# TYPE kafka_dr_connect_restarts_total counter',
        ]
        lines += ['kafka_dr_connect_restarts_total%s %d' % (_labels(key), count) for key, count in restarts]
        lines += [
            '# HELP kafka_dr_connect_restart_cap_reached 1 when a connector or task stays FAILED because it reached max_restarts.',
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


# ---- the watchdog -----------------------------------------------------------------------------

class Watchdog:
    """One poll: read the statuses, plan, send the restarts, log, keep the state and metrics."""

    def __init__(self, client: ConnectClient, worker_id: str, store: StateStore, max_restarts: int = 0,
                 clock: Callable[[], float] = time.time, metrics: Optional[Metrics] = None,
                 logger: logging.Logger = LOG) -> None:
        self.client = client
        self.worker_id = worker_id
        self.store = store
        self.max_restarts = max_restarts
        self.clock = clock
        self.metrics = metrics or Metrics()
        self.log = logger
        self.states = store.load()
        self.metrics.show_states(self.states)

    def poll_once(self) -> Optional[Plan]:
        """None when the REST API did not answer usefully (a poll error)."""
        now = self.clock()
        try:
            snapshot = observe(self.client.list_connectors_status())
        except (ConnectApiError, WatchdogError) + _TRANSPORT_ERRORS as exc:
            self.metrics.poll_failed()
            self.log.warning('poll failed: %s', mask_secrets(str(exc)))
            return None
        plan = plan_restarts(snapshot, self.states, self.worker_id, self.max_restarts, now)
        for restart in plan.restarts:
            self._restart(restart)
        for key in plan.newly_capped:
            self.log.error('cap connector=%s task=%s restarts=%d: max_restarts reached, left FAILED until it runs again '
                           '(restart it by hand once the cause is fixed)', json.dumps(key.connector), key.label,
                           plan.states[key].restarts)
        if plan.states != self.states:
            self.store.save(plan.states)
        self.states = plan.states
        self.metrics.polled(now, plan.states)
        return plan

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
        self.metrics.restarted(key)
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


_CONFIG_TYPES: Dict[str, Tuple[type, ...]] = {
    'urls': (list,), 'worker_id': (str,), 'state_file': (str,), 'poll_interval': (int, float), 'max_restarts': (int,),
    'metrics_address': (str,), 'metrics_port': (int,), 'username': (str,), 'password': (str,), 'ca_path': (str,),
    'validate_certs': (bool,), 'client_cert': (str,), 'client_key': (str,), 'timeout': (int, float),
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
    return config


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


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description='Restart the FAILED connectors and tasks of one Kafka Connect worker.')
    parser.add_argument('--config', required=True, help='settings file (JSON)')
    arguments = parser.parse_args(argv)
    # journald stamps each line; stdout is where systemd collects them.
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format='%(levelname)s %(message)s')
    try:
        config = load_config(arguments.config)
        client = build_client(config)
    except (WatchdogError, RuntimeError, ValueError) as exc:
        LOG.error('%s', exc)
        return 2
    stop = threading.Event()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signal_number, lambda *_args: stop.set())
    metrics = Metrics()
    watchdog = Watchdog(client, config.worker_id, StateStore(config.state_file), config.max_restarts, metrics=metrics)
    server = serve_metrics(metrics, config.metrics_address, config.metrics_port)
    LOG.info('watching worker %s through %s every %ss, max_restarts %s, metrics on %s:%s%s, state in %s',
             config.worker_id, ', '.join(config.urls), config.poll_interval, config.max_restarts or 'none',
             config.metrics_address, server.server_address[1], METRICS_PATH, config.state_file)
    try:
        run(watchdog, config.poll_interval, stop)
    finally:
        server.shutdown()
        server.server_close()
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
