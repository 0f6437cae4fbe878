# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Continuous verification's metrics: rendered from an increment's state, the run record of the
service's hook, the kept reports and the exporter's merge of the files."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils import mm2_verification as mv

STATE = {
    'format': 'mm2-validator-incremental-state', 'version': 1, 'runs': 3,
    'topics': {'orders': {'partitions': {
        '1': {'proven': 40, 'source_end': 40, 'verified_at': 1700000100.5,
              'cumulative': {'records_judged': 40, 'missing': 0}},
        '0': {'proven': 90, 'source_end': 120, 'verified_at': 1700000000,
              'cumulative': {'records_judged': 90, 'missing': 2, 'truncated': 5, 'duplicate': 1}},
    }}},
}


def samples(text: str) -> dict:
    """name{labels} -> value of every sample line."""
    return {line.rsplit(' ', 1)[0]: float(line.rsplit(' ', 1)[1]) for line in text.splitlines() if line and not line.startswith('#')}


def test_an_increment_renders_each_partitions_position_age_and_findings() -> None:
    text = mv.increment_metrics('src-dst', STATE, 1700000200.0, 12.5, 50)
    values = samples(text)
    where = 'flow="src-dst",topic="orders",partition="0"'
    assert values['kafka_dr_verification_proven_offset{%s}' % where] == 90
    assert values['kafka_dr_verification_source_end_offset{%s}' % where] == 120
    assert values['kafka_dr_verification_verified_timestamp_seconds{%s}' % where] == 1700000000
    assert values['kafka_dr_verification_records_verified_total{%s}' % where] == 90
    assert values['kafka_dr_verification_findings_total{%s,kind="truncated"}' % where] == 5
    assert values['kafka_dr_verification_findings_total{%s,kind="missing"}' % where] == 2
    # Every kind is there from the first increment (so a first finding is an increase), for each partition.
    assert len([key for key in values if key.startswith('kafka_dr_verification_findings_total')]) == 2 * len(mv.FINDING_KINDS)
    assert values['kafka_dr_verification_last_records_per_second{flow="src-dst"}'] == 4
    assert values['kafka_dr_verification_last_success_timestamp_seconds{flow="src-dst"}'] == 1700000200
    # Partitions in number order, each family once with its HELP and TYPE.
    assert text.index('partition="0"') < text.index('partition="1"')
    assert text.count('# TYPE kafka_dr_verification_findings_total counter') == 1


def test_label_values_are_escaped() -> None:
    assert mv.sample('x', {'flow': 'a"b\\c\nd'}, 1) == 'kafka_dr_verification_x{flow="a\\"b\\\\c\\nd"} 1'


@pytest.mark.parametrize('exit_code, status, code', [
    ('exited', '0', 0), ('exited', '1', 1), ('exited', '2', 2), ('killed', 'TERM', 143), ('dumped', 'SEGV', 139),
    ('killed', '9', 137), ('killed', 'NOSUCH', 255),
])
def test_systemds_exit_variables_become_an_exit_status(exit_code: str, status: str, code: int) -> None:
    assert mv.exit_status(exit_code, status) == code


def test_the_run_record_counts_failures_in_a_row(tmp_path: Path) -> None:
    directory = str(tmp_path)
    for code in (0, 2, 143):
        record = mv.after_run(directory, 'src-dst', code, 60, 1000.0)
    assert (record['runs'], record['failures'], record['consecutive_failures'], record['last_exit_status']) == (3, 2, 2, 143)
    values = samples(Path(mv.metrics_file(directory, 'src-dst', runs=True)).read_text())
    assert values['kafka_dr_verification_consecutive_failures{flow="src-dst"}'] == 2
    assert values['kafka_dr_verification_interval_seconds{flow="src-dst"}'] == 60
    # A FAIL verdict (exit 1) is a completed increment: its findings are metrics, not a failure.
    record = mv.after_run(directory, 'src-dst', 1, 60, 1001.0)
    assert (record['failures'], record['consecutive_failures']) == (2, 0)
    assert oct(os.stat(mv.metrics_file(directory, 'src-dst', runs=True)).st_mode & 0o777) == '0o644'


def test_a_damaged_run_record_starts_over(tmp_path: Path) -> None:
    (tmp_path / 'src-dst.runs.json').write_text('{not json')
    assert mv.after_run(str(tmp_path), 'src-dst', 0, 60, 1.0)['runs'] == 1


def test_reports_are_kept_by_run_and_bounded(tmp_path: Path) -> None:
    for run in range(1, 6):
        (tmp_path / 'latest.json').write_text(json.dumps({'incremental': {'run': run}}))
        kept = mv.archive_report(str(tmp_path), str(tmp_path / 'latest.json'), keep=3)
        assert kept == str(tmp_path / ('increment-%08d.json' % run))
    kept_names = ['increment-00000003.json', 'increment-00000004.json', 'increment-00000005.json']
    assert sorted(path.name for path in tmp_path.iterdir()) == kept_names
    # A run that wrote no report (refused, killed) keeps nothing.
    assert mv.archive_report(str(tmp_path), str(tmp_path / 'latest.json'), keep=3) is None


def test_the_exporter_merges_every_flows_files_with_their_age(tmp_path: Path) -> None:
    directory = str(tmp_path)
    mv.write_atomically(mv.metrics_file(directory, 'src-dst'), mv.increment_metrics('src-dst', STATE, 1.0, 1.0, 1))
    mv.write_atomically(mv.metrics_file(directory, 'other-dst'), mv.increment_metrics('other-dst', STATE, 1.0, 1.0, 1))
    mv.after_run(directory, 'src-dst', 0, 60, 1.0)
    os.utime(mv.metrics_file(directory, 'src-dst'), (100.0, 100.0))
    (tmp_path / 'src-dst.json').write_text('{}')  # the state: not served
    text, errors = mv.exporter_text(directory, 130.0)
    assert errors == 0
    values = samples(text)
    assert values['kafka_dr_verification_metrics_age_seconds{flow="src-dst"}'] == 30
    assert 'kafka_dr_verification_metrics_age_seconds{flow="other-dst"}' in values
    assert 'kafka_dr_verification_metrics_age_seconds{flow="src-dst.runs"}' not in values
    assert values['kafka_dr_verification_runs_total{flow="src-dst"}'] == 1
    # Each family once, its samples together (the text format's rule), every flow's inside it.
    types = re.findall(r'^# TYPE (\S+)', text, re.M)
    assert len(types) == len(set(types))
    names = [line.split('{')[0].split(' ')[0] for line in text.splitlines() if not line.startswith('#')]
    assert names == sorted(names, key=names.index)
    assert [name for index, name in enumerate(names) if index and names[index - 1] != name and name in names[:index]] == []


def test_the_exporter_counts_a_directory_it_cannot_read(tmp_path: Path) -> None:
    text, errors = mv.exporter_text(str(tmp_path / 'absent'), 1.0, errors=2)
    assert errors == 3 and 'kafka_dr_verification_exporter_file_errors_total 3' in text


CPU_STAT = 'usage_usec 11231413\nuser_usec 10275086\nsystem_usec 956327\n'


def test_the_increments_cpu_comes_from_its_units_cgroup_v2_on_a_hybrid_host():
    proc = '1:cpu:/docker/abc\n0::/docker/abc/system.slice/kafka-dr-verify-src-dst.service\n'
    files = {'/sys/fs/cgroup/unified/docker/abc/system.slice/kafka-dr-verify-src-dst.service/cpu.stat': CPU_STAT}
    assert mv.unit_cpu_seconds(proc, files.get) == 11.231413


def test_without_cgroup_v2_the_cpu_is_unknown_and_no_cpu_metric_is_written(tmp_path):
    assert mv.unit_cpu_seconds('1:cpu:/docker/abc\n', {}.get) is None
    assert mv.unit_cpu_seconds('0::/system.slice/x.service\n', {}.get) is None
    record = mv.after_run(str(tmp_path), 'src-dst', 0, 60, 1.0)
    assert 'last_cpu_seconds' not in record
    assert 'cpu_seconds_total' not in open(mv.metrics_file(str(tmp_path), 'src-dst', runs=True)).read()


def test_cpu_seconds_add_up_over_runs_and_the_last_one_is_shown(tmp_path):
    directory = str(tmp_path)
    mv.after_run(directory, 'src-dst', 0, 60, 1.0, 12.5)
    record = mv.after_run(directory, 'src-dst', 137, 60, 2.0, 3.25)
    assert (record['cpu_seconds'], record['last_cpu_seconds']) == (15.75, 3.25)
    text = open(mv.metrics_file(directory, 'src-dst', runs=True)).read()
    assert 'kafka_dr_verification_cpu_seconds_total{flow="src-dst"} 15.75' in text
    assert 'kafka_dr_verification_last_cpu_seconds{flow="src-dst"} 3.25' in text
