"""Validator inputs: cluster access (with secrets kept out of reports) and job settings."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping, Optional

from mm2_validator.delivery import EXACTLY_ONCE, DuplicatePolicy
from mm2_validator.shared import java_properties, mm2_naming
from mm2_validator.window import ReplicationWindow

REPLICATION_POLICIES = tuple(mm2_naming.POLICY_CLASSES)

# Consumer settings the Spark Kafka source manages itself and rejects as `kafka.*`
# options; the validator also sets them on its own metadata consumer.
_CLIENT_KEYS_MANAGED_HERE = frozenset(
    {
        "bootstrap.servers",
        "group.id",
        "auto.offset.reset",
        "key.deserializer",
        "value.deserializer",
        "enable.auto.commit",
        "interceptor.classes",
    }
)


class ConfigError(ValueError):
    """Bad validator input; reported as a usage error (exit code 2)."""


def _client_settings_file(path: str) -> dict[str, str]:
    """A client properties file, read as Kafka reads it."""
    try:
        return java_properties.read_file(path)
    except OSError as exc:
        raise ConfigError(f"cannot read properties file {path}: {exc.strerror}") from exc
    except java_properties.PropertiesFormatError as exc:
        raise ConfigError(f"properties file {path}: {exc}") from exc


@dataclass(frozen=True)
class ClusterAccess:
    """How to reach one Kafka cluster. `client_properties` may hold secrets: it is
    passed to Kafka clients only and never rendered (`repr` shows the keys)."""

    name: str
    bootstrap: str
    client_properties: Mapping[str, str] = field(default_factory=dict, repr=False)
    properties_file: Optional[str] = None

    def spark_options(self) -> dict[str, str]:
        """Options for the Spark Kafka source: every client setting as `kafka.<key>`."""
        options = {f"kafka.{key}": value for key, value in self.client_properties.items()}
        options["kafka.bootstrap.servers"] = self.bootstrap
        return options

    def consumer_properties(self) -> dict[str, str]:
        """Settings for a plain Kafka consumer used for metadata look-ups."""
        properties = dict(self.client_properties)
        properties["bootstrap.servers"] = self.bootstrap
        return properties

    def describe(self) -> dict[str, object]:
        """Report-safe description: bootstrap, file name and setting names, no values."""
        return {
            "bootstrap": self.bootstrap,
            "properties_file": self.properties_file,
            "property_keys": sorted(self.client_properties),
        }


def with_committed_reads(access: ClusterAccess) -> ClusterAccess:
    """The same access reading committed records only, unless its file says otherwise.

    An exactly-once flow writes the target in transactions; a worker killed mid-transaction
    leaves aborted records in the log that read_committed consumers never see. Reading them
    would report each as a duplicate."""
    if "isolation.level" in access.client_properties:
        return access
    properties = dict(access.client_properties, **{"isolation.level": "read_committed"})
    return ClusterAccess(access.name, access.bootstrap, properties, access.properties_file)


def target_access_for(delivery: str, target: ClusterAccess) -> ClusterAccess:
    return with_committed_reads(target) if delivery == EXACTLY_ONCE else target


def cluster_access(name: str, bootstrap: Optional[str], properties_file: Optional[str]) -> ClusterAccess:
    """Build cluster access from a bootstrap flag and an optional properties file.
    A `bootstrap.servers` line in the file is used when the flag is absent."""
    properties: dict[str, str] = {}
    if properties_file:
        properties = _client_settings_file(properties_file)
    file_bootstrap = properties.get("bootstrap.servers")
    chosen_bootstrap = bootstrap or file_bootstrap
    if not chosen_bootstrap:
        raise ConfigError(
            f"no bootstrap servers for the {name} cluster (flag or bootstrap.servers in its properties file)"
        )
    client_properties = {k: v for k, v in properties.items() if k not in _CLIENT_KEYS_MANAGED_HERE}
    return ClusterAccess(name, chosen_bootstrap, client_properties, properties_file)


def ignored_property_keys(properties: Mapping[str, str]) -> list[str]:
    """Keys of a properties file the validator sets itself (reported as a note)."""
    return sorted(k for k in properties if k in _CLIENT_KEYS_MANAGED_HERE and k != "bootstrap.servers")


@dataclass(frozen=True)
class ValidatorConfig:
    source: ClusterAccess
    target: ClusterAccess
    offset_syncs_cluster: ClusterAccess
    source_alias: str
    target_alias: str
    replication_policy: str = "default"
    separator: str = "."
    topics: tuple[str, ...] = ()
    topics_regex: Optional[str] = None
    groups: tuple[str, ...] = ()
    checkpoints_topic: str = ""
    offset_syncs_topic: str = ""
    heartbeats_topic: str = "heartbeats"
    catchup_timeout_s: float = 300.0
    poll_interval_s: float = 5.0
    allow_timestamp_type_change: bool = False
    max_examples: int = 5
    # Report examples show a short SHA-256 of each key unless the raw key prefix is asked for.
    raw_key_preview: bool = False
    duplicate_policy: DuplicatePolicy = field(default_factory=DuplicatePolicy)
    window: ReplicationWindow = field(default_factory=ReplicationWindow)

    def __post_init__(self) -> None:
        if self.replication_policy not in REPLICATION_POLICIES:
            raise ConfigError(f"--replication-policy must be one of {', '.join(REPLICATION_POLICIES)}")
        if bool(self.topics) == bool(self.topics_regex):
            raise ConfigError("give exactly one of --topics or --topics-regex")
        if self.topics_regex:
            try:
                re.compile(self.topics_regex)
            except re.error as exc:
                raise ConfigError(f"--topics-regex is not a valid regular expression: {exc}") from exc
        if not self.separator:
            raise ConfigError("--separator must not be empty")
        if self.catchup_timeout_s < 0:
            raise ConfigError("--catchup-timeout must be zero or more seconds")

    @property
    def naming(self) -> mm2_naming.ReplicationNaming:
        """MM2's names under the flow's policy (the collection's rules, shipped with the package)."""
        return mm2_naming.ReplicationNaming(
            policy=self.replication_policy, separator=self.separator, heartbeats_topic=self.heartbeats_topic
        )

    def remote_topic(self, topic: str) -> str:
        return self.naming.remote_topic(self.source_alias, topic)

    def describe(self) -> dict[str, object]:
        """The inputs as they appear in the report (no secret values)."""
        return {
            "source": self.source.describe(),
            "target": self.target.describe(),
            "offset_syncs_cluster": self.offset_syncs_cluster.describe(),
            "source_alias": self.source_alias,
            "target_alias": self.target_alias,
            "replication_policy": self.replication_policy,
            "separator": self.separator,
            "topics": list(self.topics),
            "topics_regex": self.topics_regex,
            "groups": list(self.groups),
            "checkpoints_topic": self.checkpoints_topic,
            "offset_syncs_topic": self.offset_syncs_topic,
            "heartbeats_topic": self.heartbeats_topic,
            "catchup_timeout_s": self.catchup_timeout_s,
            "allow_timestamp_type_change": self.allow_timestamp_type_change,
            "key_preview": "raw" if self.raw_key_preview else "sha256",
            "delivery": self.duplicate_policy.delivery,
            "max_duplicates": self.duplicate_policy.max_duplicates,
            "max_duplicate_ratio": self.duplicate_policy.max_duplicate_ratio,
            "window": self.window.describe(),
        }
