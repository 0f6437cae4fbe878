#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: mm2_status
short_description: Health of a Kafka Connect cluster and of its MirrorMaker 2 flows, from the REST API and Prometheus
version_added: 0.1.0
description:
  - Reads every connector and task of one Kafka Connect cluster (C(GET /connectors?expand=status&expand=info)) with its state
    and worker, probes each worker URL (C(GET /)), and groups the MirrorMaker 2 connectors into flows.
  - A flow is the connectors named C(<prefix><flow>-source), C(-checkpoint) and C(-heartbeat) whose classes are the matching
    C(Mirror*Connector); MM2 connectors named otherwise are grouped by their C(source.cluster.alias) and C(target.cluster.alias)
    into a flow named C(<source>-><target>).
  - With O(prometheus_url), reads per flow from Prometheus the records replicated per second, the lag per source topic,
    the replication latency p99, the age of the newest replicated heartbeat and of the newest checkpoint.
    C(docs/status.md) lists each query.
  - When Prometheus scrapes the readiness exporter of role M(kafka_dr.mm2.readiness) (metrics C(kafka_dr_readiness_*)), it also
    reads per flow the recovery point and the silent-loss sentinels; a source partition truncated before MM2 copied it, a
    source topic re-created, a remote partition truncated on the target are problems of the flow. Without those series
    the flow's readiness is V(null) ("readiness exporter not scraped"), which is no problem.
  - When Prometheus scrapes the continuous verification of role M(kafka_dr.mm2.replication_check) (metrics
    C(kafka_dr_verification_*)), it also reads per flow the offset verified up to and its age (the partition verified longest
    ago); records found missing, unexpected, changed or truncated in the last hour are problems of the flow, three failed
    increments in a row a warning. Without those series the flow's verification is V(null) ("continuous verification not
    scraped"), which is no problem.
  - Applies the health rules (FAILED or UNASSIGNED connectors and tasks, missing connectors, unreachable workers,
    ages and latency over budget) and returns RV(healthy), the findings and a text screen. The play decides what to do
    with them (C(playbooks/status.yml) fails when RV(healthy) is false).
  - Never changes anything.
author:
  - kafka_dr.mm2 maintainers (!UNKNOWN)
options:
  cluster_name:
    description:
      - Name of the Connect cluster in the report. The first worker URL (without credentials) when omitted.
    type: str
  connector_prefix:
    description:
      - Prefix of the connector names of a flow, C(<prefix><flow>-source|checkpoint|heartbeat)
        (C(mirrormaker_connector_prefix) of role mirrormaker).
    type: str
    default: mm2-
  expected_connectors:
    description:
      - Connectors that must exist, for example the names role mirrormaker deploys on this cluster.
        Each absent one is a problem.
      - Independently of this list, a flow whose names follow the pattern lacks none of its three connectors.
    type: list
    elements: str
    default: []
  prometheus_url:
    description:
      - Base URL of the Prometheus server that scrapes the workers, for example V(http://prometheus-1:9090).
      - Empty skips the metrics; the REST state is still reported, with a warning that metrics were not read.
      - An unreachable server or a failed query fails the module with the URL (credentials removed) and the server's message.
    type: str
    default: ''
  prometheus_username:
    description:
      - User name for HTTP basic authentication against Prometheus.
    type: str
  prometheus_password:
    description:
      - Password for HTTP basic authentication against Prometheus.
    type: str
  prometheus_ca_path:
    description:
      - CA bundle file or directory to verify the TLS certificate of Prometheus. The system trust store when omitted.
    type: path
  prometheus_validate_certs:
    description:
      - Verify the TLS certificate of Prometheus.
    type: bool
    default: true
  prometheus_timeout:
    description:
      - Seconds to wait for each Prometheus query.
    type: int
    default: 30
  prometheus_job:
    description:
      - Scrape job of the workers' JMX exporters in Prometheus.
    type: str
    default: kafka-connect
  metrics_window:
    description:
      - PromQL duration of the records/s rate and of the latency p99, for example V(5m).
    type: str
    default: 5m
  age_step:
    description:
      - Seconds between the points of the range queries that date the newest heartbeat and checkpoint;
        the ages are exact to this step. Use the scrape interval or more.
    type: int
    default: 15
  max_heartbeat_age:
    description:
      - Seconds since the newest heartbeat reached the target (its remote heartbeats topic C(<source><separator>heartbeats))
        above which a flow is unhealthy. V(0) switches the rule off.
    type: int
    default: 60
  max_checkpoint_age:
    description:
      - Seconds since the checkpoint connector last wrote a checkpoint above which a flow is unhealthy.
        Only for a flow whose checkpoint connector runs tasks (it runs none while the source has no consumer group).
        V(0) switches the rule off.
      - MM2 writes a checkpoint only when a group's offset moves, so idle groups age too; the rule is
        therefore off by default and the age is reported only.
    type: int
    default: 0
  max_latency_p99_ms:
    description:
      - Replication latency p99 in milliseconds above which a flow is unhealthy. V(0) switches the rule off.
    type: int
    default: 60000
  max_lag_records:
    description:
      - Records a source topic may wait for MM2 before the flow is unhealthy. V(0) (the default) switches the rule off.
    type: int
    default: 0
  fail_on_paused:
    description:
      - Count PAUSED and STOPPED connectors and tasks, and the ages of their flows, as problems rather than warnings.
    type: bool
    default: false
  expected_workers:
    description:
      - Number of workers the Connect cluster has, usually the size of its inventory group. The number of worker URLs
        (O(url)) when omitted.
      - A cluster of one worker, unless its connectors and tasks run on more, is reported as not highly available, with a
        line of the screen and a warning (not a problem).
    type: int
extends_documentation_fragment:
  - kafka_dr.mm2.connect
  - kafka_dr.mm2.connect.read_only
notes:
  - Metric names are those of C(extensions/monitoring/jmx_exporter/connect.yml). Per-partition MM2 metrics carry the cluster aliases,
    which is how they are matched to a flow; lag topics are source topics with C(.) shown as C(_) by the Kafka consumer.
seealso:
  - module: kafka_dr.mm2.connector_info
  - module: kafka_dr.mm2.connect_cluster_info
'''

EXAMPLES = r'''
- name: Read the health of the Connect cluster and its flows
  kafka_dr.mm2.mm2_status:
    url: [https://connect-1:8083, https://connect-2:8083]
    url_username: operator
    url_password: "{{ connect_rest_password }}"
    ca_path: /etc/kafka/tls/ca.pem
    prometheus_url: http://prometheus-1:9090
    max_heartbeat_age: 120
  register: status

- name: Show the screen
  ansible.builtin.debug:
    msg: "{{ status.screen }}"

- name: Fail when unhealthy
  ansible.builtin.fail:
    msg: "{{ status.problems }}"
  when: not status.healthy
'''

RETURN = r'''
healthy:
  description: True when no problem was found (warnings do not count).
  returned: always
  type: bool
  sample: false
problems:
  description: Every finding that makes the cluster unhealthy, each starting with the cluster or flow it concerns.
  returned: always
  type: list
  elements: str
  sample: ['flow src-dst: newest heartbeat replicated to src.heartbeats 95 s ago, budget 60 s']
status_warnings:
  description:
    - Findings that do not make it unhealthy (paused connectors, metrics not read, ...).
    - Not named C(warnings), which Ansible reserves for its own warnings.
  returned: always
  type: list
  elements: str
  sample: ['mm2-lab: metrics not read: prometheus_url is empty']
metrics_read:
  description: Whether Prometheus was queried.
  returned: always
  type: bool
clusters:
  description: The Connect cluster, as a list of one.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: O(cluster_name).
      type: str
    url:
      description: The worker URL that listed the connectors, or V(null).
      type: str
    workers:
      description: Each configured worker URL with C(reachable) and C(detail) (the Kafka version, or why it did not answer).
      type: list
      elements: dict
    degraded:
      description: The features of the Kafka Connect feature table that the oldest answering worker lacks, each with C(feature),
        C(minimum) (the first version with it), C(kind) (C(degrade) or C(refuse)) and C(instead) (what the modules do there).
      type: list
      elements: dict
    highly_available:
      description: False when the cluster has one worker (O(expected_workers), else one URL, and no other worker runs a connector or task).
      type: bool
    connectors:
      description: Every connector with C(name), C(kind) (C(source), C(checkpoint), C(heartbeat) or V(null)), C(flow), C(class), C(state),
        C(worker_id), C(trace) (first line, when failed) and C(tasks) (each C(id), C(state), C(worker_id), C(trace)).
      type: list
      elements: dict
    healthy:
      description: No problem of the cluster itself (its flows are in RV(flows)).
      type: bool
    problems:
      description: Problems of the cluster itself.
      type: list
      elements: str
    warnings:
      description: Warnings of the cluster itself.
      type: list
      elements: str
flows:
  description: The MM2 flows of the cluster.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: Flow name (the middle of the connector names, or C(<source>-><target>)).
      type: str
    source:
      description: Source cluster alias.
      type: str
    target:
      description: Target cluster alias.
      type: str
    connectors:
      description: Connector name per kind (C(source), C(checkpoint), C(heartbeat)), V(null) when absent.
      type: dict
    missing:
      description: Kinds of connector the flow lacks.
      type: list
      elements: str
    workers:
      description: Worker ids that run the flow's connectors and tasks.
      type: list
      elements: str
    heartbeats_topic:
      description: The remote heartbeats topic whose records date the newest heartbeat.
      type: str
    records_per_second:
      description: Records written to the target per second over O(metrics_window), V(null) without data.
      type: float
    lag_records:
      description: Records waiting on the source per source topic (C(.) shown as C(_)).
      type: dict
    latency_p99_ms:
      description: Replication latency p99 in ms of the worst partition over O(metrics_window), V(null) when idle.
      type: float
    heartbeat_age:
      description: C(seconds) since the newest replicated heartbeat and C(exact) (false when no heartbeat was seen in the
        queried history, so the age is at least C(seconds)); both V(null) without data.
      type: dict
    checkpoint_age:
      description: The same for the newest checkpoint.
      type: dict
    workers_down:
      description: Scrape targets of the flow's workers with C(up == 0).
      type: list
      elements: str
    readiness:
      description:
        - What the readiness exporter last measured for the flow (its series with label C(flow) equal to the flow's name),
          V(null) when Prometheus has none.
        - C(ready) (V(null) before the first measurement), C(recovery_point_s), C(uncopied_records), C(measured_age_s) (seconds
          since the last completed measurement) and C(sentinels) (problem lines).
      type: dict
    verification:
      description:
        - What continuous verification last served for the flow (its series with label C(flow) equal to the flow's name),
          V(null) when Prometheus has none.
        - C(partitions), C(worst_partition) (the one verified longest ago, C(<topic>-<partition>)), its C(proven_offset),
          C(source_end_offset) and C(age_s) (seconds since it was last verified), C(consecutive_failures) and C(findings)
          (problem lines).
      type: dict
    healthy:
      description: No problem in this flow.
      type: bool
    problems:
      description: Problems of this flow.
      type: list
      elements: str
    warnings:
      description: Warnings of this flow.
      type: list
      elements: str
screen:
  description: The report as text lines, for C(ansible.builtin.debug).
  returned: always
  type: list
  elements: str
queries:
  description: The PromQL run, by name (empty when metrics were not read).
  returned: always
  type: dict
'''

import re
import time
from urllib.parse import urlsplit
from typing import Any, Dict, List, NoReturn, Optional, Tuple

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_client import REQUESTS_IMPORT_ERROR, ConnectApiError, ConnectClient
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_features import WorkerVersion, feature_report
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_common import build_client, connect_argument_spec, hide_values
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_config import secret_values
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_status import (
    ClusterStatus,
    Flow,
    MetricAnswers,
    Thresholds,
    Worker,
    assign_metrics,
    by_flow,
    checkpoint_ages,
    checkpoint_writes_query,
    cluster_dict,
    collect_findings,
    down_instances,
    evaluate_cluster,
    evaluate_flow,
    flow_dict,
    group_flows,
    heartbeat_ages,
    heartbeat_records_query,
    lag_by_flow,
    lag_query,
    latency_p99_query,
    parse_connectors,
    range_queries_window,
    readiness_by_flow,
    readiness_figures_query,
    readiness_sentinels_query,
    readiness_truncated_query,
    readiness_uncopied_query,
    records_rate_query,
    verification_by_flow,
    verification_figures_query,
    verification_findings_query,
    render_screen,
    workers_up_query,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.prometheus_client import (
    PrometheusApiError,
    PrometheusClient,
    url_without_credentials,
)

PROMQL_DURATION = re.compile(r'^[0-9]+[smhdw]$')


def argument_spec() -> Dict[str, Dict[str, Any]]:
    spec = connect_argument_spec()
    spec.update(
        cluster_name={'type': 'str'},
        connector_prefix={'type': 'str', 'default': 'mm2-'},
        expected_connectors={'type': 'list', 'elements': 'str', 'default': []},
        prometheus_url={'type': 'str', 'default': ''},
        prometheus_username={'type': 'str'},
        prometheus_password={'type': 'str', 'no_log': True},
        prometheus_ca_path={'type': 'path'},
        prometheus_validate_certs={'type': 'bool', 'default': True},
        prometheus_timeout={'type': 'int', 'default': 30},
        prometheus_job={'type': 'str', 'default': 'kafka-connect'},
        metrics_window={'type': 'str', 'default': '5m'},
        age_step={'type': 'int', 'default': 15},
        max_heartbeat_age={'type': 'int', 'default': 60},
        max_checkpoint_age={'type': 'int', 'default': 0},
        max_latency_p99_ms={'type': 'int', 'default': 60000},
        max_lag_records={'type': 'int', 'default': 0},
        fail_on_paused={'type': 'bool', 'default': False},
        expected_workers={'type': 'int'},
    )
    return spec


def thresholds_of(params: Dict[str, Any]) -> Thresholds:
    return Thresholds(
        max_heartbeat_age=params['max_heartbeat_age'],
        max_checkpoint_age=params['max_checkpoint_age'],
        max_latency_p99_ms=params['max_latency_p99_ms'],
        max_lag_records=params['max_lag_records'],
        fail_on_paused=params['fail_on_paused'],
    )


def hide_url_passwords(module: AnsibleModule) -> None:
    """A password written into a URL (user:password@host) is scrubbed like the password options."""
    urls = list(module.params['url'] or []) + [module.params['prometheus_url'] or '']
    hide_values(module, [urlsplit(url.strip()).password or '' for url in urls])


def check_params(module: AnsibleModule) -> None:
    params = module.params
    if not PROMQL_DURATION.match(params['metrics_window']):
        module.fail_json(msg='metrics_window must be a PromQL duration such as 5m, got %r' % params['metrics_window'])
    if params['age_step'] < 1:
        module.fail_json(msg='age_step must be at least 1 second')
    negative = [name for name in ('max_heartbeat_age', 'max_checkpoint_age', 'max_latency_p99_ms', 'max_lag_records') if params[name] < 0]
    if negative:
        module.fail_json(msg='thresholds cannot be negative: %s' % ', '.join(negative))
    if params['expected_workers'] is not None and params['expected_workers'] < 1:
        module.fail_json(msg='expected_workers must be at least 1, got %d' % params['expected_workers'])


# ---- Kafka Connect ---------------------------------------------------------------------

def probe_workers(client: ConnectClient) -> Tuple[List[Worker], List[Dict[str, Any]]]:
    """GET / on each worker URL once, so an unreachable worker is named even when another answers;
    also what the oldest answering worker lacks of the feature table."""
    workers = []
    versions: List[WorkerVersion] = []
    first_reachable: Optional[str] = None
    for url in client.urls:
        answer = client.probe(url)
        display_url = url_without_credentials(url)
        if answer['reachable']:
            first_reachable = first_reachable or url
            workers.append(Worker(display_url, True, 'Kafka %s' % answer['version'] if answer.get('version') else ''))
            versions.append(WorkerVersion.of(answer))
            continue
        status = answer.get('status')
        detail = str(answer.get('error') or 'no answer')
        workers.append(Worker(display_url, False, 'HTTP %d: %s' % (status, detail) if status else detail))
    if first_reachable:
        client.prefer(first_reachable)
    return workers, missing_features(versions)


def missing_features(versions: List[WorkerVersion]) -> List[Dict[str, Any]]:
    """The features the oldest known worker lacks (a mixed cluster mid-upgrade does what its oldest can)."""
    known = [version for version in versions if version.known]
    if not known:
        return []
    oldest = min(known, key=lambda version: version.kafka or (0, 0))
    return [dict(entry, feature=name) for name, entry in feature_report(oldest).items() if not entry['available']]


def read_cluster(module: AnsibleModule, client: ConnectClient) -> ClusterStatus:
    params = module.params
    name = params['cluster_name'] or url_without_credentials(client.urls[0])
    workers, degraded = probe_workers(client)
    cluster = ClusterStatus(name=name, url=None, workers=workers, expected_workers=params['expected_workers'], degraded=degraded)
    try:
        expanded_all = client.list_connectors_expanded()
    except ConnectApiError as exc:
        cluster.listing_error = str(exc)
        return cluster
    for entry in expanded_all.values():
        hide_values(module, secret_values(((entry or {}).get('info') or {}).get('config')))
    cluster.url = url_without_credentials(client.answered_url) if client.answered_url else None
    cluster.connectors = parse_connectors(expanded_all, params['connector_prefix'])
    return cluster


# ---- Prometheus ------------------------------------------------------------------------

def build_prometheus(module: AnsibleModule) -> PrometheusClient:
    if REQUESTS_IMPORT_ERROR:
        module.fail_json(msg=missing_required_lib('requests'), exception=REQUESTS_IMPORT_ERROR)
    params = module.params
    return PrometheusClient(
        url=params['prometheus_url'].strip(),
        username=params['prometheus_username'],
        password=params['prometheus_password'],
        ca_path=params['prometheus_ca_path'],
        validate_certs=params['prometheus_validate_certs'],
        timeout=params['prometheus_timeout'],
    )


def flow_queries(params: Dict[str, Any], flows: List[Flow]) -> Dict[str, str]:
    job, window = params['prometheus_job'], params['metrics_window']
    queries = {
        'readiness_figures': readiness_figures_query(),
        'readiness_uncopied': readiness_uncopied_query(),
        'readiness_truncated': readiness_truncated_query(),
        'readiness_sentinels': readiness_sentinels_query(),
        'verification_figures': verification_figures_query(),
        'verification_findings': verification_findings_query(),
        'records_per_second': records_rate_query(job, window),
        'lag_records': lag_query(job),
        'latency_p99_ms': latency_p99_query(job, window),
        'heartbeat_records': heartbeat_records_query(job),
        'workers_up': workers_up_query(job),
    }
    checkpoint_names = [flow.connectors['checkpoint'].name for flow in flows if 'checkpoint' in flow.connectors]
    if checkpoint_names:
        queries['checkpoint_writes'] = checkpoint_writes_query(job, checkpoint_names)
    return queries


def read_metrics(prometheus: PrometheusClient, queries: Dict[str, str], thresholds: Thresholds, step: int) -> Tuple[MetricAnswers, bool]:
    """Every query once for all flows; returns the answers and whether any worker is scraped at all."""
    now = time.time()
    start = now - range_queries_window(thresholds)
    up_answer = prometheus.query(queries['workers_up'], at=now)
    answers = MetricAnswers(
        rates=by_flow(prometheus.query(queries['records_per_second'], at=now)),
        lags=lag_by_flow(prometheus.query(queries['lag_records'], at=now)),
        latencies=by_flow(prometheus.query(queries['latency_p99_ms'], at=now)),
        heartbeat_ages=heartbeat_ages(prometheus.query_range(queries['heartbeat_records'], start, now, step), now),
        down_instances=down_instances(up_answer),
        readiness=readiness_by_flow(prometheus.query(queries['readiness_figures'], at=now),
                                    prometheus.query(queries['readiness_uncopied'], at=now),
                                    prometheus.query(queries['readiness_truncated'], at=now),
                                    prometheus.query(queries['readiness_sentinels'], at=now), now),
        verification=verification_by_flow(prometheus.query(queries['verification_figures'], at=now),
                                          prometheus.query(queries['verification_findings'], at=now), now),
    )
    if 'checkpoint_writes' in queries:
        answers.checkpoint_ages = checkpoint_ages(prometheus.query_range(queries['checkpoint_writes'], start, now, step), now)
    return answers, bool(up_answer)


def fail_prometheus(module: AnsibleModule, error: PrometheusApiError) -> NoReturn:
    module.fail_json(msg=str(error), http_status=error.status, server_message=error.message, prometheus_url=error.base_url, query=error.query)


# ---- the report ------------------------------------------------------------------------

def report(module: AnsibleModule, client: ConnectClient) -> Dict[str, Any]:
    params = module.params
    thresholds = thresholds_of(params)
    cluster = read_cluster(module, client)
    flows, cluster.unplaced_missing = group_flows(cluster.connectors, params['connector_prefix'], params['expected_connectors'])
    metrics_read = bool(params['prometheus_url'].strip())
    queries: Dict[str, str] = {}
    if metrics_read:
        prometheus = build_prometheus(module)
        hide_values(module, [params['prometheus_password'] or ''])
        queries = flow_queries(params, flows)
        try:
            answers, scraped = read_metrics(prometheus, queries, thresholds, params['age_step'])
        except PrometheusApiError as exc:
            fail_prometheus(module, exc)
        cluster.down_instances = assign_metrics(flows, answers)
        if not scraped:
            cluster.warnings.append('Prometheus at %s scrapes no target of job %s' % (prometheus.display_url, params['prometheus_job']))
    else:
        cluster.warnings.append('metrics not read: prometheus_url is empty, so heartbeat, checkpoint, latency and lag were not checked')
    evaluate_cluster(cluster, thresholds)
    for flow in flows:
        evaluate_flow(flow, thresholds, metrics_read)
    problems, warnings = collect_findings(cluster, flows)
    return {
        'changed': False,
        'healthy': not problems,
        'problems': problems,
        'status_warnings': warnings,
        'metrics_read': metrics_read,
        'clusters': [cluster_dict(cluster)],
        'flows': [flow_dict(flow, cluster.name) for flow in flows],
        'screen': render_screen(cluster, flows, thresholds, metrics_read, problems, warnings),
        'queries': queries,
    }


def main() -> None:
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    hide_url_passwords(module)
    check_params(module)
    client = build_client(module)
    module.exit_json(**report(module, client))


if __name__ == '__main__':
    main()
