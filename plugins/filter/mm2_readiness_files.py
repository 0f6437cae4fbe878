# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The controller files of role readiness (plugin_utils/mm2_readiness_files.py)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: mm2_readiness_files
short_description: Where the readiness check of a flow finds its failover reports and keeps its state
version_added: 0.4.0
description:
  - Role failover names its reports C(failover-<flow>-<mode>.json), the flow as the operator named it, C(->) written
    C(_to_) and other characters outside C(A-Z), C(a-z), C(0-9), C(.), C(_), C(-) written C(_). The patterns cover the
    flow as given, as C(<source>-><target>) and by its name.
  - The state file holds the source topic ids of the previous run, C(readiness-<source>_to_<target>.json) in the state
    directory.
options:
  _input:
    description: The answer of M(kafka_dr.mm2.mm2_plan) with O(kafka_dr.mm2.mm2_plan#module:operation=readiness).
    type: dict
    required: true
  flow:
    description: The flow as the operator named it (C(readiness_flow)).
    type: str
    required: true
  reports_dir:
    description: The directory of the failover reports.
    type: str
    required: true
  state_dir:
    description: The directory of the state file.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Show where the readiness check looks
  ansible.builtin.debug:
    msg: "{{ readiness_inputs | kafka_dr.mm2.mm2_readiness_files('orders', 'reports', 'reports') }}"
    # {'reports_dir': 'reports', 'failover_report_patterns': ['failover-orders-*.json', 'failover-src_to_dst-*.json'],
    #  'state_file': 'reports/readiness-src_to_dst.json'}
"""

RETURN = r"""
_value:
  description: The files.
  type: dict
  contains:
    reports_dir:
      description: The directory of the failover reports.
      type: str
    failover_report_patterns:
      description: File name patterns of the flow's failover reports.
      type: list
      elements: str
    state_file:
      description: The state file's path.
      type: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_readiness_files import readiness_files

mm2_readiness_files = as_filter(readiness_files)


class FilterModule:
    def filters(self) -> dict:
        return {'mm2_readiness_files': mm2_readiness_files}
