# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decisions of role kafka_tls's CA roll (kafka_tls_ca_roll)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: tls_ca_roll
short_description: Plan one step of the lab CA's roll (add, switch, retire)
version_added: 0.3.0
description:
  - "Decides, on the controller, what role kafka_dr.mm2.kafka_tls does for O(phase): create the new CA (C(add)), promote it
    and drop the old one from the trust bundles (C(retire)), and which CAs the hosts trust (C(trust), C(current) and
    C(next))."
  - "C(retire) is refused (C(errors)) while a host staged on the controller holds a certificate the new CA did not issue;
    C(switch) is refused before C(add)."
  - "With O(host_key_id) and O(plan), returns instead which CA signs the host's certificate in this run: C(current) or
    C(next)."
options:
  _input:
    description: The phase, C(none), C(add), C(switch) or C(retire).
    type: str
    required: true
  next_info:
    description:
      - The result of C(community.crypto.x509_certificate_info) on the new CA's certificate (C(ca-next/ca.pem)), read
        with C(failed_when=false); sets O(next_exists) and O(next_key_id).
    type: dict
    version_added: 0.4.0
  next_exists:
    description: Whether the new CA (C(ca-next/)) exists on the controller.
    type: bool
    default: false
  next_key_id:
    description: Subject key identifier of the new CA's certificate.
    type: str
  staged_certs:
    description:
      - The results of C(community.crypto.x509_certificate_info) looped over every staged C(hosts/<host>/cert.pem)
        (C(item.path) and C(authority_key_identifier) of each).
    type: list
    elements: dict
  plan:
    description: The plan this filter returned for the play; asks for the host decision.
    type: dict
  host_key_id:
    description: Authority key identifier of this host's current certificate, with O(plan).
    type: str
"""

EXAMPLES = r"""
- name: Plan the CA step
  ansible.builtin.set_fact:
    roll: "{{ kafka_tls_ca_roll | kafka_dr.mm2.tls_ca_roll(next_info=next_ca_info, staged_certs=staged.results) }}"

- name: Read the key identifiers of the CAs the run uses
  ansible.builtin.set_fact:
    key_ids: "{{ roll | kafka_dr.mm2.tls_ca_key_ids(current_info=current_ca_info, next_info=next_ca_info) }}"
"""

RETURN = r"""
_value:
  description: "C({create_next, promote, trust, errors}), or with O(plan) the string C(current) or C(next)."
  type: raw
"""

from typing import Any, Mapping, Optional, Sequence, Union

from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.tls_ca_roll import (
    ca_key_ids,
    host_issuer,
    next_common_name,
    plan_roll,
    staged_key_ids,
)


def tls_ca_roll(phase: str, next_exists: bool = False, next_key_id: Optional[str] = None,
                staged_certs: Optional[Sequence[Mapping[str, Any]]] = None,
                plan: Optional[Mapping[str, Any]] = None, host_key_id: Optional[str] = None,
                next_info: Optional[Mapping[str, Any]] = None) -> Union[dict, str]:
    if not isinstance(phase, str):
        raise AnsibleFilterError('tls_ca_roll expects the phase as a string, got %s' % type(phase).__name__)
    if next_info is not None:
        # x509_certificate_info reports no key identifier when it could not read the file.
        next_exists = 'subject_key_identifier' in next_info
        next_key_id = next_info.get('subject_key_identifier')
    if plan is not None:
        return host_issuer(phase, plan, host_key_id, next_key_id)
    return plan_roll(phase, bool(next_exists), next_key_id, staged_key_ids(staged_certs or [])).as_dict()


def tls_ca_key_ids(plan: Mapping[str, Any], current_info: Mapping[str, Any], next_info: Mapping[str, Any],
                   created_info: Optional[Mapping[str, Any]] = None) -> dict:
    if not isinstance(plan, Mapping):
        raise AnsibleFilterError('tls_ca_key_ids expects the plan of tls_ca_roll, got %s' % type(plan).__name__)
    return ca_key_ids(plan, current_info, next_info, created_info)


def tls_ca_next_name(current_common_name: Optional[str], base_common_name: str) -> str:
    return next_common_name(current_common_name, base_common_name)


class FilterModule:
    def filters(self) -> dict:
        return {'tls_ca_roll': tls_ca_roll, 'tls_ca_next_name': tls_ca_next_name, 'tls_ca_key_ids': tls_ca_key_ids}
