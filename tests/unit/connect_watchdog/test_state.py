# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the restart watchdog remembers across its own restarts: the state file, 0600, replaced
atomically; a corrupt or unwritable one is logged, never fatal."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from fake_connect import FakeConnect
from watchdog_helpers import CONFIG, MINUTE, TRACE, Clock, watchdog_for


# ---- the state file ---------------------------------------------------------------------------

def test_the_backoff_survives_a_restart_of_the_watchdog(fake: FakeConnect, clock: Clock, state_file: Path) -> None:
    fake.add_connector('flow-source', CONFIG)
    fake.fail_task('flow-source', 0, TRACE)
    assert [restart.attempt for restart in watchdog_for(fake, clock, state_file).poll_once().restarts] == [1]
    assert stat.S_IMODE(os.stat(state_file).st_mode) == 0o600
    assert [entry.name for entry in state_file.parent.iterdir()] == ['state.json']

    fake.fail_task('flow-source', 0, TRACE)
    restarted = watchdog_for(fake, clock, state_file)
    clock.now += MINUTE
    assert restarted.poll_once().restarts == ()
    clock.now += MINUTE
    assert [restart.attempt for restart in restarted.poll_once().restarts] == [2]
    saved = json.loads(state_file.read_text())
    assert saved['units'] == [{'connector': 'flow-source', 'task': 0, 'restarts': 2, 'last_restart': clock.now,
                               'running_since': None, 'cap_reached': False}]


@pytest.mark.parametrize('content', ['{"version": 1, "units": [', '{"version": 99, "units": []}',
                                     '{"version": 1, "units": [{"connector": "x", "task": "0", "restarts": 1}]}', '\x00\x01'])
def test_a_corrupt_state_file_is_logged_and_replaced(content: str, fake: FakeConnect, clock: Clock, state_file: Path,
                                                     log_lines: pytest.LogCaptureFixture) -> None:
    state_file.write_text(content)
    fake.add_connector('flow-source', CONFIG)
    fake.fail_task('flow-source', 0, TRACE)
    watchdog = watchdog_for(fake, clock, state_file)
    assert any('is unreadable or corrupt' in record.getMessage() and record.levelname == 'ERROR' for record in log_lines.records)
    assert [restart.attempt for restart in watchdog.poll_once().restarts] == [1]
    assert json.loads(state_file.read_text())['units'][0]['restarts'] == 1


def test_an_unwritable_state_file_is_logged_not_fatal(fake: FakeConnect, clock: Clock, tmp_path: Path,
                                                      log_lines: pytest.LogCaptureFixture) -> None:
    fake.add_connector('flow-source', CONFIG)
    fake.fail_task('flow-source', 0, TRACE)
    watchdog = watchdog_for(fake, clock, tmp_path / 'missing-dir' / 'state.json')
    assert [restart.attempt for restart in watchdog.poll_once().restarts] == [1]
    assert any(record.getMessage().startswith('cannot write state file') for record in log_lines.records)
