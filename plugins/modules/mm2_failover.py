#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: mm2_failover
short_description: Fail consumer groups over from a MirrorMaker 2 flow's source cluster to its target
version_added: 0.2.0
description:
  - Moves consumer groups to the target cluster of a flow C(source -> target). It sets each group's offsets on the
    target's remote topics so that the group resumes where it stopped on the source, and stops the flow's connectors
    (C(PUT /connectors/NAME/stop)) so nothing writes behind the operator.
  - A Connect worker before Kafka 3.5 has no STOPPED state. There the connectors are paused instead
    (C(PUT /connectors/NAME/pause)); their tasks stay assigned to the workers, idle, and write nothing. RV(report.degraded)
    and a warning say so, and a flow whose connectors are all C(PAUSED) counts as halted by an earlier failover.
    The worker's version is read once (C(GET /)).
  - Every read comes first (groups, members, committed offsets, checkpoints, the translation); a problem found there
    fails the task with nothing changed. The report timestamps each step, so the recovery time is read from it.
  - In O(mode=planned) the source answers. The groups must have no active member there (the message names the
    members and their hosts). The module waits until MM2's newest checkpoint of every group covers its last commit,
    then translates each partition exactly. It finds the target copy of the record at the committed offset by
    its key, value, headers and timestamp, scanning forward from the checkpoint, so a consumer re-reads nothing that
    MM2 copied once while nothing is ever skipped. Without such a proof the checkpoint is used; RV(report) says
    which method each partition used.
  - In O(mode=unplanned) the source is not contacted. The newest checkpoints on the target are used, and RV(report)
    gives their age.
  - A target offset is never moved backwards unless O(force=true); a rerun after a completed failover changes
    nothing and says so.
  - Runs on a host with Java and a Kafka installation (a Connect worker). Kafka's own Admin client and consumer do
    the reads and writes, driven through py4j, which must be importable by the module's Python interpreter.
author:
  - kafka_dr.mm2 maintainers (!UNKNOWN)
options:
  mode:
    description:
      - V(planned) while the source answers, V(unplanned) when it is lost.
    type: str
    required: true
    choices: [planned, unplanned]
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
      - Kafka client settings for the source (C(bootstrap.servers), C(security.protocol), C(sasl.*), C(ssl.*)).
      - Values may hold C(${file:PATH:KEY}) placeholders, resolved from properties files on the host, as Connect's
        file config provider does; the mirrormaker role's secret files serve as they are.
      - Required with O(mode=planned).
    type: dict
  target_client:
    description: Kafka client settings for the target, as O(source_client).
    type: dict
    required: true
  groups:
    description: Consumer groups to fail over.
    type: list
    elements: str
    default: []
  groups_regex:
    description:
      - A regular expression; groups whose whole name matches are failed over as well (listed on the source in
        O(mode=planned), from the checkpoints in O(mode=unplanned)).
    type: str
    default: ''
  topics_regex:
    description:
      - The flow's source topics; offsets a group committed on other topics are left alone and listed.
    type: str
    default: ''
  checkpoints_topic:
    description:
      - MM2's checkpoints topic on the target.
      - Default C(<source_alias>.checkpoints.internal), with O(separator) in place of the dots.
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
  connectors:
    description:
      - Names of the flow's connectors. In O(mode=planned) they must run (or all be stopped by an earlier failover);
        both modes stop them before writing offsets (pause them on a worker before Kafka 3.5).
    type: list
    elements: str
    default: []
  return_to_origin:
    description:
      - Failback. Offsets a group committed on remote topics that came from the target cluster (C(<target_alias>.<topic>)
        under the default policy) are set on the original topics there, at the original of the next record the group
        would have read; other topics outside the flow are left alone.
      - Used with the reverse flow of a failover (source and target swapped). Needs the default replication policy.
    type: bool
    default: false
  wait_timeout:
    description: Seconds to wait for checkpoints to cover the groups' last commits (O(mode=planned)).
    type: int
    default: 300
  exact:
    description: Translate by finding the copy of the committed record on the target (O(mode=planned)).
    type: bool
    default: true
  drain:
    description:
      - With O(mode=planned), wait until the target holds every record the source had after the groups' commits
        (a recovery point of zero records for what the groups have not read yet) before stopping the flow.
      - Producers still writing to the source do not keep it waiting; what they wrote after that moment is counted in
        RV(report) as C(not_replicated).
    type: bool
    default: true
  max_scan_records:
    description: Records read at most per partition to find a copy; beyond it the checkpoint is used.
    type: int
    default: 100000
  force:
    description: Move a target offset backwards when the translation is below it.
    type: bool
    default: false
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
extends_documentation_fragment:
  - kafka_dr.mm2.connect
notes:
  - Supports check mode; then nothing is stopped or written, and RV(report) shows the offsets it would set.
seealso:
  - module: kafka_dr.mm2.connector
  - module: kafka_dr.mm2.mm2_plan
'''

EXAMPLES = r'''
- name: Fail the orders consumers over from src to dst
  kafka_dr.mm2.mm2_failover:
    mode: planned
    source_alias: src
    target_alias: dst
    source_client:
      bootstrap.servers: src-kafka-1:9094
      security.protocol: SASL_SSL
      sasl.mechanism: SCRAM-SHA-512
      sasl.jaas.config: >-
        org.apache.kafka.common.security.scram.ScramLoginModule required
        username="mm2" password="${file:/etc/kafka/connect/secrets/mm2.properties:sasl.password}";
    target_client:
      bootstrap.servers: dst-kafka-1:9094
    groups: [orders-app]
    connectors: [mm2-src-dst-source, mm2-src-dst-checkpoint, mm2-src-dst-heartbeat]
    url: https://task-1-1:8083
  vars:
    ansible_python_interpreter: /opt/kafka-dr/failover/venv/bin/python
  register: failover
'''

RETURN = r'''
report:
  description: What was read, decided and done, step by step.
  returned: always
  type: dict
  contains:
    mode:
      description: The mode.
      type: str
    flow:
      description: C(source->target).
      type: str
    steps:
      description: Each step with its UTC time C(at) and C(elapsed_s) since the start.
      type: list
      elements: dict
    groups:
      description:
        - Per group its C(partitions), each with C(topic), C(partition), C(remote_topic), C(source_committed),
          C(checkpoint_upstream), C(checkpoint_downstream), C(checkpoint_age_s), C(translated), C(method)
          (C(exact), C(after-last), C(checkpoint), C(start) or C(origin)), C(rereads) (records read a second time,
          null when unknown), C(rereads_avoided) (records the checkpoint alone would have re-read),
          C(target_before), C(action), C(source_end), C(not_replicated) (source records
          with no copy on the target when the flow stopped) and C(newest_replicated_age_s).
      type: list
      elements: dict
    connectors_stopped:
      description: Connectors this run stopped (paused, on a worker before Kafka 3.5).
      type: list
      elements: str
    degraded:
      description:
        - Features the Connect worker lacks, each with C(feature), C(worker_version) and what is done C(instead).
          V(stop) before Kafka 3.5, where the connectors are paused. Empty otherwise.
      type: list
      elements: dict
    already_done:
      description: The flow was stopped (paused before Kafka 3.5) and every offset already translated.
      type: bool
    summary:
      description: Totals over all partitions.
      type: dict
text:
  description: The report on one screen.
  returned: always
  type: str
'''

import re
import time
import traceback
from typing import Any, Dict, List, Optional

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_client import ConnectApiError, ConnectClient
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_common import build_client, connect_argument_spec
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_features import STOP, WorkerVersion, degradation, degradation_warning
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import (
    PY4J_IMPORT_ERROR,
    JvmKafkaSide,
    KafkaJvm,
    KafkaSideError,
    module_client_settings,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_failover import (
    PLANNED,
    Failover,
    FailoverError,
    FailoverRequest,
    naming,
    render_text,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_naming import ReplicationNaming

STOP_POLL_SECONDS = 1.0


def argument_spec() -> Dict[str, Dict[str, Any]]:
    spec = connect_argument_spec()
    spec.update(
        mode={'type': 'str', 'required': True, 'choices': ['planned', 'unplanned']},
        source_alias={'type': 'str', 'required': True},
        target_alias={'type': 'str', 'required': True},
        source_client={'type': 'dict', 'no_log': True},
        target_client={'type': 'dict', 'required': True, 'no_log': True},
        groups={'type': 'list', 'elements': 'str', 'default': []},
        groups_regex={'type': 'str', 'default': ''},
        topics_regex={'type': 'str', 'default': ''},
        checkpoints_topic={'type': 'str'},
        replication_policy={'type': 'str', 'default': 'default', 'choices': ['default', 'identity']},
        separator={'type': 'str', 'default': '.'},
        connectors={'type': 'list', 'elements': 'str', 'default': []},
        wait_timeout={'type': 'int', 'default': 300},
        exact={'type': 'bool', 'default': True},
        drain={'type': 'bool', 'default': True},
        return_to_origin={'type': 'bool', 'default': False},
        max_scan_records={'type': 'int', 'default': 100000},
        force={'type': 'bool', 'default': False},
        kafka_home={'type': 'path', 'default': '/opt/kafka'},
        java={'type': 'path', 'default': 'java'},
        kafka_timeout={'type': 'int', 'default': 30},
    )
    return spec


class RestConnectors:
    """The flow's connectors through the Connect REST API.

    A worker before Kafka 3.5 has no STOPPED state: there the flow is paused instead, and a flow
    whose connectors are all PAUSED counts as halted by an earlier failover.
    """

    def __init__(self, client: ConnectClient, names: List[str], timeout: float) -> None:
        self.client = client
        self.names = names
        self.timeout = timeout
        self._worker: Optional[WorkerVersion] = None

    def worker(self) -> WorkerVersion:
        """GET / once per run, and only when the flow has connectors."""
        if self._worker is None:
            self._worker = WorkerVersion.of(self.client.worker_info())
        return self._worker

    def halted_state(self) -> str:
        return 'STOPPED' if self.worker().supports(STOP) else 'PAUSED'

    def degradations(self) -> List[Dict[str, str]]:
        if not self.names or self.worker().supports(STOP):
            return []
        return [degradation(STOP, self.worker())]

    def warnings(self) -> List[str]:
        """The unknown-version warning and the degradations, for the module's warnings."""
        if not self.names:
            return []
        unknown = self.worker().unknown_warning()
        return ([unknown] if unknown else []) + [degradation_warning(entry) for entry in self.degradations()]

    def states(self) -> Dict[str, str]:
        states = {}
        for name in self.names:
            status = self.client.get_status(name)
            if status is None:
                states[name] = 'absent'
                continue
            state = status['connector']['state']
            failed = [str(task['id']) for task in status.get('tasks', []) if task.get('state') != 'RUNNING']
            states[name] = '%s with task %s not running' % (state, ', '.join(failed)) if state == 'RUNNING' and failed else state
        return states

    def stop(self) -> List[str]:
        """Stop (or pause, before 3.5) what is not halted yet, and wait until it is; returns those names."""
        if not self.names:
            return []
        halted = self.halted_state()
        halt, verb = (self.client.stop, 'stop') if halted == 'STOPPED' else (self.client.pause, 'pause')
        stopped = []
        for name, state in sorted(self.states().items()):
            if state in (halted, 'absent'):
                continue
            halt(name)
            stopped.append(name)
        deadline = time.time() + self.timeout
        while stopped:
            waiting = [name for name, state in self.states().items() if name in stopped and state != halted]
            if not waiting:
                break
            if time.time() > deadline:
                raise ConnectApiError(None, 'still not %s after %g s: %s' % (halted.lower(), self.timeout, ', '.join(waiting)),
                                      'PUT', '/connectors/*/%s' % verb)
            time.sleep(STOP_POLL_SECONDS)
        return stopped


def build_request(params: Dict[str, Any], check_mode: bool) -> FailoverRequest:
    remote_topic, source_topic = naming(params['replication_policy'], params['source_alias'], params['separator'])
    origin_topic = naming(params['replication_policy'], params['target_alias'], params['separator'])[1] \
        if params['return_to_origin'] else None
    return FailoverRequest(
        mode=params['mode'],
        source_alias=params['source_alias'],
        target_alias=params['target_alias'],
        groups=params['groups'],
        groups_regex=params['groups_regex'],
        topics_regex=params['topics_regex'],
        checkpoints_topic=params['checkpoints_topic'] or ReplicationNaming(separator=params['separator']).checkpoints_topic(params['source_alias']),
        remote_topic=remote_topic,
        source_topic=source_topic,
        wait_timeout=float(params['wait_timeout']),
        max_scan_records=params['max_scan_records'],
        exact=params['exact'],
        drain=params['drain'],
        origin_topic=origin_topic,
        force=params['force'],
        check_mode=check_mode,
    )


def input_errors(params: Dict[str, Any]) -> List[str]:
    """Problems of the arguments alone, found before any cluster is contacted."""
    errors = []
    if params['mode'] == PLANNED and not params['source_client']:
        errors.append('mode planned needs source_client (the source must answer)')
    if params['return_to_origin'] and params['replication_policy'] != 'default':
        errors.append('return_to_origin needs the default replication policy (identity keeps no origin in topic names)')
    if params['return_to_origin'] and params['mode'] != PLANNED:
        errors.append('return_to_origin needs mode planned (both clusters answer)')
    if not params['groups'] and not params['groups_regex']:
        errors.append('name the groups to fail over (groups or groups_regex)')
    for option in ('groups_regex', 'topics_regex'):
        try:
            re.compile(params[option])
        except re.error as exc:
            errors.append('%s is not a regular expression: %s' % (option, exc))
    for option in ('source_client', 'target_client'):
        if params[option] is not None and not params[option].get('bootstrap.servers'):
            errors.append('%s has no bootstrap.servers' % option)
    return errors


def run(module: AnsibleModule, progress: Dict[str, Any]) -> Dict[str, Any]:
    """The failover; `progress` holds the report as far as it got, for a failure's message."""
    params = module.params
    request = build_request(params, module.check_mode)
    source_settings = module_client_settings(module, 'source_client') if params['mode'] == PLANNED else None
    target_settings = module_client_settings(module, 'target_client')
    connectors = RestConnectors(build_client(module), params['connectors'], float(params['wait_timeout']))
    timeout_ms = params['kafka_timeout'] * 1000
    sides: List[JvmKafkaSide] = []
    with KafkaJvm(params['kafka_home'], params['java']) as jvm:
        try:
            target = JvmKafkaSide(jvm, params['target_alias'], target_settings, timeout_ms)
            sides.append(target)
            source = JvmKafkaSide(jvm, params['source_alias'], source_settings, timeout_ms) if source_settings else None
            if source is not None:
                sides.append(source)
            failover = Failover(request, target, connectors, source)
            progress['failover'] = failover
            report = failover.run().as_dict()
            for warning in connectors.warnings():
                module.warn(warning)
            return report
        finally:
            for side in sides:
                side.close()


def done_so_far(progress: Dict[str, Any]) -> Dict[str, Any]:
    failover = progress.get('failover')
    if failover is None:
        return {'changed': False, 'report': None}
    report = failover.report
    return {'changed': bool(report.connectors_stopped), 'report': report.as_dict(),
            'steps_done': [step['step'] for step in report.steps]}


def main() -> None:
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    if PY4J_IMPORT_ERROR:
        module.fail_json(msg=missing_required_lib('py4j') + ' (run the module with an interpreter that has it)',
                         exception=PY4J_IMPORT_ERROR)
    errors = input_errors(module.params)
    if errors:
        module.fail_json(msg='nothing was changed: ' + '; '.join(errors))
    progress: Dict[str, Any] = {}
    try:
        report = run(module, progress)
    except FailoverError as exc:
        module.fail_json(msg='failover refused, nothing was changed: %s' % exc, **done_so_far(progress))
    except KafkaSideError as exc:
        module.fail_json(msg='Kafka cluster %s answered an error (%s): %s' % (exc.cluster, exc.action, exc.message),
                         cluster=exc.cluster, **done_so_far(progress))
    except ConnectApiError as exc:
        module.fail_json(msg='Kafka Connect: %s' % exc, http_status=exc.status, server_message=exc.message,
                         **done_so_far(progress))
    except RuntimeError as exc:
        module.fail_json(msg=str(exc), exception=traceback.format_exc(), **done_so_far(progress))
    module.exit_json(changed=report['changed'], report=report, text=render_text(report))


if __name__ == '__main__':
    main()
