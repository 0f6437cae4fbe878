# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The connectors and tasks a Connect cluster still gives to one worker."""

from __future__ import annotations

DOCUMENTATION = r"""
name: connect_worker_assignments
short_description: The connectors and tasks a Kafka Connect cluster still assigns to one worker
version_added: 0.4.0
description:
  - Reads the statuses module kafka_dr.mm2.connector_info returned and lists each connector and task whose
    C(worker_id) is O(worker_id), with its state.
  - The status a worker writes when it lets go of its work (C(UNASSIGNED)) keeps naming that worker until another one
    takes the work over, so it counts as still assigned.
options:
  _input:
    description: The RV(kafka_dr.mm2.connector_info#module:connectors) of module connector_info.
    type: dict
    required: true
  worker_id:
    description: The worker, as the Connect cluster names it (C(host:port), its advertised REST host and port).
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Wait until the Connect cluster moved everything off connect-3
  kafka_dr.mm2.connector_info:
    url: [http://connect-1:8083, http://connect-2:8083]
    topics: false
    offsets: false
  register: statuses
  until: statuses.connectors is defined and statuses.connectors | kafka_dr.mm2.connect_worker_assignments('connect-3:8083') | length == 0
  retries: 60
  delay: 2
"""

RETURN = r"""
_value:
  description: Each connector and task still assigned to the worker, for example C(task mm2-msc-1 (UNASSIGNED)).
  type: list
  elements: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.connect_worker_scale import connect_worker_assignments as _assignments
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter

connect_worker_assignments = as_filter(_assignments)


class FilterModule:
    def filters(self) -> dict:
        return {'connect_worker_assignments': connect_worker_assignments}
