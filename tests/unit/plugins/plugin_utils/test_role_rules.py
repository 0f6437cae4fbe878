"""role_rules reads numbers and switches as the roles' Jinja read them (| int, | bool)."""

from __future__ import annotations

from typing import Any

import pytest
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.role_rules import jinja_bool, jinja_int, jinja_text

VALUES = [0, 1, -3, 8083, '8083', ' 42 ', '42.9', '-7', 'eighty', '', None, True, False, 3.99, '1_000', [1]]
SWITCHES = [True, False, 'yes', 'No', 'on', 'OFF', 'true', 'False', 'y', 't', '1', '0', 1, 0, 1.0]


def render(expression: str, value: Any) -> Any:
    return Templar(loader=DataLoader(), variables={'value': value}).template(trust_as_template(expression))


@pytest.mark.parametrize('value', VALUES, ids=[repr(value) for value in VALUES])
def test_int_as_jinja(value: Any) -> None:
    assert jinja_int(value) == render('{{ value | int }}', value)


@pytest.mark.parametrize('value', SWITCHES, ids=[repr(value) for value in SWITCHES])
def test_bool_as_ansible(value: Any) -> None:
    assert jinja_bool(value) is render('{{ value | bool }}', value)


@pytest.mark.parametrize('value', ['text', 8083, True], ids=repr)
def test_text_as_a_message_prints_it(value: Any) -> None:
    assert jinja_text(value) == render('got {{ value }}', value)[4:]
