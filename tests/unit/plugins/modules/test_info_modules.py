# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kafka_dr.mm2.connector_info and kafka_dr.mm2.connect_cluster_info against the fake worker."""

from __future__ import annotations

import base64
import json
from typing import Any, Dict

import pytest
from versioned_connect import UNPARSEABLE, VERSIONS, at_least, request_paths

SECRET = 'p@ss-that-must-not-leak'
HEARTBEAT_CLASS = 'org.apache.kafka.connect.mirror.MirrorHeartbeatConnector'


def heartbeat_config(**overrides: Any) -> Dict[str, str]:
    config = {'connector.class': HEARTBEAT_CLASS, 'tasks.max': '1', 'target.cluster.ssl.truststore.password': SECRET}
    config.update(overrides)
    return config


def succeeded(result: Dict[str, Any]) -> Dict[str, Any]:
    assert not result.get('failed'), result.get('msg')
    return result


def test_connector_info_lists_everything_masked(fake, run_module):
    fake.add_connector('mm2-hbc', heartbeat_config())
    fake.add_connector('mm2-msc', heartbeat_config(**{'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector'}), state='PAUSED')
    result = succeeded(run_module('connector_info', check_mode=True, url=fake.url))
    assert result['changed'] is False
    assert result['names'] == ['mm2-hbc', 'mm2-msc']
    assert result['missing'] == []
    assert result['url'] == fake.url
    heartbeat = result['connectors']['mm2-hbc']
    assert heartbeat['type'] == 'source'
    assert heartbeat['state'] == 'RUNNING'
    assert heartbeat['status']['tasks'] == [{'id': 0, 'state': 'RUNNING', 'worker_id': '127.0.0.1:8083'}]
    assert heartbeat['config']['target.cluster.ssl.truststore.password'] == '********'
    assert heartbeat['config']['connector.class'] == HEARTBEAT_CLASS
    assert heartbeat['topics'] == ['heartbeats']
    assert heartbeat['offsets'][0]['offset'] == {'offset': 42}
    assert result['connectors']['mm2-msc']['state'] == 'PAUSED'
    assert SECRET not in result['_stdout']
    assert fake.writes() == []


def test_connector_info_filters_and_reports_missing(fake, run_module):
    fake.add_connector('mm2-hbc', heartbeat_config())
    fake.add_connector('mm2-cpc', heartbeat_config())
    result = succeeded(run_module('connector_info', url=fake.url, name=['mm2-hbc', 'mm2-gone']))
    assert list(result['connectors']) == ['mm2-hbc']
    assert result['missing'] == ['mm2-gone']


def test_connector_info_tolerates_missing_topics_and_offsets(fake, run_module):
    fake.add_connector('mm2-hbc', heartbeat_config())
    fake.topic_tracking = False
    fake.offsets_supported = False
    result = succeeded(run_module('connector_info', url=fake.url))
    assert result['connectors']['mm2-hbc']['topics'] is None
    assert result['connectors']['mm2-hbc']['offsets'] is None


def test_connector_info_skips_optional_reads(fake, run_module):
    fake.add_connector('mm2-hbc', heartbeat_config())
    succeeded(run_module('connector_info', url=fake.url, topics=False, offsets=False))
    assert not [request for request in fake.requests if request.path.endswith(('/topics', '/offsets'))]


def test_connect_cluster_info_reports_worker_plugins_and_reachability(fake, run_module, closed_port_url):
    fake.version = '4.1.0'
    result = succeeded(run_module('connect_cluster_info', check_mode=True, url=[closed_port_url, fake.url]))
    assert result['changed'] is False
    assert result['version'] == '4.1.0'
    assert result['kafka_version'] == '4.1'
    assert result['commit'] == 'fakecommit0001'
    assert result['kafka_cluster_id'] == 'fake-cluster-id'
    assert result['url'] == fake.url
    assert {plugin['class'] for plugin in result['plugins']} >= {'org.apache.kafka.connect.mirror.MirrorSourceConnector', HEARTBEAT_CLASS}
    assert result['plugins'][0] == {'class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector', 'type': 'source', 'version': '4.1.0'}
    reachability = {entry['url']: entry for entry in result['urls']}
    assert reachability[closed_port_url]['reachable'] is False
    assert reachability[fake.url]['reachable'] is True
    assert reachability[fake.url]['version'] == '4.1.0'


def test_connect_cluster_info_fails_when_no_worker_answers(run_module, closed_port_url):
    result = run_module('connect_cluster_info', url=closed_port_url)
    assert result['failed'] is True
    assert 'no Kafka Connect worker reachable' in result['msg']


def test_basic_auth_sent_and_password_hidden(fake, run_module):
    result = succeeded(run_module('connector_info', url=fake.url, url_username='admin', url_password=SECRET))
    expected = 'Basic ' + base64.b64encode(('admin:%s' % SECRET).encode()).decode()
    assert {request.authorization for request in fake.requests} == {expected}
    assert SECRET not in result['_stdout']


# ---- workers of every version --------------------------------------------------------------

@pytest.mark.parametrize('version', VERSIONS)
def test_connector_info_offsets_unavailable_before_35_without_asking(versioned, run_module, version):
    versioned.version = version
    versioned.add_connector('mm2-hbc', heartbeat_config())
    versioned.add_connector('mm2-cpc', heartbeat_config())
    result = succeeded(run_module('connector_info', check_mode=True, url=versioned.url))
    offsets = [result['connectors'][name]['offsets'] for name in ('mm2-cpc', 'mm2-hbc')]
    asked = [path for path in request_paths(versioned) if path.endswith('/offsets')]
    if at_least(version, (3, 5)):
        assert result['degraded'] == [] and len(asked) == 2
        assert all(entry[0]['offset'] == {'offset': 42} for entry in offsets)
    else:
        assert asked == [] and offsets == [None, None]
        assert result['degraded'] == [{'feature': 'offsets_read', 'worker_version': version,
                                       'instead': result['degraded'][0]['instead']}]
        assert 'offsets not available' in result['degraded'][0]['instead']
    assert request_paths(versioned).count('/') == 1
    assert ('not an Apache Kafka version' in json.dumps(result.get('warnings') or [])) is (version == UNPARSEABLE)


def test_connector_info_unknown_version_without_the_endpoint(versioned, run_module):
    versioned.version = UNPARSEABLE
    versioned.offsets_supported = False
    versioned.add_connector('mm2-hbc', heartbeat_config())
    result = succeeded(run_module('connector_info', url=versioned.url))
    assert result['connectors']['mm2-hbc']['offsets'] is None
    assert [entry['feature'] for entry in result['degraded']] == ['offsets_read']


EXPECTED_FEATURES = {
    'stop': (3, 5), 'restart_include_tasks': (3, 0), 'offsets_read': (3, 5), 'offsets_alter': (3, 6),
    'exactly_once_source': (3, 3), 'mirror_plugins': (2, 4),
}


@pytest.mark.parametrize('version', VERSIONS + ['2.3.1'])
def test_connect_cluster_info_reports_features(versioned, run_module, version):
    versioned.version = version
    result = succeeded(run_module('connect_cluster_info', check_mode=True, url=versioned.url))
    features = result['features']
    assert set(features) == set(EXPECTED_FEATURES)
    for name, minimum in EXPECTED_FEATURES.items():
        entry = features[name]
        assert entry['minimum'] == '%d.%d' % minimum
        assert entry['available'] is at_least(version, minimum), name
        assert (entry['instead'] is None) is entry['available']
        assert entry['kind'] == ('refuse' if name in ('exactly_once_source', 'mirror_plugins') else 'degrade')
    assert ('not an Apache Kafka version' in json.dumps(result.get('warnings') or [])) is (version == UNPARSEABLE)


def test_connect_cluster_info_mirror_plugins_missing_on_a_new_worker(versioned, run_module):
    versioned.version = '3.9.1'
    versioned.mirror_installed = False
    result = succeeded(run_module('connect_cluster_info', url=versioned.url))
    assert result['features']['mirror_plugins']['available'] is False
    assert 'connect-mirror' in result['features']['mirror_plugins']['instead']
    assert result['features']['stop']['available'] is True
