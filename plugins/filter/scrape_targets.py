# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Prometheus scrape targets (host:port) of inventory hosts whose exporter is on."""

from __future__ import annotations

DOCUMENTATION = r"""
name: scrape_targets
short_description: Prometheus scrape targets of inventory hosts
version_added: 0.2.0
description:
  - "Turns inventory host names into C(host:port) targets for a Prometheus C(static_configs) entry: each host's
    port is its own value of O(port_var) (or O(default_port)), and hosts whose O(enabled_var) is false are left out."
  - Hosts whose O(state_var) is V(absent) are left out too (a Connect worker drained with C(connect_worker_state)),
    so Prometheus does not alert on a worker that was stopped on purpose.
  - Host order is kept and duplicates are dropped, so a host in two groups is scraped once.
options:
  _input:
    description: Inventory host names.
    type: list
    elements: str
    required: true
  hostvars:
    description: The play's C(hostvars).
    type: dict
    required: true
  port_var:
    description: Host variable holding the exporter's port.
    type: str
    required: true
  default_port:
    description: Port of hosts that do not set O(port_var).
    type: int
    required: true
  enabled_var:
    description: Host variable that turns the exporter off when false; hosts without it are scraped.
    type: str
  enabled_default:
    description: Whether a host without O(enabled_var) is scraped (V(false) for an exporter that is off unless switched on).
    type: bool
    default: true
    version_added: 0.4.0
  state_var:
    description: Host variable that takes the host out when V(absent) (V(present) or V(absent); hosts without it are
      scraped), for example C(connect_worker_state).
    type: str
    version_added: 0.4.0
"""

EXAMPLES = r"""
- name: Targets of the Connect workers' exporters
  ansible.builtin.debug:
    msg: "{{ groups['connect_workers'] | kafka_dr.mm2.scrape_targets(hostvars, 'connect_worker_metrics_port', 9404,
             'connect_worker_metrics_enabled', 'connect_worker_state') }}"
"""

RETURN = r"""
_value:
  description: C(host:port) strings, for example C([task-1-1:9404, task-1-2:9404]).
  type: list
  elements: str
"""

from typing import Any, List, Mapping, Optional, Sequence

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean


def _is_enabled(host_vars: Mapping[str, Any], enabled_var: Optional[str], default: bool = True) -> bool:
    if not enabled_var:
        return True
    try:
        return boolean(host_vars.get(enabled_var, default), strict=True)
    except TypeError as error:
        raise AnsibleFilterError('scrape_targets: %s is not a boolean: %s' % (enabled_var, error))


def _is_absent(host: str, host_vars: Mapping[str, Any], state_var: Optional[str]) -> bool:
    if not state_var:
        return False
    state = str(host_vars.get(state_var, 'present')).strip()
    if state not in ('present', 'absent'):
        raise AnsibleFilterError("scrape_targets: %s of %s must be present or absent, got '%s'" % (state_var, host, state))
    return state == 'absent'


def scrape_targets(hosts: Sequence[str], hostvars: Mapping[str, Mapping[str, Any]], port_var: str,
                   default_port: int, enabled_var: Optional[str] = None, state_var: Optional[str] = None,
                   enabled_default: bool = True) -> List[str]:
    if isinstance(hosts, str):
        raise AnsibleFilterError('scrape_targets expects a list of host names, got a string')
    targets: List[str] = []
    for host in hosts:
        host_vars = hostvars.get(host, {})
        if _is_absent(host, host_vars, state_var) or not _is_enabled(host_vars, enabled_var, enabled_default):
            continue
        port = host_vars.get(port_var, default_port)
        try:
            port_number = int(port)
        except (TypeError, ValueError):
            raise AnsibleFilterError('scrape_targets: %s of %s is %r, not a port number' % (port_var, host, port))
        if not 0 < port_number < 65536:
            raise AnsibleFilterError('scrape_targets: %s of %s is %d, outside 1-65535' % (port_var, host, port_number))
        target = '%s:%d' % (host, port_number)
        if target not in targets:
            targets.append(target)
    return targets


class FilterModule:
    def filters(self) -> dict:
        return {'scrape_targets': scrape_targets}
