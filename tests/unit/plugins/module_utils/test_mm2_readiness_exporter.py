# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The readiness exporter's decisions: settings checked, readiness reports rendered as Prometheus text,
a measurement round that survives a failing flow, and the topic ids kept between rounds."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Dict, List, Mapping

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_readiness_exporter import (
    ExporterError,
    FlowFigures,
    ReadinessMetrics,
    TopicIdStore,
    fail_round,
    flow_params,
    measure_flow,
    measure_round,
    parse_settings,
    render_metrics,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.prometheus_text import parse_exposition

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_mm2_readiness import NOW, SRC_TP, lab  # noqa: E402  pylint: disable=wrong-import-position

FLOW = {'name': 'src-dst', 'source_alias': 'src', 'target_alias': 'dst',
        'source_client': {'bootstrap.servers': 'src:9092'},
        'target_client': {'bootstrap.servers': 'dst:9092', 'sasl.jaas.config': '${file:/run/secret.properties:jaas}'},
        'topics_regex': r'foo\..*', 'replication_policy': 'default', 'separator': '.',
        'checkpoints_topic': 'src.checkpoints.internal', 'offset_syncs_topic': 'mm2-offset-syncs.dst.internal',
        'offset_syncs_location': 'source', 'groups': ['.*'], 'groups_exclude': ['connect-.*'], 'offset_lag_max': 100,
        'consumers': [], 'producers': []}


def settings_document(**changes: Any) -> Dict[str, Any]:
    document: Dict[str, Any] = {'flows': [dict(FLOW)], 'state_dir': '/var/lib/kafka-dr-readiness', 'interval': 60,
                                'metrics_port': 9406, 'rpo_seconds': 15}
    document.update(changes)
    return document


# ---- settings -------------------------------------------------------------------------------------

def test_settings_give_the_module_arguments_of_each_flow() -> None:
    settings = parse_settings(settings_document(groups=['app']))
    params = flow_params(settings, settings.flows[0], {'foo.orders': 'id-1'})
    assert params['flow'] == 'src-dst' and params['flow_groups_exclude'] == ['connect-.*']
    assert params['rpo_seconds'] == 15.0 and params['rto_seconds'] == 0.0 and params['groups'] == ['app']
    assert params['known_topic_ids'] == {'foo.orders': 'id-1'}


@pytest.mark.parametrize(('changes', 'message'), [
    ({'rpo_seconds': 0}, 'rpo_seconds must be a positive number'),
    ({'rpo_seconds': -5}, 'rpo_seconds must be a positive number'),
    ({'interval': 0}, 'interval must be a positive number'),
    ({'metrics_port': 70000}, 'metrics_port must be 0-65535'),
    ({'metrics_port': '9406'}, 'setting metrics_port must be int'),
    ({'surprise': 1}, 'unknown settings: surprise'),
    ({'flows': []}, 'flows and state_dir are required'),
    ({'flows': [dict(FLOW, topics_regex='foo(')]}, 'flow 1: topics_regex is not a regular expression'),
    ({'flows': [dict(FLOW, source_client={})]}, 'flow 1: missing source_client'),
    ({'flows': [FLOW, FLOW]}, 'names a flow twice'),
])
def test_bad_settings_are_refused_by_name(changes: Dict[str, Any], message: str) -> None:
    with pytest.raises(ExporterError, match=message):
        parse_settings(settings_document(**changes))


def test_a_refusal_never_shows_a_value() -> None:
    with pytest.raises(ExporterError) as caught:
        parse_settings(settings_document(flows=[dict(FLOW, source_client={'sasl.jaas.config': 'password="hunter2"'})]))
    assert 'hunter2' not in str(caught.value)


# ---- metrics --------------------------------------------------------------------------------------

REPORT: Dict[str, Any] = {
    'ready': False, 'verdict': 'NOT READY', 'problems': ['a', 'b'],
    'recovery_point': [{'topic': 'foo.orders', 'partition': 0, 'uncopied': 10, 'seconds': 19.5},
                       {'topic': 'foo.orders', 'partition': 1, 'uncopied': None, 'seconds': None}],
    'groups': [{'group': 'app', 'planned_rereads': 0, 'unplanned_rereads': 4, 'unplanned_skipped': 0},
               {'group': 'billing', 'planned_rereads': None, 'unplanned_rereads': None, 'unplanned_skipped': 2}],
    'sentinels': [{'kind': 'truncated', 'topic': 'foo.orders', 'partition': 0, 'lost': 60},
                  {'kind': 'recreated', 'topic': 'foo.orders', 'partition': None, 'lost': None},
                  {'kind': 'recreated', 'topic': 'foo.orders', 'partition': 1, 'lost': None},
                  {'kind': 'target-truncated', 'topic': 'bar', 'partition': 2, 'lost': None}],
    'summary': {'recovery_point_s': 19.5, 'recovery_point_unknown': 1, 'groups_untranslated': ['billing']},
}


def samples(text: str) -> Dict[str, Dict[tuple, float]]:
    found: Dict[str, Dict[tuple, float]] = {}
    for entry in parse_exposition(text):
        found.setdefault(entry.name, {})[tuple(sorted(entry.labels.items()))] = entry.value
    return found


def test_a_report_becomes_one_series_per_figure() -> None:
    text = render_metrics({'src-dst': FlowFigures(REPORT, NOW, 1.25, errors=2)}, 60)
    got = samples(text)
    flow = (('flow', 'src-dst'),)
    assert got['kafka_dr_readiness_ready'] == {flow: 0}
    assert got['kafka_dr_readiness_problems'] == {flow: 2}
    assert got['kafka_dr_readiness_uncopied_records'] == {(('flow', 'src-dst'), ('partition', '0'), ('topic', 'foo.orders')): 10}
    assert got['kafka_dr_readiness_uncopied_seconds'] == {(('flow', 'src-dst'), ('partition', '0'), ('topic', 'foo.orders')): 19.5}
    assert got['kafka_dr_readiness_truncated_records'] == {
        (('flow', 'src-dst'), ('partition', '0'), ('topic', 'foo.orders')): 60,
        (('flow', 'src-dst'), ('partition', '1'), ('topic', 'foo.orders')): 0}
    assert got['kafka_dr_readiness_recovery_point_seconds'] == {flow: 19.5}
    assert got['kafka_dr_readiness_recovery_point_unknown_partitions'] == {flow: 1}
    assert got['kafka_dr_readiness_failover_rereads'] == {
        (('flow', 'src-dst'), ('group', 'app'), ('kind', 'planned')): 0,
        (('flow', 'src-dst'), ('group', 'app'), ('kind', 'unplanned')): 4}
    assert got['kafka_dr_readiness_failover_skipped_records'][(('flow', 'src-dst'), ('group', 'billing'))] == 2
    assert got['kafka_dr_readiness_untranslated_groups'] == {flow: 1}
    assert got['kafka_dr_readiness_recreated_topics'] == {flow: 1}
    assert got['kafka_dr_readiness_target_truncated_partitions'] == {flow: 1}
    assert set(got['kafka_dr_readiness_sentinel']) == {
        (('flow', 'src-dst'), ('kind', 'truncated'), ('partition', '0'), ('topic', 'foo.orders')),
        (('flow', 'src-dst'), ('kind', 'recreated'), ('partition', ''), ('topic', 'foo.orders')),
        (('flow', 'src-dst'), ('kind', 'recreated'), ('partition', '1'), ('topic', 'foo.orders')),
        (('flow', 'src-dst'), ('kind', 'target-truncated'), ('partition', '2'), ('topic', 'bar'))}
    assert got['kafka_dr_readiness_last_success_timestamp_seconds'] == {flow: NOW}
    assert got['kafka_dr_readiness_last_duration_seconds'] == {flow: 1.25}
    assert got['kafka_dr_readiness_interval_seconds'] == {flow: 60}
    assert got['kafka_dr_readiness_errors_total'] == {flow: 2}
    assert '# TYPE kafka_dr_readiness_errors_total counter' in text


def test_a_flow_never_measured_shows_only_its_errors_and_a_last_success_of_zero() -> None:
    got = samples(render_metrics({'src-dst': FlowFigures(errors=3)}, 30))
    assert {name for name, series in got.items() if series} == {
        'kafka_dr_readiness_last_success_timestamp_seconds', 'kafka_dr_readiness_interval_seconds',
        'kafka_dr_readiness_errors_total'}
    assert got['kafka_dr_readiness_last_success_timestamp_seconds'] == {(('flow', 'src-dst'),): 0}


def test_label_values_are_escaped() -> None:
    report = dict(REPORT, groups=[{'group': 'a"b\\c', 'planned_rereads': 1, 'unplanned_rereads': None, 'unplanned_skipped': 0}])
    got = samples(render_metrics({'src-dst': FlowFigures(report, NOW)}, 60))
    assert (('flow', 'src-dst'), ('group', 'a"b\\c'), ('kind', 'planned')) in got['kafka_dr_readiness_failover_rereads']


# ---- the round --------------------------------------------------------------------------------------

def test_a_failing_flow_is_counted_and_the_others_still_measured() -> None:
    metrics = ReadinessMetrics(['bad', 'good'], 60)
    lines: List[str] = []

    def measure(flow: Mapping[str, Any]) -> Mapping[str, Any]:
        if flow['name'] == 'bad':
            raise RuntimeError('cannot reach src')
        return dict(REPORT, ready=True)

    clock = iter([10.0, 11.0, 13.5])
    failures = measure_round([{'name': 'bad'}, {'name': 'good'}], measure, metrics, lambda: next(clock), lines.append)
    assert failures == 1
    figures = metrics.snapshot()
    assert figures['bad'].errors == 1 and figures['bad'].report is None and 'cannot reach src' in figures['bad'].last_error
    assert figures['good'].errors == 0 and figures['good'].last_success == 13.5 and figures['good'].duration == 2.5
    assert lines[0] == 'flow bad: measurement failed: RuntimeError: cannot reach src'
    assert lines[1].startswith('flow good: NOT READY, 2 problems')


def test_a_failure_after_a_success_keeps_the_figures_and_their_timestamp() -> None:
    metrics = ReadinessMetrics(['src-dst'], 60)
    metrics.measured('src-dst', REPORT, 100.0, 1.0)
    fail_round([{'name': 'src-dst'}], metrics, 'no JVM', lambda line: None)
    figures = metrics.snapshot()['src-dst']
    assert figures.report == REPORT and figures.last_success == 100.0 and figures.errors == 1
    assert 'kafka_dr_readiness_errors_total{flow="src-dst"} 1' in metrics.render()


class ClosingSide:
    """A fake cluster that records it was closed."""

    def __init__(self, side: Any) -> None:
        self._side = side
        self.closed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._side, name)

    def close(self) -> None:
        self.closed = True


def test_a_measurement_runs_the_readiness_check_and_keeps_the_topic_ids(tmp_path: Path) -> None:
    secret = tmp_path / 'secret.properties'
    secret.write_text('jaas=the-secret-line\n')
    flow = dict(FLOW, target_client={'bootstrap.servers': 'dst:9092', 'sasl.jaas.config': '${file:%s:jaas}' % secret})
    settings = parse_settings(settings_document(flows=[flow], state_dir=str(tmp_path)))
    source, target = lab()
    opened: Dict[str, Any] = {}

    def open_side(alias: str, client: Mapping[str, str]) -> Any:
        opened[alias] = (ClosingSide(source if alias == 'src' else target), dict(client))
        return opened[alias][0]

    store = TopicIdStore(str(tmp_path))
    report = measure_flow(settings, flow, store, open_side, lambda: NOW)
    assert report['flow'] == 'src-dst' and report['recovery_point'][0]['uncopied'] == 10
    assert opened['dst'][1]['sasl.jaas.config'] == 'the-secret-line' and all(side.closed for side, _client in opened.values())
    assert store.load('src-dst') == {'foo.orders': 'id-1'}
    assert oct(os.stat(store.path('src-dst')).st_mode & 0o777) == '0o600'
    assert json.loads(Path(store.path('src-dst')).read_text())['format'] == 1
    # The topic re-created: the sentinel fires, and keeps firing, since the old id is kept until accepted.
    source.topic_ids = {SRC_TP[0]: 'id-2'}
    for _round in range(2):
        again = measure_flow(settings, flow, store, open_side, lambda: NOW)
        assert [entry['kind'] for entry in again['sentinels']] == ['recreated']
    accepting = parse_settings(settings_document(flows=[flow], state_dir=str(tmp_path), accept_recreated=True))
    measure_flow(accepting, flow, store, open_side, lambda: NOW)
    assert measure_flow(accepting, flow, store, open_side, lambda: NOW)['sentinels'] == []


def test_a_damaged_state_file_fails_the_measurement(tmp_path: Path) -> None:
    store = TopicIdStore(str(tmp_path))
    Path(store.path('src-dst')).write_text('not json')
    with pytest.raises(ValueError, match='remove it to start afresh'):
        store.load('src-dst')


def test_an_emptied_partition_is_served_as_lost_until_the_loss_is_accepted(tmp_path: Path) -> None:
    from test_mm2_readiness_sentinels import clusters  # pylint: disable=import-outside-toplevel

    flow = dict(FLOW, target_client={'bootstrap.servers': 'dst:9092'})
    settings = parse_settings(settings_document(flows=[flow], state_dir=str(tmp_path)))
    source, target = clusters(700, 700, 200, syncs=[(0, 0), (150, 150)])

    def open_side(alias: str, _client: Mapping[str, str]) -> Any:
        return ClosingSide(source if alias == 'src' else target)

    def lost_metric(report: Mapping[str, Any]) -> float:
        metrics = ReadinessMetrics(['src-dst'], 60)
        metrics.measured('src-dst', report, NOW, 1.0)
        return samples(metrics.render())['kafka_dr_readiness_truncated_records'][
            (('flow', 'src-dst'), ('partition', '0'), ('topic', 'foo.orders'))]

    store = TopicIdStore(str(tmp_path))
    for _round in range(2):  # stays until accepted
        report = measure_flow(settings, flow, store, open_side, lambda: NOW)
        assert report['recovery_point'][0]['empty_because'] == 'truncated' and lost_metric(report) == 500
    accepting = parse_settings(settings_document(flows=[flow], state_dir=str(tmp_path), accept_truncated=True))
    assert lost_metric(measure_flow(accepting, flow, store, open_side, lambda: NOW)) == 500  # reported, then accepted
    assert store.load_accepted('src-dst') == {'foo.orders': {'0': 700}}
    after = measure_flow(settings, flow, store, open_side, lambda: NOW)
    assert lost_metric(after) == 0 and after['sentinels'] == []
