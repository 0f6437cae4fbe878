# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kafka_dr.mm2.connector_info and kafka_dr.mm2.connect_cluster_info against the fake worker."""

from __future__ import annotations

import base64
from typing import Any, Dict

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
