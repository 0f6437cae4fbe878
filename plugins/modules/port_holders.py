#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: port_holders
short_description: Name the processes that listen on a TCP port of a host
version_added: 0.4.0
description:
  - Reports each process that holds a listening TCP socket on O(port), on any address, IPv4 or IPv6, with its process
    id, name, command line and systemd unit.
  - Reads C(/proc) only, so no tool needs to be installed. Run it with root privileges to see the sockets of every user.
  - Role M(kafka_dr.mm2.connect_worker) uses it to refuse a REST port that another Kafka Connect (such as the one EMR
    runs on its task nodes) or any other program already holds, before anything changes.
author:
  - kafka_dr.mm2 maintainers (!UNKNOWN)
options:
  port:
    description: The TCP port.
    type: int
    required: true
  owner_units:
    description:
      - The systemd units (for example C(kafka-connect.service)) whose processes may hold the port; any other holder is
        listed in RV(foreign).
    type: list
    elements: str
    default: []
extends_documentation_fragment:
  - kafka_dr.mm2.attributes.read_only
'''

EXAMPLES = r'''
- name: Look at who holds the REST port
  kafka_dr.mm2.port_holders:
    port: 8083
  become: true
  register: rest_port

- name: Refuse a port held by another program
  kafka_dr.mm2.port_holders:
    port: 8083
    owner_units: [kafka-connect.service]
  become: true
  register: rest_port
  failed_when: rest_port.foreign | length > 0
'''

RETURN = r'''
holders:
  description:
    - One entry per process, with C(pid), C(name) (the kernel's short name), C(uid) and C(user), C(command) (the command
      line, shortened in its middle when long), C(unit) (the systemd service or scope, or null) and C(owned) (it runs in
      one of O(owner_units)).
    - A listening socket whose process cannot be read (without C(CAP_SYS_PTRACE), as in most containers, or from another
      network namespace) is one entry per user with a null C(pid); it is C(owned) when a process of an owner unit runs
      as that user.
  returned: always
  type: list
  elements: dict
  sample: [{pid: 1234, name: java, uid: 997, user: kafka, unit: kafka-connect.service, owned: true,
            command: "java -Xmx512m ... ConnectDistributed ..."}]
foreign:
  description: The holders outside O(owner_units), each described in one line an operator can act on.
  returned: always
  type: list
  elements: str
  sample: ["pid 812 (java, user kafka, unit emr-kafka-connect.service): java -Xmx1g ... ConnectDistributed ..."]
'''

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafka_dr.mm2.plugins.module_utils.port_holders import foreign_holders, port_holders

ARGUMENT_SPEC = {
    'port': {'type': 'int', 'required': True},
    'owner_units': {'type': 'list', 'elements': 'str', 'default': []},
}


def main() -> None:
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    port = module.params['port']
    if not 0 < port < 65536:
        module.fail_json(msg='port must be between 1 and 65535, got %d' % port)
    holders = port_holders(port, module.params['owner_units'])
    module.exit_json(changed=False, holders=holders, foreign=foreign_holders(holders))


if __name__ == '__main__':
    main()
