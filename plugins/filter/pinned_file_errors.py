# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Why controller files may not be installed: their SHA-256 is not the one pinned for their name."""

from __future__ import annotations

DOCUMENTATION = r"""
name: pinned_file_errors
short_description: The controller files whose SHA-256 is not the one a role pins for their name
version_added: 0.4.0
description:
  - Returns one message per file that has no pin, or whose SHA-256 differs from the pin of its file name, naming the
    file, both digests and the variable; and one per pin that is not C(sha256:<64 hexadecimal digits>). Empty when
    every file may be installed.
options:
  _input:
    description: C(paths) of M(kafka_dr.mm2.path_info) with O(kafka_dr.mm2.path_info#module:checksum) for the files.
    type: dict
    required: true
  pins:
    description: File name to its C(sha256:<hex>) digest.
    type: dict
    required: true
  variable:
    description: The variable that holds the pins, for messages.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Refuse jars that are not the pinned ones
  ansible.builtin.assert:
    that: errors | length == 0
    fail_msg: "{{ errors }}"
  vars:
    errors: "{{ jars_on_controller.paths | kafka_dr.mm2.pinned_file_errors(jar_checksums, 'jar_checksums') }}"
"""

RETURN = r"""
_value:
  description: The problems, each ending with C(Nothing was changed.).
  type: list
  elements: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.pinned_artifacts import pinned_file_errors as _errors

pinned_file_errors = as_filter(_errors)


class FilterModule:
    def filters(self) -> dict:
        return {'pinned_file_errors': pinned_file_errors}
