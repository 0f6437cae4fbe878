# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The watchdog as a service: its arguments, its signals, the server of its metrics and the poll
loop. systemd runs it as `python3 -m connect_watchdog --config <file>`."""

from __future__ import annotations

import argparse
import logging
import signal
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional, Sequence

from .config import describe_stall_detection, load_config
from .decisions import WatchdogError
from .log_lines import LOG
from .metrics import METRICS_CONTENT_TYPE, METRICS_PATH, Metrics
from .rest import build_client, build_exporter
from .state import StateStore
from .watchdog import Watchdog


def run(watchdog: Watchdog, interval: float, stop: threading.Event) -> None:
    """Poll every `interval` seconds until `stop` is set."""
    while not stop.is_set():
        watchdog.poll_once()
        stop.wait(interval)


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


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog='connect_watchdog',
                                     description='Restart the FAILED connectors and tasks of one Kafka Connect worker.')
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
