# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The JAAS login line (sasl.jaas.config) of a Kafka client."""

from __future__ import annotations

DOCUMENTATION = r"""
name: jaas_config
short_description: JAAS login line of a Kafka client for PLAIN, SCRAM or GSSAPI
version_added: 0.1.0
description:
  - Returns the value of a client's C(sasl.jaas.config) for a SASL mechanism.
  - V(PLAIN) and V(SCRAM-SHA-256)/V(SCRAM-SHA-512) log in with O(username) and O(password);
    V(GSSAPI) (Kerberos) with O(principal) and the key in O(keytab).
  - Values are quoted in the line and escaped as Kafka's JAAS parser reads them (a backslash before each backslash
    and double quote, line feed and carriage return as V(\\n) and V(\\r)), so any password reaches Kafka unchanged.
    A missing value the mechanism needs is refused.
options:
  _input:
    description: SASL mechanism.
    type: str
    required: true
    choices: [PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, GSSAPI]
  username:
    description: Account name (PLAIN, SCRAM).
    type: str
    default: ''
  password:
    description: Its password (PLAIN, SCRAM). The result holds it in clear; keep it in a secret file.
    type: str
    default: ''
  principal:
    description: Kerberos principal (GSSAPI).
    type: str
    default: ''
  keytab:
    description: Path of the keytab on the host (GSSAPI).
    type: str
    default: ''
"""

EXAMPLES = r"""
- name: SCRAM login line, kept in the worker's secrets file
  ansible.builtin.copy:
    content: >-
      {{ {'sasl.jaas.config': 'SCRAM-SHA-512' | kafka_dr.mm2.jaas_config(username='connect', password=vault_connect_password)}
         | kafka_dr.mm2.to_properties }}
    dest: /etc/kafka/connect/secrets/worker.properties
    mode: "0640"
  no_log: true

- name: Kerberos login line
  ansible.builtin.debug:
    msg: >-
      {{ 'GSSAPI' | kafka_dr.mm2.jaas_config(principal='connect/task-1.example.com@EXAMPLE.COM',
                                             keytab='/etc/kafka/connect/secrets/kafka-client.keytab') }}
"""

RETURN = r"""
_value:
  description: The login line, for example
    C(org.apache.kafka.common.security.scram.ScramLoginModule required username="connect" password="...";).
  type: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_clients import jaas_escape as escape_jaas_value, jaas_login_line


def jaas_config(mechanism: str, username: str = '', password: str = '', principal: str = '', keytab: str = '') -> str:
    try:
        return jaas_login_line(mechanism, username=username, password=password, principal=principal, keytab=keytab)
    except ValueError as error:
        # The message names the missing or refused field, never its value.
        raise AnsibleFilterError('jaas_config: %s' % error) from None


def jaas_escape(value: str) -> str:
    """The text to put between the double quotes of a JAAS option (a login file or a sasl.jaas.config line)."""
    try:
        return escape_jaas_value(value)
    except ValueError as error:
        raise AnsibleFilterError('jaas_escape: %s' % error) from None


class FilterModule:
    def filters(self) -> dict:
        return {'jaas_config': jaas_config, 'jaas_escape': jaas_escape}
