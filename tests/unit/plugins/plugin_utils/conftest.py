# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plan requests as the mirrormaker role builds them, with the role's real built-in flow defaults."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Callable, Dict

import pytest
import yaml

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_plan import plan

ROLE_DIR = Path(__file__).resolve().parents[4] / 'roles' / 'mirrormaker'
SECRETS_DIR = '/etc/kafka/connect/secrets'


@pytest.fixture(scope='session')
def role_defaults() -> Dict[str, Any]:
    return yaml.safe_load((ROLE_DIR / 'defaults' / 'main.yml').read_text())


@pytest.fixture
def builtin_defaults(role_defaults: Dict[str, Any]) -> Dict[str, Any]:
    return copy.deepcopy(role_defaults['mirrormaker_flow_builtin_defaults'])


@pytest.fixture
def lab_clusters() -> Dict[str, Any]:
    return {'src': {'bootstrap_servers': 'src-kafka-1:9092'}, 'dst': {'bootstrap_servers': ['dst-kafka-1:9092']}}


@pytest.fixture
def make_request(builtin_defaults: Dict[str, Any], lab_clusters: Dict[str, Any]) -> Callable[..., Dict[str, Any]]:
    """A plan request as the role sends it; keyword arguments replace its parts."""
    def build(**parts: Any) -> Dict[str, Any]:
        request = {
            'clusters': copy.deepcopy(lab_clusters),
            'flows': [{'source': 'src', 'target': 'dst', 'topics': ['foo\\..*']}],
            'builtin_defaults': copy.deepcopy(builtin_defaults),
            'site_defaults': {},
            'connector_prefix': 'mm2-',
            'secrets_dir': SECRETS_DIR,
            'secret_file_names': [],
            'deploy_host': 'task-1-1',
            'groups': {'all': ['task-1-1', 'task-1-2'], 'connect_workers': ['task-1-1', 'task-1-2'],
                       'connect_dr': ['task-2-1']},
        }
        request.update(parts)
        return request
    return build


@pytest.fixture
def plan_ok(make_request: Callable[..., Dict[str, Any]]) -> Callable[..., Dict[str, Any]]:
    """Plan and insist there is no error."""
    def run(**parts: Any) -> Dict[str, Any]:
        result = plan(make_request(**parts))
        assert result['errors'] == []
        return result
    return run


@pytest.fixture
def plan_errors(make_request: Callable[..., Dict[str, Any]]) -> Callable[..., str]:
    """Plan and return the errors as one text (there must be some)."""
    def run(**parts: Any) -> str:
        result = plan(make_request(**parts))
        assert result['errors'], 'expected the model to be rejected'
        assert result['connectors'] == [] and result['clusters'] == {}, 'a rejected model plans nothing'
        return '\n'.join(result['errors'])
    return run
