# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which keys of the MirrorMaker 2 secret files are read inside JAAS lines (plugin_utils/mm2_clusters.py decides)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: mm2_jaas_secret_keys
short_description: Keys of the MirrorMaker 2 secret files that JAAS login lines read, to be written JAAS-escaped
version_added: 0.1.0
description:
  - Renders the connection settings of the clusters of the MirrorMaker 2 model and finds the C(${file:path:key})
    placeholders that sit inside a quoted value of a C(sasl.jaas.config) line, such as the password of a cluster
    with C(sasl_password_file). Kafka resolves them before it parses the line, which reads backslash escapes, so
    their values must be written JAAS-escaped (option O(kafka_dr.mm2.properties_files#filter:jaas_keys)).
  - Returns, for each file of O(secret_files) that such a placeholder reads, all of its keys (the password read now
    and any staged for a rotation under another key), except keys a setting outside the JAAS lines reads (a store
    password, used as it is).
  - A key read both inside a JAAS line and by another setting is an error. Other problems of the model are left to
    module C(kafka_dr.mm2.mm2_plan); a cluster that does not render reads nothing here.
options:
  _input:
    description: The clusters of the model (C(mm2_clusters)), alias to connection options.
    type: dict
    required: true
  secrets_dir:
    description: The workers' secrets directory, in which relative file names lie.
    type: str
    required: true
  secret_files:
    description: The secret files to write (C(mirrormaker_secret_files)), file name to C(key -> value); only the
      names and keys are read.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Write the MirrorMaker 2 secret files, the passwords of JAAS lines JAAS-escaped
  kafka_dr.mm2.file_set:
    files: >-
      {{ mirrormaker_secret_files
         | kafka_dr.mm2.properties_files('/etc/kafka/connect/secrets', group='kafka', secret=true,
             jaas_keys=(mm2_clusters | kafka_dr.mm2.mm2_jaas_secret_keys('/etc/kafka/connect/secrets',
                                                                         mirrormaker_secret_files))) }}
  no_log: true
"""

RETURN = r"""
_value:
  description: >-
    File names mapped to the sorted keys to write JAAS-escaped, for example
    C({"mm2.properties": ["sasl.password", "sasl.password.sha256"]}); files no JAAS line reads are left out.
  type: dict
"""

from typing import Any, Dict, List, Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_clusters import jaas_secret_keys


def mm2_jaas_secret_keys(clusters: Any, secrets_dir: str, secret_files: Mapping[str, Any]) -> Dict[str, List[str]]:
    try:
        return jaas_secret_keys(clusters, secrets_dir, secret_files)
    except ValueError as error:
        # The message names files and keys, never a value.
        raise AnsibleFilterError('mm2_jaas_secret_keys: %s' % error) from None


class FilterModule:
    def filters(self) -> dict:
        return {'mm2_jaas_secret_keys': mm2_jaas_secret_keys}
