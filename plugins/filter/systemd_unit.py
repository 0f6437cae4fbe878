# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Inventory values written into systemd units, escaped as systemd reads them back."""

from __future__ import annotations

DOCUMENTATION = r"""
name: systemd_value
short_description: A value of the inventory as a systemd unit file reads it back
version_added: 0.4.0
description:
  - Returns the value for a plain directive of a unit (C(Description=), C(User=), C(WorkingDirectory=) ...), with
    C(%) written C(%%) so that systemd expands no specifier of the inventory's.
  - A line break or any other control character is refused, naming O(name), since it would end the directive and
    start another. So is a value that ends with a backslash, which joins the next line.
  - This file also holds filter C(systemd_env) (C(value | systemd_env('NAME', 'variable')) gives the argument of
    C(Environment=) that sets C(NAME), double-quoted with backslashes and double quotes escaped when the value holds blanks,
    quotes or backslashes), filter C(systemd_exec) (a list of words as an C(ExecStart=) line - C(%) as C(%%), C($) as C($$),
    each word double-quoted only when it holds blanks, quotes or backslashes, so the program gets every word as given;
    an item that is a list is a group of words, an empty group an empty string), and filter C(systemd_dropin) (a
    drop-in's sections, section to directive to value, a list repeating its directive; the values are systemd syntax as
    written, only control characters and a trailing backslash are refused).
options:
  _input:
    description: The value, a string or a number.
    type: raw
    required: true
  name:
    description: The variable the value comes from, for the error message.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Write the unit
  ansible.builtin.copy:
    dest: /etc/systemd/system/kafka-connect.service
    content: |
      [Unit]
      Description=Kafka Connect worker (group {{ connect_worker_group_id | kafka_dr.mm2.systemd_value('connect_worker_group_id') }})
      [Service]
      Environment={{ '/opt/app' | kafka_dr.mm2.systemd_env('PYTHONPATH', 'app_home') }}
      ExecStart={{ ['/usr/bin/java', ['-Xmx1g', '-Dname=a b'], '-cp', '/opt/kafka/libs/*'] | kafka_dr.mm2.systemd_exec('java_options') }}
"""

RETURN = r"""
_value:
  description: The value as the unit file holds it.
  type: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.systemd_units import (
    systemd_dropin,
    systemd_env,
    systemd_exec,
    systemd_value,
)


class FilterModule:
    def filters(self) -> dict:
        return {
            'systemd_value': as_filter(systemd_value),
            'systemd_env': as_filter(systemd_env),
            'systemd_exec': as_filter(systemd_exec),
            'systemd_dropin': as_filter(systemd_dropin),
        }
