# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pure decisions of mm2_status: flows from the REST answer, the PromQL, the metrics of a
flow from Prometheus answers (NaN included), each health rule firing and not, the screen and
the JSON shape."""

from __future__ import annotations

import json
import math
from typing import Any, Dict, List, Optional

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_status import (
    Age,
    ClusterStatus,
    ConnectorStatus,
    Flow,
    MetricAnswers,
    ReadinessFigures,
    Thresholds,
    Worker,
    age_since_last_increase,
    assign_metrics,
    by_flow,
    checkpoint_writes_query,
    cluster_dict,
    cluster_lines,
    collect_findings,
    down_instances,
    evaluate_cluster,
    evaluate_flow,
    flow_dict,
    flow_of_name,
    group_flows,
    heartbeat_ages,
    host_of,
    lag_by_flow,
    lag_query,
    latency_p99_query,
    mirror_kind,
    parse_connectors,
    range_queries_window,
    readiness_by_flow,
    verification_by_flow,
    verification_text,
    readiness_text,
    records_rate_query,
    render_screen,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.prometheus_client import PrometheusApiError, parse_value, url_without_credentials

MIRROR = 'org.apache.kafka.connect.mirror.Mirror%sConnector'
NOW = 1_800_000_000.0
WORKER_1 = 'task-1-1:8083'
WORKER_2 = 'task-1-2:8083'


def entry(kind: str, state: str = 'RUNNING', tasks: Optional[List[Dict[str, Any]]] = None, source: str = 'src', target: str = 'dst',
          **config: str) -> Dict[str, Any]:
    """One connector as GET /connectors?expand=status&expand=info shows it."""
    full_config = {'connector.class': MIRROR % kind.capitalize(), 'source.cluster.alias': source, 'target.cluster.alias': target}
    full_config.update(config)
    if tasks is None:
        tasks = [{'id': 0, 'state': 'RUNNING', 'worker_id': WORKER_2}]
    return {
        'info': {'config': full_config, 'type': 'source'},
        'status': {'connector': {'state': state, 'worker_id': WORKER_1}, 'tasks': tasks, 'type': 'source'},
    }


def lab_flow(**overrides: Dict[str, Any]) -> Dict[str, Any]:
    """The three connectors of flow src-dst, each replaceable."""
    answer = {
        'mm2-src-dst-source': entry('source'),
        'mm2-src-dst-checkpoint': entry('checkpoint'),
        'mm2-src-dst-heartbeat': entry('heartbeat'),
    }
    answer.update(overrides)
    return answer


def flows_of(answer: Dict[str, Any], expected: Optional[List[str]] = None) -> List[Flow]:
    return group_flows(parse_connectors(answer, 'mm2-'), 'mm2-', expected or [])[0]


def fresh_metrics() -> MetricAnswers:
    return MetricAnswers(
        rates={('src', 'dst'): 12.5},
        lags={('src', 'dst'): {'foo_orders': 3.0}},
        latencies={('src', 'dst'): 250.0},
        heartbeat_ages={('src', 'dst', 'src.heartbeats'): Age(4.0, True)},
        checkpoint_ages={'mm2-src-dst-checkpoint': Age(30.0, True)},
    )


# The checkpoint age rule is off by default (idle groups get no checkpoints); the tests switch it on
# as a site whose groups commit all the time would.
CHECKPOINT_RULE_ON = Thresholds(max_checkpoint_age=300)


def evaluated(answer: Dict[str, Any], metrics: Optional[MetricAnswers] = None, thresholds: Thresholds = CHECKPOINT_RULE_ON,
              metrics_read: bool = True) -> Flow:
    flow = flows_of(answer)[0]
    assign_metrics([flow], metrics or fresh_metrics())
    evaluate_flow(flow, thresholds, metrics_read)
    return flow


# ---- grouping --------------------------------------------------------------------------

def test_mirror_kind_reads_full_short_and_padded_class_names():
    assert mirror_kind(MIRROR % 'Source') == 'source'
    assert mirror_kind(' MirrorCheckpointConnector') == 'checkpoint'
    assert mirror_kind('io.confluent.connect.s3.S3SinkConnector') is None


def test_flow_of_name_follows_the_prefix():
    assert flow_of_name('mm2-src-dst-source', 'mm2-') == ('src-dst', 'source')
    assert flow_of_name('dr.us-eu-heartbeat', 'dr.') == ('us-eu', 'heartbeat')
    assert flow_of_name('drxus-eu-heartbeat', 'dr.') is None
    assert flow_of_name('mm2-src-dst-sink', 'mm2-') is None


def test_three_connectors_make_one_complete_flow():
    flows = flows_of(lab_flow())
    assert [flow.name for flow in flows] == ['src-dst']
    flow = flows[0]
    assert (flow.source, flow.target, flow.heartbeats_topic) == ('src', 'dst', 'src.heartbeats')
    assert sorted(flow.connectors) == ['checkpoint', 'heartbeat', 'source']
    assert flow.missing == []
    assert flow.workers() == [WORKER_1, WORKER_2]


def test_separator_of_the_source_connector_names_the_heartbeats_topic():
    flow = flows_of(lab_flow(**{'mm2-src-dst-source': entry('source', **{'replication.policy.separator': '_'})}))[0]
    assert flow.heartbeats_topic == 'src_heartbeats'


def test_connectors_named_otherwise_group_by_aliases_and_expect_nothing():
    answer = {'mm2-msc': entry('source', source='us', target='eu'), 'mm2-hbc': entry('heartbeat', source='us', target='eu'),
              'sink-s3': {'info': {'config': {'connector.class': 'S3SinkConnector'}}, 'status': {'connector': {'state': 'RUNNING'}}}}
    connectors = parse_connectors(answer, 'mm2-')
    flows, unplaced = group_flows(connectors, 'mm2-', ['mm2-mcc'])
    assert [flow.name for flow in flows] == ['us->eu']
    assert sorted(flows[0].connectors) == ['heartbeat', 'source']
    assert flows[0].missing == []
    assert unplaced == ['mm2-mcc']
    assert [connector.flow for connector in connectors if connector.name == 'sink-s3'] == [None]


def test_missing_kind_of_a_named_flow_and_expected_flow_without_any_connector():
    answer = lab_flow()
    del answer['mm2-src-dst-heartbeat']
    flows = flows_of(answer, expected=['mm2-src-dst-heartbeat', 'mm2-a-b-source', 'mm2-a-b-checkpoint', 'mm2-a-b-heartbeat'])
    assert {flow.name: flow.missing for flow in flows} == {'a-b': ['source', 'checkpoint', 'heartbeat'], 'src-dst': ['heartbeat']}


def test_a_connector_with_other_aliases_is_a_warning_of_its_flow():
    flow = flows_of(lab_flow(**{'mm2-src-dst-heartbeat': entry('heartbeat', source='dst', target='src')}))[0]
    assert any('replicates dst -> src' in text for text in flow.warnings)


# ---- PromQL ---------------------------------------------------------------------------

def test_queries_select_the_job_deduplicate_partitions_and_drop_nan():
    assert records_rate_query('kafka-connect', '5m') == (
        'sum by (source, target) (max by (source, target, topic, partition) '
        '(rate(kafka_connect_mirror_source_records_total{job="kafka-connect"}[5m])))'
    )
    assert 'kafka_connect_mirror_source_consumer_records_lag{job="kafka-connect"} >= 0' in lag_query('kafka-connect')
    p99 = latency_p99_query('kafka-connect', '5m')
    assert p99 == ('max by (source, target) (quantile_over_time(0.99, '
                   '(kafka_connect_mirror_source_replication_latency_ms_max{job="kafka-connect"} >= 0)[5m:]))')


def test_checkpoint_query_names_the_connectors_as_an_escaped_regex():
    query = checkpoint_writes_query('kafka-connect', ['mm2-b.c-checkpoint', 'mm2-a-checkpoint'])
    assert query == ('sum by (connector) (kafka_connect_source_task_source_record_write_total'
                     '{job="kafka-connect", connector=~"mm2\\\\-a\\\\-checkpoint|mm2\\\\-b\\\\.c\\\\-checkpoint"})')


def test_range_window_covers_twice_the_largest_budget():
    assert range_queries_window(Thresholds()) == 600
    assert range_queries_window(Thresholds(max_checkpoint_age=900)) == 1800


# ---- metrics from answers -------------------------------------------------------------

def test_nan_values_are_left_out_of_flow_maps():
    nan = float('nan')
    assert by_flow([({'source': 'src', 'target': 'dst'}, nan), ({'source': 'a', 'target': 'b'}, 2.0)]) == {('a', 'b'): 2.0}
    lags = lag_by_flow([({'source': 'src', 'target': 'dst', 'source_topic': 'foo_orders'}, 7.0),
                        ({'source': 'src', 'target': 'dst', 'source_topic': 'foo_idle'}, nan)])
    assert lags == {('src', 'dst'): {'foo_orders': 7.0}}


def test_age_is_dated_at_the_newest_increase():
    samples = [(NOW - 60, 10.0), (NOW - 45, 11.0), (NOW - 30, 11.0), (NOW - 15, 11.0), (NOW, 11.0)]
    assert age_since_last_increase(samples, NOW) == Age(45.0, True)


def test_age_without_increase_is_a_lower_bound_and_nan_is_skipped():
    samples = [(NOW - 60, float('nan')), (NOW - 45, 11.0), (NOW - 30, float('nan')), (NOW, 11.0)]
    assert age_since_last_increase(samples, NOW) == Age(45.0, False)
    assert age_since_last_increase([(NOW - 10, float('nan'))], NOW) is None
    assert age_since_last_increase([], NOW) is None


def test_a_counter_reset_is_not_an_increase():
    samples = [(NOW - 30, 50.0), (NOW - 15, 0.0), (NOW, 0.0)]
    assert age_since_last_increase(samples, NOW) == Age(30.0, False)


def test_heartbeat_ages_are_keyed_by_flow_and_topic():
    answer = [({'source': 'src', 'target': 'dst', 'topic': 'src.heartbeats'}, [(NOW - 15, 1.0), (NOW, 2.0)])]
    assert heartbeat_ages(answer, NOW) == {('src', 'dst', 'src.heartbeats'): Age(0.0, True)}


def test_down_instances_and_hosts():
    assert down_instances([({'instance': 'task-1-2:9404'}, 0.0), ({'instance': 'task-1-1:9404'}, 1.0)]) == ['task-1-2:9404']
    assert host_of('https://task-1-1:8083') == 'task-1-1'
    assert host_of('task-1-1:9404') == 'task-1-1'
    assert host_of('[::1]:8083') == '::1'


def test_assign_metrics_matches_aliases_topic_and_workers():
    flow = flows_of(lab_flow())[0]
    answers = fresh_metrics()
    answers.down_instances = ['task-1-2:9404', 'elsewhere:9404']
    leftover = assign_metrics([flow], answers)
    assert flow.metrics.records_per_second == 12.5
    assert flow.metrics.heartbeat_age == Age(4.0, True)
    assert flow.metrics.checkpoint_age == Age(30.0, True)
    assert flow.metrics.workers_down == ['task-1-2:9404']
    assert leftover == ['elsewhere:9404']


# ---- health rules ---------------------------------------------------------------------

def test_healthy_flow_has_no_finding():
    flow = evaluated(lab_flow())
    assert flow.problems == [] and flow.warnings == []


@pytest.mark.parametrize('state', ['FAILED', 'UNASSIGNED'])
def test_broken_connector_or_task_is_a_problem(state):
    tasks = [{'id': 0, 'state': state, 'worker_id': WORKER_2, 'trace': 'org.apache.kafka.common.KafkaException: boom\n\tat x'}]
    flow = evaluated(lab_flow(**{'mm2-src-dst-source': entry('source', tasks=tasks)}))
    assert flow.problems == ['task mm2-src-dst-source-0 is %s on %s: org.apache.kafka.common.KafkaException: boom' % (state, WORKER_2)]
    flow = evaluated(lab_flow(**{'mm2-src-dst-heartbeat': entry('heartbeat', state=state)}))
    assert flow.problems == ['connector mm2-src-dst-heartbeat is %s on %s' % (state, WORKER_1)]


def test_paused_is_a_warning_unless_asked_and_its_ages_follow():
    stale = fresh_metrics()
    stale.heartbeat_ages[('src', 'dst', 'src.heartbeats')] = Age(600.0, False)
    paused = lab_flow(**{'mm2-src-dst-source': entry('source', state='PAUSED', tasks=[{'id': 0, 'state': 'PAUSED', 'worker_id': WORKER_2}])})
    flow = evaluated(paused, stale)
    assert flow.problems == []
    assert 'connector mm2-src-dst-source is PAUSED' in flow.warnings
    assert any(text.startswith('newest heartbeat') and text.endswith('(connector held)') for text in flow.warnings)
    strict = evaluated(paused, stale, Thresholds(fail_on_paused=True, max_checkpoint_age=300))
    assert 'connector mm2-src-dst-source is PAUSED' in strict.problems
    assert 'newest heartbeat replicated to src.heartbeats over 600 s ago, budget 60 s' in strict.problems


def test_missing_connector_is_a_problem():
    answer = lab_flow()
    del answer['mm2-src-dst-checkpoint']
    assert evaluated(answer).problems == ['checkpoint connector missing']


def test_source_connector_without_tasks_is_a_warning():
    flow = evaluated(lab_flow(**{'mm2-src-dst-source': entry('source', tasks=[])}))
    assert flow.warnings == ['connector mm2-src-dst-source runs no task: no topic of the source matches its filter']


@pytest.mark.parametrize('age, budget, fires', [
    (Age(61, True), 60, True), (Age(60, True), 60, False), (Age(700, False), 60, True), (Age(30, False), 60, False), (Age(900, True), 0, False),
])
def test_heartbeat_age_rule(age, budget, fires):
    metrics = fresh_metrics()
    metrics.heartbeat_ages[('src', 'dst', 'src.heartbeats')] = age
    flow = evaluated(lab_flow(), metrics, Thresholds(max_heartbeat_age=budget))
    assert any('newest heartbeat' in text for text in flow.problems) is fires


def test_no_heartbeat_series_is_a_problem():
    metrics = fresh_metrics()
    metrics.heartbeat_ages = {}
    flow = evaluated(lab_flow(), metrics)
    assert flow.problems == ['no heartbeat replicated: Prometheus has no series of kafka_connect_mirror_source_records_total for topic src.heartbeats']


def test_checkpoint_age_rule_fires_over_budget():
    metrics = fresh_metrics()
    metrics.checkpoint_ages['mm2-src-dst-checkpoint'] = Age(301, True)
    assert evaluated(lab_flow(), metrics).problems == ['newest checkpoint of mm2-src-dst-checkpoint 301 s ago, budget 300 s']
    assert evaluated(lab_flow(), metrics, Thresholds(max_checkpoint_age=600)).problems == []


def test_checkpoint_age_is_not_checked_without_checkpoint_tasks():
    metrics = fresh_metrics()
    metrics.checkpoint_ages = {}
    flow = evaluated(lab_flow(**{'mm2-src-dst-checkpoint': entry('checkpoint', tasks=[])}), metrics)
    assert flow.problems == []
    assert evaluated(lab_flow(), metrics).problems == [
        'no checkpoint seen: Prometheus has no series of kafka_connect_source_task_source_record_write_total for mm2-src-dst-checkpoint']


def test_latency_rule_and_idle_flow():
    metrics = fresh_metrics()
    metrics.latencies[('src', 'dst')] = 60001.0
    assert evaluated(lab_flow(), metrics).problems == ['replication latency p99 60001 ms, budget 60000 ms']
    metrics.latencies = {}  # idle for the whole window: NaN filtered out, no value
    assert evaluated(lab_flow(), metrics).problems == []


def test_lag_rule_is_off_by_default():
    metrics = fresh_metrics()
    metrics.lags[('src', 'dst')] = {'foo_orders': 5000.0}
    assert evaluated(lab_flow(), metrics).problems == []
    assert evaluated(lab_flow(), metrics, Thresholds(max_lag_records=1000)).problems == [
        'lag of source topic foo_orders is 5000 records, budget 1000']


def test_worker_down_in_prometheus_is_a_problem_of_its_flow():
    metrics = fresh_metrics()
    metrics.down_instances = ['task-1-2:9404']
    assert evaluated(lab_flow(), metrics).problems == ['worker task-1-2:9404 is down for Prometheus (up == 0)']


def test_metric_rules_are_skipped_when_metrics_were_not_read():
    flow = evaluated(lab_flow(), MetricAnswers(), metrics_read=False)
    assert flow.problems == []


def test_cluster_rules():
    connectors = parse_connectors({'other': {'info': {'config': {'connector.class': 'X'}}, 'status': {'connector': {'state': 'FAILED'}}}}, 'mm2-')
    workers = [Worker('https://task-1-1:8083', True, 'Kafka 4.1.0'), Worker('https://task-1-2:8083', False, 'ConnectionError')]
    cluster = ClusterStatus('lab', 'https://task-1-1:8083', workers=workers, connectors=connectors, unplaced_missing=['mm2-msc'],
                            down_instances=['task-1-2:9404', 'other-host:9404'])
    evaluate_cluster(cluster, Thresholds())
    assert cluster.problems == [
        'worker https://task-1-2:8083 unreachable: ConnectionError',
        'worker task-1-2:9404 is down for Prometheus (up == 0)',
        'expected connector mm2-msc missing',
        'connector other is FAILED',
    ]
    listing = ClusterStatus('lab', None, listing_error='GET /connectors failed (no HTTP response): no worker reachable')
    evaluate_cluster(listing, Thresholds())
    assert listing.problems == ['no worker listed the connectors: GET /connectors failed (no HTTP response): no worker reachable']


def test_a_cluster_of_one_worker_is_not_highly_available():
    one = ClusterStatus('lab', 'https://task-1-1:8083', workers=[Worker('https://task-1-1:8083', True, 'Kafka 4.1.0')])
    evaluate_cluster(one, Thresholds())
    assert not one.highly_available and one.problems == []
    assert one.warnings == ['one worker: the Connect cluster is not highly available; while that worker is down no flow replicates']
    assert cluster_dict(one)['highly_available'] is False
    assert cluster_lines(one)[1].startswith('  ONE WORKER: not highly available')
    # The inventory group's size decides over the URLs given ...
    assert ClusterStatus('lab', None, workers=one.workers, expected_workers=3).highly_available
    assert not ClusterStatus('lab', None, workers=one.workers * 2, expected_workers=1).highly_available
    # ... unless connectors and tasks run on more workers than that (one URL in front of several).
    spread = parse_connectors(lab_flow(), 'mm2-')
    assert ClusterStatus('lab', None, workers=one.workers, connectors=spread, expected_workers=1).highly_available


# ---- output ---------------------------------------------------------------------------

def report(answer: Dict[str, Any], metrics: Optional[MetricAnswers], metrics_read: bool = True):
    connectors = parse_connectors(answer, 'mm2-')
    flows, unplaced = group_flows(connectors, 'mm2-')
    cluster = ClusterStatus('mm2-lab', 'https://task-1-1:8083', workers=[Worker('https://task-1-1:8083', True, 'Kafka 4.1.0')],
                            connectors=connectors, unplaced_missing=unplaced)
    if metrics is not None:
        assign_metrics(flows, metrics)
    evaluate_cluster(cluster, Thresholds())
    for flow in flows:
        evaluate_flow(flow, Thresholds(), metrics_read)
    problems, warnings = collect_findings(cluster, flows)
    return cluster, flows, problems, warnings


def test_screen_of_a_healthy_cluster():
    cluster, flows, problems, warnings = report(lab_flow(), fresh_metrics())
    screen = render_screen(cluster, flows, CHECKPOINT_RULE_ON, True, problems, warnings)
    assert screen[0] == 'Connect cluster mm2-lab: 1 of 1 workers answer'
    assert '  worker https://task-1-1:8083  up Kafka 4.1.0' in screen
    assert any(line.startswith('  mm2-src-dst-source') and 'RUNNING' in line and WORKER_1 in line for line in screen)
    assert 'Flow src-dst (src -> dst): ok' in screen
    assert '  connectors    source RUNNING 1/1 tasks, checkpoint RUNNING 1/1 tasks, heartbeat RUNNING 1/1 tasks' in screen
    assert '  records/s     12.5' in screen
    assert '  latency p99   250 ms (budget 60000 ms)' in screen
    assert '  heartbeat     4 s ago (src.heartbeats, budget 60 s)' in screen
    assert '  checkpoint    30 s ago (budget 300 s)' in screen
    assert '  lag (records) foo_orders 3 (per source topic, "." shown as "_"; budget off)' in screen
    assert screen[-1] == 'HEALTHY: 0 problems, 0 warnings'


def test_screen_of_an_unhealthy_cluster_lists_each_finding():
    tasks = [{'id': 0, 'state': 'FAILED', 'worker_id': WORKER_2, 'trace': 'java.lang.RuntimeException: target refused'}]
    cluster, flows, problems, warnings = report(lab_flow(**{'mm2-src-dst-source': entry('source', tasks=tasks)}), MetricAnswers())
    screen = render_screen(cluster, flows, CHECKPOINT_RULE_ON, True, problems, warnings)
    assert 'Flow src-dst (src -> dst): UNHEALTHY' in screen
    assert '      java.lang.RuntimeException: target refused' in screen
    assert '  latency p99   n/a (budget 60000 ms)' in screen
    assert 'UNHEALTHY: 2 problems, 0 warnings' in screen  # the failed task, no heartbeat seen
    assert '  problem: flow src-dst: task mm2-src-dst-source-0 is FAILED on %s: java.lang.RuntimeException: target refused' % WORKER_2 in screen


def test_screen_without_metrics_says_so():
    cluster, flows, problems, warnings = report(lab_flow(), None, metrics_read=False)
    screen = render_screen(cluster, flows, Thresholds(), False, problems, warnings)
    assert '  metrics       not read (no Prometheus URL)' in screen
    assert not any(line.startswith('  records/s') for line in screen)


def test_json_shape():
    cluster, flows, _problems, _warnings = report(lab_flow(), fresh_metrics())
    document = json.loads(json.dumps({'clusters': [cluster_dict(cluster)], 'flows': [flow_dict(flow, cluster.name) for flow in flows]}))
    flow = document['flows'][0]
    assert flow == {
        'name': 'src-dst', 'cluster': 'mm2-lab', 'source': 'src', 'target': 'dst',
        'connectors': {'source': 'mm2-src-dst-source', 'checkpoint': 'mm2-src-dst-checkpoint', 'heartbeat': 'mm2-src-dst-heartbeat'},
        'missing': [], 'workers': [WORKER_1, WORKER_2], 'heartbeats_topic': 'src.heartbeats',
        'records_per_second': 12.5, 'lag_records': {'foo_orders': 3}, 'latency_p99_ms': 250.0,
        'heartbeat_age': {'seconds': 4.0, 'exact': True}, 'checkpoint_age': {'seconds': 30.0, 'exact': True},
        'workers_down': [], 'readiness': None, 'verification': None, 'healthy': True, 'problems': [], 'warnings': [],
    }
    connector = document['clusters'][0]['connectors'][0]
    assert set(connector) == {'name', 'kind', 'flow', 'class', 'state', 'worker_id', 'trace', 'tasks'}
    assert connector['tasks'] == [{'id': 0, 'state': 'RUNNING', 'worker_id': WORKER_2, 'trace': None}]


# ---- the Prometheus client's pure parts -----------------------------------------------

def test_prometheus_values_and_urls():
    assert math.isnan(parse_value('NaN'))
    assert parse_value('+Inf') == math.inf
    assert url_without_credentials('https://ops:s3cret@prom.example:9090/base') == 'https://prom.example:9090/base'
    assert url_without_credentials('http://prometheus-1:9090') == 'http://prometheus-1:9090'


def test_prometheus_error_messages_name_the_url_without_credentials():
    unreachable = PrometheusApiError('http://ops:s3cret@prometheus-1:9090', None, 'ConnectionError (refused)')
    assert str(unreachable) == 'Prometheus at http://prometheus-1:9090 is unreachable: ConnectionError (refused)'
    refused = PrometheusApiError('http://prometheus-1:9090', 400, 'bad_data: parse error', 'up{')
    assert str(refused) == 'Prometheus at http://prometheus-1:9090 answered HTTP 400: bad_data: parse error (query: up{)'


def test_checkpoint_age_is_reported_not_judged_by_default() -> None:
    metrics = fresh_metrics()
    metrics.checkpoint_ages = {'mm2-src-dst-checkpoint': Age(86400.0, True)}
    flow = evaluated(lab_flow(), metrics, Thresholds())
    assert flow.problems == []
    assert flow.metrics.checkpoint_age == Age(86400.0, True)


def test_readiness_figures_and_sentinels_per_flow() -> None:
    figures = [({'__name__': 'kafka_dr_readiness_ready', 'flow': 'a'}, 1.0),
               ({'__name__': 'kafka_dr_readiness_recovery_point_seconds', 'flow': 'a'}, float('nan')),
               ({'__name__': 'kafka_dr_readiness_last_success_timestamp_seconds', 'flow': 'b'}, 0.0)]
    sentinels = [({'flow': 'a', 'kind': 'target-truncated', 'topic': 't', 'partition': '2'}, 1.0),
                 ({'flow': 'a', 'kind': 'recreated', 'topic': 't', 'partition': '1'}, 1.0)]
    found = readiness_by_flow(figures, [({'flow': 'a'}, 0.0)], [], sentinels, 100.0)
    assert found['a'].ready is True and found['a'].recovery_point_s is None and found['a'].uncopied_records == 0
    assert found['a'].sentinels == [
        'readiness exporter: source partition t-1 ends before the offsets MM2 copied: the topic was deleted and re-created, '
        'or truncated',
        'readiness exporter: the remote partition of t-2 was re-created or truncated on the target behind MM2']
    # Exported but never measured: no age, no verdict.
    assert found['b'].measured_age_s is None and readiness_text(found['b']).startswith('not measured yet')
    assert readiness_text(None) == 'readiness exporter not scraped'


def test_readiness_sentinels_stay_problems_of_a_held_flow() -> None:
    flow = Flow('src-dst', 'src', 'dst')
    flow.connectors['source'] = ConnectorStatus('mm2-src-dst-source', 'source', 'src-dst', 'PAUSED', 'w1')
    flow.metrics.readiness = ReadinessFigures(sentinels=['readiness exporter: source topic t was deleted and re-created behind MM2'])
    evaluate_flow(flow, Thresholds(max_heartbeat_age=0), metrics_read=True)
    assert flow.problems == ['readiness exporter: source topic t was deleted and re-created behind MM2']


def test_verification_figures_the_worst_partition_and_failures_per_flow() -> None:
    figures = [({'__name__': 'kafka_dr_verification_verified_timestamp_seconds', 'flow': 'a', 'topic': 't', 'partition': '0'}, 90.0),
               ({'__name__': 'kafka_dr_verification_proven_offset', 'flow': 'a', 'topic': 't', 'partition': '0'}, 7.0),
               ({'__name__': 'kafka_dr_verification_source_end_offset', 'flow': 'a', 'topic': 't', 'partition': '0'}, 7.0),
               ({'__name__': 'kafka_dr_verification_consecutive_failures', 'flow': 'a'}, 4.0),
               # Only its run record: no increment completed yet.
               ({'__name__': 'kafka_dr_verification_consecutive_failures', 'flow': 'b'}, 1.0)]
    found = verification_by_flow(figures, [], 100.0)
    assert (found['a'].worst, found['a'].age_s, found['a'].proven_offset) == ('t-0', 10.0, 7.0)
    assert verification_text(found['a']) == 'up to offset 7 of t-0, 10 s ago (worst of 1 partition)'
    assert verification_text(found['b']) == 'no increment completed yet (continuous verification)'
    assert verification_text(None) == 'continuous verification not scraped'
    flow = Flow('a', 'src', 'dst')
    flow.metrics.verification = found['a']
    evaluate_flow(flow, Thresholds(max_heartbeat_age=0), metrics_read=True)
    assert flow.problems == [] and flow.warnings == ['continuous verification: the last 4 increments failed (journalctl -u kafka-dr-verify-a.service)']
