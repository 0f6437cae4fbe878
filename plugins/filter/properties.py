# -*- coding: utf-8 -*-
# Copyright: kafka_dr.mm2 contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Render a mapping as a Java properties document (what Kafka reads); the escaping is module_utils/java_properties.py's."""

from __future__ import annotations

DOCUMENTATION = r"""
name: to_properties
short_description: Render a dictionary as a Java properties file
version_added: 0.1.0
description:
  - Sorted C(key=value) lines with Java properties escaping, so a template can render any worker or broker configuration from a merged dictionary.
  - Values take the string form Kafka Connect stores (booleans as C(true)/C(false), lists comma-separated); C(None) values are
    left out, which lets an override remove a default. A mapping as a value is an error.
options:
  _input:
    description: Properties to render.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Render server.properties
  ansible.builtin.copy:
    content: "{{ {'node.id': 1, 'process.roles': 'broker,controller'} | kafka_dr.mm2.to_properties }}"
    dest: /etc/kafka/server.properties
    mode: "0640"
"""

RETURN = r"""
_value:
  description: The properties document, one C(key=value) per line, ending with a newline.
  type: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_values import connect_string
from ansible_collections.kafka_dr.mm2.plugins.module_utils.java_properties import dumps


def _value_text(key: str, value: object) -> str:
    try:
        return connect_string(value)
    except TypeError as exc:
        raise AnsibleFilterError("to_properties: the value of %s %s" % (key, exc)) from None


def to_properties(properties: dict) -> str:
    if not isinstance(properties, dict):
        raise AnsibleFilterError("to_properties expects a dictionary, got %s" % type(properties).__name__)
    pairs = [
        (str(key), _value_text(str(key), value))
        for key, value in sorted(properties.items(), key=lambda item: str(item[0]))
        if value is not None
    ]
    return dumps(pairs) or "\n"


class FilterModule:
    def filters(self) -> dict:
        return {"to_properties": to_properties}
