# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The action plugin kafka_dr.mm2.tls_staged, run in process with a real Task, as role kafka_tls calls it."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict

import pytest
from ansible.errors import AnsibleActionFail
from ansible.parsing.dataloader import DataLoader
from ansible.playbook.play_context import PlayContext
from ansible.playbook.task import Task
from ansible.template import Templar

from ansible_collections.kafka_dr.mm2.plugins.action import tls_staged as action_plugin
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils import tls_staged

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'plugin_utils'))
from test_tls_staged import PASSWORD, build_material, params  # noqa: E402  pylint: disable=wrong-import-position


def run(args: Dict[str, Any], check_mode: bool = False) -> Dict[str, Any]:
    task = Task()
    task.args = copy.deepcopy(args)
    task.check_mode = check_mode
    loader = DataLoader()
    connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir=None))
    action = action_plugin.ActionModule(task, connection, PlayContext(), loader, Templar(loader=loader))
    return action.run(task_vars={'inventory_hostname': 'src-kafka-1'})


def test_record_then_check_reports_current_and_changes_nothing(tmp_path: Path) -> None:
    ca_dir = tmp_path / 'tls'
    stage_dir = build_material(ca_dir)
    first = run(params(ca_dir, stage_dir))
    assert (first['changed'], first['current'], first['reason']) == (False, False, 'no manifest of an earlier build')
    recorded = run(params(ca_dir, stage_dir, state='record'))
    assert recorded['changed'] is False and 'host/cert.pem' in recorded['manifest']['files']
    assert PASSWORD not in repr(recorded)
    again = run(params(ca_dir, stage_dir))
    assert (again['changed'], again['current']) == (False, True)


def test_check_mode_records_nothing(tmp_path: Path) -> None:
    ca_dir = tmp_path / 'tls'
    stage_dir = build_material(ca_dir)
    result = run(params(ca_dir, stage_dir, state='record'), check_mode=True)
    assert not (stage_dir / tls_staged.MANIFEST_NAME).exists() and 'manifest' not in result


def test_material_missing_at_record_time_fails_with_the_directory(tmp_path: Path) -> None:
    ca_dir = tmp_path / 'tls'
    stage_dir = build_material(ca_dir)
    (stage_dir / 'cert.pem').unlink()
    with pytest.raises(AnsibleActionFail, match='cannot record the manifest of .*src-kafka-1'):
        run(params(ca_dir, stage_dir, state='record'))


def test_a_wrong_choice_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    with pytest.raises(AnsibleActionFail, match='ca_roll'):
        run(params(tmp_path, tmp_path / 'nowhere', ca_roll='sometimes'))
