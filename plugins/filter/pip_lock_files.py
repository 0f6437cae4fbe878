# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The controller files of the packages a hash-locked pip requirements file pins."""

from __future__ import annotations

DOCUMENTATION = r"""
name: pip_lock_files
short_description: The controller files of the packages hash-locked pip requirements pin, or only the verified ones
version_added: 0.4.0
description:
  - Takes controller paths and returns those named after a package at the version the locks pin, a wheel
    C(<name>-<version>-<tags>.whl) or an sdist C(<name>-<version>.tar.gz), which are the files to checksum.
  - With O(stats), only those whose SHA-256 the lock pins for that package, which are the files that may ship to a
    host, where pip installs them with C(--require-hashes --no-index).
  - A lock is pip's requirements format with each requirement an exact C(name==version) followed by one or more
    C(--hash=sha256:<hex>); anything else in it (a range, an option, a URL, a requirement without a hash) is an error.
options:
  _input:
    description: Paths of files on the controller, such as the listing of a cache directory.
    type: list
    elements: str
    required: true
  locks:
    description: The locks, each by its name (its path, for messages) to its text.
    type: dict
    required: true
  stats:
    description: C(paths) of M(kafka_dr.mm2.path_info) with O(kafka_dr.mm2.path_info#module:checksum) for the files.
    type: dict
"""

EXAMPLES = r"""
- name: Checksum the locked packages of the cache
  kafka_dr.mm2.path_info:
    paths: "{{ query('ansible.builtin.fileglob', '/cache/wheels/*') | kafka_dr.mm2.pip_lock_files(locks) }}"
    checksum: true
  register: packages
  vars:
    locks:
      /srv/lock.txt: "{{ lookup('ansible.builtin.file', '/srv/lock.txt') }}"
"""

RETURN = r"""
_value:
  description: The paths, in the locks' order of packages.
  type: list
  elements: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.pinned_artifacts import pip_lock_files as _files

pip_lock_files = as_filter(_files)


class FilterModule:
    def filters(self) -> dict:
        return {'pip_lock_files': pip_lock_files}
