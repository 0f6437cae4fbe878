"""mm2_client_config_dir gives the directory role mirrormaker's former Jinja gave the topic checks' client settings.

fixtures/mirrormaker_vars_jinja.yml holds that Jinja as it was in vars/main.yml; each case renders
it with Ansible's templar and compares with the filter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

import pytest
import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.mm2_client_config_dir import mm2_client_config_dir

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'mirrormaker_vars_jinja.yml'
BASE = '/etc/kafka-dr/mm2-clients'

CASES = [
    (BASE, ''), (BASE, 'mm2-'), (BASE + '/', 'mm2-'), (BASE + '///', ''), (BASE, 'prod/a b'), (BASE, 'dc-2.east_'),
    (BASE, 'ünïcode:*'), ('/', 'mm2-'), ('/', ''), (BASE, None),
]


def former(config_dir: str, prefix: Any) -> Dict[str, Any]:
    """What vars/main.yml's former Jinja rendered for these settings."""
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    variables: Dict[str, Any] = {name: trust_as_template(text) for name, text in old.items()}
    variables.update(mirrormaker_client_config_dir=config_dir, mirrormaker_connector_prefix=prefix)
    templar = Templar(loader=DataLoader(), variables=variables)
    return {'path': templar.template(trust_as_template('{{ __mirrormaker_client_dir }}')),
            'subdir': templar.template(trust_as_template('{{ __mirrormaker_client_subdir }}'))}


@pytest.mark.parametrize('config_dir, prefix', CASES)
def test_same_directory_as_the_former_jinja(config_dir: str, prefix: Any) -> None:
    assert mm2_client_config_dir(config_dir, prefix) == former(config_dir, prefix)


def test_a_prefix_has_a_directory_of_its_own() -> None:
    assert mm2_client_config_dir(BASE + '/', 'prod/a') == {'path': BASE + '/prod_a', 'subdir': True}
    assert mm2_client_config_dir(BASE + '/', '') == {'path': BASE, 'subdir': False}
