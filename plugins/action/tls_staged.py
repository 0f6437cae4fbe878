# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin of kafka_dr.mm2.tls_staged (documented in plugins/modules/tls_staged.py).

Runs on the controller, in process, and never contacts a host: it reads the host's staged TLS
material and its manifest (plugins/plugin_utils/tls_staged.py) and answers whether the role must
build the material, or records the manifest of material just built.
"""

from __future__ import annotations

from typing import Any, Dict

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils import tls_staged

ARGUMENT_SPEC: Dict[str, Dict[str, Any]] = {
    'state': {'type': 'str', 'choices': ['check', 'record'], 'default': 'check'},
    'ca_dir': {'type': 'path', 'required': True},
    'stage_dir': {'type': 'path', 'required': True},
    'mode': {'type': 'str', 'choices': ['generate', 'provided'], 'default': 'generate'},
    'ca_roll': {'type': 'str', 'choices': ['none', 'add', 'switch', 'retire'], 'default': 'none'},
    'force_renew': {'type': 'bool', 'default': False},
    'key_type': {'type': 'str', 'choices': ['RSA', 'ECC'], 'required': True},
    'key_size': {'type': 'int', 'default': 2048},
    'key_curve': {'type': 'str', 'default': 'secp256r1'},
    'common_name': {'type': 'str', 'required': True},
    'subject_alt_names': {'type': 'list', 'elements': 'str', 'default': []},
    'pkcs12': {'type': 'bool', 'default': True},
    'store_password': {'type': 'str', 'no_log': True, 'default': ''},
    'ca_valid_days': {'type': 'int', 'required': True},
    'ca_renew_days': {'type': 'int', 'required': True},
    'cert_valid_days': {'type': 'int', 'required': True},
    'renew_days': {'type': 'int', 'required': True},
}


class ActionModule(ActionBase):
    """kafka_dr.mm2.tls_staged: is a host's staged TLS material current, or record that it is."""

    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True

    def run(self, tmp: Any = None, task_vars: Any = None) -> Dict[str, Any]:
        _validation, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        result = super().run(tmp, task_vars)
        result['changed'] = False
        if args['state'] == 'check':
            result['current'], result['reason'] = tls_staged.check(args)
            return result
        if self._task.check_mode:
            # A check run built nothing, so there is nothing to vouch for.
            result['skipped_reason'] = 'check mode'
            return result
        try:
            result['manifest'] = tls_staged.record(args)
        except (OSError, ValueError) as error:
            raise AnsibleActionFail('kafka_dr.mm2.tls_staged: cannot record the manifest of %s: %s'
                                    % (args['stage_dir'], error)) from error
        return result
