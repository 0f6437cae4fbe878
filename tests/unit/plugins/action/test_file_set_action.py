# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The action plugin kafka_dr.mm2.file_set in process: what reaches the module, and what leaves it."""

from __future__ import annotations

import base64
import copy
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, List

from ansible.parsing.dataloader import DataLoader
from ansible.playbook.play_context import PlayContext
from ansible.playbook.task import Task
from ansible.template import Templar

from ansible_collections.kafka_dr.mm2.plugins.action import file_set as action_plugin


class RecordingAction(action_plugin.ActionModule):
    """Stands in for the host: records the module call and answers like the module would."""

    calls: List[Dict[str, Any]]

    def _execute_module(self, module_name=None, module_args=None, task_vars=None, **kwargs):  # noqa: D401
        self.calls.append({'module': module_name, 'args': module_args})
        return {'changed': True, 'changed_paths': [f['dest'] for f in module_args['files']],
                'diff': [{'before': 'a', 'after': 'b'}], 'invocation': {'module_args': module_args}}


def run(args: Dict[str, Any], diff: bool = False) -> tuple[Dict[str, Any], List[Dict[str, Any]]]:
    task = Task()
    task.args = copy.deepcopy(args)
    task.diff = diff
    loader = DataLoader()
    connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir=None))
    action = RecordingAction(task, connection, PlayContext(), loader, Templar(loader=loader))
    action.calls = []
    return action.run(task_vars={}), action.calls


def test_content_and_src_reach_the_module_as_base64_in_one_call(tmp_path: Path) -> None:
    binary = tmp_path / 'keystore.p12'
    binary.write_bytes(b'\x30\x82\x00\xff')
    result, calls = run({
        'directories': [{'path': '/etc/kafka', 'owner': 'root', 'group': 'kafka', 'mode': '0750'}],
        'files': [
            {'dest': '/etc/kafka/server.properties', 'content': 'a=1\n', 'owner': 'root', 'group': 'kafka', 'mode': '0640'},
            {'dest': '/etc/kafka/keystore.p12', 'src': str(binary), 'mode': '0600', 'secret': True},
        ],
    })
    assert len(calls) == 1 and calls[0]['module'] == 'kafka_dr.mm2.file_set'
    sent = calls[0]['args']
    assert sent['directories'] == [{'path': '/etc/kafka', 'owner': 'root', 'group': 'kafka', 'mode': '0750'}]
    assert [base64.b64decode(f['content_base64']) for f in sent['files']] == [b'a=1\n', b'\x30\x82\x00\xff']
    assert sent['files'][1]['secret'] is True and 'src' not in sent['files'][1] and 'content' not in sent['files'][0]
    assert result['changed'] is True


def test_the_invocation_never_leaves_the_plugin_and_diff_only_when_asked() -> None:
    args = {'files': [{'dest': '/etc/jaas.conf', 'content': 'password="not-for-logs"', 'mode': '0600', 'secret': True}]}
    result = run(args)[0]
    assert 'invocation' not in result and 'diff' not in result
    assert 'not-for-logs' not in repr(result)
    with_diff = run(args, diff=True)[0]
    assert with_diff['diff'] == [{'before': 'a', 'after': 'b'}]


def test_flags_rendered_as_text_are_read_as_booleans() -> None:
    calls = run({'files': [{'dest': '/etc/a', 'content': 'x', 'mode': '0644', 'secret': 'False'},
                           {'dest': '/etc/b', 'content': 'y', 'mode': '0600', 'secret': 'True'}]})[1]
    assert [f['secret'] for f in calls[0]['args']['files']] == [False, True]


def test_disabled_entries_are_left_out() -> None:
    calls = run({
        'directories': [{'path': '/etc/a', 'mode': '0750', 'enabled': False}],
        'files': [{'dest': '/etc/krb5.conf', 'src': '', 'mode': '0644', 'enabled': 'false'},
                  {'dest': '/etc/b', 'content': '', 'mode': '0644', 'enabled': True}],
    })[1]
    assert calls[0]['args']['directories'] == [] and [f['dest'] for f in calls[0]['args']['files']] == ['/etc/b']


def test_bad_arguments_fail_before_the_host_is_contacted() -> None:
    cases = [
        ({'files': [{'dest': '/etc/a', 'mode': '0644'}]}, 'give exactly one of content and src'),
        ({'files': [{'dest': '/etc/a', 'content': 'x', 'src': '/tmp/x', 'mode': '0644'}]}, 'give exactly one of content and src'),
        ({'files': [{'dest': '/etc/a', 'content': 'x'}]}, 'mode required'),
        ({'files': [{'dest': '/etc/a', 'content': 'x', 'mode': '0644', 'backup': True}]}, 'unknown keys backup'),
        ({'files': 'not a list'}, 'files must be a list of dicts'),
        ({'files': [{'dest': '/etc/a', 'content': {'a': 1}, 'mode': '0644'}]}, 'content must be text'),
        ({'files': [{'dest': '/etc/a', 'content': 'x', 'mode': '0644', 'enabled': False, 'ownr': 'root'}]}, 'unknown keys ownr'),
    ]
    for args, message in cases:
        result, calls = run(args)
        assert result.get('failed') is True and message in result['msg'], (args, result)
        assert calls == []


def test_a_missing_src_fails_with_its_name() -> None:
    result, calls = run({'files': [{'dest': '/etc/a', 'src': '/nonexistent/kafka-dr/keytab', 'mode': '0600'}]})
    assert result.get('failed') is True and 'keytab' in result['msg'] and calls == []


def test_prune_patterns_and_missing_directories_reach_the_module() -> None:
    calls = run({
        'directories': [{'path': '/etc/mm2/clients', 'mode': '0750', 'prune': '*.properties'},
                        {'path': '/etc/mm2', 'mode': '0750'}],
        'files': [{'dest': '/etc/mm2/clients/src.properties', 'content': 'a=1\n', 'mode': '0640'}],
        'missing_directories': 'skip',
    })[1]
    sent = calls[0]['args']
    assert [d.get('prune') for d in sent['directories']] == ['*.properties', None]
    assert sent['missing_directories'] == 'skip'
    assert run({'files': []})[1][0]['args']['missing_directories'] == 'fail'


def test_a_validate_command_reaches_the_module_and_needs_the_path() -> None:
    calls = run({'files': [{'dest': '/etc/p.yml', 'content': 'x', 'mode': '0644', 'validate': 'promtool check config %s'},
                           {'dest': '/etc/q.yml', 'content': 'y', 'mode': '0644'}]})[1]
    assert calls[0]['args']['files'][0]['validate'] == 'promtool check config %s'
    assert 'validate' not in calls[0]['args']['files'][1]
    result, calls = run({'files': [{'dest': '/etc/p.yml', 'content': 'x', 'mode': '0644', 'validate': 'promtool check config'}]})
    assert result.get('failed') is True and 'validate must hold %s' in result['msg'] and calls == []
