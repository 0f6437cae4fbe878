# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The topic names in an output of Kafka's TopicCommand (--list or --describe)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: topic_names
short_description: The topic names in an output of Kafka's TopicCommand
version_added: 0.1.0
description:
  - Takes the standard output of C(TopicCommand --list) (one name per line) or of C(TopicCommand --describe) (a
    C(Topic:) line per topic, then its partitions) and returns the names of the topics it shows, sorted.
options:
  _input:
    description: The tool's standard output.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Topics a describe run showed
  ansible.builtin.debug:
    msg: "{{ described.stdout | kafka_dr.mm2.topic_names }}"
"""

RETURN = r"""
_value:
  description: Topic names, sorted, each once.
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_topic_configs import topic_names as parse_topic_names


def topic_names(output: object) -> list:
    if not isinstance(output, str):
        raise AnsibleFilterError(f"topic_names: the input must be a tool's standard output (a string), got {type(output).__name__}")
    return parse_topic_names(output)


class FilterModule:
    def filters(self) -> dict:
        return {'topic_names': topic_names}
