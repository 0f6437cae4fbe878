# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kafka_dr.mm2.connector, run as a real module process against the fake Connect worker."""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest
from connector_runner import connector_runner
from versioned_connect import UNPARSEABLE, VERSIONS, at_least, request_paths

SOURCE_CLASS = 'org.apache.kafka.connect.mirror.MirrorSourceConnector'
BYTES = 'org.apache.kafka.connect.converters.ByteArrayConverter'
SECRET_PASSWORD = 'hunter2-very-secret'
JAAS_SECRET = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="mm2" password="%s";' % SECRET_PASSWORD
PLACEHOLDER = '${file:/etc/kafka/secrets/mm2.properties:source.jaas}'
TRACE = '\n'.join([
    'org.apache.kafka.connect.errors.ConnectException: replication failed',
    '\tat org.apache.kafka.connect.mirror.MirrorSourceTask.poll(MirrorSourceTask.java:140)',
    '\tat org.apache.kafka.connect.runtime.AbstractWorkerSourceTask.poll(AbstractWorkerSourceTask.java:488)',
    '\tat DEEP_FRAME_NOT_IN_SUMMARY',
])


def base_config(**overrides: Any) -> Dict[str, Any]:
    config: Dict[str, Any] = {
        'connector.class': SOURCE_CLASS,
        'source.cluster.alias': 'source',
        'target.cluster.alias': 'target',
        'topics': '.*',
        'tasks.max': '2',
        'key.converter': BYTES,
        'value.converter': BYTES,
        'header.converter': BYTES,
    }
    config.update(overrides)
    return config


@pytest.fixture
def connector(fake, run_module):
    """Run kafka_dr.mm2.connector against the fake worker with fast polling."""
    return connector_runner(run_module, fake.url)


def succeeded(result: Dict[str, Any]) -> Dict[str, Any]:
    assert not result.get('failed'), result.get('msg')
    return result


def warning_texts(result: Dict[str, Any]) -> str:
    """Warnings as text; run outside a controller they come as structured summaries."""
    return json.dumps(result.get('warnings') or [])


def config_writes(fake):
    return [request for request in fake.writes() if request.path.endswith('/config')]


# ---- config: read, diff, write ----------------------------------------------------

def test_create_then_rerun_is_unchanged(fake, connector):
    created = succeeded(connector(name='mm2-msc', config=base_config()))
    assert created['changed'] is True
    assert created['actions'] == ['created']
    assert fake.connectors['mm2-msc'].config == dict(base_config(), name='mm2-msc')
    assert created['status']['connector']['state'] == 'RUNNING'

    fake.clear_requests()
    rerun = succeeded(connector(name='mm2-msc', config=base_config()))
    assert rerun['changed'] is False
    assert rerun['actions'] == []
    assert fake.writes() == []


def test_update_one_key_writes_whole_config_once(fake, connector):
    fake.add_connector('mm2-msc', base_config())
    result = succeeded(connector(name='mm2-msc', config=base_config(**{'tasks.max': '4'})))
    assert result['changed'] is True
    assert result['config_changes'] == {'changed': ['tasks.max'], 'added': [], 'removed': []}
    writes = config_writes(fake)
    assert len(writes) == 1
    assert writes[0].method == 'PUT'
    assert writes[0].body == dict(base_config(**{'tasks.max': '4'}), name='mm2-msc')


def test_removed_key_is_seen_and_removed(fake, connector):
    fake.add_connector('mm2-msc', base_config(**{'refresh.topics.interval.seconds': '20'}))
    result = succeeded(connector(name='mm2-msc', config=base_config()))
    assert result['changed'] is True
    assert result['config_changes']['removed'] == ['refresh.topics.interval.seconds']
    assert 'refresh.topics.interval.seconds' not in fake.connectors['mm2-msc'].config


def test_integer_and_string_values_compare_equal(fake, connector):
    fake.add_connector('mm2-msc', base_config(**{'tasks.max': '5'}))
    result = succeeded(connector(name='mm2-msc', config=base_config(**{'tasks.max': 5})))
    assert result['changed'] is False
    assert fake.writes() == []


def test_bool_values_are_sent_as_lowercase_strings(fake, connector):
    succeeded(connector(name='mm2-msc', config=base_config(**{'sync.topic.acls.enabled': False, 'emit.checkpoints.enabled': True})))
    stored = fake.connectors['mm2-msc'].config
    assert stored['sync.topic.acls.enabled'] == 'false'
    assert stored['emit.checkpoints.enabled'] == 'true'
    fake.clear_requests()
    rerun = succeeded(connector(name='mm2-msc', config=base_config(**{'sync.topic.acls.enabled': 'false', 'emit.checkpoints.enabled': 'true'})))
    assert rerun['changed'] is False
    assert fake.writes() == []


def test_check_mode_sends_no_write_and_predicts(fake, connector):
    created = succeeded(connector(check_mode=True, diff=True, name='mm2-msc', config=base_config(), state='paused'))
    assert created['changed'] is True
    assert created['actions'] == ['created', 'paused']
    assert created['diff']['before'] == {}
    assert created['diff']['after']['state'] == 'PAUSED'
    assert 'mm2-msc' not in fake.connectors

    fake.add_connector('mm2-msc', base_config())
    fake.clear_requests()
    updated = succeeded(connector(check_mode=True, diff=True, name='mm2-msc', config=base_config(**{'tasks.max': '8'})))
    assert updated['changed'] is True
    assert updated['diff']['before']['config']['tasks.max'] == '2'
    assert updated['diff']['after']['config']['tasks.max'] == '8'
    assert fake.writes() == []
    assert fake.connectors['mm2-msc'].config['tasks.max'] == '2'


def test_secrets_are_masked_everywhere_placeholders_shown(fake, connector):
    fake.add_connector('mm2-msc', base_config(**{'source.cluster.sasl.jaas.config': JAAS_SECRET}))
    desired = base_config(**{
        'source.cluster.sasl.jaas.config': PLACEHOLDER,
        'target.cluster.ssl.key.password': SECRET_PASSWORD,
    })
    result = succeeded(connector(diff=True, name='mm2-msc', config=desired))
    assert result['changed'] is True
    assert SECRET_PASSWORD not in result['_stdout']
    assert result['diff']['before']['config']['source.cluster.sasl.jaas.config'] == '********'
    assert result['diff']['after']['config']['source.cluster.sasl.jaas.config'] == PLACEHOLDER
    assert result['config']['target.cluster.ssl.key.password'] == '********'
    # The worker still got the real value.
    assert fake.connectors['mm2-msc'].config['target.cluster.ssl.key.password'] == SECRET_PASSWORD


def test_secret_not_in_failure_message(fake, connector):
    fake.inject_error(500, 'Failed to store config: bad value %s' % SECRET_PASSWORD, method='PUT', path_contains='/config')
    result = connector(name='mm2-msc', config=base_config(**{'consumer.ssl.keystore.password': SECRET_PASSWORD}), validate=False)
    assert result['failed'] is True
    assert 'HTTP 500' in result['msg']
    assert 'Failed to store config' in result['msg']
    assert SECRET_PASSWORD not in result['_stdout']


def test_server_error_reports_status_and_message(fake, connector):
    fake.inject_error(500, 'Request timed out', method='GET', path_contains='/config')
    result = connector(name='mm2-msc', config=base_config())
    assert result['failed'] is True
    assert 'HTTP 500' in result['msg'] and 'Request timed out' in result['msg']
    assert result['http_status'] == 500
    assert fake.writes() == []


# ---- absent ----------------------------------------------------------------------------

def test_absent_deletes_existing_and_ignores_missing(fake, connector):
    fake.add_connector('mm2-msc', base_config())
    checked = succeeded(connector(check_mode=True, name='mm2-msc', state='absent'))
    assert checked['changed'] is True
    assert fake.writes() == []

    deleted = succeeded(connector(diff=True, name='mm2-msc', state='absent'))
    assert deleted['changed'] is True
    assert deleted['diff']['after'] == {}
    assert deleted['diff']['before']['config']['tasks.max'] == '2'
    assert [request.method for request in fake.writes()] == ['DELETE']
    assert 'mm2-msc' not in fake.connectors

    fake.clear_requests()
    again = succeeded(connector(name='mm2-msc', state='absent'))
    assert again['changed'] is False
    assert fake.writes() == []


# ---- run states ------------------------------------------------------------------------

def test_pause_resume_stop_with_slow_transitions(fake, connector):
    fake.add_connector('mm2-msc', base_config())
    fake.transition_polls = 3

    paused = succeeded(connector(name='mm2-msc', state='paused'))
    assert paused['changed'] is True and paused['actions'] == ['paused']
    assert paused['status']['connector']['state'] == 'PAUSED'
    assert {task['state'] for task in paused['status']['tasks']} == {'PAUSED'}

    fake.clear_requests()
    assert succeeded(connector(name='mm2-msc', state='paused'))['changed'] is False
    assert fake.writes() == []

    stopped = succeeded(connector(name='mm2-msc', state='stopped'))
    assert stopped['actions'] == ['stopped']
    assert stopped['status']['connector']['state'] == 'STOPPED'
    assert stopped['status']['tasks'] == []

    resumed = succeeded(connector(name='mm2-msc', state='running'))
    assert resumed['actions'] == ['resumed']
    assert resumed['status']['connector']['state'] == 'RUNNING'
    assert [task['state'] for task in resumed['status']['tasks']] == ['RUNNING', 'RUNNING']
    assert [request.path for request in fake.writes()] == ['/connectors/mm2-msc/stop', '/connectors/mm2-msc/resume']


def test_wait_timeout_fails_with_last_status(fake, connector):
    fake.add_connector('mm2-msc', base_config())
    fake.transition_polls = 10 ** 6
    result = connector(name='mm2-msc', state='paused', wait_timeout=1)
    assert result['failed'] is True
    assert 'timed out' in result['msg'] and 'connector=RUNNING' in result['msg']


def test_restart_failed_only_then_unchanged(fake, connector):
    fake.add_connector('mm2-msc', base_config())
    fake.fail_task('mm2-msc', 1, TRACE)
    # Restarted units keep reading FAILED for two polls, like a worker that is slow to act.
    fake.transition_polls = 2
    result = succeeded(connector(name='mm2-msc', state='running', restart_failed=True))
    assert result['changed'] is True
    assert result['actions'] == ['restarted failed']
    restarts = [request for request in fake.writes() if request.path.endswith('/restart')]
    assert len(restarts) == 1
    assert restarts[0].method == 'POST'
    assert restarts[0].query == {'includeTasks': ['true'], 'onlyFailed': ['true']}
    assert [task['state'] for task in result['status']['tasks']] == ['RUNNING', 'RUNNING']

    fake.clear_requests()
    rerun = succeeded(connector(name='mm2-msc', state='running', restart_failed=True))
    assert rerun['changed'] is False
    assert fake.writes() == []


def test_failed_task_fails_the_wait_with_trace_summary(fake, connector):
    fake.add_connector('mm2-msc', base_config())
    fake.fail_task('mm2-msc', 1, TRACE)
    result = connector(name='mm2-msc', state='running')
    assert result['failed'] is True
    assert 'task 1 FAILED' in result['msg']
    assert 'replication failed' in result['msg'] and 'MirrorSourceTask.poll' in result['msg']
    assert 'DEEP_FRAME_NOT_IN_SUMMARY' not in result['msg']


def test_state_restarted_restarts_everything(fake, connector):
    fake.add_connector('mm2-msc', base_config())
    result = succeeded(connector(name='mm2-msc', state='restarted'))
    assert result['changed'] is True
    restart = [request for request in fake.writes() if request.path.endswith('/restart')]
    assert restart[0].query == {'includeTasks': ['true'], 'onlyFailed': ['false']}


def test_missing_connector_without_config_is_a_clear_error(fake, connector):
    result = connector(name='mm2-msc', state='running')
    assert result['failed'] is True
    assert 'does not exist' in result['msg']
    assert fake.writes() == []


def test_connector_name_is_url_quoted(fake, connector):
    name = 'mm2 source#1?x'
    succeeded(connector(name=name, config=base_config()))
    assert name in fake.connectors
    assert config_writes(fake)[0].path == '/connectors/%s/config' % name


# ---- REST behaviour: 409, failover -------------------------------------------------------

def test_conflict_is_retried_then_succeeds(fake, connector):
    fake.answer_conflict(3)
    result = succeeded(connector(name='mm2-msc', config=base_config()))
    assert result['changed'] is True
    assert 'mm2-msc' in fake.connectors


def test_endless_conflict_fails_clearly(fake, connector):
    fake.answer_conflict(10 ** 9)
    result = connector(name='mm2-msc', config=base_config(), retry_timeout=1)
    assert result['failed'] is True
    assert 'HTTP 409' in result['msg'] and 'rebalance' in result['msg']
    assert fake.writes() == []


def test_first_url_down_second_used(fake, connector, closed_port_url):
    result = succeeded(connector(url=[closed_port_url, fake.url], name='mm2-msc', config=base_config()))
    assert result['changed'] is True
    assert 'mm2-msc' in fake.connectors


def test_no_worker_reachable(connector, closed_port_url):
    result = connector(url=closed_port_url, name='mm2-msc', config=base_config())
    assert result['failed'] is True
    assert 'no Kafka Connect worker reachable' in result['msg']


# ---- validation and input checks ---------------------------------------------------------

def test_validation_errors_name_fields_and_write_nothing(fake, connector):
    fake.validation_errors = {
        'tasks.max': ['Invalid value -1 for configuration tasks.max: Value must be at least 1'],
        'source.cluster.alias': ['Missing required configuration "source.cluster.alias" which has no default value.'],
    }
    result = connector(name='mm2-msc', config=base_config(**{'tasks.max': -1}))
    assert result['failed'] is True
    assert 'tasks.max' in result['msg'] and 'source.cluster.alias' in result['msg']
    assert 'Value must be at least 1' in result['msg']
    assert set(result['validation_errors']) == {'tasks.max', 'source.cluster.alias'}
    assert fake.writes() == []
    assert any(request.path.endswith('/config/validate') for request in fake.requests)


def test_envelope_name_must_match(fake, connector):
    document = json.dumps({'name': 'other', 'config': base_config()})
    result = connector(name='mm2-msc', config=document)
    assert result['failed'] is True
    assert '"other"' in result['msg']
    assert fake.requests == []


def test_both_removed_and_current_key_fail(fake, connector):
    config = base_config(**{'topics.blacklist': 'a', 'topics.exclude': 'b'})
    result = connector(name='mm2-msc', config=config)
    assert result['failed'] is True
    assert 'topics.blacklist' in result['msg'] and 'topics.exclude' in result['msg']
    assert fake.requests == []


@pytest.mark.parametrize('version', ['4.1.0', '8.0.0-ccs'])
def test_blacklist_keys_mapped_on_kafka_4(fake, connector, version):
    fake.version = version
    config = base_config(**{'topics.blacklist': '.*\\.internal', 'groups.blacklist': 'connect-.*'})
    result = succeeded(connector(name='mm2-msc', config=config))
    sent = config_writes(fake)[0].body
    assert sent['topics.exclude'] == '.*\\.internal' and sent['groups.exclude'] == 'connect-.*'
    assert 'topics.blacklist' not in sent and 'groups.blacklist' not in sent
    assert 'topics.blacklist was removed in Kafka 4.0' in warning_texts(result)

    fake.clear_requests()
    assert succeeded(connector(name='mm2-msc', config=config))['changed'] is False
    assert fake.writes() == []


@pytest.mark.parametrize('version', ['3.9.1', '7.9.0-ccs'])
def test_blacklist_keys_passed_through_on_kafka_3(fake, connector, version):
    fake.version = version
    config = base_config(**{'topics.blacklist': '.*\\.internal'})
    result = succeeded(connector(name='mm2-msc', config=config))
    assert config_writes(fake)[0].body['topics.blacklist'] == '.*\\.internal'
    assert 'blacklist' not in warning_texts(result)


@pytest.mark.parametrize('version', ['2.4.1', '2.7.2'])
def test_exclude_keys_sent_as_blacklist_before_kafka_2_8(fake, connector, version):
    fake.version = version
    config = base_config(**{'topics.exclude': '.*\\.internal', 'config.properties.exclude': 'retention\\..*'})
    result = succeeded(connector(name='mm2-msc', config=config))
    sent = config_writes(fake)[0].body
    assert sent['topics.blacklist'] == '.*\\.internal' and sent['config.properties.blacklist'] == 'retention\\..*'
    assert 'topics.exclude' not in sent and 'config.properties.exclude' not in sent
    assert 'config.properties.exclude arrived in Kafka 2.8' in warning_texts(result)

    fake.clear_requests()
    assert succeeded(connector(name='mm2-msc', config=config))['changed'] is False
    assert fake.writes() == []


# ---- the user's reference document -------------------------------------------------------

@pytest.mark.parametrize('version', ['3.9.0', '4.1.0'])
def test_seed_document_deploys_and_rerun_is_unchanged(fake, connector, seed_msc_document, version):
    fake.version = version
    created = succeeded(connector(name='mm2-msc', config=seed_msc_document, state='running'))
    assert created['changed'] is True
    sent = config_writes(fake)[0].body
    assert sent['key.converter'] == BYTES  # the seed's leading space is trimmed, as Connect does
    assert ('topics.exclude' in sent) is version.startswith('4')
    assert '{ source_kafka_password }' not in created['_stdout']
    assert created['config']['source.cluster.sasl.jaas.config'] == '********'

    fake.clear_requests()
    rerun = succeeded(connector(name='mm2-msc', config=seed_msc_document, state='running'))
    assert rerun['changed'] is False
    assert fake.writes() == []


def test_seed_created_by_curl_is_not_rewritten(fake, connector, seed_msc_document):
    # The same JSON posted by hand keeps its leading space in the stored config.
    fake.add_connector('mm2-msc', json.loads(seed_msc_document)['config'])
    assert fake.connectors['mm2-msc'].config['key.converter'].startswith(' ')
    result = succeeded(connector(name='mm2-msc', config=seed_msc_document))
    assert result['changed'] is False
    assert fake.writes() == []


# ---- workers of every version: degrade or refuse ------------------------------------------

@pytest.fixture
def old_connector(versioned, run_module):
    """Run kafka_dr.mm2.connector against the fake that answers like the version it reports."""
    return connector_runner(run_module, versioned.url)


def degraded_features(result: Dict[str, Any]) -> list:
    return [entry['feature'] for entry in result['degraded']]


@pytest.mark.parametrize('version', VERSIONS)
def test_stopped_pauses_before_35_and_says_so(versioned, old_connector, version):
    versioned.version = version
    versioned.add_connector('mm2-msc', base_config())
    checked = succeeded(old_connector(check_mode=True, diff=True, name='mm2-msc', state='stopped'))
    assert versioned.writes() == []
    result = succeeded(old_connector(diff=True, name='mm2-msc', state='stopped'))
    assert checked['degraded'] == result['degraded']
    if at_least(version, (3, 5)):
        assert result['actions'] == checked['actions'] == ['stopped']
        assert result['degraded'] == []
        assert result['status']['connector']['state'] == checked['diff']['after']['state'] == 'STOPPED'
        assert request_paths(versioned, 'PUT') == ['/connectors/mm2-msc/stop']
    else:
        assert result['actions'] == checked['actions'] == ['paused']
        assert result['degraded'] == [{'feature': 'stop', 'worker_version': version, 'instead': result['degraded'][0]['instead']}]
        assert 'tasks assigned' in result['degraded'][0]['instead']
        assert 'paused instead' in warning_texts(result) and version in warning_texts(result)
        assert result['status']['connector']['state'] == checked['diff']['after']['state'] == 'PAUSED'
        assert {task['state'] for task in result['status']['tasks']} == {'PAUSED'}
        assert request_paths(versioned, 'PUT') == ['/connectors/mm2-msc/pause']
    assert ('not an Apache Kafka version' in warning_texts(result)) is (version == UNPARSEABLE)
    assert request_paths(versioned).count('/') == 2  # GET / once per run


def test_stopped_rerun_on_old_worker_changes_nothing(versioned, old_connector):
    versioned.version = '2.4.1'
    versioned.add_connector('mm2-msc', base_config(), state='PAUSED')
    result = succeeded(old_connector(name='mm2-msc', state='stopped'))
    assert result['changed'] is False and result['actions'] == []
    assert degraded_features(result) == ['stop']
    assert versioned.writes() == []


@pytest.mark.parametrize('version', VERSIONS)
def test_restart_failed_one_by_one_before_30(versioned, old_connector, version):
    versioned.version = version
    versioned.add_connector('mm2-msc', base_config(**{'tasks.max': '3'}))
    versioned.fail_task('mm2-msc', 1, TRACE)
    result = succeeded(old_connector(name='mm2-msc', state='running', restart_failed=True))
    assert result['actions'] == ['restarted failed']
    assert [task['state'] for task in result['status']['tasks']] == ['RUNNING'] * 3
    restarts = [request for request in versioned.writes() if request.path.endswith('/restart')]
    if at_least(version, (3, 0)):
        assert result['degraded'] == []
        assert [(r.path, r.query) for r in restarts] == [('/connectors/mm2-msc/restart', {'includeTasks': ['true'], 'onlyFailed': ['true']})]
    else:
        assert degraded_features(result) == ['restart_include_tasks']
        assert [r.path for r in restarts] == ['/connectors/mm2-msc/tasks/1/restart']
        assert 'restart_include_tasks' not in warning_texts(result) and 'tasks/ID/restart' in warning_texts(result)


@pytest.mark.parametrize('version', ['2.4.1', '2.8.2', '3.0.2'])
def test_state_restarted_restarts_each_unit_before_30(versioned, old_connector, version):
    versioned.version = version
    versioned.add_connector('mm2-msc', base_config())
    checked = succeeded(old_connector(check_mode=True, name='mm2-msc', state='restarted'))
    assert versioned.writes() == []
    result = succeeded(old_connector(name='mm2-msc', state='restarted'))
    assert checked['degraded'] == result['degraded'] and checked['actions'] == result['actions'] == ['restarted']
    paths = [request.path for request in versioned.writes()]
    if version == '3.0.2':
        assert paths == ['/connectors/mm2-msc/restart'] and result['degraded'] == []
    else:
        assert paths == ['/connectors/mm2-msc/restart', '/connectors/mm2-msc/tasks/0/restart', '/connectors/mm2-msc/tasks/1/restart']
        assert degraded_features(result) == ['restart_include_tasks']


def test_failed_connector_restarted_before_its_failed_tasks_on_old_worker(versioned, old_connector):
    versioned.version = '2.8.2'
    versioned.add_connector('mm2-msc', base_config())
    versioned.fail_connector('mm2-msc', TRACE)
    versioned.fail_task('mm2-msc', 0, TRACE)
    result = succeeded(old_connector(name='mm2-msc', state='running', restart_failed=True))
    assert [request.path for request in versioned.writes()] == ['/connectors/mm2-msc/restart', '/connectors/mm2-msc/tasks/0/restart']
    assert result['status']['connector']['state'] == 'RUNNING'


@pytest.mark.parametrize('version', VERSIONS)
def test_exactly_once_required_refused_before_33(versioned, old_connector, version):
    versioned.version = version
    config = base_config(**{'exactly.once.support': 'required'})
    checked = old_connector(check_mode=True, name='mm2-msc', config=config)
    result = old_connector(name='mm2-msc', config=config)
    if at_least(version, (3, 3)):
        assert succeeded(result)['actions'] == ['created'] and not checked.get('failed')
        assert versioned.connectors['mm2-msc'].config['exactly.once.support'] == 'required'
        return
    for refused in (checked, result):
        assert refused['failed'] is True
        assert 'exactly.once.support=required' in refused['msg']
        assert 'needs Kafka Connect 3.3' in refused['msg'] and 'the worker runs %s' % version in refused['msg']
    assert versioned.writes() == []
    assert not [path for path in request_paths(versioned) if path.endswith('/validate') or path.endswith('/config')]


def test_exactly_once_requested_passes_on_old_worker(versioned, old_connector):
    versioned.version = '2.8.2'
    succeeded(old_connector(name='mm2-msc', config=base_config(**{'exactly.once.support': 'requested'})))
    assert 'mm2-msc' in versioned.connectors


@pytest.mark.parametrize('version', VERSIONS)
def test_mirror_plugin_missing_is_refused_with_the_version(versioned, old_connector, version):
    versioned.version = version
    versioned.mirror_installed = False
    for check_mode in (True, False):
        result = old_connector(check_mode=check_mode, name='mm2-msc', config=base_config())
        assert result['failed'] is True
        assert 'connector class %s is not installed on the worker (Kafka Connect %s)' % (SOURCE_CLASS, version) in result['msg']
        assert 'connect-mirror' in result['msg']
    assert versioned.writes() == []
    assert not [path for path in request_paths(versioned) if path.endswith('/validate')]


def test_mirror_connector_refused_below_24_without_asking_for_plugins(versioned, old_connector):
    versioned.version = '2.3.1'
    result = old_connector(name='mm2-msc', config=base_config())
    assert result['failed'] is True
    assert 'needs Kafka Connect 2.4 or later' in result['msg'] and 'the worker runs 2.3.1' in result['msg']
    assert request_paths(versioned) == ['/', '/connectors/mm2-msc/config']


def test_mirror_plugin_by_alias_on_emr_version(versioned, old_connector):
    versioned.version = '2.4.1'
    result = succeeded(old_connector(name='mm2-msc', config=base_config(**{'connector.class': 'MirrorSource'})))
    assert result['actions'] == ['created'] and result['degraded'] == []


@pytest.mark.parametrize('version', ['2.8.2', '3.9.1', '4.3.1'])
def test_a_refused_client_override_names_the_policy_to_set(versioned, old_connector, version):
    """Before 3.0 a worker refuses every *.override.* by default; the failure says what to set."""
    versioned.version = version
    refused = "The 'None' policy does not allow 'bootstrap.servers' to be overridden in the connector configuration."
    versioned.validation_errors = {'producer.override.bootstrap.servers': [refused]}
    result = old_connector(name='mm2-msc', config=base_config(**{'producer.override.bootstrap.servers': 'dst:9092'}))
    assert result['failed'] is True
    assert refused in result['msg']
    assert 'list the settings in connector.client.config.override.allowlist' in result['msg']
    assert 'set connector.client.config.override.policy=All on older workers' in result['msg']
    assert ('defaults connector.client.config.override.policy to None before 3.0' in result['msg']) is (version == '2.8.2')
    assert versioned.writes() == []
