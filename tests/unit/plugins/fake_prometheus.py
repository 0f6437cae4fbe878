# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Prometheus HTTP API on loopback with canned answers, for the mm2_status module tests.

Instant queries (/api/v1/query) answer the series registered for the first fragment the
PromQL contains; range queries (/api/v1/query_range) evaluate a function of each point's
age (seconds before `end`) on the requested grid, so a test can say "this counter last
increased 20 s ago". Unknown queries answer an empty vector, as Prometheus does for
metrics it has never seen. Every request is recorded with its Authorization header.
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Tuple
from urllib.parse import parse_qs, urlsplit

Labels = Dict[str, str]
ValueAtAge = Callable[[float], float]


@dataclass
class RecordedQuery:
    path: str
    params: Dict[str, str]
    authorization: Optional[str]


def prometheus_number(value: float) -> str:
    """Sample values travel as strings, NaN and infinities included."""
    if math.isnan(value):
        return 'NaN'
    return repr(float(value))


def counter_increased(seconds_ago: float, before: float = 100.0, after: float = 101.0) -> ValueAtAge:
    """A counter that stepped from `before` to `after` `seconds_ago` seconds before the query's end."""
    return lambda age: after if age <= seconds_ago else before


class FakePrometheus:
    def __init__(self) -> None:
        self.instant: List[Tuple[str, List[Tuple[Labels, float]]]] = []
        self.ranges: List[Tuple[str, List[Tuple[Labels, ValueAtAge]]]] = []
        self.error: Optional[Tuple[int, Any]] = None
        self.requests: List[RecordedQuery] = []
        self.lock = threading.Lock()
        self._server: Optional[ThreadingHTTPServer] = None

    def start(self) -> 'FakePrometheus':
        handler = type('BoundHandler', (FakePrometheusHandler,), {'fake': self})
        self._server = ThreadingHTTPServer(('127.0.0.1', 0), handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={'poll_interval': 0.05}, name='fake-prometheus', daemon=True).start()
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

    def answer(self, fragment: str, series: List[Tuple[Labels, float]]) -> None:
        self.instant.append((fragment, series))

    def answer_range(self, fragment: str, series: List[Tuple[Labels, ValueAtAge]]) -> None:
        self.ranges.append((fragment, series))

    def fail_with(self, status: int, error_type: str, message: str) -> None:
        self.error = (status, {'status': 'error', 'errorType': error_type, 'error': message})

    def queries(self, path: str) -> List[str]:
        return [request.params.get('query', '') for request in self.requests if request.path == path]

    # ---- request handling ------------------------------------------------

    def handle(self, raw_path: str, authorization: Optional[str]) -> Tuple[int, Any]:
        split = urlsplit(raw_path)
        params = {key: values[0] for key, values in parse_qs(split.query).items()}
        with self.lock:
            self.requests.append(RecordedQuery(split.path, params, authorization))
            if self.error is not None:
                return self.error
            if split.path == '/api/v1/query':
                return 200, self._instant(params)
            if split.path == '/api/v1/query_range':
                return 200, self._range(params)
        return 404, {'status': 'error', 'errorType': 'not_found', 'error': 'no such path'}

    def _instant(self, params: Dict[str, str]) -> Dict[str, Any]:
        query, stamp = params['query'], float(params.get('time', '0'))
        for fragment, series in self.instant:
            if fragment in query:
                result = [{'metric': labels, 'value': [stamp, prometheus_number(value)]} for labels, value in series]
                return {'status': 'success', 'data': {'resultType': 'vector', 'result': result}}
        return {'status': 'success', 'data': {'resultType': 'vector', 'result': []}}

    def _range(self, params: Dict[str, str]) -> Dict[str, Any]:
        query = params['query']
        start, end, step = float(params['start']), float(params['end']), float(params['step'].rstrip('s'))
        grid = []
        point = start
        while point <= end + 1e-6:
            grid.append(point)
            point += step
        for fragment, series in self.ranges:
            if fragment in query:
                result = [
                    {'metric': labels, 'values': [[stamp, prometheus_number(value_at(end - stamp))] for stamp in grid]}
                    for labels, value_at in series
                ]
                return {'status': 'success', 'data': {'resultType': 'matrix', 'result': result}}
        return {'status': 'success', 'data': {'resultType': 'matrix', 'result': []}}


class FakePrometheusHandler(BaseHTTPRequestHandler):
    fake: FakePrometheus
    protocol_version = 'HTTP/1.1'

    def do_GET(self) -> None:  # pylint: disable=invalid-name
        status, payload = self.fake.handle(self.path, self.headers.get('Authorization'))
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # pylint: disable=redefined-builtin
        """Keep the test output quiet."""
