# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""extensions/monitoring: the JMX exporter rules, the alert rules and the dashboard agree.

The exporter is emulated in process as jmx_prometheus_javaagent 1.x works: it writes each
attribute as `domain<key=value, ...><>attribute: value` (keys in the order Kafka registered
them), matches it against each rule's pattern wrapped in `^.*(?:...).*$` until one matches,
substitutes `$n` into name and labels, makes the name safe, lowercases it, strips the
suffixes the Prometheus client reserves and appends `_total` to counters. A table of the
MBeans Kafka 4.3 (and 3.x) registers, checked against the connect-runtime, connect-mirror
and kafka-clients 4.3.1 jars, goes through that emulation; the metric names and labels that
come out are the only ones the alert rules, their promtool tests and the dashboard may read,
with those the restart watchdog of role connect_worker and the readiness exporter of role readiness
serve (rendered by their own code).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional, Set, Tuple, Union

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
# The restart watchdog's package (role connect_worker's files), as its unit's PYTHONPATH puts it.
WATCHDOG_FILES = REPO_ROOT / 'roles' / 'connect_worker' / 'files'
if str(WATCHDOG_FILES) not in sys.path:
    sys.path.insert(0, str(WATCHDOG_FILES))

from connect_watchdog.decisions import UnitKey, UnitState  # noqa: E402  pylint: disable=wrong-import-position
from connect_watchdog.metrics import Metrics  # noqa: E402  pylint: disable=wrong-import-position
from connect_watchdog.stalls import CONSUMER_LAG_METRIC, WRITE_TOTAL_METRIC  # noqa: E402  pylint: disable=wrong-import-position

from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_readiness_exporter import FlowFigures, render_metrics  # noqa: E402
from ansible_collections.kafka_dr.mm2.plugins.module_utils import mm2_verification  # noqa: E402

MONITORING = REPO_ROOT / 'extensions' / 'monitoring'
EXPORTER_FILES = {
    'connect': MONITORING / 'jmx_exporter' / 'connect.yml',
    'broker': MONITORING / 'jmx_exporter' / 'broker.yml',
}
ALERTS = MONITORING / 'prometheus' / 'mm2_alerts.yml'
# The RPO budget (role prometheus renders it from mm2_rpo_seconds; this copy holds the default).
RPO_RULES = MONITORING / 'prometheus' / 'mm2_rpo.yml'
# The stale budget of continuous verification (role prometheus renders it from replication_check_continuous_stale_seconds).
VERIFICATION_RULES = MONITORING / 'prometheus' / 'mm2_verification_budget.yml'
ALERT_TESTS = MONITORING / 'prometheus' / 'mm2_alerts_test.yml'
DASHBOARD = MONITORING / 'grafana' / 'mm2-overview.json'

Value = Union[float, str]


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding='utf-8'))


EXPORTERS: Dict[str, Dict[str, Any]] = {kind: load_yaml(path) for kind, path in EXPORTER_FILES.items()}
ALERT_RULES: Dict[str, Any] = load_yaml(ALERTS)
RPO_RULE_GROUPS: List[Dict[str, Any]] = load_yaml(RPO_RULES)['groups'] + load_yaml(VERIFICATION_RULES)['groups']

# --- the exporter, emulated ---------------------------------------------------------------

RESERVED_SUFFIXES = ('_total', '_created', '_bucket', '_info')
RULE_TYPES = {'GAUGE', 'COUNTER', 'UNTYPED', 'UNKNOWN'}
# Options of the 1.x rule file this extension may use; credentials and remote JMX stay out.
CONFIG_KEYS = {'lowercaseOutputName', 'lowercaseOutputLabelNames', 'includeObjectNames', 'excludeObjectNames', 'rules'}
RULE_KEYS = {'pattern', 'name', 'labels', 'type', 'help', 'value', 'valueFactor', 'attrNameSnakeCase', 'cache'}
# Java regex constructs Python reads differently or not at all: named groups, \p classes,
# \Q..\E quoting, \G \Z \z, possessive quantifiers, atomic groups, inline flags.
JAVA_ONLY = re.compile(r'\(\?<[A-Za-z]|\\[pPQEGZz]|[*+?}]\+|\(\?>|\(\?[a-z]+\)')


@dataclass(frozen=True)
class Exported:
    """One sample the exporter serves: exposed name, labels, rule type, value."""

    name: str
    labels: Tuple[Tuple[str, str], ...]
    type: str
    value: float


def java_replace(template: str, match: 're.Match[str]') -> str:
    """Matcher.replaceAll(template) for a match of the whole input: `$n` inserts group n (nothing
    when the group took no part), `\\x` a literal x; Java reads further digits after `$n` while
    they still name an existing group."""
    out: List[str] = []
    index = 0
    while index < len(template):
        char = template[index]
        if char == '\\':
            out.append(template[index + 1])
            index += 2
        elif char == '$':
            index += 1
            if index >= len(template) or not template[index].isdigit():
                raise ValueError('illegal group reference in %r' % template)
            number = int(template[index])
            index += 1
            while index < len(template) and template[index].isdigit() and number * 10 + int(template[index]) <= match.re.groups:
                number = number * 10 + int(template[index])
                index += 1
            if number > match.re.groups:
                raise IndexError('no group %d in %r' % (number, match.re.pattern))
            out.append(match.group(number) or '')
        else:
            out.append(char)
            index += 1
    return ''.join(out)


def safe_name(name: str) -> str:
    """JmxCollector.safeName: characters outside [a-zA-Z0-9:_] become "_", runs of "_" collapse,
    a leading digit gets a "_" in front."""
    out = '_' if name[:1].isdigit() else ''
    underscore = False
    for char in name:
        if char == '_' or not (char == ':' or (char.isascii() and char.isalnum())):
            if not underscore:
                out += '_'
            underscore = True
        else:
            out += char
            underscore = False
    return out


def strip_reserved_suffixes(name: str) -> str:
    """PrometheusNaming.sanitizeMetricName of the client the 1.x agent uses."""
    while name.endswith(RESERVED_SUFFIXES):
        name = name[:name.rindex('_')]
    return name


def wrapped(pattern: str) -> 're.Pattern[str]':
    return re.compile('^.*(?:' + pattern + ').*$')


def export(config: Mapping[str, Any], bean: str, value: Value) -> Optional[Exported]:
    """What the agent serves for one attribute (bean = `domain<...><>attribute`), or None."""
    for rule in config['rules']:
        match = wrapped(rule['pattern']).fullmatch('%s: %s' % (bean, value))
        if match is None:
            continue
        if 'value' in rule:
            number = float(java_replace(str(rule['value']), match))
        elif isinstance(value, float):
            number = value
        else:
            return None  # a string attribute without a value: the agent skips it
        name = safe_name(java_replace(rule['name'], match))
        if config.get('lowercaseOutputName'):
            name = name.lower()
        labels = {}
        for label_name, template in (rule.get('labels') or {}).items():
            label = safe_name(java_replace(label_name, match))
            if config.get('lowercaseOutputLabelNames'):
                label = label.lower()
            label_value = java_replace(template, match)
            if label and label_value:
                labels[label] = label_value
        rule_type = rule.get('type', 'UNKNOWN')
        exposed = strip_reserved_suffixes(name) + ('_total' if rule_type == 'COUNTER' else '')
        return Exported(exposed, tuple(sorted(labels.items())), rule_type, number)
    return None


# --- the MBeans Kafka registers, and what they must become -----------------------------------

WORKER = 'kafka.connect<type=connect-worker-metrics><>'
WORKER_CONNECTOR = 'kafka.connect<type=connect-worker-metrics, connector=mm2-src-dst-source><>'
REBALANCE = 'kafka.connect<type=connect-worker-rebalance-metrics><>'
CONNECTOR = 'kafka.connect<type=connector-metrics, connector=mm2-src-dst-source><>'
TASK = 'kafka.connect<type=connector-task-metrics, connector=mm2-src-dst-source, task=0><>'
SOURCE_TASK = 'kafka.connect<type=source-task-metrics, connector=mm2-src-dst-source, task=0><>'
TASK_ERRORS = 'kafka.connect<type=task-error-metrics, connector=mm2-src-dst-source, task=0><>'
MIRROR = 'kafka.connect.mirror<type=MirrorSourceConnector, source=src, target=dst, topic=src.foo.orders, partition=0><>'
# Kafka 3.x before the source key (MirrorMetrics: target, topic, partition).
MIRROR_3X = 'kafka.connect.mirror<type=MirrorSourceConnector, target=dst, topic=src.foo.orders, partition=0><>'
# metric.names.formats=new (Kafka 4.x opt-in, the only form from 5.0): task plugin metrics.
MIRROR_NEW = ('kafka.connect<type=plugins, connector=mm2-src-dst-source, task=1, source=src, target=dst, '
              'topic=src.foo.orders, partition=2><>')
CHECKPOINT = ('kafka.connect.mirror<type=MirrorCheckpointConnector, source=src, target=dst, group=orders-app, '
              'topic=foo.orders, partition=0><>')
CHECKPOINT_NEW = ('kafka.connect<type=plugins, connector=mm2-src-dst-checkpoint, task=0, source=src, target=dst, '
                  'group=orders-app, topic=foo.orders, partition=0><>')
# The MM2 source task's consumer: client.id "<source>-><target>|<connector>-<task>|replication-consumer",
# quoted by JMX; the consumer writes topic names with "." as "_".
CONSUMER = ('kafka.consumer<type=consumer-fetch-manager-metrics, '
            'client-id="src->dst|mm2-src-dst-source-0|replication-consumer", topic=foo_orders, partition=0><>')

SRC_DST = {'source': 'src', 'target': 'dst'}
PARTITION_0 = dict(SRC_DST, topic='src.foo.orders', partition='0')
TASK_0 = {'connector': 'mm2-src-dst-source', 'task': '0'}
GROUP = dict(SRC_DST, group='orders-app', topic='foo.orders', partition='0')
TASK_1_PARTITION_2 = dict(SRC_DST, connector='mm2-src-dst-source', task='1', topic='src.foo.orders', partition='2')

Expected = Optional[Tuple[str, Dict[str, str]]]
# (rule file, attribute as the agent writes it, attribute value, (metric name, labels) or None)
SAMPLES: List[Tuple[str, str, Value, Expected]] = [
    # the worker
    ('connect', WORKER + 'connector-count', 3.0, ('kafka_connect_worker_connector_count', {})),
    ('connect', WORKER + 'task-count', 4.0, ('kafka_connect_worker_task_count', {})),
    ('connect', WORKER + 'connector-startup-failure-total', 0.0, ('kafka_connect_worker_connector_startup_failure_total', {})),
    ('connect', WORKER + 'task-startup-failure-total', 1.0, ('kafka_connect_worker_task_startup_failure_total', {})),
    ('connect', WORKER + 'connector-startup-attempts-total', 5.0, None),
    ('connect', WORKER_CONNECTOR + 'connector-running-task-count', 2.0,
     ('kafka_connect_worker_connector_tasks', {'connector': 'mm2-src-dst-source', 'state': 'running'})),
    ('connect', WORKER_CONNECTOR + 'connector-failed-task-count', 1.0,
     ('kafka_connect_worker_connector_tasks', {'connector': 'mm2-src-dst-source', 'state': 'failed'})),
    ('connect', WORKER_CONNECTOR + 'connector-total-task-count', 3.0, None),
    ('connect', REBALANCE + 'completed-rebalances-total', 7.0, ('kafka_connect_worker_rebalances_total', {})),
    ('connect', REBALANCE + 'rebalancing', 0.0, ('kafka_connect_worker_rebalancing', {})),
    ('connect', REBALANCE + 'time-since-last-rebalance-ms', 5000.0, ('kafka_connect_worker_time_since_last_rebalance_ms', {})),
    ('connect', REBALANCE + 'leader-name', 'http://task-1-1:8083/', None),
    # connectors and tasks
    ('connect', CONNECTOR + 'status', 'running',
     ('kafka_connect_connector_status', {'connector': 'mm2-src-dst-source', 'status': 'running'})),
    ('connect', CONNECTOR + 'status', 'failed',
     ('kafka_connect_connector_status', {'connector': 'mm2-src-dst-source', 'status': 'failed'})),
    ('connect', 'kafka.connect<type=connector-metrics, connector=mm2-src-dst-checkpoint><>connector-class',
     'org.apache.kafka.connect.mirror.MirrorCheckpointConnector',
     ('kafka_connect_connector_class', {'connector': 'mm2-src-dst-checkpoint',
                                        'class': 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector'})),
    ('connect', CONNECTOR + 'connector-type', 'source', None),
    ('connect', TASK + 'status', 'running', ('kafka_connect_task_status', dict(TASK_0, status='running'))),
    ('connect', TASK.replace('task=0', 'task=1') + 'status', 'failed',
     ('kafka_connect_task_status', {'connector': 'mm2-src-dst-source', 'task': '1', 'status': 'failed'})),
    ('connect', TASK + 'offset-commit-failure-percentage', 0.0, ('kafka_connect_task_offset_commit_failure_percentage', TASK_0)),
    ('connect', TASK + 'batch-size-avg', 12.5, ('kafka_connect_task_batch_size_avg', TASK_0)),
    ('connect', TASK + 'task-class', 'org.apache.kafka.connect.mirror.MirrorSourceTask', None),
    ('connect', SOURCE_TASK + 'source-record-write-total', 1000.0, ('kafka_connect_source_task_source_record_write_total', TASK_0)),
    ('connect', SOURCE_TASK + 'source-record-poll-total', 1000.0, ('kafka_connect_source_task_source_record_poll_total', TASK_0)),
    ('connect', SOURCE_TASK + 'source-record-write-rate', 10.0, ('kafka_connect_source_task_source_record_write_rate', TASK_0)),
    ('connect', SOURCE_TASK + 'source-record-active-count', 3.0, ('kafka_connect_source_task_source_record_active_count', TASK_0)),
    ('connect', SOURCE_TASK + 'source-record-active-count-max', 9.0,
     ('kafka_connect_source_task_source_record_active_count_max', TASK_0)),
    ('connect', TASK_ERRORS + 'total-record-errors', 0.0, ('kafka_connect_task_error_record_errors_total', TASK_0)),
    ('connect', TASK_ERRORS + 'last-error-timestamp', 0.0, None),
    # MirrorSourceConnector
    ('connect', MIRROR + 'record-count', 100.0, ('kafka_connect_mirror_source_records_total', PARTITION_0)),
    ('connect', MIRROR + 'byte-count', 4096.0, ('kafka_connect_mirror_source_bytes_total', PARTITION_0)),
    ('connect', MIRROR + 'record-rate', 2.5, ('kafka_connect_mirror_source_record_rate', PARTITION_0)),
    ('connect', MIRROR + 'byte-rate', 100.0, ('kafka_connect_mirror_source_byte_rate', PARTITION_0)),
    ('connect', MIRROR + 'record-age-ms', 80.0, ('kafka_connect_mirror_source_record_age_ms', PARTITION_0)),
    ('connect', MIRROR + 'record-age-ms-min', 10.0, ('kafka_connect_mirror_source_record_age_ms_min', PARTITION_0)),
    ('connect', MIRROR + 'record-age-ms-max', 90.0, ('kafka_connect_mirror_source_record_age_ms_max', PARTITION_0)),
    ('connect', MIRROR + 'record-age-ms-avg', 50.0, ('kafka_connect_mirror_source_record_age_ms_avg', PARTITION_0)),
    ('connect', MIRROR + 'replication-latency-ms', 120.0, ('kafka_connect_mirror_source_replication_latency_ms', PARTITION_0)),
    ('connect', MIRROR + 'replication-latency-ms-min', 20.0, ('kafka_connect_mirror_source_replication_latency_ms_min', PARTITION_0)),
    ('connect', MIRROR + 'replication-latency-ms-max', 150.0, ('kafka_connect_mirror_source_replication_latency_ms_max', PARTITION_0)),
    ('connect', MIRROR + 'replication-latency-ms-avg', 70.0, ('kafka_connect_mirror_source_replication_latency_ms_avg', PARTITION_0)),
    ('connect', MIRROR_3X + 'replication-latency-ms-max', 150.0,
     ('kafka_connect_mirror_source_replication_latency_ms_max', {'target': 'dst', 'topic': 'src.foo.orders', 'partition': '0'})),
    ('connect', MIRROR_3X + 'record-count', 100.0,
     ('kafka_connect_mirror_source_records_total', {'target': 'dst', 'topic': 'src.foo.orders', 'partition': '0'})),
    ('connect', MIRROR_NEW + 'record-count', 100.0, ('kafka_connect_mirror_source_records_total', TASK_1_PARTITION_2)),
    ('connect', MIRROR_NEW + 'replication-latency-ms-max', 150.0,
     ('kafka_connect_mirror_source_replication_latency_ms_max', TASK_1_PARTITION_2)),
    # MirrorCheckpointConnector
    ('connect', CHECKPOINT + 'checkpoint-latency-ms', 15.0, ('kafka_connect_mirror_checkpoint_latency_ms', GROUP)),
    ('connect', CHECKPOINT + 'checkpoint-latency-ms-min', 5.0, ('kafka_connect_mirror_checkpoint_latency_ms_min', GROUP)),
    ('connect', CHECKPOINT + 'checkpoint-latency-ms-max', 30.0, ('kafka_connect_mirror_checkpoint_latency_ms_max', GROUP)),
    ('connect', CHECKPOINT + 'checkpoint-latency-ms-avg', 12.0, ('kafka_connect_mirror_checkpoint_latency_ms_avg', GROUP)),
    ('connect', CHECKPOINT.replace('group=orders-app', 'group="billing:eu"') + 'checkpoint-latency-ms-max', 30.0,
     ('kafka_connect_mirror_checkpoint_latency_ms_max', dict(GROUP, group='billing:eu'))),
    ('connect', CHECKPOINT_NEW + 'checkpoint-latency-ms-max', 30.0,
     ('kafka_connect_mirror_checkpoint_latency_ms_max', dict(GROUP, connector='mm2-src-dst-checkpoint', task='0'))),
    # the MM2 consumer's lag behind the source, and consumers that are not it
    ('connect', CONSUMER + 'records-lag', 42.0,
     ('kafka_connect_mirror_source_consumer_records_lag', dict(SRC_DST, connector='mm2-src-dst-source', task='0',
                                                               source_topic='foo_orders', partition='0'))),
    ('connect', CONSUMER.replace('"src->dst|mm2-src-dst-source-0|', '"mm2-dr|src->dst|mm2-src-dst-source-11|') + 'records-lag', 7.0,
     ('kafka_connect_mirror_source_consumer_records_lag', dict(SRC_DST, connector='mm2-src-dst-source', task='11',
                                                               source_topic='foo_orders', partition='0'))),
    ('connect', CONSUMER + 'records-lag-max', 42.0, None),
    ('connect', 'kafka.consumer<type=consumer-fetch-manager-metrics, client-id="src->dst|mm2-src-dst-checkpoint-0|'
                'offset-syncs-target-consumer", topic=mm2-offset-syncs_dst_internal, partition=0><>records-lag', 0.0, None),
    ('connect', 'kafka.consumer<type=consumer-fetch-manager-metrics, client-id=connect-mm2-offsets, topic=connect-mm2-offsets, '
                'partition=0><>records-lag', 0.0, None),
    # brokers
    ('broker', 'kafka.server<type=ReplicaManager, name=UnderReplicatedPartitions><>Value', 0.0,
     ('kafka_server_replicamanager_underreplicatedpartitions', {})),
    ('broker', 'kafka.server<type=ReplicaManager, name=UnderMinIsrPartitionCount><>Value', 0.0,
     ('kafka_server_replicamanager_underminisrpartitioncount', {})),
    ('broker', 'kafka.server<type=ReplicaManager, name=IsrShrinksPerSec><>Count', 3.0, None),
    ('broker', 'kafka.controller<type=KafkaController, name=ActiveControllerCount><>Value', 1.0,
     ('kafka_server_kafkacontroller_activecontrollercount', {})),
    ('broker', 'kafka.controller<type=KafkaController, name=OfflinePartitionsCount><>Value', 0.0,
     ('kafka_server_kafkacontroller_offlinepartitionscount', {})),
    ('broker', 'kafka.controller<type=KafkaController, name=LastAppliedRecordOffset><>Value', 812.0, None),
    ('broker', 'kafka.controller<type=ControllerStats, name=UncleanLeaderElectionsPerSec><>Count', 0.0,
     ('kafka_server_controllerstats_uncleanleaderelections_total', {})),
    ('broker', 'kafka.controller<type=ControllerStats, name=UncleanLeaderElectionsPerSec><>OneMinuteRate', 0.0, None),
    ('broker', 'kafka.server<type=BrokerTopicMetrics, name=MessagesInPerSec><>Count', 10000.0,
     ('kafka_server_brokertopicmetrics_messagesin_total', {})),
    ('broker', 'kafka.server<type=BrokerTopicMetrics, name=BytesOutPerSec><>Count', 1e6, ('kafka_server_brokertopicmetrics_bytesout_total', {})),
    ('broker', 'kafka.server<type=BrokerTopicMetrics, name=TotalProduceRequestsPerSec><>Count', 50.0,
     ('kafka_server_brokertopicmetrics_totalproducerequests_total', {})),
    ('broker', 'kafka.server<type=BrokerTopicMetrics, name=MessagesInPerSec, topic=src.foo.orders><>Count', 10000.0,
     ('kafka_server_brokertopicmetrics_topic_messagesin_total', {'topic': 'src.foo.orders'})),
    ('broker', 'kafka.server<type=BrokerTopicMetrics, name=MessagesInPerSec><>OneMinuteRate', 3.2, None),
]


def exported_samples() -> Iterator[Tuple[str, str, Exported]]:
    for kind, bean, value, expected in SAMPLES:
        if expected is not None:
            result = export(EXPORTERS[kind], bean, value)
            assert result is not None, bean
            yield kind, bean, result


def exposition_labels(text: str) -> Dict[str, Set[str]]:
    labels: Dict[str, Set[str]] = {}
    for line in text.splitlines():
        if line.startswith('#'):
            continue
        match = re.fullmatch(r'([A-Za-z_:][\w:]*)(?:\{(.*)\})? \S+', line)
        assert match, line
        labels.setdefault(match.group(1), set()).update(re.findall(r'(\w+)="', match.group(2) or ''))
    return labels


def watchdog_labels() -> Dict[str, Set[str]]:
    """Every metric name the restart watchdog serves, with its label names, as its code renders them."""
    metrics = Metrics()
    key = UnitKey('mm2-src-dst-source', 0)
    metrics.restarted(key, stalled=True)
    metrics.polled(1.0, {key: UnitState(restarts=3, cap_reached=True)})
    return exposition_labels(metrics.render())


# A readiness report with every figure (module mm2_readiness's report, abridged).
READINESS_REPORT: Dict[str, Any] = {
    'ready': False, 'problems': ['x'],
    'recovery_point': [{'topic': 'foo.orders', 'partition': 0, 'uncopied': 10, 'seconds': 19.0}],
    'groups': [{'group': 'app', 'planned_rereads': 0, 'unplanned_rereads': 4, 'unplanned_skipped': 0}],
    'sentinels': [{'kind': 'truncated', 'topic': 'foo.orders', 'partition': 0, 'lost': 5},
                  {'kind': 'recreated', 'topic': 'foo.orders', 'partition': None},
                  {'kind': 'target-truncated', 'topic': 'foo.orders', 'partition': 0}],
    'summary': {'recovery_point_s': 19.0, 'recovery_point_unknown': 0, 'groups_untranslated': ['app']},
}


def readiness_labels() -> Dict[str, Set[str]]:
    """Every metric name the readiness exporter serves, with its label names, as its code renders them."""
    return exposition_labels(render_metrics({'src-dst': FlowFigures(READINESS_REPORT, 1.0, 0.5, errors=1)}, 60))


def verification_labels() -> Dict[str, Set[str]]:
    """Every metric name continuous verification serves (an increment's file, the run record's, the exporter's own),
    with its label names, as its code renders them."""
    partition = {'proven': 5, 'source_end': 6, 'verified_at': 1.0, 'cumulative': {'records_judged': 5}}
    state = {'topics': {'foo.orders': {'partitions': {'0': partition}}}}
    text = mm2_verification.increment_metrics('src-dst', state, 2.0, 1.0, 5)
    text += mm2_verification.runs_metrics('src-dst', mm2_verification.record_run({}, 0, 2.0, 4.5), 60)
    families, _meta = mm2_verification.merge_expositions([text])
    labels = exposition_labels(text)
    labels['kafka_dr_verification_metrics_age_seconds'] = {'flow'}
    labels['kafka_dr_verification_exporter_file_errors_total'] = set()
    assert set(labels) == {mm2_verification.PREFIX + name for name in mm2_verification.METRICS} and families
    return labels


def produced_labels() -> Dict[str, Set[str]]:
    """Every metric name the sample MBeans, the restart watchdog and the readiness exporter produce, with the
    label names it carries."""
    labels: Dict[str, Set[str]] = watchdog_labels()
    labels.update(readiness_labels())
    labels.update(verification_labels())
    for _kind, _bean, result in exported_samples():
        labels.setdefault(result.name, set()).update(name for name, _value in result.labels)
    return labels


# --- PromQL ---------------------------------------------------------------------------------

PROMQL_WORDS = {'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'offset',
                'bool', 'atan2', 'inf', 'nan'}
# Labels Prometheus attaches at scrape time (job, instance) or the scrape config sets (cluster).
TARGET_LABELS = {'job', 'instance', 'cluster'}


def strip_strings(expr: str) -> str:
    return re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', '""', expr)


def metric_names(expr: str) -> Set[str]:
    """Metric names a PromQL expression reads: identifiers that are no function (followed by
    "("), keyword, label (in {...}, by/on/ignoring/group_* lists), duration or number."""
    text = strip_strings(expr)
    text = re.sub(r'\{[^{}]*\}', ' ', text)
    text = re.sub(r'\[[^\[\]]*\]', ' ', text)
    text = re.sub(r'\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)', ' ', text)
    names = set()
    for match in re.finditer(r'(?<![\w:.$])[A-Za-z_:][\w:]*', text):
        if text[match.end():].lstrip().startswith('(') or match.group().lower() in PROMQL_WORDS:
            continue
        names.add(match.group())
    return names


def selector_labels(expr: str) -> Iterator[Tuple[str, Set[str]]]:
    """(metric name, label names matched in its {...}) for every selector with a metric name."""
    for match in re.finditer(r'(?<![\w:.$])([A-Za-z_:][\w:]*)\s*\{((?:[^{}"]|"(?:[^"\\]|\\.)*")*)\}', expr):
        labels = set(re.findall(r'([A-Za-z_]\w*)\s*(?:=~|!~|!=|=)', strip_strings(match.group(2))))
        yield match.group(1), labels


def is_standard(name: str) -> bool:
    """Metrics that need no rule: the scrape's `up` and the agent's own JVM and process metrics."""
    return name == 'up' or name.startswith(('jvm_', 'process_'))


def alert_rules() -> Iterator[Dict[str, Any]]:
    for group in ALERT_RULES['groups'] + RPO_RULE_GROUPS:
        yield from group['rules']


RECORDED = {rule['record'] for rule in alert_rules() if 'record' in rule}
ALERT_NAMES = [rule['alert'] for rule in alert_rules() if 'alert' in rule]


def dashboard() -> Dict[str, Any]:
    return json.loads(DASHBOARD.read_text(encoding='utf-8'))


def all_panels(panels: List[Dict[str, Any]]) -> Iterator[Dict[str, Any]]:
    for panel in panels:
        yield panel
        yield from all_panels(panel.get('panels', []))


def dashboard_queries() -> Iterator[Tuple[str, str]]:
    """(where, PromQL) of every panel target; variables' label_values() give their metric."""
    board = dashboard()
    for panel in all_panels(board['panels']):
        for target in panel.get('targets', []):
            yield 'panel %r' % panel['title'], target['expr']
    for variable in board['templating']['list']:
        query = variable['query']['query'] if isinstance(variable['query'], dict) else variable['query']
        match = re.fullmatch(r'label_values\(\s*(.+?)\s*,\s*\w+\s*\)', query)
        assert match, 'variable %s: %s' % (variable['name'], query)
        yield 'variable %r' % variable['name'], match.group(1)


def used_queries() -> Iterator[Tuple[str, str]]:
    for rule in alert_rules():
        yield 'rule %s' % rule.get('alert', rule.get('record')), rule['expr']
    yield from dashboard_queries()


# --- the exporter rule files -----------------------------------------------------------------

@pytest.mark.parametrize('kind', sorted(EXPORTER_FILES))
def test_exporter_file_uses_known_options_and_no_credentials(kind: str) -> None:
    config = EXPORTERS[kind]
    assert set(config) <= CONFIG_KEYS, set(config) - CONFIG_KEYS
    assert config['lowercaseOutputName'] is True and config['lowercaseOutputLabelNames'] is True
    assert config['rules'] and config['includeObjectNames']
    for pattern in config['includeObjectNames']:
        assert re.fullmatch(r'[\w.]+:(\*|\w+=[\w-]+(,\w+=[\w-]+)*(,\*)?)', pattern), pattern


@pytest.mark.parametrize('kind', sorted(EXPORTER_FILES))
def test_every_rule_has_a_portable_pattern_a_name_help_and_type(kind: str) -> None:
    for rule in EXPORTERS[kind]['rules']:
        where = rule.get('pattern')
        assert set(rule) <= RULE_KEYS, (where, set(rule) - RULE_KEYS)
        assert not JAVA_ONLY.search(rule['pattern']), where
        compiled = wrapped(rule['pattern'])
        assert rule['pattern'].endswith(':') or re.search(r'><>[\w-]+: ', rule['pattern']), \
            '%s: the attribute name is not pinned by ": "' % where
        assert rule['name'] and rule['help'].strip(), where
        assert rule['type'] in RULE_TYPES, where
        for template in [rule['name'], rule['help'], str(rule.get('value', ''))] + list((rule.get('labels') or {}).values()):
            for number in re.findall(r'\$(\d)', template):
                assert 0 < int(number) <= compiled.groups, (where, template)
            assert not re.search(r'\$(?!\d)', template), (where, template)


@pytest.mark.parametrize('kind', sorted(EXPORTER_FILES))
def test_rule_names_survive_the_agent_unchanged(kind: str) -> None:
    """The agent strips _total/_created/_bucket/_info and appends _total to counters only: a
    counter's name ends in _total, no other name ends in a reserved suffix."""
    for rule in EXPORTERS[kind]['rules']:
        name = rule['name']
        if rule['type'] == 'COUNTER':
            assert name.endswith('_total'), name
        else:
            assert strip_reserved_suffixes(name) == name, name
        prefix = ('kafka_connect_', 'kafka_connect_mirror_') if kind == 'connect' else ('kafka_server_',)
        assert name.startswith(prefix), name


@pytest.mark.parametrize('kind, bean, value, expected', SAMPLES, ids=[sample[1] for sample in SAMPLES])
def test_kafka_mbeans_become_the_expected_metrics(kind: str, bean: str, value: Value, expected: Expected) -> None:
    result = export(EXPORTERS[kind], bean, value)
    if expected is None:
        assert result is None
        return
    assert result is not None
    assert (result.name, dict(result.labels)) == expected
    assert result.value == (1.0 if isinstance(value, str) else value)


def test_every_rule_is_exercised_by_a_sample() -> None:
    hit = set()
    for kind, bean, value, expected in SAMPLES:
        if expected is None:
            continue
        for index, rule in enumerate(EXPORTERS[kind]['rules']):
            if wrapped(rule['pattern']).fullmatch('%s: %s' % (bean, value)):
                hit.add((kind, index))
                break
    rules = {(kind, index): rule['pattern'] for kind in EXPORTERS for index, rule in enumerate(EXPORTERS[kind]['rules'])}
    assert sorted(rules[key] for key in set(rules) - hit) == []


def test_one_metric_name_keeps_one_type() -> None:
    """The agent exports a name that rules give different types as untyped (and drops _total)."""
    types: Dict[str, Set[str]] = {}
    for _kind, _bean, result in exported_samples():
        types.setdefault(result.name, set()).add(result.type)
    assert {name: kinds for name, kinds in types.items() if len(kinds) > 1} == {}


def object_name_matches(pattern: str, bean: str) -> bool:
    """Whether a JMX ObjectName pattern (domain:key=value,...[,*]) selects the bean."""
    domain, properties = pattern.split(':', 1)
    bean_domain, rest = bean.split('<', 1)
    bean_properties = dict(item.split('=', 1) for item in rest.split('><', 1)[0].split(', '))
    if domain != bean_domain:
        return False
    if properties == '*':
        return True
    wanted = [item for item in properties.split(',') if item != '*']
    exact = not properties.endswith(',*')
    pairs = dict(item.split('=', 1) for item in wanted)
    return all(bean_properties.get(key) == value for key, value in pairs.items()) and (not exact or len(pairs) == len(bean_properties))


def test_include_object_names_keep_every_exported_mbean() -> None:
    for kind, bean, _result in exported_samples():
        assert any(object_name_matches(pattern, bean) for pattern in EXPORTERS[kind]['includeObjectNames']), bean


def test_the_watchdog_serves_its_six_metrics_apart_from_the_exporters() -> None:
    assert watchdog_labels() == {
        'kafka_dr_connect_restarts_total': {'connector', 'task'},
        'kafka_dr_connect_stall_restarts_total': {'connector', 'task'},
        'kafka_dr_connect_restart_cap_reached': {'connector', 'task'},
        'kafka_dr_connect_watchdog_last_poll_timestamp_seconds': set(),
        'kafka_dr_connect_watchdog_poll_errors_total': set(),
        'kafka_dr_connect_watchdog_metrics_errors_total': set(),
    }
    exported = {result.name for _kind, _bean, result in exported_samples()}
    assert not exported & set(watchdog_labels())


def test_the_readiness_exporter_serves_its_metrics_apart_from_the_others() -> None:
    flow = {'flow'}
    partition = {'flow', 'topic', 'partition'}
    assert readiness_labels() == {
        'kafka_dr_readiness_ready': flow, 'kafka_dr_readiness_problems': flow,
        'kafka_dr_readiness_uncopied_records': partition, 'kafka_dr_readiness_uncopied_seconds': partition,
        'kafka_dr_readiness_recovery_point_seconds': flow, 'kafka_dr_readiness_recovery_point_unknown_partitions': flow,
        'kafka_dr_readiness_failover_rereads': {'flow', 'group', 'kind'},
        'kafka_dr_readiness_failover_skipped_records': {'flow', 'group'},
        'kafka_dr_readiness_untranslated_groups': flow, 'kafka_dr_readiness_truncated_records': partition,
        'kafka_dr_readiness_recreated_topics': flow, 'kafka_dr_readiness_target_truncated_partitions': flow,
        'kafka_dr_readiness_sentinel': {'flow', 'kind', 'topic', 'partition'},
        'kafka_dr_readiness_last_success_timestamp_seconds': flow, 'kafka_dr_readiness_last_duration_seconds': flow,
        'kafka_dr_readiness_interval_seconds': flow, 'kafka_dr_readiness_errors_total': flow,
    }
    others = {result.name for _kind, _bean, result in exported_samples()} | set(watchdog_labels())
    assert not others & set(readiness_labels())


def test_continuous_verification_serves_its_metrics_apart_from_the_others() -> None:
    partition = {'flow', 'topic', 'partition'}
    labels = verification_labels()
    assert labels['kafka_dr_verification_findings_total'] == partition | {'kind'}
    assert labels['kafka_dr_verification_proven_offset'] == partition
    assert labels['kafka_dr_verification_verified_timestamp_seconds'] == partition
    assert labels['kafka_dr_verification_consecutive_failures'] == {'flow'}
    others = {result.name for _kind, _bean, result in exported_samples()} | set(watchdog_labels()) | set(readiness_labels())
    assert not others & set(labels)


def test_the_watchdog_reads_series_the_connect_rules_produce() -> None:
    """Stall detection reads the worker's own exporter: a write counter and the consumer lag per task."""
    produced = produced_labels()
    assert {'connector', 'task'} <= produced[WRITE_TOTAL_METRIC]
    assert {'connector', 'task', 'partition'} <= produced[CONSUMER_LAG_METRIC]


# --- PromQL reads only what the rules produce ---------------------------------------------------

@pytest.mark.parametrize('expr, names', [
    ('max by (source, target, topic) (rate(kafka_x_total{a="b", c=~"d|e"}[5m])) > scalar(mm2:budget)',
     {'kafka_x_total', 'mm2:budget'}),
    ('sum by (connector) (x) unless on (connector) y offset 15m > 0 and on(task) group_left (z) w',
     {'x', 'y', 'w'}),
    ('deriv(sum by (a) (m{job="kafka-connect"})[15m:1m]) > 1e3', {'m'}),
    ('increase(kafka_connect_worker_rebalances_total{instance=~"$worker"}[$__rate_interval])',
     {'kafka_connect_worker_rebalances_total'}),
    ('up{job="kafka-connect", instance=~"$worker"} == bool 0', {'up'}),
    ('vector(60000)', set()),
])
def test_metric_names_are_read_out_of_promql(expr: str, names: Set[str]) -> None:
    assert metric_names(expr) == names


def test_every_metric_read_is_produced_by_a_rule() -> None:
    produced = set(produced_labels())
    unknown = [(where, name) for where, expr in used_queries() for name in sorted(metric_names(expr))
               if name not in produced and name not in RECORDED and not is_standard(name)]
    assert unknown == []


def test_every_label_matched_is_one_the_metric_carries() -> None:
    produced = produced_labels()
    wrong = [(where, name, sorted(labels - produced[name] - TARGET_LABELS))
             for where, expr in used_queries() for name, labels in selector_labels(expr)
             if name in produced and labels - produced[name] - TARGET_LABELS]
    assert wrong == []


def test_promtool_tests_feed_the_names_and_labels_the_rules_produce() -> None:
    produced = produced_labels()
    for case in load_yaml(ALERT_TESTS)['tests']:
        for series in case['input_series']:
            (name, labels), = selector_labels(series['series'])
            if is_standard(name):
                continue
            assert name in produced, (case['name'], name)
            assert labels - produced[name] - TARGET_LABELS == set(), (case['name'], name, labels)


# --- alert rules and their tests ---------------------------------------------------------------

def test_every_alert_waits_has_a_severity_and_names_what_broke() -> None:
    assert ALERT_NAMES and len(ALERT_NAMES) == len(set(ALERT_NAMES))
    for rule in alert_rules():
        if 'record' in rule:
            assert rule['record'].startswith('mm2:'), rule
            continue
        assert re.fullmatch(r'\d+[smh]', rule['for']), rule['alert']
        assert rule['labels']['severity'] in {'critical', 'warning'}, rule['alert']
        assert set(rule['annotations']) == {'summary', 'description'}, rule['alert']
        assert '{{ $labels.' in rule['annotations']['summary'], rule['alert']


def test_budgets_are_label_free_constants_the_alerts_compare_with() -> None:
    budgets = {rule['record']: rule['expr'] for rule in alert_rules() if 'record' in rule}
    assert budgets == {'mm2:replication_latency_budget_ms': 'vector(60000)',
                       'mm2:record_age_budget_ms': 'vector(60000)',
                       'mm2:checkpoint_latency_budget_ms': 'vector(60000)',
                       'mm2:rpo_budget_seconds': 'vector(60)',
                       'mm2:verification_stale_budget_seconds': 'vector(600)'}
    compared = {name for rule in alert_rules() if 'alert' in rule for name in metric_names(rule['expr'])}
    assert set(budgets) <= compared


def test_promtool_tests_see_every_alert_fire_and_stay_silent() -> None:
    firing: Set[str] = set()
    silent: Set[str] = set()
    for case in load_yaml(ALERT_TESTS)['tests']:
        for check in case.get('alert_rule_test', []):
            (firing if check['exp_alerts'] else silent).add(check['alertname'])
    assert sorted(set(ALERT_NAMES) - firing) == [] and sorted(set(ALERT_NAMES) - silent) == []
    assert firing | silent <= set(ALERT_NAMES)


PROMTOOL = shutil.which('promtool')
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason='promtool (Debian package prometheus) is not installed')


@needs_promtool
def test_promtool_accepts_the_rules() -> None:
    result = subprocess.run([str(PROMTOOL), 'check', 'rules', str(ALERTS), str(RPO_RULES), str(VERIFICATION_RULES)],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


@needs_promtool
def test_promtool_unit_tests_pass() -> None:
    result = subprocess.run([str(PROMTOOL), 'test', 'rules', ALERT_TESTS.name], cwd=ALERT_TESTS.parent,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


# --- the dashboard --------------------------------------------------------------------------------

def test_dashboard_imports_with_a_prometheus_input() -> None:
    board = dashboard()
    assert board['schemaVersion'] >= 36
    assert [(item['name'], item['type'], item['pluginId']) for item in board['__inputs']] == \
        [('DS_PROMETHEUS', 'datasource', 'prometheus')]
    assert board['uid'] and board['title']
    variables = {variable['name']: variable for variable in board['templating']['list']}
    assert {'flow', 'connector', 'source', 'target', 'worker'} <= set(variables)
    for variable in variables.values():
        assert variable['datasource'] == {'type': 'prometheus', 'uid': '${DS_PROMETHEUS}'}, variable['name']


def test_every_panel_queries_the_input_data_source() -> None:
    panels = list(all_panels(dashboard()['panels']))
    ids = [panel['id'] for panel in panels]
    assert len(ids) == len(set(ids))
    data_panels = [panel for panel in panels if panel['type'] != 'row']
    assert data_panels
    for panel in data_panels:
        assert panel['datasource'] == {'type': 'prometheus', 'uid': '${DS_PROMETHEUS}'}, panel['title']
        assert panel['targets'], panel['title']
        for target in panel['targets']:
            assert target['expr'].strip(), panel['title']
            assert target.get('datasource', panel['datasource']) == panel['datasource'], panel['title']


def test_panels_fit_the_grid_without_overlapping() -> None:
    cells: Dict[Tuple[int, int], str] = {}
    for panel in all_panels(dashboard()['panels']):
        grid = panel['gridPos']
        assert grid['x'] >= 0 and grid['x'] + grid['w'] <= 24, panel['title']
        for row in range(grid['y'], grid['y'] + grid['h']):
            for column in range(grid['x'], grid['x'] + grid['w']):
                assert (row, column) not in cells, (panel['title'], cells.get((row, column)))
                cells[(row, column)] = panel['title']
