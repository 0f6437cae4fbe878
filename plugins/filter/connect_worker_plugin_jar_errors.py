# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Why role connect_worker would not install the jars of connect_worker_plugin_jars."""

from __future__ import annotations

DOCUMENTATION = r"""
name: connect_worker_plugin_jar_errors
short_description: The checks of role connect_worker's plugin jars before anything changes
version_added: 0.4.0
description:
  - Returns one message per problem, each naming the entry of C(connect_worker_plugin_jars); empty when the jars may be
    installed.
  - Each entry needs the absolute path of a C(.jar) on the controller as C(src), its SHA-256 as C(sha256) (64
    hexadecimal digits) and a directory name of letters, digits, C(.), C(_) and C(-); two jars may not land on the
    same path.
  - Each jar must exist on the controller as a regular file with that SHA-256 (as O(_input.stats) found them); a
    mismatch names the file, the expected and the actual digest.
  - With O(_input.plugin_discovery) V(service_load) on Kafka 3.6 or later (or an unknown version), each plugin directory needs a jar
    with a ServiceLoader manifest of a Connect plugin type (C(META-INF/services/...)), read from the jar on the
    controller; class path jars need none.
options:
  _input:
    description: The jars, what the controller said of them, and the role's settings without C(connect_worker_).
    type: dict
    required: true
    suboptions:
      jars: {description: C(connect_worker_plugin_jars)., type: list, elements: dict, required: true}
      stats:
        description: The registered result of C(ansible.builtin.stat) looped over the jars on the controller
          (C(get_checksum) true, C(checksum_algorithm) V(sha256)), or its C(results).
        type: raw
        required: true
      plugin_dir: {description: C(connect_worker_plugin_dir)., type: str, required: true}
      classpath_dir: {description: C(connect_worker_classpath_dir)., type: str, required: true}
      plugin_discovery: {description: C(connect_worker_plugin_discovery)., type: str, required: true}
      kafka_version: {description: "The Kafka release of the workers; C(plugin.discovery) exists from 3.6. Empty counts as new.", type: str, required: true}
"""

EXAMPLES = r"""
- name: Look at the jars on the controller
  ansible.builtin.stat:
    path: "{{ item.src }}"
    get_checksum: true
    checksum_algorithm: sha256
  loop: "{{ connect_worker_plugin_jars }}"
  delegate_to: localhost
  become: false
  register: jar_stats

- name: Refuse jars that are missing or not the expected ones
  ansible.builtin.assert:
    that: jar_errors | length == 0
    fail_msg: "{{ jar_errors }}"
  vars:
    jar_errors: "{{ jar_check | kafka_dr.mm2.connect_worker_plugin_jar_errors }}"
    jar_check:
      jars: "{{ connect_worker_plugin_jars }}"
      stats: "{{ jar_stats }}"
      plugin_dir: /opt/kafka/plugins
      classpath_dir: /opt/kafka/connect-classpath
      plugin_discovery: service_load
      kafka_version: "4.1.0"
"""

RETURN = r"""
_value:
  description: The problems, each ending with C(Nothing was changed.).
  type: list
  elements: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.connect_worker_jars import connect_worker_plugin_jar_errors as _errors
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter

connect_worker_plugin_jar_errors = as_filter(_errors)


class FilterModule:
    def filters(self) -> dict:
        return {'connect_worker_plugin_jar_errors': connect_worker_plugin_jar_errors}
