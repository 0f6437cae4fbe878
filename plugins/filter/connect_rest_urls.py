# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Kafka Connect REST URLs of a play's workers, the local one first."""

from __future__ import annotations

DOCUMENTATION = r"""
name: connect_rest_urls
short_description: The Kafka Connect REST URLs of a play's workers, the local worker first
version_added: 0.2.0
description:
  - Returns C(<scheme>://<host>:<port>) for this host's worker first, then for each other host of the play in
    order, each once.
  - Over C(https) this host's worker is named O(advertised_host) (the name in its certificate); over C(http), with
    O(hostvars), by the address its listener binds (C(connect_worker_rest_listen_address), else C(ansible_host), else
    its name, as role kafka_dr.mm2.connect_worker defaults it; C(127.0.0.1) when it binds every address), else
    C(127.0.0.1). The other workers are named as the play names them.
  - With O(hostvars), the hosts whose C(connect_worker_state) is V(absent) (workers drained by role
    kafka_dr.mm2.connect_worker) are left out, this host too; a C(connect_worker_state) other than V(present) or
    V(absent) is refused, naming the host.
options:
  _input:
    description: The play's hosts (C(ansible_play_hosts)).
    type: list
    elements: str
    required: true
  this_host:
    description: This host's name in the play (C(inventory_hostname)).
    type: str
    required: true
  scheme:
    description: C(http) or C(https).
    type: str
    required: true
  port:
    description: The REST port of the workers.
    type: int
    required: true
  advertised_host:
    description: This host's worker's name in its certificate.
    type: str
    required: true
  hostvars:
    description: The play's C(hostvars); without them no host is left out.
    type: dict
    version_added: 0.4.0
"""

EXAMPLES = r"""
- name: Show where the connectors are managed
  ansible.builtin.debug:
    msg: "{{ ansible_play_hosts | kafka_dr.mm2.connect_rest_urls(inventory_hostname, 'https', 8443, 'connect-1.example.com') }}"

- name: The same, without the drained workers
  ansible.builtin.debug:
    msg: "{{ ansible_play_hosts | kafka_dr.mm2.connect_rest_urls(inventory_hostname, 'https', 8443, 'connect-1.example.com', hostvars) }}"
"""

RETURN = r"""
_value:
  description: The URLs, this host's first.
  type: list
  elements: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.connect_worker_scale import connect_rest_urls as _connect_rest_urls
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter

connect_rest_urls = as_filter(_connect_rest_urls)


class FilterModule:
    def filters(self) -> dict:
        return {'connect_rest_urls': connect_rest_urls}
