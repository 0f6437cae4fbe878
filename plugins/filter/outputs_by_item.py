# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The outputs of a looped task's results, by their loop item."""

from __future__ import annotations

DOCUMENTATION = r"""
name: outputs_by_item
short_description: The outputs of a looped task's results, by their loop item
version_added: 0.2.0
description:
  - Returns a mapping with one entry per result of a looped task, in order (a later result wins a repeated key),
    from the result's value at O(key) to its value at O(value).
  - Both are dotted paths into the result, as C(map(attribute=...)) reads them, for example C(item.key).
  - A result without either path is refused; filter the results first (C(selectattr('stdout', 'defined'))).
options:
  _input:
    description: The results, for example C(registered.results).
    type: list
    elements: dict
    required: true
  key:
    description: Dotted path of the key in each result.
    type: str
    default: item
  value:
    description: Dotted path of the value in each result.
    type: str
    default: stdout
"""

EXAMPLES = r"""
- name: Show each cluster's topic description
  ansible.builtin.debug:
    msg: "{{ described.results | selectattr('stdout', 'defined') | kafka_dr.mm2.outputs_by_item('item.key', 'stdout') }}"
"""

RETURN = r"""
_value:
  description: The values by their keys.
  type: dict
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.registered_results import outputs_by_item as _outputs_by_item

outputs_by_item = as_filter(_outputs_by_item)


class FilterModule:
    def filters(self) -> dict:
        return {'outputs_by_item': outputs_by_item}
