# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What role kafka_broker derives from its cluster's members: the controller quorum, the replication factors."""

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_broker_voters
short_description: The controller.quorum.voters of role kafka_broker's cluster
version_added: 0.4.0
description:
  - Returns each member of the broker group as C(<node id>@<advertised host>:<controller port>), comma-separated, in
    the group's order; None for an empty group.
  - A member's own C(kafka_broker_node_id), C(kafka_broker_advertised_host) and C(kafka_broker_controller_port) in
    O(hostvars) win; without them its node id is its place in the group (from 1), its host its inventory name and its
    port O(controller_port). Role defaults are not in C(hostvars), so only inventory settings count.
  - This file also holds filter C(kafka_broker_replication), which returns the C(replication_factor) (the number of
    members, 3 at most) and the C(min_insync_replicas) (2 at most) of the same members, so that a one-node cluster
    works and three nodes are safe.
options:
  _input:
    description: The members of the broker group, for example C(groups[kafka_broker_group]).
    type: list
    elements: str
    required: true
  hostvars:
    description: The play's C(hostvars).
    type: dict
    required: true
  controller_port:
    description: The controller port of a member that does not set its own.
    type: int
    required: true
"""

EXAMPLES = r"""
- name: Show the controller quorum
  ansible.builtin.debug:
    msg: "{{ groups['kafka_brokers'] | kafka_dr.mm2.kafka_broker_voters(hostvars, 9093) }}"

- name: Show the replication factor
  ansible.builtin.debug:
    msg: "{{ (groups['kafka_brokers'] | kafka_dr.mm2.kafka_broker_replication).replication_factor }}"
"""

RETURN = r"""
_value:
  description: The voters, for example C(1@kafka-1:9093,2@kafka-2:9093).
  type: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_brokers import (
    kafka_broker_replication as _kafka_broker_replication,
    kafka_broker_voters as _kafka_broker_voters,
)

kafka_broker_voters = as_filter(_kafka_broker_voters)
kafka_broker_replication = as_filter(_kafka_broker_replication)


class FilterModule:
    def filters(self) -> dict:
        return {'kafka_broker_voters': kafka_broker_voters, 'kafka_broker_replication': kafka_broker_replication}
