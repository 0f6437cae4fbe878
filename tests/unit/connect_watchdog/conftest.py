# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures for the restart watchdog's unit tests: the package of role connect_worker's files on
sys.path (as the unit's PYTHONPATH puts it on a worker), the fake Connect worker of the plugins'
tests, a settable clock, the watchdog's log lines and a served exporter page."""

from __future__ import annotations

import base64
import logging
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator, List, Tuple

import pytest

UNIT_TESTS = Path(__file__).resolve().parents[1]
WATCHDOG_FILES = UNIT_TESTS.parent.parent / 'roles' / 'connect_worker' / 'files'
for directory in (WATCHDOG_FILES, UNIT_TESTS / 'plugins', Path(__file__).resolve().parent):
    if str(directory) not in sys.path:
        sys.path.insert(0, str(directory))

from connect_watchdog.log_lines import LOG  # noqa: E402  pylint: disable=wrong-import-position
from fake_connect import FakeConnect  # noqa: E402  pylint: disable=wrong-import-position
from watchdog_helpers import Clock, free_port  # noqa: E402  pylint: disable=wrong-import-position


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    # Loopback traffic must never go through a proxy configured in the environment.
    monkeypatch.setenv('NO_PROXY', '127.0.0.1,localhost')
    monkeypatch.setenv('no_proxy', '127.0.0.1,localhost')


@pytest.fixture
def fake() -> Iterator[FakeConnect]:
    server = FakeConnect().start()
    yield server
    server.stop()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def state_file(tmp_path: Path) -> Path:
    return tmp_path / 'state.json'


@pytest.fixture
def closed_port_url() -> str:
    """A loopback URL nobody listens on."""
    return 'http://127.0.0.1:%d' % free_port()


@pytest.fixture
def log_lines(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    caplog.set_level(logging.INFO, logger=LOG.name)
    yield caplog


class ExporterHandler(BaseHTTPRequestHandler):
    """A worker's exporter endpoint: `page` with `status`, behind basic authentication when
    `credentials` (user:password) is set; the Accept headers it got in `accepts`."""

    page = ''
    status = 200
    credentials = ''
    accepts: List[str] = []

    def do_GET(self) -> None:  # pylint: disable=invalid-name
        self.accepts.append(self.headers.get('Accept', ''))
        expected = 'Basic ' + base64.b64encode(self.credentials.encode()).decode()
        if self.credentials and self.headers.get('Authorization') != expected:
            self.send_response(401)
            self.send_header('WWW-Authenticate', 'Basic realm="/"')
            self.end_headers()
            return
        body = self.page.encode('utf-8')
        self.send_response(self.status)
        self.send_header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # pylint: disable=redefined-builtin
        """Quiet."""


@pytest.fixture
def exporter_server() -> Iterator[Tuple[str, type]]:
    handler = type('Handler', (ExporterHandler,), {'accepts': []})
    server = ThreadingHTTPServer(('127.0.0.1', 0), handler)
    threading.Thread(target=server.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True).start()
    try:
        yield 'http://127.0.0.1:%d/metrics' % server.server_address[1], handler
    finally:
        server.shutdown()
        server.server_close()
