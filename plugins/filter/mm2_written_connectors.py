# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The connectors role mirrormaker's deployment wrote (plugin_utils/mm2_results.py reads them)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: mm2_written_connectors
short_description: Names of the connectors a deployment loop created or changed
version_added: 0.4.0
description:
  - A connector whose config was written has just started and read its secret files; it needs no restart for them.
  - Returns C(item.name) of each result of the C(kafka_dr.mm2.connector) loop that changed something, in order.
  - A task that was skipped reports nothing; pass an empty mapping for one that did not run.
options:
  _input:
    description: The result of the task looped over the planned connectors (each item with its C(name)).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Restart the connectors whose secret files changed, unless the deployment just wrote them
  kafka_dr.mm2.connector:
    name: "{{ item.name }}"
    state: restarted
  loop: "{{ plan.connectors }}"
  when: item.name not in (deployed | kafka_dr.mm2.mm2_written_connectors)
"""

RETURN = r"""
_value:
  description: Connector names, in the order of the loop.
  type: list
  elements: str
"""

from typing import Any, List

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_results import changed_items


@as_filter
def mm2_written_connectors(deployed: Any) -> List[Any]:
    return changed_items(deployed, 'item.name', 'deployed')


class FilterModule:
    def filters(self) -> dict:
        return {'mm2_written_connectors': mm2_written_connectors}
