"""connect_rest_urls gives role mirrormaker the workers' REST URLs its former Jinja default gave.

fixtures/mirrormaker_connect_url_jinja.yml holds that default as it was; each case renders it with
Ansible's templar and compares with the filter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.connect_rest_urls import connect_rest_urls

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'mirrormaker_connect_url_jinja.yml'

CASES: Dict[str, Dict[str, Any]] = {
    'one worker over http': {'hosts': ['dst-connect-1'], 'this': 'dst-connect-1', 'scheme': 'http', 'port': 8083},
    'three workers, the second one running': {'hosts': ['c1', 'c2', 'c3'], 'this': 'c2', 'scheme': 'http', 'port': '8083'},
    'https with the advertised name': {'hosts': ['c1', 'c2'], 'this': 'c1', 'scheme': 'https', 'port': 8443,
                                       'advertised': 'connect-1.example.com'},
    'https without an advertised name': {'hosts': ['c1', 'c2'], 'this': 'c2', 'scheme': 'https', 'port': 8443},
    'a host listed twice': {'hosts': ['c1', 'c2', 'c2', 'c3'], 'this': 'c3', 'scheme': 'http', 'port': 8083},
    'this host not in the play': {'hosts': ['c1', 'c2'], 'this': 'controller', 'scheme': 'http', 'port': 8083},
    'ipv6 and dotted names': {'hosts': ['fd00::1', 'c.example.com'], 'this': 'c.example.com', 'scheme': 'https', 'port': 8443,
                              'advertised': 'fd00::2'},
}


def jinja_urls(case: Dict[str, Any]) -> List[str]:
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    variables: Dict[str, Any] = {'ansible_play_hosts': case['hosts'], 'inventory_hostname': case['this'],
                                 'mirrormaker_connect_scheme': case['scheme'], 'mirrormaker_connect_port': case['port']}
    if 'advertised' in case:
        variables['connect_worker_rest_advertised_host'] = case['advertised']
    templar = Templar(loader=DataLoader(), variables=variables)
    return templar.template(trust_as_template(old['mirrormaker_connect_url']))


@pytest.mark.parametrize('case', CASES.values(), ids=list(CASES))
def test_same_urls_as_the_former_jinja(case: Dict[str, Any]) -> None:
    """The same local URL first, then the same others: the former difference filter gave those in set order
    (which varies with Python's string hashing), the filter in play order."""
    urls = connect_rest_urls(case['hosts'], case['this'], case['scheme'], case['port'], case.get('advertised', case['this']))
    former = jinja_urls(case)
    assert urls[0] == former[0]
    assert sorted(urls[1:]) == sorted(former[1:]) and len(set(urls)) == len(urls)


def test_the_others_keep_the_play_order() -> None:
    assert connect_rest_urls(['c3', 'c1', 'c2', 'c1'], 'c2', 'http', 8083, 'c2') == [
        'http://127.0.0.1:8083', 'http://c3:8083', 'http://c1:8083']


def test_the_local_worker_comes_first() -> None:
    assert connect_rest_urls(['c1', 'c2'], 'c2', 'http', 8083, 'c2') == ['http://127.0.0.1:8083', 'http://c1:8083']


def test_a_single_host_name_is_refused() -> None:
    with pytest.raises(AnsibleFilterError, match="list of the play's hosts"):
        connect_rest_urls('c1', 'c1', 'http', 8083, 'c1')


def test_drained_workers_are_left_out_with_hostvars() -> None:
    hostvars = {'c1': {'connect_worker_state': 'absent'}, 'c2': {}, 'c3': {'connect_worker_state': 'present'}}
    assert connect_rest_urls(['c1', 'c2', 'c3'], 'c2', 'http', 8083, 'c2', hostvars) == [
        'http://c2:8083', 'http://c3:8083']


def test_a_drained_local_worker_is_not_asked_first() -> None:
    """The run_once host of role mirrormaker may be a drained worker: its own worker is stopped."""
    hostvars = {'c1': {'connect_worker_state': 'absent'}, 'c2': {}}
    assert connect_rest_urls(['c1', 'c2'], 'c1', 'https', 8443, 'connect-1.example.com', hostvars) == ['https://c2:8443']


def test_a_host_outside_hostvars_runs_a_worker() -> None:
    assert connect_rest_urls(['c1', 'c2'], 'c1', 'http', 8083, 'c1', {'c1': {}}) == ['http://c1:8083', 'http://c2:8083']


@pytest.mark.parametrize('host_vars, local', [
    ({}, 'http://c1:8083'),
    ({'ansible_host': '10.0.0.5'}, 'http://10.0.0.5:8083'),
    ({'ansible_host': '10.0.0.5', 'connect_worker_rest_listen_address': '127.0.0.1'}, 'http://127.0.0.1:8083'),
    ({'connect_worker_rest_listen_address': '0.0.0.0'}, 'http://127.0.0.1:8083'),
    ({'connect_worker_rest_listen_address': 'fd00::5'}, 'http://[fd00::5]:8083'),
], ids=['inventory name', 'ansible_host', 'listen address', 'every address', 'IPv6'])
def test_plain_http_reaches_the_local_worker_where_its_listener_binds(host_vars: Dict[str, Any], local: str) -> None:
    """Role connect_worker binds the listener to the host's inventory address unless told otherwise."""
    assert connect_rest_urls(['c1', 'c2'], 'c1', 'http', 8083, 'c1', {'c1': host_vars})[0] == local


def test_a_wrong_state_is_refused_naming_the_host() -> None:
    with pytest.raises(AnsibleFilterError, match="connect_worker_state of c2 must be present or absent, got 'stopped'"):
        connect_rest_urls(['c1', 'c2'], 'c1', 'http', 8083, 'c1', {'c2': {'connect_worker_state': 'stopped'}})
