# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The readiness exporter's decisions: its settings, one measurement round over its flows, and the
figures of the last readiness reports as Prometheus metrics (docs/readiness.md, "Metrics and alerts").

The exporter (role readiness, package files/readiness_exporter) runs the readiness check of
module mm2_readiness again every interval, with this same code shipped next to it, and serves what
it measured on GET /metrics. Everything here is plain data in and out, so it is tested in process.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import resolve_file_placeholders
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_readiness import (
    MM2_DEFAULT_GROUPS_EXCLUDE,
    Readiness,
    ReadinessRequest,
    ReadinessSide,
    accepted_starts_document,
    accepted_starts_of,
    build_request,
    input_errors,
    readiness_state,
    readiness_state_accepted,
    readiness_state_ids,
    state_accepted_starts,
    state_topic_ids,
)

METRICS_PATH = '/metrics'
METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'
# What a flow entry of the settings holds: the answer of kafka_dr.mm2.mm2_plan (operation readiness).
FLOW_KEYS = ('name', 'source_alias', 'target_alias', 'source_client', 'target_client', 'topics_regex', 'replication_policy',
             'separator', 'checkpoints_topic', 'offset_syncs_topic', 'offset_syncs_location', 'groups', 'groups_exclude',
             'offset_lag_max', 'consumers', 'producers')
REQUIRED_FLOW_KEYS = ('name', 'source_alias', 'target_alias', 'source_client', 'target_client')
UNSAFE = re.compile('[^A-Za-z0-9_.-]+')


class ExporterError(Exception):
    """Settings the exporter cannot run with; the message names the setting, never a value."""


# ---- settings ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class ExporterSettings:
    """The settings file role readiness writes (JSON, 0600, owned by the service user)."""

    flows: Tuple[Dict[str, Any], ...]
    state_dir: str
    interval: float = 60.0
    metrics_address: str = '0.0.0.0'
    metrics_port: int = 9406
    kafka_home: str = '/opt/kafka/current'
    java: str = 'java'
    kafka_timeout: int = 30
    rpo_seconds: float = 60.0
    groups: Tuple[str, ...] = ()
    groups_regex: str = ''
    accept_recreated: bool = False
    accept_truncated: bool = False
    max_scan_records: int = 100000


_SETTING_TYPES: Dict[str, Tuple[type, ...]] = {
    'flows': (list,), 'state_dir': (str,), 'interval': (int, float), 'metrics_address': (str,), 'metrics_port': (int,),
    'kafka_home': (str,), 'java': (str,), 'kafka_timeout': (int,), 'rpo_seconds': (int, float), 'groups': (list,),
    'groups_regex': (str,), 'accept_recreated': (bool,), 'accept_truncated': (bool,), 'max_scan_records': (int,),
}


def _check_types(document: Mapping[str, Any]) -> None:
    unknown = sorted(set(document) - set(_SETTING_TYPES))
    if unknown:
        raise ExporterError('unknown settings: %s' % ', '.join(unknown))
    for name, types in _SETTING_TYPES.items():
        value = document.get(name)
        if value is not None and (not isinstance(value, types) or (isinstance(value, bool) and bool not in types)):
            raise ExporterError('setting %s must be %s' % (name, ' or '.join(kind.__name__ for kind in types)))


def parse_settings(document: Any) -> ExporterSettings:
    """Checked settings, each flow checked as the module checks its arguments."""
    if not isinstance(document, Mapping):
        raise ExporterError('the settings must be a JSON object')
    _check_types(document)
    if not document.get('flows') or not document.get('state_dir'):
        raise ExporterError('missing settings: flows and state_dir are required')
    values = {name: value for name, value in document.items() if value is not None}
    values['flows'] = tuple(dict(flow) if isinstance(flow, Mapping) else flow for flow in document['flows'])
    values['groups'] = tuple(document.get('groups') or ())
    settings = ExporterSettings(**values)
    if not (math.isfinite(settings.interval) and settings.interval > 0):
        raise ExporterError('setting interval must be a positive number of seconds')
    if not (math.isfinite(settings.rpo_seconds) and settings.rpo_seconds > 0):
        raise ExporterError('setting rpo_seconds must be a positive number of seconds (the recovery point objective)')
    if not 0 <= settings.metrics_port < 65536:
        raise ExporterError('setting metrics_port must be 0-65535')
    names = []
    for index, flow in enumerate(settings.flows):
        errors = flow_errors(settings, flow)
        if errors:
            raise ExporterError('flow %d: %s' % (index + 1, '; '.join(errors)))
        names.append(flow['name'])
    if len(set(names)) != len(names):
        raise ExporterError('setting flows names a flow twice')
    return settings


def flow_errors(settings: ExporterSettings, flow: Any) -> List[str]:
    if not isinstance(flow, Mapping):
        return ['a flow must be an object']
    missing = [key for key in REQUIRED_FLOW_KEYS if not flow.get(key)]
    if missing:
        return ['missing %s' % ', '.join(missing)]
    unknown = sorted(set(flow) - set(FLOW_KEYS))
    if unknown:
        return ['unknown keys %s' % ', '.join(unknown)]
    return input_errors(flow_params(settings, flow, {}))


def flow_params(settings: ExporterSettings, flow: Mapping[str, Any], known_ids: Mapping[str, str],
                accepted_log_starts: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """The arguments module mm2_readiness would get for this flow (the role passes the same values)."""
    return {
        'flow': flow['name'],
        'source_alias': flow['source_alias'],
        'target_alias': flow['target_alias'],
        'source_client': dict(flow['source_client']),
        'target_client': dict(flow['target_client']),
        'topics_regex': flow.get('topics_regex') or '',
        'groups': list(settings.groups),
        'groups_regex': settings.groups_regex,
        'flow_groups': list(flow.get('groups') or ['.*']),
        'flow_groups_exclude': list(flow['groups_exclude']) if flow.get('groups_exclude') is not None
        else list(MM2_DEFAULT_GROUPS_EXCLUDE),
        'checkpoints_topic': flow.get('checkpoints_topic'),
        'offset_syncs_location': flow.get('offset_syncs_location') or 'source',
        'offset_syncs_topic': flow.get('offset_syncs_topic'),
        'replication_policy': flow.get('replication_policy') or 'default',
        'separator': flow.get('separator') or '.',
        'offset_lag_max': int(flow.get('offset_lag_max') or 100),
        'rpo_seconds': float(settings.rpo_seconds),
        # The recovery time is the controller's failover reports' figure: playbooks/readiness.yml shows it.
        'rto_seconds': 0.0,
        'consumers': [{'principal': entry['principal'], 'groups': list(entry.get('groups') or [])}
                      for entry in flow.get('consumers') or []],
        'producers': [{'principal': entry['principal'], 'transactional_ids': list(entry.get('transactional_ids') or [])}
                      for entry in flow.get('producers') or []],
        'known_topic_ids': dict(known_ids),
        'accept_recreated': settings.accept_recreated,
        'accepted_log_starts': dict(accepted_log_starts or {}),
        'accept_truncated': settings.accept_truncated,
        'last_failover_report': None,
        'last_failover_report_path': '',
        'max_scan_records': settings.max_scan_records,
    }


def flow_request(settings: ExporterSettings, flow: Mapping[str, Any], known_ids: Mapping[str, str],
                 accepted_log_starts: Optional[Mapping[str, Any]] = None) -> ReadinessRequest:
    return build_request(flow_params(settings, flow, known_ids, accepted_log_starts))


def load_settings(path: str) -> ExporterSettings:
    try:
        with open(path, encoding='utf-8') as handle:
            document = json.load(handle)
    except (OSError, ValueError) as exc:
        raise ExporterError('cannot read settings %s: %s' % (path, exc)) from exc
    return parse_settings(document)


# ---- the known topic ids, kept in the service's state directory -----------------------------------

class TopicIdStore:
    """One state file per flow, in the format of the controller's (playbooks/readiness.yml)."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def path(self, flow: str) -> str:
        return os.path.join(self.directory, 'readiness-%s.json' % UNSAFE.sub('_', flow))

    def _text(self, flow: str) -> str:
        try:
            with open(self.path(flow), encoding='utf-8') as handle:
                return handle.read()
        except FileNotFoundError:
            return ''

    def load(self, flow: str) -> Dict[str, str]:
        """The ids the previous measurement saw; none when there is no file. A damaged file is an error."""
        return readiness_state_ids(self._text(flow))

    def load_accepted(self, flow: str) -> Dict[str, Dict[str, int]]:
        """The log starts up to which losses were accepted (topic -> partition -> offset); none without a file."""
        return readiness_state_accepted(self._text(flow))

    def save(self, flow: str, topic_ids: Mapping[str, Any], measured_at: str,
             accepted_log_starts: Optional[Mapping[str, Any]] = None) -> None:
        """Written whole, then renamed: a crash never leaves half a file."""
        path = self.path(flow)
        temporary = path + '.new'
        with open(temporary, 'w', encoding='utf-8') as handle:
            handle.write(readiness_state(topic_ids, flow, measured_at, accepted_log_starts))
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)


# ---- one measurement round -------------------------------------------------------------------------

@dataclass
class FlowFigures:
    """What the exporter knows of one flow: the last successful report, when, and the failures."""

    report: Optional[Dict[str, Any]] = None
    last_success: float = 0.0
    duration: float = 0.0
    errors: int = 0
    last_error: str = ''


class ReadinessMetrics:
    """The figures of every flow, written by the measurement loop and read by the metrics server's threads."""

    def __init__(self, flows: Sequence[str], interval: float) -> None:
        self._lock = threading.Lock()
        self._interval = interval
        self._flows: Dict[str, FlowFigures] = {name: FlowFigures() for name in flows}

    def measured(self, flow: str, report: Mapping[str, Any], now: float, duration: float) -> None:
        with self._lock:
            figures = self._flows.setdefault(flow, FlowFigures())
            figures.report, figures.last_success, figures.duration = dict(report), now, duration

    def failed(self, flow: str, error: str) -> None:
        """The figures of the last success stay; its timestamp ages, which is what the alerts watch."""
        with self._lock:
            figures = self._flows.setdefault(flow, FlowFigures())
            figures.errors += 1
            figures.last_error = error

    def snapshot(self) -> Dict[str, FlowFigures]:
        with self._lock:
            return {name: FlowFigures(figures.report, figures.last_success, figures.duration, figures.errors, figures.last_error)
                    for name, figures in self._flows.items()}

    def render(self) -> str:
        return render_metrics(self.snapshot(), self._interval)


Measure = Callable[[Mapping[str, Any]], Mapping[str, Any]]
# (cluster alias, client settings with the secrets resolved) -> a cluster the readiness reads; it has close().
OpenSide = Callable[[str, Mapping[str, str]], ReadinessSide]


def measure_flow(settings: ExporterSettings, flow: Mapping[str, Any], store: TopicIdStore, open_side: OpenSide,
                 clock: Callable[[], float]) -> Dict[str, Any]:
    """One readiness run of a flow, as module mm2_readiness runs it; the topic ids it saw are kept for the next.
    The ${file:path:key} placeholders are resolved at each run, so a rotated password is picked up."""
    name = str(flow['name'])
    known = store.load(name)
    accepted = store.load_accepted(name)
    request = flow_request(settings, flow, known, accepted)
    sides: List[Any] = []
    try:
        source = open_side(flow['source_alias'], resolve_file_placeholders(flow['source_client']))
        sides.append(source)
        target = open_side(flow['target_alias'], resolve_file_placeholders(flow['target_client']))
        sides.append(target)
        report = Readiness(request, source, target, clock=clock).run()
    finally:
        for side in sides:
            side.close()
    accepted_now = state_accepted_starts(report.recovery_point, accepted_starts_of(accepted), settings.accept_truncated)
    store.save(name, state_topic_ids(report.topic_ids, known, settings.accept_recreated), report.measured_at,
               accepted_starts_document(accepted_now))
    return report.as_dict()


def measure_round(flows: Sequence[Mapping[str, Any]], measure: Measure, metrics: ReadinessMetrics,
                  clock: Callable[[], float], log: Callable[[str], None]) -> int:
    """Measure each flow once; a flow that fails is counted and logged, and the others are still measured.
    Returns the number of flows that failed."""
    failures = 0
    for flow in flows:
        name = str(flow['name'])
        started = clock()
        try:
            report = measure(flow)
        except Exception as exc:  # pylint: disable=broad-exception-caught  # one flow's failure must not stop the service
            failures += 1
            message = '%s: %s' % (type(exc).__name__, exc)
            metrics.failed(name, message)
            log('flow %s: measurement failed: %s' % (name, message))
            continue
        finished = clock()
        metrics.measured(name, report, finished, finished - started)
        log('flow %s: %s, %d problems, recovery point %s s, %.1f s' % (
            name, report.get('verdict'), len(report.get('problems') or []),
            (report.get('summary') or {}).get('recovery_point_s'), finished - started))
    return failures


def fail_round(flows: Sequence[Mapping[str, Any]], metrics: ReadinessMetrics, error: str, log: Callable[[str], None]) -> None:
    """Nothing could be measured (the JVM of the Kafka clients did not start): each flow counts an error."""
    for flow in flows:
        metrics.failed(str(flow['name']), error)
    log('no flow measured: %s' % error)


# ---- the Prometheus text ------------------------------------------------------------------------------

PREFIX = 'kafka_dr_readiness_'
# name (without the prefix) -> (type, help)
METRICS: Dict[str, Tuple[str, str]] = {
    'ready': ('gauge', '1 when the last measurement found the flow READY, 0 when NOT READY.'),
    'problems': ('gauge', 'Problems (reasons for NOT READY) the last measurement found.'),
    'uncopied_records': ('gauge', 'Source records of a partition not on the target: what a failover now would lose.'),
    'uncopied_seconds': ('gauge', 'Age of the oldest source record of a partition not on the target (recovery point in time).'),
    'recovery_point_seconds': ('gauge', 'The oldest record not on the target over all partitions of the flow.'),
    'recovery_point_unknown_partitions': ('gauge', 'Partitions whose recovery point could not be measured.'),
    'failover_rereads': ('gauge', 'Records a consumer group would read again if failed over now (kind planned or unplanned).'),
    'failover_skipped_records': ('gauge', 'Records an unplanned failover now would skip for a group (its checkpoint is ahead).'),
    'untranslated_groups': ('gauge', 'Consumer groups MM2 has not translated, or only partly.'),
    'truncated_records': ('gauge', 'Source records of a partition deleted before MM2 copied them (silent loss).'),
    'recreated_topics': ('gauge', 'Source topics found deleted and re-created behind MM2.'),
    'target_truncated_partitions': ('gauge', 'Remote partitions re-created or truncated on the target behind MM2.'),
    'sentinel': ('gauge', '1 per silent-loss finding: kind truncated, recreated or target-truncated (partition empty: the topic).'),
    'last_success_timestamp_seconds': ('gauge', 'Unix time of the last measurement that completed.'),
    'last_duration_seconds': ('gauge', 'Seconds the last completed measurement took.'),
    'interval_seconds': ('gauge', 'Seconds between two measurements of the exporter.'),
    'errors_total': ('counter', 'Measurements that failed.'),
}


def label_value(value: Any) -> str:
    return str(value).replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')


def sample(name: str, labels: Mapping[str, Any], value: float) -> str:
    text = ','.join('%s="%s"' % (key, label_value(labels[key])) for key in labels)
    number = ('%d' % value) if float(value).is_integer() else repr(float(value))
    return '%s%s{%s} %s' % (PREFIX, name, text, number)


def report_samples(flow: str, report: Mapping[str, Any]) -> Dict[str, List[str]]:
    """The samples of one readiness report (module mm2_readiness's report), by metric name."""
    out: Dict[str, List[str]] = {name: [] for name in METRICS}
    summary = report.get('summary') or {}
    base = {'flow': flow}
    out['ready'].append(sample('ready', base, 1 if report.get('ready') else 0))
    out['problems'].append(sample('problems', base, len(report.get('problems') or [])))
    lost = {(entry['topic'], entry['partition']): entry.get('lost') or 0
            for entry in report.get('sentinels') or [] if entry.get('kind') == 'truncated'}
    for point in report.get('recovery_point') or []:
        where = dict(base, topic=point['topic'], partition=point['partition'])
        if point.get('uncopied') is not None:
            out['uncopied_records'].append(sample('uncopied_records', where, point['uncopied']))
        if point.get('seconds') is not None:
            out['uncopied_seconds'].append(sample('uncopied_seconds', where, point['seconds']))
        out['truncated_records'].append(sample('truncated_records', where, lost.get((point['topic'], point['partition']), 0)))
    if summary.get('recovery_point_s') is not None:
        out['recovery_point_seconds'].append(sample('recovery_point_seconds', base, summary['recovery_point_s']))
    out['recovery_point_unknown_partitions'].append(
        sample('recovery_point_unknown_partitions', base, summary.get('recovery_point_unknown') or 0))
    for group in report.get('groups') or []:
        for kind in ('planned', 'unplanned'):
            value = group.get('%s_rereads' % kind)
            if value is not None:
                out['failover_rereads'].append(sample('failover_rereads', dict(base, group=group['group'], kind=kind), value))
        out['failover_skipped_records'].append(
            sample('failover_skipped_records', dict(base, group=group['group']), group.get('unplanned_skipped') or 0))
    out['untranslated_groups'].append(sample('untranslated_groups', base, len(summary.get('groups_untranslated') or [])))
    sentinels = report.get('sentinels') or []
    recreated = {entry['topic'] for entry in sentinels if entry.get('kind') == 'recreated'}
    out['recreated_topics'].append(sample('recreated_topics', base, len(recreated)))
    target_truncated = {(entry['topic'], entry['partition']) for entry in sentinels if entry.get('kind') == 'target-truncated'}
    out['target_truncated_partitions'].append(sample('target_truncated_partitions', base, len(target_truncated)))
    seen = set()
    for entry in sentinels:
        labels = dict(base, kind=entry['kind'], topic=entry['topic'],
                      partition='' if entry.get('partition') is None else entry['partition'])
        key = tuple(labels.values())
        if key not in seen:
            seen.add(key)
            out['sentinel'].append(sample('sentinel', labels, 1))
    return out


def render_metrics(flows: Mapping[str, FlowFigures], interval: float) -> str:
    """The Prometheus text of every flow. A flow measured at least once shows its last report's figures;
    one never measured shows only its errors, its interval and a last success of 0."""
    by_name: Dict[str, List[str]] = {name: [] for name in METRICS}
    for flow in sorted(flows):
        figures = flows[flow]
        if figures.report is not None:
            for name, lines in report_samples(flow, figures.report).items():
                by_name[name].extend(lines)
            by_name['last_duration_seconds'].append(sample('last_duration_seconds', {'flow': flow}, round(figures.duration, 3)))
        by_name['last_success_timestamp_seconds'].append(
            sample('last_success_timestamp_seconds', {'flow': flow}, round(figures.last_success, 3)))
        by_name['interval_seconds'].append(sample('interval_seconds', {'flow': flow}, interval))
        by_name['errors_total'].append(sample('errors_total', {'flow': flow}, figures.errors))
    lines: List[str] = []
    for name, (kind, text) in METRICS.items():
        lines += ['# HELP %s%s %s' % (PREFIX, name, text), '# TYPE %s%s %s' % (PREFIX, name, kind)]
        lines += by_name[name]
    return '\n'.join(lines) + '\n'
