# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Module kafka_dr.mm2.file_set as Ansible runs it: arguments in, JSON out."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any


def test_the_module_writes_what_the_action_plugin_hands_over(run_module: Any, tmp_path: Path) -> None:
    target = tmp_path / 'conf'
    args = {'directories': [{'path': str(target), 'mode': '0750'}],
            'files': [{'dest': str(target / 'a.properties'), 'content_base64': base64.b64encode(b'a=1\n').decode(), 'mode': '0640'},
                      {'dest': str(target / 'jaas.conf'), 'content': 'password="module-secret"\n', 'mode': '0600', 'secret': True},
                      {'dest': str(target / 'unused'), 'content': '', 'mode': '0600', 'enabled': False}]}
    preview = run_module('file_set', check_mode=True, diff=True, **args)
    assert preview['changed'] is True and not target.exists()
    # The invocation echoes the arguments; the action plugin drops it. Nothing else may hold the secret.
    shown = {key: value for key, value in preview.items() if key not in ('invocation', '_stdout')}
    assert 'module-secret' not in repr(shown) and preview['diff'][2]['after'] == '(secret, changed)\n'

    first = run_module('file_set', diff=True, **args)
    assert first['changed'] is True and (target / 'a.properties').read_bytes() == b'a=1\n'
    assert not (target / 'unused').exists()
    assert run_module('file_set', **args)['changed'] is False


def test_src_without_the_action_plugin_is_refused(run_module: Any, tmp_path: Path) -> None:
    result = run_module('file_set', files=[{'dest': str(tmp_path / 'a'), 'src': '/etc/hostname', 'mode': '0644'}])
    assert result['failed'] is True and 'action plugin' in result['msg'] and not (tmp_path / 'a').exists()


def test_a_changed_file_is_installed_only_when_its_validate_command_passes(run_module: Any, tmp_path: Path) -> None:
    rules = tmp_path / 'rules.yml'
    rules.write_text('groups: []\n')
    checked = {'dest': str(rules), 'mode': '0644', 'validate': 'grep -q "^groups:" %s'}
    other = {'dest': str(tmp_path / 'other.yml'), 'content': 'x: 1\n', 'mode': '0644'}

    refused = run_module('file_set', files=[other, {**checked, 'content': 'not rules\n'}])
    assert refused['failed'] is True and 'rejected by `grep -q "^groups:" %s`: exit code 1' in refused['msg']
    assert refused['msg'].endswith('Nothing was changed.')
    assert rules.read_text() == 'groups: []\n' and not (tmp_path / 'other.yml').exists()
    assert run_module('file_set', check_mode=True, files=[{**checked, 'content': 'not rules\n'}])['failed'] is True

    passed = run_module('file_set', files=[other, {**checked, 'content': 'groups: [a]\n'}])
    assert passed['changed'] is True and rules.read_text() == 'groups: [a]\n'
    # Unchanged content is not checked again: a command that always fails changes nothing now.
    again = run_module('file_set', files=[{**checked, 'content': 'groups: [a]\n', 'validate': 'false %s'}])
    assert again['changed'] is False and 'failed' not in again
    assert not [path for path in tmp_path.iterdir() if path.name.startswith('.')]


def test_a_validate_command_without_the_path_is_refused(run_module: Any, tmp_path: Path) -> None:
    result = run_module('file_set', files=[{'dest': str(tmp_path / 'a'), 'content': 'a', 'mode': '0644', 'validate': 'true'}])
    assert result['failed'] is True and 'validate must hold %s' in result['msg'] and not (tmp_path / 'a').exists()
