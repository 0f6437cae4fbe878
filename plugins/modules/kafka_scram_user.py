#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: kafka_scram_user
short_description: Create, update and delete the SCRAM accounts of a Kafka cluster without exposing passwords
version_added: 0.2.0
description:
  - Lists the cluster's SCRAM credentials once with ConfigCommand, then alters only the accounts that lack the
    mechanism, whose iterations differ from the listing, or whose settings changed since the module last applied them.
  - The cluster keeps only salted hashes, so a password cannot be compared with it. The module keeps a salted SHA-512
    fingerprint of each account's name, mechanism, iterations and password in O(state_dir) (root-only, 0600 files in a
    0700 directory); the salt is random and created once.
  - A password reaches ConfigCommand in a root-only file (C(--add-config-file)) removed right after; it is never on a
    command line, in a returned value or in a message.
  - Accounts with O(users[].state=absent) lose the credential of their mechanism, and their fingerprint is forgotten.
    Accounts not listed are left alone.
author:
  - kafka_dr.mm2 maintainers (!UNKNOWN)
options:
  users:
    description:
      - The accounts, in the format of role kafka_dr.mm2.kafka_acls (C(kafka_acls_scram_users)).
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description:
          - Account name (letters, digits, C(.), C(_), C(@), C(-)); the principal is C(User:<name>).
        type: str
        required: true
      password:
        description:
          - Password; required unless O(users[].state=absent).
        type: str
      mechanism:
        description:
          - Mechanism; O(mechanism) by default.
        type: str
        choices: [SCRAM-SHA-512, SCRAM-SHA-256]
      iterations:
        description:
          - Hash iterations, at least 4096; O(iterations) by default.
        type: int
      state:
        description:
          - V(absent) deletes the account's credential for its mechanism.
        type: str
        choices: [present, absent]
        default: present
  mechanism:
    description:
      - Default mechanism of the accounts.
    type: str
    choices: [SCRAM-SHA-512, SCRAM-SHA-256]
    default: SCRAM-SHA-512
  iterations:
    description:
      - Default hash iterations of the accounts (at least 4096).
    type: int
    default: 8192
  state_dir:
    description:
      - Root-only directory with the salt and the fingerprints of what was applied; created 0700 when missing, and
        made 0700 and the module user's again when another user owns it or others can enter it (reported as a
        change). Not touched in check mode.
    type: path
    required: true
  config_command_class:
    description:
      - Main class of ConfigCommand.
    type: str
    default: kafka.admin.ConfigCommand
extends_documentation_fragment:
  - kafka_dr.mm2.kafka_admin
attributes:
  check_mode:
    description: The listing runs (it only reads); nothing is written or altered.
    support: full
  diff_mode:
    description: Accounts, mechanisms and iterations before and after, and a state directory made private; never a password.
    support: full
seealso:
  - module: kafka_dr.mm2.kafka_acl
'''

EXAMPLES = r'''
- name: Accounts of the Connect workers and of MirrorMaker 2
  kafka_dr.mm2.kafka_scram_user:
    bootstrap_server: kafka-1:9095
    command_config: /etc/kafka/broker/admin-client.properties
    state_dir: /etc/kafka/broker/scram-state
    users:
      - {name: connect, password: "{{ vault_connect_password }}"}
      - {name: mm2, password: "{{ vault_mm2_password }}", iterations: 16384}
      - {name: retired, state: absent}
'''

RETURN = r'''
set:
  description: Accounts created or updated (in check mode, that would be), as C(name) and C(mechanism).
  returned: always
  type: list
  elements: dict
  sample: [{name: mm2, mechanism: SCRAM-SHA-512}]
deleted:
  description: Accounts whose credential was deleted (in check mode, would be), as C(name) and C(mechanism).
  returned: always
  type: list
  elements: dict
  sample: []
jvm_runs:
  description: How many ConfigCommand runs (JVMs) the module started, the listing included.
  returned: always
  type: int
  sample: 1
'''

import os
from typing import Any, Dict, List, NoReturn, Optional

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_scram import (
    ScramAccount,
    StateDir,
    account_errors,
    describe_accounts,
    parse_scram_listing,
    plan_scram,
    resolve_accounts,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_tool import (
    CONFIG_COMMAND,
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
        users={'type': 'list', 'elements': 'dict', 'default': [], 'options': {
            'name': {'type': 'str', 'required': True},
            'password': {'type': 'str', 'no_log': True},
            'mechanism': {'type': 'str', 'choices': ['SCRAM-SHA-512', 'SCRAM-SHA-256']},
            'iterations': {'type': 'int'},
            'state': {'type': 'str', 'choices': ['present', 'absent'], 'default': 'present'},
        }},
        mechanism={'type': 'str', 'choices': ['SCRAM-SHA-512', 'SCRAM-SHA-256'], 'default': 'SCRAM-SHA-512'},
        iterations={'type': 'int', 'default': 8192},
        state_dir={'type': 'path', 'required': True},
        config_command_class={'type': 'str', 'default': CONFIG_COMMAND},
    )
    return spec


def names(accounts: List[ScramAccount]) -> List[Dict[str, str]]:
    return [{'name': account.name, 'mechanism': account.mechanism} for account in accounts]


class ScramRun:
    def __init__(self, module: AnsibleModule, admin: KafkaAdmin) -> None:
        self.module = module
        self.admin = admin
        self.config_class = module.params['config_command_class']
        self.state = StateDir(module.params['state_dir'])
        self.done_set: List[ScramAccount] = []
        self.done_deleted: List[ScramAccount] = []

    def users_args(self, account: ScramAccount, *args: str) -> List[str]:
        return ['--alter', *args, '--entity-type', 'users', '--entity-name', account.name]

    def list_accounts(self) -> Dict[str, Dict[str, int]]:
        result = self.admin.run(self.config_class, ['--describe', '--entity-type', 'users'], 'listing the SCRAM accounts')
        return parse_scram_listing(result.stdout)

    def set_account(self, account: ScramAccount, salt: str) -> None:
        credential = self.state.write_credential(account)
        try:
            self.admin.run(self.config_class, self.users_args(account, '--add-config-file', credential),
                           'setting %s of account %s' % (account.mechanism, account.name))
        finally:
            os.unlink(credential)
        self.state.record(account, salt)
        self.done_set.append(account)

    def delete_account(self, account: ScramAccount) -> None:
        self.admin.run(self.config_class, self.users_args(account, '--delete-config', account.mechanism),
                       'deleting %s of account %s' % (account.mechanism, account.name))
        self.done_deleted.append(account)


def fail(module: AnsibleModule, msg: str, run: Optional[ScramRun] = None, **extra: Any) -> NoReturn:
    applied: Dict[str, Any] = {}
    if run is not None:
        applied = {'set': names(run.done_set), 'deleted': names(run.done_deleted), 'jvm_runs': len(run.admin.runs),
                   'changed': bool(run.done_set or run.done_deleted)}
    module.fail_json(msg=msg, **applied, **extra)


def predicted(listed: Dict[str, Dict[str, int]], set_accounts: List[ScramAccount],
              deleted: List[ScramAccount]) -> Dict[str, Dict[str, int]]:
    after = {name: dict(mechanisms) for name, mechanisms in listed.items()}
    for account in set_accounts:
        after.setdefault(account.name, {})[account.mechanism] = account.iterations
    for account in deleted:
        after.get(account.name, {}).pop(account.mechanism, None)
    return {name: mechanisms for name, mechanisms in after.items() if mechanisms}


def converge(module: AnsibleModule, admin: KafkaAdmin) -> Dict[str, Any]:
    params = module.params
    accounts = resolve_accounts(params['users'], params['mechanism'], params['iterations'])
    try:
        state_dir_fault = private_directory_fault(params['state_dir'])
    except NotADirectoryError:
        fail(module, 'kafka_scram_user: state_dir %s is not a directory. Nothing was changed.' % params['state_dir'])
    if state_dir_fault and not module.check_mode:
        make_private_directory(params['state_dir'])
    run = ScramRun(module, admin)
    try:
        listed = run.list_accounts()
    except KafkaToolError as exc:
        fail(module, 'kafka_scram_user: %s failed: %s. Nothing was changed.' % (exc.action, exc.reason), run,
             rc=exc.result.rc)
    salt = run.state.read_salt()
    plan = plan_scram(accounts, listed, salt, run.state.read_markers(accounts))

    if module.check_mode:
        set_accounts, deleted = list(plan.to_set), list(plan.to_delete)
    else:
        try:
            if plan.to_set:
                salt = run.state.ensure_salt()
            for account in plan.to_set:
                run.set_account(account, str(salt))
            for account in plan.to_delete:
                run.delete_account(account)
        except KafkaToolError as exc:
            fail(module, 'kafka_scram_user: %s failed: %s' % (exc.action, exc.reason), run, rc=exc.result.rc)
        for account in plan.to_forget:
            run.state.forget(account)
        set_accounts, deleted = run.done_set, run.done_deleted

    result: Dict[str, Any] = {
        'changed': bool(set_accounts or deleted or plan.to_forget or state_dir_fault),
        'state_dir_corrected': state_dir_fault,
        'set': names(set_accounts),
        'deleted': names(deleted),
        'jvm_runs': len(admin.runs),
    }
    if module._diff:
        header = 'SCRAM accounts of %s' % params['bootstrap_server']
        result['diff'] = [{'before': describe_accounts(listed),
                           'after': describe_accounts(predicted(listed, set_accounts, deleted),
                                                      [(account.name, account.mechanism) for account in set_accounts]),
                           'before_header': header, 'after_header': header}]
        if state_dir_fault:
            result['diff'].append(private_directory_diff(params['state_dir'], state_dir_fault))
    return result


def main() -> None:
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    errors = account_errors(module.params['users'], module.params['mechanism'], module.params['iterations'])
    if errors:
        module.fail_json(msg='kafka_scram_user: %s. Nothing was changed.' % '; '.join(errors), errors=errors)
    module.exit_json(**converge(module, admin_from_params(module.params)))


if __name__ == '__main__':
    main()
