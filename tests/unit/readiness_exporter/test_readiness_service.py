# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The readiness exporter's package (role readiness's files): its loop survives what fails, it serves
its metrics over HTTP, and the files the role ships are all it needs to start."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any, List

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
ROLE = REPO_ROOT / 'roles' / 'readiness'
if str(ROLE / 'files') not in sys.path:
    sys.path.insert(0, str(ROLE / 'files'))

from readiness_exporter import service  # noqa: E402  pylint: disable=wrong-import-position

from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_readiness_exporter import (  # noqa: E402
    ReadinessMetrics,
    TopicIdStore,
    parse_settings,
)

FLOW = {'name': 'src-dst', 'source_alias': 'src', 'target_alias': 'dst',
        'source_client': {'bootstrap.servers': 'src:9092'}, 'target_client': {'bootstrap.servers': 'dst:9092'}}


def settings(tmp_path: Path, **changes: Any) -> Any:
    document = {'flows': [FLOW, dict(FLOW, name='other')], 'state_dir': str(tmp_path), 'metrics_port': 0}
    document.update(changes)
    return parse_settings(document)


def test_a_jvm_that_does_not_start_counts_an_error_per_flow(tmp_path: Path) -> None:
    config = settings(tmp_path)
    metrics = ReadinessMetrics(['src-dst', 'other'], 60)

    def no_jvm() -> Any:
        raise RuntimeError('cannot start a JVM for the Kafka clients (java): not found')

    service.jvm_round(config, metrics, TopicIdStore(str(tmp_path)), start_jvm=no_jvm)
    assert {name: figures.errors for name, figures in metrics.snapshot().items()} == {'src-dst': 1, 'other': 1}


class FakeJvm:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


def test_a_round_closes_its_jvm_even_when_every_flow_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jvm = FakeJvm()

    def broken_side(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError('no cluster')

    monkeypatch.setattr(service, 'JvmKafkaSide', broken_side)
    metrics = ReadinessMetrics(['src-dst', 'other'], 60)
    service.jvm_round(settings(tmp_path), metrics, TopicIdStore(str(tmp_path)), start_jvm=lambda: jvm)
    assert jvm.closed
    assert [figures.errors for figures in metrics.snapshot().values()] == [1, 1]


def test_the_loop_runs_rounds_until_stopped() -> None:
    stop = threading.Event()
    rounds: List[int] = []

    def one_round() -> None:
        rounds.append(1)
        if len(rounds) == 3:
            stop.set()

    service.run(one_round, 0.001, stop)
    assert len(rounds) == 3


def test_metrics_are_served_on_get_metrics_only() -> None:
    metrics = ReadinessMetrics(['src-dst'], 60)
    metrics.failed('src-dst', 'boom')
    server = service.serve_metrics(metrics, '127.0.0.1', 0)
    try:
        base = 'http://127.0.0.1:%d' % server.server_address[1]
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(base + '/metrics', timeout=5) as answer:
            body = answer.read().decode()
            assert answer.headers['Content-Type'].startswith('text/plain; version=0.0.4')
        assert 'kafka_dr_readiness_errors_total{flow="src-dst"} 1' in body
        with pytest.raises(urllib.error.HTTPError):
            opener.open(base + '/other', timeout=5)
    finally:
        server.shutdown()
        server.server_close()


def test_bad_settings_stop_the_service_with_a_message(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / 'settings.json'
    path.write_text(json.dumps({'flows': [FLOW], 'state_dir': str(tmp_path), 'rpo_seconds': 0}))
    assert service.main(['--config', str(path)]) == 2
    assert 'rpo_seconds must be a positive number' in caplog.text


# ---- the package as the role ships it ---------------------------------------------------------------

def role_vars() -> Any:
    return yaml.safe_load((ROLE / 'vars' / 'main.yml').read_text())


def test_the_shipped_files_are_all_the_exporter_imports(tmp_path: Path) -> None:
    """Lay the files down as tasks/exporter.yml does and import the service with nothing else on the path."""
    shared = role_vars()['__readiness_exporter_shared_modules']
    module_utils = tmp_path / 'ansible_collections' / 'kafka_dr' / 'mm2' / 'plugins' / 'module_utils'
    module_utils.mkdir(parents=True)
    for directory in [module_utils, *module_utils.parents][:5]:
        (directory / '__init__.py').write_text('')
    for name in shared:
        shutil.copy(REPO_ROOT / 'plugins' / 'module_utils' / name, module_utils / name)
    shutil.copytree(ROLE / 'files' / 'readiness_exporter', tmp_path / 'readiness_exporter')
    probe = ('import sys, readiness_exporter.service as s, ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_readiness as m;'
             'print(m.__file__); print(sorted(n for n in sys.modules if n.startswith("ansible_collections.kafka_dr")))')
    done = subprocess.run([sys.executable, '-I', '-c', 'import sys; sys.path.insert(0, %r); %s' % (str(tmp_path), probe)],
                          capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    first, loaded = done.stdout.splitlines()
    assert first.startswith(str(tmp_path))
    used = {name.rsplit('.', 1)[1] + '.py' for name in eval(loaded)  # pylint: disable=eval-used
            if name.startswith('ansible_collections.kafka_dr.mm2.plugins.module_utils.')}
    assert used == set(shared)


def test_the_unit_keeps_secrets_out_and_state_in_its_directory() -> None:
    unit = (ROLE / 'templates' / 'kafka-dr-readiness.service.j2').read_text()
    assert 'StateDirectory={{ __readiness_exporter_service }}' in unit and 'StateDirectoryMode=0700' in unit
    assert '--config {{ __readiness_exporter_settings_file }}' in unit
    assert 'password' not in unit.lower().replace('passwords', '')
    entries = role_vars()['__readiness_exporter_file_set']
    (settings_entry,) = [entry for entry in entries if 'settings_file' in entry['dest']]
    assert settings_entry['mode'] == '0600' and settings_entry['secret'] is True
    assert settings_entry['owner'] == '{{ readiness_exporter_user }}'
