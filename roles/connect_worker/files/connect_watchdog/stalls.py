# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Stalled tasks: a RUNNING MirrorSourceConnector task of this worker whose write counter did not
move for a whole window while records waited on the source (or more of them came). Pure
functions of the exporter's page, the histories kept in memory and the time."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Dict, Iterable, Mapping, Optional, Tuple

from .decisions import LEFT_ALONE_STATES, RECORDS_GROWING, RECORDS_WAITING, RUNNING, Observation, Snapshot, Stall, UnitKey
from .shared import Sample

# The series of the worker's JMX exporter (extensions/monitoring/jmx_exporter/connect.yml) that
# stall detection reads: records a source task wrote, and per source partition of a
# MirrorSourceConnector task the records its consumer has not read yet (at its last fetch).
WRITE_TOTAL_METRIC = 'kafka_connect_source_task_source_record_write_total'
CONSUMER_LAG_METRIC = 'kafka_connect_mirror_source_consumer_records_lag'


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
