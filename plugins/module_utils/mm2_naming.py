# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How MirrorMaker 2 names topics: the one place the collection writes these rules down.

The rules are those of MM2's DefaultReplicationPolicy and IdentityReplicationPolicy
(connect-mirror-client) and of the connectors that place the internal topics:

- remote topic: ``<source><sep><topic>``; the identity policy keeps the name, except for
  heartbeats topics (any name ending in the heartbeats topic name), which it prefixes as the
  default policy does so that heartbeats can never loop;
- checkpoints topic, on the target: ``<source><isep>checkpoints<isep>internal``;
- offset-syncs topic: ``mm2-offset-syncs<isep><alias><isep>internal``, where alias is the
  cluster of the flow the topic does *not* live on: the target alias when it lives on the
  source (``offset-syncs.topic.location=source``, the default), the source alias when it lives
  on the target;
- heartbeats topic: ``heartbeats`` (``default.replication.policy.heartbeats.topic.name``).

``<isep>`` is the separator (``replication.policy.separator``) unless
``replication.policy.internal.topic.separator.enabled`` is false, when it is ``.`` (the names
of MM2 before Kafka 3.0). The identity policy inherits every internal topic name.

The planner, the mirrormaker role's topic checks, the replication_check role's inputs, the
failover and status modules and the validator job all use this module (the replication_check
role ships this very file into the validator package). Standard library only, so it imports
on any host.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Mapping, Optional, Set, Tuple

DEFAULT_POLICY_CLASS = 'org.apache.kafka.connect.mirror.DefaultReplicationPolicy'
IDENTITY_POLICY_CLASS = 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy'
# Policy name as the inventory spells it -> class MM2 loads.
POLICY_CLASSES = {'default': DEFAULT_POLICY_CLASS, 'identity': IDENTITY_POLICY_CLASS}

DEFAULT_SEPARATOR = '.'
HEARTBEATS_TOPIC = 'heartbeats'
OFFSET_SYNCS_LOCATIONS = ('source', 'target')
# Cluster of a flow the heartbeat connector writes into (a role option; stock MM2 writes to the target).
HEARTBEATS_LOCATIONS = ('source', 'target')

# Connector settings that shape the names.
POLICY_CLASS_KEY = 'replication.policy.class'
SEPARATOR_KEY = 'replication.policy.separator'
INTERNAL_SEPARATOR_KEY = 'replication.policy.internal.topic.separator.enabled'
HEARTBEATS_TOPIC_KEY = 'default.replication.policy.heartbeats.topic.name'
OFFSET_SYNCS_LOCATION_KEY = 'offset-syncs.topic.location'
SOURCE_ALIAS_KEY = 'source.cluster.alias'


def policy_name(policy_class: str) -> Optional[str]:
    """'default' or 'identity' for MM2's own policies (Connect trims class names), None for any other class."""
    wanted = policy_class.strip()
    return next((name for name, cls in POLICY_CLASSES.items() if cls == wanted), None)


def java_split(text: str, separator: str) -> List[str]:
    """String.split(Pattern.quote(separator)) as Java does it: trailing empty parts are dropped."""
    parts = text.split(separator)
    while len(parts) > 1 and parts[-1] == '':
        parts.pop()
    return parts


@dataclass(frozen=True)
class ReplicationNaming:
    """A configured replication policy: MM2's names for remote and internal topics."""

    policy: str = 'default'
    separator: str = DEFAULT_SEPARATOR
    internal_separator_enabled: bool = True
    heartbeats_topic: str = HEARTBEATS_TOPIC
    # What the identity policy answers as the source of a topic that is not a heartbeats topic.
    source_alias: Optional[str] = None

    def __post_init__(self) -> None:
        if self.policy not in POLICY_CLASSES:
            raise ValueError('replication policy must be one of %s, got %r' % (', '.join(POLICY_CLASSES), self.policy))
        if not self.separator:
            raise ValueError('the replication policy separator must not be empty')

    @classmethod
    def from_config(cls, config: Mapping[str, str]) -> Optional['ReplicationNaming']:
        """The naming of a connector config (strings, as Connect stores them); None for a custom policy class."""
        policy = policy_name(str(config.get(POLICY_CLASS_KEY, DEFAULT_POLICY_CLASS)))
        if policy is None:
            return None
        return cls(
            policy=policy,
            separator=str(config.get(SEPARATOR_KEY, DEFAULT_SEPARATOR)),
            internal_separator_enabled=str(config.get(INTERNAL_SEPARATOR_KEY, 'true')).strip().lower() == 'true',
            heartbeats_topic=str(config.get(HEARTBEATS_TOPIC_KEY, HEARTBEATS_TOPIC)),
            source_alias=config.get(SOURCE_ALIAS_KEY),
        )

    @property
    def identity(self) -> bool:
        return self.policy == 'identity'

    @property
    def internal_separator(self) -> str:
        return self.separator if self.internal_separator_enabled else '.'

    # -- remote topics ------------------------------------------------------------------

    def looks_like_heartbeats(self, topic: str) -> bool:
        """The identity policy's test: any name ending in the heartbeats topic name."""
        return topic.endswith(self.heartbeats_topic)

    def remote_topic(self, source_alias: str, topic: str) -> str:
        """Name of `topic` of cluster `source_alias` once replicated to another cluster."""
        if self.identity and not self.looks_like_heartbeats(topic):
            return topic
        return source_alias + self.separator + topic

    def topic_source(self, topic: str) -> Optional[str]:
        """Alias of the cluster a remote topic came from, None when the name says it is not remote."""
        if self.identity and not self.looks_like_heartbeats(topic):
            return self.source_alias
        parts = java_split(topic, self.separator)
        return parts[0] if len(parts) >= 2 else None

    def upstream_topic(self, topic: str) -> Optional[str]:
        """Name of a remote topic on the cluster it came from (itself under the identity policy)."""
        if self.identity and not self.looks_like_heartbeats(topic):
            return topic
        source = self.topic_source(topic)
        if source is None:
            return None
        return topic[len(source) + len(self.separator):]

    def original_topic(self, topic: str) -> str:
        """Name of the topic where it was first written, through any number of hops."""
        seen: Set[str] = set()
        while topic not in seen:
            seen.add(topic)
            upstream = self.upstream_topic(topic)
            if upstream is None or upstream == topic:
                return topic
            topic = upstream
        return topic

    def is_heartbeats_topic(self, topic: str) -> bool:
        """heartbeats, src.heartbeats, a.b.heartbeats ..."""
        return self.original_topic(topic) == self.heartbeats_topic

    def is_internal_topic(self, topic: str) -> bool:
        """Topics MM2 never replicates. Kafka releases disagree on the exact rule (3.x also skips any
        `.internal`/`-internal` name, 4.x only MM2's own and Kafka's); the union of both keeps a
        prediction from waiting for a topic one of them never creates."""
        return (topic.startswith('__') or topic.startswith('.')
                or topic.endswith('.internal') or topic.endswith('-internal')
                or topic.endswith(self.internal_separator + 'internal'))

    def is_cycle(self, topic: str, target_alias: str) -> bool:
        """MirrorSourceConnector's loop check: the topic came from the target, at some hop."""
        seen: Set[str] = set()
        while topic not in seen:
            seen.add(topic)
            source = self.topic_source(topic)
            if source is None:
                return False
            if source == target_alias:
                return True
            upstream = self.upstream_topic(topic)
            if upstream is None or upstream == topic:
                return False
            topic = upstream
        return False

    # -- internal topics ----------------------------------------------------------------

    def checkpoints_topic(self, source_alias: str) -> str:
        """Checkpoints of the groups of cluster `source_alias`, on the target."""
        return source_alias + self.internal_separator + 'checkpoints' + self.internal_separator + 'internal'

    def offset_syncs_topic(self, other_alias: str) -> str:
        """Offset syncs topic named after `other_alias`, the cluster of the flow it does not live on."""
        return 'mm2-offset-syncs' + self.internal_separator + other_alias + self.internal_separator + 'internal'

    def offset_syncs_placement(self, source_alias: str, target_alias: str, location: str) -> Tuple[str, str]:
        """(alias of the cluster holding the offset-syncs topic, its name) for a flow."""
        if location not in OFFSET_SYNCS_LOCATIONS:
            raise ValueError('offset-syncs.topic.location must be source or target, got %r' % (location,))
        if location == 'target':
            return target_alias, self.offset_syncs_topic(source_alias)
        return source_alias, self.offset_syncs_topic(target_alias)

    def remote_heartbeats_topic(self, source_alias: str) -> str:
        """Where the heartbeats of cluster `source_alias` land on the target (prefixed under both policies)."""
        return self.remote_topic(source_alias, self.heartbeats_topic)
