# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What draining a Connect worker (connect_worker_state absent) does, and whether it may."""

from __future__ import annotations

DOCUMENTATION = r"""
name: connect_worker_drain
short_description: The plan of role connect_worker for a worker that leaves its Connect cluster
version_added: 0.4.0
description:
  - Returns what role kafka_dr.mm2.connect_worker does with a worker whose C(connect_worker_state) is V(absent).
  - The workers that remain are the other hosts of O(_input.hosts) with the same C(connect_worker_cluster_name) whose
    C(connect_worker_state) is not V(absent); their settings come from O(hostvars), else from O(_input.peer_defaults).
  - With no worker remaining, RV(_value.errors) holds the refusal, naming the Connect cluster and the host.
  - RV(_value.urls) are the REST base URLs of the remaining workers, each by its advertised name and port
    (C(rest.advertised.host.name) and C(rest.advertised.port) of its C(connect_worker_properties) win), the names
    the workers of a Connect cluster reach each other by.
  - The systemd steps are those that change something, none for a unit that is not installed.
options:
  _input:
    description: This host's settings, each named as its role variable without C(connect_worker_).
    type: dict
    required: true
    suboptions:
      host: {description: This host (C(inventory_hostname))., type: str, required: true}
      hosts: {description: The hosts that may run workers of this Connect cluster (the group and the play)., type: list, elements: str, required: true}
      group: {description: The inventory group of the workers, for the refusal., type: str, required: true}
      cluster_name: {description: This worker's Connect cluster., type: str, required: true}
      rest_scheme: {description: This worker's REST scheme., type: str, required: true}
      rest_port: {description: This worker's REST port., type: int, required: true}
      rest_advertised_host: {description: This worker's advertised REST host., type: str, required: true}
      properties: {description: This worker's C(connect_worker_properties)., type: dict, required: true}
      peer_defaults:
        description: The role defaults of C(connect_worker_state), C(connect_worker_cluster_name),
          C(connect_worker_rest_scheme), C(connect_worker_rest_port) and C(connect_worker_properties), for hosts whose
          hostvars do not set them.
        type: dict
        required: true
      host_state: {description: What tasks/host_state.yml read (C(active.<unit>) and C(enabled.<unit>))., type: dict, required: true}
      service: {description: The worker's systemd unit., type: str, required: true}
      watchdog_service: {description: The restart watchdog's systemd unit., type: str, required: true}
  hostvars:
    description: The play's C(hostvars).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Refuse to drain the last worker of a Connect cluster
  ansible.builtin.assert:
    that: (drain_input | kafka_dr.mm2.connect_worker_drain(hostvars)).errors | length == 0
    fail_msg: "{{ (drain_input | kafka_dr.mm2.connect_worker_drain(hostvars)).errors }}"
"""

RETURN = r"""
_value:
  description: The drain's plan.
  type: dict
  contains:
    cluster: {description: The Connect cluster's name., type: str}
    errors: {description: The refusal when no worker of the Connect cluster would remain; empty otherwise., type: list, elements: str}
    remaining: {description: The hosts of the workers that remain., type: list, elements: str}
    urls: {description: "Their REST base URLs, for example C(https://connect-2.example.com:8083).", type: list, elements: str}
    worker_id: {description: "How the Connect cluster names this worker in its assignments (C(host:port)).", type: str}
    worker_installed: {description: The worker's unit is installed., type: bool}
    stop_worker: {description: The worker runs and must stop., type: bool}
    disable_worker: {description: The worker starts at boot and must not., type: bool}
    watchdog_installed: {description: The restart watchdog's unit is installed., type: bool}
    stop_watchdog: {description: The watchdog runs and must stop., type: bool}
    disable_watchdog: {description: The watchdog starts at boot and must not., type: bool}
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.connect_worker_scale import connect_worker_drain as _connect_worker_drain
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter

connect_worker_drain = as_filter(_connect_worker_drain)


class FilterModule:
    def filters(self) -> dict:
        return {'connect_worker_drain': connect_worker_drain}
