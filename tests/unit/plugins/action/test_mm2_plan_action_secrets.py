# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The action plugin kafka_dr.mm2.mm2_plan with the workers' config providers and the inline secrets opt-in."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict

import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.playbook.play_context import PlayContext
from ansible.playbook.task import Task
from ansible.template import Templar

from ansible_collections.kafka_dr.mm2.plugins.action import mm2_plan as action_plugin

ROLE_DEFAULTS = yaml.safe_load(
    (Path(__file__).resolve().parents[4] / 'roles' / 'mirrormaker' / 'defaults' / 'main.yml').read_text())
PASSWORD = 'action-secret-pw-3'
CLUSTERS = {
    'src': {'bootstrap_servers': 'src-kafka-1:9094', 'security_protocol': 'SASL_PLAINTEXT', 'sasl_mechanism': 'SCRAM-SHA-512',
            'sasl_username': 'mm2', 'sasl_password_file': 'mm2.properties'},
    'dst': {'bootstrap_servers': ['dst-kafka-1:9092']},
}
TASK_VARS = {'inventory_hostname': 'task-1-1', 'groups': {'all': ['task-1-1']}}


def run(**parts: Any) -> Dict[str, Any]:
    task = Task()
    task.args = copy.deepcopy(dict({'clusters': CLUSTERS, 'flows': [{'source': 'src', 'target': 'dst'}],
                                    'builtin_defaults': ROLE_DEFAULTS['mirrormaker_flow_builtin_defaults'],
                                    'secret_file_names': ['mm2.properties']}, **parts))
    loader = DataLoader()
    connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir=None))
    action = action_plugin.ActionModule(task, connection, PlayContext(), loader, Templar(loader=loader))
    return action.run(task_vars=TASK_VARS)


def test_without_a_provider_the_task_fails_before_anything_changes() -> None:
    result = run(config_providers=[])
    assert result['failed'] is True
    assert result['msg'].startswith('the MirrorMaker 2 model is invalid; nothing was changed (1 problem):')
    assert 'cluster src (sasl.jaas.config)' in result['msg'] and 'mirrormaker_inline_secrets: true' in result['msg']
    assert not result.get('_ansible_no_log')


def test_inline_secrets_hide_the_task_output_but_keep_the_warning() -> None:
    result = run(config_providers=[], inline_secrets=True, secret_values={'mm2.properties': {'sasl.password': PASSWORD}})
    assert not result.get('failed')
    assert result['_ansible_no_log'] is True
    assert any('in clear in its config topic' in str(warning) for warning in result['warnings'])
    assert PASSWORD in json.dumps(result['inline_configs'])
    assert PASSWORD not in json.dumps({key: value for key, value in result.items() if key != 'inline_configs'})


def test_secret_values_are_left_alone_without_the_opt_in() -> None:
    result = run(secret_values={'mm2.properties': {'sasl.password': PASSWORD}})
    assert not result.get('failed') and not result.get('_ansible_no_log')
    assert result['inline_configs'] == {} and PASSWORD not in json.dumps(result)
