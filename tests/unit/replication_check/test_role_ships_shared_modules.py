# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The replication_check role ships the collection's rule modules into the validator package
(mm2_validator/_shared), and the package imports them from there, zipped for spark-submit too."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
ROLE = REPO_ROOT / 'roles' / 'replication_check'
MODULE_UTILS = REPO_ROOT / 'plugins' / 'module_utils'
PACKAGE = ROLE / 'files' / 'mm2_validator'
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'
HOME = '/opt/mm2-validator'


def shared_modules() -> List[str]:
    """SHARED_MODULES of mm2_validator/shared.py, read without importing the package."""
    tree = ast.parse((PACKAGE / 'shared.py').read_text(encoding='utf-8'))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, 'id', '') == 'SHARED_MODULES' for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise AssertionError('shared.py has no SHARED_MODULES')


def ship_task() -> Dict[str, Any]:
    tasks = yaml.safe_load((ROLE / 'tasks' / 'ship.yml').read_text(encoding='utf-8'))
    return next(task for task in tasks if 'kafka_dr.mm2.file_set' in task)


def test_the_ship_task_lays_down_every_module_the_package_imports() -> None:
    task = ship_task()
    assert task['vars']['__replication_check_shared_modules'] == shared_modules()
    assert '__replication_check_shared_files' in task['kafka_dr.mm2.file_set']['files']
    assert '__replication_check_shared_directory' in task['kafka_dr.mm2.file_set']['directories']


@pytest.mark.parametrize('module', shared_modules())
def test_shipped_modules_stand_alone(module: str) -> None:
    """Shipped without the rest of the collection: standard library imports only."""
    tree = ast.parse((MODULE_UTILS / ('%s.py' % module)).read_text(encoding='utf-8'))
    imported = {alias.name.split('.')[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split('.')[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= set(sys.stdlib_module_names) | {'__future__'}, imported


def rendered_ship_list(tmp_path: Path) -> List[Dict[str, Any]]:
    """The task's shared file entries as ansible-playbook renders them for this role."""
    output = tmp_path / 'shared.json'
    play = [{
        'name': 'Render the ship list', 'hosts': 'localhost', 'connection': 'local', 'gather_facts': False,
        'vars': dict(ship_task()['vars'], role_path=str(ROLE), replication_check_home=HOME,
                     ansible_python_interpreter=sys.executable),
        'tasks': [{'name': 'Write it', 'ansible.builtin.copy': {
            'content': '{{ __replication_check_shared_files | to_json }}', 'dest': str(output), 'mode': '0600'}}],
    }]
    playbook = tmp_path / 'render.yml'
    playbook.write_text(yaml.safe_dump(play), encoding='utf-8')
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    done = subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', 'localhost,', str(playbook)], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return json.loads(output.read_text(encoding='utf-8'))


@pytest.mark.playbook
def test_the_role_ships_the_module_utils_files_themselves(tmp_path: Path) -> None:
    if not ANSIBLE_PLAYBOOK.exists():
        pytest.skip('the project venv (make setup) provides ansible-playbook')
    entries = rendered_ship_list(tmp_path)
    shared = '%s/job/mm2_validator/_shared' % HOME
    by_dest = {entry['dest']: entry for entry in entries}
    assert set(by_dest) == {'%s/%s.py' % (shared, name) for name in ['__init__'] + shared_modules()}
    for name in shared_modules():
        assert Path(by_dest['%s/%s.py' % (shared, name)]['src']).resolve() == (MODULE_UTILS / ('%s.py' % name)).resolve()

    # The host's layout, zipped as tasks/run.yml does for spark-submit, imports the shipped copies
    # with no collection on the path.
    job = tmp_path / 'job'
    shutil.copytree(PACKAGE, job / 'mm2_validator', ignore=shutil.ignore_patterns('__pycache__'))
    for dest, entry in by_dest.items():
        local = job / dest[len(HOME + '/job/'):]
        local.parent.mkdir(parents=True, exist_ok=True)
        if 'src' in entry:
            shutil.copyfile(entry['src'], local)
        else:
            local.write_text(entry['content'], encoding='utf-8')
    archive = job / 'mm2_validator.zip'
    subprocess.run([sys.executable, '-m', 'zipfile', '-c', str(archive), str(job / 'mm2_validator')], check=True)
    probe = ('import mm2_validator.shared as s, mm2_validator.config as c; '
             'print(s.mm2_naming.__file__); print(c.ValidatorConfig.__name__)')
    env = {'PATH': os.environ.get('PATH', ''), 'PYTHONPATH': str(archive), 'PYTHONDONTWRITEBYTECODE': '1'}
    done = subprocess.run([sys.executable, '-c', probe], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == str(archive / 'mm2_validator' / '_shared' / 'mm2_naming.py')
