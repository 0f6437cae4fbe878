# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The feature table: which worker version has what, and what the modules say below it."""

from __future__ import annotations

from typing import List, Optional, Tuple

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_config import ConfigError
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_features import (
    DEGRADE,
    FEATURE,
    FEATURES,
    MIRROR_CONNECTORS,
    REFUSE,
    FeatureRefused,
    WorkerVersion,
    check_exactly_once,
    check_mirror_plugin,
    degradation,
    degradation_warning,
    feature_report,
    installed,
    is_mirror_class,
    plugin_aliases,
    requires_exactly_once,
)

VERSIONS = ['2.4.1', '2.8.2', '3.0.2', '3.4.1', '3.5.2', '3.9.1', '4.3.0', 'vendor-build-7']
SOURCE = MIRROR_CONNECTORS[0]

# feature -> the versions of VERSIONS that have it (an unparseable version counts as the newest).
AVAILABLE_FROM = {
    'mirror_plugins': VERSIONS,
    'restart_include_tasks': VERSIONS[2:],
    'exactly_once_source': VERSIONS[3:],
    'stop': VERSIONS[4:],
    'offsets_read': VERSIONS[4:],
    'offsets_alter': VERSIONS[5:],
}


def worker(version: Optional[str]) -> WorkerVersion:
    return WorkerVersion.of({'version': version, 'commit': 'abc'})


def test_the_table_has_each_feature_once_with_a_text_to_read() -> None:
    assert [feature.name for feature in FEATURES] == list(FEATURE)
    assert set(FEATURE) == set(AVAILABLE_FROM)
    for feature in FEATURES:
        assert feature.kind in (DEGRADE, REFUSE)
        assert feature.instead and feature.description
        assert feature.minimum_text == '%d.%d' % feature.minimum
    assert FEATURE['stop'].kind == DEGRADE and 'tasks assigned' in FEATURE['stop'].instead
    assert FEATURE['exactly_once_source'].kind == FEATURE['mirror_plugins'].kind == REFUSE


@pytest.mark.parametrize('version', VERSIONS)
@pytest.mark.parametrize('name', sorted(AVAILABLE_FROM))
def test_supports_per_version(version: str, name: str) -> None:
    assert worker(version).supports(name) is (version in AVAILABLE_FROM[name])


@pytest.mark.parametrize(('reported', 'kafka', 'text'), [
    ('2.4.1', (2, 4), '2.4.1'),
    ('2.4.1-amzn-0', (2, 4), '2.4.1-amzn-0'),
    ('3.4.0-ccs', (3, 4), '3.4.0-ccs'),
    ('7.4.0-ccs', (3, 4), '7.4.0-ccs (Apache Kafka 3.4)'),
    ('4.3.0', (4, 3), '4.3.0'),
    ('vendor-build-7', None, 'vendor-build-7'),
    (None, None, 'unknown'),
])
def test_versions_are_read_and_named(reported: Optional[str], kafka: Optional[Tuple[int, int]], text: str) -> None:
    parsed = worker(reported)
    assert parsed.kafka == kafka and parsed.text() == text and parsed.known is (kafka is not None)


def test_unknown_version_is_the_newest_with_a_warning() -> None:
    vendor = worker('vendor-build-7')
    assert all(vendor.supports(feature.name) for feature in FEATURES)
    assert "'vendor-build-7'" in vendor.unknown_warning() and 'assumed available' in vendor.unknown_warning()
    assert 'no version' in WorkerVersion.of({}).unknown_warning()
    assert worker('2.4.1').unknown_warning() is None


def test_degradation_entry_and_warning_name_version_and_what_happens() -> None:
    entry = degradation('stop', worker('3.4.1'))
    assert entry == {'feature': 'stop', 'worker_version': '3.4.1', 'instead': FEATURE['stop'].instead}
    warning = degradation_warning(entry)
    assert 'Kafka Connect 3.4.1 has no PUT /connectors/NAME/stop' in warning and '(needs 3.5)' in warning
    assert 'paused instead' in warning


@pytest.mark.parametrize('version', VERSIONS)
def test_feature_report_per_version(version: str) -> None:
    report = feature_report(worker(version), MIRROR_CONNECTORS)
    for name, entry in report.items():
        assert entry['available'] is (version in AVAILABLE_FROM[name])
        assert entry['instead'] == (None if entry['available'] else FEATURE[name].instead)
        assert entry['minimum'] == FEATURE[name].minimum_text and entry['kind'] == FEATURE[name].kind


def test_feature_report_mirror_plugins_needs_all_three_listed() -> None:
    assert feature_report(worker('3.9.1'), MIRROR_CONNECTORS[:2])['mirror_plugins']['available'] is False
    assert feature_report(worker('3.9.1'))['mirror_plugins']['available'] is True  # no list: version alone


# ---- exactly-once --------------------------------------------------------------------------

@pytest.mark.parametrize(('value', 'required'), [('required', True), (' Required ', True), ('requested', False), (None, False)])
def test_only_required_asks_for_exactly_once(value: Optional[str], required: bool) -> None:
    config = {} if value is None else {'exactly.once.support': value}
    assert requires_exactly_once(config) is required


@pytest.mark.parametrize('version', VERSIONS)
def test_exactly_once_refused_before_33(version: str) -> None:
    config = {'connector.class': SOURCE, 'exactly.once.support': 'required'}
    if version in AVAILABLE_FROM['exactly_once_source']:
        check_exactly_once(config, worker(version))
        return
    with pytest.raises(FeatureRefused) as refused:
        check_exactly_once(config, worker(version))
    message = str(refused.value)
    assert 'exactly.once.support=required' in message and 'needs Kafka Connect 3.3 or later' in message
    assert 'the worker runs %s' % version in message and 'at least once' in message
    assert isinstance(refused.value, ConfigError)


def test_exactly_once_not_asked_passes_everywhere() -> None:
    for version in VERSIONS:
        check_exactly_once({'exactly.once.support': 'requested'}, worker(version))


# ---- MirrorMaker 2 plugins ------------------------------------------------------------------

def test_aliases_are_the_ones_connect_accepts() -> None:
    assert plugin_aliases(SOURCE) == [SOURCE, 'MirrorSourceConnector', 'MirrorSource']
    assert installed('MirrorSource', MIRROR_CONNECTORS) and installed('MirrorHeartbeatConnector', MIRROR_CONNECTORS)
    assert not installed('mirrorsource', MIRROR_CONNECTORS)
    assert is_mirror_class('MirrorCheckpoint') and not is_mirror_class('org.example.MySourceConnector')


class PluginList:
    """GET /connector-plugins, counting the calls."""

    def __init__(self, classes: List[str]) -> None:
        self.classes = classes
        self.calls = 0

    def __call__(self) -> List[str]:
        self.calls += 1
        return self.classes


@pytest.mark.parametrize('version', VERSIONS)
def test_mirror_plugin_listed_passes_missing_refused(version: str) -> None:
    check_mirror_plugin(SOURCE, worker(version), PluginList(list(MIRROR_CONNECTORS)))
    with pytest.raises(FeatureRefused, match=r'not installed on the worker \(Kafka Connect %s\)' % version):
        check_mirror_plugin(SOURCE, worker(version), PluginList(['org.example.OtherConnector']))


def test_mirror_class_below_24_refused_on_its_version_alone() -> None:
    plugins = PluginList(list(MIRROR_CONNECTORS))
    with pytest.raises(FeatureRefused, match='needs Kafka Connect 2.4 or later.*the worker runs 2.3.1'):
        check_mirror_plugin(SOURCE, worker('2.3.1'), plugins)
    assert plugins.calls == 0


def test_other_classes_are_left_to_the_worker() -> None:
    plugins = PluginList([])
    check_mirror_plugin('org.example.MySinkConnector', worker('2.3.1'), plugins)
    assert plugins.calls == 0
