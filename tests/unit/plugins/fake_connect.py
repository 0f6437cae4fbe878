# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""An in-memory Kafka Connect REST API on loopback, for the module tests.

It keeps connectors in memory, records every request, and can be told to
misbehave: answer 409 a number of times, fail with a given status, report
validation errors, apply pause/resume/stop/restart only after some status
polls, and report failed connectors and tasks with a trace. Connector instances
and tasks run on WORKER_ID unless a test places them on another worker.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import parse_qs, unquote, urlsplit

Reply = Tuple[int, Any]

MIRROR_PLUGINS = [
    'org.apache.kafka.connect.mirror.MirrorSourceConnector',
    'org.apache.kafka.connect.mirror.MirrorCheckpointConnector',
    'org.apache.kafka.connect.mirror.MirrorHeartbeatConnector',
]
WORKER_ID = '127.0.0.1:8083'
REBALANCE_MESSAGE = 'Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)'
VALIDATE_SUFFIX = '/config/validate'


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: Dict[str, List[str]]
    body: Any
    authorization: Optional[str] = None


@dataclass
class FakeTask:
    task_id: int
    state: str = 'RUNNING'
    trace: Optional[str] = None
    worker_id: str = WORKER_ID

    def as_status(self) -> Dict[str, Any]:
        entry: Dict[str, Any] = {'id': self.task_id, 'state': self.state, 'worker_id': self.worker_id}
        if self.trace:
            entry['trace'] = self.trace
        return entry


@dataclass
class FakeConnector:
    name: str
    config: Dict[str, str]
    state: str = 'RUNNING'
    trace: Optional[str] = None
    tasks: List[FakeTask] = field(default_factory=list)
    pending_state: Optional[str] = None
    pending_polls: int = 0
    pending_restart: List[str] = field(default_factory=list)  # 'connector' or task ids as str
    worker_id: str = WORKER_ID

    def task_count(self) -> int:
        try:
            return max(0, int(self.config.get('tasks.max', '1')))
        except ValueError:
            return 1

    def kind(self) -> str:
        return 'sink' if 'Sink' in self.config.get('connector.class', '') else 'source'

    def as_status(self) -> Dict[str, Any]:
        connector: Dict[str, Any] = {'state': self.state, 'worker_id': self.worker_id}
        if self.trace:
            connector['trace'] = self.trace
        return {'name': self.name, 'connector': connector, 'tasks': [task.as_status() for task in self.tasks], 'type': self.kind()}

    def as_info(self) -> Dict[str, Any]:
        tasks = [{'connector': self.name, 'task': task.task_id} for task in self.tasks]
        return {'name': self.name, 'config': dict(self.config), 'tasks': tasks, 'type': self.kind()}

    def apply_state(self, state: str) -> None:
        """Move to a target state the way a worker would once the change reached it."""
        self.state = state
        if state == 'STOPPED':
            self.tasks = []
            return
        if not self.tasks:
            self.tasks = [FakeTask(task_id) for task_id in range(self.task_count())]
        for task in self.tasks:
            if task.state != 'FAILED':
                task.state = state

    def finish_restart(self) -> None:
        for unit in self.pending_restart:
            if unit == 'connector':
                self.state, self.trace = 'RUNNING', None
            else:
                task = self.tasks[int(unit)]
                task.state, task.trace = 'RUNNING', None
        self.pending_restart = []

    def on_status_poll(self) -> None:
        """Pending changes take effect after a number of polls."""
        if self.pending_state is None and not self.pending_restart:
            return
        self.pending_polls -= 1
        if self.pending_polls > 0:
            return
        if self.pending_state is not None:
            self.apply_state(self.pending_state)
            self.pending_state = None
        if self.pending_restart:
            self.finish_restart()


class FakeConnect:
    """State and behaviour switches of the fake worker; thread-safe."""

    def __init__(self, version: str = '3.9.0') -> None:
        self.version = version
        self.connectors: Dict[str, FakeConnector] = {}
        self.requests: List[RecordedRequest] = []
        self.conflicts_left = 0
        self.injected_errors: List[Dict[str, Any]] = []
        self.validation_errors: Dict[str, List[str]] = {}
        self.transition_polls = 0
        self.topic_tracking = True
        self.offsets_supported = True
        self.lock = threading.Lock()
        self._server: Optional[ThreadingHTTPServer] = None
        self._thread: Optional[threading.Thread] = None

    # ---- lifecycle -------------------------------------------------------

    def start(self) -> 'FakeConnect':
        handler = type('BoundHandler', (FakeConnectHandler,), {'fake': self})
        self._server = ThreadingHTTPServer(('127.0.0.1', 0), handler)
        self._server.daemon_threads = True
        # A short poll interval keeps shutdown (once per test) quick.
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={'poll_interval': 0.05}, name='fake-connect', daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def url(self) -> str:
        assert self._server is not None
        return 'http://127.0.0.1:%d' % self._server.server_address[1]

    # ---- test controls ---------------------------------------------------

    def answer_conflict(self, times: int) -> None:
        """The next `times` requests get 409 (a very large number means always)."""
        self.conflicts_left = times

    def inject_error(self, status: int, message: str, method: Optional[str] = None, path_contains: str = '', times: int = 1) -> None:
        self.injected_errors.append({'status': status, 'message': message, 'method': method, 'path': path_contains, 'times': times})

    def add_connector(self, name: str, config: Dict[str, str], state: str = 'RUNNING') -> FakeConnector:
        connector = FakeConnector(name=name, config=dict(config, name=name))
        connector.apply_state(state)
        self.connectors[name] = connector
        return connector

    def fail_task(self, name: str, task_id: int, trace: str) -> None:
        task = self.connectors[name].tasks[task_id]
        task.state, task.trace = 'FAILED', trace

    def fail_connector(self, name: str, trace: str) -> None:
        connector = self.connectors[name]
        connector.state, connector.trace = 'FAILED', trace

    def writes(self) -> List[RecordedRequest]:
        """Requests that change something (validation only reads)."""
        return [
            request for request in self.requests
            if request.method in ('PUT', 'POST', 'DELETE') and not request.path.endswith(VALIDATE_SUFFIX)
        ]

    def clear_requests(self) -> None:
        self.requests.clear()

    # ---- request handling ------------------------------------------------

    def handle(self, method: str, raw_path: str, body: Any, authorization: Optional[str] = None) -> Reply:
        split = urlsplit(raw_path)
        segments = [unquote(segment) for segment in split.path.strip('/').split('/') if segment]
        query = parse_qs(split.query)
        with self.lock:
            self.requests.append(RecordedRequest(method, '/' + '/'.join(segments), query, body, authorization))
            injected = self._injected_reply(method, split.path)
            if injected:
                return injected
            return self._route(method, segments, query, body)

    def _injected_reply(self, method: str, path: str) -> Optional[Reply]:
        if self.conflicts_left > 0:
            self.conflicts_left -= 1
            return 409, {'error_code': 409, 'message': REBALANCE_MESSAGE}
        for error in self.injected_errors:
            if error['times'] > 0 and error['method'] in (None, method) and error['path'] in path:
                error['times'] -= 1
                return error['status'], {'error_code': error['status'], 'message': error['message']}
        return None

    def _route(self, method: str, segments: List[str], query: Dict[str, List[str]], body: Any) -> Reply:
        if not segments:
            return self._root()
        if segments[0] == 'connector-plugins':
            return self._plugins(method, segments, body)
        if segments[0] == 'connectors' and len(segments) == 1:
            return self._list(query)
        if segments[0] == 'connectors':
            return self._connector(method, segments[1], segments[2:], query, body)
        return not_found()

    def _root(self) -> Reply:
        return 200, {'version': self.version, 'commit': 'fakecommit0001', 'kafka_cluster_id': 'fake-cluster-id'}

    def _plugins(self, method: str, segments: List[str], body: Any) -> Reply:
        if len(segments) == 1 and method == 'GET':
            return 200, [{'class': cls, 'type': 'source', 'version': self.version} for cls in MIRROR_PLUGINS]
        if segments[2:] == ['config', 'validate'] and method == 'PUT':
            return 200, self._validation_report(segments[1], body or {})
        return not_found()

    def _validation_report(self, plugin_class: str, config: Dict[str, Any]) -> Dict[str, Any]:
        fields = list(config) + [name for name in self.validation_errors if name not in config]
        configs = [
            {
                'definition': {'name': name},
                'value': {
                    'name': name, 'value': config.get(name), 'recommended_values': [],
                    'errors': list(self.validation_errors.get(name, [])), 'visible': True,
                },
            }
            for name in fields
        ]
        error_count = sum(len(errors) for errors in self.validation_errors.values())
        return {'name': plugin_class, 'error_count': error_count, 'groups': ['Common'], 'configs': configs}

    def _list(self, query: Dict[str, List[str]]) -> Reply:
        expand = query.get('expand', [])
        if not expand:
            return 200, sorted(self.connectors)
        answer: Dict[str, Any] = {}
        for name, connector in self.connectors.items():
            answer[name] = {}
            if 'status' in expand:
                answer[name]['status'] = connector.as_status()
            if 'info' in expand:
                answer[name]['info'] = connector.as_info()
        return 200, answer

    def _connector(self, method: str, name: str, rest: List[str], query: Dict[str, List[str]], body: Any) -> Reply:
        action = '/'.join(rest)
        if method == 'PUT' and action == 'config':
            return self._put_config(name, body)
        connector = self.connectors.get(name)
        if connector is None:
            return 404, {'error_code': 404, 'message': 'Connector %s not found' % name}
        handlers = {
            ('GET', ''): lambda: (200, connector.as_info()),
            ('GET', 'config'): lambda: (200, dict(connector.config)),
            ('GET', 'status'): lambda: self._status(connector),
            ('DELETE', ''): lambda: self._delete(name),
            ('PUT', 'pause'): lambda: self._target_state(connector, 'PAUSED'),
            ('PUT', 'resume'): lambda: self._target_state(connector, 'RUNNING'),
            ('PUT', 'stop'): lambda: self._target_state(connector, 'STOPPED'),
            ('POST', 'restart'): lambda: self._restart(connector, query),
            ('GET', 'topics'): lambda: self._topics(connector),
            ('GET', 'offsets'): lambda: self._offsets(connector),
        }
        if method == 'POST' and len(rest) == 3 and rest[0] == 'tasks' and rest[2] == 'restart':
            return self._restart_task(connector, rest[1])
        handler = handlers.get((method, action))
        return handler() if handler else not_found()

    def _put_config(self, name: str, body: Any) -> Reply:
        config = {str(key): str(value) for key, value in (body or {}).items()}
        config['name'] = name
        existing = self.connectors.get(name)
        if existing is None:
            connector = FakeConnector(name=name, config=config)
            connector.apply_state('RUNNING')
            self.connectors[name] = connector
            return 201, connector.as_info()
        existing.config = config
        return 200, existing.as_info()

    def _status(self, connector: FakeConnector) -> Reply:
        connector.on_status_poll()
        return 200, connector.as_status()

    def _delete(self, name: str) -> Reply:
        del self.connectors[name]
        return 204, None

    def _target_state(self, connector: FakeConnector, state: str) -> Reply:
        if self.transition_polls <= 0:
            connector.apply_state(state)
        else:
            connector.pending_state, connector.pending_polls = state, self.transition_polls
        return 202, None

    def _restart(self, connector: FakeConnector, query: Dict[str, List[str]]) -> Reply:
        include_tasks = query.get('includeTasks', ['false'])[0] == 'true'
        only_failed = query.get('onlyFailed', ['false'])[0] == 'true'
        units = ['connector'] + ([str(task.task_id) for task in connector.tasks] if include_tasks else [])
        if only_failed:
            units = [unit for unit in units if self._unit_state(connector, unit) == 'FAILED']
        connector.pending_restart = units
        if self.transition_polls <= 0:
            connector.finish_restart()
        else:
            connector.pending_polls = self.transition_polls
        if not include_tasks and not only_failed:
            return 204, None
        return 202, connector.as_status()

    def _restart_task(self, connector: FakeConnector, task_id: str) -> Reply:
        if not task_id.isdigit() or int(task_id) >= len(connector.tasks):
            return 404, {'error_code': 404, 'message': 'Unknown task: %s-%s' % (connector.name, task_id)}
        connector.pending_restart = [task_id]
        if self.transition_polls <= 0:
            connector.finish_restart()
        else:
            connector.pending_polls = self.transition_polls
        return 204, None

    @staticmethod
    def _unit_state(connector: FakeConnector, unit: str) -> str:
        return connector.state if unit == 'connector' else connector.tasks[int(unit)].state

    def _topics(self, connector: FakeConnector) -> Reply:
        if not self.topic_tracking:
            return 403, {'error_code': 403, 'message': 'Topic tracking is disabled.'}
        return 200, {connector.name: {'topics': ['heartbeats']}}

    def _offsets(self, _connector: FakeConnector) -> Reply:
        if not self.offsets_supported:
            return not_found()
        partition = {'cluster': 'source', 'topic': 'orders', 'partition': 0}
        return 200, {'offsets': [{'partition': partition, 'offset': {'offset': 42}}]}


def not_found() -> Reply:
    return 404, {'error_code': 404, 'message': 'HTTP 404 Not Found'}


class FakeConnectHandler(BaseHTTPRequestHandler):
    """Translates HTTP to FakeConnect.handle; `fake` is bound per server."""

    fake: FakeConnect
    protocol_version = 'HTTP/1.1'

    def _dispatch(self) -> None:
        length = int(self.headers.get('Content-Length') or 0)
        raw = self.rfile.read(length) if length else b''
        body = json.loads(raw) if raw else None
        status, payload = self.fake.handle(self.command, self.path, body, self.headers.get('Authorization'))
        data = b'' if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_PUT = do_POST = do_DELETE = _dispatch

    def log_message(self, format: str, *args: Any) -> None:  # pylint: disable=redefined-builtin
        """Keep the test output quiet."""
