# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Why the packages of hash-locked pip requirements may not be installed from the controller's files."""

from __future__ import annotations

DOCUMENTATION = r"""
name: pip_lock_errors
short_description: The locked packages that have no file with a pinned SHA-256 on the controller
version_added: 0.4.0
description:
  - Returns one message per package of the locks that has no file on the controller whose SHA-256 the lock pins for
    it, naming the package, its lock, each file found with its SHA-256 and the pinned digests; empty when every
    package may be installed.
  - With O(versions), also one message per package the locks do not pin at the expected version.
  - The locks are read as filter M(kafka_dr.mm2.pip_lock_files) reads them.
options:
  _input:
    description: The locks, each by its name (its path, for messages) to its text.
    type: dict
    required: true
  stats:
    description: C(paths) of M(kafka_dr.mm2.path_info) with O(kafka_dr.mm2.path_info#module:checksum) for the files
      M(kafka_dr.mm2.pip_lock_files) chose.
    type: dict
    required: true
  directory:
    description: The controller directory the files come from, for messages.
    type: str
    required: true
  versions:
    description: Package name to the version the locks must pin.
    type: dict
"""

EXAMPLES = r"""
- name: Refuse packages without a pinned file
  ansible.builtin.assert:
    that: errors | length == 0
    fail_msg: "{{ errors }}"
  vars:
    errors: "{{ locks | kafka_dr.mm2.pip_lock_errors(packages.paths, '/cache/wheels', versions={'pyspark': '4.1.3'}) }}"
"""

RETURN = r"""
_value:
  description: The problems, each ending with C(Nothing was changed.).
  type: list
  elements: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.pinned_artifacts import pip_lock_errors as _errors

pip_lock_errors = as_filter(_errors)


class FilterModule:
    def filters(self) -> dict:
        return {'pip_lock_errors': pip_lock_errors}
