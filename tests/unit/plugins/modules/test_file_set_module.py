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
