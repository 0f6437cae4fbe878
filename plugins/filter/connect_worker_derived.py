# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Values role connect_worker derives from its settings."""

from __future__ import annotations

DOCUMENTATION = r"""
name: connect_worker_derived
short_description: JVM options, REST secrets, store paths, health and watchdog URLs of role connect_worker
version_added: 0.2.0
description:
  - Returns what role kafka_dr.mm2.connect_worker derives from its settings, each value under the name of the role
    variable C(__connect_worker_<name>) it fills.
  - Remote JMX on the loopback address when O(_input.jmx_port) is not 0; the JVM options of the REST login file and of
    the Kerberos configuration; the REST store passwords that are set, with HTTPS; the stores the worker reads.
  - The watchdog's exporter URL unless O(_input.auto_restart_exporter_url) sets it, and its own metrics URL; an
    address binding every interface is reached on 127.0.0.1, an IPv6 address in brackets.
  - The health gate's URL of the worker, without a path; HTTPS on O(_input.rest_advertised_host), the name in the
    certificate, else plain HTTP on 127.0.0.1.
  - Numbers and switches are read as the role reads them (C(| int), C(| bool)).
options:
  _input:
    description: The role's settings, each named as its variable without C(connect_worker_), and its switches.
    type: dict
    required: true
    suboptions:
      jmx_port: {description: Remote JMX port; 0 for none., type: int, required: true}
      rest_https: {description: The REST server runs HTTPS., type: bool, required: true}
      rest_basic_auth: {description: REST basic authentication is on., type: bool, required: true}
      rest_jaas_file: {description: The REST login file., type: str, required: true}
      krb5_conf: {description: The Kerberos configuration file., type: str, required: true}
      kafka_tls: {description: The Kafka clients use TLS., type: bool, required: true}
      kafka_client_certificate: {description: The Kafka clients present a certificate., type: bool, required: true}
      kafka_gssapi: {description: The Kafka clients log in with GSSAPI., type: bool, required: true}
      kafka_ssl_truststore_location: {description: Trust store of the Kafka clients., type: str, required: true}
      kafka_ssl_keystore_location: {description: Key store of the Kafka clients., type: str, required: true}
      rest_ssl_keystore_location: {description: Key store of the REST server., type: str, required: true}
      rest_ssl_truststore_location: {description: Trust store of the REST server., type: str, required: true}
      rest_ca_path: {description: CA file the REST clients trust., type: str, required: true}
      rest_ssl_keystore_password: {description: REST key store password; empty for none., type: str, required: true}
      rest_ssl_key_password: {description: REST key password; empty for none., type: str, required: true}
      rest_ssl_truststore_password: {description: REST trust store password; empty for none., type: str, required: true}
      rest_advertised_host: {description: Name of the worker in its certificate., type: str, required: true}
      rest_port: {description: Port of the REST server., type: int, required: true}
      rest_listen_address:
        description: The address the REST listener binds, which the plain HTTP health gate calls (C(127.0.0.1) for every address).
        type: str
        required: true
      metrics_address: {description: Address the JMX exporter agent binds., type: str, required: true}
      metrics_port: {description: Port of the JMX exporter agent., type: int, required: true}
      exporter_tls: {description: The JMX exporter agent serves HTTPS., type: bool, required: true}
      auto_restart_exporter_url: {description: The watchdog's exporter URL; empty to derive it., type: str, required: true}
      auto_restart_metrics_address: {description: Address the watchdog's metrics bind., type: str, required: true}
      auto_restart_metrics_port: {description: Port of the watchdog's metrics., type: int, required: true}
"""

EXAMPLES = r"""
- name: Show the worker's JVM options for JMX
  ansible.builtin.debug:
    msg: "{{ (worker | kafka_dr.mm2.connect_worker_derived).jmx_options | join(' ') }}"
"""

RETURN = r"""
_value:
  description: The derived values.
  type: dict
  contains:
    jmx_options: {description: JVM options of remote JMX., type: list, elements: str}
    security_jvm_options: {description: JVM options of the REST login and of Kerberos., type: list, elements: str}
    rest_secrets: {description: The REST store passwords that are set, by property name., type: dict}
    store_paths: {description: The key and trust stores the worker reads., type: list, elements: str}
    watchdog_exporter_url: {description: Where the watchdog reads the worker's JMX exporter., type: str}
    watchdog_metrics_url: {description: Where the watchdog's own metrics are read on this host., type: str}
    health_base_url: {description: "How the health gate reaches this worker, for example C(https://task-1.example.com:8083).", type: str}
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.connect_workers import connect_worker_derived as _connect_worker_derived
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter

connect_worker_derived = as_filter(_connect_worker_derived)


class FilterModule:
    def filters(self) -> dict:
        return {'connect_worker_derived': connect_worker_derived}
