# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Secrets written in clear into the MirrorMaker 2 model, where a reference belongs.

Kafka Connect keeps a connector config in clear in its config topic and returns it from
GET /connectors/<name>/config, so the model takes secrets by reference only: a *_file option of a
cluster, or a config provider placeholder (${file:...}, ${directory:...}, ${env:...}) that the workers
resolve when the connector starts. The free-form settings (a cluster's sasl_jaas_config and
client_config, a flow's tuning, client overrides and extra_config) could still carry a literal
password; the plan refuses it before anything changes, unless the operator opted into secrets in
the connector configs (mirrormaker_inline_secrets). No message quotes a value.
"""

from __future__ import annotations

import re
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_config import MASK, is_placeholder, jaas_unescape
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_clusters import SECRET_REFERENCES
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_common import CONNECTOR_KINDS, ModelErrors, deep_merge
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_flow_options import CLIENT_OPTIONS
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_flows import TUNING_OPTIONS, flow_label

INLINE_VARIABLE = 'mirrormaker_inline_secrets'
VALUES_VARIABLE = 'mirrormaker_secret_files'
JAAS_KEY = 'sasl.jaas.config'
# Settings whose whole value is a secret, matched at the end of the key so that prefixed forms
# (source.cluster.ssl.key.password, value.converter.basic.auth.user.info) count too.
SECRET_SETTING_RE = re.compile(
    r'(password|passphrase|\.secret|basic\.auth\.user\.info|bearer\.auth\.token|ssl\.keystore\.key)$', re.IGNORECASE)
# Options of a JAAS line that hold a secret: password=, clientSecret=, ...
JAAS_SECRET_OPTION_RE = re.compile(r'password|passwd|secret', re.IGNORECASE)
# One option of a JAAS line: a quoted value (escapes kept) or a bare word, as Kafka's tokenizer reads them.
JAAS_OPTION_RE = re.compile(r'([A-Za-z_][\w.-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s";]+))')
# The cluster option that takes each password by reference, by the Kafka setting it fills.
REFERENCE_OPTIONS = {setting: file_option for file_option, _key, _default, setting in SECRET_REFERENCES if setting}

# (where, the input's name, Kafka setting, value) of one free-form setting of the model.
Setting = Tuple[str, str, str, Any]


def as_text(value: Any) -> Optional[str]:
    """A scalar as Connect would store it; None for what cannot be a secret value (other types are refused elsewhere)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    return str(value)


def jaas_literal_options(line: str) -> List[str]:
    """The secret options of a JAAS line whose values are neither empty nor config provider placeholders."""
    found = []
    for name, quoted, bare in JAAS_OPTION_RE.findall(line):
        value = jaas_unescape(quoted) if quoted else bare
        if JAAS_SECRET_OPTION_RE.search(name) and value and not is_placeholder(value):
            found.append(name)
    return found


def literal_secret(key: str, value: Any) -> Optional[str]:
    """What of a setting is a secret given in clear ('password=', 'its value'); None when nothing is."""
    text = as_text(value)
    if not text or is_placeholder(text):
        return None
    if key.lower().endswith(JAAS_KEY):
        options = jaas_literal_options(text)
        return ', '.join('%s=' % name for name in options) or None
    return 'its value' if SECRET_SETTING_RE.search(key) else None


def masked_literals(config: Mapping[str, str]) -> Dict[str, str]:
    """The config with every value that holds a literal secret masked (what the plan may show)."""
    return {key: MASK if literal_secret(key, value) else value for key, value in config.items()}


def settings_of(where: str, origin: str, settings: Any, prefix: str = '') -> Iterator[Setting]:
    if isinstance(settings, Mapping):
        for key, value in settings.items():
            yield where, '%s %s' % (origin, key), prefix + str(key), value


def cluster_settings(alias: str, cluster: Mapping[str, Any]) -> Iterator[Setting]:
    """The free-form settings of one cluster: its JAAS line and client_config."""
    where = 'cluster %s' % alias
    yield where, 'sasl_jaas_config', JAAS_KEY, cluster.get('sasl_jaas_config')
    yield from settings_of(where, 'client_config', cluster.get('client_config'))


def flow_settings(where: str, flow: Mapping[str, Any]) -> Iterator[Setting]:
    """The free-form settings of one flow (merged over its defaults): tuning, client overrides, extra_config."""
    for option in TUNING_OPTIONS:
        yield from settings_of(where, option, flow.get(option))
    for option, (_kind, clients) in CLIENT_OPTIONS.items():
        given = flow.get(option)
        for client in clients:
            yield from settings_of(where, '%s.%s' % (option, client), given.get(client) if isinstance(given, Mapping) else None)
    extra = flow.get('extra_config')
    for kind in CONNECTOR_KINDS:
        yield from settings_of(where, 'extra_config.%s' % kind, extra.get(kind) if isinstance(extra, Mapping) else None)


def model_settings(request: Mapping[str, Any]) -> Iterator[Setting]:
    """Every free-form setting of the clusters and flows of a (normalised) plan request."""
    for alias, cluster in sorted(request['clusters'].items()):
        if isinstance(cluster, Mapping):
            yield from cluster_settings(str(alias), cluster)
    defaults = deep_merge(request['builtin_defaults'], request['site_defaults'])
    for index, given in enumerate(request['flows']):
        if isinstance(given, Mapping):
            yield from flow_settings(flow_label(index, given), deep_merge(defaults, given))


def how_to_refer(origin: str, key: str, secrets_dir: str) -> str:
    """How the setting takes its secret by reference instead."""
    placeholder = '${file:%s/<file>:<key>}' % secrets_dir.rstrip('/')
    if origin == 'sasl_jaas_config':
        return ('Give the password as %s inside the quotes (the value in %s), or use sasl_username with '
                'sasl_password_file (PLAIN, SCRAM) or sasl_jaas_config_file (the whole line from a secret file)'
                % (placeholder, VALUES_VARIABLE))
    if origin.startswith('client_config ') and key in REFERENCE_OPTIONS:
        return 'Use the cluster option %s instead (a file in %s, the value in %s)' % (
            REFERENCE_OPTIONS[key], secrets_dir, VALUES_VARIABLE)
    return 'Give it as %s (the value in %s)' % (placeholder, VALUES_VARIABLE)


def literal_secrets(request: Mapping[str, Any]) -> List[Tuple[str, str, str, str]]:
    """(where, the input's name, Kafka setting, what is in clear) of each free-form setting of a normalised
    plan request that holds a secret in clear."""
    found = []
    for where, origin, key, value in model_settings(request):
        what = literal_secret(key, value)
        if what:
            found.append((where, origin, key, what))
    return found


def check_literal_secrets(request: Mapping[str, Any], inline: bool, errors: ModelErrors) -> List[str]:
    """Refuse secrets in clear, naming each setting and how to refer to its secret instead; opted in
    (mirrormaker_inline_secrets), accept them with a warning each."""
    found = literal_secrets(request)
    if inline:
        return ['%s: %s: %s gives %s in clear, which Kafka Connect stores in its config topic' % (
            INLINE_VARIABLE, where, origin, what) for where, origin, _key, what in found]
    for where, origin, key, what in found:
        errors.add(where, '%s gives %s in clear, which Kafka Connect would store in its config topic and return from '
                   'GET /connectors/<name>/config. %s; or set %s: true to accept secrets in the connector configs' % (
                       origin, what, how_to_refer(origin, key, request['secrets_dir']), INLINE_VARIABLE))
    return []
