"""kafka_install_account_as_wanted and kafka_install_unpack_due decide as role kafka_install's former Jinja did.

fixtures/kafka_install_state_jinja.yml holds that Jinja as it was in vars/main.yml; each case renders it
with Ansible's templar and compares with the filters.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.kafka_install_state import kafka_install_account_as_wanted, kafka_install_unpack_due

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'kafka_install_state_jinja.yml'
HOME, SHELL, GROUP = '/opt/kafka', '/usr/sbin/nologin', 'kafka'
PASSWD = 'kafka:x:998:998::/opt/kafka:/usr/sbin/nologin'
VERSIONED = '/opt/kafka/kafka_2.13-3.9.1'

ENTRIES: Dict[str, Optional[Dict[str, Any]]] = {
    'not looked up': None,
    'lookup skipped': {'skipped': True, 'changed': False},
    'as wanted': {'rc': 0, 'stdout_lines': [PASSWD, 'kafka']},
    'no such account': {'rc': 2, 'stdout_lines': []},
    'another home': {'rc': 0, 'stdout_lines': ['kafka:x:998:998::/home/kafka:/usr/sbin/nologin', 'kafka']},
    'a login shell': {'rc': 0, 'stdout_lines': ['kafka:x:998:998::/opt/kafka:/bin/bash', 'kafka']},
    'another primary group': {'rc': 0, 'stdout_lines': [PASSWD, 'users']},
    'group missing': {'rc': 0, 'stdout_lines': [PASSWD]},
    'a short passwd line': {'rc': 0, 'stdout_lines': ['kafka:x:998', 'kafka']},
    'more lines': {'rc': 0, 'stdout_lines': [PASSWD, 'kafka', 'extra']},
}
# Each host's missing paths as module path_info reported them.
PLAYS: Dict[str, Dict[str, List[Any]]] = {
    'every host installed': {'k1': [], 'k2': []},
    'one host lacks the release': {'k1': [], 'k2': [VERSIONED + '/libs', VERSIONED + '/tools.jsa']},
    'only the archive is missing': {'k1': [VERSIONED + '/tools.jsa'], 'k2': ['/usr/bin/java']},
    'a libs file, not the directory': {'k1': [VERSIONED + '/libs/kafka.jar', VERSIONED + '/libsx']},
    'nested and null entries': {'k1': [[VERSIONED + '/libs'], None]},
    'no host': {},
}


def render(expression: str, **variables: Any) -> Any:
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    values: Dict[str, Any] = {name: trust_as_template(text) for name, text in old.items()}
    values.update(kafka_install_root=HOME, __kafka_install_account_shell=SHELL, kafka_install_group=GROUP)
    values.update({name: value for name, value in variables.items() if value is not None})
    return Templar(loader=DataLoader(), variables=values).template(trust_as_template(expression))


@pytest.mark.parametrize('entry', ENTRIES.values(), ids=list(ENTRIES))
def test_account_as_the_former_jinja(entry: Optional[Dict[str, Any]]) -> None:
    expected = render('{{ __kafka_install_account_as_wanted }}', __kafka_install_account_entry=entry)
    assert kafka_install_account_as_wanted({} if entry is None else entry, HOME, SHELL, GROUP) is expected


@pytest.mark.parametrize('missing', PLAYS.values(), ids=list(PLAYS))
def test_unpack_due_as_the_former_jinja(missing: Dict[str, List[Any]]) -> None:
    hostvars = {host: {'__kafka_install_paths': {'changed': False, 'paths': {}, 'missing': paths}} for host, paths in missing.items()}
    expected = render('{{ __kafka_install_unpack_due }}', ansible_play_hosts=list(missing), hostvars=hostvars)
    assert kafka_install_unpack_due(list(missing), hostvars) is expected


def test_only_the_play_hosts_count() -> None:
    hostvars = {'k1': {'__kafka_install_paths': {'missing': []}}, 'k2': {'__kafka_install_paths': {'missing': [VERSIONED + '/libs']}}}
    assert kafka_install_unpack_due(['k1'], hostvars) is False


def test_a_host_that_did_not_look_is_named() -> None:
    with pytest.raises(AnsibleFilterError, match='k2 has no __kafka_install_paths'):
        kafka_install_unpack_due(['k1', 'k2'], {'k1': {'__kafka_install_paths': {'missing': []}}, 'k2': {}})


def test_a_lookup_without_output_is_refused() -> None:
    with pytest.raises(AnsibleFilterError, match='no stdout_lines'):
        kafka_install_account_as_wanted({'rc': 0}, HOME, SHELL, GROUP)


def test_hosts_as_a_string_are_refused() -> None:
    with pytest.raises(AnsibleFilterError, match="expects the play's hosts"):
        kafka_install_unpack_due('k1', {})
