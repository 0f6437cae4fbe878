# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Put secret values back where the ${file:...} placeholders of one file stand."""

from __future__ import annotations

DOCUMENTATION = r"""
name: inline_file_placeholders
short_description: Put secret values where the placeholders of one file stand
version_added: 0.5.0
description:
  - Returns the properties with each C(${file:<path>:<key>}) of O(path) whose key O(values) holds replaced by that
    value; other values, other files' placeholders included, stay as they are.
  - For the Connect workers' own secrets, which role kafka_dr.mm2.connect_worker writes into their properties file.
    Connect's config providers serve the connectors too, so a secret the worker read through a placeholder could be
    read by any connector.
options:
  _input:
    description: The properties, with placeholders.
    type: dict
    required: true
  path:
    description: The secrets file whose placeholders are replaced.
    type: str
    required: true
  values:
    description: The secret values by their key in that file.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: The worker's properties with its own secrets in place
  ansible.builtin.debug:
    msg: >-
      {{ {'sasl.jaas.config': '${file:/etc/kafka/connect/worker-secrets.properties:sasl.jaas.config}'}
         | kafka_dr.mm2.inline_file_placeholders('/etc/kafka/connect/worker-secrets.properties', {'sasl.jaas.config': 'x'}) }}
"""

RETURN = r"""
_value:
  description: The properties, those placeholders replaced by their values.
  type: dict
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_clients import inline_file_placeholders as _inline

inline_file_placeholders = as_filter(_inline)


class FilterModule:
    def filters(self) -> dict:
        return {'inline_file_placeholders': inline_file_placeholders}
