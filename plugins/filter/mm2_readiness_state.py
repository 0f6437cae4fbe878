# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The readiness check's state file, read and written (plugin_utils/mm2_readiness_files.py)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: mm2_readiness_state
short_description: The source topic ids in the readiness check's state file, or the file's new text
version_added: 0.4.0
description:
  - With O(_input) the text of a state file (empty when there is none), returns the topic ids it holds, source topic to id.
    A text that is not a state file fails the task and says to remove the file.
  - With O(_input) the topic ids of a run (RV(kafka_dr.mm2.mm2_readiness#module:topic_ids)) and O(flow), returns the state
    file's new text (JSON with C(format), C(flow), C(measured_at) and C(topic_ids)).
options:
  _input:
    description: The state file's text, or the run's topic ids.
    type: raw
    required: true
  flow:
    description: The flow; given, the input is the run's topic ids and the new text is returned.
    type: str
  measured_at:
    description: When the run measured them.
    type: str
    default: ''
"""

EXAMPLES = r"""
- name: Read the previous run's topic ids
  ansible.builtin.set_fact:
    known_ids: "{{ lookup('ansible.builtin.file', state_file, errors='ignore') | default('', true) | kafka_dr.mm2.mm2_readiness_state }}"
"""

RETURN = r"""
_value:
  description: Source topic to topic id, or the state file's new text.
  type: raw
"""

from typing import Any, Optional

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_readiness_files import readiness_state, readiness_state_ids


def state(value: Any, flow: Optional[str] = None, measured_at: str = '') -> Any:
    if flow is None:
        return readiness_state_ids(value)
    return readiness_state(value or {}, flow, measured_at)


mm2_readiness_state = as_filter(state)


class FilterModule:
    def filters(self) -> dict:
        return {'mm2_readiness_state': mm2_readiness_state}
