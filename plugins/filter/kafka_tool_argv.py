# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The command line of a Kafka tool run against one cluster of a plan."""

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_tool_argv
short_description: Command line of a Kafka tool run against one cluster, with its client settings file
version_added: 0.2.0
description:
  - Returns the command, then C(--bootstrap-server) with the cluster's C(bootstrap_servers), then C(--command-config)
    with C(<config_dir>/<alias>.properties), then the arguments.
options:
  _input:
    description: The tool's command, for example C([<kafka>/kafka-run, org.apache.kafka.tools.TopicCommand]).
    type: list
    elements: str
    required: true
  clusters:
    description: The clusters by alias, each with its C(bootstrap_servers).
    type: dict
    required: true
  alias:
    description: The cluster to run against.
    type: str
    required: true
  config_dir:
    description: Directory of the client settings files, one C(<alias>.properties) per cluster.
    type: str
    required: true
  arguments:
    description: What the tool is asked.
    type: list
    elements: str
    default: []
"""

EXAMPLES = r"""
- name: List the topics of each source cluster
  ansible.builtin.command:
    argv: "{{ topic_command | kafka_dr.mm2.kafka_tool_argv(plan.clusters, item, '/etc/kafka-dr/clients', ['--list']) }}"
  loop: "{{ plan.source_aliases }}"
  changed_when: false
"""

RETURN = r"""
_value:
  description: The command line.
  type: list
  elements: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_tools import kafka_tool_argv as _kafka_tool_argv

kafka_tool_argv = as_filter(_kafka_tool_argv)


class FilterModule:
    def filters(self) -> dict:
        return {'kafka_tool_argv': kafka_tool_argv}
