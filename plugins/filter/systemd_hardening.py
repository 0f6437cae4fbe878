# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The systemd sandbox of the collection's services."""

from __future__ import annotations

DOCUMENTATION = r"""
name: systemd_hardening
short_description: The systemd sandbox of a service, as lines of its unit
version_added: 0.4.0
description:
  - Returns the directives that confine a service of the collection (docs/security.md, "Services on the hosts"),
    one per line, for the C([Service]) section of its unit, without a line break after the last one.
  - No new privileges and no capabilities; the whole file system read-only (C(ProtectSystem=strict)) but for the
    directories of O(_input) (C(ReadWritePaths=), left out when the list is empty) and the service's
    C(StateDirectory=); a private C(/tmp), no home directories, no kernel tunables, modules, logs or clock, no
    devices, other users' processes hidden (O(protect_proc)); the address families C(AF_UNIX), C(AF_INET), C(AF_INET6) and
    C(AF_NETLINK); the system calls of C(@system-service) without C(@privileged) and C(@resources) (EPERM);
    C(UMask=0027).
  - Each path must be absolute, without a C(..) component or a control character, and not the root; it is written
    with C(%%) for C(%) and double-quoted when it holds blanks, quotes or backslashes. An error names O(name).
  - This file also holds filter C(systemd_hardened_dropin) (C(overrides | systemd_hardened_dropin(paths, 'variable'))
    gives a drop-in for a unit the collection does not write, such as a package's - the same directives in
    C([Service]), then the operator's sections from the mapping C(overrides), whose directives replace those of the
    sandbox they name).
options:
  _input:
    description: The directories the service writes outside its C(StateDirectory=).
    type: list
    elements: str
    required: true
  name:
    description: The variables the paths come from, for the error message.
    type: str
    required: true
  no_jit:
    description:
      - Add C(MemoryDenyWriteExecute=yes). Only for a service that starts no JVM, whose JIT compiler needs memory
        that is writable and executable.
    type: bool
    default: false
  protect_proc:
    description:
      - Add C(ProtectProc=invisible), which hides other users' processes. Not for a unit with C(PrivateUsers=yes), such
        as Debian's C(prometheus.service), where systemd cannot mount the C(/proc) it needs and the service fails.
    type: bool
    default: true
"""

EXAMPLES = r"""
- name: Write the unit
  ansible.builtin.copy:
    dest: /etc/systemd/system/kafka-broker.service
    content: |
      [Service]
      User=kafka
      ExecStart=/usr/bin/java ...
      {{ ['/var/lib/kafka/broker', '/var/log/kafka/broker'] | kafka_dr.mm2.systemd_hardening('kafka_broker_data_dir, kafka_broker_log_dir') }}
    mode: "0644"

- name: Confine a package's unit with a drop-in
  ansible.builtin.copy:
    dest: /etc/systemd/system/prometheus.service.d/override.conf
    content: >-
      {{ prometheus_systemd_overrides
         | kafka_dr.mm2.systemd_hardened_dropin(['/var/lib/prometheus'], 'prometheus_systemd_overrides', protect_proc=false) }}
    mode: "0644"
"""

RETURN = r"""
_value:
  description: The directives, one per line.
  type: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.systemd_hardening import (
    systemd_hardened_dropin,
    systemd_hardening,
)


class FilterModule:
    def filters(self) -> dict:
        return {
            'systemd_hardening': as_filter(systemd_hardening),
            'systemd_hardened_dropin': as_filter(systemd_hardened_dropin),
        }
