# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Turn controller files into the file entries of module kafka_dr.mm2.file_set."""

from __future__ import annotations

DOCUMENTATION = r"""
name: controller_files
short_description: Controller files copied into one host directory, as entries of the file_set module
version_added: 0.1.0
description:
  - Takes paths of files on the controller and returns one entry of O(kafka_dr.mm2.file_set#module:files) per path,
    with C(src) the path and C(dest) the file's name in O(directory), so that any number of files go to a host in one
    module call.
options:
  _input:
    description: Paths of the files on the controller.
    type: list
    elements: str
    required: true
  directory:
    description: Absolute directory of the copies on the host.
    type: str
    required: true
  owner:
    description: Owner of each copy.
    type: str
  group:
    description: Group of each copy.
    type: str
  mode:
    description: Octal mode of each copy.
    type: str
    default: '0644'
  validate:
    description: Command that checks each changed copy before it is installed (O(kafka_dr.mm2.file_set#module:files[].validate)).
    type: str
"""

EXAMPLES = r"""
- name: Install the alert rules
  kafka_dr.mm2.file_set:
    files: "{{ ['/srv/rules/mm2.yml'] | kafka_dr.mm2.controller_files('/etc/prometheus/rules', validate='promtool check rules %s') }}"
"""

RETURN = r"""
_value:
  description: Entries with C(src), C(dest), C(mode) and, when given, C(owner), C(group) and C(validate), in input order.
  type: list
  elements: dict
"""

import os
from typing import Any, Optional, Sequence

from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.shipped_files import shipped_path


def controller_files(paths: Sequence[Any], directory: str, owner: Optional[str] = None, group: Optional[str] = None,
                     mode: str = '0644', validate: Optional[str] = None) -> list[dict]:
    if isinstance(paths, (str, bytes)) or not all(isinstance(path, str) and path for path in paths):
        raise AnsibleFilterError("controller_files: the input must be a list of file paths")
    if not str(directory).startswith('/'):
        raise AnsibleFilterError(f"controller_files: the directory must be an absolute path, got '{directory}'")
    names = [os.path.basename(path) for path in paths]
    doubled = sorted({name for name in names if names.count(name) > 1})
    if doubled:
        raise AnsibleFilterError(f"controller_files: two files would be copied to the same name: {', '.join(doubled)}")
    extra = {key: value for key, value in (('owner', owner), ('group', group), ('validate', validate)) if value}
    return [{'src': path, 'dest': shipped_path(path, str(directory)), 'mode': mode, **extra} for path in paths]


class FilterModule:
    def filters(self) -> dict:
        return {'controller_files': controller_files}
