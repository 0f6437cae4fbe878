# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Continuous verification as Prometheus metrics (docs/validator.md, "Continuous verification").

The validator's increments run from a systemd timer of role replication_check. Each increment
writes ``<flow>.prom`` next to its state: per partition the offset proven up to, the source end at
the snapshot, when it was last verified and the findings by kind since the state began. The
service's ExecStopPost hook records every run's outcome in ``<flow>.runs.json`` and
``<flow>.runs.prom`` (a run killed or refused is a failure too). The exporter service merges the
``*.prom`` files of its directory and adds their age. Each file is written whole and renamed.

Standard library only: role replication_check ships this file into the validator's package
(``mm2_validator/_shared``), and the unit tests import it from the collection.
"""

from __future__ import annotations

import json
import os
import re
import signal
import tempfile
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

PREFIX = 'kafka_dr_verification_'
METRICS_PATH = '/metrics'
METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'
# The validator's finding kinds of an increment (mm2_validator.incremental.KINDS; a unit test holds them equal).
FINDING_KINDS = ('missing', 'duplicate', 'unexpected', 'content_mismatch', 'order_violation', 'timestamp_type_change', 'truncated')
# Exit codes of the validator that mean the increment completed: 0 PASS, 1 FAIL (findings).
COMPLETED_EXIT_CODES = (0, 1)
RUNS_SUFFIX = '.runs'
PROM_SUFFIX = '.prom'
UNSAFE = re.compile('[^A-Za-z0-9_.-]+')

# name (without the prefix) -> (type, help)
METRICS: Dict[str, Tuple[str, str]] = {
    'proven_offset': ('gauge', 'Source offset verified up to: every source record of the partition below it is judged.'),
    'source_end_offset': ('gauge', 'End offset of the source partition at the last increment\'s snapshot.'),
    'verified_timestamp_seconds': ('gauge', 'Unix time of the last increment that advanced the proven offset or found it at the source end.'),
    'records_verified_total': ('counter', 'Source records judged since the state began.'),
    'findings_total': ('counter', 'Records found wrong since the state began, by kind (the validator\'s finding codes).'),
    'last_success_timestamp_seconds': ('gauge', 'Unix time the last completed increment finished.'),
    'last_duration_seconds': ('gauge', 'Seconds the last completed increment took, Spark start-up included.'),
    'last_records_verified': ('gauge', 'Source records the last completed increment judged.'),
    'last_records_per_second': ('gauge', 'Source records judged per second by the last completed increment.'),
    'runs_total': ('counter', 'Increments started by the timer (or by hand) and ended, completed or not.'),
    'failures_total': ('counter', 'Increments that did not complete: refused state, connection, internal error, killed.'),
    'consecutive_failures': ('gauge', 'Increments that did not complete since the last one that did.'),
    'last_exit_status': ('gauge', 'Exit code of the last increment (128 + signal number when killed).'),
    'last_run_timestamp_seconds': ('gauge', 'Unix time the last increment ended, completed or not.'),
    'cpu_seconds_total': ('counter', 'CPU seconds the increments used (Spark included), from their unit\'s cgroup v2 cpu.stat.'),
    'last_cpu_seconds': ('gauge', 'CPU seconds the last increment used, completed or not.'),
    'interval_seconds': ('gauge', 'Seconds the timer waits between the end of an increment and the start of the next.'),
    'metrics_age_seconds': ('gauge', 'Seconds since the last completed increment wrote the flow\'s metrics file (served by the exporter).'),
    'exporter_file_errors_total': ('counter', 'Metrics files the exporter could not read.'),
}


def label_value(value: Any) -> str:
    return str(value).replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')


def sample(name: str, labels: Mapping[str, Any], value: float) -> str:
    text = ','.join('%s="%s"' % (key, label_value(labels[key])) for key in labels)
    number = ('%d' % value) if float(value).is_integer() else repr(float(value))
    return '%s%s{%s} %s' % (PREFIX, name, text, number) if text else '%s%s %s' % (PREFIX, name, number)


def exposition(samples: Mapping[str, Sequence[str]]) -> str:
    """Prometheus text: each metric that has samples, with its HELP and TYPE, in METRICS order."""
    lines: List[str] = []
    for name, (kind, text) in METRICS.items():
        if samples.get(name):
            lines += ['# HELP %s%s %s' % (PREFIX, name, text), '# TYPE %s%s %s' % (PREFIX, name, kind)]
            lines += samples[name]
    return '\n'.join(lines) + '\n' if lines else ''


# ---- what an increment writes -----------------------------------------------------------------

def increment_metrics(flow: str, state: Mapping[str, Any], finished_at: float, duration_s: float, records_verified: int) -> str:
    """The metrics of a completed increment, from the state it just wrote (positions and counts since
    the state began) and its own figures."""
    out: Dict[str, List[str]] = {name: [] for name in METRICS}
    for topic in sorted(state.get('topics') or {}):
        partitions = state['topics'][topic].get('partitions') or {}
        for key in sorted(partitions, key=int):
            saved = partitions[key]
            where = {'flow': flow, 'topic': topic, 'partition': int(key)}
            proven = int(saved.get('proven', 0))
            out['proven_offset'].append(sample('proven_offset', where, proven))
            out['source_end_offset'].append(sample('source_end_offset', where, int(saved.get('source_end', proven))))
            if saved.get('verified_at') is not None:
                out['verified_timestamp_seconds'].append(sample('verified_timestamp_seconds', where, float(saved['verified_at'])))
            cumulative = saved.get('cumulative') or {}
            out['records_verified_total'].append(sample('records_verified_total', where, int(cumulative.get('records_judged', 0))))
            # Every kind from the first increment on, so that the first finding is an increase.
            for kind in FINDING_KINDS:
                out['findings_total'].append(sample('findings_total', dict(where, kind=kind), int(cumulative.get(kind, 0))))
    base = {'flow': flow}
    out['last_success_timestamp_seconds'].append(sample('last_success_timestamp_seconds', base, round(finished_at, 3)))
    out['last_duration_seconds'].append(sample('last_duration_seconds', base, round(duration_s, 3)))
    out['last_records_verified'].append(sample('last_records_verified', base, records_verified))
    rate = records_verified / duration_s if duration_s > 0 else 0.0
    out['last_records_per_second'].append(sample('last_records_per_second', base, round(rate, 3)))
    return exposition(out)


def metrics_file(directory: str, flow: str, runs: bool = False) -> str:
    return os.path.join(directory, '%s%s%s' % (UNSAFE.sub('_', flow), RUNS_SUFFIX if runs else '', PROM_SUFFIX))


def write_atomically(path: str, text: str, mode: int = 0o644) -> None:
    """Written to a temporary file of the same directory, then renamed: a reader sees the old file or the new one."""
    directory = os.path.dirname(path) or '.'
    handle, temporary = tempfile.mkstemp(prefix='.%s.' % os.path.basename(path), suffix='.tmp', dir=directory)
    try:
        with os.fdopen(handle, 'w', encoding='utf-8') as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


# ---- what the service's ExecStopPost hook records -------------------------------------------------

def exit_status(exit_code: str, status: str) -> int:
    """The run's exit code from systemd's $EXIT_CODE / $EXIT_STATUS: the code of a process that exited,
    128 + the signal's number for one killed or dumped (systemd names the signal, e.g. TERM)."""
    if exit_code == 'exited':
        try:
            return int(status)
        except ValueError:
            return 255
    try:
        return 128 + int(status)
    except ValueError:
        pass
    try:
        return 128 + int(signal.Signals['SIG' + status.upper()].value)
    except KeyError:
        return 255


# Where cgroup v2 is mounted: alone, or beside v1 controllers (a hybrid host).
CGROUP_V2_ROOTS = ('/sys/fs/cgroup', '/sys/fs/cgroup/unified')


def cgroup_v2_path(proc_self_cgroup: str) -> Optional[str]:
    """The process's cgroup v2 path from /proc/self/cgroup (its ``0::`` line)."""
    for line in proc_self_cgroup.splitlines():
        if line.startswith('0::'):
            return line[3:].strip() or None
    return None


def cpu_usage_seconds(cpu_stat: str) -> Optional[float]:
    """``usage_usec`` of a cgroup v2 cpu.stat, in seconds."""
    for line in cpu_stat.splitlines():
        name, _space, value = line.partition(' ')
        if name == 'usage_usec' and value.strip().isdigit():
            return int(value) / 1e6
    return None


def unit_cpu_seconds(proc_self_cgroup: str, read: Any) -> Optional[float]:
    """The CPU the caller's cgroup used so far. An ExecStopPost hook runs in its unit's cgroup,
    which still holds the usage of the increment's processes that ended: the increment's CPU.
    `read(path)` returns a file's text or None. None without cgroup v2 (not an error)."""
    path = cgroup_v2_path(proc_self_cgroup)
    if path is None:
        return None
    for root in CGROUP_V2_ROOTS:
        text = read('%s%s/cpu.stat' % (root, path.rstrip('/')))
        if text is not None:
            return cpu_usage_seconds(text)
    return None


def record_run(previous: Mapping[str, Any], code: int, now: float, cpu_seconds: Optional[float] = None) -> Dict[str, Any]:
    """The run record after one more run ended with `code`, having used `cpu_seconds` (None: unknown)."""
    record = {
        'runs': int(previous.get('runs', 0)) + 1,
        'failures': int(previous.get('failures', 0)),
        'consecutive_failures': int(previous.get('consecutive_failures', 0)),
        'last_exit_status': code,
        'last_run_at': round(now, 3),
        'cpu_seconds': round(float(previous.get('cpu_seconds', 0.0)) + (cpu_seconds or 0.0), 3),
    }
    if cpu_seconds is not None:
        record['last_cpu_seconds'] = round(cpu_seconds, 3)
    if code in COMPLETED_EXIT_CODES:
        record['consecutive_failures'] = 0
    else:
        record['failures'] += 1
        record['consecutive_failures'] += 1
    return record


def runs_metrics(flow: str, record: Mapping[str, Any], interval_s: float) -> str:
    base = {'flow': flow}
    out: Dict[str, List[str]] = {
        'runs_total': [sample('runs_total', base, int(record.get('runs', 0)))],
        'failures_total': [sample('failures_total', base, int(record.get('failures', 0)))],
        'consecutive_failures': [sample('consecutive_failures', base, int(record.get('consecutive_failures', 0)))],
        'last_exit_status': [sample('last_exit_status', base, int(record.get('last_exit_status', 0)))],
        'last_run_timestamp_seconds': [sample('last_run_timestamp_seconds', base, float(record.get('last_run_at', 0)))],
        'interval_seconds': [sample('interval_seconds', base, interval_s)],
    }
    if 'last_cpu_seconds' in record:
        out['cpu_seconds_total'] = [sample('cpu_seconds_total', base, float(record.get('cpu_seconds', 0.0)))]
        out['last_cpu_seconds'] = [sample('last_cpu_seconds', base, float(record['last_cpu_seconds']))]
    return exposition(out)


def load_record(path: str) -> Dict[str, Any]:
    """The run record; a missing or damaged one starts over (it only holds counters)."""
    try:
        with open(path, encoding='utf-8') as handle:
            document = json.load(handle)
    except (OSError, ValueError):
        return {}
    return document if isinstance(document, dict) else {}


def read_text(path: str) -> Optional[str]:
    try:
        with open(path, encoding='utf-8') as handle:
            return handle.read()
    except OSError:
        return None


def after_run(directory: str, flow: str, code: int, interval_s: float, now: float, cpu_seconds: Optional[float] = None) -> Dict[str, Any]:
    """Count the run that just ended and rewrite the flow's run metrics."""
    path = os.path.join(directory, '%s%s.json' % (UNSAFE.sub('_', flow), RUNS_SUFFIX))
    record = record_run(load_record(path), code, now, cpu_seconds)
    write_atomically(path, json.dumps(record, sort_keys=True) + '\n')
    write_atomically(metrics_file(directory, flow, runs=True), runs_metrics(flow, record, interval_s))
    return record


def archive_report(reports_dir: str, latest: str, keep: int) -> Optional[str]:
    """Keep the increment's JSON report as increment-<run>.json (a redone increment replaces its own),
    then only the newest `keep` of them. Returns the kept file, or None when the run wrote no report."""
    try:
        with open(latest, encoding='utf-8') as handle:
            run = int(((json.load(handle).get('incremental') or {}).get('run')) or 0)
    except (OSError, ValueError, AttributeError, TypeError):
        return None
    kept = os.path.join(reports_dir, 'increment-%08d.json' % run)
    os.replace(latest, kept)
    reports = sorted(name for name in os.listdir(reports_dir) if re.fullmatch(r'increment-\d{8}\.json', name))
    for name in reports[:max(0, len(reports) - keep)]:
        os.unlink(os.path.join(reports_dir, name))
    return kept


# ---- what the exporter serves ------------------------------------------------------------------------

def merge_expositions(texts: Iterable[str]) -> Tuple[Dict[str, List[str]], Dict[str, Tuple[str, str]]]:
    """Samples by metric family over several files (each family once, as the text format requires),
    and the HELP and TYPE lines of each family."""
    families: Dict[str, List[str]] = {}
    meta: Dict[str, Tuple[str, str]] = {}
    for text in texts:
        for line in text.splitlines():
            if line.startswith('# HELP ') or line.startswith('# TYPE '):
                name = line.split(' ', 3)[2]
                help_line, type_line = meta.get(name, ('', ''))
                meta[name] = (line, type_line) if line.startswith('# HELP ') else (help_line, line)
                families.setdefault(name, [])
            elif line and not line.startswith('#'):
                name = re.split(r'[{ ]', line, 1)[0]
                families.setdefault(name, []).append(line)
    return families, meta


def exporter_text(directory: str, now: float, errors: int = 0) -> Tuple[str, int]:
    """Every *.prom file of the directory, merged, with the age of each flow's increment file;
    returns the text and the count of files that could not be read (added to `errors`)."""
    texts: List[str] = []
    ages: List[str] = []
    try:
        names = sorted(name for name in os.listdir(directory) if name.endswith(PROM_SUFFIX))
    except OSError:
        names = []
        errors += 1
    for name in names:
        path = os.path.join(directory, name)
        try:
            with open(path, encoding='utf-8') as handle:
                texts.append(handle.read())
            modified = os.stat(path).st_mtime
        except OSError:
            errors += 1
            continue
        if not name.endswith(RUNS_SUFFIX + PROM_SUFFIX):
            ages.append(sample('metrics_age_seconds', {'flow': name[:-len(PROM_SUFFIX)]}, round(max(0.0, now - modified), 3)))
    own = exposition({'metrics_age_seconds': ages, 'exporter_file_errors_total': [sample('exporter_file_errors_total', {}, errors)]})
    families, meta = merge_expositions(texts + [own])
    lines: List[str] = []
    for name in sorted(families):
        help_line, type_line = meta.get(name, ('', ''))
        lines += [line for line in (help_line, type_line) if line] + families[name]
    return '\n'.join(lines) + '\n', errors
