# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""An AnsibleModule that writes its invocation to the host's journal (or syslog) with secrets masked.

AnsibleModule logs every run's parameters from its __init__, before a module's own code runs. It
masks the options marked no_log, and elsewhere the strings of no_log_values found in each
parameter's Python repr after a pass that cuts URL passwords (user:pass@host). Within a list of
dicts or a raw option that is not enough: a repr escapes newlines, quotes and backslashes, so a
multi-line file or a JAAS line no longer matches its value, and the URL pass can cut a value so
that part of it stays. Here the invocation is logged from a copy of the parameters in which the
module's own function masked such values; the module itself keeps them.
"""

from __future__ import annotations

from typing import Any, Callable, Dict

from ansible.module_utils.basic import AnsibleModule

# What Ansible itself logs for a no_log option.
NOT_LOGGED = 'NOT_LOGGING_PARAMETER'

LoggedParams = Callable[[Dict[str, Any]], Dict[str, Any]]


class MaskedInvocationModule(AnsibleModule):
    """AnsibleModule(argument_spec, ...) whose invocation log shows logged_params(params) instead of params.

    logged_params gets the validated parameters and returns a masked copy; it must not change them.
    """

    def __init__(self, argument_spec: Dict[str, Any], logged_params: LoggedParams, **kwargs: Any) -> None:
        # Set before AnsibleModule.__init__, which logs the invocation.
        self._logged_params = logged_params
        super().__init__(argument_spec=argument_spec, **kwargs)

    def _log_invocation(self) -> None:
        params = self.params
        self.params = self._logged_params(params)
        try:
            super()._log_invocation()
        finally:
            self.params = params
