# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The readiness check's state file, read and written (plugin_utils/mm2_readiness_files.py)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: mm2_readiness_state
short_description: What the readiness check's state file holds, or the file's new text
version_added: 0.4.0
description:
  - With O(_input) the text of a state file (empty when there is none), returns the topic ids it holds, source topic to id,
    or with O(read=accepted_log_starts) the log starts up to which losses were accepted (topic -> partition -> offset).
    A text that is not a state file fails the task and says to remove the file.
  - With O(_input) the topic ids of a run (RV(kafka_dr.mm2.mm2_readiness#module:topic_ids)) and O(flow), returns the state
    file's new text (JSON with C(format), C(flow), C(measured_at), C(topic_ids) and C(accepted_log_starts)).
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
  accepted_log_starts:
    description: With O(flow), the accepted log starts to keep (RV(kafka_dr.mm2.mm2_readiness#module:state_accepted_log_starts)).
    type: dict
    default: {}
  read:
    description: Without O(flow), what to read from the state file.
    type: str
    choices: [topic_ids, accepted_log_starts]
    default: topic_ids
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
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_readiness_files import (
    readiness_state,
    readiness_state_accepted,
    readiness_state_ids,
)

READERS = {'topic_ids': readiness_state_ids, 'accepted_log_starts': readiness_state_accepted}


def state(value: Any, flow: Optional[str] = None, measured_at: str = '', accepted_log_starts: Optional[dict] = None,
          read: str = 'topic_ids') -> Any:
    if flow is None:
        if read not in READERS:
            raise ValueError('read must be one of %s, not %r' % (', '.join(READERS), read))
        return READERS[read](value)
    return readiness_state(value or {}, flow, measured_at, accepted_log_starts)


mm2_readiness_state = as_filter(state)


class FilterModule:
    def filters(self) -> dict:
        return {'mm2_readiness_state': mm2_readiness_state}
