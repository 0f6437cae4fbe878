# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The checks of modules kafka_acl and kafka_scram_user, for the role to run before anything changes."""

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_acls_input_errors
short_description: What is wrong with SCRAM accounts and ACL bindings, before anything is applied
version_added: 0.2.0
description:
  - Runs the input checks of modules M(kafka_dr.mm2.kafka_scram_user) and M(kafka_dr.mm2.kafka_acl) on the controller,
    so role kafka_dr.mm2.kafka_acls stops before it changes an account when a binding is wrong, and the other way round.
  - Covers the rules a type check cannot express, one message per broken rule, each naming the account or binding
    (account names, binding principals, never passwords).
  - For bindings, a principal of the form C(Type:name); a name for every resource but the cluster, which takes none
    and is always literal; operations that exist and apply to the resource type; no binding both present and absent.
  - For accounts, a name Kafka accepts; a password unless the state is absent; at least 4096 iterations; no account
    and mechanism declared twice.
options:
  _input:
    description: The role's inputs, under the keys C(bindings), C(prune_scope), C(scram_users), C(scram_mechanism)
      and C(scram_iterations); missing keys are not checked.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Stop on bad input
  ansible.builtin.assert:
    that: kafka_acls_errors | length == 0
    fail_msg: "{{ kafka_acls_errors | join('; ') }}"
  vars:
    kafka_acls_errors: >-
      {{ {'bindings': kafka_acls_bindings, 'scram_users': kafka_acls_scram_users,
          'scram_mechanism': kafka_acls_scram_mechanism, 'scram_iterations': kafka_acls_scram_iterations}
         | kafka_dr.mm2.kafka_acls_input_errors }}
"""

RETURN = r"""
_value:
  description: One message per broken rule; empty when the input is valid.
  type: list
  elements: str
"""

from typing import Any, Dict, List

from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_acls import binding_input_errors, prune_scope_errors
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_scram import account_errors


def kafka_acls_input_errors(inputs: Dict[str, Any]) -> List[str]:
    if not isinstance(inputs, dict):
        raise AnsibleFilterError('kafka_acls_input_errors expects a dictionary, got %s' % type(inputs).__name__)
    errors: List[str] = []
    if 'scram_users' in inputs:
        errors += account_errors(inputs['scram_users'], inputs.get('scram_mechanism', 'SCRAM-SHA-512'),
                                 inputs.get('scram_iterations', 8192))
    if 'bindings' in inputs:
        errors += binding_input_errors(inputs['bindings'])
    if 'prune_scope' in inputs:
        errors += prune_scope_errors(inputs['prune_scope'])
    return errors


class FilterModule:
    def filters(self) -> dict:
        return {'kafka_acls_input_errors': kafka_acls_input_errors}
