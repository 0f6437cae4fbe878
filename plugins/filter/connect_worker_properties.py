# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The properties of a Kafka Connect worker, as role connect_worker writes them."""

from __future__ import annotations

DOCUMENTATION = r"""
name: connect_worker_properties
short_description: The connect-distributed.properties of role connect_worker, as a mapping
version_added: 0.4.0
description:
  - Returns the worker's properties, each later part replacing the keys of the ones before, as C(combine) does
    (not recursively).
  - First O(_input.base); then, unless O(_input.kafka_security_protocol) is C(PLAINTEXT), the security settings of
    the worker's Kafka clients (its own and the C(producer.), C(consumer.) and C(admin.) ones) with their secrets as
    placeholders; with O(_input.rest_https) the HTTPS listener (C(listeners.https.*)); with
    O(_input.rest_basic_auth) Connect's basic authentication extension; last O(_input.properties).
  - A REST store password without a placeholder in O(_input.rest_secret_refs) is None, which
    C(kafka_dr.mm2.to_properties) leaves out. Switches are read as the role reads them (C(| bool)).
options:
  _input:
    description: The role's properties and settings, each named as its variable without C(connect_worker_).
    type: dict
    required: true
    suboptions:
      base: {description: The properties every worker has., type: dict, required: true}
      kafka_security_protocol: {description: Security protocol of the Kafka clients., type: str, required: true}
      kafka_client_settings: {description: "The clients' security settings without secrets (C(client_security)'s C(settings)).",
                              type: dict, required: true}
      kafka_client_refs: {description: The placeholders of the clients' secrets, by property name., type: dict, required: true}
      rest_https: {description: The REST server runs HTTPS., type: bool, required: true}
      rest_port: {description: Port of the REST server., type: int, required: true}
      rest_ssl_keystore_type: {description: Type of the REST key store., type: str, required: true}
      rest_ssl_keystore_location: {description: The REST key store., type: str, required: true}
      rest_ssl_truststore_type: {description: Type of the REST trust store., type: str, required: true}
      rest_ssl_truststore_location: {description: The REST trust store., type: str, required: true}
      rest_ssl_client_auth: {description: Whether the REST server asks for client certificates., type: str, required: true}
      rest_ssl_cipher_suites: {description: The REST server's cipher suites; empty for the JVM's., type: list, elements: str, required: true}
      rest_secret_refs: {description: The placeholders of the worker's secrets, by their key in the secrets file., type: dict, required: true}
      rest_basic_auth: {description: REST basic authentication is on., type: bool, required: true}
      properties: {description: The user's properties; they win., type: dict, required: true}
"""

EXAMPLES = r"""
- name: Write the worker's properties
  ansible.builtin.copy:
    content: "{{ worker | kafka_dr.mm2.connect_worker_properties | kafka_dr.mm2.to_properties }}"
    dest: /etc/kafka/connect/connect-distributed.properties
    mode: "0640"
"""

RETURN = r"""
_value:
  description: The properties by name; a None value is one to leave out.
  type: dict
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.connect_workers import connect_worker_properties as _connect_worker_properties
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter

connect_worker_properties = as_filter(_connect_worker_properties)


class FilterModule:
    def filters(self) -> dict:
        return {'connect_worker_properties': connect_worker_properties}
