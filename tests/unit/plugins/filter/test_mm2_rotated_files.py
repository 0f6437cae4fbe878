"""mm2_rotated_files names the secret files and keytabs role mirrormaker's former Jinja named.

fixtures/mirrormaker_vars_jinja.yml holds that Jinja as it was in vars/main.yml; each case renders
it with Ansible's templar and compares with the filter. The former union left the order to a set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Optional

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.mm2_rotated_files import mm2_rotated_files

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'mirrormaker_vars_jinja.yml'
SECRETS = '/etc/kafka/connect/secrets'
SKIPPED = {'changed': False, 'skipped': True, 'skip_reason': 'Conditional result was False'}


def written(*names: str) -> Dict[str, Any]:
    return {'changed': bool(names), 'changed_paths': ['%s/%s' % (SECRETS, name) for name in names], 'skipped_paths': []}


def keytabs(**changed: bool) -> Dict[str, Any]:
    results = [{'item': {'key': name, 'value': 'files/%s' % name}, 'changed': flag, 'ansible_loop_var': 'item'}
               for name, flag in changed.items()]
    return {'changed': any(changed.values()), 'results': results}


# (secret_writes, early_secret_writes, keytab_writes); None: the task did not run.
CASES: Dict[str, Any] = {
    'nothing ran': (None, None, None),
    'everything skipped': (SKIPPED, SKIPPED, {'changed': False, 'skipped': True, 'results': []}),
    'nothing changed': (written(), written(), keytabs(**{'mm2.keytab': False})),
    'files of this play': (written('mm2.properties', 'tls.properties'), None, None),
    'files of the connect play': (SKIPPED, written('mm2.properties'), None),
    'a file written twice, a keytab of the same name': (written('a.properties'), written('a.properties'), keytabs(**{'a.properties': True})),
    'changed keytabs only': (written(), None, keytabs(**{'mm2.keytab': True, 'other.keytab': False, 'dr.keytab': True})),
    'a path without a directory': ({'changed_paths': ['plain.properties']}, None, None),
}


def former(registered: Dict[str, Optional[Dict[str, Any]]]) -> Any:
    """What vars/main.yml's former Jinja rendered for these results."""
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    variables: Dict[str, Any] = {name: trust_as_template(text) for name, text in old.items()}
    variables.update({name: value for name, value in registered.items() if value is not None})
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template('{{ __mirrormaker_rotated_files }}'))


@pytest.mark.parametrize('secret_writes, early_secret_writes, keytab_writes', CASES.values(), ids=list(CASES))
def test_same_files_as_the_former_jinja(secret_writes: Any, early_secret_writes: Any, keytab_writes: Any) -> None:
    names = mm2_rotated_files(secret_writes or {}, early_secret_writes or {}, keytab_writes or {})
    expected = former({'__mirrormaker_secret_writes': secret_writes, '__mirrormaker_early_secret_writes': early_secret_writes,
                       '__mirrormaker_keytab_writes': keytab_writes})
    assert sorted(names) == sorted(expected)
    assert len(names) == len(set(names))


def test_names_keep_the_order_of_the_results() -> None:
    names = mm2_rotated_files(written('b', 'a'), written('c', 'a'), keytabs(z=True, b=True))
    assert names == ['b', 'a', 'c', 'z']


@pytest.mark.parametrize('arguments, message', [
    (([], {}, {}), 'secret_writes must be a mapping'),
    (({'changed_paths': 'a'}, {}, {}), r'secret_writes.changed_paths must be a list'),
    (({}, {}, {'results': [{'changed': True}]}), 'no item.key'),
    (({}, {}, {'results': {}}), r'keytab_writes.results must be a list'),
])
def test_malformed_results_are_refused(arguments: Any, message: str) -> None:
    with pytest.raises(AnsibleFilterError, match=message):
        mm2_rotated_files(*arguments)
