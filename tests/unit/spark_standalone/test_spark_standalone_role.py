# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Role spark_standalone: the secret stays in spark-defaults.conf, the daemons reach the master
named once, and a cluster without a secret or with a master outside the play is refused."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Dict

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
PLAYBOOK = Path(__file__).with_name('render_spark.yml')
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'
SECRET = 'cluster-secret-0123456789'

pytestmark = [
    pytest.mark.playbook,
    pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason='the project venv (make venv) provides ansible-playbook'),
]


def inventory(**group_vars: Any) -> Dict[str, Any]:
    settings = {'ansible_python_interpreter': '{{ ansible_playbook_python }}', 'spark_standalone_auth_secret': SECRET}
    settings.update(group_vars)
    return {'all': {'children': {'spark_cluster': {'hosts': {'node-1': {}, 'node-2': {}}, 'vars': settings}}}}


def render(tmp_path: Path, **group_vars: Any) -> subprocess.CompletedProcess:
    inventory_file = tmp_path / 'inventory.yml'
    inventory_file.write_text(yaml.safe_dump(inventory(**group_vars)))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    return subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', str(inventory_file), str(PLAYBOOK), '-e',
                           json.dumps({'render_dir': str(tmp_path)})],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope='module')
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    render_dir = tmp_path_factory.mktemp('spark-render')
    done = render(render_dir)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return render_dir


def properties(path: Path) -> Dict[str, str]:
    pairs = [line.split(' ', 1) for line in path.read_text().splitlines() if line and not line.startswith('#')]
    return dict(pairs)


def test_the_secret_is_in_spark_defaults_and_on_no_command_line(rendered: Path) -> None:
    conf = properties(rendered / 'node-2-spark-defaults.conf')
    assert conf['spark.authenticate'] == 'true' and conf['spark.authenticate.secret'] == SECRET
    assert conf['spark.network.crypto.enabled'] == 'true'
    for unit in rendered.glob('*.service'):
        assert SECRET not in unit.read_text(), unit


def test_workers_join_the_first_host_and_everything_unpacks_outside_tmp(rendered: Path) -> None:
    worker = (rendered / 'node-2-spark-worker.service').read_text()
    exec_start = next(line for line in worker.splitlines() if line.startswith('ExecStart='))
    assert exec_start.endswith(' spark://node-1:7077'), exec_start
    assert '--properties-file /etc/spark/spark-defaults.conf' in worker
    assert 'SPARK_DAEMON_JAVA_OPTS=-Djava.io.tmpdir=/var/lib/spark/tmp' in worker
    conf = properties(rendered / 'node-1-spark-defaults.conf')
    assert conf['spark.driver.extraJavaOptions'] == conf['spark.executor.extraJavaOptions'] == '-Djava.io.tmpdir=/var/lib/spark/tmp'
    assert conf['spark.pyspark.python'] == '/opt/kafka-dr/replication-check/venv/bin/python'
    assert 'After=network-online.target spark-master.service' in (rendered / 'node-1-spark-worker.service').read_text()


@pytest.mark.parametrize('group_vars, message', [
    ({'spark_standalone_auth_secret': 'xq7Zshort'}, 'set spark_standalone_auth_secret'),
    ({'spark_standalone_master_host': 'elsewhere'}, '(now elsewhere)'),
])
def test_a_cluster_without_a_secret_or_a_master_in_the_play_is_refused(tmp_path: Path, group_vars: Dict[str, Any],
                                                                       message: str) -> None:
    done = render(tmp_path, **group_vars)
    assert done.returncode != 0
    assert message in done.stdout and 'Nothing was changed' in done.stdout, done.stdout[-2000:]
    assert not list(tmp_path.glob('*.service'))
    assert 'xq7Zshort' not in done.stdout + done.stderr


def test_a_setting_with_a_line_break_is_refused_and_others_are_escaped(tmp_path: Path) -> None:
    done = render(tmp_path, spark_standalone_conf={'spark.app.name': 'dr\nspark.authenticate false'})
    assert done.returncode != 0
    assert 'spark_standalone_conf: the value of spark.app.name must not hold a line break' in done.stdout, done.stdout[-2000:]
    assert SECRET not in done.stdout + done.stderr
    done = render(tmp_path, spark_standalone_conf={'spark.executor.extraJavaOptions': '-Dpath=C:\\tmp -Dx=100%'},
                  spark_standalone_conf_dir='/etc/spark conf')
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert 'spark.executor.extraJavaOptions -Dpath=C:\\\\tmp -Dx=100%\n' in (tmp_path / 'node-1-spark-defaults.conf').read_text()
    worker = (tmp_path / 'node-1-spark-worker.service').read_text()
    assert 'Environment="SPARK_CONF_DIR=/etc/spark conf"\n' in worker
    assert ' --properties-file "/etc/spark conf/spark-defaults.conf" ' in worker
