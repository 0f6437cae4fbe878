# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Map secret names to the ${file:...} placeholders that read them."""

from __future__ import annotations

DOCUMENTATION = r"""
name: file_placeholders
short_description: Map property names to FileConfigProvider placeholders
version_added: 0.1.0
description:
  - Kafka's C(FileConfigProvider) resolves C(${file:<path>:<key>}) when a broker or worker reads
    its configuration, so secrets live in a separate file and the configuration carries only
    the placeholder.
  - Returns a mapping of every key to the placeholder that reads the same key from O(path).
options:
  _input:
    description: Property names kept in the secrets file (a list, or a mapping whose keys are used).
    type: raw
    required: true
  path:
    description: Absolute path of the secrets file on the host.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Placeholders of the store passwords
  ansible.builtin.debug:
    msg: "{{ ['ssl.keystore.password', 'ssl.key.password'] | kafka_dr.mm2.file_placeholders('/etc/kafka/broker/secrets/tls.properties') }}"
"""

RETURN = r"""
_value:
  description: Each key mapped to C(${file:<path>:<key>}).
  type: dict
"""

from typing import Iterable

from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_clients import file_placeholders as _placeholders


def file_placeholders(keys: Iterable[str], path: str) -> dict:
    try:
        return _placeholders(keys, path)
    except ValueError as error:
        raise AnsibleFilterError('file_placeholders: %s' % error) from error


class FilterModule:
    def filters(self) -> dict:
        return {'file_placeholders': file_placeholders}
