# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The settings file of the restart watchdog: read and checked, each wrong key named, the
passwords kept out of reprs and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from connect_watchdog.config import load_config, parse_config
from connect_watchdog.decisions import WatchdogError

from watchdog_helpers import REST_PASSWORD, settings


def test_settings_are_read_and_the_password_stays_out_of_their_repr(tmp_path: Path) -> None:
    path = tmp_path / 'watchdog.json'
    path.write_text(json.dumps(settings()))
    config = load_config(str(path))
    assert (config.urls, config.worker_id, config.poll_interval, config.metrics_port) == \
        (('https://task-1-1:8083',), 'task-1-1:8083', 30, 9405)
    assert config.password == REST_PASSWORD and REST_PASSWORD not in repr(config)


@pytest.mark.parametrize('changes, message', [
    ({'pool_interval': 5}, 'unknown settings: pool_interval'),
    ({'max_restarts': '3'}, 'setting max_restarts must be int'),
    ({'validate_certs': 'yes'}, 'setting validate_certs must be bool'),
    ({'metrics_port': True}, 'setting metrics_port must be int'),
    ({'worker_id': ''}, 'missing settings: worker_id'),
    ({'urls': ['']}, 'setting urls must list'),
    ({'poll_interval': 0}, 'poll_interval must be positive'),
    ({'stall_seconds': '600'}, 'setting stall_seconds must be int or float'),
    ({'stall_seconds': -1}, r'stall_seconds must be 0 \(off\) or a number of seconds'),
    ({'stall_seconds': float('nan'), 'exporter_url': 'http://127.0.0.1:9404/metrics'}, 'stall_seconds must be 0'),
    ({'stall_seconds': 59}, r'stall_seconds must be 0 \(off\) or at least twice poll_interval \(30 s\)'),
    ({'stall_seconds': 600}, 'stall_seconds needs exporter_url'),
    ({'stall_seconds': 600, 'exporter_url': '127.0.0.1:9404/metrics'}, 'exporter_url must be an http:// or https:// URL'),
    ({'exporter_password': 7}, 'setting exporter_password must be str'),
])
def test_bad_settings_name_the_setting(changes: dict, message: str) -> None:
    with pytest.raises(WatchdogError, match=message) as error:
        parse_config(settings(**changes))
    assert REST_PASSWORD not in str(error.value)


def test_unreadable_settings_are_an_error(tmp_path: Path) -> None:
    with pytest.raises(WatchdogError, match='cannot read settings'):
        load_config(str(tmp_path / 'absent.json'))
