# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Role connect_worker's restart watchdog: the settings and unit it renders (through
ansible-playbook, nothing contacted but the controller) are what the watchdog reads, and the
tasks ship every file of the watchdog's package and every module it imports."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Set

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
ROLE = REPO_ROOT / 'roles' / 'connect_worker'
# The watchdog's package as the unit's PYTHONPATH puts it on a worker.
if str(ROLE / 'files') not in sys.path:
    sys.path.insert(0, str(ROLE / 'files'))

from connect_watchdog.config import parse_config  # noqa: E402  pylint: disable=wrong-import-position

PACKAGE = ROLE / 'files' / 'connect_watchdog'
MODULE_UTILS = REPO_ROOT / 'plugins' / 'module_utils'
PLAYBOOK = Path(__file__).with_name('auto_restart_render.yml')
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'
LAB_REST_SECRET = REPO_ROOT / '.lab' / 'secrets' / 'rest'
EXEC_START = '/usr/bin/python3 -m connect_watchdog --config /etc/kafka/connect/watchdog.json'

needs_ansible = pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason='the project venv (make setup) provides ansible-playbook')


# A plain HTTP worker without authentication, accepted on purpose, for the workers rendered without the lab's inventory.
PLAIN_HTTP = {'connect_worker_rest_scheme': 'http', 'connect_worker_rest_basic_auth': False, 'connect_worker_rest_insecure': True}


def render(tmp_path: Path, inventory: str, extra_vars: Dict[str, Any]) -> Path:
    vars_file = tmp_path / 'vars.json'
    plain = PLAIN_HTTP if inventory == 'localhost,' else {}
    vars_file.write_text(json.dumps(dict(plain, **extra_vars, render_dir=str(tmp_path),
                                         unit_template=str(ROLE / 'templates' / 'kafka-connect-watchdog.service.j2'))))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    done = subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', inventory, str(PLAYBOOK), '-e', '@%s' % vars_file],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return tmp_path


def unit_directives(text: str) -> Dict[str, List[str]]:
    directives: Dict[str, List[str]] = {}
    for line in text.splitlines():
        if '=' in line and not line.startswith('#'):
            key, value = line.split('=', 1)
            directives.setdefault(key, []).append(value)
    return directives


@pytest.mark.playbook
@needs_ansible
def test_lab_workers_watch_their_own_worker_id_over_https_with_the_rest_account(tmp_path: Path) -> None:
    out = render(tmp_path, str(REPO_ROOT / 'inventories' / 'lab'), {'render_hosts': 'connect_workers'})
    for host in ('task-1-1', 'task-1-2'):
        document = json.loads((out / ('%s.json' % host)).read_text())
        config = parse_config(document)
        assert config.urls == ('https://%s:8083' % host,)
        assert config.worker_id == '%s:8083' % host
        assert (config.username, config.ca_path, config.validate_certs) == ('operator', '/etc/kafka/tls/ca.pem', True)
        assert config.password and config.password == LAB_REST_SECRET.read_text().strip()
        # Numbers stay numbers in the JSON the role writes.
        assert (document['poll_interval'], document['max_restarts'], document['metrics_port'], document['stall_seconds']) == \
            (30, 0, 9405, 600)
        # Stall detection reads the worker's own exporter, plain HTTP on loopback, no account.
        assert (config.exporter_url, config.exporter_username, config.exporter_password, config.exporter_ca_path) == \
            ('http://127.0.0.1:9404/metrics', '', '', '')
        assert config.state_file == '/var/lib/kafka-connect-watchdog/state.json'

        unit = unit_directives((out / ('%s.service' % host)).read_text())
        assert unit['ExecStart'] == [EXEC_START]
        assert unit['User'] == ['kafka'] and unit['Restart'] == ['always']
        assert unit['StateDirectory'] == ['kafka-connect-watchdog'] and unit['StateDirectoryMode'] == ['0700']
        assert unit['Environment'] == ['PYTHONPATH=/opt/kafka-dr/watchdog', 'PYTHONDONTWRITEBYTECODE=1']
        # It must keep running while the worker restarts: nothing ties it to the worker's unit.
        assert not set(unit) & {'BindsTo', 'PartOf', 'Requires', 'Requisite'}
        assert 'kafka-connect' not in ' '.join(unit.get('After', []) + unit.get('Wants', []))

        paths = json.loads((out / ('%s-paths.json' % host)).read_text())
        assert paths['metrics_url'] == 'http://127.0.0.1:9405/metrics'
        assert paths['service'] == 'kafka-connect-watchdog' and paths['config_file'] == '/etc/kafka/connect/watchdog.json'


@pytest.mark.playbook
@needs_ansible
def test_defaults_and_overrides_of_a_plain_http_worker(tmp_path: Path) -> None:
    out = render(tmp_path, 'localhost,', {
        'connect_worker_service': 'connect-eu',
        'connect_worker_properties': {'rest.advertised.host.name': 'task-a.example.com', 'rest.advertised.port': 18083},
        'connect_worker_auto_restart_max_restarts': 5,
        'connect_worker_auto_restart_poll_interval': '10',
        'connect_worker_auto_restart_metrics_address': '10.0.0.7',
        'connect_worker_auto_restart_metrics_port': 9500,
        # An explicit localhost is not the implicit one: point it at this interpreter.
        'ansible_python_interpreter': sys.executable,
    })
    config = parse_config(json.loads((out / 'localhost.json').read_text()))
    # Plain HTTP: the listener binds the host's inventory address by default.
    assert config.urls == ('http://localhost:8083',)
    assert config.worker_id == 'task-a.example.com:18083'
    assert (config.username, config.password, config.ca_path) == ('', '', '')
    assert (config.max_restarts, config.poll_interval, config.metrics_address, config.metrics_port) == (5, 10, '10.0.0.7', 9500)
    assert (config.stall_seconds, config.exporter_url) == (600, 'http://127.0.0.1:9404/metrics')
    assert config.state_file == '/var/lib/connect-eu-watchdog/state.json'
    unit = unit_directives((out / 'localhost.service').read_text())
    assert unit['StateDirectory'] == ['connect-eu-watchdog']
    paths = json.loads((out / 'localhost-paths.json').read_text())
    assert paths['service'] == 'connect-eu-watchdog' and paths['metrics_url'] == 'http://10.0.0.7:9500/metrics'


@pytest.mark.playbook
@needs_ansible
def test_stall_detection_reads_the_exporter_as_it_is_served(tmp_path: Path) -> None:
    out = render(tmp_path, 'localhost,', {
        'connect_worker_metrics_address': '10.0.0.7',
        'connect_worker_metrics_port': 9410,
        'connect_worker_auto_restart_stall_seconds': '900',
        'jmx_exporter_basic_auth_username': 'scraper',
        'jmx_exporter_basic_auth_password': 'scrape-pw',
        'ansible_python_interpreter': sys.executable,
    })
    config = parse_config(json.loads((out / 'localhost.json').read_text()))
    assert (config.stall_seconds, config.exporter_url) == (900, 'http://10.0.0.7:9410/metrics')
    assert (config.exporter_username, config.exporter_password, config.exporter_ca_path) == ('scraper', 'scrape-pw', '')

    # The agent's TLS: the name in the worker's certificate, verified with the REST CA by default.
    out = render(tmp_path, 'localhost,', {
        'connect_worker_rest_advertised_host': 'task-a.example.com',
        'jmx_exporter_tls_keystore_path': '/etc/kafka/tls/keystore.p12',
        'ansible_python_interpreter': sys.executable,
    })
    config = parse_config(json.loads((out / 'localhost.json').read_text()))
    assert (config.exporter_url, config.exporter_ca_path) == ('https://task-a.example.com:9404/metrics', '/etc/kafka/tls/ca.pem')

    # An explicit URL wins; its own CA.
    out = render(tmp_path, 'localhost,', {
        'connect_worker_auto_restart_exporter_url': 'https://worker-a.internal:9404/metrics',
        'connect_worker_auto_restart_exporter_ca_path': '/etc/pki/exporter-ca.pem',
        'ansible_python_interpreter': sys.executable,
    })
    config = parse_config(json.loads((out / 'localhost.json').read_text()))
    assert (config.exporter_url, config.exporter_ca_path) == ('https://worker-a.internal:9404/metrics', '/etc/pki/exporter-ca.pem')


@pytest.mark.playbook
@needs_ansible
@pytest.mark.parametrize('switch', [{'connect_worker_metrics_enabled': False}, {'connect_worker_auto_restart_stall_seconds': 0}])
def test_stall_detection_is_off_without_the_exporter_or_a_window(tmp_path: Path, switch: Dict[str, Any]) -> None:
    out = render(tmp_path, 'localhost,', dict(switch, jmx_exporter_basic_auth_username='scraper',
                                              jmx_exporter_basic_auth_password='scrape-pw',
                                              ansible_python_interpreter=sys.executable))
    document = json.loads((out / 'localhost.json').read_text())
    config = parse_config(document)
    assert (document['stall_seconds'], config.exporter_url, config.exporter_username, config.exporter_password) == (0, '', '', '')


def role_tasks(name: str) -> List[Dict[str, Any]]:
    """Tasks of a tasks file, blocks flattened."""
    def flatten(tasks: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
        flat = []
        for task in tasks:
            flat.append(task)
            for key in ('block', 'rescue', 'always'):
                flat += flatten(task.get(key, []))
        return flat
    return flatten(yaml.safe_load((ROLE / 'tasks' / name).read_text()))


def watchdog_block() -> Dict[str, Any]:
    """The block of tasks/auto_restart.yml that runs the watchdog (its variables hold the ship list)."""
    return next(task for task in yaml.safe_load((ROLE / 'tasks' / 'auto_restart.yml').read_text())
                if task['name'] == 'Run the restart watchdog')


def relative_imports(path: Path) -> Set[str]:
    """The sibling modules a file imports (`from .x import`, `from . import x`)."""
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            modules |= {node.module} if node.module else {alias.name for alias in node.names}
    return modules


def test_the_ship_list_covers_every_file_of_the_package_and_every_module_it_imports() -> None:
    block_vars = watchdog_block()['vars']
    shipped_files = block_vars['__connect_worker_watchdog_sources']
    assert '__connect_worker_watchdog_sources' in block_vars['__connect_worker_watchdog_package_files']
    # Every .py file of the package directory, found again on each run, so a new module ships too.
    assert "role_path ~ '/files/connect_watchdog/*.py'" in shipped_files
    package = {path.name for path in PACKAGE.iterdir() if path.name != '__pycache__'}
    assert package and all(name.endswith('.py') for name in package), package
    shared = set(block_vars['__connect_worker_watchdog_shared_modules'])
    assert '__connect_worker_watchdog_shared_paths' in shipped_files
    assert "role_path ~ '/../../plugins/module_utils/'" in block_vars['__connect_worker_watchdog_shared_paths']
    assert block_vars['__connect_worker_watchdog_package_dir'] == '{{ __connect_worker_watchdog_home }}/connect_watchdog'
    # Whatever a shipped file imports relatively is shipped beside it, and nothing is shipped twice.
    assert not package & shared
    shipped = {name: PACKAGE / name for name in package}
    shipped.update({name: MODULE_UTILS / name for name in shared})
    for name, path in shipped.items():
        missing = {module + '.py' for module in relative_imports(path)} - set(shipped)
        assert not missing, '%s imports %s, which the role does not ship' % (name, ', '.join(sorted(missing)))
    # The shared modules are the collection's module_utils files the package imports, no more.
    assert shared == {module + '.py' for module in relative_imports(PACKAGE / 'shared.py')} == \
        {'connect_client.py', 'prometheus_text.py'}
    for name in shared:
        tree = ast.parse((MODULE_UTILS / name).read_text())
        imported = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module]
        assert not [module for module in imported if 'kafka_dr' in module], '%s: the installed package has no ansible_collections' % name


def test_the_settings_file_is_private_and_notifies_only_the_watchdog() -> None:
    tasks = {task['name']: task for task in role_tasks('auto_restart.yml')}
    role_vars = yaml.safe_load((ROLE / 'vars' / 'main.yml').read_text())
    settings = next(entry for entry in role_vars['__connect_worker_watchdog_file_set']
                    if entry['dest'] == '{{ __connect_worker_watchdog_config_file }}')
    assert (settings['mode'], settings['owner'], settings['secret']) == ('0600', '{{ kafka_install_user }}', True)
    file_set = tasks["Install the watchdog's package, settings and systemd unit"]
    assert '__connect_worker_watchdog_file_set' in file_set['kafka_dr.mm2.file_set']['files']
    assert '__connect_worker_watchdog_package_files' in file_set['kafka_dr.mm2.file_set']['files']
    notified = {task.get('notify') for task in tasks.values()} - {None}
    assert notified == {'connect_worker watchdog restart'}
    handlers = yaml.safe_load((ROLE / 'handlers' / 'main.yml').read_text())
    watchdog_handlers = [handler for handler in handlers if handler['listen'] == 'connect_worker watchdog restart']
    assert [next(iter(set(handler) & {'ansible.builtin.systemd_service', 'ansible.builtin.include_tasks'}))
            for handler in watchdog_handlers] == ['ansible.builtin.systemd_service', 'ansible.builtin.include_tasks']
