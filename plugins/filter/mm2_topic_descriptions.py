# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The topic descriptions role mirrormaker's topic tool runs gave, by cluster (plugin_utils/mm2_results.py reads them)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: mm2_topic_descriptions
short_description: The outputs of the topic tool runs that succeeded, by cluster alias
version_added: 0.4.0
description:
  - The descriptions show the timestamp type of the replicated heartbeats topics; a cluster with one needs no other
    C(TopicCommand) run.
  - Returns C(stdout) by C(item.key) for each result with C(stdout) and a return code of 0, in order (a later result
    wins a repeated alias). Skipped items and failed runs are left out.
options:
  _input:
    description: The results of a C(TopicCommand --describe) task looped over C(dict2items) of a mapping by alias.
    type: list
    elements: dict
    required: true
"""

EXAMPLES = r"""
- name: Show the clusters whose topics were described
  ansible.builtin.debug:
    msg: "{{ topic_check.results | kafka_dr.mm2.mm2_topic_descriptions | list }}"
"""

RETURN = r"""
_value:
  description: The standard output of each run, by cluster alias.
  type: dict
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_results import topic_descriptions

mm2_topic_descriptions = as_filter(topic_descriptions)


class FilterModule:
    def filters(self) -> dict:
        return {'mm2_topic_descriptions': mm2_topic_descriptions}
