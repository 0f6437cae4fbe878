# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Connect's string form of a value, and the three places that render values with it."""

from __future__ import annotations

from typing import Any

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.properties import to_properties
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_config import ConfigError, normalise_config
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_values import connect_string
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_common import ModelErrors, connect_settings

VALUES = [(True, 'true'), (False, 'false'), (3, '3'), (-1, '-1'), (0.5, '0.5'), ('x y', 'x y'), ('', ''),
          (['a', 'b'], 'a,b'), (('a', 1, True), 'a,1,true'), ([], '')]


@pytest.mark.parametrize(('value', 'text'), VALUES)
def test_values_take_the_form_connect_stores(value: Any, text: str) -> None:
    assert connect_string(value) == text


@pytest.mark.parametrize(('value', 'message'), [(None, 'has no value'), ({'a': 1}, 'got dict'), ([{'a': 1}], 'got dict')])
def test_values_without_a_string_form_are_refused(value: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        connect_string(value)


@pytest.mark.parametrize(('value', 'text'), VALUES)
def test_module_planner_and_filter_render_alike(value: Any, text: str) -> None:
    assert normalise_config({'k': value}, 'n')['k'] == text
    errors = ModelErrors()
    assert connect_settings('flow', 'extra_config.source', {'k': value}, errors) == {'k': text} and not errors
    assert to_properties({'k': value}) == 'k=%s\n' % text


def test_each_place_names_the_key_at_fault() -> None:
    with pytest.raises(ConfigError, match='config key "k" must be a string, number, boolean or list, got dict'):
        normalise_config({'k': {'a': 1}}, 'n')
    with pytest.raises(AnsibleFilterError, match='the value of k must be a string'):
        to_properties({'k': {'a': 1}})
    errors = ModelErrors()
    connect_settings('flow #1', 'consumer', {'fetch.min.bytes': {'a': 1}}, errors)
    assert errors.messages == ['flow #1: consumer: fetch.min.bytes must be a string, number, boolean or list, got dict']
