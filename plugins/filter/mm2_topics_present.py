# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The topics each cluster held at the end of role mirrormaker's topic check (plugin_utils/mm2_results.py reads them)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: mm2_topics_present
short_description: The topics each cluster holds, from the topic check and the source clusters' listings
version_added: 0.4.0
description:
  - A cluster the topic check described holds the topics its last description shows (see
    P(kafka_dr.mm2.topic_names#filter)), whether the run succeeded or not.
  - A cluster the check left out (a source cluster that already held its topics) holds what O(source_topics) lists.
  - Results without C(stdout) (skipped items) are left out.
options:
  _input:
    description: The results of the topic check looped over the expected topics by alias (C(item.key)).
    type: list
    elements: dict
    required: true
  source_topics:
    description: The topics each source cluster listed before the check, by alias.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Show what each cluster holds
  ansible.builtin.debug:
    msg: "{{ topic_check.results | kafka_dr.mm2.mm2_topics_present(source_listing.results | kafka_dr.mm2.outputs_by_item('item', 'stdout_lines')) }}"
"""

RETURN = r"""
_value:
  description: Topic names by cluster alias, the source clusters' first.
  type: dict
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_results import topics_present

mm2_topics_present = as_filter(topics_present)


class FilterModule:
    def filters(self) -> dict:
        return {'mm2_topics_present': mm2_topics_present}
