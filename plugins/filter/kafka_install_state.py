# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What role kafka_install decides from what it read on the hosts."""

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_install_account_as_wanted
short_description: Whether role kafka_install's service account is already as wanted
version_added: 0.4.0
description:
  - Reads the result of C(getent passwd <user> && id -gn <user>) (registered with C(failed_when=false)) and returns
    whether the account exists with O(home) and O(shell) and O(group) as its primary group; the role then calls
    neither the group nor the user module.
  - A lookup that failed, or a result without C(rc) (not run), shows no account.
  - This file also holds filter C(kafka_install_unpack_due), whether some host of the play lacks the unpacked release.
    Its input is the play's hosts, its argument C(hostvars), and it reads each host's C(__kafka_install_paths) (module
    C(kafka_dr.mm2.path_info)) for a missing C(.../libs) directory.
options:
  _input:
    description: The registered result of the lookup, or C({}).
    type: dict
    required: true
  home:
    description: The home the account must have.
    type: str
    required: true
  shell:
    description: The login shell the account must have.
    type: str
    required: true
  group:
    description: The primary group the account must have.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Create the service user unless it is as wanted
  ansible.builtin.user:
    name: kafka
    group: kafka
    system: true
    shell: /usr/sbin/nologin
    home: /opt/kafka
    create_home: false
  when: not account_lookup | kafka_dr.mm2.kafka_install_account_as_wanted('/opt/kafka', '/usr/sbin/nologin', 'kafka')

- name: Unpack the release on the controller when some host needs it
  ansible.builtin.debug:
    msg: "{{ ansible_play_hosts | kafka_dr.mm2.kafka_install_unpack_due(hostvars) }}"
"""

RETURN = r"""
_value:
  description: Whether the account is as wanted (C(kafka_install_unpack_due), whether some host needs the release unpacked).
  type: bool
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_installs import account_as_wanted, unpack_due

kafka_install_account_as_wanted = as_filter(account_as_wanted)
kafka_install_unpack_due = as_filter(unpack_due)


class FilterModule:
    def filters(self) -> dict:
        return {'kafka_install_account_as_wanted': kafka_install_account_as_wanted, 'kafka_install_unpack_due': kafka_install_unpack_due}
