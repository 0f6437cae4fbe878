#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: path_info
short_description: Look at several paths of a host in one call
version_added: 0.1.0
description:
  - Reports whether each path exists and, if so, its type, owner, group, mode, size and, on request, the SHA-256 of a
    regular file. Links are followed; a link also reports where it points.
  - One call per host where a loop of M(ansible.builtin.stat) costs one module run per path, which is what a run that
    changes nothing spends most of its time on.
  - Reads only; a path that does not exist is reported, not an error.
author:
  - kafka_dr.mm2 maintainers (!UNKNOWN)
options:
  paths:
    description: Absolute paths; a path given twice is reported once.
    type: list
    elements: str
    required: true
  checksum:
    description: Add the SHA-256 of each regular file.
    type: bool
    default: false
extends_documentation_fragment:
  - kafka_dr.mm2.attributes.read_only
'''

EXAMPLES = r'''
- name: Look at the key and trust stores
  kafka_dr.mm2.path_info:
    paths: [/etc/kafka/tls/keystore.p12, /etc/kafka/tls/truststore.p12]
    checksum: true
  register: stores

- name: Fail on a missing store
  ansible.builtin.assert:
    that: stores.missing | length == 0
'''

RETURN = r'''
paths:
  description:
    - Each path given, with C(exists); for a path that exists also C(isdir), C(isreg), C(mode) (octal text such as
      C(0640)), C(owner), C(group), C(size), C(link_target) for a symbolic link (as the link holds it) and, with
      O(checksum), C(checksum) for a regular file.
  returned: always
  type: dict
missing:
  description: The paths that do not exist, in the order given.
  returned: always
  type: list
  elements: str
'''

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafka_dr.mm2.plugins.module_utils.path_info import PathInfoError, describe_all

ARGUMENT_SPEC = {
    'paths': {'type': 'list', 'elements': 'str', 'required': True},
    'checksum': {'type': 'bool', 'default': False},
}


def main() -> None:
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    paths = list(dict.fromkeys(module.params['paths']))
    try:
        result = describe_all(paths, module.params['checksum'])
    except PathInfoError as error:
        module.fail_json(msg=f"path_info: {error}")
    module.exit_json(changed=False, **result)


if __name__ == '__main__':
    main()
