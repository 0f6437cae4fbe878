# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""MirrorMaker 2's dedicated-mode mm2.properties as the collection's model (plugin_utils/mm2_dedicated.py)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: mm2_from_dedicated
short_description: Convert a dedicated-mode MirrorMaker 2 mm2.properties into mm2_clusters and mm2_flows
version_added: 0.4.0
description:
  - Reads the text of the C(mm2.properties) that C(connect-mirror-maker.sh) runs (clusters, C(<alias>.bootstrap.servers),
    each cluster's security settings, C(<source>-><target>.enabled) and the other settings of each flow or of all
    of them) and returns the same replication in the model of role C(kafka_dr.mm2.mirrormaker).
  - Never returns a secret value. Passwords and JAAS lines become references to secret files in the workers' secrets
    directory (C(<alias>.properties), keys as the model names them), listed in RV(_value.secrets); a value that is
    already a C(${file:path:key}) placeholder keeps its file and key. The filter
    C(kafka_dr.mm2.mm2_dedicated_secret_files) returns the values, for a vault.
  - Fails listing every line it cannot map, each with its line number and key; an unknown key, a flow naming a
    cluster alias that C(clusters) does not list, a value MM2 would refuse, a cluster without bootstrap servers.
    Settings of dedicated mode's own Connect workers and the converters are read but not carried over
    (RV(_value.unmapped) says why).
options:
  _input:
    description: The text of the mm2.properties file (for example C(lookup('ansible.builtin.file', path))).
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Convert a dedicated-mode configuration
  ansible.builtin.set_fact:
    converted: "{{ lookup('ansible.builtin.file', '/etc/kafka/mm2.properties') | kafka_dr.mm2.mm2_from_dedicated }}"
"""

RETURN = r"""
_value:
  description: The model and what the conversion left to the operator.
  type: dict
  contains:
    mm2_clusters:
      description: Cluster alias -> connection settings, as C(mm2_clusters).
      type: dict
    mm2_flows:
      description: One flow per enabled C(<source>-><target>), as C(mm2_flows); settings the file leaves unset take the model's defaults.
      type: list
      elements: dict
    secrets:
      description:
        - Each secret the clusters refer to, with C(cluster), C(setting), C(file), C(key), C(line) and C(provided)
          (true when the file already held a C(${file:...}) placeholder for it). Never the value.
      type: list
      elements: dict
    unmapped:
      description: Lines read but not carried over, each with C(line), C(key) and C(reason).
      type: list
      elements: dict
    notes:
      description: What the conversion decided that an operator should check (a client's connection made the cluster's, a keytab to install).
      type: list
      elements: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_dedicated import from_dedicated

mm2_from_dedicated = as_filter(from_dedicated)


class FilterModule:
    def filters(self) -> dict:
        return {'mm2_from_dedicated': mm2_from_dedicated}
