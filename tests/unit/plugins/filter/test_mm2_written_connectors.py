"""mm2_written_connectors names the connectors role mirrormaker's former Jinja named as written.

fixtures/mirrormaker_vars_jinja.yml holds that Jinja as it was in vars/main.yml; each case renders
it with Ansible's templar and compares with the filter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Optional

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.mm2_written_connectors import mm2_written_connectors

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'mirrormaker_vars_jinja.yml'


def deployed(**changed: bool) -> Dict[str, Any]:
    results = [{'item': {'name': name, 'config': {}, 'secret_file_names': []}, 'changed': flag, 'ansible_loop_var': 'item'}
               for name, flag in changed.items()]
    return {'changed': any(changed.values()), 'results': results}


CASES: Dict[str, Optional[Dict[str, Any]]] = {
    'not run': None,
    'skipped': {'changed': False, 'skipped': True, 'skip_reason': 'Conditional result was False'},
    'no connector': {'changed': False, 'skipped': True, 'results': [], 'msg': 'No items in the list'},
    'nothing changed': deployed(**{'mm2-src-dst-msc': False, 'mm2-src-dst-cpc': False}),
    'some written': deployed(**{'mm2-src-dst-msc': True, 'mm2-src-dst-cpc': False, 'mm2-src-dst-hbc': True}),
}


def former(registered: Optional[Dict[str, Any]]) -> Any:
    """What vars/main.yml's former Jinja rendered for this result."""
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    variables: Dict[str, Any] = {name: trust_as_template(text) for name, text in old.items()}
    if registered is not None:
        variables['__mirrormaker_deployed'] = registered
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template('{{ __mirrormaker_written_names }}'))


@pytest.mark.parametrize('registered', CASES.values(), ids=list(CASES))
def test_same_names_as_the_former_jinja(registered: Optional[Dict[str, Any]]) -> None:
    assert mm2_written_connectors(registered or {}) == former(registered)


def test_names_keep_the_order_of_the_loop() -> None:
    assert mm2_written_connectors(deployed(b=True, a=False, c=True)) == ['b', 'c']


@pytest.mark.parametrize('registered, message', [
    ('changed', 'deployed must be a mapping'),
    ({'results': [{'changed': True, 'item': 'mm2-a'}]}, 'no item.name'),
    ({'results': ['mm2-a']}, 'each of deployed.results must be a mapping'),
])
def test_malformed_results_are_refused(registered: Any, message: str) -> None:
    with pytest.raises(AnsibleFilterError, match=message):
        mm2_written_connectors(registered)
