# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures: a fake Kafka Connect worker on loopback and a runner that executes modules for real."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict, Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_connect import FakeConnect  # noqa: E402  pylint: disable=wrong-import-position

FIXTURES = Path(__file__).resolve().parent / 'fixtures'
MODULE_TIMEOUT_SECONDS = 60

ModuleRunner = Callable[..., Dict[str, Any]]


@pytest.fixture
def fake() -> Iterator[FakeConnect]:
    server = FakeConnect().start()
    yield server
    server.stop()


@pytest.fixture
def closed_port_url() -> str:
    """A loopback URL nobody listens on: bind a port, then release it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(('127.0.0.1', 0))
        port = sock.getsockname()[1]
    return 'http://127.0.0.1:%d' % port


@pytest.fixture
def seed_msc_document() -> str:
    return (FIXTURES / 'seed_001_mm2_msc.json').read_text(encoding='utf-8')


def module_env(collections_path: Path) -> Dict[str, str]:
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [str(collections_path), env.get('PYTHONPATH')]))
    # Loopback traffic must never go through a proxy configured in the environment.
    env['NO_PROXY'] = env['no_proxy'] = '127.0.0.1,localhost'
    # Keep the checkout free of bytecode written through the symlinked collection path.
    env['PYTHONDONTWRITEBYTECODE'] = '1'
    return env


@pytest.fixture
def run_module(collections_path: Path, collection_root: Path, tmp_path: Path) -> ModuleRunner:
    """run_module('connector', check_mode=False, diff=False, **module_args) -> parsed JSON result.

    The result also carries `_stdout` (the raw output) so tests can search all of it.
    """
    counter = {'runs': 0}

    def run(module_name: str, check_mode: bool = False, diff: bool = False, **module_args: Any) -> Dict[str, Any]:
        counter['runs'] += 1
        args_file = tmp_path / ('args_%d.json' % counter['runs'])
        payload = dict(module_args, _ansible_check_mode=check_mode, _ansible_diff=diff)
        args_file.write_text(json.dumps({'ANSIBLE_MODULE_ARGS': payload}), encoding='utf-8')
        module_file = collection_root / 'plugins' / 'modules' / ('%s.py' % module_name)
        completed = subprocess.run(
            [sys.executable, str(module_file), str(args_file)],
            capture_output=True, text=True, env=module_env(collections_path), timeout=MODULE_TIMEOUT_SECONDS, check=False,
        )
        try:
            result = json.loads(completed.stdout)
        except ValueError:
            raise AssertionError('module printed no JSON.\nstdout: %s\nstderr: %s' % (completed.stdout, completed.stderr)) from None
        result['_stdout'] = completed.stdout
        return result

    return run
