"""Continuous verification's two small services (docs/validator.md, "Continuous verification").

``python -m mm2_validator.continuous after-run --flow F --dir D --interval S --reports R --keep N``
is the ExecStopPost of the increment's oneshot unit: it counts the run that just ended (systemd's
$EXIT_CODE and $EXIT_STATUS; a refused state, a connection error or a kill is a failure), keeps its
JSON report as ``increment-<run>.json`` among the newest N, and rewrites ``<flow>.runs.prom``.

``python -m mm2_validator.continuous serve --dir D --address A --port P`` is the always-on exporter:
GET /metrics serves every ``*.prom`` of the state directory, merged, with their age.

Standard library and the collection's mm2_verification only: no Spark is started by either.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional, Sequence

from mm2_validator.shared import mm2_verification

LOG = logging.getLogger("mm2_validator.continuous")


class _Errors:
    """Files the exporter could not read, over its life (a counter)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0


class _MetricsHandler(BaseHTTPRequestHandler):
    directory = ""
    errors = _Errors()

    def do_GET(self) -> None:  # pylint: disable=invalid-name
        if self.path.split("?", 1)[0] != mm2_verification.METRICS_PATH:
            self.send_error(404)
            return
        with self.errors.lock:
            text, self.errors.count = mm2_verification.exporter_text(self.directory, time.time(), self.errors.count)
        body = text.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", mm2_verification.METRICS_CONTENT_TYPE)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # pylint: disable=redefined-builtin
        """Scrapes are not worth a log line."""


def serve(directory: str, address: str, port: int) -> ThreadingHTTPServer:
    """Serve GET /metrics on address:port from a daemon thread; port 0 picks a free one."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    server_class = type("MetricsServer", (ThreadingHTTPServer,), {"address_family": family, "daemon_threads": True})
    handler = type("MetricsHandler", (_MetricsHandler,), {"directory": directory, "errors": _Errors()})
    server = server_class((address, port), handler)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    return server


def after_run(args: argparse.Namespace, environ: Optional[dict] = None) -> int:
    environ = dict(os.environ if environ is None else environ)
    code = mm2_verification.exit_status(environ.get("EXIT_CODE", "exited"), environ.get("EXIT_STATUS", "0"))
    cpu_seconds = mm2_verification.unit_cpu_seconds(mm2_verification.read_text("/proc/self/cgroup") or "", mm2_verification.read_text)
    record = mm2_verification.after_run(args.dir, args.flow, code, args.interval, time.time(), cpu_seconds)
    kept = None
    if args.reports:
        kept = mm2_verification.archive_report(args.reports, os.path.join(args.reports, "latest.json"), args.keep)
    outcome = "completed" if code in mm2_verification.COMPLETED_EXIT_CODES else "FAILED"
    LOG.info(
        "flow %s: increment %s (exit %d, %s, %s CPU seconds); %d failed in a row; report %s",
        args.flow, outcome, code, environ.get("SERVICE_RESULT", "?"), "?" if cpu_seconds is None else f"{cpu_seconds:.1f}",
        record["consecutive_failures"], kept or "none",
    )
    return 0


def run_exporter(args: argparse.Namespace) -> int:
    stop = threading.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_args: stop.set())
    try:
        server = serve(args.dir, args.address, args.port)
    except OSError as error:
        LOG.error("cannot listen on %s:%d: %s", args.address, args.port, error)
        return 2
    LOG.info("serving the *.prom files of %s on %s:%d%s", args.dir, args.address, server.server_address[1],
             mm2_verification.METRICS_PATH)
    stop.wait()
    server.shutdown()
    server.server_close()
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mm2_validator.continuous", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    after = commands.add_parser("after-run", help="count the increment that just ended (the unit's ExecStopPost)")
    after.add_argument("--flow", required=True)
    after.add_argument("--dir", required=True, help="the state directory (metrics files)")
    after.add_argument("--interval", type=float, required=True, help="seconds between increments (shown as a metric)")
    after.add_argument("--reports", default="", help="directory of the increment's reports (latest.json)")
    after.add_argument("--keep", type=int, default=20, help="JSON reports kept")
    exporter = commands.add_parser("serve", help="serve the metrics files on /metrics")
    exporter.add_argument("--dir", required=True)
    exporter.add_argument("--address", default="0.0.0.0")
    exporter.add_argument("--port", type=int, default=9407)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    # journald stamps each line; stdout is where systemd collects them.
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(message)s")
    return after_run(args) if args.command == "after-run" else run_exporter(args)


if __name__ == "__main__":
    sys.exit(main())
