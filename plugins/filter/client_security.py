# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Security settings of one Kafka client, split into plain settings and secrets."""

from __future__ import annotations

DOCUMENTATION = r"""
name: client_security
short_description: Security settings of a Kafka client for its protocol, with its secrets apart
version_added: 0.1.0
description:
  - Returns the settings a Kafka client needs for O(_input.security_protocol), split in two so that the
    secrets can go to a file of their own.
  - C(settings) holds C(security.protocol); with V(SASL_PLAINTEXT) or V(SASL_SSL) C(sasl.mechanism) (and
    C(sasl.kerberos.service.name) with V(GSSAPI)); with V(SSL) or V(SASL_SSL) the trust store, and the key store
    when O(_input.ssl_client_certificate) is on.
  - C(secrets) holds the JAAS login line C(sasl.jaas.config) (SASL) and the store passwords the protocol uses;
    empty ones are left out. A value may be a C(${file:...}) placeholder instead of the secret.
  - Mechanisms V(PLAIN), V(SCRAM-SHA-256) and V(SCRAM-SHA-512) log in with a user name and password, V(GSSAPI)
    (Kerberos) with a principal and a keytab.
options:
  _input:
    description: The client's security options.
    type: dict
    required: true
    suboptions:
      security_protocol:
        description: The client's protocol.
        type: str
        required: true
        choices: [PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL]
      sasl_mechanism:
        description: SASL mechanism.
        type: str
        choices: [PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, GSSAPI]
      sasl_username:
        description: Account name (PLAIN, SCRAM).
        type: str
      sasl_password:
        description: Its password (PLAIN, SCRAM).
        type: str
      kerberos_principal:
        description: Kerberos principal (GSSAPI).
        type: str
      kerberos_keytab:
        description: Path of the keytab on the host (GSSAPI).
        type: str
      kerberos_service_name:
        description: The brokers' Kerberos service name (GSSAPI).
        type: str
      ssl_truststore_type:
        description: Trust store type.
        type: str
      ssl_truststore_location:
        description: Trust store path on the host.
        type: str
      ssl_truststore_password:
        description: Trust store password.
        type: str
      ssl_client_certificate:
        description: Whether the client shows a certificate (mutual TLS).
        type: bool
        default: false
      ssl_keystore_type:
        description: Key store type.
        type: str
      ssl_keystore_location:
        description: Key store path on the host.
        type: str
      ssl_keystore_password:
        description: Key store password.
        type: str
      ssl_key_password:
        description: Password of the key in the key store.
        type: str
"""

EXAMPLES = r"""
- name: A SCRAM client over TLS, its secrets in a file of their own
  vars:
    client: >-
      {{ {'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'SCRAM-SHA-512', 'sasl_username': 'connect',
          'sasl_password': vault_connect_password, 'ssl_truststore_type': 'PEM',
          'ssl_truststore_location': '/etc/kafka/tls/ca.pem'} | kafka_dr.mm2.client_security }}
  ansible.builtin.copy:
    content: "{{ client.secrets | kafka_dr.mm2.to_properties }}"
    dest: /etc/kafka/connect/secrets/worker.properties
    mode: "0640"
  no_log: true
"""

RETURN = r"""
_value:
  description: The client's settings and its secrets.
  type: dict
  contains:
    settings:
      description: Settings without secrets, for example C(security.protocol) and C(ssl.truststore.location).
      type: dict
    secrets:
      description: Secret settings, for example C(sasl.jaas.config) and C(ssl.truststore.password).
      type: dict
"""

from typing import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_clients import client_security as build


def client_security(client: Mapping[str, object]) -> dict:
    try:
        return build(client)
    except ValueError as error:
        # The message names the missing or refused option, never a secret's value.
        raise AnsibleFilterError('client_security: %s' % error) from None


class FilterModule:
    def filters(self) -> dict:
        return {'client_security': client_security}
