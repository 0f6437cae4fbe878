# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The role's input check: the modules' rules on the controller, before either module changes anything."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.kafka_acls_input_errors import FilterModule

check = FilterModule().filters()['kafka_acls_input_errors']


def test_valid_input_has_no_errors() -> None:
    assert check({'bindings': [{'principal': 'User:mm2', 'resource_type': 'cluster', 'operations': ['Describe']}],
                  'prune_scope': ['User:mm2'], 'scram_users': [{'name': 'mm2', 'password': 'secret'}],
                  'scram_mechanism': 'SCRAM-SHA-512', 'scram_iterations': 8192}) == []


def test_accounts_bindings_and_scope_are_all_checked() -> None:
    errors = check({'bindings': [{'principal': 'User:mm2', 'resource_type': 'topic', 'operations': ['Read']}],
                    'prune_scope': ['mm2'], 'scram_users': [{'name': 'mm2'}],
                    'scram_mechanism': 'SCRAM-SHA-512', 'scram_iterations': 8192})

    assert errors == ['account mm2: a password is required unless the state is absent',
                      'binding 1 (User:mm2 topic:?): name is required for a topic binding (* for all)',
                      "prune scope: 'mm2' is not a principal (Type:name, for example User:mm2)"]


def test_keys_left_out_are_not_checked() -> None:
    assert check({}) == []
    with pytest.raises(AnsibleFilterError):
        check(['not', 'a', 'dict'])
