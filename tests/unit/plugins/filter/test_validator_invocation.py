"""validator_invocation gives the replication check's job the command line the role's Jinja gave it.

fixtures/replication_check_job_jinja.yml holds that Jinja as it was; each case renders it with
Ansible's templar and compares with the filter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.validator_invocation import validator_invocation

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'replication_check_job_jinja.yml'

BASE: Dict[str, Any] = {
    'home': '/opt/kafka-dr/replication-check', 'mode': 'local', 'spark_submit': 'spark-submit', 'master': 'local[2]',
    'driver_memory': '512m', 'jars': ['/opt/kafka-dr/replication-check/jars/a.jar', '/opt/kafka-dr/replication-check/jars/b.jar'],
    'source_alias': 'src', 'target_alias': 'dst', 'source_bootstrap': 'src-kafka-1:9094', 'target_bootstrap': 'dst-kafka-1:9094',
    'replication_policy': 'default', 'separator': '.', 'catchup_timeout': 300,
    'topics': [], 'topics_regex': '^(?!.*\\.internal$)orders.*$', 'groups': [],
    'checkpoints_topic': 'src.checkpoints.internal', 'offset_syncs_topic': 'mm2-offset-syncs.src.internal',
    'offset_syncs_bootstrap': '', 'heartbeats_topic': 'heartbeats', 'delivery': 'at-least-once',
    'max_duplicates': '', 'max_duplicate_ratio': 0.1, 'from_timestamp': '', 'from_offsets': {},
    'spark_conf': {}, 'spark_conf_dir': '', 'environment': {}, 'extra_args': [],
}

CASES = {
    'lab defaults': {},
    'submit with spark settings': {'mode': 'submit', 'spark_submit': '/usr/bin/spark-submit', 'master': 'yarn',
                                   'spark_conf': {'spark.executor.memory': '2g', 'spark.dynamicAllocation.enabled': True,
                                                  'spark.executor.instances': 4},
                                   'spark_conf_dir': '/etc/spark/conf', 'environment': {'HADOOP_CONF_DIR': '/etc/hadoop'}},
    'topics and groups by name': {'topics': ['orders', 'payments'], 'topics_regex': '', 'groups': ['billing', 'audit'],
                                  'offset_syncs_bootstrap': 'dst-kafka-1:9094', 'extra_args': ['--verbose']},
    'bootstrap from the client settings': {'source_bootstrap': '', 'target_bootstrap': '', 'checkpoints_topic': '',
                                           'offset_syncs_topic': '', 'heartbeats_topic': ''},
    'exactly once, no ratio, zero duplicates': {'delivery': 'exactly-once', 'max_duplicates': 0, 'max_duplicate_ratio': ''},
    'limits unset as None': {'max_duplicates': None, 'max_duplicate_ratio': None, 'from_timestamp': None},
    'limits as strings': {'max_duplicates': '500', 'max_duplicate_ratio': '0.25', 'catchup_timeout': '120'},
    'window from a time': {'from_timestamp': '2024-05-01T10:00:00Z'},
    'window from offsets': {'from_offsets': {'orders': {0: 1200, 1: 900}, 'payments': {'3': 7}}},
    'window from offsets as a string': {'from_offsets': 'orders:0=5'},
    'window from offsets left None': {'from_offsets': None},
    'environment overrides the defaults': {'environment': {'PYTHONDONTWRITEBYTECODE': '0', 'TZ': 'UTC'}},
}


def jinja_invocation(settings: Dict[str, Any]) -> Dict[str, Any]:
    """What the role's former Jinja rendered for these settings."""
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    variables: Dict[str, Any] = {name: trust_as_template(text) for name, text in old.items()}
    variables.update({'replication_check_' + name: value for name, value in settings.items() if name != 'jars'})
    variables['__replication_check_node_jars'] = settings['jars']
    templar = Templar(loader=DataLoader(), variables=variables)
    return {
        'launcher': templar.template(trust_as_template('{{ replication_check_launcher }}')),
        'args': templar.template(trust_as_template('{{ replication_check_job_args }}')),
        'environment': templar.template(trust_as_template('{{ __replication_check_environment }}')),
    }


@pytest.mark.parametrize('changes', CASES.values(), ids=list(CASES))
def test_same_command_line_as_the_former_jinja(changes: Dict[str, Any]) -> None:
    settings = dict(BASE, **changes)
    assert validator_invocation(settings) == jinja_invocation(settings)


def test_local_mode_runs_the_venv_python() -> None:
    result = validator_invocation(BASE)
    assert result['launcher'][:3] == ['/opt/kafka-dr/replication-check/venv/bin/python', '-m', 'mm2_validator']
    assert result['launcher'][-2:] == ['--spark-conf', 'spark.driver.memory=512m']
    assert result['args'][result['args'].index('--topics-regex') + 1] == BASE['topics_regex']


def test_offsets_and_spark_settings_reach_the_job() -> None:
    args = validator_invocation(dict(BASE, from_offsets={'orders': {0: 12}}, spark_conf={'spark.sql.shuffle.partitions': 4}))['args']
    assert args[args.index('--from-offsets') + 1] == 'orders:0=12'
    assert '--spark-conf=spark.sql.shuffle.partitions=4' in args


def test_incremental_mode_reaches_the_job() -> None:
    args = validator_invocation(dict(BASE, incremental='True', state='/var/lib/kafka-dr/validator/src-dst.json',
                                     reset_state=False))['args']
    assert args[args.index('--incremental') + 1:args.index('--incremental') + 3] == ['--state', '/var/lib/kafka-dr/validator/src-dst.json']
    assert '--reset-state' not in args
    assert '--incremental' not in validator_invocation(dict(BASE, incremental=False, state='x.json'))['args']


def test_the_raw_key_preview_is_asked_for_only_when_set() -> None:
    assert '--raw-key-preview' not in validator_invocation(BASE)['args']
    assert '--raw-key-preview' not in validator_invocation(dict(BASE, raw_key_preview=False))['args']
    for value in (True, 'True'):
        assert '--raw-key-preview' in validator_invocation(dict(BASE, raw_key_preview=value))['args']


@pytest.mark.parametrize('changes, message', [
    ({'incremental': True, 'state': ''}, 'incremental needs state'),
    ({'mode': 'yarn'}, 'mode must be one of local, submit'),
    ({'from_offsets': ['orders:0=1']}, 'from_offsets must be'),
    ({'spark_conf': ['a=b']}, 'spark_conf must be a mapping'),
    ({'extra_args': '--verbose'}, 'extra_args must be a list'),
])
def test_malformed_settings_are_refused(changes: Dict[str, Any], message: str) -> None:
    with pytest.raises(AnsibleFilterError, match=message):
        validator_invocation(dict(BASE, **changes))


def test_missing_settings_are_named() -> None:
    settings = dict(BASE)
    del settings['delivery']
    with pytest.raises(AnsibleFilterError, match='lack delivery'):
        validator_invocation(settings)
