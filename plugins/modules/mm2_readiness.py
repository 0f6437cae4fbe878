#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: mm2_readiness
short_description: Whether a MirrorMaker 2 flow can fail over now, and what it would cost, in numbers
version_added: 0.4.0
description:
  - Reads both clusters of a flow C(source -> target) and changes nothing. C(docs/readiness.md) defines every figure,
    how it is measured and its error bound.
  - B(Recovery point now), per source partition of the flow's topics. It counts the source records that are not on the
    target, from MM2's newest offset sync and the remote partition's end offset. The target's last record is then found on
    the source by its key, value, headers and timestamp, which makes the count exact. It also gives the age of the oldest
    record not copied, from its timestamp.
  - B(Failover cost now), per consumer group and partition. A planned failover resumes at the first target copy of the
    committed record (the exact translation of M(kafka_dr.mm2.mm2_failover)) and re-reads nothing. An unplanned one resumes
    at MM2's newest checkpoint and re-reads the records between it and that copy. The report also gives the checkpoint's age
    and the groups MM2 has not translated, each with its reason (filtered out by the flow, no commit on the source, a commit
    too far behind for any offset sync, active members on the target).
  - B(The applications on the target). Each remote topic's partitions, C(cleanup.policy), C(max.message.bytes),
    C(min.insync.replicas), retention and replication factor are compared with the source topic's and with the target's
    defaults. With O(consumers) and O(producers), the ACL bindings each principal would need on the target are listed, as
    the source grants them, and each missing binding is named.
  - B(Silent-loss sentinels). Records the source deleted before MM2 copied them, counted, whether the partition still holds
    records or is empty now, and whether MM2 copied some of it or none (then every record below the log start counts, less
    what O(accepted_log_starts) accepted). An empty partition says whether it is empty because everything was copied or
    because it lost records. A source topic deleted and
    re-created, seen from its topic id (against O(known_topic_ids)) or from a source that ends before the newest synced
    offset. A remote topic that ends before the newest synced downstream offset.
  - B(Internal topics). With O(internal_topics), the config, offsets and status topics of the Connect cluster (read
    with O(connect_client)) and MM2's checkpoints, offset-syncs and heartbeats topics. A compacted internal topic whose
    C(cleanup.policy) is not C(compact), or whose C(min.insync.replicas) is above its replication factor, is a problem; a
    replication factor below the configured one, and C(min.insync.replicas) of 1 or equal to a replication factor above
    1, are warnings. Each finding names the command that fixes it; nothing is altered.
  - B(Recovery time). The duration measured by the newest failover report (O(last_failover_report)), when there is one;
    nothing is estimated.
  - The verdict RV(ready) (C(READY) or C(NOT READY)) with every problem. The module never fails on a C(NOT READY) verdict;
    C(playbooks/readiness.yml) does.
  - Runs on a host with Java and a Kafka installation, like M(kafka_dr.mm2.mm2_failover), with py4j importable by its Python.
author:
  - kafka_dr.mm2 maintainers (!UNKNOWN)
options:
  flow:
    description: The flow's name in the report; C(<source_alias>-><target_alias>) when omitted.
    type: str
  source_alias:
    description: Alias of the flow's source cluster.
    type: str
    required: true
  target_alias:
    description: Alias of the flow's target cluster.
    type: str
    required: true
  source_client:
    description:
      - Kafka client settings for the source (C(bootstrap.servers), C(security.protocol), C(sasl.*), C(ssl.*)); values may hold
        C(${file:PATH:KEY}) placeholders, resolved from properties files on the host.
    type: dict
    required: true
  target_client:
    description: Kafka client settings for the target, as O(source_client).
    type: dict
    required: true
  topics_regex:
    description: The flow's source topics, matched against whole names; empty takes every topic.
    type: str
    default: ''
  groups:
    description: Consumer groups to report. With O(groups_regex) empty too, every group the flow concerns.
    type: list
    elements: str
    default: []
  groups_regex:
    description:
      - Groups whose whole name matches are reported as well. Groups named here or in O(groups) that the flow filters out
        make the verdict C(NOT READY); otherwise such groups are warnings.
    type: str
    default: ''
  flow_groups:
    description: The regular expressions of the groups the flow's checkpoint connector translates (its C(groups)).
    type: list
    elements: str
    default: ['.*']
  flow_groups_exclude:
    description: Its C(groups.exclude).
    type: list
    elements: str
    default: ['console-consumer-.*', 'connect-.*', '__.*']
  checkpoints_topic:
    description: MM2's checkpoints topic on the target; C(<source_alias>.checkpoints.internal) (the separator in place of the dots) when omitted.
    type: str
  offset_syncs_location:
    description: The cluster holding MM2's offset-syncs topic.
    type: str
    choices: [source, target]
    default: source
  offset_syncs_topic:
    description: MM2's offset-syncs topic; named after the cluster it does not live on when omitted.
    type: str
  replication_policy:
    description: How the flow names remote topics.
    type: str
    default: default
    choices: [default, identity]
  separator:
    description: The flow's C(replication.policy.separator).
    type: str
    default: .
  offset_lag_max:
    description: The flow's C(offset.lag.max), named in the reason of a commit too far behind.
    type: int
    default: 100
  rpo_seconds:
    description: The recovery point objective; a partition whose oldest record not copied is older makes it C(NOT READY). V(0) switches it off.
    type: float
    default: 60
  rto_seconds:
    description: The recovery time objective, compared with the newest failover's measured duration. V(0) switches it off.
    type: float
    default: 0
  consumers:
    description: Principals of the applications that consume the flow's topics and move to the target.
    type: list
    elements: dict
    default: []
    suboptions:
      principal:
        description: The principal, for example V(User:app).
        type: str
        required: true
      groups:
        description: Groups it uses beyond those the source's ACLs let it read.
        type: list
        elements: str
        default: []
  producers:
    description: Principals of the applications that produce to the flow's topics.
    type: list
    elements: dict
    default: []
    suboptions:
      principal:
        description: The principal.
        type: str
        required: true
      transactional_ids:
        description: Transactional ids it uses beyond those the source's ACLs let it write.
        type: list
        elements: str
        default: []
  known_topic_ids:
    description: Source topic -> topic id as the previous run saw them (RV(topic_ids) of that run); a different id now is a re-created topic.
    type: dict
    default: {}
  accept_recreated:
    description:
      - Accept the current ids of source topics found re-created (once the remote topics were dealt with), so that
        RV(state_topic_ids) holds them and the next run no longer reports them.
    type: bool
    default: false
  accepted_log_starts:
    description:
      - Source topic -> partition -> log start up to which the operator accepted a loss (RV(state_accepted_log_starts) of
        the previous run); records below it are not counted as lost again.
    type: dict
    default: {}
  accept_truncated:
    description:
      - Accept the losses found now (records deleted before the flow first ran, or a loss the data's owners were told
        about), so that RV(state_accepted_log_starts) holds the partitions' log starts and the next run counts only
        records lost after them.
    type: bool
    default: false
  last_failover_report:
    description: The newest failover report of the flow (the JSON that C(playbooks/failover.yml) keeps), for the recovery time.
    type: dict
  last_failover_report_path:
    description: Where O(last_failover_report) was read, named in the report.
    type: str
    default: ''
  max_scan_records:
    description: Records read at most per partition to find a copy of a record.
    type: int
    default: 100000
  internal_topics:
    description:
      - The internal topics to check (the RV(kafka_dr.mm2.mm2_plan#module:internal_topics) of M(kafka_dr.mm2.mm2_plan)'s
        O(kafka_dr.mm2.mm2_plan#module:operation=readiness)); none are checked when empty.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: The topic.
        type: str
        required: true
      side:
        description: The cluster holding it, read with O(source_client), O(target_client) or O(connect_client).
        type: str
        required: true
        choices: [source, target, connect]
      kind:
        description: What it holds.
        type: str
        required: true
        choices: [config, offset, status, checkpoints, offset-syncs, heartbeats]
      compacted:
        description: It must have C(cleanup.policy=compact).
        type: bool
        default: true
      replication_factor:
        description: Its configured replication factor; V(-1) for the broker's C(default.replication.factor).
        type: int
        default: -1
      setting:
        description: The setting that configures it, named in a finding.
        type: str
        default: ''
  connect_client:
    description:
      - Kafka client settings of the Connect cluster's workers (C(bootstrap.servers) and security settings), which read the
        internal topics of O(internal_topics) with O(internal_topics[].side=connect). Placeholders as in O(source_client).
    type: dict
    default: {}
  kafka_home:
    description: Kafka installation whose C(libs/) jars provide the clients.
    type: path
    default: /opt/kafka
  java:
    description: The Java executable.
    type: path
    default: java
  kafka_timeout:
    description: Seconds each Kafka request may take.
    type: int
    default: 30
notes:
  - Supports check mode; it reads only, in both modes.
  - ACLs are judged by the rules of Kafka's authorizers (DENY first, ALL, the operations that imply DESCRIBE, C(User:*),
    literal, wildcard and prefixed patterns). Super users and C(allow.everyone.if.no.acl.found) are broker settings it
    cannot see.
seealso:
  - module: kafka_dr.mm2.mm2_failover
  - module: kafka_dr.mm2.mm2_status
'''

EXAMPLES = r'''
- name: Can the orders flow fail over now?
  kafka_dr.mm2.mm2_readiness:
    source_alias: src
    target_alias: dst
    source_client:
      bootstrap.servers: src-kafka-1:9094
    target_client:
      bootstrap.servers: dst-kafka-1:9094
    topics_regex: 'orders\..*'
    rpo_seconds: 30
    consumers:
      - principal: User:orders-app
  vars:
    ansible_python_interpreter: /opt/kafka-dr/failover/venv/bin/python
  register: readiness
'''

RETURN = r'''
ready:
  description: True when no problem was found (warnings do not count).
  returned: always
  type: bool
verdict:
  description: C(READY) or C(NOT READY).
  returned: always
  type: str
problems:
  description: Every finding that makes it C(NOT READY).
  returned: always
  type: list
  elements: str
readiness_warnings:
  description: Findings that do not (not named C(warnings), which Ansible reserves for its own).
  returned: always
  type: list
  elements: str
topic_ids:
  description: Source topic -> topic id (null where the cluster has none).
  returned: always
  type: dict
state_topic_ids:
  description:
    - The ids to remember for the next run's O(known_topic_ids), RV(topic_ids) except that a topic found re-created keeps
      its previous id unless O(accept_recreated), so the finding stays until the operator accepts it.
  returned: always
  type: dict
state_accepted_log_starts:
  description:
    - The accepted log starts to remember for the next run's O(accepted_log_starts), topic to partition to offset
      (those given, and with O(accept_truncated) the log start of each partition that lost records now).
  returned: always
  type: dict
report:
  description:
    - The figures, as C(docs/readiness.md) describes them. C(recovery_point) has one entry per source partition,
      C(groups) one per consumer group with its C(partitions), and then C(configs), C(acls), C(sentinels),
      C(internal_topics), C(recovery_time) and C(summary).
  returned: always
  type: dict
text:
  description: The report on one screen.
  returned: always
  type: str
'''

import time
import traceback
from typing import Any, Dict, List

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import (
    PY4J_IMPORT_ERROR,
    JvmKafkaSide,
    KafkaJvm,
    KafkaSideError,
    module_client_settings,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_readiness import (
    MM2_DEFAULT_GROUPS_EXCLUDE,
    Readiness,
    RecoveryPoint,
    accepted_starts_document,
    accepted_starts_of,
    build_request,
    input_errors,
    known_ids,
    render_text,
    state_accepted_starts,
    state_topic_ids,
)


def argument_spec() -> Dict[str, Dict[str, Any]]:
    return dict(
        flow={'type': 'str'},
        source_alias={'type': 'str', 'required': True},
        target_alias={'type': 'str', 'required': True},
        source_client={'type': 'dict', 'required': True, 'no_log': True},
        target_client={'type': 'dict', 'required': True, 'no_log': True},
        topics_regex={'type': 'str', 'default': ''},
        groups={'type': 'list', 'elements': 'str', 'default': []},
        groups_regex={'type': 'str', 'default': ''},
        flow_groups={'type': 'list', 'elements': 'str', 'default': ['.*']},
        flow_groups_exclude={'type': 'list', 'elements': 'str', 'default': list(MM2_DEFAULT_GROUPS_EXCLUDE)},
        checkpoints_topic={'type': 'str'},
        offset_syncs_location={'type': 'str', 'default': 'source', 'choices': ['source', 'target']},
        offset_syncs_topic={'type': 'str'},
        replication_policy={'type': 'str', 'default': 'default', 'choices': ['default', 'identity']},
        separator={'type': 'str', 'default': '.'},
        offset_lag_max={'type': 'int', 'default': 100},
        rpo_seconds={'type': 'float', 'default': 60},
        rto_seconds={'type': 'float', 'default': 0},
        consumers={'type': 'list', 'elements': 'dict', 'default': [], 'options': {
            'principal': {'type': 'str', 'required': True},
            'groups': {'type': 'list', 'elements': 'str', 'default': []}}},
        producers={'type': 'list', 'elements': 'dict', 'default': [], 'options': {
            'principal': {'type': 'str', 'required': True},
            'transactional_ids': {'type': 'list', 'elements': 'str', 'default': []}}},
        known_topic_ids={'type': 'dict', 'default': {}},
        accept_recreated={'type': 'bool', 'default': False},
        accepted_log_starts={'type': 'dict', 'default': {}},
        accept_truncated={'type': 'bool', 'default': False},
        last_failover_report={'type': 'dict'},
        last_failover_report_path={'type': 'str', 'default': ''},
        max_scan_records={'type': 'int', 'default': 100000},
        internal_topics={'type': 'list', 'elements': 'dict', 'default': [], 'options': {
            'name': {'type': 'str', 'required': True},
            'side': {'type': 'str', 'required': True, 'choices': ['source', 'target', 'connect']},
            'kind': {'type': 'str', 'required': True,
                     'choices': ['config', 'offset', 'status', 'checkpoints', 'offset-syncs', 'heartbeats']},
            'compacted': {'type': 'bool', 'default': True},
            'replication_factor': {'type': 'int', 'default': -1},
            'setting': {'type': 'str', 'default': ''}}},
        connect_client={'type': 'dict', 'default': {}, 'no_log': True},
        kafka_home={'type': 'path', 'default': '/opt/kafka'},
        java={'type': 'path', 'default': 'java'},
        kafka_timeout={'type': 'int', 'default': 30},
    )


def run(module: AnsibleModule) -> Dict[str, Any]:
    params = module.params
    request = build_request(params)
    source_settings = module_client_settings(module, 'source_client')
    target_settings = module_client_settings(module, 'target_client')
    connect_settings = module_client_settings(module, 'connect_client')
    timeout_ms = params['kafka_timeout'] * 1000
    sides: List[JvmKafkaSide] = []
    with KafkaJvm(params['kafka_home'], params['java']) as jvm:
        try:
            source = JvmKafkaSide(jvm, params['source_alias'], source_settings, timeout_ms, purpose='readiness')
            sides.append(source)
            target = JvmKafkaSide(jvm, params['target_alias'], target_settings, timeout_ms, purpose='readiness')
            sides.append(target)
            connect = None
            if connect_settings and any(topic.side == 'connect' for topic in request.internal_topics):
                connect = JvmKafkaSide(jvm, 'connect', connect_settings, timeout_ms, purpose='readiness')
                sides.append(connect)
            return Readiness(request, source, target, clock=time.time, connect=connect).run().as_dict()
        finally:
            for side in sides:
                side.close()


def accepted_state(report: Dict[str, Any], params: Dict[str, Any]) -> Dict[str, Dict[str, int]]:
    points = [RecoveryPoint(**point) for point in report['recovery_point']]
    return accepted_starts_document(state_accepted_starts(points, accepted_starts_of(params['accepted_log_starts']),
                                                          params['accept_truncated']))


def main() -> None:
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    if PY4J_IMPORT_ERROR:
        module.fail_json(msg=missing_required_lib('py4j') + ' (run the module with an interpreter that has it)',
                         exception=PY4J_IMPORT_ERROR)
    errors = input_errors(module.params)
    if errors:
        module.fail_json(msg='; '.join(errors))
    try:
        report = run(module)
    except KafkaSideError as exc:
        module.fail_json(msg='Kafka cluster %s answered an error (%s): %s' % (exc.cluster, exc.action, exc.message),
                         cluster=exc.cluster)
    except RuntimeError as exc:
        module.fail_json(msg=str(exc), exception=traceback.format_exc())
    module.exit_json(changed=False, ready=report['ready'], verdict=report['verdict'], problems=report['problems'],
                     readiness_warnings=report['warnings'], topic_ids=report['topic_ids'],
                     state_topic_ids=state_topic_ids(report['topic_ids'], known_ids(module.params),
                                                     module.params['accept_recreated']),
                     state_accepted_log_starts=accepted_state(report, module.params),
                     report=report, text=render_text(report))


if __name__ == '__main__':
    main()
