# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rules of role kafka_broker's settings that its argument specs cannot express."""

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_broker_errors
short_description: What is wrong with role kafka_broker's settings, one message per broken rule
version_added: 0.2.0
description:
  - Checks the rules between settings of role kafka_dr.mm2.kafka_broker that its argument specs cannot express, so
    the role stops before anything changes.
  - The host is in the broker group; the cluster id has 22 characters and the node id is a non-negative integer; at
    least one client listener is on, their names differ (case aside) and their ports differ from each other and from
    the controller's; the inter-broker listener is one of them.
  - SASL_SSL lists a mechanism; PLAIN account names use letters, digits, C(.), C(_) and C(-) and their passwords hold
    no double quote or backslash; the authorizer, or a broker without its PLAINTEXT listener, needs the SSL listener;
    GSSAPI needs a C(service/host@REALM) principal and a keytab source, when set, that is a file on the controller.
  - Switches and ports are read as the role reads them (C(| bool), C(| int)). Passwords are never shown.
options:
  _input:
    description: The role's variables, by their names, each of C(inventory_hostname), C(kafka_broker_group),
      C(kafka_broker_cluster_id), C(kafka_broker_node_id), C(kafka_broker_controller_port),
      C(kafka_broker_inter_broker_listener), C(kafka_broker_plaintext_enabled), C(kafka_broker_ssl_enabled),
      C(kafka_broker_sasl_ssl_enabled), C(kafka_broker_sasl_mechanisms), C(kafka_broker_plain_users),
      C(kafka_broker_authorizer_enabled), C(kafka_broker_kerberos_principal) and C(kafka_broker_kerberos_keytab_src);
      with C(kafka_broker_group_members), the hosts of the inventory group (empty without it), and
      C(kafka_broker_client_listeners), the enabled client listeners, each a dict with C(name), C(protocol) and
      C(port).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Stop on settings that break a rule
  ansible.builtin.assert:
    that: broken_rules | length == 0
    fail_msg: "{{ broken_rules }}"
  vars:
    broken_rules: "{{ checked_settings | kafka_dr.mm2.kafka_broker_errors }}"
    checked_settings:
      inventory_hostname: "{{ inventory_hostname }}"
      kafka_broker_group_members: "{{ groups[kafka_broker_group] | default([]) }}"
      # ... every variable listed under _input
"""

RETURN = r"""
_value:
  description: One message per broken rule, in a fixed order; empty when the settings are valid.
  type: list
  elements: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.role_rules import kafka_broker_errors as _errors
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter

kafka_broker_errors = as_filter(_errors)


class FilterModule:
    def filters(self) -> dict:
        return {'kafka_broker_errors': kafka_broker_errors}
