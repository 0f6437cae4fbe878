# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Server-side security settings of a Kafka broker, with its store passwords apart."""

from __future__ import annotations

DOCUMENTATION = r"""
name: broker_security
short_description: Security properties of a KRaft broker's server.properties, with its store passwords apart
version_added: 0.2.0
description:
  - Returns the security part of a broker's C(server.properties) as role kafka_dr.mm2.kafka_broker writes it, empty
    with the PLAINTEXT defaults.
  - With an SSL or SASL_SSL listener, or the controller on SSL, the key and trust stores and the principal mapping
    rules; the store passwords that are set become C(${file:<secrets_dir>/tls.properties:<key>}) placeholders, read
    through a C(file) config provider allowed on O(_input.secrets_dir) only.
  - Client certificates are required on the SSL listener (as O(_input.ssl_client_auth) says) and on the controller's
    listener when it runs SSL; SASL_SSL lists its mechanisms, and with GSSAPI the Kerberos service name and principal
    rules; the authorizer adds the StandardAuthorizer, its super users and its rule for resources without ACLs.
  - Switches are read as the role reads them (C(| bool)).
options:
  _input:
    description: The role's settings, each named as its variable without C(kafka_broker_).
    type: dict
    required: true
    suboptions:
      ssl_enabled: {description: The SSL listener is on., type: bool, required: true}
      sasl_ssl_enabled: {description: The SASL_SSL listener is on., type: bool, required: true}
      controller_protocol: {description: The controller listener's protocol (PLAINTEXT or SSL)., type: str, required: true}
      secrets_dir: {description: Directory of the broker's secret files., type: str, required: true}
      ssl_keystore_type: {description: Key store type., type: str, required: true}
      ssl_keystore_location: {description: Key store path., type: str, required: true}
      ssl_keystore_password: {description: Key store password; empty for none., type: str, required: true}
      ssl_key_password: {description: Key password; empty for none., type: str, required: true}
      ssl_truststore_type: {description: Trust store type., type: str, required: true}
      ssl_truststore_location: {description: Trust store path., type: str, required: true}
      ssl_truststore_password: {description: Trust store password; empty for none., type: str, required: true}
      ssl_principal_mapping_rules: {description: How certificate names become principals., type: str, required: true}
      ssl_listener_name: {description: Name of the SSL listener., type: str, required: true}
      ssl_client_auth: {description: Client certificates on the SSL listener., type: str, required: true}
      sasl_mechanisms: {description: SASL mechanisms of the SASL_SSL listener., type: list, elements: str, required: true}
      kerberos_service_name: {description: Kerberos service name (GSSAPI)., type: str, required: true}
      kerberos_principal_to_local_rules: {description: Kerberos principal rules (GSSAPI)., type: list, elements: str, required: true}
      authorizer_enabled: {description: The StandardAuthorizer is on., type: bool, required: true}
      super_users: {description: Principals the authorizer lets do anything., type: list, elements: str, required: true}
      allow_everyone_if_no_acl_found: {description: Resources without ACLs are open., type: bool, required: true}
"""

EXAMPLES = r"""
- name: Render the broker's settings
  ansible.builtin.copy:
    content: "{{ base_properties | combine(broker.properties) | kafka_dr.mm2.to_properties }}"
    dest: /etc/kafka/server.properties
    mode: "0640"
  vars:
    broker: "{{ broker_settings | kafka_dr.mm2.broker_security }}"
"""

RETURN = r"""
_value:
  description: The security settings and the store passwords.
  type: dict
  contains:
    properties:
      description: Properties to add to server.properties; passwords only as placeholders.
      type: dict
    tls_secrets:
      description: The store passwords that are set, by property name, for <secrets_dir>/tls.properties.
      type: dict
    secrets_needed:
      description: The broker has secrets to keep in its secrets directory (SASL_SSL, or a store password).
      type: bool
      version_added: 0.4.0
"""

from typing import Any, Dict

from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_brokers import broker_security as _broker_security


def broker_security(broker: Dict[str, Any]) -> Dict[str, Any]:
    try:
        return _broker_security(broker)
    except ValueError as error:
        raise AnsibleFilterError(str(error)) from error


class FilterModule:
    def filters(self) -> dict:
        return {'broker_security': broker_security}
