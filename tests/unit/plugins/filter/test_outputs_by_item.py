"""outputs_by_item gives role mirrormaker the views of registered results its former Jinja gave.

fixtures/mirrormaker_outputs_jinja.yml holds that Jinja as it stood; each case renders it with
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

from ansible_collections.kafka_dr.mm2.plugins.filter.outputs_by_item import outputs_by_item

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'mirrormaker_outputs_jinja.yml'


def result(alias: str, stdout: str, rc: int = 0) -> Dict[str, Any]:
    return {'item': {'key': alias, 'value': ['heartbeats']}, 'stdout': stdout, 'rc': rc, 'changed': False}


CASES: Dict[str, Any] = {
    'nothing listed': ([], []),
    'one cluster described': ([result('dst', 'Topic: src.heartbeats\tTopicId: x')], []),
    'a failed description is left out': ([result('dst', 'Topic: a'), result('src', 'Error', rc=1)], []),
    'the heartbeats read add clusters': ([result('dst', 'Topic: a')], [result('src', 'Topic: dst.heartbeats')]),
    'the heartbeats read win': ([result('dst', 'old'), result('src', 'kept')], [result('dst', 'new')]),
    'a repeated key keeps the last': ([result('dst', 'first'), result('dst', 'second')], [result('src', 'a'), result('src', 'b')]),
    'empty outputs': ([result('dst', '')], [result('src', '')]),
}


def jinja_views(listed: List[Dict[str, Any]], read: List[Dict[str, Any]]) -> Dict[str, Any]:
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    variables: Dict[str, Any] = {name: trust_as_template(text) for name, text in old.items()}
    variables.update(__mirrormaker_listed=listed, __mirrormaker_heartbeats_read=read)
    templar = Templar(loader=DataLoader(), variables=variables)
    return {name: templar.template(trust_as_template('{{ %s }}' % name)) for name in old}


@pytest.mark.parametrize('listed, read', CASES.values(), ids=list(CASES))
def test_same_views_as_the_former_jinja(listed: List[Dict[str, Any]], read: List[Dict[str, Any]]) -> None:
    described = outputs_by_item([entry for entry in listed if entry['rc'] == 0], 'item.key')
    assert jinja_views(listed, read) == {
        '__mirrormaker_described': described,
        'log_append_time_described': dict(described, **outputs_by_item(read, 'item.key')),
    }


def test_defaults_read_the_item_and_stdout() -> None:
    assert outputs_by_item([{'item': 'src', 'stdout': 'a', 'stdout_lines': ['a']}]) == {'src': 'a'}
    assert outputs_by_item([{'item': 'src', 'stdout_lines': ['a']}], value='stdout_lines') == {'src': ['a']}


@pytest.mark.parametrize('results, message', [
    ([{'item': {'key': 'src'}}], 'no stdout'),
    ([{'item': 'src', 'stdout': ''}], 'no item.key'),
    ({'results': []}, 'expects a list'),
])
def test_malformed_results_are_refused(results: Any, message: str) -> None:
    with pytest.raises(AnsibleFilterError, match=message):
        outputs_by_item(results, 'item.key')
