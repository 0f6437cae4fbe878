# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Jars role connect_worker installs from the controller (connect_worker_plugin_jars).

Logic behind the filters connect_worker_plugin_jars (where each jar goes on a worker, and the class path entries the
unit adds) and connect_worker_plugin_jar_errors (the checks before anything changes: each entry well formed, each jar
on the controller with the SHA-256 it was given, and with plugin.discovery service_load, each plugin directory
holding a ServiceLoader manifest Connect reads).

Where a jar goes: a Connect plugin (a connector, converter, transformation, predicate, config provider, REST
extension or client config override policy) in its own directory under plugin.path, isolated in a plugin class
loader. A class a connector only loads by name, such as MirrorMaker 2's replication.policy.class, is not a Connect
plugin type: Connect never registers it, and the connector resolves it through its own class loader (the thread's
context loader while the connector and its tasks start). The MM2 connectors of a Kafka distribution are in libs/,
on the worker's class path, so their loader is Connect's delegating loader, which hands any name that is not a
registered plugin to the application class loader: the jar must be on the worker's class path (classpath: true).
A jar in a directory of its own under plugin.path is seen by no loader MM2 asks.
"""

from __future__ import annotations

import os
import re
import zipfile
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.role_rules import NOTHING_CHANGED, jinja_bool, jinja_text, kafka_release, require_settings

VARIABLE = 'connect_worker_plugin_jars'
JAR_KEYS = ('src', 'sha256', 'name', 'classpath')
_SHA256 = re.compile(r'^[0-9a-fA-F]{64}$')
_NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._-]*$')
# The types Connect finds through ServiceLoader manifests (META-INF/services/<type>) with plugin.discovery
# service_load: its PluginType list.
PLUGIN_SERVICES = (
    'org.apache.kafka.connect.source.SourceConnector',
    'org.apache.kafka.connect.sink.SinkConnector',
    'org.apache.kafka.connect.storage.Converter',
    'org.apache.kafka.connect.storage.HeaderConverter',
    'org.apache.kafka.connect.transforms.Transformation',
    'org.apache.kafka.connect.transforms.predicates.Predicate',
    'org.apache.kafka.common.config.provider.ConfigProvider',
    'org.apache.kafka.connect.rest.ConnectRestExtension',
    'org.apache.kafka.connect.connector.policy.ConnectorClientConfigOverridePolicy',
)
# plugin.discovery (KIP-898) exists from Kafka 3.6; older workers scan every class and ignore it.
DISCOVERY_SINCE = (3, 6)
# Owner, group mode of what the role lays down: root owns it, the service's group reads it.
DIRECTORY_MODE = '0750'
FILE_MODE = '0640'


def _entries(jars: Any) -> List[Mapping[str, Any]]:
    if not isinstance(jars, Sequence) or isinstance(jars, (str, bytes)):
        raise ValueError('%s must be a list of {src, sha256, name, classpath}, got %s' % (VARIABLE, type(jars).__name__))
    return list(jars)


def _where(index: int, jar: Any) -> str:
    src = jinja_text(jar.get('src')) if isinstance(jar, Mapping) else ''
    return '%s[%d]%s' % (VARIABLE, index, ' (%s)' % src if src else '')


def _entry_errors(index: int, jar: Any) -> List[str]:
    """What is wrong with one entry itself, each message naming it."""
    where = _where(index, jar)
    if not isinstance(jar, Mapping):
        return ['%s must be a mapping with src and sha256.' % where]
    errors = ['%s has unknown key %s.' % (where, key) for key in sorted(set(jar) - set(JAR_KEYS))]
    src = jinja_text(jar.get('src')).strip()
    if not src.startswith('/') or not src.endswith('.jar'):
        errors.append("%s: src must be the absolute path of a .jar file on the controller, got '%s'." % (where, src))
    if not _SHA256.match(jinja_text(jar.get('sha256')).strip()):
        errors.append("%s: sha256 must be the jar's SHA-256 in 64 hexadecimal digits, got '%s'." % (where, jinja_text(jar.get('sha256'))))
    name = _name(jar)
    if not _NAME.match(name) or name in ('.', '..'):
        errors.append("%s: the directory name '%s' may only hold letters, digits, '.', '_' and '-' (set name)." % (where, name))
    return errors


def _name(jar: Mapping[str, Any]) -> str:
    """The jar's directory: name, else the jar's file name without .jar."""
    name = jinja_text(jar.get('name')).strip()
    if name:
        return name
    base = os.path.basename(jinja_text(jar.get('src')).strip())
    return base[:-len('.jar')] if base.endswith('.jar') else base


def _placed(jar: Mapping[str, Any], plugin_dir: str, classpath_dir: str) -> Tuple[str, str, bool]:
    """The jar's directory on the worker, its path there, and whether it is on the class path."""
    on_classpath = jinja_bool(jar.get('classpath', False))
    directory = '%s/%s' % ((classpath_dir if on_classpath else plugin_dir).rstrip('/'), _name(jar))
    return directory, '%s/%s' % (directory, os.path.basename(jinja_text(jar.get('src')).strip())), on_classpath


def _layout_errors(jars: List[Any], plugin_dir: str, classpath_dir: str) -> List[str]:
    errors = [error for index, jar in enumerate(jars) for error in _entry_errors(index, jar)]
    if errors:
        return errors
    if plugin_dir.rstrip('/') == classpath_dir.rstrip('/') and any(jinja_bool(jar.get('classpath', False)) for jar in jars):
        errors.append('connect_worker_classpath_dir must not be connect_worker_plugin_dir (%s): Connect would scan the '
                      'class path jars as plugins.' % plugin_dir)
    seen: Dict[str, int] = {}
    for index, jar in enumerate(jars):
        dest = _placed(jar, plugin_dir, classpath_dir)[1]
        if dest in seen:
            errors.append('%s and %s[%d] would both be installed as %s: give one of them another name.'
                          % (_where(index, jar), VARIABLE, seen[dest], dest))
        seen.setdefault(dest, index)
    return errors


def connect_worker_plugin_jars(jars: Any, plugin_dir: str, classpath_dir: str, group: str = 'kafka') -> Dict[str, Any]:
    """Where each jar goes on the worker: directories to create, files to copy, the unit's extra class path entries,
    and the directories that hold the jars (where a jar the list no longer names is removed).

    Refuses (ValueError) entries connect_worker_plugin_jar_errors reports: the role checked them before.
    """
    entries = _entries(jars)
    plugin_dir, classpath_dir = jinja_text(plugin_dir).strip(), jinja_text(classpath_dir).strip()
    errors = _layout_errors(entries, plugin_dir, classpath_dir)
    if errors:
        raise ValueError(' '.join(errors))
    directories: List[Dict[str, str]] = []
    files: List[Dict[str, str]] = []
    classpath: List[str] = []
    jar_directories: List[str] = []

    def directory(path: str) -> None:
        if path not in [known['path'] for known in directories]:
            directories.append({'path': path, 'owner': 'root', 'group': group, 'mode': DIRECTORY_MODE})

    for jar in entries:
        jar_dir, dest, on_classpath = _placed(jar, plugin_dir, classpath_dir)
        if on_classpath:
            directory(classpath_dir.rstrip('/'))
            if '%s/*' % jar_dir not in classpath:
                classpath.append('%s/*' % jar_dir)
        directory(jar_dir)
        if jar_dir not in jar_directories:
            jar_directories.append(jar_dir)
        files.append({'src': jinja_text(jar['src']).strip(), 'dest': dest, 'owner': 'root', 'group': group, 'mode': FILE_MODE})
    return {'directories': directories, 'files': files, 'classpath': classpath, 'jar_directories': jar_directories}


def _manifests(path: str) -> Tuple[Optional[List[str]], str]:
    """The Connect plugin types the jar declares in ServiceLoader manifests, or None and why it could not be read."""
    try:
        with zipfile.ZipFile(path) as jar:
            names = jar.namelist()
    except (OSError, zipfile.BadZipFile) as error:
        return None, str(error)
    return [service for service in PLUGIN_SERVICES if 'META-INF/services/%s' % service in names], ''


def _stat_of(result: Any) -> Mapping[str, Any]:
    stat = result.get('stat') if isinstance(result, Mapping) else None
    return stat if isinstance(stat, Mapping) else {}


# The options of connect_worker_plugin_jar_errors: the jars, the stat results of the controller, and the role's
# settings (without connect_worker_), with the Kafka release of the workers.
JAR_CHECK_OPTIONS = ('jars', 'stats', 'plugin_dir', 'classpath_dir', 'plugin_discovery', 'kafka_version')


def connect_worker_plugin_jar_errors(check: Mapping[str, Any]) -> List[str]:
    """Every reason not to install the jars, each naming the entry, before anything changes.

    stats are the results of ansible.builtin.stat looped over the jars on the controller, in order, with
    get_checksum and checksum_algorithm sha256. With plugin.discovery service_load (Kafka 3.6 and later; an unknown
    version counts as new), each plugin directory needs a jar with a ServiceLoader manifest of a Connect plugin type,
    else the worker would not see the plugin.
    """
    require_settings(check, JAR_CHECK_OPTIONS, 'connect_worker_plugin_jar_errors')
    jars, stat_results = check['jars'], check['stats']
    plugin_dir, classpath_dir = check['plugin_dir'], check['classpath_dir']
    discovery, kafka_version = check['plugin_discovery'], check['kafka_version']
    entries = _entries(jars)
    plugin_dir, classpath_dir = jinja_text(plugin_dir).strip(), jinja_text(classpath_dir).strip()
    errors = _layout_errors(entries, plugin_dir, classpath_dir)
    if errors:
        return ['connect_worker: %s %s' % (error, NOTHING_CHANGED) for error in errors]
    results = stat_results.get('results') if isinstance(stat_results, Mapping) else stat_results
    if not isinstance(results, Sequence) or len(results) != len(entries):
        raise ValueError('connect_worker_plugin_jar_errors expects one stat result per jar (%d), got %s'
                         % (len(entries), len(results) if isinstance(results, Sequence) else type(results).__name__))
    verified: List[Tuple[Mapping[str, Any], str]] = []
    for index, (jar, result) in enumerate(zip(entries, results)):
        src, expected = jinja_text(jar['src']).strip(), jinja_text(jar['sha256']).strip().lower()
        stat = _stat_of(result)
        if not stat.get('exists'):
            errors.append('%s: %s does not exist on the controller.' % (_where(index, jar), src))
        elif not stat.get('isreg'):
            errors.append('%s: %s is not a regular file.' % (_where(index, jar), src))
        elif jinja_text(stat.get('checksum')).lower() != expected:
            errors.append('%s: %s has the SHA-256 %s, not the expected %s.'
                          % (_where(index, jar), src, jinja_text(stat.get('checksum')) or '(none computed)', expected))
        else:
            verified.append((jar, src))
    version = kafka_release(kafka_version)
    if jinja_text(discovery).strip() == 'service_load' and (version is None or version >= DISCOVERY_SINCE):
        errors.extend(_discovery_errors(entries, verified, plugin_dir, classpath_dir))
    return ['connect_worker: %s %s' % (error, NOTHING_CHANGED) for error in errors]


def _discovery_errors(entries: List[Mapping[str, Any]], verified: List[Tuple[Mapping[str, Any], str]],
                      plugin_dir: str, classpath_dir: str) -> List[str]:
    """Plugin directories none of whose verified jars declares a Connect plugin type (only when all were verified)."""
    if len(verified) != len(entries):
        return []
    declared: Dict[str, List[str]] = {}
    errors: List[str] = []
    for jar, src in verified:
        jar_dir, _dest, on_classpath = _placed(jar, plugin_dir, classpath_dir)
        if on_classpath:
            continue
        services, problem = _manifests(src)
        if services is None:
            errors.append('%s is not a readable jar (%s).' % (src, problem))
            continue
        declared.setdefault(jar_dir, []).extend(services)
    for jar_dir, services in declared.items():
        if not services:
            errors.append('no jar of %s declares a Connect plugin in META-INF/services, so with '
                          'connect_worker_plugin_discovery service_load the worker would not see it: add the manifests '
                          "(Kafka's connect-plugin-path sync-manifests), set connect_worker_plugin_discovery to "
                          'hybrid_warn, or, for a class a connector loads by name (MM2\'s replication.policy.class, '
                          'topic.filter.class, group.filter.class), set classpath: true.' % jar_dir)
    return errors
