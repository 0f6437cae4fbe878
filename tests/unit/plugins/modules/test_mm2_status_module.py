# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kafka_dr.mm2.mm2_status end to end: the fake Connect worker and a fake Prometheus on loopback."""

from __future__ import annotations

import base64
import time
from typing import Any, Dict, Iterator

import pytest

from fake_prometheus import FakePrometheus, counter_increased  # pylint: disable=import-error

MIRROR = 'org.apache.kafka.connect.mirror.Mirror%sConnector'
CONNECT_SECRET = 'rest-p@ss-never-shown'
PROMETHEUS_SECRET = 'prom-p@ss-never-shown'
CONFIG_SECRET = 'truststore-p@ss-never-shown'
FLOW_LABELS = {'source': 'src', 'target': 'dst'}


@pytest.fixture
def prometheus() -> Iterator[FakePrometheus]:
    server = FakePrometheus().start()
    yield server
    server.stop()


def mirror_config(kind: str) -> Dict[str, str]:
    return {
        'connector.class': MIRROR % kind.capitalize(),
        'source.cluster.alias': 'src',
        'target.cluster.alias': 'dst',
        'tasks.max': '1',
        'target.cluster.ssl.truststore.password': CONFIG_SECRET,
    }


def deploy_flow(fake: Any) -> None:
    for kind in ('source', 'checkpoint', 'heartbeat'):
        fake.add_connector('mm2-src-dst-%s' % kind, mirror_config(kind))


def serve_fresh_metrics(prometheus: FakePrometheus, heartbeat_seconds_ago: float = 5, checkpoint_seconds_ago: float = 40) -> None:
    prometheus.answer('up{', [({'instance': 'task-1-1:9404', 'job': 'kafka-connect'}, 1.0)])
    prometheus.answer('rate(kafka_connect_mirror_source_records_total', [(FLOW_LABELS, 42.0)])
    prometheus.answer('kafka_connect_mirror_source_consumer_records_lag', [(dict(FLOW_LABELS, source_topic='foo_orders'), 12.0)])
    prometheus.answer('replication_latency_ms_max', [(FLOW_LABELS, 850.0)])
    prometheus.answer_range('kafka_connect_mirror_source_records_total', [
        (dict(FLOW_LABELS, topic='src.heartbeats'), counter_increased(heartbeat_seconds_ago)),
    ])
    prometheus.answer_range('kafka_connect_source_task_source_record_write_total', [
        ({'connector': 'mm2-src-dst-checkpoint'}, counter_increased(checkpoint_seconds_ago)),
    ])


def status(run_module: Any, fake: Any, prometheus_url: str = '', **args: Any) -> Dict[str, Any]:
    return run_module('mm2_status', check_mode=True, url=args.pop('url', fake.url), cluster_name='mm2-lab', prometheus_url=prometheus_url, **args)


def test_healthy_flow_with_metrics(fake, prometheus, run_module):
    deploy_flow(fake)
    serve_fresh_metrics(prometheus)
    # The group has two workers; the fake answers for the cluster at one URL.
    result = status(run_module, fake, prometheus.url, age_step=5, expected_workers=2)
    assert not result.get('failed'), result.get('msg')
    assert result['changed'] is False
    assert result['healthy'] is True, result['problems']
    assert result['problems'] == [] and result['status_warnings'] == []
    assert result['metrics_read'] is True
    flow = result['flows'][0]
    assert flow['name'] == 'src-dst'
    assert flow['records_per_second'] == 42.0
    assert flow['lag_records'] == {'foo_orders': 12}
    assert flow['latency_p99_ms'] == 850.0
    assert flow['heartbeat_age']['exact'] is True and 0 <= flow['heartbeat_age']['seconds'] <= 10
    assert flow['checkpoint_age']['exact'] is True and 35 <= flow['checkpoint_age']['seconds'] <= 45
    cluster = result['clusters'][0]
    assert cluster['workers'] == [{'url': fake.url, 'reachable': True, 'detail': 'Kafka 3.9.0'}]
    assert [connector['state'] for connector in cluster['connectors']] == ['RUNNING'] * 3
    assert result['screen'][-1] == 'HEALTHY: 0 problems, 0 warnings'
    assert fake.writes() == []
    # Four for replication, four for the readiness exporter and two for continuous verification, neither scraped here.
    assert len(prometheus.queries('/api/v1/query')) == 10
    assert flow['readiness'] is None and '  readiness     readiness exporter not scraped' in result['screen']
    assert flow['verification'] is None and '  verified      continuous verification not scraped' in result['screen']
    ranges = prometheus.queries('/api/v1/query_range')
    assert len(ranges) == 2 and 'connector=~"mm2\\\\-src\\\\-dst\\\\-checkpoint"' in ranges[1]
    assert [request.params['step'] for request in prometheus.requests if request.path == '/api/v1/query_range'] == ['5s', '5s']


def test_readiness_sentinels_are_problems_and_the_recovery_point_a_figure(fake, prometheus, run_module):
    deploy_flow(fake)
    serve_fresh_metrics(prometheus)
    now = time.time()
    flow_labels = {'flow': 'src-dst', 'job': 'kafka-dr-readiness', 'instance': 'task-1-1:9406'}
    prometheus.answer('kafka_dr_readiness_(ready', [
        (dict(flow_labels, __name__='kafka_dr_readiness_ready'), 0.0),
        (dict(flow_labels, __name__='kafka_dr_readiness_recovery_point_seconds'), 19.5),
        (dict(flow_labels, __name__='kafka_dr_readiness_last_success_timestamp_seconds'), now - 30)])
    prometheus.answer('sum by (flow) (kafka_dr_readiness_uncopied_records)', [({'flow': 'src-dst'}, 10.0)])
    prometheus.answer('kafka_dr_readiness_truncated_records > 0', [(dict(flow_labels, topic='foo.orders', partition='0'), 60.0)])
    prometheus.answer('kafka_dr_readiness_sentinel{', [(dict(flow_labels, kind='recreated', topic='foo.orders', partition=''), 1.0)])
    result = status(run_module, fake, prometheus.url)
    assert result['problems'] == [
        'flow src-dst: readiness exporter: 60 records of source partition foo.orders-0 were deleted before MM2 copied them '
        '(silent loss)',
        'flow src-dst: readiness exporter: source topic foo.orders was deleted and re-created behind MM2',
    ]
    readiness = result['flows'][0]['readiness']
    assert readiness['ready'] is False and readiness['recovery_point_s'] == 19.5 and readiness['uncopied_records'] == 10
    assert 25 <= readiness['measured_age_s'] <= 40
    (line,) = [line for line in result['screen'] if line.startswith('  readiness')]
    assert line.startswith('  readiness     NOT READY, recovery point 19.5 s, 10 records not on the target (readiness exporter, measured')


def test_verification_findings_are_problems_and_the_worst_partition_a_figure(fake, prometheus, run_module):
    deploy_flow(fake)
    serve_fresh_metrics(prometheus)
    now = time.time()
    labels = {'flow': 'src-dst', 'job': 'kafka-dr-verification', 'instance': 'task-1-1:9407', 'topic': 'foo.orders'}
    prometheus.answer('kafka_dr_verification_(verified_timestamp_seconds', [
        (dict(labels, __name__='kafka_dr_verification_verified_timestamp_seconds', partition='0'), now - 30),
        (dict(labels, __name__='kafka_dr_verification_proven_offset', partition='0'), 1200.0),
        (dict(labels, __name__='kafka_dr_verification_source_end_offset', partition='0'), 1250.0),
        (dict(labels, __name__='kafka_dr_verification_verified_timestamp_seconds', partition='1'), now - 5),
        (dict(labels, __name__='kafka_dr_verification_proven_offset', partition='1'), 800.0),
        (dict(labels, __name__='kafka_dr_verification_source_end_offset', partition='1'), 800.0)])
    prometheus.answer('increase(kafka_dr_verification_findings_total', [
        ({'flow': 'src-dst', 'topic': 'foo.orders', 'partition': '1', 'kind': 'missing'}, 3.0)])
    result = status(run_module, fake, prometheus.url)
    assert result['problems'] == [
        "flow src-dst: continuous verification: 3 records of foo.orders-1 missing in the last hour (evidence in the increments' reports)"]
    verification = result['flows'][0]['verification']
    assert verification['worst_partition'] == 'foo.orders-0' and verification['proven_offset'] == 1200
    assert verification['source_end_offset'] == 1250 and 25 <= verification['age_s'] <= 40 and verification['partitions'] == 2
    (line,) = [line for line in result['screen'] if line.startswith('  verified')]
    assert line.startswith('  verified      up to offset 1200 of foo.orders-0, source end 1250, ')
    assert line.endswith('s ago (worst of 2 partitions)')


def test_failed_task_and_stale_heartbeat_make_it_unhealthy(fake, prometheus, run_module):
    deploy_flow(fake)
    fake.fail_task('mm2-src-dst-source', 0, 'org.apache.kafka.common.errors.TopicAuthorizationException: denied\n\tat ...')
    serve_fresh_metrics(prometheus, heartbeat_seconds_ago=120)
    result = status(run_module, fake, prometheus.url)
    assert result['healthy'] is False
    assert result['problems'] == [
        'flow src-dst: task mm2-src-dst-source-0 is FAILED on 127.0.0.1:8083: '
        'org.apache.kafka.common.errors.TopicAuthorizationException: denied',
        'flow src-dst: newest heartbeat replicated to src.heartbeats 120 s ago, budget 60 s',
    ]
    assert 'Flow src-dst (src -> dst): UNHEALTHY' in result['screen']


def test_missing_connector_and_unreachable_worker(fake, prometheus, run_module, closed_port_url):
    deploy_flow(fake)
    del fake.connectors['mm2-src-dst-heartbeat']
    serve_fresh_metrics(prometheus)
    result = status(run_module, fake, prometheus.url, url=[closed_port_url, fake.url], expected_connectors=['mm2-src-dst-heartbeat', 'mm2-msc'])
    assert result['healthy'] is False
    assert result['problems'] == [
        'mm2-lab: worker %s unreachable: ConnectionError' % closed_port_url,
        'mm2-lab: expected connector mm2-msc missing',
        'flow src-dst: heartbeat connector missing',
    ]
    assert result['clusters'][0]['url'] == fake.url


def test_paused_flow_is_a_warning(fake, prometheus, run_module):
    deploy_flow(fake)
    fake.connectors['mm2-src-dst-checkpoint'].apply_state('PAUSED')
    serve_fresh_metrics(prometheus, checkpoint_seconds_ago=400)
    result = status(run_module, fake, prometheus.url)
    assert result['healthy'] is True
    assert 'flow src-dst: connector mm2-src-dst-checkpoint is PAUSED' in result['status_warnings']
    strict = status(run_module, fake, prometheus.url, fail_on_paused=True, max_checkpoint_age=300)
    assert strict['healthy'] is False
    # Dated at the first range point after the write: exact to one age_step (15 s).
    assert [text for text in strict['problems'] if 'newest checkpoint' in text] == [
        'flow src-dst: newest checkpoint of mm2-src-dst-checkpoint 390 s ago, budget 300 s']


def test_without_prometheus_reports_rest_state_with_a_warning(fake, prometheus, run_module):
    deploy_flow(fake)
    result = status(run_module, fake, expected_workers=2)
    assert result['healthy'] is True
    assert result['metrics_read'] is False
    assert result['queries'] == {}
    assert result['status_warnings'] == [
        'mm2-lab: metrics not read: prometheus_url is empty, so heartbeat, checkpoint, latency and lag were not checked']
    assert '  metrics       not read (no Prometheus URL)' in result['screen']
    assert prometheus.requests == []


def test_one_worker_is_reported_not_highly_available(fake, prometheus, run_module):
    deploy_flow(fake)
    result = status(run_module, fake)
    assert result['healthy'] is True
    assert result['clusters'][0]['highly_available'] is False
    assert 'mm2-lab: one worker: the Connect cluster is not highly available; while that worker is down no flow replicates' in \
        result['status_warnings']
    assert result['screen'][1] == ('  ONE WORKER: not highly available; while it is down no flow replicates '
                                   '(give the cluster a second worker)')
    two = status(run_module, fake, expected_workers=2)
    assert two['clusters'][0]['highly_available'] is True
    assert not any('ONE WORKER' in line for line in two['screen'])


def test_a_worker_that_lacks_features_is_reported_with_what_it_does_instead(fake, prometheus, run_module):
    deploy_flow(fake)
    fake.version = '2.8.2'
    old = status(run_module, fake, expected_workers=2)
    degraded = {entry['feature']: entry for entry in old['clusters'][0]['degraded']}
    assert set(degraded) == {'stop', 'restart_include_tasks', 'offsets_read', 'offsets_alter', 'exactly_once_source'}
    assert degraded['stop']['minimum'] == '3.5' and 'paused instead' in degraded['stop']['instead']
    assert degraded['exactly_once_source']['kind'] == 'refuse'
    assert any(line.startswith('  DEGRADES below Kafka Connect 3.5 (stop): paused instead') for line in old['screen'])
    assert any(line.startswith('  REFUSES below Kafka Connect 3.3 (exactly_once_source)') for line in old['screen'])
    fake.version = '4.3.1'
    new = status(run_module, fake, expected_workers=2)
    assert new['clusters'][0]['degraded'] == []
    assert not any('DEGRADES' in line or 'REFUSES' in line for line in new['screen'])


def test_expected_workers_below_one_is_refused(fake, run_module):
    result = status(run_module, fake, expected_workers=0)
    assert result['failed'] is True and 'expected_workers must be at least 1, got 0' in result['msg']
    assert fake.requests == []


def test_no_worker_answers_is_reported_not_raised(run_module, closed_port_url):
    result = run_module('mm2_status', url=[closed_port_url], retry_timeout=0, timeout=2)
    assert not result.get('failed'), result.get('msg')
    assert result['healthy'] is False
    assert result['problems'][0].startswith('%s: worker %s unreachable' % (closed_port_url, closed_port_url))
    assert 'no worker listed the connectors' in result['problems'][1]


def test_prometheus_unreachable_fails_naming_the_url_without_credentials(fake, run_module, closed_port_url):
    deploy_flow(fake)
    with_credentials = closed_port_url.replace('http://', 'http://ops:%s@' % PROMETHEUS_SECRET)
    result = status(run_module, fake, with_credentials, prometheus_timeout=2)
    assert result['failed'] is True
    assert result['msg'] == 'Prometheus at %s is unreachable: ConnectionError ([Errno 111] Connection refused)' % closed_port_url
    assert result['http_status'] is None
    assert PROMETHEUS_SECRET not in result['_stdout']


def test_prometheus_error_fails_with_the_server_message(fake, prometheus, run_module):
    deploy_flow(fake)
    prometheus.fail_with(422, 'execution', 'query processing would load too many samples into memory')
    result = status(run_module, fake, prometheus.url)
    assert result['failed'] is True
    assert result['msg'].startswith(
        'Prometheus at %s answered HTTP 422: execution: query processing would load too many samples into memory (query: up{'
        % prometheus.url)
    assert result['http_status'] == 422


def test_bad_window_is_refused_before_any_request(fake, prometheus, run_module):
    result = status(run_module, fake, prometheus.url, metrics_window='5 minutes')
    assert result['failed'] is True
    assert 'metrics_window must be a PromQL duration' in result['msg']
    assert fake.requests == [] and prometheus.requests == []


def test_passwords_never_appear(fake, prometheus, run_module):
    deploy_flow(fake)
    fake.fail_task('mm2-src-dst-heartbeat', 0, 'java.lang.IllegalStateException: %s rejected' % CONFIG_SECRET)
    serve_fresh_metrics(prometheus)
    result = status(run_module, fake, prometheus.url, url_username='operator', url_password=CONNECT_SECRET,
                    prometheus_username='reader', prometheus_password=PROMETHEUS_SECRET)
    assert result['healthy'] is False
    for secret in (CONNECT_SECRET, PROMETHEUS_SECRET, CONFIG_SECRET):
        assert secret not in result['_stdout']
    expected_prometheus_auth = 'Basic ' + base64.b64encode(('reader:%s' % PROMETHEUS_SECRET).encode()).decode()
    assert {request.authorization for request in prometheus.requests} == {expected_prometheus_auth}
    assert fake.requests[-1].authorization == 'Basic ' + base64.b64encode(('operator:%s' % CONNECT_SECRET).encode()).decode()
