# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plan the copy of large controller files (wheels, jars) to a host: only those that differ."""

from __future__ import annotations

DOCUMENTATION = r"""
name: shipped_files
short_description: The controller files a host lacks or holds differently, from two kafka_dr.mm2.path_info results
version_added: 0.1.0
description:
  - Takes controller paths and the directory they go to on the host, with the C(paths) results of
    M(kafka_dr.mm2.path_info) run with O(kafka_dr.mm2.path_info#module:checksum) on both sides, and returns
    C({src, dest}) for each file whose copy on the host is missing, is not a regular file, has another SHA-256,
    or another owner, group or mode.
  - So large files are compared in one module call per side, and copied only when they differ.
options:
  _input:
    description: Absolute paths of the files on the controller.
    type: list
    elements: str
    required: true
  directory:
    description: Absolute directory of the copies on the host.
    type: str
    required: true
  on_host:
    description: C(paths) of M(kafka_dr.mm2.path_info) on the host for the copies' paths (O(directory)/<file name>).
    type: dict
    required: true
  on_controller:
    description: C(paths) of M(kafka_dr.mm2.path_info) on the controller for the input paths.
    type: dict
    required: true
  owner:
    description: Owner the copies must have.
    type: str
    default: root
  group:
    description: Group the copies must have.
    type: str
    default: root
  mode:
    description: Octal mode the copies must have.
    type: str
    default: '0644'
"""

EXAMPLES = r"""
- name: Copy the jars the node lacks
  ansible.builtin.copy:
    src: "{{ item.src }}"
    dest: "{{ item.dest }}"
    mode: "0644"
  loop: "{{ jars | kafka_dr.mm2.shipped_files('/opt/job/jars', on_node.paths, on_controller.paths) }}"
"""

RETURN = r"""
_value:
  description: C({src, dest}) of each file to copy, in input order.
  type: list
  elements: dict
"""

import posixpath
from collections.abc import Mapping, Sequence
from typing import Any

from ansible.errors import AnsibleFilterError


def shipped_path(source: str, directory: str) -> str:
    """Where a controller file goes on the host."""
    return posixpath.join(directory, posixpath.basename(source))


def _differs(copy: Mapping, original: Mapping, owner: str, group: str, mode: str) -> bool:
    if not copy.get('isreg'):
        return True
    if (copy.get('owner'), copy.get('group'), copy.get('mode')) != (owner, group, mode):
        return True
    return copy.get('checksum') is None or copy.get('checksum') != original.get('checksum')


def shipped_files(sources: Sequence[str], directory: str, on_host: Mapping, on_controller: Mapping,
                  owner: str = 'root', group: str = 'root', mode: str = '0644') -> list[dict[str, Any]]:
    if isinstance(sources, (str, bytes)) or not isinstance(sources, Sequence):
        raise AnsibleFilterError("shipped_files: the input must be a list of controller paths")
    if not str(directory).startswith('/'):
        raise AnsibleFilterError(f"shipped_files: the directory must be an absolute path, got '{directory}'")
    due = []
    for source in sources:
        original = on_controller.get(source)
        if not original or not original.get('isreg') or not original.get('checksum'):
            raise AnsibleFilterError(f"shipped_files: '{source}' is not a regular file with a checksum on the controller")
        dest = shipped_path(source, directory)
        if _differs(on_host.get(dest) or {}, original, owner, group, mode):
            due.append({'src': source, 'dest': dest})
    return due


class FilterModule:
    def filters(self) -> dict:
        return {'shipped_files': shipped_files}
