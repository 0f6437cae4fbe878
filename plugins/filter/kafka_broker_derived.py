# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Values role kafka_broker derives from its settings."""

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_broker_derived
short_description: Listeners, JVM options and admin connection of role kafka_broker
version_added: 0.2.0
description:
  - Returns what role kafka_dr.mm2.kafka_broker derives from its settings, each value under the name of the role
    variable C(__kafka_broker_<name>) it fills.
  - The client listeners that are on, in the order PLAINTEXT, SASL_SSL, SSL, each with its name, protocol and port.
  - The values of C(listeners), C(advertised.listeners) (None without a client listener) and
    C(listener.security.protocol.map), from the client listeners; the controller's listener is bound after them.
  - The JVM options naming the JAAS file (with the SASL_SSL listener) and krb5.conf (with GSSAPI).
  - The role's own admin connection, the SSL listener with O(_input.admin_client_config) when it is on, else the
    PLAINTEXT listener.
  - Whether the role ships the keytab and krb5.conf (with GSSAPI, when their source on the controller is given).
  - Switches are read as the role reads them (C(| bool)).
options:
  _input:
    description: The role's settings, each named as its variable without C(kafka_broker_), and its JAAS file.
    type: dict
    required: true
    suboptions:
      plaintext_enabled: {description: The PLAINTEXT listener is on., type: bool, required: true}
      listener_name: {description: Name of the PLAINTEXT listener., type: str, required: true}
      port: {description: Port of the PLAINTEXT listener., type: int, required: true}
      sasl_ssl_enabled: {description: The SASL_SSL listener is on., type: bool, required: true}
      sasl_ssl_listener_name: {description: Name of the SASL_SSL listener., type: str, required: true}
      sasl_ssl_port: {description: Port of the SASL_SSL listener., type: int, required: true}
      ssl_enabled: {description: The SSL listener is on., type: bool, required: true}
      ssl_listener_name: {description: Name of the SSL listener., type: str, required: true}
      ssl_port: {description: Port of the SSL listener., type: int, required: true}
      sasl_mechanisms: {description: The mechanisms the SASL_SSL listener offers., type: list, elements: str, required: true,
                        version_added: 0.4.0}
      jaas_file: {description: The broker's JAAS file., type: str, required: true}
      krb5_conf: {description: The Kerberos configuration file., type: str, required: true}
      advertised_host: {description: The name clients reach this broker by., type: str, required: true, version_added: 0.4.0}
      controller_port: {description: Port of the controller's listener., type: int, required: true, version_added: 0.4.0}
      controller_protocol: {description: Protocol of the controller's listener., type: str, required: true, version_added: 0.4.0}
      admin_client_config: {description: The admin client's settings file for the SSL listener., type: str, required: true,
                            version_added: 0.4.0}
      kerberos_keytab_src: {description: The keytab on the controller; empty for none., type: str, required: true, version_added: 0.4.0}
      krb5_conf_src: {description: The krb5.conf on the controller; empty for none., type: str, required: true, version_added: 0.4.0}
"""

EXAMPLES = r"""
- name: Show the broker's client listeners
  ansible.builtin.debug:
    msg: "{{ (broker | kafka_dr.mm2.kafka_broker_derived).client_listeners | map(attribute='name') | join(',') }}"
"""

RETURN = r"""
_value:
  description: The derived values.
  type: dict
  contains:
    client_listeners: {description: The client listeners that are on, each with name, protocol and port., type: list, elements: dict}
    jvm_security_options: {description: JVM options of the JAAS file and of Kerberos., type: list, elements: str}
    gssapi: {description: The SASL_SSL listener is on and offers GSSAPI., type: bool}
    tls_needed: {description: "A listener uses TLS (SSL, SASL_SSL or the controller's on SSL): the broker needs its stores.", type: bool}
    listeners: {description: The value of listeners., type: str}
    advertised_listeners: {description: The value of advertised.listeners; None without a client listener., type: str}
    listener_security_protocol_map: {description: The value of listener.security.protocol.map., type: str}
    admin_tls: {description: The admin connection uses the SSL listener., type: bool}
    admin_bootstrap: {description: "The admin connection's C(host:port).", type: str}
    admin_connection: {description: The admin tools' connection arguments., type: list, elements: str}
    ship_keytab: {description: The role ships the keytab., type: bool}
    ship_krb5_conf: {description: The role ships krb5.conf., type: bool}
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_brokers import kafka_broker_derived as _kafka_broker_derived

kafka_broker_derived = as_filter(_kafka_broker_derived)


class FilterModule:
    def filters(self) -> dict:
        return {'kafka_broker_derived': kafka_broker_derived}
