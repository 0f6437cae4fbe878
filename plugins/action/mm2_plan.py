# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin of kafka_dr.mm2.mm2_plan (documented in plugins/modules/mm2_plan.py).

Runs on the controller and never contacts a host: it hands the task's arguments to the MirrorMaker 2
model in plugin_utils and returns its answer. Problems of the model fail the task with all of them
listed; anything unexpected fails it with one line (the traceback only at -vvv).
"""

from __future__ import annotations

import traceback
from typing import Any, Callable, Dict, List, Mapping, Optional

from ansible.plugins.action import ActionBase

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_connect_clusters import running_workers, unlimited_play_hosts
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_describe import describe_flow
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_expect import expect
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_failover_inputs import failover_inputs, reverse_flow
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_orphans import orphans
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_plan import DEFAULT_CONNECTOR_PREFIX, DEFAULT_SECRETS_DIR, plan
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_readiness_inputs import readiness_inputs
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_topic_configs import log_append_time

ARGUMENT_SPEC: Dict[str, Dict[str, Any]] = {
    'operation': {'type': 'str', 'default': 'plan',
                  'choices': ['plan', 'expect', 'orphans', 'describe_flow', 'failover', 'readiness', 'reverse_flow',
                              'log_append_time']},
    # The model (plan, describe_flow); raw, so that the model reports a wrong shape with its other problems.
    'clusters': {'type': 'raw'},
    'flows': {'type': 'raw'},
    'flow_defaults': {'type': 'raw'},
    'builtin_defaults': {'type': 'raw'},
    # plan
    'connector_prefix': {'type': 'str', 'default': DEFAULT_CONNECTOR_PREFIX},
    'secrets_dir': {'type': 'str', 'default': DEFAULT_SECRETS_DIR},
    'secret_file_names': {'type': 'list', 'elements': 'str', 'default': []},
    'deploy_host': {'type': 'str'},
    # What the workers resolve placeholders with; raw, so that the model reports a wrong shape with its other problems.
    'config_providers': {'type': 'raw'},
    'inline_secrets': {'type': 'bool', 'default': False},
    # The values of the secret files, read only with inline_secrets.
    'secret_values': {'type': 'dict', 'default': {}, 'no_log': True},
    'play_hosts': {'type': 'list', 'elements': 'str'},
    # expect, orphans, failover and readiness read a plan this plugin returned
    'plan': {'type': 'dict'},
    'topics': {'type': 'dict', 'default': {}},
    'timeout_seconds': {'type': 'int', 'default': 120},
    'present': {'type': 'dict', 'default': {}},
    'existing': {'type': 'dict'},
    # describe_flow, failover and readiness
    'flow': {'type': 'str'},
    # readiness: the Connect workers' properties (role connect_worker's), for the Connect cluster's internal topics
    'connect_properties': {'type': 'dict', 'default': {}},
    # log_append_time: expect's log_append_time_topics, and TopicCommand --describe output per cluster alias
    'wanted': {'type': 'dict'},
    'described': {'type': 'dict', 'default': {}},
}
REQUIRED_IF = [
    ('operation', 'plan', ('clusters', 'flows', 'builtin_defaults')),
    ('operation', 'expect', ('plan',)),
    ('operation', 'orphans', ('plan', 'existing')),
    ('operation', 'describe_flow', ('flow', 'clusters', 'flows')),
    ('operation', 'failover', ('flow', 'clusters', 'flows', 'plan')),
    ('operation', 'readiness', ('flow', 'clusters', 'flows', 'plan')),
    ('operation', 'reverse_flow', ('flow', 'flows')),
    ('operation', 'log_append_time', ('wanted',)),
]
INVALID_MODEL = {
    'plan': 'the MirrorMaker 2 model is invalid; nothing was changed',
    'describe_flow': 'the MirrorMaker 2 flow cannot be described',
    'failover': 'the MirrorMaker 2 flow cannot be failed over; nothing was changed',
    'readiness': 'the readiness of the MirrorMaker 2 flow cannot be checked',
    'reverse_flow': 'the MirrorMaker 2 flow cannot be failed back; nothing was changed',
}


def run_plan(args: Mapping[str, Any], task_vars: Mapping[str, Any]) -> Dict[str, Any]:
    result = plan({
        'clusters': args['clusters'],
        'flows': args['flows'],
        'builtin_defaults': args['builtin_defaults'],
        'site_defaults': args['flow_defaults'],
        'connector_prefix': args['connector_prefix'],
        'secrets_dir': args['secrets_dir'],
        'secret_file_names': args['secret_file_names'],
        'deploy_host': args['deploy_host'] or task_vars.get('inventory_hostname'),
        'groups': task_vars.get('groups') or {},
        'config_providers': args['config_providers'],
        'inline_secrets': args['inline_secrets'],
        'secret_values': args['secret_values'] if args['inline_secrets'] else {},
        # The workers of the flows without connect_cluster: a Connect cluster of one is a warning.
        'play_hosts': args['play_hosts'] if args['play_hosts'] is not None else task_vars.get('ansible_play_hosts_all'),
    })
    # Shown by Ansible as warnings of the task.
    result['warnings'] = result.pop('warnings')
    if result['inline_configs']:
        # Configs holding secret values: the task's output is hidden (its warnings stay); the registered plan keeps them.
        result['_ansible_no_log'] = True
    return result


def run_expect(args: Mapping[str, Any], task_vars: Mapping[str, Any]) -> Dict[str, Any]:
    return expect({'flows': args['plan'].get('flows') or [], 'topics': args['topics'], 'present': args['present'],
                   'timeout_seconds': args['timeout_seconds']})


def run_orphans(args: Mapping[str, Any], task_vars: Mapping[str, Any]) -> Dict[str, Any]:
    return orphans({'existing': args['existing'], 'managed_pattern': args['plan'].get('managed_pattern') or '(?!)',
                    'desired_names': args['plan'].get('desired_names') or []})


def run_describe_flow(args: Mapping[str, Any], task_vars: Mapping[str, Any]) -> Dict[str, Any]:
    return describe_flow({'flow': args['flow'], 'clusters': args['clusters'], 'flows': args['flows'],
                          'site_defaults': args['flow_defaults'], 'builtin_defaults': args['builtin_defaults']})


def run_failover(args: Mapping[str, Any], task_vars: Mapping[str, Any]) -> Dict[str, Any]:
    return failover_inputs({'flow': args['flow'], 'clusters': args['clusters'], 'flows': args['flows'],
                            'site_defaults': args['flow_defaults'], 'builtin_defaults': args['builtin_defaults'],
                            'plan': args['plan']})


def run_readiness(args: Mapping[str, Any], task_vars: Mapping[str, Any]) -> Dict[str, Any]:
    return readiness_inputs({'flow': args['flow'], 'clusters': args['clusters'], 'flows': args['flows'],
                             'site_defaults': args['flow_defaults'], 'builtin_defaults': args['builtin_defaults'],
                             'plan': args['plan'], 'connect_properties': args['connect_properties']})


def run_reverse_flow(args: Mapping[str, Any], task_vars: Mapping[str, Any]) -> Dict[str, Any]:
    return reverse_flow({'flow': args['flow'], 'flows': args['flows']})


def run_log_append_time(args: Mapping[str, Any], task_vars: Mapping[str, Any]) -> Dict[str, Any]:
    return log_append_time({'wanted': args['wanted'], 'described': args['described']})


OPERATIONS: Dict[str, Callable[[Mapping[str, Any], Mapping[str, Any]], Dict[str, Any]]] = {
    'plan': run_plan,
    'expect': run_expect,
    'orphans': run_orphans,
    'describe_flow': run_describe_flow,
    'failover': run_failover,
    'readiness': run_readiness,
    'reverse_flow': run_reverse_flow,
    'log_append_time': run_log_append_time,
}


def task_result(operation: str, args: Mapping[str, Any], task_vars: Mapping[str, Any]) -> Dict[str, Any]:
    """What the task returns: the model's answer, failed with every problem, or failed on a bug."""
    try:
        answer = OPERATIONS[operation](args, task_vars)
    except Exception as exc:  # pylint: disable=broad-exception-caught  # a bug must not look like a model problem
        return {'failed': True, 'changed': False, 'exception': traceback.format_exc(),
                'msg': 'mm2_plan %s failed unexpectedly (a bug in the collection, not in the model): %s: %s'
                       % (operation, type(exc).__name__, exc)}
    result = dict(answer, changed=False)
    problems = answer.get('errors') or []
    if problems:
        result.update(failed=True, msg='%s (%d problem%s):\n%s' % (
            INVALID_MODEL[operation], len(problems), '' if len(problems) == 1 else 's',
            '\n'.join('- ' + problem for problem in problems)))
    return result


class ActionModule(ActionBase):
    """kafka_dr.mm2.mm2_plan: the MirrorMaker 2 model, computed on the controller."""

    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True

    def run(self, tmp: Any = None, task_vars: Any = None) -> Dict[str, Any]:
        _validation, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC, required_if=REQUIRED_IF)
        result = super().run(tmp, task_vars)
        if args['operation'] == 'plan' and args['play_hosts'] is None:
            args = dict(args, play_hosts=self._play_workers(task_vars or {}))
        result.update(task_result(args['operation'], args, task_vars or {}))
        return result

    def _play_workers(self, task_vars: Mapping[str, Any]) -> Optional[List[str]]:
        """The workers of the play's Connect cluster: its host patterns resolved without --limit (a run
        limited to a new worker counts the cluster it joins), without the drained workers."""
        try:
            patterns = self._task.get_play().hosts
        except AttributeError:  # a task outside any play (the unit tests')
            patterns = None
        hosts = None
        if patterns:
            patterns = patterns if isinstance(patterns, list) else [patterns]
            hosts = unlimited_play_hosts([str(pattern) for pattern in patterns], task_vars.get('groups') or {})
        if hosts is None:
            hosts = task_vars.get('ansible_play_hosts_all')
        if hosts is None:
            return None
        hostvars = task_vars.get('hostvars') or {}
        return running_workers(hosts, {host: (hostvars.get(host) or {}).get('connect_worker_state') for host in hosts})
