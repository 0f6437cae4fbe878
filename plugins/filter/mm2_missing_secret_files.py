# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The secret files a worker lacks for role mirrormaker's connectors (plugin_utils/mm2_results.py decides)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: mm2_missing_secret_files
short_description: The secret files a worker lacks, leaving out in check mode those the run would write
version_added: 0.4.0
description:
  - Returns the C(missing) paths of a C(kafka_dr.mm2.path_info) result, in order; a skipped task reports none.
  - In check mode the files the role writes into O(secrets_dir) (the names of O(secret_files) and O(keytab_files))
    do not exist yet, so they are left out.
options:
  _input:
    description: The result of C(kafka_dr.mm2.path_info) on the secret files the connector configs read.
    type: dict
    required: true
  secrets_dir:
    description: The workers' secrets directory, into which the role writes the files.
    type: str
    required: true
  secret_files:
    description: The secret files the role writes (C(mirrormaker_secret_files)); only the names are read.
    type: dict
    required: true
  keytab_files:
    description: The keytabs the role installs (C(mirrormaker_keytab_files)); only the names are read.
    type: dict
    required: true
  check_mode:
    description: The run is in check mode (C(ansible_check_mode)).
    type: bool
    required: true
"""

EXAMPLES = r"""
- name: Stop when a worker lacks a secret file
  ansible.builtin.assert:
    that: >-
      secret_paths | kafka_dr.mm2.mm2_missing_secret_files('/etc/kafka/connect/secrets', mirrormaker_secret_files,
      mirrormaker_keytab_files, ansible_check_mode) | length == 0
"""

RETURN = r"""
_value:
  description: Paths, in the order C(path_info) gave them.
  type: list
  elements: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_results import missing_secret_files

mm2_missing_secret_files = as_filter(missing_secret_files)


class FilterModule:
    def filters(self) -> dict:
        return {'mm2_missing_secret_files': mm2_missing_secret_files}
