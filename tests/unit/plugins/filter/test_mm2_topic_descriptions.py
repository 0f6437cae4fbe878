"""mm2_topic_descriptions gives role mirrormaker the topic descriptions by cluster its former Jinja gave.

fixtures/mirrormaker_vars_jinja.yml holds that Jinja as it was in vars/main.yml and tasks/verify.yml;
each case renders it with Ansible's templar and compares with the filter: the topic check's
descriptions, and those handed to mm2_plan's log_append_time operation with the heartbeats topics'
own descriptions. A heartbeats description that failed stops the play, so it never reaches them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.mm2_topic_descriptions import mm2_topic_descriptions
from ansible_collections.kafka_dr.mm2.plugins.filter.outputs_by_item import outputs_by_item

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'mirrormaker_vars_jinja.yml'
# The former Jinja's calls of a collection filter, which a bare templar does not load: the same
# function, called as a global.
FILTER_CALLS = (
    ("__mirrormaker_listed | selectattr('rc', 'eq', 0) | kafka_dr.mm2.outputs_by_item('item.key')",
     "outputs_by_item(__mirrormaker_listed | selectattr('rc', 'eq', 0), 'item.key')"),
    ("__mirrormaker_heartbeats_read | kafka_dr.mm2.outputs_by_item('item.key')", "outputs_by_item(__mirrormaker_heartbeats_read, 'item.key')"),
)


def result(alias: str, stdout: str, rc: int = 0) -> Dict[str, Any]:
    return {'item': {'key': alias, 'value': ['heartbeats']}, 'stdout': stdout, 'stdout_lines': stdout.splitlines(), 'rc': rc,
            'changed': False}


def skipped(alias: str) -> Dict[str, Any]:
    return {'item': {'key': alias, 'value': 'src\\.heartbeats'}, 'skipped': True, 'changed': False, 'false_condition': '...'}


# (the topic check's results, the heartbeats descriptions' results or None when that task did not run)
CASES: Dict[str, Any] = {
    'nothing checked': ([], None),
    'one cluster described': ([result('dst', 'Topic: src.heartbeats\tTopicId: x')], None),
    'a failed check is left out': ([result('dst', 'Topic: a'), result('src', 'Error', rc=1)], {'results': []}),
    'skipped checks are left out': ([skipped('src'), result('dst', 'Topic: a')], {'results': [skipped('dst')]}),
    'the heartbeats read add clusters': ([result('dst', 'Topic: a')], {'results': [skipped('dst'), result('src', 'Topic: dst.heartbeats')]}),
    'the heartbeats read win': ([result('dst', 'old'), result('src', 'kept')], {'results': [result('dst', 'new')]}),
    'a repeated key keeps the last': ([result('dst', 'first'), result('dst', 'second')], {'results': [result('src', 'a'), result('src', 'b')]}),
    'the heartbeats task skipped': ([result('dst', 'Topic: a')], {'changed': False, 'skipped': True}),
    'empty outputs': ([result('dst', '')], {'results': [result('src', '')]}),
}


def former(results: List[Dict[str, Any]], heartbeats: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """What the role's former Jinja rendered for these results."""
    source = OLD_JINJA.read_text(encoding='utf-8')
    for call, global_call in FILTER_CALLS:
        assert call in source
        source = source.replace(call, global_call)
    old = yaml.safe_load(source)
    variables: Dict[str, Any] = {name: trust_as_template(text) for name, text in old.items()}
    variables.update(__mirrormaker_topic_listing={'results': results}, outputs_by_item=outputs_by_item)
    if heartbeats is not None:
        variables['__mirrormaker_heartbeats_described'] = heartbeats
    templar = Templar(loader=DataLoader(), variables=variables)
    return {name: templar.template(trust_as_template('{{ %s }}' % name)) for name in ('__mirrormaker_described', 'log_append_time_described')}


@pytest.mark.parametrize('results, heartbeats', CASES.values(), ids=list(CASES))
def test_same_descriptions_as_the_former_jinja(results: List[Dict[str, Any]], heartbeats: Optional[Dict[str, Any]]) -> None:
    described = mm2_topic_descriptions(results)
    heartbeats_read = mm2_topic_descriptions((heartbeats or {}).get('results', []))
    assert former(results, heartbeats) == {'__mirrormaker_described': described,
                                           'log_append_time_described': dict(described, **heartbeats_read)}


@pytest.mark.parametrize('results, message', [
    ({'results': []}, 'results must be a list'),
    (['dst'], 'each result must be a mapping'),
    ([{'stdout': 'x', 'rc': 0}], 'no item.key'),
])
def test_malformed_results_are_refused(results: Any, message: str) -> None:
    with pytest.raises(AnsibleFilterError, match=message):
        mm2_topic_descriptions(results)
