# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a running plan must produce: the topics MM2 creates on each cluster, and which connectors
must have tasks.

expect(request) takes the planned flows (plan()['flows']), the topics of each source cluster
({alias: [topic, ...]}) and a base timeout, and returns expected_topics ({alias: [topic, ...]}),
timeouts ({alias: seconds}), min_tasks ({connector: n}), unverified_flows (flows whose
topics cannot be predicted: a custom replication policy or topic filter) and
log_append_time_topics ({alias: [topic, ...]}: the replicated heartbeats topics, whose broker
timestamps measure the replication latency).
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Set

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_values import as_int
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_common import as_pattern_list
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_naming import ReplicationNaming
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_plan import connector_of, emits_offset_syncs
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_topic_configs import describe_pattern

# MM2 (Kafka 4) default of topics.exclude, used when a flow keeps it.
MM2_DEFAULT_TOPICS_EXCLUDE = ('mm2.*\\.internal', '.*\\.replica', '__.*')
DEFAULT_REFRESH_TOPICS_SECONDS = 600
DEFAULT_TIMEOUT_SECONDS = 120


class TopicSelection:
    """Which source topics one flow replicates, as MirrorSourceConnector decides it."""

    def __init__(self, config: Mapping[str, str], naming: ReplicationNaming) -> None:
        self.naming = naming
        self.target_alias = config['target.cluster.alias']
        self.include = as_pattern_list(config.get('topics', '.*')) or []
        excluded = config.get('topics.exclude')
        self.exclude = as_pattern_list(excluded) if excluded is not None else list(MM2_DEFAULT_TOPICS_EXCLUDE)
        self.replicate_heartbeats = config.get('heartbeats.replication.enabled', 'true') == 'true'

    def passes_filter(self, topic: str) -> bool:
        """DefaultTopicFilter: the whole name matches an include pattern and no exclude pattern."""
        included = bool(self.include) and re.fullmatch('|'.join(self.include), topic) is not None
        excluded = bool(self.exclude) and re.fullmatch('|'.join(self.exclude), topic) is not None
        return included and not excluded

    def replicates(self, topic: str) -> bool:
        wanted = self.passes_filter(topic) or (self.replicate_heartbeats and self.naming.is_heartbeats_topic(topic))
        return wanted and not self.naming.is_internal_topic(topic) and not self.naming.is_cycle(topic, self.target_alias)


def has_custom_topic_filter(config: Mapping[str, str]) -> bool:
    return 'topic.filter.class' in config and not config['topic.filter.class'].strip().endswith('.DefaultTopicFilter')


def emits_heartbeats(config: Mapping[str, str]) -> bool:
    return config.get('emit.heartbeats.enabled', 'true') == 'true'


def expect(request: Mapping[str, Any]) -> Dict[str, Any]:
    listings: Mapping[str, List[str]] = request.get('topics') or {}
    base_timeout = int(request.get('timeout_seconds') or DEFAULT_TIMEOUT_SECONDS)
    expected: Dict[str, Set[str]] = {}
    timeouts: Dict[str, int] = {}
    min_tasks: Dict[str, int] = {}
    unverified: List[str] = []
    log_append_time: Dict[str, Set[str]] = {}

    def want(alias: str, topic: str, timeout: int) -> None:
        expected.setdefault(alias, set()).add(topic)
        timeouts[alias] = max(timeouts.get(alias, base_timeout), timeout)

    for flow in request.get('flows') or []:
        source = connector_of(flow, 'source')
        checkpoint = connector_of(flow, 'checkpoint')
        heartbeat = connector_of(flow, 'heartbeat')
        naming = ReplicationNaming.from_config(source['config'])
        checkpoint_naming = ReplicationNaming.from_config(checkpoint['config'])
        refresh = as_int(source['config'].get('refresh.topics.interval.seconds')) or DEFAULT_REFRESH_TOPICS_SECONDS
        remote: List[str] = []
        if naming is None or checkpoint_naming is None or has_custom_topic_filter(source['config']):
            unverified.append(flow['name'])
        else:
            selection = TopicSelection(source['config'], naming)
            remote = sorted({naming.remote_topic(flow['source'], topic)
                             for topic in listings.get(flow['source'], []) if selection.replicates(topic)})
            for topic in remote:
                want(flow['target'], topic, base_timeout + refresh)
            if emits_offset_syncs(source['config']):
                location = source['config'].get('offset-syncs.topic.location', 'source')
                alias, topic = naming.offset_syncs_placement(flow['source'], flow['target'], location)
                want(alias, topic, base_timeout)
            want(flow['target'], checkpoint_naming.checkpoints_topic(flow['source']), base_timeout)
            # The heartbeat connector creates its topic when it starts, emitting or not.
            heartbeats_cluster = flow.get('heartbeats_cluster') or flow['target']
            want(heartbeats_cluster, naming.heartbeats_topic, base_timeout)
            remote_heartbeats = naming.remote_heartbeats_topic(flow['source'])
            # Heartbeats kept on the source reach the target at the source connector's next topic
            # refresh, even when the listing above predates the heartbeats topic.
            if heartbeats_cluster == flow['source'] and selection.replicate_heartbeats and emits_heartbeats(heartbeat['config']):
                want(flow['target'], remote_heartbeats, base_timeout + refresh)
            if remote_heartbeats in expected.get(flow['target'], set()):
                log_append_time.setdefault(flow['target'], set()).add(remote_heartbeats)
        min_tasks[source['name']] = 1 if remote else 0
        min_tasks[checkpoint['name']] = 0
        min_tasks[heartbeat['name']] = 1 if emits_heartbeats(heartbeat['config']) else 0
    present: Mapping[str, List[str]] = request.get('present') or {}
    return {
        'missing_topics': {alias: sorted(topics - set(present.get(alias, [])))
                           for alias, topics in sorted(expected.items()) if alias in present},
        'expected_topics': {alias: sorted(topics) for alias, topics in sorted(expected.items())},
        # TopicCommand --describe --topic takes one of these to show a cluster's expected topics with
        # their configs: the topic check and the heartbeats' timestamp type in one run.
        'expected_patterns': {alias: describe_pattern(topics) for alias, topics in sorted(expected.items())},
        'timeouts': timeouts,
        'min_tasks': min_tasks,
        'unverified_flows': unverified,
        'log_append_time_topics': {alias: sorted(topics) for alias, topics in sorted(log_append_time.items())},
        # What TopicCommand --describe --topic takes to show them, one run per cluster.
        'log_append_time_patterns': {alias: describe_pattern(topics) for alias, topics in sorted(log_append_time.items())},
    }
