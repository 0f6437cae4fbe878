# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the secrets of the planned connector configs reach MM2's clients on the target Connect cluster.

The model renders every secret as a ${file:<secrets_dir>/<file>:<key>} placeholder, which a
FileConfigProvider named ``file`` on the workers resolves when a connector starts (role
connect_worker configures one). A Connect cluster the collection did not build may have none:
Connect would then hand the placeholders to the Kafka clients as they are, and the logins would
fail late and obscurely. So the plan is told which config providers the workers declare
(mirrormaker_connect_config_providers) and refuses, naming the settings that need secrets, when
the placeholders have no FileConfigProvider to resolve them.

The operator may opt out of providers (mirrormaker_inline_secrets): the values of
mirrormaker_secret_files then go into the connector configs themselves, JAAS-escaped where a
placeholder sat inside the quotes of a JAAS line, exactly as the FileConfigProvider would have
resolved them from the files the role writes. Connect keeps them in clear in its config topic,
which the plan says in a warning. The plan keeps the placeholder configs in its connectors, and
gives the configs with the values apart (inline_configs), with the keys that hold them
(secret_keys), so that the modules mask those keys and nothing else of the plan holds a secret.
Secrets the model itself gives in clear, accepted only with the same opt-in (mm2_literal_secrets.py),
are masked in the plan's connectors and kept in inline_configs alike.
No message of this module ever quotes a secret value.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Dict, List, Mapping, Optional, Set, Tuple

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_values import connect_string
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_clients import jaas_escape, jaas_quoted_values
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_clusters import (
    FILE_CONFIG_PROVIDER,
    FILE_PLACEHOLDER_RE,
    placeholders_in,
    relative_to,
    secret_files_in,
    secret_path,
)
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_common import ModelErrors
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_literal_secrets import masked_literals

PROVIDERS_VARIABLE = 'mirrormaker_connect_config_providers'
INLINE_VARIABLE = 'mirrormaker_inline_secrets'
VALUES_VARIABLE = 'mirrormaker_secret_files'
# The provider the placeholders name: ${file:path:key}.
FILE_PROVIDER_NAME = 'file'
PROVIDER_OPTIONS = ('name', 'class', 'allowed_paths')
# config.providers is a comma-separated list, and a placeholder ends the name at its first colon.
PROVIDER_NAME_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.-]*$')
JAVA_CLASS_RE = re.compile(r'^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$')
# What the plan assumes when it is not told: the provider role connect_worker configures.
DEFAULT_PROVIDERS = ({'name': FILE_PROVIDER_NAME, 'class': FILE_CONFIG_PROVIDER},)


class Provider:
    """One config provider of the workers: its name, class and the paths it may read (None: any)."""

    def __init__(self, name: str, class_name: str, allowed_paths: Optional[List[str]]) -> None:
        self.name = name
        self.class_name = class_name
        self.allowed_paths = allowed_paths

    def is_file_provider(self) -> bool:
        return self.class_name == FILE_CONFIG_PROVIDER

    def may_read(self, path: str) -> bool:
        """Kafka's allowed.paths: the file must lie in (or be) one of them."""
        if self.allowed_paths is None:
            return True
        return any(path == allowed or path.startswith(allowed.rstrip('/') + '/') for allowed in self.allowed_paths)


def allowed_paths_of(where: str, value: Any, errors: ModelErrors) -> Optional[List[str]]:
    """A list of absolute paths, or one comma-separated string as the worker property spells it."""
    if value is None:
        return None
    entries = [entry.strip() for entry in value.split(',')] if isinstance(value, str) else value
    if not isinstance(entries, list) or not all(isinstance(entry, str) and entry.startswith('/') for entry in entries) or not entries:
        errors.add(where, 'allowed_paths must be a non-empty list of absolute paths (or one comma-separated string), got %r' % (value,))
        return None
    return [posixpath.normpath(entry) for entry in entries]


def check_providers(value: Any, errors: ModelErrors) -> List[Provider]:
    """The declared config providers of the workers, every problem reported."""
    if value is None:
        value = [dict(provider) for provider in DEFAULT_PROVIDERS]
    if not isinstance(value, list):
        errors.add(PROVIDERS_VARIABLE, 'must be a list of providers, each with a name and a class (an empty list: none)')
        return []
    providers: List[Provider] = []
    for index, entry in enumerate(value):
        where = '%s #%d' % (PROVIDERS_VARIABLE, index + 1)
        if not isinstance(entry, Mapping):
            errors.add(where, 'must be a mapping with name, class and optionally allowed_paths, got %r' % (entry,))
            continue
        unknown = sorted(str(key) for key in entry if key not in PROVIDER_OPTIONS)
        if unknown:
            errors.add(where, 'unknown option(s) %s; known: %s' % (', '.join(unknown), ', '.join(PROVIDER_OPTIONS)))
        name, class_name = entry.get('name'), entry.get('class')
        if not isinstance(name, str) or not PROVIDER_NAME_RE.match(name):
            errors.add(where, 'name must be the provider\'s name in config.providers (letters, digits, ".", "_", "-"), got %r' % (name,))
            continue
        if not isinstance(class_name, str) or not JAVA_CLASS_RE.match(class_name.strip()):
            errors.add(where, 'class must be the Java class of config.providers.%s.class, got %r' % (name, class_name))
            continue
        if name in [provider.name for provider in providers]:
            errors.add(where, 'provider %s is declared twice' % name)
            continue
        providers.append(Provider(name, class_name.strip(), allowed_paths_of(where, entry.get('allowed_paths'), errors)))
    return providers


def check_secret_values(values: Any, errors: ModelErrors) -> Dict[str, Dict[str, str]]:
    """mirrormaker_secret_files as the inline values: file name -> key -> string (the values are never quoted)."""
    if values is None:
        return {}
    if not isinstance(values, Mapping):
        errors.add(VALUES_VARIABLE, 'must map file names to mappings of key -> secret value')
        return {}
    checked: Dict[str, Dict[str, str]] = {}
    for name, settings in values.items():
        if not isinstance(settings, Mapping):
            errors.add(VALUES_VARIABLE, 'file %s must be a mapping of key -> secret value' % name)
            continue
        checked[str(name)] = {}
        for key, value in settings.items():
            try:
                checked[str(name)][str(key)] = connect_string(value)
            except TypeError:
                errors.add(VALUES_VARIABLE, 'file %s, key %s: a secret must be a string or a number (not shown here)' % (name, key))
    return checked


def values_by_path(secrets_dir: str, values: Mapping[str, Mapping[str, str]]) -> Dict[Tuple[str, str], str]:
    """(path, key) of each placeholder mirrormaker_secret_files answers -> its value, as the worker's file holds it."""
    return {(secret_path(secrets_dir, name), key): value for name, settings in values.items() for key, value in settings.items()}


def jaas_read(key: str, value: str) -> Set[Tuple[str, str]]:
    """(path, key) of the placeholders inside the quotes of a JAAS line: Kafka parses what they resolve to."""
    if not key.endswith('sasl.jaas.config'):
        return set()
    return set().union(*(placeholders_in(text) for text in jaas_quoted_values(value)))


def inline_value(key: str, value: str, known: Mapping[Tuple[str, str], str]) -> str:
    """The value with every placeholder that `known` answers replaced by the secret, JAAS-escaped inside a JAAS line's quotes."""
    in_jaas = jaas_read(key, value)

    def resolved(match: 're.Match[str]') -> str:
        reference = (match.group(1), match.group(2))
        if reference not in known:
            return match.group(0)
        return jaas_escape(known[reference]) if reference in in_jaas else known[reference]
    return FILE_PLACEHOLDER_RE.sub(resolved, value)


def describe_readers(readers: Set[Tuple[str, str]]) -> str:
    """'cluster src (sasl.jaas.config); connector mm2-x-source (consumer.foo)', grouped and sorted."""
    grouped: Dict[str, Set[str]] = {}
    for owner, setting in readers:
        grouped.setdefault(owner, set()).add(setting)
    return '; '.join('%s (%s)' % (owner, ', '.join(sorted(settings))) for owner, settings in sorted(grouped.items()))


def reader_of(flow: Mapping[str, Any], connector: Mapping[str, Any], key: str, value: str,
              connections: Mapping[str, Mapping[str, str]]) -> Tuple[str, str]:
    """Who needs a setting's secret: the cluster whose connection setting it is, else the connector itself.

    source.cluster.* is the flow's source; target.cluster.* and producer.override.* are the cluster the
    connector writes into (the heartbeat connector's may be the source)."""
    written = flow.get('heartbeats_cluster') if connector.get('kind') == 'heartbeat' else flow['target']
    for prefix, alias in (('source.cluster.', flow['source']), ('target.cluster.', written), ('producer.override.', written)):
        setting = key[len(prefix):]
        if key.startswith(prefix) and connections.get(str(alias), {}).get(setting) == value:
            return 'cluster %s' % alias, setting
    return 'connector %s' % connector['name'], key


def worker_properties(providers: List[Provider], secrets_dir: str) -> str:
    """The three worker properties of a FileConfigProvider named file, config.providers keeping the others."""
    names = [provider.name for provider in providers if provider.name != FILE_PROVIDER_NAME] + [FILE_PROVIDER_NAME]
    return 'config.providers=%s, config.providers.file.class=%s, config.providers.file.param.allowed.paths=%s' % (
        ','.join(names), FILE_CONFIG_PROVIDER, posixpath.normpath(secrets_dir))


def provider_problem(providers: List[Provider], paths: Set[str]) -> Optional[str]:
    """Why the workers' providers cannot resolve ${file:...} placeholders of these files; None when they can."""
    declared = ', '.join('%s (%s)' % (provider.name, provider.class_name) for provider in providers) or 'none'
    named = next((provider for provider in providers if provider.name == FILE_PROVIDER_NAME), None)
    if named is None:
        others = [provider.name for provider in providers if provider.is_file_provider()]
        renamed = ('; the FileConfigProvider they declare as %s is not the one the placeholders name' % ', '.join(others)
                   if others else '')
        return 'the workers of this Connect cluster declare no FileConfigProvider named %s (declared: %s%s)' % (
            FILE_PROVIDER_NAME, declared, renamed)
    if not named.is_file_provider():
        return 'provider %s of the workers is %s, not a FileConfigProvider' % (FILE_PROVIDER_NAME, named.class_name)
    barred = sorted(path for path in paths if not named.may_read(path))
    if barred:
        return 'the workers\' FileConfigProvider %s may only read %s (allowed_paths), not %s' % (
            FILE_PROVIDER_NAME, ', '.join(named.allowed_paths or []), ', '.join(barred))
    return None


class SecretSources:
    """Where the secrets of the planned connectors come from: the workers' provider, or the configs themselves."""

    def __init__(self, request: Mapping[str, Any], errors: ModelErrors) -> None:
        self.secrets_dir = str(request['secrets_dir'])
        self.providers = check_providers(request.get('config_providers'), errors)
        inline = request.get('inline_secrets') or False
        if not isinstance(inline, bool):
            errors.add(INLINE_VARIABLE, 'must be true or false, got %r' % (inline,))
            inline = False
        self.inline: bool = inline
        given = check_secret_values(request.get('secret_values'), errors) if inline else {}
        self.known = values_by_path(self.secrets_dir, given)

    def apply(self, flows: List[Dict[str, Any]], connections: Mapping[str, Mapping[str, str]],
              errors: ModelErrors) -> Dict[str, Any]:
        """Put the values in where asked (each connector gets secret_keys, and the files its deployed config reads)
        and refuse placeholders nothing resolves. Returns inline_configs and the warnings."""
        inline_configs: Dict[str, Dict[str, str]] = {}
        unresolved: Dict[Tuple[str, str], Set[Tuple[str, str]]] = {}
        for flow in flows:
            for connector in flow['connectors']:
                deployed = self.deployed_config(connector)
                if self.inline:
                    # Secrets the model gave in clear (accepted when opted in) stay in inline_configs only.
                    connector['config'] = masked_literals(connector['config'])
                connector['secret_keys'] = sorted(key for key in deployed if deployed[key] != connector['config'][key])
                if connector['secret_keys']:
                    inline_configs[connector['name']] = deployed
                    connector['secret_files'] = secret_files_in(deployed)
                    connector['secret_file_names'] = relative_to(self.secrets_dir, connector['secret_files'])
                for key, value in deployed.items():
                    for reference in placeholders_in(value):
                        unresolved.setdefault(reference, set()).add(reader_of(flow, connector, key, connector['config'][key], connections))
        if unresolved:
            self.refuse(unresolved, errors)
        return {'inline_configs': inline_configs, 'warnings': self.warnings(inline_configs)}

    def deployed_config(self, connector: Mapping[str, Any]) -> Dict[str, str]:
        config = connector['config']
        if not self.inline:
            return dict(config)
        return {key: inline_value(key, value, self.known) for key, value in config.items()}

    def refuse(self, unresolved: Mapping[Tuple[str, str], Set[Tuple[str, str]]], errors: ModelErrors) -> None:
        problem = provider_problem(self.providers, {path for path, _key in unresolved})
        if problem is None:
            return
        readers = describe_readers(set().union(*unresolved.values()))
        properties = worker_properties(self.providers, self.secrets_dir)
        if self.inline:
            missing = ', '.join('%s:%s' % (relative_to(self.secrets_dir, [path])[0], key) for path, key in sorted(unresolved))
            errors.add(INLINE_VARIABLE, 'the values come from %s, which lacks %s, read by %s; nor can the workers read them '
                       'from their files: %s. Add them to %s, or configure a FileConfigProvider on every worker (%s), '
                       'restart the workers and declare it in %s' % (
                           VALUES_VARIABLE, missing, readers, problem, VALUES_VARIABLE, properties, PROVIDERS_VARIABLE))
            return
        errors.add(PROVIDERS_VARIABLE, 'the connector configs read secrets through ${file:...} placeholders, needed by %s; '
                   'but %s, so Kafka Connect would hand the placeholders to the Kafka clients as they are and the logins '
                   'would fail. Either configure a FileConfigProvider on every worker (%s), restart the workers and declare '
                   'it in %s, or set %s: true to put the values of %s into the connector configs themselves (Kafka Connect '
                   'then keeps them in clear in its config topic)' % (
                       readers, problem, properties, PROVIDERS_VARIABLE, INLINE_VARIABLE, VALUES_VARIABLE))

    @staticmethod
    def warnings(inline_configs: Mapping[str, Any]) -> List[str]:
        if not inline_configs:
            return []
        return ['%s: the configs of %s hold the secret values themselves (from %s). Kafka Connect stores connector configs '
                'in clear in its config topic (config.storage.topic) and returns them from GET /connectors/<name>/config: '
                'whoever reads that topic or that endpoint reads the secrets. A FileConfigProvider on the workers (%s) '
                'keeps them in files instead' % (INLINE_VARIABLE, ', '.join(sorted(inline_configs)), VALUES_VARIABLE,
                                                 PROVIDERS_VARIABLE)]
