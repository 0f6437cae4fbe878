# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Prometheus text the watchdog serves on GET /metrics: restarts, stall restarts and caps by
connector and task, and the health of its own polls."""

from __future__ import annotations

import threading
from typing import Dict, Mapping

from .decisions import UnitKey, UnitState

METRICS_PATH = '/metrics'
METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'


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
