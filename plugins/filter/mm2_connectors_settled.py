# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether role mirrormaker's connectors all run (plugin_utils/mm2_results.py decides)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: mm2_connectors_settled
short_description: Whether every connector was found and it and its tasks run
version_added: 0.4.0
description:
  - Reads a C(kafka_dr.mm2.connector_info) result and the least number of tasks each connector must run (C(min_tasks)
    of C(kafka_dr.mm2.mm2_plan)'s C(expect) operation); a checkpoint connector without consumer groups to follow has
    no task, and that is normal.
  - Settled means no requested connector is missing, every connector and every task is C(RUNNING), and every
    connector expected to run a task has one.
  - A result without C(missing) (not read yet, or the module failed) is not settled.
options:
  _input:
    description: The result of C(kafka_dr.mm2.connector_info), C(connectors) and C(missing).
    type: dict
    required: true
  min_tasks:
    description: The least number of tasks of each connector, by name.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Wait until every connector and its tasks run
  kafka_dr.mm2.connector_info:
    name: "{{ plan.desired_names }}"
  register: status
  until: (status | kafka_dr.mm2.mm2_connectors_settled(expect.min_tasks)).settled
  retries: 40
  delay: 3
"""

RETURN = r"""
_value:
  description: The verdict and what it was made of.
  type: dict
  contains:
    settled: {description: Every connector was found and it and its tasks run., type: bool}
    states:
      description: The state of each connector, then of each of their tasks.
      type: list
      elements: str
    taskless: {description: The connectors expected to run a task that have none., type: list, elements: str}
    connectors:
      description: The connectors of the result, by name (empty when it has none).
      type: dict
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_results import connectors_settled

mm2_connectors_settled = as_filter(connectors_settled)


class FilterModule:
    def filters(self) -> dict:
        return {'mm2_connectors_settled': mm2_connectors_settled}
