# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The restart watchdog's log lines: secrets masked in traces, the REST password never shown,
the start of a trace on one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_client import ConnectClient
from connect_watchdog.log_lines import MASK, trace_excerpt
from connect_watchdog.state import StateStore
from connect_watchdog.watchdog import Watchdog

from fake_connect import WORKER_ID, FakeConnect
from watchdog_helpers import CONFIG, REST_PASSWORD, Clock, restart_lines, watchdog_for


# ---- logs -------------------------------------------------------------------------------------

def test_the_log_line_masks_secrets_in_the_trace_and_never_shows_the_rest_password(
        fake: FakeConnect, clock: Clock, state_file: Path, closed_port_url: str, log_lines: pytest.LogCaptureFixture) -> None:
    trace = ('org.apache.kafka.common.config.ConfigException: Invalid value for sasl.jaas.config='
             'org.apache.kafka.common.security.scram.ScramLoginModule required username="mm2" password="jaas-pw";\n'
             '\tat config ssl.truststore.password=store-pw, ssl.key.password: "key-pw" {"password": "json-pw"}\n'
             '\tat org.apache.kafka.connect.runtime.Worker.startTask(Worker.java:600)\n'
             '\tat a line beyond the excerpt\n')
    fake.add_connector('flow-source', CONFIG)
    fake.fail_task('flow-source', 0, trace)
    watchdog = watchdog_for(fake, clock, state_file, username='operator', password=REST_PASSWORD)
    watchdog.poll_once()
    assert fake.requests[0].authorization and fake.requests[0].authorization.startswith('Basic ')
    unreachable = Watchdog(ConnectClient([closed_port_url], 'operator', REST_PASSWORD, retry_timeout=0.1, timeout=2),
                           WORKER_ID, StateStore(str(state_file)), clock=clock)
    unreachable.poll_once()
    (line,) = restart_lines(log_lines)
    assert line.count(MASK) == 4 and 'Worker.startTask' in line and 'beyond the excerpt' not in line
    everything = log_lines.text + '\n'.join(record.getMessage() for record in log_lines.records)
    for secret in ('jaas-pw', 'store-pw', 'key-pw', 'json-pw', 'username="mm2"', REST_PASSWORD):
        assert secret not in everything


def test_trace_excerpt_keeps_the_first_lines_on_one_line() -> None:
    assert trace_excerpt('first\n\n  second  \nthird\nfourth\n') == 'first | second | third'
    assert trace_excerpt('') == ''
