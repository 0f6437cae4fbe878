#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: kafka_client_stores
short_description: Check the TLS stores that Kafka client settings name, on the host that reads them
version_added: 0.4.0
description:
  - For each cluster's client settings (C(ssl.truststore.*), C(ssl.keystore.*), C(bootstrap.servers)), checks that each
    store exists, that O(user) can read it, that its password opens it, and when each of its certificates expires.
  - With O(verify_chain), makes a TLS handshake with the first bootstrap server that answers and verifies the broker's
    chain against the trust store's certificates, and its host name when
    C(ssl.endpoint.identification.algorithm) is C(https) (Kafka's default).
  - Passwords may be C(${file:path:key}) placeholders, read from the host's secret files as Kafka's
    C(FileConfigProvider) reads them; they never appear in the result.
  - keytool opens the stores (JKS and PKCS12), its password given in a private file, never on a command line.
  - Reads only. A problem is reported in RV(errors), RV(expiring) and RV(stores); the module itself fails only on bad
    arguments, so a play can name every problem of every host before it stops.
author:
  - kafka_dr.mm2 maintainers (!UNKNOWN)
options:
  clusters:
    description:
      - Client settings by cluster alias, as Kafka reads them.
      - The C(clusters) that M(kafka_dr.mm2.mm2_plan) returns may be given as they are (their C(client_properties) are read).
    type: dict
    required: true
  user:
    description: The service user that must be able to read each store; empty to skip that check.
    type: str
    default: ''
  warn_days:
    description: A certificate that expires within this many days is a warning; an expired one is an error.
    type: int
    default: 30
  verify_chain:
    description: Verify each trust store against its cluster's brokers.
    type: bool
    default: true
  keytool:
    description: The keytool command of the JVM that runs the clients.
    type: str
    default: keytool
extends_documentation_fragment:
  - kafka_dr.mm2.attributes.read_only
'''

EXAMPLES = r'''
- name: Check the stores of every cluster of the flows
  kafka_dr.mm2.kafka_client_stores:
    clusters: "{{ plan.clusters }}"
    user: kafka
    warn_days: 30
  become: true
  register: stores

- name: Stop on a store that would fail the connectors
  ansible.builtin.assert:
    that: stores.errors | length == 0
    fail_msg: "{{ stores.errors | join(' ') }}"
'''

RETURN = r'''
stores:
  description:
    - One entry per store named, with C(cluster), C(kind) (C(truststore) or C(keystore)), C(path), C(errors),
      C(warnings), C(certificates) (C(alias), C(subject), C(not_after) in ISO 8601, C(days_left)) and C(handshake)
      (C(verified), C(not tried), or why not).
  returned: always
  type: list
  elements: dict
errors:
  description: Every error, each naming the cluster alias and the file.
  returned: always
  type: list
  elements: str
  sample: ["cluster emrsource: /etc/kafka/connect/tls/emrsource-truststore.p12 does not exist"]
expiring:
  description: Every certificate that expires within O(warn_days), each naming the cluster alias, the file and the date
    (also given as a warning).
  returned: always
  type: list
  elements: str
'''

import datetime
from typing import Any, Dict

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_config import MASK, mask_config
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import resolve_file_placeholders
from ansible_collections.kafka_dr.mm2.plugins.module_utils.masked_invocation import MaskedInvocationModule
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_stores import StoreReader, check_cluster

ARGUMENT_SPEC = {
    'clusters': {'type': 'dict', 'required': True},
    'user': {'type': 'str', 'default': ''},
    'warn_days': {'type': 'int', 'default': 30},
    'verify_chain': {'type': 'bool', 'default': True},
    'keytool': {'type': 'str', 'default': 'keytool', 'no_log': False},
}


def logged_params(params: Dict[str, Any]) -> Dict[str, Any]:
    """The parameters as the host's journal gets them: each cluster's secret settings masked (a literal store
    password or JAAS line given where a placeholder belongs), placeholders and the rest visible."""
    clusters = {}
    for alias, settings in (params.get('clusters') or {}).items():
        if isinstance(settings, dict) and isinstance(settings.get('client_properties'), dict):
            settings = dict(settings, client_properties=mask_config(settings['client_properties']))
        clusters[alias] = mask_config(settings) if isinstance(settings, dict) else MASK
    return dict(params, clusters=clusters)


def main() -> None:
    module = MaskedInvocationModule(argument_spec=ARGUMENT_SPEC, logged_params=logged_params, supports_check_mode=True)
    keytool = module.get_bin_path(module.params['keytool'], required=False) or module.params['keytool']
    reader = StoreReader(keytool)
    now = datetime.datetime.now(datetime.timezone.utc)
    stores, errors, expiring = [], [], []
    for alias, raw_settings in sorted(module.params['clusters'].items()):
        if isinstance(raw_settings, dict) and isinstance(raw_settings.get('client_properties'), dict):
            raw_settings = raw_settings['client_properties']
        if not isinstance(raw_settings, dict):
            module.fail_json(msg='clusters.%s must be a mapping of client settings' % alias)
        try:
            settings = resolve_file_placeholders({str(key): str(value) for key, value in raw_settings.items()})
        except ValueError as exc:
            errors.append('cluster %s: %s' % (alias, exc))
            continue
        for report in check_cluster(alias, settings, reader, module.params['user'], module.params['warn_days'], now,
                                    module.params['verify_chain']):
            stores.append(report.as_dict())
            errors += ['cluster %s: %s' % (alias, error) for error in report.errors]
            expiring += ['cluster %s: %s' % (alias, warning) for warning in report.warnings]
    for warning in expiring:
        module.warn(warning)
    module.exit_json(changed=False, stores=stores, errors=errors, expiring=expiring)


if __name__ == '__main__':
    main()
