# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fingerprint of what role connect_worker's login probe proved."""

from __future__ import annotations

DOCUMENTATION = r"""
name: connect_worker_probe_fingerprint
short_description: The fingerprint of the client settings role connect_worker's login probe tried
version_added: 0.4.0
description:
  - Returns the HMAC-SHA-256, keyed by O(_input.key), of a JSON document of the probe's client settings (secrets
    included), the Kafka version, the service user, and each file the login reads with its checksum; the role records
    it on the host after a successful login, and a change of any of them runs the probe again.
  - The key is a random key of the host, kept root-only away from the fingerprint and never shown, so the fingerprint
    cannot be checked against guessed passwords. The same settings and key give the same value on every run.
  - The files are O(_input.store_paths), then the item of each result in O(_input.kerberos_stats). A store's checksum
    is the one O(_input.stores) reports, a Kerberos file's its C(stat.checksum); either is empty when not reported.
  - The document is written as C(to_json(sort_keys=true)) writes it.
options:
  _input:
    description: What the fingerprint covers.
    type: dict
    required: true
    suboptions:
      client: {description: "The probe's client settings, secrets in place.", type: dict, required: true}
      kafka: {description: The Kafka version., type: raw, required: true}
      user: {description: The service user the probe runs as., type: str, required: true}
      store_paths: {description: The key and trust stores the worker reads., type: list, elements: str, required: true}
      stores: {description: "The result of module C(kafka_dr.mm2.path_info) on O(_input.store_paths), or C({}).", type: dict, required: true}
      kerberos_stats:
        description: The registered results of looped C(ansible.builtin.stat) tasks with checksums (C({}) for one not run).
        type: list
        elements: dict
        required: true
      key:
        description: The host's login probe key, 64 hexadecimal digits (32 random bytes).
        type: str
        required: true
"""

EXAMPLES = r"""
- name: Record what the probe proved
  ansible.builtin.copy:
    content: "{{ probe | combine({'key': host_key}) | kafka_dr.mm2.connect_worker_probe_fingerprint }}\n"
    dest: /etc/kafka/connect/.login-probe.sha256
    mode: "0600"
"""

RETURN = r"""
_value:
  description: The HMAC-SHA-256 digest, 64 hexadecimal digits.
  type: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.connect_workers import (
    connect_worker_probe_fingerprint as _connect_worker_probe_fingerprint,
)
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter

connect_worker_probe_fingerprint = as_filter(_connect_worker_probe_fingerprint)


class FilterModule:
    def filters(self) -> dict:
        return {'connect_worker_probe_fingerprint': connect_worker_probe_fingerprint}
