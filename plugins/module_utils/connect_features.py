# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which Kafka Connect feature needs which worker version, and what the modules do below it.

The modules also run against Connect clusters this collection did not provision, from the
2.4.1 of EMR-like estates to 4.x. A feature the worker lacks is either degraded (the module
does the nearest thing the worker can do and says so in `degraded` and a warning) or refused
(the module fails before it changes anything, naming the version). The table below is the one
place that knows the versions and the texts; the modules only ask it.

A version that is not an Apache Kafka one (a vendor build string, or none at all) is treated
as the newest: refusing or degrading on a guess would block workers that can do everything.
The modules warn about it instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_config import ConfigError, kafka_version

DEGRADE = 'degrade'
REFUSE = 'refuse'

STOP = 'stop'
RESTART_INCLUDE_TASKS = 'restart_include_tasks'
OFFSETS_READ = 'offsets_read'
OFFSETS_ALTER = 'offsets_alter'
EXACTLY_ONCE_SOURCE = 'exactly_once_source'
MIRROR_PLUGINS = 'mirror_plugins'

MIRROR_PACKAGE = 'org.apache.kafka.connect.mirror.'
MIRROR_CONNECTORS = (
    MIRROR_PACKAGE + 'MirrorSourceConnector',
    MIRROR_PACKAGE + 'MirrorCheckpointConnector',
    MIRROR_PACKAGE + 'MirrorHeartbeatConnector',
)
EXACTLY_ONCE_KEY = 'exactly.once.support'


@dataclass(frozen=True)
class Feature:
    """One row of the table: what the feature is, the first Kafka version with it, and what
    happens on an older worker (`instead` is the sentence an operator reads)."""

    name: str
    minimum: Tuple[int, int]
    kind: str
    description: str
    instead: str
    # Answers of a worker that lacks the endpoint, for workers whose version says nothing.
    missing_statuses: Tuple[int, ...] = ()

    @property
    def minimum_text(self) -> str:
        return '%d.%d' % self.minimum


FEATURES: Tuple[Feature, ...] = (
    Feature(
        STOP, (3, 5), DEGRADE,
        'PUT /connectors/NAME/stop and the STOPPED state (KIP-875)',
        'paused instead (PUT /connectors/NAME/pause): a paused connector keeps its tasks assigned to the workers, '
        'idle, rather than shutting them down; it resumes the same way',
    ),
    Feature(
        RESTART_INCLUDE_TASKS, (3, 0), DEGRADE,
        'POST /connectors/NAME/restart?includeTasks=true&onlyFailed=true (KIP-745)',
        'the connector is restarted, then each task (each failed one when only failed work is restarted) with '
        'POST /connectors/NAME/tasks/ID/restart, the task ids read from the status; an older worker ignores '
        'includeTasks and onlyFailed and would restart the connector instance only',
    ),
    Feature(
        OFFSETS_READ, (3, 5), DEGRADE,
        'GET /connectors/NAME/offsets (KIP-875)',
        'offsets not available: reported as null, the worker cannot show a connector\'s offsets',
        missing_statuses=(404, 405),
    ),
    Feature(
        OFFSETS_ALTER, (3, 6), DEGRADE,
        'PATCH and DELETE /connectors/NAME/offsets on a stopped connector (KIP-875)',
        'offsets not available for change: the worker cannot alter or reset a connector\'s offsets',
        missing_statuses=(404, 405),
    ),
    Feature(
        EXACTLY_ONCE_SOURCE, (3, 3), REFUSE,
        'exactly-once source connectors: exactly.once.support on a connector, '
        'exactly.once.source.support on the workers (KIP-618)',
        'refused before any change: the worker ignores exactly.once.support=required and would deliver '
        'at least once',
    ),
    Feature(
        MIRROR_PLUGINS, (2, 4), REFUSE,
        'MirrorSourceConnector, MirrorCheckpointConnector and MirrorHeartbeatConnector as Connect plugins (KIP-382)',
        'refused before any change: the worker cannot run a MirrorMaker 2 connector; it needs Kafka 2.4 or '
        'later with connect-mirror on its plugin path',
    ),
)

FEATURE: Dict[str, Feature] = {feature.name: feature for feature in FEATURES}


class FeatureRefused(ConfigError):
    """A request the worker cannot honour; raised before anything is written."""


@dataclass(frozen=True)
class WorkerVersion:
    """The version a worker reports on GET /, and the Apache Kafka (major, minor) read from it."""

    reported: Optional[str]
    kafka: Optional[Tuple[int, int]]

    @classmethod
    def of(cls, info: Optional[Mapping[str, Any]]) -> 'WorkerVersion':
        """From the answer of GET / (read once per module run)."""
        reported = (info or {}).get('version')
        reported = None if reported is None else str(reported)
        return cls(reported, kafka_version(reported))

    @classmethod
    def read(cls, client: Any, warn: Callable[[str], None]) -> 'WorkerVersion':
        """GET / on the client's worker, warning once when the version says nothing of the features."""
        worker = cls.of(client.worker_info())
        warning = worker.unknown_warning()
        if warning:
            warn(warning)
        return worker

    @property
    def known(self) -> bool:
        return self.kafka is not None

    def text(self) -> str:
        """The version as an operator knows it, with the Kafka version when the two differ (Confluent)."""
        if self.reported is None:
            return 'unknown'
        if self.kafka is None or self.reported.startswith('%d.%d' % self.kafka):
            return self.reported
        return '%s (Apache Kafka %d.%d)' % (self.reported, self.kafka[0], self.kafka[1])

    def supports(self, name: str) -> bool:
        """An unknown version counts as the newest; see unknown_warning."""
        return self.kafka is None or self.kafka >= FEATURE[name].minimum

    def unknown_warning(self) -> Optional[str]:
        """The warning a module gives once when it cannot tell what the worker supports."""
        if self.known:
            return None
        shown = 'no version' if self.reported is None else 'version %r' % self.reported
        return ('the Kafka Connect worker reports %s, which is not an Apache Kafka version: every feature is '
                'assumed available, as on the newest Kafka' % shown)


def degradation(name: str, worker: WorkerVersion) -> Dict[str, str]:
    """The entry a module puts in its `degraded` result when it works around a missing feature."""
    return {'feature': name, 'worker_version': worker.text(), 'instead': FEATURE[name].instead}


def degradation_warning(entry: Mapping[str, str]) -> str:
    feature = FEATURE[entry['feature']]
    return 'Kafka Connect %s has no %s (needs %s): %s' % (
        entry['worker_version'], feature.description, feature.minimum_text, entry['instead'])


def refusal(name: str, worker: WorkerVersion, reason: str) -> FeatureRefused:
    """The error for a refused feature, naming the version the worker runs and the one needed."""
    feature = FEATURE[name]
    return FeatureRefused('%s needs Kafka Connect %s or later (%s); the worker runs %s: %s' % (
        reason, feature.minimum_text, feature.description, worker.text(), feature.instead))


def feature_report(worker: WorkerVersion, plugin_classes: Optional[Iterable[str]] = None) -> Dict[str, Dict[str, Any]]:
    """For each feature: available, or what happens instead. `plugin_classes` (GET /connector-plugins)
    also decides mirror_plugins: a worker recent enough may still lack connect-mirror."""
    listed = None if plugin_classes is None else set(plugin_classes)
    report = {}
    for feature in FEATURES:
        available = worker.supports(feature.name)
        if feature.name == MIRROR_PLUGINS and listed is not None:
            available = available and all(installed(cls, listed) for cls in MIRROR_CONNECTORS)
        report[feature.name] = {
            'available': available,
            'minimum': feature.minimum_text,
            'kind': feature.kind,
            'instead': None if available else feature.instead,
        }
    return report


# ---- client overrides ------------------------------------------------------------------------

# KIP-458 added connector.client.config.override.policy in 2.3 with the default None; KIP-722 made
# the default All in 3.0. The MirrorMaker 2 connectors of this collection carry producer.override.*.
OVERRIDE_POLICY_DEFAULT_ALL = (3, 0)
OVERRIDE_POLICY_REFUSAL = 'policy does not allow'


def override_policy_hint(worker: WorkerVersion, messages: Iterable[str]) -> Optional[str]:
    """What to do when the worker's override policy refused client overrides in a validation."""
    if not any(OVERRIDE_POLICY_REFUSAL in message for message in messages):
        return None
    default = ('defaults connector.client.config.override.policy to None before 3.0 (3.0 made it All)'
               if worker.kafka is not None and worker.kafka < OVERRIDE_POLICY_DEFAULT_ALL
               else 'is configured with a connector.client.config.override.policy that refuses them')
    return ('Kafka Connect %s %s; the connector sets client overrides (*.override.*): on every worker of the '
            'Connect cluster, list the settings in connector.client.config.override.allowlist with '
            'connector.client.config.override.policy=Allowlist (Kafka 4.2 and later; role connect_worker: '
            'connect_worker_client_config_override_allowlist), or set connector.client.config.override.policy=All '
            'on older workers, and restart them; or leave the overrides out of the flow' % (worker.text(), default))


# ---- exactly-once source -------------------------------------------------------------------

def requires_exactly_once(config: Mapping[str, Any]) -> bool:
    """`required` makes a 3.3+ worker refuse to run the connector without exactly-once;
    `requested` accepts at-least-once, so only `required` is a promise an older worker breaks."""
    return str(config.get(EXACTLY_ONCE_KEY, '')).strip().lower() == 'required'


def check_exactly_once(config: Mapping[str, Any], worker: WorkerVersion) -> None:
    if requires_exactly_once(config) and not worker.supports(EXACTLY_ONCE_SOURCE):
        raise refusal(EXACTLY_ONCE_SOURCE, worker, 'the config sets %s=required, which' % EXACTLY_ONCE_KEY)


# ---- connector plugins -----------------------------------------------------------------------

def plugin_aliases(connector_class: str) -> List[str]:
    """The names Connect accepts for a plugin class: the class, its simple name, and the simple
    name without the `Connector` suffix (PluginUtils.prunedName)."""
    simple = connector_class.rsplit('.', 1)[-1]
    names = [connector_class, simple]
    if simple.endswith('Connector') and len(simple) > len('Connector'):
        names.append(simple[:-len('Connector')])
    return names


def installed(connector_class: str, plugin_classes: Iterable[str]) -> bool:
    """Whether `connector_class` (a full name or an alias) names one of the listed plugins."""
    return any(connector_class in plugin_aliases(listed) for listed in plugin_classes)


def is_mirror_class(connector_class: str) -> bool:
    return any(installed(connector_class, [mirror]) for mirror in MIRROR_CONNECTORS)


def check_mirror_plugin(connector_class: str, worker: WorkerVersion, list_plugins: Callable[[], Iterable[str]]) -> None:
    """Refuse a MirrorMaker 2 connector the worker cannot load, before its config is validated or written.

    A worker older than 2.4 is refused on its version alone; a newer one is asked for its plugin
    list (`list_plugins`, GET /connector-plugins), since connect-mirror may be missing from its
    plugin path. Other classes are left to the worker's own validation.
    """
    if not is_mirror_class(connector_class):
        return
    if not worker.supports(MIRROR_PLUGINS):
        raise refusal(MIRROR_PLUGINS, worker, 'connector class %s' % connector_class)
    if not installed(connector_class, list_plugins()):
        raise FeatureRefused('connector class %s is not installed on the worker (Kafka Connect %s): %s' % (
            connector_class, worker.text(), FEATURE[MIRROR_PLUGINS].instead))
