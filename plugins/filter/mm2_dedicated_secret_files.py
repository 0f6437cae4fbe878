# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The secret values of a dedicated-mode mm2.properties, for a vault (plugin_utils/mm2_dedicated.py)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: mm2_dedicated_secret_files
short_description: The secret values of a dedicated-mode MirrorMaker 2 mm2.properties, as mirrormaker_secret_files
version_added: 0.4.0
description:
  - Returns the passwords and JAAS lines of an C(mm2.properties) in the shape of C(mirrormaker_secret_files) (file name
    -> key -> value), under the files and keys that C(kafka_dr.mm2.mm2_from_dedicated) names in its model.
  - The result holds secrets; keep it out of logs (C(no_log)) and encrypt what it is written to (C(ansible-vault)).
  - Fails as C(kafka_dr.mm2.mm2_from_dedicated) does.
options:
  _input:
    description: The text of the mm2.properties file.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Write the secret values for a vault
  ansible.builtin.copy:
    content: "{{ {'mirrormaker_secret_files': mm2_text | kafka_dr.mm2.mm2_dedicated_secret_files} | to_nice_yaml }}"
    dest: group_vars/all/vault.yml
    mode: "0600"
  no_log: true
"""

RETURN = r"""
_value:
  description: File name -> key -> secret value; placeholders the file already held are not repeated here.
  type: dict
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_dedicated import dedicated_secret_files

mm2_dedicated_secret_files = as_filter(dedicated_secret_files)


class FilterModule:
    def filters(self) -> dict:
        return {'mm2_dedicated_secret_files': mm2_dedicated_secret_files}
