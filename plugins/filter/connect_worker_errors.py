# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rules of role connect_worker's settings that its argument specs cannot express."""

from __future__ import annotations

DOCUMENTATION = r"""
name: connect_worker_errors
short_description: What is wrong with role connect_worker's settings, one message per broken rule
version_added: 0.2.0
description:
  - Checks the rules between settings of role kafka_dr.mm2.connect_worker that its argument specs cannot express, so
    the role stops before anything changes.
  - The bootstrap servers form a host:port list; the REST port is 1-65535; with
    O(_input.connect_worker_auto_restart) the watchdog's poll interval is positive, its restart cap 0 or more, its
    metrics port 1-65535 and neither the REST nor the JMX port, its stall window 0 or at least twice the poll
    interval and its exporter URL empty or http(s)://.
  - The heap is a JVM size; SASL logins have their user name and password, GSSAPI its principal; the JAAS values
    hold no double quote or backslash; the HTTPS REST server has no PEM key store; REST basic authentication needs
    HTTPS and at least one account.
  - Numbers and switches are read as the role reads them (C(| int), C(| bool)). Each message names its variables;
    passwords are never shown.
options:
  _input:
    description: The role's variables, by their names, each of
      C(connect_worker_bootstrap_servers), C(connect_worker_rest_port), C(connect_worker_jmx_port),
      C(connect_worker_heap), C(connect_worker_auto_restart), C(connect_worker_auto_restart_poll_interval),
      C(connect_worker_auto_restart_max_restarts), C(connect_worker_auto_restart_metrics_port),
      C(connect_worker_auto_restart_stall_seconds), C(connect_worker_auto_restart_exporter_url),
      C(connect_worker_kafka_security_protocol), C(connect_worker_kafka_sasl_mechanism),
      C(connect_worker_kafka_sasl_username), C(connect_worker_kafka_sasl_password),
      C(connect_worker_kafka_kerberos_principal), C(connect_worker_kafka_kerberos_keytab),
      C(connect_worker_rest_scheme), C(connect_worker_rest_ssl_keystore_type), C(connect_worker_rest_basic_auth)
      and C(connect_worker_rest_users).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Stop on settings that break a rule
  ansible.builtin.assert:
    that: broken_rules | length == 0
    fail_msg: "{{ broken_rules }}"
  vars:
    broken_rules: "{{ checked_settings | kafka_dr.mm2.connect_worker_errors }}"
    checked_settings:
      connect_worker_bootstrap_servers: "{{ connect_worker_bootstrap_servers }}"
      connect_worker_rest_port: "{{ connect_worker_rest_port }}"
      # ... every variable listed under _input
"""

RETURN = r"""
_value:
  description: One message per broken rule, in a fixed order; empty when the settings are valid.
  type: list
  elements: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.role_rules import connect_worker_errors as _errors
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter

connect_worker_errors = as_filter(_errors)


class FilterModule:
    def filters(self) -> dict:
        return {'connect_worker_errors': connect_worker_errors}
