# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The exporter as a service: its arguments, its signals, the server of its metrics and the
measurement loop. systemd runs it as `<failover venv>/bin/python -m readiness_exporter --config <file>`."""

from __future__ import annotations

import argparse
import logging
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Mapping, Optional, Sequence

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import JvmKafkaSide, KafkaJvm
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_readiness_exporter import (
    METRICS_CONTENT_TYPE,
    METRICS_PATH,
    ExporterError,
    ExporterSettings,
    ReadinessMetrics,
    TopicIdStore,
    fail_round,
    load_settings,
    measure_flow,
    measure_round,
)

LOG = logging.getLogger('readiness_exporter')


class _MetricsHandler(BaseHTTPRequestHandler):
    metrics: ReadinessMetrics

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


def serve_metrics(metrics: ReadinessMetrics, address: str, port: int) -> ThreadingHTTPServer:
    """Serve GET /metrics on address:port from a daemon thread; port 0 picks a free one."""
    family = socket.AF_INET6 if ':' in address else socket.AF_INET
    server_class = type('MetricsServer', (ThreadingHTTPServer,), {'address_family': family, 'daemon_threads': True})
    handler = type('MetricsHandler', (_MetricsHandler,), {'metrics': metrics})
    server = server_class((address, port), handler)
    threading.Thread(target=server.serve_forever, name='metrics', daemon=True).start()
    return server


def jvm_round(settings: ExporterSettings, metrics: ReadinessMetrics, store: TopicIdStore,
              start_jvm: Optional[Callable[[], Any]] = None) -> None:
    """One round: a JVM for the Kafka clients, each flow measured, the JVM stopped. A fresh JVM per round
    keeps no client, connection or credential between rounds, and a crash of one never outlives it."""
    starter = start_jvm or (lambda: KafkaJvm(settings.kafka_home, settings.java))
    try:
        jvm = starter()
    except RuntimeError as exc:
        fail_round(settings.flows, metrics, str(exc), LOG.error)
        return
    timeout_ms = settings.kafka_timeout * 1000

    def open_side(alias: str, client: Mapping[str, str]) -> Any:
        return JvmKafkaSide(jvm, alias, client, timeout_ms, purpose='readiness-exporter')

    try:
        measure_round(settings.flows, lambda flow: measure_flow(settings, flow, store, open_side, time.time), metrics,
                      time.time, LOG.info)
    finally:
        jvm.close()


def run(round_once: Callable[[], None], interval: float, stop: threading.Event) -> None:
    """A round, then a wait of `interval` seconds, until `stop` is set."""
    while not stop.is_set():
        round_once()
        stop.wait(interval)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog='readiness_exporter',
                                     description='Measure the DR readiness of MirrorMaker 2 flows and serve it as Prometheus metrics.')
    parser.add_argument('--config', required=True, help='settings file (JSON)')
    arguments = parser.parse_args(argv)
    # journald stamps each line; stdout is where systemd collects them.
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format='%(levelname)s %(message)s')
    try:
        settings = load_settings(arguments.config)
    except ExporterError as exc:
        LOG.error('%s', exc)
        return 2
    stop = threading.Event()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signal_number, lambda *_args: stop.set())
    names = [str(flow['name']) for flow in settings.flows]
    metrics = ReadinessMetrics(names, settings.interval)
    store = TopicIdStore(settings.state_dir)
    server = serve_metrics(metrics, settings.metrics_address, settings.metrics_port)
    LOG.info('measuring flows %s every %ss with the Kafka clients of %s, metrics on %s:%s%s, topic ids in %s',
             ', '.join(names), settings.interval, settings.kafka_home, settings.metrics_address, server.server_address[1],
             METRICS_PATH, settings.state_dir)
    try:
        run(lambda: jvm_round(settings, metrics, store), settings.interval, stop)
    finally:
        server.shutdown()
        server.server_close()
    return 0
