# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The settings of a Kafka Connect worker's restart watchdog, as role connect_worker writes them."""

from __future__ import annotations

DOCUMENTATION = r"""
name: connect_worker_watchdog_settings
short_description: The settings file of role connect_worker's restart watchdog
version_added: 0.4.0
description:
  - Returns the watchdog's settings (its C(watchdog.json)), with the REST account in it.
  - The watchdog reaches its worker as the health gate does (O(_input.health_base_url)), with the first of
    O(_input.rest_users) when O(_input.rest_basic_auth) is on, and the CA O(_input.rest_ca_path) with HTTPS.
  - Its C(worker_id) is Connect's, the advertised REST host and port; O(_input.properties) win unless they leave
    them empty.
  - Stall detection reads the worker's JMX exporter; it is off (C(stall_seconds) 0, the exporter settings empty) unless
    O(_input.metrics_enabled) is on and O(_input.stall_seconds) is over 0. The exporter's CA is kept for an C(https://)
    URL only.
  - Numbers and switches are read as the role reads them (C(| int), C(| bool)).
options:
  _input:
    description: The role's settings, each named as its variable without C(connect_worker_) (and C(auto_restart_)).
    type: dict
    required: true
    suboptions:
      health_base_url: {description: How the health gate reaches the worker., type: str, required: true}
      properties: {description: The worker's properties., type: dict, required: true}
      rest_advertised_host: {description: The REST host the worker advertises unless its properties say., type: str, required: true}
      rest_port: {description: The REST port the worker advertises unless its properties say., type: int, required: true}
      state_file: {description: The watchdog's state file., type: str, required: true}
      poll_interval: {description: Seconds between two looks at the worker., type: int, required: true}
      max_restarts: {description: Restarts of one task at most; 0 for no cap., type: int, required: true}
      metrics_address: {description: Address the watchdog's metrics bind., type: str, required: true}
      metrics_port: {description: Port of the watchdog's metrics., type: int, required: true}
      rest_https: {description: The REST server runs HTTPS., type: bool, required: true}
      rest_ca_path: {description: CA file the REST clients trust., type: str, required: true}
      rest_basic_auth: {description: REST basic authentication is on., type: bool, required: true}
      rest_users: {description: The REST accounts (C(username), C(password)); the first one is used., type: list, elements: dict, required: true}
      metrics_enabled: {description: The worker runs the JMX exporter agent., type: bool, required: true}
      stall_seconds: {description: Seconds without progress that make a task stalled; 0 for none., type: int, required: true}
      exporter_url: {description: Where the watchdog reads the worker's JMX exporter., type: str, required: true}
      exporter_username: {description: The exporter's basic authentication user; empty for none., type: str, required: true}
      exporter_password: {description: The exporter's basic authentication password., type: str, required: true}
      exporter_ca_path: {description: CA file the watchdog trusts for an HTTPS exporter., type: str, required: true}
"""

EXAMPLES = r"""
- name: Write the watchdog's settings
  ansible.builtin.copy:
    content: "{{ watchdog | kafka_dr.mm2.connect_worker_watchdog_settings | to_nice_json }}\n"
    dest: /etc/kafka/connect/watchdog.json
    mode: "0600"
"""

RETURN = r"""
_value:
  description: The watchdog's settings.
  type: dict
  contains:
    urls: {description: The worker's REST URL., type: list, elements: str}
    worker_id: {description: "The worker's C(host:port) as Connect names it.", type: str}
    state_file: {description: The watchdog's state file., type: str}
    poll_interval: {description: Seconds between two looks., type: int}
    max_restarts: {description: Restarts of one task at most; 0 for no cap., type: int}
    metrics_address: {description: Address of the watchdog's metrics., type: str}
    metrics_port: {description: Port of the watchdog's metrics., type: int}
    username: {description: The REST user; empty without basic authentication., type: str}
    password: {description: The REST user's password; empty without basic authentication., type: str}
    ca_path: {description: The REST CA with HTTPS, else empty., type: str}
    validate_certs: {description: Always true., type: bool}
    stall_seconds: {description: Seconds that make a task stalled; 0 without stall detection., type: int}
    exporter_url: {description: The exporter's URL; empty without stall detection., type: str}
    exporter_username: {description: The exporter's user; empty without stall detection., type: str}
    exporter_password: {description: The exporter's password; empty without stall detection., type: str}
    exporter_ca_path: {description: The exporter's CA for an HTTPS exporter with stall detection, else empty., type: str}
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.connect_workers import (
    connect_worker_watchdog_settings as _connect_worker_watchdog_settings,
)
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter

connect_worker_watchdog_settings = as_filter(_connect_worker_watchdog_settings)


class FilterModule:
    def filters(self) -> dict:
        return {'connect_worker_watchdog_settings': connect_worker_watchdog_settings}
