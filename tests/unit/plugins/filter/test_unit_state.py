"""host_state, unit_running and units_changed decide the systemd calls as the roles' former Jinja did.

fixtures/unit_state_jinja.yml holds that Jinja as it was in the vars/main.yml of connect_worker and
kafka_broker; each case renders it with Ansible's templar and compares with the filters.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.unit_state import host_state, unit_running, units_changed

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'unit_state_jinja.yml'
UNIT = '/etc/systemd/system/kafka-connect.service'
OVERRIDE = '/etc/systemd/system/kafka-connect.service.d/override.conf'

WORKER_LINES: Dict[str, List[str]] = {
    'running': ['active.kafka-connect=active', 'enabled.kafka-connect=enabled', 'login_fingerprint=', 'requests=yes'],
    'stopped': ['active.kafka-connect=inactive', 'enabled.kafka-connect=enabled', 'login_fingerprint=ab=c', 'requests=no'],
    'disabled': ['active.kafka-connect=active', 'enabled.kafka-connect=disabled', 'login_fingerprint=x', 'requests=yes'],
    'not installed': ['active.kafka-connect=unknown', 'enabled.kafka-connect=', 'login_fingerprint=', 'requests=yes'],
    'a key twice': ['active.kafka-connect=failed', 'enabled.kafka-connect=enabled', 'active.kafka-connect=active'],
}
BROKER_LINES: Dict[str, List[str]] = {
    'running': ['active=active', 'enabled=enabled', 'storage=formatted', 'cluster_id=abc'],
    'stopped': ['active=failed', 'enabled=enabled', 'storage=', 'cluster_id='],
    'static': ['active=active', 'enabled=static'],
}
FILE_SET_RESULTS: Dict[str, Any] = {
    'not run': None,
    'skipped': {'skipped': True, 'changed': False},
    'nothing changed': {'changed': False, 'changed_paths': []},
    'other files changed': {'changed': True, 'changed_paths': ['/etc/kafka/connect/connect-distributed.properties']},
    'the drop-in changed': {'changed': True, 'changed_paths': ['/etc/kafka/connect/log4j2.properties', OVERRIDE]},
    'both changed': {'changed': True, 'changed_paths': [OVERRIDE, UNIT]},
}


def render(expression: str, **variables: Any) -> Any:
    """An expression over the former Jinja's variables."""
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    values: Dict[str, Any] = {name: trust_as_template(text) for name, text in old.items()}
    values.update(connect_worker_service='kafka-connect', __connect_worker_unit_file=UNIT, __connect_worker_override_file=OVERRIDE)
    values.update({name: value for name, value in variables.items() if value is not None})
    return Templar(loader=DataLoader(), variables=values).template(trust_as_template(expression))


@pytest.mark.parametrize('lines', WORKER_LINES.values(), ids=list(WORKER_LINES))
def test_worker_state_as_the_former_jinja(lines: List[str]) -> None:
    probe = {'stdout_lines': lines}
    state = host_state(lines)
    assert state == render('{{ __connect_worker_host_state }}', __connect_worker_state_probe=probe)
    assert unit_running(state, 'kafka-connect') is render('{{ __connect_worker_running }}', __connect_worker_state_probe=probe)


@pytest.mark.parametrize('lines', BROKER_LINES.values(), ids=list(BROKER_LINES))
def test_broker_state_as_the_former_jinja(lines: List[str]) -> None:
    probe = {'stdout_lines': lines}
    state = host_state(lines)
    assert state == render('{{ __kafka_broker_host_state }}', __kafka_broker_state_probe=probe)
    assert unit_running(state) is render('{{ __kafka_broker_running }}', __kafka_broker_state_probe=probe)


@pytest.mark.parametrize('result', FILE_SET_RESULTS.values(), ids=list(FILE_SET_RESULTS))
def test_units_changed_as_the_former_jinja(result: Any) -> None:
    expected = render('{{ __connect_worker_units_changed }}', __connect_worker_files_result=result)
    assert units_changed([UNIT, OVERRIDE], {} if result is None else result) is expected


def test_a_line_without_equals_is_refused() -> None:
    with pytest.raises(AnsibleFilterError, match="'oops' is not key=value"):
        host_state(['active=active', 'oops'])


def test_a_string_is_not_lines() -> None:
    with pytest.raises(AnsibleFilterError, match='expects the probe'):
        host_state('active=active')


def test_a_state_without_the_unit_is_refused() -> None:
    with pytest.raises(AnsibleFilterError, match='has no active.kafka-connect-watchdog, enabled.kafka-connect-watchdog'):
        unit_running(host_state(WORKER_LINES['running']), 'kafka-connect-watchdog')


def test_units_changed_needs_a_result_mapping() -> None:
    with pytest.raises(AnsibleFilterError, match='expects a file_set result'):
        units_changed([UNIT], [UNIT])  # type: ignore[arg-type]
