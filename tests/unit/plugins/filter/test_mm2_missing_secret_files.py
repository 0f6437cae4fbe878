"""mm2_missing_secret_files finds the secret files role mirrormaker's former Jinja found missing.

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

from ansible_collections.kafka_dr.mm2.plugins.filter.mm2_missing_secret_files import mm2_missing_secret_files

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'mirrormaker_vars_jinja.yml'
SECRETS = '/etc/kafka/connect/secrets'
SECRET_FILES = {'mm2.properties': {'sasl.password': 'x'}, 'tls.properties': {'ssl.truststore.password': 'y'}}
KEYTABS = {'mm2.keytab': 'files/mm2.keytab'}
MISSING = ['%s/mm2.properties' % SECRETS, '/etc/other/dr.properties', '%s/mm2.keytab' % SECRETS, '%s/gone.properties' % SECRETS]

# (path_info result or None when it did not run, secrets_dir, secret files, keytabs)
CASES: Dict[str, Any] = {
    'not run': (None, SECRETS, SECRET_FILES, KEYTABS),
    'skipped': ({'changed': False, 'skipped': True}, SECRETS, SECRET_FILES, KEYTABS),
    'nothing missing': ({'missing': [], 'present': ['%s/mm2.properties' % SECRETS]}, SECRETS, SECRET_FILES, KEYTABS),
    'some missing': ({'missing': MISSING}, SECRETS, SECRET_FILES, KEYTABS),
    'secrets directory with trailing slashes': ({'missing': MISSING}, SECRETS + '//', SECRET_FILES, KEYTABS),
    'no files written by the role': ({'missing': MISSING}, SECRETS, {}, {}),
    'secrets directory elsewhere': ({'missing': MISSING}, '/etc/kafka/other', SECRET_FILES, KEYTABS),
    'the root as secrets directory': ({'missing': ['/mm2.properties', '/x']}, '/', SECRET_FILES, {}),
}


def former(path_info: Optional[Dict[str, Any]], secrets_dir: str, secret_files: Dict[str, Any], keytabs: Dict[str, Any],
           check_mode: bool) -> Any:
    """What vars/main.yml's former Jinja rendered for these settings and result."""
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    variables: Dict[str, Any] = {name: trust_as_template(text) for name, text in old.items()}
    variables.update(mirrormaker_secrets_dir=secrets_dir, mirrormaker_secret_files=secret_files, mirrormaker_keytab_files=keytabs,
                     ansible_check_mode=check_mode)
    if path_info is not None:
        variables['__mirrormaker_secret_paths'] = path_info
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template('{{ __mirrormaker_missing_secret_files }}'))


@pytest.mark.parametrize('check_mode', [False, True], ids=['run', 'check mode'])
@pytest.mark.parametrize('path_info, secrets_dir, secret_files, keytabs', CASES.values(), ids=list(CASES))
def test_same_files_as_the_former_jinja(path_info: Optional[Dict[str, Any]], secrets_dir: str, secret_files: Dict[str, Any],
                                        keytabs: Dict[str, Any], check_mode: bool) -> None:
    found = mm2_missing_secret_files(path_info or {}, secrets_dir, secret_files, keytabs, check_mode)
    assert found == former(path_info, secrets_dir, secret_files, keytabs, check_mode)


def test_check_mode_leaves_out_what_the_run_writes() -> None:
    found = mm2_missing_secret_files({'missing': MISSING}, SECRETS, SECRET_FILES, KEYTABS, True)
    assert found == ['/etc/other/dr.properties', '%s/gone.properties' % SECRETS]


@pytest.mark.parametrize('arguments, message', [
    ((['/x'], SECRETS, {}, {}, False), 'path_info must be a mapping'),
    (({'missing': '/x'}, SECRETS, {}, {}, False), 'path_info.missing must be a list'),
    (({'missing': ['/x']}, SECRETS, ['mm2.properties'], {}, True), 'secret_files must be a mapping'),
])
def test_malformed_input_is_refused(arguments: Any, message: str) -> None:
    with pytest.raises(AnsibleFilterError, match=message):
        mm2_missing_secret_files(*arguments)
