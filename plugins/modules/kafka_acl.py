#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: kafka_acl
short_description: Converge the ACL bindings of a Kafka cluster, with optional prune of the ones it created
version_added: 0.2.0
description:
  - Lists the cluster's ACLs once with AclCommand, compares them with O(bindings), and adds the missing ones and removes
    the ones declared V(absent), in as few AclCommand runs as possible (one per host, permission, pattern type, set of
    operations and set of resources, with every principal that needs exactly those operations on those resources).
  - With O(prune), also removes the bindings the collection created and no longer declares. The collection knows them
    from O(state_file), a record of every binding it declared present that exists on the cluster, and from
    O(prune_scope), principals whose bindings all belong to the collection. Bindings made by anybody else are left
    alone.
  - The record is kept up to date whether O(prune) is on or not, so turning prune on later removes what earlier runs
    created.
  - Input is checked before anything runs; an error names the binding and the rule it breaks.
author:
  - kafka_dr.mm2 maintainers (!UNKNOWN)
options:
  bindings:
    description:
      - The bindings, in the format of role kafka_dr.mm2.kafka_acls (C(kafka_acls_bindings)).
      - One entry grants several operations to one principal on one resource pattern.
    type: list
    elements: dict
    default: []
    suboptions:
      principal:
        description:
          - Principal, for example V(User:mm2), or V(User:host-1) for a certificate with C(CN=host-1).
        type: str
        required: true
      resource_type:
        description:
          - Resource type.
        type: str
        required: true
        choices: [topic, group, cluster, transactional_id, delegation_token, user]
      name:
        description:
          - Resource name, or prefix with O(bindings[].pattern_type=prefixed); V(*) for all.
          - Required, except for V(cluster), which takes no name.
        type: str
      pattern_type:
        description:
          - How the name matches. A cluster binding is always V(literal).
        type: str
        choices: [literal, prefixed]
        default: literal
      operations:
        description:
          - Operations as AclCommand spells them, among V(All), V(Read), V(Write), V(Create), V(Delete), V(Alter),
            V(Describe), V(ClusterAction), V(DescribeConfigs), V(AlterConfigs), V(IdempotentWrite), V(CreateTokens),
            V(DescribeTokens), V(TwoPhaseCommit).
          - Each must apply to the resource type (for example V(Read) on a topic or group, V(IdempotentWrite) on the
            cluster).
        type: list
        elements: str
        required: true
      permission:
        description:
          - Allow or deny.
        type: str
        choices: [allow, deny]
        default: allow
      host:
        description:
          - Client host the binding applies to; V(*) for any.
        type: str
        default: '*'
      state:
        description:
          - V(absent) removes these operations.
        type: str
        choices: [present, absent]
        default: present
  prune:
    description:
      - Also remove bindings the collection owns (recorded in O(state_file), or of a principal in O(prune_scope)) that
        O(bindings) no longer declares.
    type: bool
    default: false
  prune_scope:
    description:
      - Principals whose bindings all belong to the collection. With O(prune), their bindings that O(bindings) does not
        declare are removed even when the record does not list them (a lost record, bindings made by hand).
      - Leave empty to prune only what the record lists.
    type: list
    elements: str
    default: []
  state_file:
    description:
      - The record of the bindings the collection owns, a JSON file written root-only (0600; its directory is created
        0700, and made 0700 and the module user's again when another user owns it or others can enter it, reported
        as a change). Not written in check mode.
      - Without it nothing is recorded, and prune relies on O(prune_scope) alone.
    type: path
  acl_command_class:
    description:
      - Main class of AclCommand. Kafka 3.x names it V(kafka.admin.AclCommand).
    type: str
    default: org.apache.kafka.tools.AclCommand
extends_documentation_fragment:
  - kafka_dr.mm2.kafka_admin
attributes:
  check_mode:
    description: The listing runs (it only reads); the changes and the record are predicted, not made.
    support: full
  diff_mode:
    description: The cluster's bindings before and after, one line each; the record's content when it changes.
    support: full
seealso:
  - module: kafka_dr.mm2.kafka_scram_user
'''

EXAMPLES = r'''
- name: MirrorMaker 2 reads the source
  kafka_dr.mm2.kafka_acl:
    bootstrap_server: kafka-1:9095
    command_config: /etc/kafka/broker/admin-client.properties
    state_file: /etc/kafka/broker/scram-state/acl-bindings.json
    bindings:
      - {principal: "User:mm2", resource_type: topic, name: "*", operations: [Read, Describe, DescribeConfigs]}
      - {principal: "User:mm2", resource_type: group, name: "*", operations: [Describe]}
      - {principal: "User:mm2", resource_type: cluster, operations: [Describe]}

- name: Same, and revoke what an earlier run granted and this one no longer declares
  kafka_dr.mm2.kafka_acl:
    bootstrap_server: kafka-1:9095
    command_config: /etc/kafka/broker/admin-client.properties
    state_file: /etc/kafka/broker/scram-state/acl-bindings.json
    prune: true
    bindings:
      - {principal: "User:mm2", resource_type: topic, name: "*", operations: [Read, Describe]}
'''

RETURN = r'''
added:
  description: Bindings added (in check mode, that would be added), one per operation.
  returned: always
  type: list
  elements: dict
  sample:
    - {principal: "User:mm2", resource_type: topic, name: "*", pattern_type: literal, operation: Read,
       permission: allow, host: "*"}
removed:
  description: Bindings removed (declared absent, or pruned), one per operation.
  returned: always
  type: list
  elements: dict
  sample: []
pruned:
  description: The part of RV(removed) that only prune asked for.
  returned: always
  type: list
  elements: dict
  sample: []
jvm_runs:
  description: How many AclCommand runs (JVMs) the module started, the listing included.
  returned: always
  type: int
  sample: 1
record_changed:
  description: Whether the state record changed (or would change in check mode).
  returned: always
  type: bool
  sample: false
'''

import os
from typing import Any, Dict, List, NoReturn, Optional, Set

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_acls import (
    AclBinding,
    AclListingError,
    AclPlan,
    AclRecordError,
    after_plan,
    binding_input_errors,
    describe_all,
    desired_bindings,
    group_changes,
    next_record,
    parse_acl_listing,
    plan_acls,
    prune_scope_errors,
    read_record,
    record_document,
    write_record,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_tool import (
    ACL_COMMAND_4,
    KafkaAdmin,
    KafkaToolError,
    admin_argument_spec,
    admin_from_params,
    make_private_directory,
    private_directory_diff,
    private_directory_fault,
)


def argument_spec() -> Dict[str, Dict[str, Any]]:
    spec = admin_argument_spec()
    spec.update(
        bindings={'type': 'list', 'elements': 'dict', 'default': [], 'options': {
            'principal': {'type': 'str', 'required': True},
            'resource_type': {'type': 'str', 'required': True,
                              'choices': ['topic', 'group', 'cluster', 'transactional_id', 'delegation_token', 'user']},
            'name': {'type': 'str'},
            'pattern_type': {'type': 'str', 'choices': ['literal', 'prefixed'], 'default': 'literal'},
            'operations': {'type': 'list', 'elements': 'str', 'required': True},
            'permission': {'type': 'str', 'choices': ['allow', 'deny'], 'default': 'allow'},
            'host': {'type': 'str', 'default': '*'},
            'state': {'type': 'str', 'choices': ['present', 'absent'], 'default': 'present'},
        }},
        prune={'type': 'bool', 'default': False},
        prune_scope={'type': 'list', 'elements': 'str', 'default': []},
        state_file={'type': 'path'},
        acl_command_class={'type': 'str', 'default': ACL_COMMAND_4},
    )
    return spec


def as_dicts(bindings: Set[AclBinding]) -> List[Dict[str, str]]:
    return [binding.as_dict() for binding in sorted(bindings)]


class AclRun:
    """One module run: list, plan, apply, record. Keeps what was applied so far for the report."""

    def __init__(self, module: AnsibleModule, admin: KafkaAdmin) -> None:
        self.module = module
        self.admin = admin
        self.acl_class = module.params['acl_command_class']
        self.added: Set[AclBinding] = set()
        self.removed: Set[AclBinding] = set()

    def list_bindings(self) -> Set[AclBinding]:
        result = self.admin.run(self.acl_class, ['--list'], 'listing the ACLs')
        return parse_acl_listing(result.stdout)

    def apply(self, plan: AclPlan) -> None:
        # Grants first, so a principal never lacks a right it keeps while the run is under way.
        for change in group_changes(plan.to_add):
            self.admin.run(self.acl_class, change.arguments(add=True), 'adding %s' % ', '.join(
                binding.describe() for binding in sorted(change.bindings())))
            self.added |= change.bindings()
        for change in group_changes(plan.to_remove):
            self.admin.run(self.acl_class, change.arguments(add=False), 'removing %s' % ', '.join(
                binding.describe() for binding in sorted(change.bindings())))
            self.removed |= change.bindings()


def fail(module: AnsibleModule, msg: str, run: Optional[AclRun] = None, **extra: Any) -> NoReturn:
    applied: Dict[str, Any] = {}
    if run is not None:
        applied = {'added': as_dicts(run.added), 'removed': as_dicts(run.removed), 'jvm_runs': len(run.admin.runs),
                   'changed': bool(run.added or run.removed)}
    module.fail_json(msg=msg, **applied, **extra)


def check_input(module: AnsibleModule) -> None:
    errors = binding_input_errors(module.params['bindings']) + prune_scope_errors(module.params['prune_scope'])
    if errors:
        fail(module, 'kafka_acl: %s. Nothing was changed.' % '; '.join(errors), errors=errors)


def converge(module: AnsibleModule, admin: KafkaAdmin) -> Dict[str, Any]:
    params = module.params
    desired = desired_bindings(params['bindings'])[0]
    state_dir = os.path.dirname(params['state_file'] or '')
    try:
        state_dir_fault = private_directory_fault(state_dir) if state_dir else None
        recorded = read_record(params['state_file'])
    except NotADirectoryError:
        fail(module, 'kafka_acl: %s is not a directory. Nothing was changed.' % state_dir)
    except AclRecordError as exc:
        fail(module, str(exc))
    if state_dir_fault and not module.check_mode:
        make_private_directory(state_dir)
    run = AclRun(module, admin)
    try:
        current = run.list_bindings()
    except KafkaToolError as exc:
        fail(module, 'kafka_acl: %s failed: %s. Nothing was changed.' % (exc.action, exc.reason), run, rc=exc.result.rc)
    except AclListingError as exc:
        fail(module, 'kafka_acl: %s. Nothing was changed.' % exc, run)
    plan = plan_acls(current, desired, recorded, params['prune'], params['prune_scope'])
    if not params['prune'] and params['prune_scope']:
        module.warn('prune_scope has no effect without prune')

    error: Optional[KafkaToolError] = None
    if module.check_mode:
        added, removed = set(plan.to_add), set(plan.to_remove)
    else:
        try:
            run.apply(plan)
        except KafkaToolError as exc:
            error = exc
        added, removed = run.added, run.removed
    after = after_plan(current, added, removed)
    record = next_record(recorded, desired, after)
    record_changed = bool(params['state_file']) and record != recorded
    if record_changed and not module.check_mode:
        # Written after a failure too: what was applied before it is the collection's.
        write_record(params['state_file'], record)
    if error is not None:
        fail(module, 'kafka_acl: %s failed: %s' % (error.action, error.reason), run, rc=error.result.rc)

    result: Dict[str, Any] = {
        'changed': bool(added or removed or record_changed or state_dir_fault),
        'state_dir_corrected': state_dir_fault,
        'added': as_dicts(added),
        'removed': as_dicts(removed),
        'pruned': as_dicts(set(plan.pruned) & removed),
        'jvm_runs': len(admin.runs),
        'record_changed': record_changed,
    }
    if module._diff:
        header = 'ACLs of %s' % params['bootstrap_server']
        diffs = [{'before': describe_all(current), 'after': describe_all(after),
                  'before_header': header, 'after_header': header}]
        if record_changed:
            diffs.append({'before': record_document(recorded), 'after': record_document(record),
                          'before_header': params['state_file'], 'after_header': params['state_file']})
        if state_dir_fault:
            diffs.append(private_directory_diff(state_dir, state_dir_fault))
        result['diff'] = diffs
    return result


def main() -> None:
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    check_input(module)
    module.exit_json(**converge(module, admin_from_params(module.params)))


if __name__ == '__main__':
    main()
