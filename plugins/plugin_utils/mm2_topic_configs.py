# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Timestamps of the replicated heartbeats topics: which of them still need LogAppendTime.

Replication latency is the broker's append time of a replicated heartbeat minus its emission
time, so the remote heartbeats topic on each target must use message.timestamp.type=LogAppendTime.
MM2 never sets it (its config sync excludes message.timestamp.type and leaves excluded keys alone).

log_append_time(request) takes wanted ({alias: [topic, ...]}, expect()'s log_append_time_topics)
and described ({alias: stdout of TopicCommand --describe --topic <describe_pattern(topics)>}) and
returns to_alter ([{alias, topic}]: topics described with another timestamp type) and absent
({alias: [topic, ...]}: wanted topics the description lacks).
"""

from __future__ import annotations

import re
from typing import Any, Dict, Iterable, List, Mapping

TIMESTAMP_TYPE_KEY = 'message.timestamp.type'
LOG_APPEND_TIME = 'LogAppendTime'
# TopicCommand's default when a topic and its brokers set nothing.
DEFAULT_TIMESTAMP_TYPE = 'CreateTime'

# "Topic: <name>\tTopicId: ...\tConfigs: k=v,k=v" heads each topic; partition lines start with a tab.
_TOPIC_LINE = re.compile(r'^Topic:\s*(?P<name>\S+)\t.*?(?:\tConfigs:\s?(?P<configs>.*))?$')
# A value may hold commas (cleanup.policy=compact,delete): a new entry starts only at ",<key>=".
_CONFIG_SPLIT = re.compile(r',(?=[a-z][a-z0-9._-]*=)')


def describe_pattern(topics: Iterable[str]) -> str:
    """One regular expression TopicCommand matches against whole topic names."""
    return '|'.join(re.escape(topic) for topic in sorted(set(topics)))


def parse_topic_configs(described: str) -> Dict[str, Dict[str, str]]:
    """Topic name -> the configs TopicCommand --describe shows (those not at Kafka's default)."""
    topics: Dict[str, Dict[str, str]] = {}
    for line in described.splitlines():
        match = _TOPIC_LINE.match(line.rstrip('\r'))
        if match is None:
            continue
        configs: Dict[str, str] = {}
        for entry in _CONFIG_SPLIT.split(match.group('configs') or ''):
            key, sep, value = entry.partition('=')
            if sep:
                configs[key.strip()] = value.strip()
        topics[match.group('name')] = configs
    return topics


def topic_names(output: str) -> List[str]:
    """The topics a TopicCommand output names: --describe's topic lines, or --list's lines."""
    described = parse_topic_configs(output)
    if described:
        return sorted(described)
    return sorted({line.strip() for line in output.splitlines() if line.strip()})


def timestamp_type(configs: Mapping[str, str]) -> str:
    return configs.get(TIMESTAMP_TYPE_KEY, DEFAULT_TIMESTAMP_TYPE)


def log_append_time(request: Mapping[str, Any]) -> Dict[str, Any]:
    wanted: Mapping[str, List[str]] = request.get('wanted') or {}
    described: Mapping[str, str] = request.get('described') or {}
    to_alter: List[Dict[str, str]] = []
    absent: Dict[str, List[str]] = {}
    for alias, topics in sorted(wanted.items()):
        configs = parse_topic_configs(str(described.get(alias) or ''))
        for topic in sorted(set(topics)):
            if topic not in configs:
                absent.setdefault(alias, []).append(topic)
            elif timestamp_type(configs[topic]) != LOG_APPEND_TIME:
                to_alter.append({'alias': alias, 'topic': topic})
    return {'errors': [], 'to_alter': to_alter, 'absent': absent}
