# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a role read about its systemd units, and whether they need a call."""

from __future__ import annotations

DOCUMENTATION = r"""
name: host_state
short_description: The key=value lines a role's host probe printed, as a mapping
version_added: 0.4.0
description:
  - A role looks at its services (and a few more facts) in one command that prints C(key=value) lines; this returns
    them as a mapping. A value keeps any further C(=); a later line wins a repeated key.
  - A line without C(=) is refused.
  - This file also holds filter C(unit_running) (whether a unit is active and enabled in such a mapping, its keys
    C(active.<unit>) and C(enabled.<unit>), or C(active) and C(enabled) without a unit) and filter C(units_changed)
    (whether a run of module C(kafka_dr.mm2.file_set) changed any of the given paths, its result's C(changed_paths)).
options:
  _input:
    description: The lines, for example C(probe.stdout_lines).
    type: list
    elements: str
    required: true
"""

EXAMPLES = r"""
- name: Start the worker unless it runs and starts at boot, or its unit files changed
  ansible.builtin.systemd_service:
    name: kafka-connect
    state: started
    enabled: true
    daemon_reload: "{{ units_changed }}"
  vars:
    state: "{{ probe.stdout_lines | kafka_dr.mm2.host_state }}"
    units_changed: "{{ ['/etc/systemd/system/kafka-connect.service'] | kafka_dr.mm2.units_changed(files_result | default({})) }}"
  when: not state | kafka_dr.mm2.unit_running('kafka-connect') or units_changed
"""

RETURN = r"""
_value:
  description: The values by key.
  type: dict
"""

from typing import Any, Dict, Iterable, Mapping, Sequence

from ansible.errors import AnsibleFilterError


def host_state(lines: Iterable[str]) -> Dict[str, str]:
    """The probe's key=value lines as a mapping: the role's later steps read one fact each."""
    if isinstance(lines, (str, bytes, Mapping)):
        raise AnsibleFilterError('host_state expects the probe\'s lines, got %s' % type(lines).__name__)
    state: Dict[str, str] = {}
    for line in lines:
        key, equals, value = str(line).partition('=')
        if not equals:
            raise AnsibleFilterError('host_state: the line %r is not key=value' % line)
        state[key] = value
    return state


def unit_running(state: Mapping[str, Any], unit: str = '') -> bool:
    """Whether a unit runs and starts at boot: it then needs no systemd call unless its unit files changed."""
    suffix = '.' + unit if unit else ''
    if not isinstance(state, Mapping):
        raise AnsibleFilterError('unit_running expects the host state mapping, got %s' % type(state).__name__)
    missing = [key for key in ('active' + suffix, 'enabled' + suffix) if key not in state]
    if missing:
        raise AnsibleFilterError('unit_running: the host state has no %s' % ', '.join(missing))
    return state['active' + suffix] == 'active' and state['enabled' + suffix] == 'enabled'


def units_changed(paths: Sequence[str], file_set_result: Mapping[str, Any]) -> bool:
    """Whether module file_set changed any of the unit files: systemd must then reload its units."""
    if not isinstance(file_set_result, Mapping):
        raise AnsibleFilterError('units_changed expects a file_set result, got %s' % type(file_set_result).__name__)
    changed = file_set_result.get('changed_paths', [])
    return any(path in changed for path in paths)


class FilterModule:
    def filters(self) -> dict:
        return {'host_state': host_state, 'unit_running': unit_running, 'units_changed': units_changed}
