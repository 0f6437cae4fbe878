#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: file_set
short_description: Lay down a host's directories and small files in one call, changing only what differs
version_added: 0.3.0
description:
  - Compares each directory and file with the host's copy (content, owner, group, mode) and writes only what
    differs, each file atomically (a private temporary file in the same directory, renamed over the old one).
  - One call per host instead of one per file, so a run that changes nothing costs one round trip.
  - Every path, owner and group is checked before the first write; a wrong one fails the task with nothing
    changed.
  - The action plugin of the same name reads O(files[].src) on the controller and renders nothing itself; give
    templates as O(files[].content) with the C(ansible.builtin.template) lookup.
  - Content of files marked O(files[].secret) never appears in a diff, a result or the task's invocation.
  - No file's content, secret or not, reaches the invocation that Ansible logs to the host's journal or syslog.
  - For small files (configuration, secrets, key stores); large archives belong to M(ansible.builtin.copy) or
    M(ansible.builtin.unarchive).
author:
  - kafka_dr.mm2 maintainers (!UNKNOWN)
options:
  directories:
    description:
      - Directories to create or correct, before any file.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Absolute path.
        type: str
        required: true
      owner:
        description: Owner; unchanged (or the connection user's for a new directory) when omitted.
        type: str
      group:
        description: Group; unchanged (or the connection user's for a new directory) when omitted.
        type: str
      mode:
        description: Octal mode such as C('0750').
        type: str
        required: true
      enabled:
        description: V(false) leaves the directory out of the set (it is not removed).
        type: bool
        default: true
      prune:
        description:
          - A glob such as C(*.properties). The directory's regular files that match it and that O(files) does not
            list are removed, after the files are written; subdirectories and other files are left alone.
        type: str
  files:
    description:
      - Files to create or correct, in this order.
    type: list
    elements: dict
    default: []
    suboptions:
      dest:
        description: Absolute path of the file on the host.
        type: str
        required: true
      content:
        description: The file's text. Exactly one of O(files[].content), O(files[].content_base64) and O(files[].src).
        type: str
      content_base64:
        description: The file's bytes as base64 (the action plugin turns O(files[].content) and O(files[].src) into it).
        type: str
      src:
        description:
          - A file on the controller, read as bytes (binary files such as PKCS12 stores are fine). A relative
            path is looked up in the role's C(files/) like M(ansible.builtin.copy) does.
        type: path
      owner:
        description: Owner; unchanged (or the connection user's for a new file) when omitted.
        type: str
      group:
        description: Group; unchanged (or the connection user's for a new file) when omitted.
        type: str
      mode:
        description: Octal mode such as C('0640').
        type: str
        required: true
      secret:
        description: Keep the content out of diffs and results.
        type: bool
        default: false
      enabled:
        description: V(false) leaves the file out of the set (it is not removed), as a task's C(when) would.
        type: bool
        default: true
      validate:
        description:
          - A command, with C(%s) standing for the path of a private copy of the new content, that must exit 0
            before the file is replaced; run without a shell, only when the content differs, in check mode too.
          - Every such file of the set is checked before the first write, so one that fails changes nothing.
        type: str
  missing_directories:
    description:
      - What to do with a file whose directory does not exist and is not in O(directories).
      - V(fail) fails the task before anything is written; V(skip) leaves the file out and lists it in
        RV(skipped_paths) (for files that belong on a host only once another role has made their directory).
    type: str
    choices: [fail, skip]
    default: fail
attributes:
  check_mode:
    description: Everything is read and compared; nothing is written.
    support: full
  diff_mode:
    description: Each changed file's text before and after; for a secret, binary or large file only that it changed.
    support: full
'''

EXAMPLES = r'''
- name: Lay down the broker's configuration
  kafka_dr.mm2.file_set:
    directories:
      - {path: /etc/kafka, owner: root, group: kafka, mode: "0750"}
    files:
      - dest: /etc/kafka/server.properties
        content: "{{ lookup('ansible.builtin.template', 'server.properties.j2') }}"
        owner: root
        group: kafka
        mode: "0640"
      - dest: /etc/kafka/secrets/jaas.conf
        content: "{{ lookup('ansible.builtin.template', 'jaas.conf.j2') }}"
        owner: root
        group: kafka
        mode: "0640"
        secret: true
  register: broker_files
  notify: restart the broker
'''

RETURN = r'''
changed_paths:
  description: Directories and files created or corrected, in order.
  returned: always
  type: list
  elements: str
directories:
  description: Each directory's outcome, C(state) one of C(created), C(attributes), C(unchanged).
  returned: always
  type: list
  elements: dict
files:
  description:
    - Each file's outcome, C(state) one of C(created), C(updated), C(attributes), C(unchanged), or C(removed) for a
      file a directory's O(directories[].prune) removed.
  returned: always
  type: list
  elements: dict
skipped_paths:
  description: The files left out because their directory does not exist (O(missing_directories=skip)).
  returned: always
  type: list
  elements: str
'''

import base64
import shlex
from typing import Any, Callable, Dict, Optional

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafka_dr.mm2.plugins.module_utils.file_set import (
    Attributes,
    FileSetError,
    WantedDirectory,
    WantedFile,
    apply,
    parse_mode,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.masked_invocation import NOT_LOGGED, MaskedInvocationModule

# The tail of a refusing validate command's output that the error message quotes.
MAX_COMPLAINT = 600

# The action plugin hands over every file as content_base64 (binary-safe, src already read). Only
# content_base64 is no_log: content reaches the module only when it runs without the action plugin,
# and no_log would mask a short text such as `a` throughout the result. Neither is logged on the
# host (logged_params).
ARGUMENT_SPEC = {
    'directories': {'type': 'list', 'elements': 'dict', 'default': [], 'options': {
        'path': {'type': 'str', 'required': True},
        'owner': {'type': 'str'},
        'group': {'type': 'str'},
        'mode': {'type': 'str', 'required': True},
        'enabled': {'type': 'bool', 'default': True},
        'prune': {'type': 'str'},
    }},
    'files': {'type': 'list', 'elements': 'dict', 'default': [], 'options': {
        'dest': {'type': 'str', 'required': True},
        'content': {'type': 'str'},
        'content_base64': {'type': 'str', 'no_log': True},
        'src': {'type': 'path'},
        'owner': {'type': 'str'},
        'group': {'type': 'str'},
        'mode': {'type': 'str', 'required': True},
        'secret': {'type': 'bool', 'default': False},
        'enabled': {'type': 'bool', 'default': True},
        'validate': {'type': 'str'},
    }, 'mutually_exclusive': [('content', 'content_base64', 'src')],
        'required_one_of': [('content', 'content_base64', 'src')]},
    'missing_directories': {'type': 'str', 'choices': ['fail', 'skip'], 'default': 'fail'},
}


CONTENT_KEYS = ('content', 'content_base64')


def logged_params(params: Dict[str, Any]) -> Dict[str, Any]:
    """The parameters as the host's journal gets them: without any file's content, since a file not
    marked secret (a properties file with a password) may hold a secret too."""
    files = [{**item, **{key: NOT_LOGGED for key in CONTENT_KEYS if item.get(key) is not None}}
             for item in params.get('files') or []]
    return {**params, 'files': files}


def _content(item: dict) -> bytes:
    if item['src'] is not None:
        raise FileSetError(f"{item['dest']}: src is read on the controller by the action plugin, which did not run")
    if item['content'] is not None:
        return item['content'].encode('utf-8')
    return base64.b64decode(item['content_base64'])


def _validate_command(item: dict) -> Optional[str]:
    command = item['validate'] or None
    if command is not None and '%s' not in command:
        raise FileSetError(f"{item['dest']}: validate must hold %s for the path of the file to check")
    return command


def command_validator(module: AnsibleModule) -> Callable[[str, str], Optional[str]]:
    """Runs a validate command without a shell: the tool's own words when it refuses."""
    def run(command: str, path: str) -> Optional[str]:
        argv = [part.replace('%s', path) for part in shlex.split(command)]
        rc, out, err = module.run_command(argv)
        if rc == 0:
            return None
        words = ' '.join((err.strip() or out.strip()).split())
        return (words[-MAX_COMPLAINT:] if words else '') or f'exit code {rc}'
    return run


def main() -> None:
    # Secret files never reach a diff or a result; no file's content reaches the journal.
    module = MaskedInvocationModule(argument_spec=ARGUMENT_SPEC, logged_params=logged_params, supports_check_mode=True)
    try:
        directories = [
            WantedDirectory(item['path'], Attributes(item['owner'], item['group'], parse_mode(item['mode'], item['path'])),
                            item['prune'] or None)
            for item in module.params['directories'] if item['enabled']
        ]
        files = [
            WantedFile(item['dest'], _content(item),
                       Attributes(item['owner'], item['group'], parse_mode(item['mode'], item['dest'])), item['secret'],
                       _validate_command(item))
            for item in module.params['files'] if item['enabled']
        ]
        report = apply(directories, files, module.check_mode, module._diff,
                       skip_missing_directories=module.params['missing_directories'] == 'skip',
                       validator=command_validator(module))
    except FileSetError as error:
        module.fail_json(msg=f"file_set: {error}. Nothing was changed.")
    except OSError as error:
        module.fail_json(msg=f"file_set: {error.filename or ''}: {error.strerror}")
    module.exit_json(**report.as_result())


if __name__ == '__main__':
    main()
