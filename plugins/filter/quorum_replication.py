# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read the table of MetadataQuorumCommand describe --replication."""

from __future__ import annotations

DOCUMENTATION = r"""
name: quorum_replication
short_description: Rows of the KRaft metadata quorum's replication table
version_added: 0.1.0
description:
  - "Reads what C(MetadataQuorumCommand describe --replication) (C(kafka-metadata-quorum.sh)) prints:
    one row per voter and observer of the KRaft metadata log."
  - "Returns one dictionary per row, keyed by the column names of the header (C(NodeId), C(LogEndOffset),
    C(Lag), C(LastFetchTimestamp), C(LastCaughtUpTimestamp), C(Status); Kafka 4 adds C(DirectoryId)),
    so the same test works across Kafka versions. Numbers become integers."
  - Lines before the header (tool warnings) are skipped; output without the table gives an empty list.
options:
  _input:
    description: The tool's standard output, as text or as a list of lines.
    type: raw
    required: true
"""

EXAMPLES = r"""
- name: Wait until node 2 has caught up with the metadata log
  ansible.builtin.command:
    argv: [/opt/kafka/kafka-run, org.apache.kafka.tools.MetadataQuorumCommand, --bootstrap-server, "broker-2:9092",
           describe, --replication]
  register: quorum
  changed_when: false
  until: >-
    quorum.stdout | kafka_dr.mm2.quorum_replication
    | selectattr('NodeId', 'equalto', 2) | selectattr('Lag', 'equalto', 0) | list | length > 0
  retries: 20
  delay: 3
"""

RETURN = r"""
_value:
  description: "One dictionary per row, for example C({NodeId: 1, Lag: 0, Status: Leader, ...})."
  type: list
  elements: dict
"""

from typing import Dict, List, Sequence, Union

from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_tools import quorum_replication as _rows


def quorum_replication(output: Union[str, Sequence[str], None]) -> List[Dict[str, Union[int, str]]]:
    if output is not None and not isinstance(output, (str, list, tuple)):
        raise AnsibleFilterError('quorum_replication expects text or a list of lines, got %s' % type(output).__name__)
    return _rows(output)


class FilterModule:
    def filters(self) -> dict:
        return {'quorum_replication': quorum_replication}
