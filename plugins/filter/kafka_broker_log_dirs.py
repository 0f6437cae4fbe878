# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The directories a broker writes its partitions and metadata to."""

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_broker_log_dirs
short_description: The partition and metadata directories of a broker's server.properties
version_added: 0.4.0
description:
  - Returns the directories Kafka keeps partitions in, as it reads C(server.properties) - C(log.dirs)
    (comma-separated), else C(log.dir), else Kafka's default C(/tmp/kafka-logs) - followed by C(metadata.log.dir)
    when it names another directory. Each once, in that order.
  - Role kafka_dr.mm2.kafka_broker creates them and lets the broker's unit write them (C(ReadWritePaths=)).
options:
  _input:
    description: The broker's properties, key to value.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: The broker's partition directories
  ansible.builtin.debug:
    msg: "{{ {'log.dirs': '/data1/kafka,/data2/kafka'} | kafka_dr.mm2.kafka_broker_log_dirs }}"
"""

RETURN = r"""
_value:
  description: The directories.
  type: list
  elements: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_brokers import kafka_broker_log_dirs


class FilterModule:
    def filters(self) -> dict:
        return {'kafka_broker_log_dirs': as_filter(kafka_broker_log_dirs)}
