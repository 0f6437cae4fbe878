# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hosts that run a Connect worker: those whose connect_worker_state is not absent."""

from __future__ import annotations

DOCUMENTATION = r"""
name: connect_workers_present
short_description: The hosts that run a Kafka Connect worker, without the drained ones
version_added: 0.4.0
description:
  - Returns the hosts in order, each once, without those whose C(connect_worker_state) in O(hostvars) is V(absent)
    (workers drained by role kafka_dr.mm2.connect_worker). A host that does not set it runs a worker.
  - A C(connect_worker_state) other than V(present) or V(absent) is refused, naming the host.
options:
  _input:
    description: Host names, for example C(groups['connect_workers']).
    type: list
    elements: str
    required: true
  hostvars:
    description: The play's C(hostvars).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Count the workers of the Connect cluster
  ansible.builtin.debug:
    msg: "{{ groups['connect_workers'] | kafka_dr.mm2.connect_workers_present(hostvars) | length }}"
"""

RETURN = r"""
_value:
  description: The hosts that run a worker.
  type: list
  elements: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.connect_worker_scale import connect_workers_present as _present
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter

connect_workers_present = as_filter(_present)


class FilterModule:
    def filters(self) -> dict:
        return {'connect_workers_present': connect_workers_present}
