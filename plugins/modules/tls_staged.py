#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

# The action plugin plugins/action/tls_staged.py does the work, on the controller; this file documents it.

from __future__ import annotations

DOCUMENTATION = r'''
---
module: tls_staged
short_description: Tell whether a host's TLS material staged on the controller is current, or record that it is
version_added: 0.1.0
description:
  - Used by the role C(kafka_dr.mm2.kafka_tls), on the controller only; it never contacts a host.
  - With O(state=check), answers whether the role must build the host's material again (CA, private key, certificate,
    key stores in O(stage_dir)), without running a crypto module. The material is current when the manifest the role
    recorded after its last build names the same inputs and store password, every file it lists still has the recorded
    digest and mode, and neither the CA nor the host certificate is inside its renewal window. A CA roll step, a roll in
    progress (a C(ca-next) CA exists), provided files and a forced renewal always need the build.
  - With O(state=record), writes that manifest (C(staged.json), mode 0600, in O(stage_dir)) for material just built.
    The store password is kept only as a salted PBKDF2-SHA256 digest.
author:
  - kafka_dr.mm2 maintainers (!UNKNOWN)
options:
  state:
    description: Check the staged material, or record the manifest of material just built.
    type: str
    choices: [check, record]
    default: check
  ca_dir:
    description: The role's CA directory on the controller (C(kafka_tls_ca_dir)).
    type: path
    required: true
  stage_dir:
    description: The host's directory of staged files under O(ca_dir).
    type: path
    required: true
  mode:
    description: C(kafka_tls_mode); only generated material can be current.
    type: str
    choices: [generate, provided]
    default: generate
  ca_roll:
    description: C(kafka_tls_ca_roll); a roll step always builds.
    type: str
    choices: [none, add, switch, retire]
    default: none
  force_renew:
    description: C(kafka_tls_force_renew); true always builds.
    type: bool
    default: false
  key_type:
    description: C(kafka_tls_key_type).
    type: str
    choices: [RSA, ECC]
    required: true
  key_size:
    description: C(kafka_tls_key_size), for RSA keys.
    type: int
    default: 2048
  key_curve:
    description: C(kafka_tls_key_curve), for ECC keys.
    type: str
    default: secp256r1
  common_name:
    description: The host certificate's common name.
    type: str
    required: true
  subject_alt_names:
    description: The host certificate's subject alternative names, in the order the role asks for them.
    type: list
    elements: str
    default: []
  pkcs12:
    description: C(kafka_tls_pkcs12); whether C(keystore.p12) belongs to the material.
    type: bool
    default: true
  store_password:
    description: The key store password (C(kafka_tls_store_password)).
    type: str
    default: ''
  ca_valid_days:
    description: C(kafka_tls_ca_valid_days).
    type: int
    required: true
  ca_renew_days:
    description: C(kafka_tls_ca_renew_days); the CA certificate is due when it ends within this many days.
    type: int
    required: true
  cert_valid_days:
    description: C(kafka_tls_cert_valid_days).
    type: int
    required: true
  renew_days:
    description: C(kafka_tls_renew_days); the host certificate is due when it ends within this many days.
    type: int
    required: true
attributes:
  check_mode:
    support: full
    description: O(state=check) answers the same in check mode; O(state=record) writes nothing in check mode.
  diff_mode:
    support: none
    description: The manifest is bookkeeping; it is never shown as a diff.
  platform:
    support: full
    platforms: all
    description: Runs on the controller only.
notes:
  - Recording the manifest does not count as a change, since it describes files that the build tasks already reported.
seealso:
  - module: community.crypto.x509_certificate
'''

EXAMPLES = r'''
- name: Look at this host's staged material
  kafka_dr.mm2.tls_staged:
    ca_dir: "{{ kafka_tls_ca_dir }}"
    stage_dir: "{{ kafka_tls_ca_dir }}/hosts/{{ inventory_hostname }}"
    key_type: RSA
    common_name: "{{ inventory_hostname }}"
    subject_alt_names: ["DNS:{{ inventory_hostname }}"]
    store_password: "{{ kafka_tls_store_password }}"
    ca_valid_days: 3650
    ca_renew_days: 365
    cert_valid_days: 365
    renew_days: 30
  register: staged
'''

RETURN = r'''
current:
  description: With O(state=check), whether the staged material is what a build would leave.
  returned: state is check
  type: bool
reason:
  description: With O(state=check), why the material must be built, or that it is current.
  returned: state is check
  type: str
  sample: "the host's certificate is due for renewal"
manifest:
  description: With O(state=record), the manifest written, without the store password's digest.
  returned: state is record and not check mode
  type: dict
'''
