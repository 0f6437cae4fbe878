# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What role mirrormaker reads back from the results it registers.

Logic behind the filters mm2_rotated_files, mm2_written_connectors, mm2_missing_secret_files,
mm2_connectors_settled, mm2_topics_present and mm2_topic_descriptions. A result is read as the
role's Jinja read it: a task that was skipped (or, passed as an empty mapping, not run) reports
nothing. Errors are ValueError; the filters turn them into AnsibleFilterError.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Dict, List, Mapping, Sequence

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_topic_configs import topic_names
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.registered_results import dotted, outputs_by_item

# What a connector status that has not been read counts as missing: it is not settled.
NOT_READ = ('not read yet',)
# Entries flatten drops from the connectors' task lists.
NULLS = (None, 'None', 'null')


def mapping(value: Any, what: str) -> Mapping[str, Any]:
    """The value, refused unless a mapping: a malformed result fails the task rather than reading as empty."""
    if not isinstance(value, Mapping):
        raise ValueError('%s must be a mapping, got %s' % (what, type(value).__name__))
    return value


def sequence(value: Any, what: str) -> Sequence[Any]:
    """The value, refused unless a list (a string is not one)."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise ValueError('%s must be a list, got %s' % (what, type(value).__name__))
    return value


def loop_results(registered: Any, what: str) -> List[Mapping[str, Any]]:
    """The results of a looped task; none when it was skipped or did not run."""
    results = sequence(mapping(registered, what).get('results', []), '%s.results' % what)
    return [mapping(result, 'each of %s.results' % what) for result in results]


def changed_items(registered: Any, path: str, what: str) -> List[Any]:
    """The value at ``path`` of each result of a looped task that changed something."""
    return [dotted(result, path) for result in loop_results(registered, what) if result.get('changed')]


def rotated_files(secret_writes: Any, early_secret_writes: Any, keytab_writes: Any) -> List[Any]:
    """Names of the secret files and keytabs this run rewrote, each once: their connectors restart to read them."""
    names: List[Any] = []
    for registered, what in ((secret_writes, 'secret_writes'), (early_secret_writes, 'early_secret_writes')):
        paths = sequence(mapping(registered, what).get('changed_paths', []), '%s.changed_paths' % what)
        names.extend(posixpath.basename(str(path)) for path in paths)
    names.extend(changed_items(keytab_writes, 'item.key', 'keytab_writes'))
    return list(dict.fromkeys(names))


def managed_secret_paths(secrets_dir: Any, secret_files: Any, keytab_files: Any) -> List[str]:
    """The paths of the files the role writes into the secrets directory."""
    prefix = re.sub('/+$', '', str(secrets_dir)) + '/'
    names = list(mapping(secret_files, 'secret_files')) + list(mapping(keytab_files, 'keytab_files'))
    return [prefix + str(name) for name in names]


def missing_secret_files(path_info: Any, secrets_dir: Any, secret_files: Any, keytab_files: Any, check_mode: Any) -> List[Any]:
    """The secret files path_info found missing; in check mode, not those the run would have written."""
    missing = sequence(mapping(path_info, 'path_info').get('missing', []), 'path_info.missing')
    if not check_mode:
        return list(missing)
    managed = managed_secret_paths(secrets_dir, secret_files, keytab_files)
    return [path for path in missing if path not in managed]


def connector_tasks(entry: Mapping[str, Any]) -> Any:
    """The tasks of a connector's status as connector_info reported them (None when it did not)."""
    status = entry.get('status')
    return status.get('tasks') if isinstance(status, Mapping) else None


def state(unit: Any, what: str) -> Any:
    """The state connector_info reports for a connector or task; without one the status is not what it reads."""
    if 'state' not in mapping(unit, what):
        raise ValueError('%s has no state' % what)
    return unit['state']


def task_states(entry: Mapping[str, Any], name: str) -> List[Any]:
    """The state of each task of a connector; null entries are left out, as flatten leaves them."""
    tasks = connector_tasks(entry)
    if tasks is None:
        return []
    what = 'a task of connector %s' % name
    return [state(task, what) for task in sequence(tasks, 'the tasks of connector %s' % name) if task not in NULLS]


def unit_states(connectors: Mapping[str, Mapping[str, Any]]) -> List[Any]:
    """The state of each connector, then of each of their tasks."""
    states = [state(entry, 'connector %s' % name) for name, entry in connectors.items()]
    return states + [task for name, entry in connectors.items() for task in task_states(entry, name)]


def taskless_connectors(connectors: Mapping[str, Mapping[str, Any]], min_tasks: Mapping[str, Any]) -> List[str]:
    """The connectors expected to run a task that have none (a checkpoint connector may have none)."""
    for name, count in min_tasks.items():
        if isinstance(count, bool) or not isinstance(count, int):
            raise ValueError('min_tasks of %s must be a number, got %s' % (name, type(count).__name__))
    with_tasks = [name for name, entry in connectors.items() if connector_tasks(entry)]
    return [name for name, count in min_tasks.items() if count > 0 and name not in with_tasks]


def connectors_settled(status: Any, min_tasks: Any) -> Dict[str, Any]:
    """Whether every connector was found and it and its tasks run, with what the role reports when not."""
    read = mapping(status, 'status')
    connectors = {name: mapping(entry, 'connector %s' % name)
                  for name, entry in mapping(read.get('connectors', {}), 'status.connectors').items()}
    missing = sequence(read.get('missing', NOT_READ), 'status.missing')
    states = unit_states(connectors)
    taskless = taskless_connectors(connectors, mapping(min_tasks, 'min_tasks'))
    settled = len(missing) == 0 and all(state == 'RUNNING' for state in states) and not taskless
    return {'settled': settled, 'states': states, 'taskless': taskless, 'connectors': connectors}


def topics_present(results: Any, source_topics: Any) -> Dict[Any, Any]:
    """The topics each cluster holds: what the topic check showed, else the source cluster's listing."""
    present = dict(mapping(source_topics, 'source_topics'))
    for result in (mapping(entry, 'each result') for entry in sequence(results, 'results')):
        if 'stdout' in result:
            if not isinstance(result['stdout'], str):
                raise ValueError('the stdout of a result must be a string, got %s' % type(result['stdout']).__name__)
            present[dotted(result, 'item.key')] = topic_names(result['stdout'])
    return present


def topic_descriptions(results: Any) -> Dict[Any, Any]:
    """The outputs of the topic tool runs that succeeded, by cluster alias (``item.key``)."""
    read = [mapping(result, 'each result') for result in sequence(results, 'results')]
    return outputs_by_item([result for result in read if 'stdout' in result and result.get('rc') == 0], 'item.key')
