# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One poll of the watchdog: read the statuses (and the exporter), plan with the pure decisions,
send the restarts, log them, keep the state and the metrics."""

from __future__ import annotations

import json
import logging
import time
from typing import Callable, Dict, Optional

from .decisions import Plan, Restart, Snapshot, Stall, UnitKey, WatchdogError, observe, plan_restarts
from .log_lines import LOG, format_restart, mask_secrets
from .metrics import Metrics
from .rest import ExporterError, ExporterReader
from .shared import TRANSPORT_ERRORS, ConnectApiError, ConnectClient
from .stalls import StallTrack, TaskReading, find_stall, is_copying, task_readings, track_stalls
from .state import StateStore


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
        except (ConnectApiError, WatchdogError) + TRANSPORT_ERRORS as exc:
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
        except (ConnectApiError,) + TRANSPORT_ERRORS as exc:
            # The attempt still counts: a worker that refuses is not asked again before the next delay.
            self.log.warning(format_restart(restart, 'failed (%s)' % mask_secrets(str(exc))))
            return
        self.metrics.restarted(key, stalled=restart.stall is not None)
        self.log.info(format_restart(restart, outcome))
