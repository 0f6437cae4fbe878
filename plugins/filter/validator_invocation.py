# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the replication_check role runs the validation job (mm2_validator)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: validator_invocation
short_description: Command line and environment of the replication check's validation job
version_added: 0.1.0
description:
  - Takes the replication_check role's settings by name, without their C(replication_check_) prefix, and
    returns how to run the job, that is the launcher (the venv's Python in mode V(local), C(spark-submit) in
    mode V(submit)), the job's arguments and its environment.
  - Options whose setting is empty are left out; C(--topics) wins over C(--topics-regex); an empty
    O(_input.max_duplicates) or O(_input.max_duplicate_ratio) means V(unlimited); O(_input.from_offsets) may be
    a mapping (topic to partition to offset) or the job's string form C(topic:partition=offset,...).
options:
  _input:
    description: The job's settings.
    type: dict
    required: true
    suboptions:
      home:
        description: The job's directory on the node.
        type: str
        required: true
      mode:
        description: How Spark runs.
        type: str
        required: true
        choices: [local, submit]
      spark_submit:
        description: The spark-submit command (mode V(submit)).
        type: str
      master:
        description: Spark master.
        type: str
        required: true
      driver_memory:
        description: Memory of the Spark driver.
        type: str
        required: true
      jars:
        description: Paths of the Spark Kafka jars on the node.
        type: list
        elements: str
        required: true
      source_alias:
        description: Alias of the source cluster.
        type: str
        required: true
      target_alias:
        description: Alias of the target cluster.
        type: str
        required: true
      source_bootstrap:
        description: Bootstrap servers of the source.
        type: str
      target_bootstrap:
        description: Bootstrap servers of the target.
        type: str
      replication_policy:
        description: V(default) or V(identity).
        type: str
        required: true
      separator:
        description: The replication policy's separator.
        type: str
        required: true
      catchup_timeout:
        description: Seconds the job waits for the target to catch up.
        type: int
        required: true
      topics:
        description: Topics to compare, by name.
        type: list
        elements: str
      topics_regex:
        description: Topics to compare, by regular expression (when O(_input.topics) is empty).
        type: str
      groups:
        description: Consumer groups whose translated offsets are checked.
        type: list
        elements: str
      checkpoints_topic:
        description: The checkpoints topic on the target.
        type: str
      offset_syncs_topic:
        description: The offset syncs topic.
        type: str
      offset_syncs_bootstrap:
        description: Where the offset syncs topic is, when not on the source.
        type: str
      heartbeats_topic:
        description: The heartbeats topic.
        type: str
      delivery:
        description: V(at-least-once) or V(exactly-once).
        type: str
        required: true
      max_duplicates:
        description: Duplicates allowed per replay; empty for no limit.
        type: raw
      max_duplicate_ratio:
        description: Share of duplicates allowed per replay; empty for no limit.
        type: raw
      from_timestamp:
        description: Start of the compared window, a time.
        type: raw
      from_offsets:
        description: Start of the compared window, offsets by topic and partition.
        type: raw
      raw_key_preview:
        description:
          - Report examples show the hex of each key's first 16 bytes (C(--raw-key-preview)) instead of the first 12 hex
            digits of the key's SHA-256.
        type: bool
        default: false
      spark_conf:
        description: Spark settings, each passed as C(--spark-conf=key=value).
        type: dict
      spark_conf_dir:
        description: SPARK_CONF_DIR of the job, if any.
        type: str
      environment:
        description: More environment variables of the job.
        type: dict
      extra_args:
        description: Arguments added at the end.
        type: list
        elements: str
"""

EXAMPLES = r"""
- name: Run the validation job
  vars:
    job: "{{ __replication_check_job | kafka_dr.mm2.validator_invocation }}"
  ansible.builtin.command:
    argv: "{{ job.launcher + job.args }}"
  environment: "{{ job.environment }}"
  changed_when: false
"""

RETURN = r"""
_value:
  description: How to run the job.
  type: dict
  contains:
    launcher:
      description: The command that starts Spark with the job.
      type: list
      elements: str
    args:
      description: The job's arguments.
      type: list
      elements: str
    environment:
      description: The job's environment variables.
      type: dict
"""

from typing import Any, Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.validator_command import invocation


def validator_invocation(settings: Mapping[str, Any]) -> dict:
    try:
        return invocation(settings)
    except ValueError as error:
        raise AnsibleFilterError('validator_invocation: %s' % error) from error


class FilterModule:
    def filters(self) -> dict:
        return {'validator_invocation': validator_invocation}
