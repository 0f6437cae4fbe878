# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The secret files and keytabs a run of role mirrormaker rewrote (plugin_utils/mm2_results.py reads them)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: mm2_rotated_files
short_description: Names of the secret files and keytabs a run rewrote, whose connectors must restart
version_added: 0.4.0
description:
  - Config providers resolve a connector's placeholders when it starts, so a connector that reads a rewritten
    file restarts to read its new content.
  - Returns the file names (basenames) of the C(changed_paths) of two C(kafka_dr.mm2.file_set) results, then the
    keys of the items a keytab loop changed, each name once.
  - A task that was skipped reports nothing; pass an empty mapping for one that did not run.
options:
  _input:
    description: The result of the secret files' C(kafka_dr.mm2.file_set) task.
    type: dict
    required: true
  early_secret_writes:
    description: The result of the same files' earlier C(kafka_dr.mm2.file_set) task (the connect play's).
    type: dict
    required: true
  keytab_writes:
    description: The result of the task looped over C(mirrormaker_keytab_files | dict2items) that installs the keytabs.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Restart the connectors whose secret files changed
  kafka_dr.mm2.connector:
    name: "{{ item.name }}"
    state: restarted
  loop: "{{ plan.connectors }}"
  when: item.secret_file_names | intersect(secret_writes | kafka_dr.mm2.mm2_rotated_files({}, keytab_writes)) | length > 0
"""

RETURN = r"""
_value:
  description: File names, each once, in the order the results name them.
  type: list
  elements: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_results import rotated_files

mm2_rotated_files = as_filter(rotated_files)


class FilterModule:
    def filters(self) -> dict:
        return {'mm2_rotated_files': mm2_rotated_files}
