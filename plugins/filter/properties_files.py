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
  jaas_keys:
    description:
      - File names (without O(suffix)) mapped to the keys whose values a C(${file:...}) placeholder inside a quoted
        value of a C(sasl.jaas.config) line reads, such as the SASL password of a C(kafka_dr.mm2.mirrormaker) cluster.
      - Kafka substitutes the placeholder before it parses the JAAS line, which reads backslash escapes inside the
        quotes, so these values are JAAS-escaped first (a backslash before each backslash and double quote, line feed
        and carriage return written as V(\\n) and V(\\r)), then written with the properties escaping. Values without those
        characters are written as they are.
      - The C(kafka_dr.mm2.mm2_jaas_secret_keys) filter gives this mapping for the MirrorMaker 2 secret files.
    type: dict
"""

EXAMPLES = r"""
- name: Write the secret files
  kafka_dr.mm2.file_set:
    files: "{{ {'mm2.properties': {'password': 'x'}} | kafka_dr.mm2.properties_files('/etc/kafka/secrets', group='kafka', secret=true) }}"

- name: Write a password that a JAAS line reads through ${file:/etc/kafka/secrets/mm2.properties:sasl.password}
  kafka_dr.mm2.file_set:
    files: >-
      {{ {'mm2.properties': {'sasl.password': vault_mm2_password}}
         | kafka_dr.mm2.properties_files('/etc/kafka/secrets', group='kafka', secret=true,
                                         jaas_keys={'mm2.properties': ['sasl.password']}) }}
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
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_values import connect_string
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_clients import jaas_escape


def _settings_of(name: str, value: Any, attribute: Optional[str]) -> Mapping:
    settings = value.get(attribute) if attribute is not None and isinstance(value, Mapping) else value
    if not isinstance(settings, Mapping):
        where = f"item '{attribute}' of '{name}'" if attribute is not None else f"'{name}'"
        raise AnsibleFilterError(f"properties_files: {where} must be a mapping of settings")
    return settings


def _checked_jaas_keys(jaas_keys: Optional[Mapping]) -> Mapping:
    if jaas_keys is None:
        return {}
    if not isinstance(jaas_keys, Mapping) or not all(
            isinstance(keys, (list, tuple)) and all(isinstance(key, str) for key in keys) for keys in jaas_keys.values()):
        raise AnsibleFilterError("properties_files: jaas_keys must map file names to lists of keys")
    return jaas_keys


def _jaas_escaped(name: str, settings: Mapping, keys: Any) -> dict:
    """The settings with the values of `keys` JAAS-escaped (None values stay None: to_properties drops them)."""
    wanted = set(keys or ())
    escaped = {}
    for key, value in settings.items():
        if str(key) in wanted and value is not None:
            try:
                value = jaas_escape(connect_string(value))
            except TypeError as exc:
                raise AnsibleFilterError(f"properties_files: the value of {key} in '{name}' {exc}") from None
        escaped[key] = value
    return escaped


def properties_files(named_settings: Mapping, directory: str, suffix: str = '', attribute: Optional[str] = None,
                     owner: Optional[str] = None, group: Optional[str] = None, mode: str = '0640',
                     secret: bool = False, jaas_keys: Optional[Mapping] = None) -> list[dict]:
    jaas_keys = _checked_jaas_keys(jaas_keys)
    if not isinstance(named_settings, Mapping):
        raise AnsibleFilterError("properties_files: the input must be a mapping of file names to settings")
    if not str(directory).startswith('/'):
        raise AnsibleFilterError(f"properties_files: the directory must be an absolute path, got '{directory}'")
    entries = []
    for name in sorted(named_settings):
        if not name or '/' in name:
            raise AnsibleFilterError(f"properties_files: '{name}' is not a file name")
        entry = {'dest': f"{str(directory).rstrip('/')}/{name}{suffix}",
                 'content': to_properties(_jaas_escaped(name, _settings_of(name, named_settings[name], attribute),
                                                        jaas_keys.get(name))),
                 'mode': mode, 'secret': bool(secret)}
        entry.update({key: value for key, value in (('owner', owner), ('group', group)) if value is not None})
        entries.append(entry)
    return entries


class FilterModule:
    def filters(self) -> dict:
        return {'properties_files': properties_files}
