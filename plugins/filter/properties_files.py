# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Turn named property sets into the file entries of module kafka_dr.mm2.file_set."""

from __future__ import annotations

DOCUMENTATION = r"""
name: properties_files
short_description: One properties file per named set of settings, as entries of the file_set module
version_added: 0.1.0
description:
  - Takes a mapping of names to settings and returns one entry of O(kafka_dr.mm2.file_set#module:files) per name,
    its content rendered as the C(kafka_dr.mm2.to_properties) filter renders it, so that any number of files go to a
    host in one module call.
  - With O(attribute), each value is a mapping and its O(attribute) item holds the settings.
options:
  _input:
    description: File names (without O(suffix)) mapped to their settings.
    type: dict
    required: true
  directory:
    description: Absolute directory of the files.
    type: str
    required: true
  suffix:
    description: Appended to each name.
    type: str
    default: ''
  attribute:
    description: The item of each value that holds the settings; the value itself when omitted.
    type: str
  owner:
    description: Owner of each file.
    type: str
  group:
    description: Group of each file.
    type: str
  mode:
    description: Octal mode of each file.
    type: str
    default: '0640'
  secret:
    description: Keep the files' content out of diffs and results.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Write the secret files
  kafka_dr.mm2.file_set:
    files: "{{ {'mm2.properties': {'password': 'x'}} | kafka_dr.mm2.properties_files('/etc/kafka/secrets', group='kafka', secret=true) }}"
"""

RETURN = r"""
_value:
  description: Entries with C(dest), C(content), C(mode), C(secret) and, when given, C(owner) and C(group), in name order.
  type: list
  elements: dict
"""

from collections.abc import Mapping
from typing import Any, Optional

from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.properties import to_properties


def _settings_of(name: str, value: Any, attribute: Optional[str]) -> Mapping:
    settings = value.get(attribute) if attribute is not None and isinstance(value, Mapping) else value
    if not isinstance(settings, Mapping):
        where = f"item '{attribute}' of '{name}'" if attribute is not None else f"'{name}'"
        raise AnsibleFilterError(f"properties_files: {where} must be a mapping of settings")
    return settings


def properties_files(named_settings: Mapping, directory: str, suffix: str = '', attribute: Optional[str] = None,
                     owner: Optional[str] = None, group: Optional[str] = None, mode: str = '0640',
                     secret: bool = False) -> list[dict]:
    if not isinstance(named_settings, Mapping):
        raise AnsibleFilterError("properties_files: the input must be a mapping of file names to settings")
    if not str(directory).startswith('/'):
        raise AnsibleFilterError(f"properties_files: the directory must be an absolute path, got '{directory}'")
    entries = []
    for name in sorted(named_settings):
        if not name or '/' in name:
            raise AnsibleFilterError(f"properties_files: '{name}' is not a file name")
        entry = {'dest': f"{str(directory).rstrip('/')}/{name}{suffix}",
                 'content': to_properties(dict(_settings_of(name, named_settings[name], attribute))),
                 'mode': mode, 'secret': bool(secret)}
        entry.update({key: value for key, value in (('owner', owner), ('group', group)) if value is not None})
        entries.append(entry)
    return entries


class FilterModule:
    def filters(self) -> dict:
        return {'properties_files': properties_files}
