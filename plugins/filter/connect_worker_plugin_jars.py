# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where role connect_worker installs the jars of connect_worker_plugin_jars on a worker."""

from __future__ import annotations

DOCUMENTATION = r"""
name: connect_worker_plugin_jars
short_description: Where the plugin jars of role connect_worker go on a worker
version_added: 0.4.0
description:
  - Returns the directories, files and class path entries of the jars of C(connect_worker_plugin_jars).
  - A Connect plugin goes into C(<plugin_dir>/<name>/), under C(plugin.path); a jar with C(classpath) true into
    C(<classpath_dir>/<name>/), whose C(<dir>/*) the worker's unit adds to its class path. C(name) defaults to the
    jar's file name without C(.jar); entries with the same C(name) share the directory.
  - Directories are root-owned, mode C(0750), files C(0640), both of group O(group).
  - RV(_value.jar_directories) hold only the jars of the list; the role removes any other C(*.jar) there (an older
    version of a jar whose C(name) stayed).
  - Refuses the entries filter C(kafka_dr.mm2.connect_worker_plugin_jar_errors) reports.
options:
  _input:
    description: C(connect_worker_plugin_jars), entries with C(src), C(sha256), and optionally C(name) and C(classpath).
    type: list
    elements: dict
    required: true
  plugin_dir:
    description: C(connect_worker_plugin_dir), the worker's C(plugin.path).
    type: str
    required: true
  classpath_dir:
    description: C(connect_worker_classpath_dir), the root of the class path jars.
    type: str
    required: true
  group:
    description: The group that reads the directories and jars (the service's group).
    type: str
    default: kafka
"""

EXAMPLES = r"""
- name: Show where a replication policy jar goes
  ansible.builtin.debug:
    msg: >-
      {{ [{'src': '/srv/jars/prefix-policy-1.0.jar', 'sha256': 'ab' * 32, 'classpath': true}]
         | kafka_dr.mm2.connect_worker_plugin_jars('/opt/kafka/plugins', '/opt/kafka/connect-classpath') }}
"""

RETURN = r"""
_value:
  description: The layout.
  type: dict
  contains:
    directories: {description: "Directories to create, each with C(path), C(owner), C(group) and C(mode).", type: list, elements: dict}
    files: {description: "Jars to copy, each with C(src), C(dest), C(owner), C(group) and C(mode).", type: list, elements: dict}
    classpath: {description: "Class path entries (C(<dir>/*)) after the distribution's C(libs/*).", type: list, elements: str}
    jar_directories: {description: The directories that hold the jars, one per C(name)., type: list, elements: str}
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.connect_worker_jars import connect_worker_plugin_jars as _layout
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter

connect_worker_plugin_jars = as_filter(_layout)


class FilterModule:
    def filters(self) -> dict:
        return {'connect_worker_plugin_jars': connect_worker_plugin_jars}
