#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: connector_info
short_description: List Kafka Connect connectors with their status, config, topics and offsets
version_added: 0.1.0
description:
  - Reads every connector of a Kafka Connect cluster, or the named ones, through the REST API.
  - For each connector returns its type, status (connector and tasks with their workers), config with secrets masked,
    the topics it uses and its committed offsets.
  - Workers with topic tracking disabled or without the offsets endpoint (before Kafka 3.5) are tolerated;
    the corresponding value is then V(null). The worker's version (C(GET /), read once) tells whether the offsets
    endpoint exists; a worker before 3.5 is not asked, and RV(degraded) says why the offsets are missing.
author:
  - kafka_dr.mm2 maintainers (!UNKNOWN)
options:
  name:
    description:
      - Names of the connectors to report. All connectors when omitted.
      - Names that do not exist are listed in RV(missing).
    type: list
    elements: str
  topics:
    description:
      - Also read the topics each connector uses (C(GET /connectors/NAME/topics)).
    type: bool
    default: true
  offsets:
    description:
      - Also read the offsets of each connector (C(GET /connectors/NAME/offsets)).
    type: bool
    default: true
  secret_keys:
    description:
      - Config keys whose values are secrets although their names do not say so (the RV(kafka_dr.mm2.mm2_plan#module:connectors[].secret_keys)
        of a plan that puts the secret values themselves into the configs); masked like the keys recognised by name.
    type: list
    elements: str
    default: []
extends_documentation_fragment:
  - kafka_dr.mm2.connect
  - kafka_dr.mm2.connect.read_only
seealso:
  - module: kafka_dr.mm2.connector
  - module: kafka_dr.mm2.connect_cluster_info
'''

EXAMPLES = r'''
- name: Read the MirrorMaker 2 connectors
  kafka_dr.mm2.connector_info:
    url: http://localhost:8083
    name: [mm2-msc, mm2-cpc, mm2-hbc]
  register: mm2

- name: Every task of the source connector runs
  ansible.builtin.assert:
    that:
      - mm2.connectors['mm2-msc'].status.connector.state == 'RUNNING'
      - mm2.connectors['mm2-msc'].status.tasks | rejectattr('state', 'eq', 'RUNNING') | list | length == 0
'''

RETURN = r'''
connectors:
  description: The connectors found, keyed by name.
  returned: always
  type: dict
  contains:
    name:
      description: Connector name.
      type: str
    type:
      description: V(source) or V(sink), or V(unknown) while the worker has not loaded the connector.
      type: str
    state:
      description: Connector state (C(RUNNING), C(PAUSED), C(STOPPED), C(FAILED), C(UNASSIGNED), C(RESTARTING)).
      type: str
    status:
      description: Connector status with C(connector.state), C(connector.worker_id) and C(tasks)
        (each with C(id), C(state), C(worker_id) and C(trace) when failed).
      type: dict
    config:
      description: Stored config, secrets masked.
      type: dict
    topics:
      description: Topics the connector has used, or V(null) when topic tracking is off or unsupported.
      type: list
      elements: str
    offsets:
      description:
        - Offsets as returned by C(GET /connectors/NAME/offsets), or V(null) when not read or not available.
        - Workers before Kafka 3.5 have no such endpoint and are not asked; RV(degraded) then says so.
      type: list
      elements: dict
  sample:
    mm2-hbc:
      name: mm2-hbc
      type: source
      state: RUNNING
      status:
        connector: {state: RUNNING, worker_id: "10.0.0.5:8083"}
        tasks: [{id: 0, state: RUNNING, worker_id: "10.0.0.5:8083"}]
      config: {name: mm2-hbc, connector.class: org.apache.kafka.connect.mirror.MirrorHeartbeatConnector}
      topics: [heartbeats]
      offsets: []
names:
  description: Names of the connectors found, sorted.
  returned: always
  type: list
  elements: str
  sample: [mm2-cpc, mm2-hbc, mm2-msc]
missing:
  description: Requested names that do not exist.
  returned: always
  type: list
  elements: str
  sample: []
url:
  description: The worker URL that answered.
  returned: always
  type: str
  sample: http://localhost:8083
degraded:
  description:
    - Features the worker lacks for this run, with what is reported instead. Empty when it has them all.
    - V(offsets_read) when O(offsets) is on and the worker runs a Kafka version before 3.5 (or, reporting a version
      that is not an Apache Kafka one, answers 404 or 405). Every RV(connectors.offsets) is then V(null).
  returned: always
  type: list
  elements: dict
  contains:
    feature:
      description: The missing feature.
      type: str
    worker_version:
      description: Version the worker reports.
      type: str
    instead:
      description: What is reported instead.
      type: str
  sample: [{"feature": "offsets_read", "worker_version": "2.4.1",
            "instead": "offsets not available: reported as null, the worker cannot show a connector's offsets"}]
'''

from typing import Any, Dict, List, Optional

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_client import ConnectApiError, ConnectClient
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_common import build_client, connect_argument_spec, fail_api, hide_values
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_config import mask_config, secret_values
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_features import (
    FEATURE,
    OFFSETS_READ,
    WorkerVersion,
    degradation,
)

# Topic tracking disabled answers 403 (400 on some versions); an endpoint a worker lacks answers 404 or 405.
TOPICS_UNAVAILABLE = (400, 403, 404, 405)


def argument_spec() -> Dict[str, Dict[str, Any]]:
    spec = connect_argument_spec()
    spec.update(
        name={'type': 'list', 'elements': 'str'},
        topics={'type': 'bool', 'default': True},
        offsets={'type': 'bool', 'default': True},
        # Names of config keys, not secrets themselves.
        secret_keys={'type': 'list', 'elements': 'str', 'default': [], 'no_log': False},
    )
    return spec


def read_or_none(call: Any, name: str, unavailable_statuses: tuple) -> Any:
    """Optional per-connector data: None when the worker cannot provide it."""
    try:
        return call(name)
    except ConnectApiError as exc:
        if exc.status in unavailable_statuses:
            return None
        raise


def topics_of(client: ConnectClient, name: str) -> Optional[List[str]]:
    answer = read_or_none(client.get_topics, name, TOPICS_UNAVAILABLE)
    if answer is None:
        return None
    return list((answer.get(name) or {}).get('topics') or [])


class OffsetsReader:
    """Connector offsets where the worker has the endpoint; null elsewhere, with the reason once in `degraded`.

    A worker before 3.5 is not asked at all (its version says it lacks the endpoint). A worker whose version
    is unknown is asked, and its 404 or 405 is taken as the endpoint missing.
    """

    def __init__(self, module: AnsibleModule, client: ConnectClient) -> None:
        self.module = module
        self.client = client
        self.degraded: List[Dict[str, str]] = []
        self._worker: Optional[WorkerVersion] = None

    def worker(self) -> WorkerVersion:
        """GET / once, at the first connector whose offsets are wanted."""
        if self._worker is None:
            self._worker = WorkerVersion.read(self.client, self.module.warn)
        return self._worker

    def unavailable(self) -> None:
        if not self.degraded:
            self.degraded.append(degradation(OFFSETS_READ, self.worker()))

    def read(self, name: str) -> Optional[List[Dict[str, Any]]]:
        worker = self.worker()
        if not worker.supports(OFFSETS_READ):
            self.unavailable()
            return None
        answer = read_or_none(self.client.get_offsets, name, FEATURE[OFFSETS_READ].missing_statuses)
        if answer is None:
            # On a known 3.5+ worker a 404 means the connector went away meanwhile, not a missing endpoint.
            if not worker.known:
                self.unavailable()
            return None
        return list(answer.get('offsets') or [])


def describe_connector(module: AnsibleModule, client: ConnectClient, offsets: OffsetsReader, name: str,
                       expanded: Dict[str, Any]) -> Dict[str, Any]:
    info = expanded.get('info') or {}
    status = expanded.get('status') or {}
    config = info.get('config') or {}
    secret_keys = module.params['secret_keys']
    hide_values(module, secret_values(config, secret_keys))
    return {
        'name': name,
        'type': info.get('type') or status.get('type') or 'unknown',
        'state': (status.get('connector') or {}).get('state'),
        'status': status,
        'config': mask_config(config, secret_keys),
        'topics': topics_of(client, name) if module.params['topics'] else None,
        'offsets': offsets.read(name) if module.params['offsets'] else None,
    }


def collect(module: AnsibleModule, client: ConnectClient) -> Dict[str, Any]:
    expanded_all = client.list_connectors_expanded()
    wanted = module.params['name']
    names = sorted(expanded_all) if wanted is None else sorted(set(wanted) & set(expanded_all))
    missing = [] if wanted is None else sorted(set(wanted) - set(expanded_all))
    offsets = OffsetsReader(module, client)
    connectors = {name: describe_connector(module, client, offsets, name, expanded_all[name]) for name in names}
    return {'changed': False, 'connectors': connectors, 'names': names, 'missing': missing, 'url': client.answered_url,
            'degraded': offsets.degraded}


def main() -> None:
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    client = build_client(module)
    try:
        result = collect(module, client)
    except ConnectApiError as exc:
        fail_api(module, exc, 'reading connectors')
    module.exit_json(**result)


if __name__ == '__main__':
    main()
