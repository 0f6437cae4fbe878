#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: connector
short_description: Manage a Kafka Connect connector, such as the MirrorMaker 2 connectors
version_added: 0.1.0
description:
  - Creates, updates, deletes, pauses, resumes, stops and restarts one connector through the Kafka Connect REST API.
  - The stored config is read first and compared as a whole with the desired one (added, changed and removed keys);
    the config is written only when they differ, because Kafka Connect restarts a connector on every config write.
  - Values are compared the way Kafka Connect stores them. Numbers and booleans are sent as strings (V(5) and V("5")
    are the same), C(name) is added, and the values of C(connector.class), C(*.class) and C(*.converter) keys are
    trimmed, as Kafka Connect does when it loads those classes.
  - The keys C(topics.blacklist), C(groups.blacklist) and C(config.properties.blacklist), removed in Kafka 4.0, are
    sent as C(topics.exclude), C(groups.exclude) and C(config.properties.exclude) with a warning when the worker runs
    Kafka 4 or later; older workers get them unchanged. The other way round, a MirrorMaker 2 connector on a worker
    before Kafka 2.8, which reads only the C(*.blacklist) names, gets its C(*.exclude) keys under those names, with a warning.
  - Secret values (keys naming a password, secret, token, credential, private key, JAAS config or basic auth user
    info) are masked in the returned config, in the diff, in messages and in the invocation that Ansible logs to
    the host's journal or syslog. A value made only of config provider references such as
    V(${file:/etc/kafka/secrets.properties:sasl.jaas.config}) is shown, since the worker resolves it and the secret
    never travels through the REST API. O(secret_keys) names further keys to treat so.
  - A secret given in the config itself is compared with the stored one for idempotence (Kafka Connect returns it
    in clear), but every output shows V(********) instead, the diff V(******** (changed)) when it differs; the
    passwords inside a JAAS line are scrubbed on their own as well.
  - The worker's version is read once (C(GET /)) when a decision depends on it, and the module adapts to workers from
    Kafka 2.4 on (see RV(degraded)). A worker without the STOPPED state (before 3.5) gets the connector paused
    instead; one that ignores C(includeTasks) and C(onlyFailed) on restart (before 3.0) gets the connector and each
    task restarted one by one. A version that is not an Apache Kafka one is treated as the newest, with a warning.
  - The module refuses, before anything is written and naming the worker's version, a config with
    C(exactly.once.support=required) on a worker before 3.3 (it would ignore the setting and deliver at least once),
    and a MirrorMaker 2 connector class on a worker before 2.4 or on one whose C(GET /connector-plugins) lacks it.
author:
  - kafka_dr.mm2 maintainers (!UNKNOWN)
options:
  name:
    description:
      - Name of the connector.
    type: str
    required: true
  config:
    description:
      - Desired connector config, as a mapping or as a JSON document (for example the content of a file with
        P(ansible.builtin.file#lookup)).
      - Both the bare config map and the document accepted by C(POST /connectors), with the keys C(name) and C(config),
        are accepted. A C(name) in either must equal O(name).
      - The whole config is managed; keys missing here are removed from the connector.
      - Required to create a connector; may be omitted to only change the state of an existing one.
    type: raw
  state:
    description:
      - V(present) makes sure the connector exists with O(config), without touching whether it runs.
      - V(absent) deletes the connector.
      - V(running) also resumes a paused or stopped connector.
      - V(paused) pauses the connector and its tasks.
      - V(stopped) stops the connector and shuts its tasks down. Before Kafka 3.5, which has no STOPPED state, the
        connector is paused instead (its tasks stay assigned, idle), with a warning and an entry in RV(degraded).
      - V(restarted) restarts the connector and its tasks on every run (only the failed ones with O(restart_failed)).
    type: str
    choices: [present, absent, running, paused, stopped, restarted]
    default: present
  restart_failed:
    description:
      - When the connector or any of its tasks is C(FAILED), restart only the failed ones
        (C(POST /connectors/NAME/restart?includeTasks=true&onlyFailed=true); before Kafka 3.0 the failed connector
        and each failed task are restarted one by one, see RV(degraded)).
      - Applies to O(state=present), O(state=running) and O(state=restarted).
    type: bool
    default: false
  secret_keys:
    description:
      - Config keys whose values are secrets although their names do not say so, for example the keys that
        M(kafka_dr.mm2.mm2_plan) returns in RV(kafka_dr.mm2.mm2_plan#module:connectors[].secret_keys) when
        it puts the secret values themselves into the config.
      - Their values are masked like those of the keys recognised by name (placeholders stay visible).
    type: list
    elements: str
    default: []
  validate:
    description:
      - Before writing a config, check it with C(PUT /connector-plugins/CLASS/config/validate).
        When the worker reports errors the module fails, naming each field and its errors, and writes nothing.
      - The validation changes nothing on the cluster, so it also runs in check mode.
    type: bool
    default: true
  wait:
    description:
      - With O(state=running), O(state=paused), O(state=stopped) or O(state=restarted), poll the connector status until
        the connector and its tasks reach that state. Pause, resume and stop are asynchronous in Kafka Connect.
      - A C(FAILED) connector or task fails the module with the first lines of its stack trace.
      - Ignored with O(state=present) and O(state=absent).
    type: bool
    default: true
  wait_timeout:
    description:
      - Seconds to wait for the state when O(wait=true).
    type: int
    default: 120
  poll_interval:
    description:
      - Seconds between two status polls while waiting.
    type: float
    default: 1.0
extends_documentation_fragment:
  - kafka_dr.mm2.connect
attributes:
  check_mode:
    description: Reads and validates, sends no write, and returns the predicted result.
    support: full
  diff_mode:
    description: Returns the config and state before and after, with secrets masked.
    support: full
  action_group:
    description: Use C(group/kafka_dr.mm2.connect) in C(module_defaults) to set the connection options once.
    support: full
    membership:
      - kafka_dr.mm2.connect
notes:
  - A new connector is created running and then paused or stopped when O(state) asks for it.
seealso:
  - module: kafka_dr.mm2.connector_info
  - module: kafka_dr.mm2.connect_cluster_info
'''

EXAMPLES = r'''
- name: Deploy the MirrorMaker 2 source connector from a JSON file
  kafka_dr.mm2.connector:
    url:
      - https://connect-1.example.com:8083
      - https://connect-2.example.com:8083
    ca_path: /etc/kafka/tls/ca.pem
    name: mm2-msc
    config: "{{ lookup('ansible.builtin.file', 'mm2-msc.json') }}"
    state: running

- name: Deploy the heartbeat connector from a mapping, with the secret behind a config provider
  kafka_dr.mm2.connector:
    url: http://localhost:8083
    name: mm2-hbc
    config:
      connector.class: org.apache.kafka.connect.mirror.MirrorHeartbeatConnector
      clusters: source, target
      source.cluster.alias: source
      target.cluster.alias: target
      source.cluster.bootstrap.servers: source-1:9092
      target.cluster.bootstrap.servers: target-1:9092
      target.cluster.sasl.jaas.config: "${file:/etc/kafka/secrets/mm2.properties:target.jaas}"
      tasks.max: 1
      emit.heartbeats.enabled: true
      key.converter: org.apache.kafka.connect.converters.ByteArrayConverter
      value.converter: org.apache.kafka.connect.converters.ByteArrayConverter
      header.converter: org.apache.kafka.connect.converters.ByteArrayConverter

- name: Restart failed tasks of the checkpoint connector, if any
  kafka_dr.mm2.connector:
    name: mm2-cpc
    state: running
    restart_failed: true

- name: Stop replication during a failover
  kafka_dr.mm2.connector:
    name: mm2-msc
    state: stopped

- name: Remove a connector
  kafka_dr.mm2.connector:
    name: mm2-old
    state: absent
'''

RETURN = r'''
name:
  description: Name of the connector.
  returned: always
  type: str
  sample: mm2-msc
config:
  description: Connector config after the run (predicted in check mode), secrets masked. Empty when absent.
  returned: always
  type: dict
  sample: {"name": "mm2-msc", "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector", "tasks.max": "3"}
status:
  description:
    - Connector status as returned by C(GET /connectors/NAME/status), read at the end of the run.
    - V(null) when the connector does not exist, or would only be created in check mode.
  returned: always
  type: dict
  sample: {"name": "mm2-msc", "connector": {"state": "RUNNING", "worker_id": "10.0.0.5:8083"},
           "tasks": [{"id": 0, "state": "RUNNING", "worker_id": "10.0.0.5:8083"}], "type": "source"}
actions:
  description: What was done (or would be done in check mode), in order.
  returned: always
  type: list
  elements: str
  sample: [created, paused]
config_changes:
  description: Config keys that differ between the stored and the desired config.
  returned: when O(config) is given and O(state) is not V(absent)
  type: dict
  contains:
    changed:
      description: Keys whose value differs.
      type: list
      elements: str
    added:
      description: Keys only in the desired config.
      type: list
      elements: str
    removed:
      description: Keys only in the stored config.
      type: list
      elements: str
  sample: {"changed": ["tasks.max"], "added": [], "removed": ["topics.blacklist"]}
degraded:
  description:
    - Features the worker lacks for this run, each with what was done (or would be done in check mode) instead.
      Empty when the worker has everything the run needed.
  returned: always
  type: list
  elements: dict
  contains:
    feature:
      description: V(stop) (before Kafka 3.5) or V(restart_include_tasks) (before Kafka 3.0).
      type: str
    worker_version:
      description: Version the worker reports.
      type: str
    instead:
      description: What the module does instead.
      type: str
  sample:
    - feature: stop
      worker_version: 3.4.1
      instead: >-
        paused instead (PUT /connectors/NAME/pause): a paused connector keeps its tasks assigned to the workers,
        idle, rather than shutting them down; it resumes the same way
validation_errors:
  description: Field names with the errors the worker reported, when validation failed.
  returned: failure
  type: dict
  sample: {"tasks.max": ["Invalid value -1 for configuration tasks.max: Value must be at least 1"]}
'''

import json
import time
from typing import Any, Dict, Iterable, List, Mapping, Optional, Set, Tuple

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_client import ConnectApiError, ConnectClient
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_common import (
    build_client,
    connect_argument_spec,
    fail_api,
    hide_values,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_config import (
    MASK,
    ConfigError,
    check_names_agree,
    check_removed_key_conflicts,
    diff_configs,
    has_differences,
    load_config_document,
    map_removed_keys,
    mask_config,
    mask_config_document,
    normalise_config,
    normalise_stored,
    secret_values,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_features import (
    RESTART_INCLUDE_TASKS,
    STOP,
    WorkerVersion,
    check_exactly_once,
    check_mirror_plugin,
    degradation,
    degradation_warning,
    override_policy_hint,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.masked_invocation import MaskedInvocationModule

# The connector state each module state leads to (present keeps whatever runs).
TARGET_STATES = {'running': 'RUNNING', 'paused': 'PAUSED', 'stopped': 'STOPPED', 'restarted': 'RUNNING'}
# Pause, resume and stop take effect asynchronously; these states are waited for.
WAITED_STATES = ('running', 'paused', 'stopped', 'restarted')
TRACE_LINES = 3
TRACE_LINE_CHARS = 300


def argument_spec() -> Dict[str, Dict[str, Any]]:
    spec = connect_argument_spec()
    spec.update(
        name={'type': 'str', 'required': True},
        config={'type': 'raw'},
        state={'type': 'str', 'default': 'present', 'choices': ['present', 'absent', 'running', 'paused', 'stopped', 'restarted']},
        restart_failed={'type': 'bool', 'default': False},
        # Names of config keys, not secrets themselves.
        secret_keys={'type': 'list', 'elements': 'str', 'default': [], 'no_log': False},
        validate={'type': 'bool', 'default': True},
        wait={'type': 'bool', 'default': True},
        wait_timeout={'type': 'int', 'default': 120},
        poll_interval={'type': 'float', 'default': 1.0},
    )
    return spec


# ---- status helpers -----------------------------------------------------------

def connector_state(status: Optional[Dict[str, Any]]) -> Optional[str]:
    if not status:
        return None
    return (status.get('connector') or {}).get('state')


def status_units(status: Dict[str, Any]) -> List[Tuple[str, Dict[str, Any]]]:
    """(label, state entry) for the connector and each task."""
    units = [('connector', status.get('connector') or {})]
    units.extend(('task %s' % task.get('id'), task) for task in status.get('tasks') or [])
    return units


def failed_units(status: Optional[Dict[str, Any]]) -> List[Tuple[str, Dict[str, Any]]]:
    if not status:
        return []
    return [(label, unit) for label, unit in status_units(status) if unit.get('state') == 'FAILED']


def trace_summary(trace: Optional[str]) -> str:
    lines = [line.strip()[:TRACE_LINE_CHARS] for line in (trace or '').splitlines() if line.strip()]
    return ' | '.join(lines[:TRACE_LINES]) or 'no trace reported'


def describe_failures(units: List[Tuple[str, Dict[str, Any]]]) -> str:
    return '; '.join(
        '%s FAILED on %s: %s' % (label, unit.get('worker_id', 'unknown worker'), trace_summary(unit.get('trace'))) for label, unit in units
    )


def describe_status(status: Optional[Dict[str, Any]]) -> str:
    if not status:
        return 'no status yet'
    return ', '.join('%s=%s' % (label, unit.get('state')) for label, unit in status_units(status))


def target_reached(status: Dict[str, Any], target: str) -> bool:
    """The connector is in `target`; tasks too, except that a stopped connector has none and
    failed tasks of a paused one stay failed."""
    if connector_state(status) != target:
        return False
    if target == 'STOPPED':
        return True
    allowed = {'PAUSED', 'FAILED'} if target == 'PAUSED' else {target}
    return all(task.get('state') in allowed for task in status.get('tasks') or [])


class ConnectorManager:
    """Read, diff, write for one connector, then drive it to the requested run state."""

    def __init__(self, module: AnsibleModule, client: ConnectClient) -> None:
        self.module = module
        self.client = client
        self.params = module.params
        self.name: str = module.params['name']
        self.state: str = module.params['state']
        # The state driven to: `state`, except where the worker lacks it (stopped -> paused before 3.5).
        self.run_state: str = self.state
        self.check_mode: bool = module.check_mode
        self.actions: List[str] = []
        self.degraded: List[Dict[str, str]] = []
        self._worker: Optional[WorkerVersion] = None
        self.secret_keys: Set[str] = set(module.params['secret_keys'] or [])

    # ---- inputs ----------------------------------------------------------

    def worker(self) -> WorkerVersion:
        """GET / once per run, and only when a decision depends on the version."""
        if self._worker is None:
            self._worker = WorkerVersion.read(self.client, self.module.warn)
        return self._worker

    def worker_version(self) -> Optional[Tuple[int, int]]:
        return self.worker().kafka

    def degrade(self, feature: str) -> None:
        """Record (once) that the worker lacks `feature` and what is done instead."""
        entry = degradation(feature, self.worker())
        if entry not in self.degraded:
            self.degraded.append(entry)
            self.module.warn('connector %s: %s' % (self.name, degradation_warning(entry)))

    def desired_config(self) -> Optional[Dict[str, str]]:
        """The config to converge to, checked and normalised before anything is sent."""
        if self.params['config'] is None:
            return None
        config, envelope_name = load_config_document(self.params['config'])
        check_names_agree(self.name, envelope_name, config)
        normalised = normalise_config(config, self.name)
        self.hide_secrets(normalised)
        if isinstance(self.params['config'], str) and secret_values(normalised, self.secret_keys):
            # The invocation echoes the JSON text, where secrets appear escaped: hide the document whole.
            hide_values(self.module, [self.params['config']])
        if not normalised.get('connector.class'):
            raise ConfigError('config must set connector.class')
        check_removed_key_conflicts(normalised)
        mapped, warnings = map_removed_keys(normalised, self.worker_version())
        for warning in warnings:
            self.module.warn(warning)
        check_exactly_once(mapped, self.worker())
        return mapped

    def hide_secrets(self, config: Optional[Mapping[str, Any]]) -> None:
        """Secret values, plain and JSON-escaped, are scrubbed from all output."""
        values = secret_values(config, self.secret_keys)
        hide_values(self.module, values | {json.dumps(value)[1:-1] for value in values})

    def hide_given_secrets(self) -> None:
        """The secrets of the config as given, before anything can fail: a message or the invocation may echo it."""
        given = self.params['config']
        if isinstance(given, str) and self.secret_keys:
            hide_values(self.module, [given])
        if isinstance(given, Mapping):
            config = given['config'] if isinstance(given.get('config'), Mapping) else given
            self.hide_secrets({str(key): str(value) for key, value in config.items() if isinstance(value, (str, int, float))})

    def choose_run_state(self) -> None:
        """A worker without the STOPPED state (before 3.5) gets the connector paused instead."""
        if self.state == 'stopped' and not self.worker().supports(STOP):
            self.run_state = 'paused'
            self.degrade(STOP)

    # ---- config ----------------------------------------------------------

    def validate(self, config: Dict[str, str]) -> None:
        report = self.client.validate_config(config['connector.class'], config)
        if not report.get('error_count'):
            return
        errors = validation_errors(report)
        listing = '; '.join('%s: %s' % (field, ' '.join(messages)) for field, messages in errors.items())
        hint = override_policy_hint(self.worker(), [message for messages in errors.values() for message in messages])
        self.module.fail_json(
            msg='connector %s: config is invalid, nothing written (%d error(s)): %s%s' % (
                self.name, report['error_count'], listing, '. ' + hint if hint else ''),
            validation_errors=errors,
        )

    def ensure_config(
        self, stored: Optional[Dict[str, str]], desired: Optional[Dict[str, str]]
    ) -> Tuple[Optional[Dict[str, str]], Optional[Dict[str, List[str]]]]:
        """Write the desired config when it differs from the stored one; returns (config after, key changes)."""
        if desired is None:
            return stored, None
        changes = diff_configs(normalise_stored(stored or {}), desired)
        if stored is not None and not has_differences(changes):
            return stored, changes
        check_mirror_plugin(desired['connector.class'], self.worker(), self.plugin_classes)
        if self.params['validate']:
            self.validate(desired)
        if not self.check_mode:
            self.client.put_config(self.name, desired)
        self.actions.append('created' if stored is None else 'updated')
        return desired, changes

    def plugin_classes(self) -> List[str]:
        return [str(plugin.get('class')) for plugin in self.client.connector_plugins()]

    # ---- run state -------------------------------------------------------

    def read_status(self, just_created: bool) -> Optional[Dict[str, Any]]:
        """Current status; a connector created a moment ago may need a few polls to show one."""
        if just_created and self.check_mode:
            return None
        status = self.client.get_status(self.name)
        deadline = time.monotonic() + self.params['wait_timeout']
        while status is None and just_created and self.params['wait'] and time.monotonic() < deadline:
            time.sleep(self.params['poll_interval'])
            status = self.client.get_status(self.name)
        return status

    def planned_transition(self, current_state: Optional[str], just_created: bool) -> Optional[str]:
        """The REST action that moves the connector toward the requested state, if any."""
        if self.run_state == 'running' and current_state in ('PAUSED', 'STOPPED'):
            return 'resume'
        if self.run_state == 'paused' and current_state != 'PAUSED':
            return 'pause'
        if self.run_state == 'stopped' and current_state != 'STOPPED':
            return 'stop'
        if self.run_state == 'restarted' and not just_created and not self.params['restart_failed']:
            return 'restart'
        return None

    def wants_failed_restart(self, status: Optional[Dict[str, Any]]) -> bool:
        return self.params['restart_failed'] and self.state in ('present', 'running', 'restarted') and bool(failed_units(status))

    def apply_transition(self, action: str, status: Optional[Dict[str, Any]]) -> None:
        self.actions.append({'resume': 'resumed', 'pause': 'paused', 'stop': 'stopped', 'restart': 'restarted'}[action])
        if action == 'restart':
            self.restart_with_tasks(status, only_failed=False)
        elif not self.check_mode:
            getattr(self.client, action)(self.name)

    def restart_failed_units(self, status: Optional[Dict[str, Any]]) -> None:
        self.actions.append('restarted failed')
        self.restart_with_tasks(status, only_failed=True)

    def restart_with_tasks(self, status: Optional[Dict[str, Any]], only_failed: bool) -> None:
        """One request from 3.0 on; before, the worker ignores includeTasks and onlyFailed, so each unit is
        restarted on its own (the degradation is reported in check mode too)."""
        if not self.worker().supports(RESTART_INCLUDE_TASKS):
            self.degrade(RESTART_INCLUDE_TASKS)
            if not self.check_mode:
                self.restart_one_by_one(status or {}, only_failed)
        elif not self.check_mode:
            self.client.restart(self.name, include_tasks=True, only_failed=only_failed)

    def restart_one_by_one(self, status: Dict[str, Any], only_failed: bool) -> None:
        """The connector, then each task (or only the failed ones), with the task ids of `status`."""
        if not only_failed or connector_state(status) == 'FAILED':
            self.client.restart(self.name)
        for task in status.get('tasks') or []:
            if only_failed and task.get('state') != 'FAILED':
                continue
            try:
                self.client.restart_task(self.name, int(task['id']))
            except ConnectApiError as exc:
                # The connector's restart may have reconfigured its tasks: a task gone is not restarted.
                if exc.status != 404:
                    raise

    def ensure_run_state(self, just_created: bool) -> Optional[Dict[str, Any]]:
        """Apply pause/resume/stop/restart as needed, then wait; returns the last status read."""
        status = self.read_status(just_created)
        transition = self.planned_transition(connector_state(status), just_created)
        if transition:
            self.apply_transition(transition, status)
        restarting = self.wants_failed_restart(status)
        if restarting:
            self.restart_failed_units(status)
        if self.state not in WAITED_STATES or not self.params['wait'] or status is None:
            return status
        if self.check_mode:
            # Nothing moves in check mode: predict only what the current status already tells.
            if not transition and not restarting:
                self.fail_on_failures(status, set())
            return status
        # Units failed before a restart may still read FAILED until the restart reaches them.
        pending_restart = {label for label, _unit in failed_units(status)} if restarting or transition == 'restart' else set()
        return self.wait_for(TARGET_STATES[self.run_state], pending_restart)

    def fail_on_failures(self, status: Dict[str, Any], pending_restart: Set[str]) -> None:
        """FAILED units fail the module, except tasks of a paused connector and units still being restarted."""
        failures = [(label, unit) for label, unit in failed_units(status) if label not in pending_restart]
        if self.run_state == 'paused':
            for label, unit in failures:
                if label != 'connector':
                    self.module.warn('connector %s: %s stays FAILED while paused: %s' % (self.name, label, trace_summary(unit.get('trace'))))
            failures = [(label, unit) for label, unit in failures if label == 'connector']
        if failures:
            self.module.fail_json(msg='connector %s: %s' % (self.name, describe_failures(failures)), status=status, actions=self.actions,
                                  degraded=self.degraded)

    def wait_for(self, target: str, pending_restart: Set[str]) -> Dict[str, Any]:
        """Poll /status until `target` is reached; units just restarted may still show FAILED for a while."""
        deadline = time.monotonic() + self.params['wait_timeout']
        while True:
            status = self.client.get_status(self.name) or {}
            # A restarted unit counts as failed again only once it has left FAILED (or time is up).
            left_failed = {label for label, unit in status_units(status) if unit.get('state') != 'FAILED'} if status else set()
            pending_restart = set() if time.monotonic() >= deadline else pending_restart - left_failed
            self.fail_on_failures(status, pending_restart)
            if status and target_reached(status, target):
                return status
            if time.monotonic() >= deadline:
                self.module.fail_json(
                    msg='connector %s: timed out after %ss waiting for %s; last status: %s'
                    % (self.name, self.params['wait_timeout'], target, describe_status(status)),
                    status=status, actions=self.actions, degraded=self.degraded,
                )
            time.sleep(self.params['poll_interval'])

    # ---- entry points ----------------------------------------------------

    def ensure_absent(self, stored: Optional[Dict[str, str]]) -> Dict[str, Any]:
        before: Dict[str, Any] = {}
        if stored is not None:
            before = self.diff_view(stored, connector_state(self.client.get_status(self.name)))
            if not self.check_mode:
                self.client.delete(self.name)
            self.actions.append('deleted')
        return self.result(None, None, before, {})

    def ensure_present(self, stored: Optional[Dict[str, str]], desired: Optional[Dict[str, str]]) -> Dict[str, Any]:
        if stored is None and desired is None:
            raise ConfigError('connector %s does not exist; give config to create it' % self.name)
        status_before = self.client.get_status(self.name) if stored is not None else None
        config_after, changes = self.ensure_config(stored, desired)
        status_after = self.ensure_run_state(just_created=stored is None)
        before = self.diff_view(stored, connector_state(status_before)) if stored is not None else {}
        after = self.diff_view(config_after, self.predicted_state(status_before, status_after), (changes or {}).get('changed', []))
        result = self.result(config_after, status_after, before, after)
        if changes is not None:
            result['config_changes'] = changes
        return result

    def predicted_state(self, status_before: Optional[Dict[str, Any]], status_after: Optional[Dict[str, Any]]) -> Optional[str]:
        if self.run_state in TARGET_STATES:
            return TARGET_STATES[self.run_state]
        return connector_state(status_after) or connector_state(status_before) or 'RUNNING'

    def run(self) -> Dict[str, Any]:
        self.hide_given_secrets()
        desired = self.desired_config() if self.state != 'absent' else None
        self.choose_run_state()
        stored = self.client.get_config(self.name)
        self.hide_secrets(stored)
        if self.state == 'absent':
            return self.ensure_absent(stored)
        return self.ensure_present(stored, desired)

    # ---- output ----------------------------------------------------------

    def diff_view(self, config: Optional[Dict[str, str]], state: Optional[str], changed: Iterable[str] = ()) -> Dict[str, Any]:
        """The config with its secrets masked; a secret that changes reads so, since both sides show the mask."""
        masked = mask_config(config, self.secret_keys)
        for key in changed:
            if masked.get(key) == MASK:
                masked[key] = MASK + ' (changed)'
        return {'name': self.name, 'state': state, 'config': masked}

    def result(self, config: Optional[Dict[str, str]], status: Optional[Dict[str, Any]], before: Dict[str, Any], after: Dict[str, Any]) -> Dict[str, Any]:
        result: Dict[str, Any] = {
            'changed': bool(self.actions),
            'name': self.name,
            'config': mask_config(config, self.secret_keys),
            'status': status,
            'actions': self.actions,
            'degraded': self.degraded,
        }
        if self.module._diff:
            result['diff'] = {'before': before, 'after': after}
        return result


def validation_errors(report: Dict[str, Any]) -> Dict[str, List[str]]:
    """Field name -> error messages from a /config/validate answer."""
    errors: Dict[str, List[str]] = {}
    for entry in report.get('configs') or []:
        value = entry.get('value') or {}
        if value.get('errors'):
            errors[str(value.get('name'))] = [str(message) for message in value['errors']]
    return errors


def logged_params(params: Dict[str, Any]) -> Dict[str, Any]:
    """The parameters as the host's journal gets them: the config with its secrets masked, as in the diff."""
    return {**params, 'config': mask_config_document(params.get('config'), params.get('secret_keys') or [])}


def main() -> None:
    module = MaskedInvocationModule(argument_spec=argument_spec(), logged_params=logged_params, supports_check_mode=True)
    client = build_client(module)
    manager = ConnectorManager(module, client)
    try:
        result = manager.run()
    except ConfigError as exc:
        module.fail_json(msg='connector %s: %s' % (module.params['name'], exc), actions=manager.actions, degraded=manager.degraded)
    except ConnectApiError as exc:
        fail_api(module, exc, 'connector %s' % module.params['name'], actions=manager.actions, degraded=manager.degraded)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
