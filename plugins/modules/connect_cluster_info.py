#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: connect_cluster_info
short_description: Report the version, Kafka cluster and plugins of a Kafka Connect cluster
version_added: 0.1.0
description:
  - Reads C(GET /) and C(GET /connector-plugins) from the first reachable worker, and checks each given URL
    separately so the result shows which workers answer.
  - Reports in RV(features) which Kafka Connect features the worker has, and for each one it lacks what the modules
    of this collection do instead (the same table they follow).
  - Fails when no worker answers.
author:
  - kafka_dr.mm2 maintainers (!UNKNOWN)
options:
  all_plugins:
    description:
      - Also list converters, transformations, predicates and config providers, not only connectors
        (Kafka 3.2 or later; older workers list connectors only).
    type: bool
    default: false
extends_documentation_fragment:
  - kafka_dr.mm2.connect
  - kafka_dr.mm2.connect.read_only
seealso:
  - module: kafka_dr.mm2.connector
  - module: kafka_dr.mm2.connector_info
'''

EXAMPLES = r'''
- name: Check the Connect workers and that the MirrorMaker 2 connectors are installed
  kafka_dr.mm2.connect_cluster_info:
    url:
      - http://connect-1:8083
      - http://connect-2:8083
  register: connect

- name: Every worker answers and MirrorSourceConnector is available
  ansible.builtin.assert:
    that:
      - connect.urls | rejectattr('reachable') | list | length == 0
      - "'org.apache.kafka.connect.mirror.MirrorSourceConnector' in connect.plugins | map(attribute='class')"

- name: Say what a failover does on this cluster
  ansible.builtin.debug:
    msg: "{{ 'connectors are stopped' if connect.features.stop.available else connect.features.stop.instead }}"
'''

RETURN = r'''
version:
  description: Version the answering worker reports.
  returned: always
  type: str
  sample: 4.1.0
kafka_version:
  description: Apache Kafka major and minor version derived from RV(version) (Confluent Platform versions mapped).
  returned: always
  type: str
  sample: "4.1"
commit:
  description: Commit id of the worker build.
  returned: always
  type: str
  sample: 9a2d2d5e1ce8a8d7
kafka_cluster_id:
  description: Id of the Kafka cluster the Connect cluster stores its topics in.
  returned: always
  type: str
  sample: Hn7oX2pqQnO0a0Wm1QxmCQ
plugins:
  description: Installed plugins.
  returned: always
  type: list
  elements: dict
  contains:
    class:
      description: Plugin class name.
      type: str
    type:
      description: V(source), V(sink), or with O(all_plugins) also V(converter), V(transformation) and others.
      type: str
    version:
      description: Plugin version.
      type: str
  sample: [{"class": "org.apache.kafka.connect.mirror.MirrorSourceConnector", "type": "source", "version": "4.1.0"}]
url:
  description: The worker URL that answered.
  returned: always
  type: str
  sample: http://connect-1:8083
features:
  description:
    - For each Kafka Connect feature the modules depend on, whether the worker has it and, when not, what the modules
      do instead (V(degrade)) or that they refuse (V(refuse)).
    - V(stop) (3.5), V(restart_include_tasks) (3.0), V(offsets_read) (3.5), V(offsets_alter) (3.6),
      V(exactly_once_source) (3.3) and V(mirror_plugins) (2.4, and the three MirrorMaker 2 connectors listed by
      C(GET /connector-plugins)).
    - A version that is not an Apache Kafka one is treated as the newest, with a warning.
  returned: always
  type: dict
  contains:
    available:
      description: Whether the worker has the feature.
      type: bool
    minimum:
      description: First Apache Kafka version with the feature.
      type: str
    kind:
      description: V(degrade) or V(refuse), what the modules do without it.
      type: str
    instead:
      description: What happens instead on this worker; V(null) when the feature is available.
      type: str
  sample:
    stop:
      available: false
      minimum: "3.5"
      kind: degrade
      instead: >-
        paused instead (PUT /connectors/NAME/pause): a paused connector keeps its tasks assigned to the workers,
        idle, rather than shutting them down; it resumes the same way
    restart_include_tasks: {available: true, minimum: "3.0", kind: degrade, instead: null}
urls:
  description: Each given URL and whether it answered C(GET /).
  returned: always
  type: list
  elements: dict
  contains:
    url:
      description: The URL.
      type: str
    reachable:
      description: Whether the worker answered without an HTTP error.
      type: bool
    status:
      description: HTTP status, when there was an answer.
      type: int
    version:
      description: Version the worker reports, when reachable.
      type: str
    error:
      description: Why the worker is not reachable.
      type: str
  sample: [{"url": "http://connect-1:8083", "reachable": true, "status": 200, "version": "4.1.0"},
           {"url": "http://connect-2:8083", "reachable": false, "error": "ConnectionError"}]
'''

from typing import Any, Dict, List

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_client import ConnectApiError, ConnectClient
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_common import build_client, connect_argument_spec, fail_api
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_features import WorkerVersion, feature_report


def argument_spec() -> Dict[str, Dict[str, Any]]:
    spec = connect_argument_spec()
    spec.update(all_plugins={'type': 'bool', 'default': False})
    return spec


def plugin_entries(plugins: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    return [{'class': plugin.get('class'), 'type': plugin.get('type'), 'version': plugin.get('version')} for plugin in plugins]


def collect(module: AnsibleModule, client: ConnectClient) -> Dict[str, Any]:
    reachability = [client.probe(url) for url in client.urls]
    # Skip the dead workers just found for the calls that follow.
    for report in reachability:
        if report['reachable']:
            client.prefer(report['url'])
            break
    info = client.worker_info()
    plugins = client.connector_plugins(connectors_only=not module.params['all_plugins'])
    worker = WorkerVersion.of(info)
    warning = worker.unknown_warning()
    if warning:
        module.warn(warning)
    return {
        'changed': False,
        'version': info.get('version'),
        'kafka_version': None if worker.kafka is None else '%d.%d' % worker.kafka,
        'commit': info.get('commit'),
        'kafka_cluster_id': info.get('kafka_cluster_id'),
        'plugins': plugin_entries(plugins),
        'features': feature_report(worker, [str(plugin.get('class')) for plugin in plugins]),
        'url': client.answered_url,
        'urls': reachability,
    }


def main() -> None:
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    client = build_client(module)
    try:
        result = collect(module, client)
    except ConnectApiError as exc:
        fail_api(module, exc, 'reading the Kafka Connect cluster')
    module.exit_json(**result)


if __name__ == '__main__':
    main()
