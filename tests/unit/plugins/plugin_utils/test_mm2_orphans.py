# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which existing connectors pruning may delete: only this role's, only when no flow wants them."""

from __future__ import annotations

from typing import Any, Dict

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_orphans import orphans

SOURCE = 'org.apache.kafka.connect.mirror.MirrorSourceConnector'
CHECKPOINT = 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector'
HEARTBEAT = 'org.apache.kafka.connect.mirror.MirrorHeartbeatConnector'


def existing(**classes: str) -> Dict[str, Any]:
    return {name.replace('_', '-'): {'name': name, 'config': {'connector.class': cls}} for name, cls in classes.items()}


def test_only_unwanted_mirror_connectors_named_like_the_role_are_candidates() -> None:
    connectors = existing(
        mm2_src_dst_source=SOURCE, mm2_src_dst_checkpoint=CHECKPOINT,       # wanted
        mm2_old_dst_source=SOURCE, mm2_old_dst_heartbeat=' ' + HEARTBEAT,   # a flow that left
        mm2_msc=SOURCE, mm2_source_connector=SOURCE,                       # hand-made, other naming
        mm2_odd_dst_checkpoint=SOURCE,                                     # class does not match the suffix
        mm2_jdbc_dst_source='io.example.JdbcSourceConnector',              # not MirrorMaker
        dr_old_dst_source=SOURCE,                                          # another prefix
    )
    answer = orphans({'existing': connectors, 'managed_pattern': '^mm2\\-.+-(source|checkpoint|heartbeat)$',
                      'desired_names': ['mm2-src-dst-source', 'mm2-src-dst-checkpoint', 'mm2-src-dst-heartbeat']})
    assert answer == {'orphans': ['mm2-old-dst-heartbeat', 'mm2-old-dst-source']}


def test_nothing_to_prune_on_an_empty_cluster() -> None:
    assert orphans({'existing': {}, 'managed_pattern': '^mm2\\-.+-(source)$', 'desired_names': []}) == {'orphans': []}
