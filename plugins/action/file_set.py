# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin of kafka_dr.mm2.file_set (documented in plugins/modules/file_set.py).

On the controller it checks the arguments, reads each O(files[].src) as bytes and hands every
file's content to the module as base64, so one module call on the host covers the whole set. The
module masks the content in the invocation it logs on the host and in the one it returns, which
never leaves this plugin either.
"""

from __future__ import annotations

import base64
from typing import Any, Dict, List, Mapping, Optional

from ansible.errors import AnsibleError
from ansible.module_utils.common.text.converters import to_bytes
from ansible.plugins.action import ActionBase

MODULE = 'kafka_dr.mm2.file_set'
FILE_KEYS = {'dest', 'content', 'src', 'owner', 'group', 'mode', 'secret', 'enabled', 'validate'}
DIRECTORY_KEYS = {'path', 'owner', 'group', 'mode', 'enabled', 'prune'}


class FileSetArgumentError(AnsibleError):
    """Arguments the module would refuse, found before the host is contacted."""


def _entries(args: Mapping[str, Any], name: str) -> List[Mapping[str, Any]]:
    entries = args.get(name) or []
    if not isinstance(entries, list) or not all(isinstance(entry, Mapping) for entry in entries):
        raise FileSetArgumentError(f"file_set: {name} must be a list of dicts")
    return entries


def _check_keys(entry: Mapping[str, Any], allowed: set, required: tuple, where: str) -> None:
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise FileSetArgumentError(f"file_set: {where}: unknown keys {', '.join(unknown)}")
    missing = [key for key in required if entry.get(key) in (None, '')]
    if missing:
        raise FileSetArgumentError(f"file_set: {where}: {', '.join(missing)} required")


def _flag(entry: Mapping[str, Any], key: str, default: bool) -> bool:
    """A boolean key, also when a template rendered it as text ('False' is false)."""
    value = entry.get(key, default)
    return value if isinstance(value, bool) else str(value).strip().lower() in ('true', 'yes', 'on', '1')


def _enabled(entry: Mapping[str, Any]) -> bool:
    """enabled: false leaves an entry out (a file this host does not need); it is not removed."""
    return _flag(entry, 'enabled', True)


def _attributes(entry: Mapping[str, Any]) -> Dict[str, Optional[str]]:
    return {key: (None if entry.get(key) is None else str(entry[key])) for key in ('owner', 'group', 'mode')}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('directories', 'files', 'missing_directories'))

    def _read_src(self, src: str) -> bytes:
        path = self._find_needle('files', src)
        with open(path, 'rb') as stream:
            return stream.read()

    def _module_file(self, entry: Mapping[str, Any], index: int) -> Dict[str, Any]:
        where = f"files[{index}] ({entry.get('dest', '?')})"
        _check_keys(entry, FILE_KEYS, ('dest', 'mode'), where)
        has_content, has_src = entry.get('content') is not None, entry.get('src') not in (None, '')
        if has_content == has_src:
            raise FileSetArgumentError(f"file_set: {where}: give exactly one of content and src")
        if has_content and not isinstance(entry['content'], str):
            raise FileSetArgumentError(f"file_set: {where}: content must be text")
        validate = str(entry.get('validate') or '')
        if validate and '%s' not in validate:
            raise FileSetArgumentError(f"file_set: {where}: validate must hold %s for the path of the file to check")
        data = to_bytes(entry['content'], errors='surrogate_or_strict') if has_content else self._read_src(str(entry['src']))
        return {
            'dest': str(entry['dest']),
            'content_base64': base64.b64encode(data).decode('ascii'),
            'secret': _flag(entry, 'secret', False),
            **_attributes(entry),
            **({'validate': validate} if validate else {}),
        }

    def run(self, tmp: Any = None, task_vars: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        result = super().run(tmp, task_vars)
        del tmp
        try:
            directories = []
            for index, entry in enumerate(_entries(self._task.args, 'directories')):
                where = f"directories[{index}] ({entry.get('path', '?')})"
                # A mistyped key is an error even in an entry this host leaves out.
                _check_keys(entry, DIRECTORY_KEYS, (), where)
                if _enabled(entry):
                    _check_keys(entry, DIRECTORY_KEYS, ('path', 'mode'), where)
                    prune = {'prune': str(entry['prune'])} if entry.get('prune') else {}
                    directories.append({'path': str(entry['path']), **_attributes(entry), **prune})
            files = []
            for index, entry in enumerate(_entries(self._task.args, 'files')):
                _check_keys(entry, FILE_KEYS, (), f"files[{index}] ({entry.get('dest', '?')})")
                if _enabled(entry):
                    files.append(self._module_file(entry, index))
        except AnsibleError as error:
            result.update(failed=True, msg=str(error.message))
            return result
        module_result = self._execute_module(
            module_name=MODULE, module_args={'directories': directories, 'files': files,
                                             'missing_directories': self._task.args.get('missing_directories', 'fail')},
            task_vars=task_vars)
        # The invocation repeats every argument (contents masked): noise in the task's result.
        module_result.pop('invocation', None)
        result.update(module_result)
        if not self._task.diff:
            result.pop('diff', None)
        return result
