# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decisions of module mm2_status, free of I/O: flows from the Connect REST answer, the
PromQL it asks, metrics per flow from the answers, the health rules and the text screen.

The module fetches (ConnectClient, PrometheusClient) and hands the answers to these functions,
so every rule here is tested with plain data.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_values import trace_excerpt
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_naming import DEFAULT_SEPARATOR, ReplicationNaming

MIRROR_CLASS_KINDS = {
    'MirrorSourceConnector': 'source',
    'MirrorCheckpointConnector': 'checkpoint',
    'MirrorHeartbeatConnector': 'heartbeat',
}
FLOW_KINDS = ('source', 'checkpoint', 'heartbeat')
# States that stop replication outright.
BROKEN_STATES = frozenset({'FAILED', 'UNASSIGNED'})
# States an operator chose: reported, and a problem only with fail_on_paused.
HELD_STATES = frozenset({'PAUSED', 'STOPPED'})
# First line of a trace, cut to this length, is enough to tell one failure from another.
TRACE_EXCERPT = 160

LabelledValue = Tuple[Dict[str, str], float]
LabelledSamples = Tuple[Dict[str, str], List[Tuple[float, float]]]


# ---- thresholds ------------------------------------------------------------------------

@dataclass(frozen=True)
class Thresholds:
    """Budgets of the health rules; 0 switches a rule off."""

    max_heartbeat_age: float = 60
    max_checkpoint_age: float = 0
    max_latency_p99_ms: float = 60000
    max_lag_records: float = 0
    fail_on_paused: bool = False


# ---- connectors and flows from the REST answer -------------------------------------------

@dataclass
class TaskStatus:
    task_id: int
    state: str
    worker_id: str
    trace: Optional[str] = None

    def as_dict(self) -> Dict[str, Any]:
        return {'id': self.task_id, 'state': self.state, 'worker_id': self.worker_id, 'trace': self.trace}


@dataclass
class ConnectorStatus:
    name: str
    kind: Optional[str]            # source, checkpoint, heartbeat, or None for other connectors
    flow: Optional[str]
    state: str
    worker_id: str
    source_alias: Optional[str] = None
    target_alias: Optional[str] = None
    separator: str = DEFAULT_SEPARATOR
    connector_class: str = ''
    trace: Optional[str] = None
    tasks: List[TaskStatus] = field(default_factory=list)

    def as_dict(self) -> Dict[str, Any]:
        return {
            'name': self.name, 'kind': self.kind, 'flow': self.flow, 'class': self.connector_class,
            'state': self.state, 'worker_id': self.worker_id, 'trace': self.trace,
            'tasks': [task.as_dict() for task in self.tasks],
        }


@dataclass
class Age:
    """Seconds since a counter last increased. exact=False: no increase seen in the samples,
    so the true age is at least `seconds` (the span the samples cover)."""

    seconds: float
    exact: bool


@dataclass
class ReadinessFigures:
    """What the readiness exporter of role readiness last measured for a flow (docs/readiness.md)."""

    ready: Optional[bool] = None
    recovery_point_s: Optional[float] = None
    uncopied_records: Optional[float] = None
    measured_age_s: Optional[float] = None
    # The silent-loss sentinels it found, each a problem line.
    sentinels: List[str] = field(default_factory=list)


@dataclass
class VerificationFigures:
    """What continuous verification (role replication_check) last served for a flow: its worst partition,
    the one verified longest ago (docs/validator.md, "Continuous verification")."""

    partitions: int = 0
    worst: Optional[str] = None  # topic-partition
    proven_offset: Optional[float] = None
    source_end_offset: Optional[float] = None
    age_s: Optional[float] = None
    consecutive_failures: Optional[float] = None
    # Records found missing, unexpected, changed or truncated in the last hour, each a problem line.
    findings: List[str] = field(default_factory=list)


@dataclass
class FlowMetrics:
    records_per_second: Optional[float] = None
    lag_by_topic: Dict[str, float] = field(default_factory=dict)
    latency_p99_ms: Optional[float] = None
    heartbeat_age: Optional[Age] = None
    checkpoint_age: Optional[Age] = None
    workers_down: List[str] = field(default_factory=list)
    # None: the readiness exporter is not scraped (it is opt-in), which is no problem.
    readiness: Optional[ReadinessFigures] = None
    # None: continuous verification is not scraped (it is opt-in), which is no problem.
    verification: Optional[VerificationFigures] = None


@dataclass
class Flow:
    name: str
    source: Optional[str]
    target: Optional[str]
    separator: str = DEFAULT_SEPARATOR
    # True when the connector names follow <prefix><flow>-<kind>, so all three are expected.
    by_name: bool = False
    connectors: Dict[str, ConnectorStatus] = field(default_factory=dict)
    missing: List[str] = field(default_factory=list)
    metrics: FlowMetrics = field(default_factory=FlowMetrics)
    problems: List[str] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)

    @property
    def heartbeats_topic(self) -> str:
        """The remote heartbeats topic on the target, as the source connector names it."""
        return ReplicationNaming(separator=self.separator).remote_heartbeats_topic(self.source or '')

    def workers(self) -> List[str]:
        ids = set()
        for connector in self.connectors.values():
            ids.add(connector.worker_id)
            ids.update(task.worker_id for task in connector.tasks)
        return sorted(worker for worker in ids if worker)


def mirror_kind(connector_class: str) -> Optional[str]:
    """source/checkpoint/heartbeat for the MM2 classes (full or short name), else None."""
    short_name = connector_class.strip().rsplit('.', 1)[-1]
    return MIRROR_CLASS_KINDS.get(short_name)


def name_pattern(prefix: str) -> 're.Pattern[str]':
    """<prefix><flow>-source|checkpoint|heartbeat, the names role mirrormaker gives."""
    return re.compile('^%s(?P<flow>.+)-(?P<kind>%s)$' % (re.escape(prefix), '|'.join(FLOW_KINDS)))


def flow_of_name(name: str, prefix: str) -> Optional[Tuple[str, str]]:
    """(flow, kind) read from a connector name, or None when the name is not in the pattern."""
    match = name_pattern(prefix).match(name)
    return (match.group('flow'), match.group('kind')) if match else None


def parse_connector(name: str, expanded: Mapping[str, Any], prefix: str) -> ConnectorStatus:
    """One entry of GET /connectors?expand=status&expand=info."""
    info = expanded.get('info') or {}
    status = expanded.get('status') or {}
    config = info.get('config') or {}
    instance = status.get('connector') or {}
    connector_class = str(config.get('connector.class') or '').strip()
    kind = mirror_kind(connector_class)
    named = flow_of_name(name, prefix)
    source_alias = config.get('source.cluster.alias')
    target_alias = config.get('target.cluster.alias')
    flow: Optional[str] = None
    if kind is not None and named is not None and named[1] == kind:
        flow = named[0]
    elif kind is not None and source_alias and target_alias:
        # An MM2 connector named some other way still belongs to the flow of its aliases.
        flow = '%s->%s' % (source_alias, target_alias)
    tasks = [
        TaskStatus(int(task.get('id', 0)), str(task.get('state') or 'UNKNOWN'), str(task.get('worker_id') or ''),
                   trace_excerpt(task.get('trace'), width=TRACE_EXCERPT))
        for task in status.get('tasks') or []
    ]
    return ConnectorStatus(
        name=name, kind=kind, flow=flow, state=str(instance.get('state') or 'UNKNOWN'), worker_id=str(instance.get('worker_id') or ''),
        source_alias=source_alias, target_alias=target_alias,
        separator=str(config.get('replication.policy.separator') or DEFAULT_SEPARATOR),
        connector_class=connector_class, trace=trace_excerpt(instance.get('trace'), width=TRACE_EXCERPT), tasks=sorted(tasks, key=lambda task: task.task_id),
    )


def parse_connectors(expanded_all: Mapping[str, Any], prefix: str) -> List[ConnectorStatus]:
    return [parse_connector(name, expanded_all[name] or {}, prefix) for name in sorted(expanded_all)]


def group_flows(connectors: Sequence[ConnectorStatus], prefix: str, expected_names: Iterable[str] = ()) -> Tuple[List[Flow], List[str]]:
    """Flows of the MM2 connectors, each with the kinds it lacks; and the expected names that are
    missing and follow no naming pattern (so belong to no flow)."""
    flows: Dict[str, Flow] = {}
    for connector in connectors:
        if connector.flow is None or connector.kind is None:
            continue
        by_name = flow_of_name(connector.name, prefix) == (connector.flow, connector.kind)
        flow = flows.setdefault(connector.flow, Flow(connector.flow, None, None, by_name=by_name))
        flow.connectors[connector.kind] = connector
        if connector.kind == 'source':
            # The source connector names the remote topics, heartbeats included.
            flow.separator = connector.separator
        _note_alias_disagreement(flow, connector)
    present = {connector.name for connector in connectors}
    unplaced: List[str] = []
    for name in sorted(set(expected_names) - present):
        named = flow_of_name(name, prefix)
        if named is None:
            unplaced.append(name)
        else:
            flows.setdefault(named[0], Flow(named[0], None, None, by_name=True))
    for flow in flows.values():
        # A flow named by the pattern has all three connectors (role mirrormaker renders them).
        if flow.by_name:
            flow.missing = [kind for kind in FLOW_KINDS if kind not in flow.connectors]
    return [flows[name] for name in sorted(flows)], unplaced


def _note_alias_disagreement(flow: Flow, connector: ConnectorStatus) -> None:
    if flow.source is None and flow.target is None:
        flow.source, flow.target = connector.source_alias, connector.target_alias
        return
    if (connector.source_alias, connector.target_alias) != (flow.source, flow.target):
        flow.warnings.append(
            'connector %s replicates %s -> %s, not %s -> %s as the rest of the flow'
            % (connector.name, connector.source_alias, connector.target_alias, flow.source, flow.target)
        )


# ---- PromQL --------------------------------------------------------------------------

def promql_string(value: str) -> str:
    """A PromQL string literal (Go escaping, which JSON's is a subset of)."""
    return json.dumps(value)


def regex_of_names(names: Iterable[str]) -> str:
    """An RE2 alternation matching exactly these names."""
    return '|'.join(re.escape(name) for name in sorted(names))


def job_selector(job: str) -> str:
    return 'job=%s' % promql_string(job)


def records_rate_query(job: str, window: str) -> str:
    """Records/s written to the target per flow. max by partition first: with
    metric.names.formats=legacy,new each partition is exported twice."""
    return (
        'sum by (source, target) (max by (source, target, topic, partition) '
        '(rate(kafka_connect_mirror_source_records_total{%s}[%s])))' % (job_selector(job), window)
    )


def lag_query(job: str) -> str:
    """Records MM2 has not read yet, per source topic (dots shown as "_").
    `>= 0` drops NaN samples, which would make the whole sum NaN."""
    return (
        'sum by (source, target, source_topic) (max by (source, target, source_topic, partition) '
        '(kafka_connect_mirror_source_consumer_records_lag{%s} >= 0))' % job_selector(job)
    )


def latency_p99_query(job: str, window: str) -> str:
    """p99 over the window of each partition's windowed latency maximum, worst partition per flow.
    `>= 0` drops the NaN an idle partition reads, so idle partitions neither count nor poison
    the quantile; a flow idle for the whole window has no value."""
    return (
        'max by (source, target) (quantile_over_time(0.99, '
        '(kafka_connect_mirror_source_replication_latency_ms_max{%s} >= 0)[%s:]))' % (job_selector(job), window)
    )


def heartbeat_records_query(job: str) -> str:
    """Range query: records replicated to each remote heartbeats topic (a counter; the module
    reads when it last increased)."""
    return (
        'sum by (source, target, topic) (max by (source, target, topic, partition) '
        '(kafka_connect_mirror_source_records_total{%s, topic=~".*heartbeats"}))' % job_selector(job)
    )


def checkpoint_writes_query(job: str, connector_names: Iterable[str]) -> str:
    """Range query: records (checkpoints) written by the tasks of each checkpoint connector."""
    return (
        'sum by (connector) (kafka_connect_source_task_source_record_write_total{%s, connector=~%s})'
        % (job_selector(job), promql_string(regex_of_names(connector_names)))
    )


def workers_up_query(job: str) -> str:
    """1 per scraped worker, 0 for a worker Prometheus cannot scrape."""
    return 'up{%s}' % job_selector(job)


# The readiness exporter's series carry the flow's name (the middle of its connector names) as label flow.
READINESS_FIGURES = ('ready', 'recovery_point_seconds', 'last_success_timestamp_seconds')


def readiness_figures_query() -> str:
    """Per flow: the verdict, the recovery point in seconds and the time of the last measurement."""
    return '{__name__=~%s}' % promql_string('kafka_dr_readiness_(%s)' % '|'.join(READINESS_FIGURES))


def readiness_uncopied_query() -> str:
    """Per flow: source records not on the target, over its partitions."""
    return 'sum by (flow) (kafka_dr_readiness_uncopied_records)'


def readiness_truncated_query() -> str:
    """Source partitions whose records were deleted before MM2 copied them, with how many."""
    return 'kafka_dr_readiness_truncated_records > 0'


def readiness_sentinels_query() -> str:
    """The other silent-loss findings: re-created source topics or partitions, truncated remote partitions."""
    return 'kafka_dr_readiness_sentinel{kind!="truncated"} > 0'


def sentinel_text(labels: Mapping[str, str]) -> str:
    topic, partition = labels.get('topic', ''), labels.get('partition', '')
    if labels.get('kind') == 'target-truncated':
        return ('readiness exporter: the remote partition of %s-%s was re-created or truncated on the target behind MM2'
                % (topic, partition))
    if partition:
        return ('readiness exporter: source partition %s-%s ends before the offsets MM2 copied: the topic was deleted and '
                're-created, or truncated' % (topic, partition))
    return 'readiness exporter: source topic %s was deleted and re-created behind MM2' % topic


def readiness_by_flow(figures: Sequence[LabelledValue], uncopied: Sequence[LabelledValue], truncated: Sequence[LabelledValue],
                      sentinels: Sequence[LabelledValue], now: float) -> Dict[str, ReadinessFigures]:
    """flow -> what the readiness exporter measured; flows it does not measure are absent."""
    found: Dict[str, ReadinessFigures] = {}
    for labels, value in figures:
        entry = found.setdefault(labels.get('flow', ''), ReadinessFigures())
        name = labels.get('__name__', '')
        if finite(value) is None:
            continue
        if name == 'kafka_dr_readiness_ready':
            entry.ready = value == 1
        elif name == 'kafka_dr_readiness_recovery_point_seconds':
            entry.recovery_point_s = value
        elif name == 'kafka_dr_readiness_last_success_timestamp_seconds' and value > 0:
            entry.measured_age_s = max(0.0, now - value)
    for labels, value in uncopied:
        if finite(value) is not None:
            found.setdefault(labels.get('flow', ''), ReadinessFigures()).uncopied_records = value
    for labels, value in sorted(truncated, key=lambda item: sorted(item[0].items())):
        found.setdefault(labels.get('flow', ''), ReadinessFigures()).sentinels.append(
            'readiness exporter: %.0f records of source partition %s-%s were deleted before MM2 copied them (silent loss)'
            % (value, labels.get('topic', ''), labels.get('partition', '')))
    for labels, _value in sorted(sentinels, key=lambda item: sorted(item[0].items())):
        found.setdefault(labels.get('flow', ''), ReadinessFigures()).sentinels.append(sentinel_text(labels))
    return found


# Continuous verification's series carry the flow's name as label flow too.
VERIFICATION_FIGURES = ('verified_timestamp_seconds', 'proven_offset', 'source_end_offset', 'consecutive_failures')
VERIFICATION_BAD_KINDS = ('missing', 'unexpected', 'content_mismatch', 'truncated')


def verification_figures_query() -> str:
    """Per partition: when it was last verified, the offset proven and the source end; per flow the failures in a row."""
    return '{__name__=~%s}' % promql_string('kafka_dr_verification_(%s)' % '|'.join(VERIFICATION_FIGURES))


def verification_findings_query(window: str = '1h') -> str:
    """Records found missing, unexpected, changed or truncated per partition and kind within the window."""
    return 'sum by (flow, topic, partition, kind) (increase(kafka_dr_verification_findings_total{kind=~%s}[%s])) > 0' % (
        promql_string('|'.join(VERIFICATION_BAD_KINDS)), window)


def verification_by_flow(figures: Sequence[LabelledValue], findings: Sequence[LabelledValue], now: float) -> Dict[str, VerificationFigures]:
    """flow -> its worst partition (verified longest ago) and its findings; flows not verified continuously are absent."""
    partitions: Dict[str, Dict[Tuple[str, str], Dict[str, float]]] = {}
    found: Dict[str, VerificationFigures] = {}
    for labels, value in figures:
        flow = labels.get('flow', '')
        entry = found.setdefault(flow, VerificationFigures())
        name = labels.get('__name__', '').replace('kafka_dr_verification_', '')
        if finite(value) is None:
            continue
        if name == 'consecutive_failures':
            entry.consecutive_failures = value
        else:
            partitions.setdefault(flow, {}).setdefault((labels.get('topic', ''), labels.get('partition', '')), {})[name] = value
    for flow, by_partition in partitions.items():
        entry = found[flow]
        entry.partitions = len(by_partition)
        dated = [(now - values['verified_timestamp_seconds'], key) for key, values in by_partition.items()
                 if 'verified_timestamp_seconds' in values]
        if not dated:
            continue
        age, key = max(dated)
        entry.worst, entry.age_s = '%s-%s' % key, max(0.0, age)
        entry.proven_offset = by_partition[key].get('proven_offset')
        entry.source_end_offset = by_partition[key].get('source_end_offset')
    for labels, value in sorted(findings, key=lambda item: sorted(item[0].items())):
        found.setdefault(labels.get('flow', ''), VerificationFigures()).findings.append(
            'continuous verification: %.0f records of %s-%s %s in the last hour (evidence in the increments\' reports)'
            % (value, labels.get('topic', ''), labels.get('partition', ''), labels.get('kind', '').replace('_', ' ')))
    return found


def range_queries_window(thresholds: Thresholds, minimum: float = 600) -> float:
    """Seconds of history for the age queries: twice the largest age budget, so an age over
    budget is measured rather than only bounded."""
    return max(minimum, 2 * max(thresholds.max_heartbeat_age, thresholds.max_checkpoint_age))


# ---- metrics per flow from the answers -------------------------------------------------

def finite(value: Optional[float]) -> Optional[float]:
    return value if value is not None and math.isfinite(value) else None


def by_flow(answer: Sequence[LabelledValue]) -> Dict[Tuple[str, str], float]:
    """(source, target) -> value, NaN left out."""
    values: Dict[Tuple[str, str], float] = {}
    for labels, value in answer:
        if finite(value) is not None:
            values[(labels.get('source', ''), labels.get('target', ''))] = value
    return values


def lag_by_flow(answer: Sequence[LabelledValue]) -> Dict[Tuple[str, str], Dict[str, float]]:
    lags: Dict[Tuple[str, str], Dict[str, float]] = {}
    for labels, value in answer:
        if finite(value) is not None:
            lags.setdefault((labels.get('source', ''), labels.get('target', '')), {})[labels.get('source_topic', '')] = value
    return lags


def age_since_last_increase(samples: Sequence[Tuple[float, float]], now: float) -> Optional[Age]:
    """Age of the newest increase of a counter sampled at regular steps.

    An increase between two samples is dated at the later one (the age is exact to one step).
    With no increase in the samples the age is at least the span since the first sample.
    NaN samples are skipped; a drop (counter reset, a task moved) is not an increase.
    """
    points = [(stamp, value) for stamp, value in samples if finite(value) is not None]
    if not points:
        return None
    for index in range(len(points) - 1, 0, -1):
        if points[index][1] > points[index - 1][1]:
            return Age(max(0.0, now - points[index][0]), True)
    return Age(max(0.0, now - points[0][0]), False)


def heartbeat_ages(answer: Sequence[LabelledSamples], now: float) -> Dict[Tuple[str, str, str], Optional[Age]]:
    """(source, target, topic) -> age of the newest replicated heartbeat."""
    return {
        (labels.get('source', ''), labels.get('target', ''), labels.get('topic', '')): age_since_last_increase(samples, now)
        for labels, samples in answer
    }


def checkpoint_ages(answer: Sequence[LabelledSamples], now: float) -> Dict[str, Optional[Age]]:
    """connector -> age of its newest checkpoint."""
    return {labels.get('connector', ''): age_since_last_increase(samples, now) for labels, samples in answer}


def host_of(address: str) -> str:
    """host of host:port, scheme://host:port/... or [v6]:port."""
    without_scheme = address.split('://', 1)[-1].split('/', 1)[0]
    if without_scheme.startswith('['):
        return without_scheme[1:].split(']', 1)[0]
    return without_scheme.rsplit(':', 1)[0] if without_scheme.count(':') == 1 else without_scheme


def down_instances(answer: Sequence[LabelledValue]) -> List[str]:
    return sorted(labels.get('instance', '') for labels, value in answer if value == 0)


def flow_has_checkpoint_tasks(flow: Flow) -> bool:
    checkpoint = flow.connectors.get('checkpoint')
    return checkpoint is not None and bool(checkpoint.tasks)


@dataclass
class MetricAnswers:
    """What Prometheus answered, already reduced to plain maps."""

    rates: Dict[Tuple[str, str], float] = field(default_factory=dict)
    lags: Dict[Tuple[str, str], Dict[str, float]] = field(default_factory=dict)
    latencies: Dict[Tuple[str, str], float] = field(default_factory=dict)
    heartbeat_ages: Dict[Tuple[str, str, str], Optional[Age]] = field(default_factory=dict)
    checkpoint_ages: Dict[str, Optional[Age]] = field(default_factory=dict)
    down_instances: List[str] = field(default_factory=list)
    readiness: Dict[str, ReadinessFigures] = field(default_factory=dict)
    verification: Dict[str, VerificationFigures] = field(default_factory=dict)


def assign_metrics(flows: Sequence[Flow], answers: MetricAnswers) -> List[str]:
    """Put each flow's metrics in place; returns the down instances that belong to no flow
    (for the cluster to match against its own workers)."""
    placed = set()
    for flow in flows:
        key = (flow.source or '', flow.target or '')
        metrics = flow.metrics
        metrics.records_per_second = answers.rates.get(key)
        metrics.lag_by_topic = dict(answers.lags.get(key, {}))
        metrics.latency_p99_ms = answers.latencies.get(key)
        metrics.heartbeat_age = answers.heartbeat_ages.get(key + (flow.heartbeats_topic,))
        checkpoint = flow.connectors.get('checkpoint')
        metrics.checkpoint_age = answers.checkpoint_ages.get(checkpoint.name) if checkpoint else None
        flow_hosts = {host_of(worker) for worker in flow.workers()}
        metrics.workers_down = [instance for instance in answers.down_instances if host_of(instance) in flow_hosts]
        metrics.readiness = answers.readiness.get(flow.name)
        metrics.verification = answers.verification.get(flow.name)
        placed.update(metrics.workers_down)
    return [instance for instance in answers.down_instances if instance not in placed]


# ---- health rules --------------------------------------------------------------------

def state_findings(connector: ConnectorStatus, fail_on_paused: bool) -> Tuple[List[str], List[str]]:
    """(problems, warnings) of a connector's instance and tasks."""
    problems: List[str] = []
    warnings: List[str] = []
    units = [('connector %s' % connector.name, connector.state, connector.worker_id, connector.trace)]
    units += [('task %s-%d' % (connector.name, task.task_id), task.state, task.worker_id, task.trace) for task in connector.tasks]
    for label, state, worker_id, trace in units:
        where = ' on %s' % worker_id if worker_id else ''
        because = ': %s' % trace if trace else ''
        if state in BROKEN_STATES:
            problems.append('%s is %s%s%s' % (label, state, where, because))
        elif state in HELD_STATES:
            (problems if fail_on_paused else warnings).append('%s is %s' % (label, state))
        elif state != 'RUNNING':
            warnings.append('%s is %s%s' % (label, state, where))
    if connector.kind == 'source' and connector.state == 'RUNNING' and not connector.tasks:
        warnings.append('connector %s runs no task: no topic of the source matches its filter' % connector.name)
    return problems, warnings


def is_held(connector: Optional[ConnectorStatus]) -> bool:
    return connector is not None and connector.state in HELD_STATES


def age_text(age: Age) -> str:
    return '%.0f s' % age.seconds if age.exact else 'over %.0f s' % age.seconds


def age_finding(what: str, age: Optional[Age], budget: float, absent: str) -> Optional[str]:
    """The problem an age shows against its budget, or None. An age that is only a lower
    bound counts once the bound itself is over budget."""
    if age is None:
        return absent
    if age.seconds > budget:
        return '%s %s ago, budget %.0f s' % (what, age_text(age), budget)
    return None


def flow_metric_findings(flow: Flow, thresholds: Thresholds) -> List[str]:
    """Problems the flow's metrics show (only called when Prometheus was read)."""
    findings: List[str] = []
    metrics = flow.metrics
    if thresholds.max_heartbeat_age > 0 and 'source' in flow.connectors:
        finding = age_finding(
            'newest heartbeat replicated to %s' % flow.heartbeats_topic, metrics.heartbeat_age, thresholds.max_heartbeat_age,
            'no heartbeat replicated: Prometheus has no series of kafka_connect_mirror_source_records_total for topic %s'
            % flow.heartbeats_topic,
        )
        if finding:
            findings.append(finding)
    if thresholds.max_checkpoint_age > 0 and flow_has_checkpoint_tasks(flow):
        checkpoint = flow.connectors['checkpoint']
        finding = age_finding(
            'newest checkpoint of %s' % checkpoint.name, metrics.checkpoint_age, thresholds.max_checkpoint_age,
            'no checkpoint seen: Prometheus has no series of kafka_connect_source_task_source_record_write_total for %s' % checkpoint.name,
        )
        if finding:
            findings.append(finding)
    if thresholds.max_latency_p99_ms > 0 and metrics.latency_p99_ms is not None and metrics.latency_p99_ms > thresholds.max_latency_p99_ms:
        findings.append('replication latency p99 %.0f ms, budget %.0f ms' % (metrics.latency_p99_ms, thresholds.max_latency_p99_ms))
    if thresholds.max_lag_records > 0:
        for topic, lag in sorted(metrics.lag_by_topic.items()):
            if lag > thresholds.max_lag_records:
                findings.append('lag of source topic %s is %.0f records, budget %.0f' % (topic, lag, thresholds.max_lag_records))
    for instance in metrics.workers_down:
        findings.append('worker %s is down for Prometheus (up == 0)' % instance)
    return findings


def evaluate_flow(flow: Flow, thresholds: Thresholds, metrics_read: bool) -> None:
    """Fill flow.problems and flow.warnings."""
    for kind in flow.missing:
        flow.problems.append('%s connector missing' % kind)
    for connector in flow.connectors.values():
        problems, warnings = state_findings(connector, thresholds.fail_on_paused)
        flow.problems.extend(problems)
        flow.warnings.extend(warnings)
    if not metrics_read:
        return
    findings = flow_metric_findings(flow, thresholds)
    # A flow an operator paused or stopped is expected to age: a warning, unless asked otherwise.
    if not thresholds.fail_on_paused and any(is_held(flow.connectors.get(kind)) for kind in ('source', 'checkpoint')):
        flow.warnings.extend('%s (connector held)' % finding for finding in findings)
    else:
        flow.problems.extend(findings)
    # Records lost or offsets gone wrong stay problems, held connectors or not.
    if flow.metrics.readiness is not None:
        flow.problems.extend(flow.metrics.readiness.sentinels)
    verification = flow.metrics.verification
    if verification is not None:
        flow.problems.extend(verification.findings)
        if (verification.consecutive_failures or 0) >= 3:
            flow.warnings.append('continuous verification: the last %.0f increments failed (journalctl -u kafka-dr-verify-%s.service)'
                                 % (verification.consecutive_failures, flow.name))


@dataclass
class Worker:
    url: str
    reachable: bool
    detail: str = ''

    def as_dict(self) -> Dict[str, Any]:
        return {'url': self.url, 'reachable': self.reachable, 'detail': self.detail}


@dataclass
class ClusterStatus:
    name: str
    url: Optional[str]
    workers: List[Worker] = field(default_factory=list)
    connectors: List[ConnectorStatus] = field(default_factory=list)
    listing_error: Optional[str] = None
    # Workers Prometheus cannot scrape that run nothing of a flow.
    down_instances: List[str] = field(default_factory=list)
    unplaced_missing: List[str] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)
    # Workers the cluster should have (its inventory group's size); None: as many as worker URLs.
    expected_workers: Optional[int] = None
    # What the oldest answering worker lacks of the feature table (connect_features): each entry
    # {feature, minimum, kind, instead}, so the operator knows what a failover or restart does there.
    degraded: List[Dict[str, Any]] = field(default_factory=list)

    def worker_count(self) -> int:
        """How many workers the cluster has: those expected (or its URLs), or more when the connectors
        and tasks run on more (a single URL may front several workers)."""
        ids = {connector.worker_id for connector in self.connectors}
        ids.update(task.worker_id for connector in self.connectors for task in connector.tasks)
        known = self.expected_workers if self.expected_workers is not None else len(self.workers)
        return max(known, len({worker_id for worker_id in ids if worker_id}))

    @property
    def highly_available(self) -> bool:
        return self.worker_count() != 1

    def worker_hosts(self) -> List[str]:
        hosts = {host_of(worker.url) for worker in self.workers}
        for connector in self.connectors:
            hosts.add(host_of(connector.worker_id))
            hosts.update(host_of(task.worker_id) for task in connector.tasks)
        return sorted(host for host in hosts if host)


SINGLE_WORKER = 'one worker: the Connect cluster is not highly available; while that worker is down no flow replicates'


def evaluate_cluster(cluster: ClusterStatus, thresholds: Thresholds) -> None:
    """Problems of the cluster itself and of connectors outside any flow."""
    if not cluster.highly_available:
        cluster.warnings.append(SINGLE_WORKER)
    for worker in cluster.workers:
        if not worker.reachable:
            cluster.problems.append('worker %s unreachable: %s' % (worker.url, worker.detail))
    if cluster.listing_error:
        cluster.problems.append('no worker listed the connectors: %s' % cluster.listing_error)
    hosts = set(cluster.worker_hosts())
    for instance in cluster.down_instances:
        if host_of(instance) in hosts:
            cluster.problems.append('worker %s is down for Prometheus (up == 0)' % instance)
    for name in cluster.unplaced_missing:
        cluster.problems.append('expected connector %s missing' % name)
    for connector in cluster.connectors:
        if connector.flow is None:
            problems, warnings = state_findings(connector, thresholds.fail_on_paused)
            cluster.problems.extend(problems)
            cluster.warnings.extend(warnings)


def collect_findings(cluster: ClusterStatus, flows: Sequence[Flow]) -> Tuple[List[str], List[str]]:
    """Every problem and warning, each prefixed with where it was found."""
    problems = ['%s: %s' % (cluster.name, text) for text in cluster.problems]
    warnings = ['%s: %s' % (cluster.name, text) for text in cluster.warnings]
    for flow in flows:
        problems.extend('flow %s: %s' % (flow.name, text) for text in flow.problems)
        warnings.extend('flow %s: %s' % (flow.name, text) for text in flow.warnings)
    return problems, warnings


# ---- output --------------------------------------------------------------------------

def age_dict(age: Optional[Age]) -> Dict[str, Any]:
    return {'seconds': None if age is None else round(age.seconds, 1), 'exact': None if age is None else age.exact}


def rounded(value: Optional[float], digits: int = 1) -> Optional[float]:
    return None if value is None else round(value, digits)


def flow_dict(flow: Flow, cluster_name: str) -> Dict[str, Any]:
    metrics = flow.metrics
    return {
        'name': flow.name,
        'cluster': cluster_name,
        'source': flow.source,
        'target': flow.target,
        'connectors': {kind: (flow.connectors[kind].name if kind in flow.connectors else None) for kind in FLOW_KINDS},
        'missing': list(flow.missing),
        'workers': flow.workers(),
        'heartbeats_topic': flow.heartbeats_topic,
        'records_per_second': rounded(metrics.records_per_second, 2),
        'lag_records': {topic: int(lag) for topic, lag in sorted(metrics.lag_by_topic.items())},
        'latency_p99_ms': rounded(metrics.latency_p99_ms, 0),
        'heartbeat_age': age_dict(metrics.heartbeat_age),
        'checkpoint_age': age_dict(metrics.checkpoint_age),
        'workers_down': list(metrics.workers_down),
        'readiness': readiness_dict(metrics.readiness),
        'verification': verification_dict(metrics.verification),
        'healthy': not flow.problems,
        'problems': list(flow.problems),
        'warnings': list(flow.warnings),
    }


def readiness_dict(figures: Optional[ReadinessFigures]) -> Optional[Dict[str, Any]]:
    if figures is None:
        return None
    return {'ready': figures.ready, 'recovery_point_s': rounded(figures.recovery_point_s),
            'uncopied_records': None if figures.uncopied_records is None else int(figures.uncopied_records),
            'measured_age_s': rounded(figures.measured_age_s), 'sentinels': list(figures.sentinels)}


def readiness_text(figures: Optional[ReadinessFigures]) -> str:
    if figures is None:
        return 'readiness exporter not scraped'
    verdict = {True: 'READY', False: 'NOT READY', None: 'not measured yet'}[figures.ready]
    parts = ['recovery point %s' % number_text(figures.recovery_point_s, ' s', 1),
             '%s records not on the target' % number_text(figures.uncopied_records)]
    measured = 'measured %s ago' % number_text(figures.measured_age_s, ' s') if figures.measured_age_s is not None else 'never measured'
    return '%s, %s (readiness exporter, %s)' % (verdict, ', '.join(parts), measured)


def verification_dict(figures: Optional[VerificationFigures]) -> Optional[Dict[str, Any]]:
    if figures is None:
        return None
    return {'partitions': figures.partitions, 'worst_partition': figures.worst,
            'proven_offset': None if figures.proven_offset is None else int(figures.proven_offset),
            'source_end_offset': None if figures.source_end_offset is None else int(figures.source_end_offset),
            'age_s': rounded(figures.age_s),
            'consecutive_failures': None if figures.consecutive_failures is None else int(figures.consecutive_failures),
            'findings': list(figures.findings)}


def verification_text(figures: Optional[VerificationFigures]) -> str:
    if figures is None:
        return 'continuous verification not scraped'
    if figures.worst is None:
        return 'no increment completed yet (continuous verification)'
    behind = ''
    if figures.source_end_offset is not None and figures.proven_offset is not None and figures.source_end_offset > figures.proven_offset:
        behind = ', source end %s' % number_text(figures.source_end_offset)
    return 'up to offset %s of %s%s, %s ago (worst of %s)' % (
        number_text(figures.proven_offset), figures.worst, behind, number_text(figures.age_s, ' s'), counted(figures.partitions, 'partition'))


def cluster_dict(cluster: ClusterStatus) -> Dict[str, Any]:
    return {
        'name': cluster.name,
        'url': cluster.url,
        'workers': [worker.as_dict() for worker in cluster.workers],
        'connectors': [connector.as_dict() for connector in cluster.connectors],
        'highly_available': cluster.highly_available,
        'degraded': [dict(entry) for entry in cluster.degraded],
        'healthy': not cluster.problems,
        'problems': list(cluster.problems),
        'warnings': list(cluster.warnings),
    }


def number_text(value: Optional[float], unit: str = '', digits: int = 0) -> str:
    if value is None:
        return 'n/a'
    return ('%.*f' % (digits, value)) + unit


def optional_age_text(age: Optional[Age]) -> str:
    return 'n/a' if age is None else age_text(age) + ' ago'


def connector_lines(connector: ConnectorStatus) -> List[str]:
    lines = ['  %-44s %-11s %s' % (connector.name, connector.state, connector.worker_id)]
    if connector.trace:
        lines.append('      %s' % connector.trace)
    for task in connector.tasks:
        lines.append('    task %-37d %-11s %s' % (task.task_id, task.state, task.worker_id))
        if task.trace:
            lines.append('      %s' % task.trace)
    return lines


def cluster_lines(cluster: ClusterStatus) -> List[str]:
    answered = sum(1 for worker in cluster.workers if worker.reachable)
    lines = ['Connect cluster %s: %d of %d workers answer' % (cluster.name, answered, len(cluster.workers))]
    if not cluster.highly_available:
        lines.append('  ONE WORKER: not highly available; while it is down no flow replicates (give the cluster a second worker)')
    for worker in cluster.workers:
        lines.append('  worker %s  %s' % (worker.url, ('up ' + worker.detail).strip() if worker.reachable else 'UNREACHABLE ' + worker.detail))
    for entry in cluster.degraded:
        lines.append('  %s below Kafka Connect %s (%s): %s' % (
            'DEGRADES' if entry['kind'] == 'degrade' else 'REFUSES', entry['minimum'], entry['feature'], entry['instead']))
    if cluster.listing_error:
        lines.append('  connectors unknown: %s' % cluster.listing_error)
    elif not cluster.connectors:
        lines.append('  no connector')
    for connector in cluster.connectors:
        lines.extend(connector_lines(connector))
    return lines


def budget_text(budget: float, unit: str) -> str:
    return 'off' if budget <= 0 else '%.0f%s' % (budget, unit)


def flow_lines(flow: Flow, thresholds: Thresholds, metrics_read: bool) -> List[str]:
    lines = ['Flow %s (%s -> %s): %s' % (flow.name, flow.source or '?', flow.target or '?', 'ok' if not flow.problems else 'UNHEALTHY')]
    parts = []
    for kind in FLOW_KINDS:
        connector = flow.connectors.get(kind)
        if connector is None:
            parts.append('%s MISSING' % kind)
            continue
        running = sum(1 for task in connector.tasks if task.state == 'RUNNING')
        parts.append('%s %s %d/%d tasks' % (kind, connector.state, running, len(connector.tasks)))
    lines.append('  connectors    %s' % ', '.join(parts))
    lines.append('  workers       %s' % (', '.join(flow.workers()) or 'none'))
    if not metrics_read:
        lines.append('  metrics       not read (no Prometheus URL)')
        return lines
    metrics = flow.metrics
    lines.append('  records/s     %s' % number_text(metrics.records_per_second, digits=1))
    lines.append('  latency p99   %s (budget %s)' % (number_text(metrics.latency_p99_ms, ' ms'), budget_text(thresholds.max_latency_p99_ms, ' ms')))
    lines.append('  heartbeat     %s (%s, budget %s)' % (
        optional_age_text(metrics.heartbeat_age), flow.heartbeats_topic, budget_text(thresholds.max_heartbeat_age, ' s')))
    checkpoint_text = optional_age_text(metrics.checkpoint_age) if flow_has_checkpoint_tasks(flow) else 'no checkpoint task (no consumer group to sync)'
    lines.append('  checkpoint    %s (budget %s)' % (checkpoint_text, budget_text(thresholds.max_checkpoint_age, ' s')))
    lag = ', '.join('%s %d' % (topic, lag) for topic, lag in sorted(metrics.lag_by_topic.items())) or 'n/a'
    lines.append('  lag (records) %s (per source topic, "." shown as "_"; budget %s)' % (lag, budget_text(thresholds.max_lag_records, '')))
    lines.append('  readiness     %s' % readiness_text(metrics.readiness))
    lines.append('  verified      %s' % verification_text(metrics.verification))
    return lines


def counted(count: int, noun: str) -> str:
    return '%d %s%s' % (count, noun, '' if count == 1 else 's')


def render_screen(
    cluster: ClusterStatus, flows: Sequence[Flow], thresholds: Thresholds, metrics_read: bool,
    problems: Sequence[str], warnings: Sequence[str],
) -> List[str]:
    """The text screen: the cluster, each flow, then the verdict with every finding."""
    lines = cluster_lines(cluster)
    for flow in flows:
        lines.append('')
        lines.extend(flow_lines(flow, thresholds, metrics_read))
    lines.append('')
    verdict = 'HEALTHY' if not problems else 'UNHEALTHY'
    lines.append('%s: %s, %s' % (verdict, counted(len(problems), 'problem'), counted(len(warnings), 'warning')))
    lines.extend('  problem: %s' % text for text in problems)
    lines.extend('  warning: %s' % text for text in warnings)
    return lines
