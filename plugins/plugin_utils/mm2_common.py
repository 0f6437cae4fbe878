# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every part of the MirrorMaker 2 model shares: the error collector and value readers.

Nothing in the model talks to Kafka: every function is a pure transformation of the
inventory, so unit tests exercise the same code the roles run.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_values import connect_string

CONNECTOR_KINDS = ('source', 'checkpoint', 'heartbeat')
MIRROR_CLASSES = {
    'source': 'org.apache.kafka.connect.mirror.MirrorSourceConnector',
    'checkpoint': 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector',
    'heartbeat': 'org.apache.kafka.connect.mirror.MirrorHeartbeatConnector',
}


class ModelErrors:
    """Collects every problem of the model so one run reports them all."""

    def __init__(self) -> None:
        self.messages: List[str] = []

    def add(self, where: str, message: str) -> None:
        self.messages.append('%s: %s' % (where, message))

    def __bool__(self) -> bool:
        return bool(self.messages)


def as_bool(value: Any) -> Optional[bool]:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ('true', 'false', 'yes', 'no'):
        return value.strip().lower() in ('true', 'yes')
    return None


def as_pattern_list(value: Any) -> Optional[List[str]]:
    """Topic and group patterns: a list, or one comma-separated string as Connect reads it."""
    if isinstance(value, str):
        return [item.strip() for item in value.split(',') if item.strip()]
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return [item.strip() for item in value]
    return None


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> Dict[str, Any]:
    """Mappings merge key by key; any other value replaces the one below it."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def without_nulls(settings: Mapping[str, Any]) -> Dict[str, Any]:
    """A null value removes a setting (e.g. a built-in producer default)."""
    return {key: value for key, value in settings.items() if value is not None}


def connect_settings(where: str, origin: str, settings: Mapping[str, Any], errors: ModelErrors,
                     prefix: str = '') -> Dict[str, str]:
    """Settings in Connect's string form under `prefix`; a value without one (a mapping) is an error of `origin`."""
    rendered: Dict[str, str] = {}
    for key, value in settings.items():
        try:
            rendered[prefix + str(key)] = connect_string(value)
        except TypeError as exc:
            errors.add(where, '%s: %s %s' % (origin, key, exc))
    return rendered
