# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Repeat one Kafka client's settings for every client of a Kafka Connect worker."""

from __future__ import annotations

DOCUMENTATION = r"""
name: client_properties
short_description: Repeat Kafka client settings under the producer., consumer. and admin. prefixes
version_added: 0.1.0
description:
  - A Kafka Connect worker runs several Kafka clients, and each reads its own copy of the
    security settings; the worker's own settings are unprefixed, the clients it creates for
    connectors read C(producer.*), C(consumer.*) and C(admin.*).
  - Returns every setting once per prefix. Settings whose value is C(None) (not in use) are left out.
options:
  _input:
    description: Settings of one client, for example C(security.protocol) and C(sasl.mechanism).
    type: dict
    required: true
  prefixes:
    description: Prefixes to repeat the settings under; the empty prefix keeps the settings as they are.
      Every other prefix ends with a dot.
    type: list
    elements: str
    default: ['', producer., consumer., admin.]
"""

EXAMPLES = r"""
- name: Security settings of a worker and of its producer, consumer and admin clients
  ansible.builtin.copy:
    content: >-
      {{ {'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'SCRAM-SHA-512'}
         | kafka_dr.mm2.client_properties | kafka_dr.mm2.to_properties }}
    dest: /etc/kafka/connect/security.properties
    mode: "0640"

- name: Only the connector clients
  ansible.builtin.debug:
    msg: "{{ {'security.protocol': 'SSL'} | kafka_dr.mm2.client_properties(prefixes=['producer.', 'consumer.']) }}"
"""

RETURN = r"""
_value:
  description: The settings under each prefix, for example C(security.protocol) and C(producer.security.protocol).
  type: dict
"""

from typing import Mapping, Sequence

from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_clients import (
    WORKER_CLIENT_PREFIXES,
    prefixed_client_properties,
)


def client_properties(settings: Mapping[str, object], prefixes: Sequence[str] = WORKER_CLIENT_PREFIXES) -> dict:
    try:
        return prefixed_client_properties(settings, prefixes)
    except ValueError as error:
        raise AnsibleFilterError('client_properties: %s' % error) from error


class FilterModule:
    def filters(self) -> dict:
        return {'client_properties': client_properties}
