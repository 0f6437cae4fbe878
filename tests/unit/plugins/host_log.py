# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A module's main() run in this process, with what AnsibleModule writes to the host's journal or syslog recorded.

AnsibleModule logs through systemd's journal when the host has it (each parameter also as a field of its
own), through syslog otherwise; both are replaced by recorders, so a test sees every byte a host would keep.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
from typing import Any, Callable, Dict, Iterator, List, Tuple
from unittest import mock

from ansible.module_utils import basic
from ansible.module_utils.common import warnings
from ansible.module_utils.testing import patch_module_args

SINKS = ('journal', 'syslog')


class _Journal:
    def __init__(self, entries: List[str]) -> None:
        self.entries = entries

    def send(self, **fields: Any) -> None:
        self.entries.extend('%s=%s' % (name, value) for name, value in fields.items())


class _Syslog:
    LOG_USER = 8
    LOG_INFO = 6

    def __init__(self, entries: List[str]) -> None:
        self.entries = entries

    def openlog(self, *args: Any) -> None:
        pass

    def syslog(self, priority: int, message: str) -> None:
        del priority
        self.entries.append(message)


@contextlib.contextmanager
def _recorded(sink: str, entries: List[str]) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.object(basic, 'has_journal', sink == 'journal'))
        stack.enter_context(mock.patch.object(basic, 'journal', _Journal(entries), create=True))
        stack.enter_context(mock.patch.object(basic, 'HAS_SYSLOG', True))
        stack.enter_context(mock.patch.object(basic, 'syslog', _Syslog(entries), create=True))
        # Warnings are global to the process; each run starts without any.
        stack.enter_context(mock.patch.dict(warnings._global_warnings, clear=True))  # pylint: disable=protected-access
        stack.enter_context(mock.patch.dict(warnings._global_deprecations, clear=True))  # pylint: disable=protected-access
        yield


def run_logged(main: Callable[[], None], args: Dict[str, Any], sink: str = 'journal',
               check_mode: bool = False, diff: bool = False) -> Tuple[Dict[str, Any], str]:
    """(the module's result, everything it logged on the host) for one run of main() with args."""
    entries: List[str] = []
    output = io.StringIO()
    payload = dict(args, _ansible_check_mode=check_mode, _ansible_diff=diff)
    with _recorded(sink, entries), patch_module_args(payload), contextlib.redirect_stdout(output):
        try:
            main()
        except SystemExit:
            pass
    return json.loads(output.getvalue()), '\n'.join(entries)


def spellings(secret: str) -> Dict[str, str]:
    """The secret as it would sit in a log: as is, in base64 at each of the three byte offsets it can
    have in a larger file (the characters that depend on its neighbours left out), and in hex."""
    data = secret.encode()
    found = {'clear': secret, 'hex': data.hex(), 'HEX': data.hex().upper()}
    for offset in range(3):
        encoded = base64.b64encode(b'\0' * offset + data).decode()
        whole_groups = (offset + len(data)) // 3
        found['base64+%d' % offset] = encoded[4 * (1 if offset else 0):4 * whole_groups]
    return found


def leaked(text: str, secrets: Dict[str, str]) -> List[str]:
    """Names (and spellings) of the secrets found in the text, never the secrets themselves."""
    return ['%s (%s)' % (name, kind) for name, secret in secrets.items()
            for kind, spelled in spellings(secret).items() if spelled in text]
