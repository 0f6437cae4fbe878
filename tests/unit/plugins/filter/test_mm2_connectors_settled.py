"""mm2_connectors_settled judges role mirrormaker's connectors as its former Jinja judged them.

fixtures/mirrormaker_vars_jinja.yml holds that Jinja as it was in vars/main.yml; each case renders
it with Ansible's templar and compares with the filter: the verdict, the states, the connectors
that lack a task and the connectors read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.mm2_connectors_settled import mm2_connectors_settled

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'mirrormaker_vars_jinja.yml'
MIN_TASKS = {'mm2-src-dst-msc': 1, 'mm2-src-dst-cpc': 0, 'mm2-src-dst-hbc': 1}


def connector(state: str = 'RUNNING', tasks: Optional[List[str]] = None) -> Dict[str, Any]:
    entry: Dict[str, Any] = {'state': state, 'type': 'source', 'status': {'connector': {'state': state, 'worker_id': 'w1:8083'}}}
    if tasks is not None:
        entry['status']['tasks'] = [{'id': number, 'state': task, 'worker_id': 'w1:8083'} for number, task in enumerate(tasks)]
    return entry


def status(connectors: Dict[str, Any], missing: Optional[List[str]] = None) -> Dict[str, Any]:
    """A connector_info result with these connectors, by name."""
    return {'changed': False, 'connectors': connectors, 'missing': missing if missing is not None else [], 'names': sorted(connectors)}


RUNNING = {'mm2-src-dst-msc': connector(tasks=['RUNNING', 'RUNNING']), 'mm2-src-dst-cpc': connector(tasks=[]),
           'mm2-src-dst-hbc': connector(tasks=['RUNNING'])}


def running_but(name: str, entry: Dict[str, Any]) -> Dict[str, Any]:
    """The result of the running connectors, one of them read as given."""
    return status(dict(RUNNING, **{name: entry}))


# (the connector_info result or None before it was read, min_tasks)
CASES: Dict[str, Any] = {
    'not read yet': (None, MIN_TASKS),
    'the module failed': ({'failed': True, 'msg': 'Cannot reach any worker'}, MIN_TASKS),
    'all running': (status(RUNNING), MIN_TASKS),
    'a connector missing': (status({'mm2-src-dst-msc': RUNNING['mm2-src-dst-msc']}, missing=['mm2-src-dst-hbc']), MIN_TASKS),
    'a task failed': (running_but('mm2-src-dst-msc', connector(tasks=['RUNNING', 'FAILED'])), MIN_TASKS),
    'a connector paused': (running_but('mm2-src-dst-hbc', connector('PAUSED', ['PAUSED'])), MIN_TASKS),
    'a source without its task': (running_but('mm2-src-dst-msc', connector(tasks=[])), MIN_TASKS),
    'a status without tasks': (running_but('mm2-src-dst-hbc', connector()), MIN_TASKS),
    'null tasks': (running_but('mm2-src-dst-hbc', {'state': 'RUNNING', 'status': {'tasks': None}}), MIN_TASKS),
    'a null task': (running_but('mm2-src-dst-hbc', {'state': 'RUNNING', 'status': {'tasks': [None, {'state': 'RUNNING'}]}}), MIN_TASKS),
    'no status': (running_but('mm2-src-dst-cpc', {'state': 'RUNNING'}), MIN_TASKS),
    'a null status': (running_but('mm2-src-dst-cpc', {'state': 'RUNNING', 'status': None}), MIN_TASKS),
    'an unassigned task': (running_but('mm2-src-dst-hbc', connector(tasks=['UNASSIGNED'])), MIN_TASKS),
    'a checkpoint connector expected to run a task': (status(RUNNING), dict(MIN_TASKS, **{'mm2-src-dst-cpc': 1})),
    'a task expected of a connector not read': (status(RUNNING), dict(MIN_TASKS, **{'mm2-other': 2})),
    'nothing expected': (status({}), {}),
    'no connectors in the result': ({'missing': []}, {'mm2-a': 0}),
}


def former(registered: Optional[Dict[str, Any]], min_tasks: Dict[str, int]) -> Dict[str, Any]:
    """What vars/main.yml's former Jinja rendered for this result."""
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    variables: Dict[str, Any] = {name: trust_as_template(text) for name, text in old.items()}
    variables['__mirrormaker_expect'] = {'min_tasks': min_tasks}
    if registered is not None:
        variables['__mirrormaker_status'] = registered
    templar = Templar(loader=DataLoader(), variables=variables)
    views = {'settled': '__mirrormaker_settled', 'states': '__mirrormaker_unit_states', 'taskless': '__mirrormaker_taskless',
             'connectors': '__mirrormaker_watched'}
    return {key: templar.template(trust_as_template('{{ %s }}' % name)) for key, name in views.items()}


@pytest.mark.parametrize('registered, min_tasks', CASES.values(), ids=list(CASES))
def test_same_verdict_as_the_former_jinja(registered: Optional[Dict[str, Any]], min_tasks: Dict[str, int]) -> None:
    assert mm2_connectors_settled(registered or {}, min_tasks) == former(registered, min_tasks)


def test_settled_only_when_all_run_and_none_lacks_a_task() -> None:
    assert mm2_connectors_settled(status(RUNNING), MIN_TASKS)['settled'] is True
    lacking = mm2_connectors_settled(running_but('mm2-src-dst-msc', connector(tasks=[])), MIN_TASKS)
    assert lacking['settled'] is False and lacking['taskless'] == ['mm2-src-dst-msc']


def test_states_list_connectors_then_tasks() -> None:
    read = status({'a': connector('RUNNING', ['FAILED']), 'b': connector('PAUSED', ['RUNNING', 'PAUSED'])})
    assert mm2_connectors_settled(read, {})['states'] == ['RUNNING', 'PAUSED', 'FAILED', 'RUNNING', 'PAUSED']


@pytest.mark.parametrize('registered, min_tasks, message', [
    ('RUNNING', {}, 'status must be a mapping'),
    ({'connectors': [], 'missing': []}, {}, 'status.connectors must be a mapping'),
    ({'connectors': {'a': 'RUNNING'}, 'missing': []}, {}, 'connector a must be a mapping'),
    ({'connectors': {'a': {'status': {'tasks': 'RUNNING'}}}, 'missing': []}, {}, 'connector a has no state'),
    ({'connectors': {'a': {'state': 'RUNNING', 'status': {'tasks': 'RUNNING'}}}, 'missing': []}, {},
     'the tasks of connector a must be a list'),
    ({'connectors': {'a': {'state': 'RUNNING', 'status': {'tasks': [{'id': 0}]}}}, 'missing': []}, {}, 'a task of connector a has no state'),
    ({'connectors': {'a': {'state': 'RUNNING', 'status': {'tasks': ['RUNNING']}}}, 'missing': []}, {},
     'a task of connector a must be a mapping'),
    ({'connectors': {}, 'missing': None}, {}, 'status.missing must be a list'),
    ({'connectors': {}, 'missing': []}, [], 'min_tasks must be a mapping'),
    ({'connectors': {}, 'missing': []}, {'a': '1'}, 'min_tasks of a must be a number'),
])
def test_malformed_input_is_refused(registered: Any, min_tasks: Any, message: str) -> None:
    with pytest.raises(AnsibleFilterError, match=message):
        mm2_connectors_settled(registered, min_tasks)
