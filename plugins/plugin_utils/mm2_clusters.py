# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Clusters of the MirrorMaker 2 model (mm2_clusters): checked, and rendered as Kafka client settings.

Secrets are never values of the model: a cluster names a file in the workers' secrets
directory, and its settings carry ${file:...} placeholders that the workers' FileConfigProvider
resolves when a connector starts. A placeholder inside a quoted value of a JAAS line (the SASL
password) is resolved before Kafka parses the line, so the files it reads hold JAAS-escaped
values (jaas_secret_keys names them for the writer).
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Dict, Iterable, List, Mapping, Optional, Set, Tuple

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_clients import jaas_login_line, jaas_quoted_values
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_common import ModelErrors, connect_settings, without_nulls

SECURITY_PROTOCOLS = ('PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL')
# Mechanisms whose login line the model writes from sasl_username and sasl_password_file.
PASSWORD_MECHANISMS = ('PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512')
# Secrets are referenced, never given: (file option, key option, default key, Kafka setting).
# The SASL password has no Kafka setting of its own: it goes into the JAAS line.
SECRET_REFERENCES = (
    ('sasl_password_file', 'sasl_password_key', 'sasl.password', None),
    ('sasl_jaas_config_file', 'sasl_jaas_config_key', 'sasl.jaas.config', 'sasl.jaas.config'),
    ('ssl_truststore_password_file', 'ssl_truststore_password_key', 'ssl.truststore.password', 'ssl.truststore.password'),
    ('ssl_keystore_password_file', 'ssl_keystore_password_key', 'ssl.keystore.password', 'ssl.keystore.password'),
    ('ssl_key_password_file', 'ssl_key_password_key', 'ssl.key.password', 'ssl.key.password'),
)
# Plain cluster options rendered as the Kafka client setting of the same name.
PLAIN_CLUSTER_SETTINGS = {
    'sasl_mechanism': 'sasl.mechanism',
    'sasl_jaas_config': 'sasl.jaas.config',
    'ssl_truststore_location': 'ssl.truststore.location',
    'ssl_truststore_type': 'ssl.truststore.type',
    'ssl_keystore_location': 'ssl.keystore.location',
    'ssl_keystore_type': 'ssl.keystore.type',
    'ssl_endpoint_identification_algorithm': 'ssl.endpoint.identification.algorithm',
}
# Stores the role installs on every worker: controller file option -> the location option it fills.
STORE_SOURCES = {'ssl_truststore_src': 'ssl_truststore_location', 'ssl_keystore_src': 'ssl_keystore_location'}
# GSSAPI: the principal, its keytab (a file in the secrets directory) and the brokers' service name.
KERBEROS_OPTIONS = ('sasl_kerberos_principal', 'sasl_kerberos_keytab_file', 'sasl_kerberos_service_name')
CLUSTER_OPTIONS = frozenset(
    {'bootstrap_servers', 'security_protocol', 'sasl_username', 'client_config'}
    | set(KERBEROS_OPTIONS)
    | set(PLAIN_CLUSTER_SETTINGS)
    | set(STORE_SOURCES)
    | {reference[0] for reference in SECRET_REFERENCES}
    | {reference[1] for reference in SECRET_REFERENCES}
)
# MM2 keeps only these client settings under source.cluster.* / target.cluster.*.
CONNECTION_SETTING_PREFIXES = ('ssl.', 'sasl.')
# Options whose empty string is a setting, not an absence: an empty endpoint identification
# algorithm turns the clients' host name check off.
EMPTY_IS_A_VALUE = frozenset({'ssl_endpoint_identification_algorithm'})
FILE_CONFIG_PROVIDER = 'org.apache.kafka.common.config.provider.FileConfigProvider'

ALIAS_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_-]*$')
BOOTSTRAP_ENTRY_RE = re.compile(r'^(\[[0-9A-Fa-f:.]+\]|[^\s:,;\[\]]+):([0-9]{1,5})$')
JAAS_UNSAFE_RE = re.compile(r'["\\;\n\r]')
SECRET_FILE_NAME_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._-]*$')
FILE_PLACEHOLDER_RE = re.compile(r'\$\{file:([^:}]+):([^}]+)\}')


def bootstrap_entries(value: Any) -> Optional[List[str]]:
    """host:port entries of a list, or of one comma-separated string."""
    if isinstance(value, str):
        return [entry.strip() for entry in value.split(',') if entry.strip()]
    if isinstance(value, (list, tuple)) and all(isinstance(entry, str) for entry in value):
        return [entry.strip() for entry in value if entry.strip()]
    return None


def check_bootstrap(where: str, cluster: Mapping[str, Any], errors: ModelErrors) -> List[str]:
    entries = bootstrap_entries(cluster.get('bootstrap_servers'))
    if not entries:
        errors.add(where, 'bootstrap_servers is required: a list of host:port or one comma-separated string')
        return []
    malformed = [entry for entry in entries if not BOOTSTRAP_ENTRY_RE.match(entry)]
    if malformed:
        errors.add(where, 'bootstrap_servers entries must be host:port, separated by commas (not semicolons): %s'
                   % ', '.join(malformed))
    return entries


def secret_path(secrets_dir: str, file_name: str) -> str:
    base = secrets_dir.rstrip('/') or '/'
    return posixpath.normpath(file_name if file_name.startswith('/') else posixpath.join(base, file_name))


def secret_placeholder(path: str, key: str) -> str:
    """Resolved by the workers' FileConfigProvider; GET /config shows it unresolved."""
    return '${file:%s:%s}' % (path, key)


def check_secret_reference(where: str, option: str, path: str, key: str, secrets_dir: str, errors: ModelErrors) -> None:
    base = posixpath.normpath(secrets_dir).rstrip('/')
    if not path.startswith(base + '/'):
        errors.add(where, '%s must name a file in %s (the only directory the workers\' config providers may read), got %s'
                   % (option, base or '/', path))
    if re.search(r'[:{}\s]', path):
        errors.add(where, '%s must not contain ":", "{", "}" or spaces (it goes into a ${file:...} placeholder): %s' % (option, path))
    if not key or re.search(r'[{}\s"\\]', key):
        errors.add(where, 'the key for %s must be a non-empty properties key without braces, spaces, quotes or '
                   'backslashes, got %r' % (option, key))


def check_secret_file_names(names: Any, errors: ModelErrors) -> None:
    """Names of the secret files the role writes (mirrormaker_secret_files): plain names in the secrets directory."""
    for name in names or []:
        if not isinstance(name, str) or not SECRET_FILE_NAME_RE.match(name):
            errors.add('mirrormaker_secret_files', 'file names must be plain names inside the secrets directory '
                       '(letters, digits, ".", "_", "-"), got %r' % (name,))


def check_cluster_options(where: str, cluster: Mapping[str, Any], errors: ModelErrors) -> None:
    unknown = sorted(set(cluster) - CLUSTER_OPTIONS)
    if unknown:
        errors.add(where, 'unknown option(s) %s; known: %s' % (', '.join(unknown), ', '.join(sorted(CLUSTER_OPTIONS))))
    for option, value in cluster.items():
        if option in ('bootstrap_servers', 'client_config') or value is None:
            continue
        if not isinstance(value, str):
            errors.add(where, '%s must be a string, got %r' % (option, value))


def sasl_settings(where: str, cluster: Mapping[str, Any], secrets_dir: str, errors: ModelErrors) -> Dict[str, str]:
    """sasl.mechanism and sasl.jaas.config, the password only as a ${file:...} placeholder."""
    mechanism = cluster.get('sasl_mechanism')
    if not mechanism:
        errors.add(where, 'security_protocol %s needs sasl_mechanism' % cluster.get('security_protocol'))
        return {}
    settings = {'sasl.mechanism': str(mechanism)}
    jaas_given = cluster.get('sasl_jaas_config') or cluster.get('sasl_jaas_config_file')
    if jaas_given:
        if cluster.get('sasl_password_file'):
            errors.add(where, 'give either sasl_username with sasl_password_file or a JAAS config, not both')
        return settings
    if mechanism == 'GSSAPI':
        settings.update(kerberos_settings(where, cluster, secrets_dir, errors))
        return settings
    if str(mechanism) not in PASSWORD_MECHANISMS:
        errors.add(where, 'sasl_mechanism %s needs sasl_jaas_config_file (or sasl_jaas_config without secrets)' % mechanism)
        return settings
    username = cluster.get('sasl_username')
    password_file = cluster.get('sasl_password_file')
    if not username or not password_file:
        errors.add(where, 'sasl_mechanism %s needs sasl_username and sasl_password_file (a file in %s)' % (mechanism, secrets_dir))
        return settings
    if JAAS_UNSAFE_RE.search(str(username)):
        errors.add(where, 'sasl_username must not contain quotes, backslashes, semicolons or line breaks')
        return settings
    path = secret_path(secrets_dir, str(password_file))
    key = str(cluster.get('sasl_password_key') or 'sasl.password')
    # The same login line as the roles' clients, the password as a placeholder.
    settings['sasl.jaas.config'] = jaas_login_line(str(mechanism), username=str(username),
                                                   password=secret_placeholder(path, key))
    return settings


def kerberos_settings(where: str, cluster: Mapping[str, Any], secrets_dir: str, errors: ModelErrors) -> Dict[str, str]:
    """The keytab login of GSSAPI: a keytab path is not a secret, so the JAAS line is given as it is."""
    principal = str(cluster.get('sasl_kerberos_principal') or '')
    keytab_file = str(cluster.get('sasl_kerberos_keytab_file') or '')
    if not principal or not keytab_file:
        errors.add(where, 'sasl_mechanism GSSAPI needs sasl_kerberos_principal and sasl_kerberos_keytab_file (a keytab in %s), '
                   'or a JAAS config' % secrets_dir)
        return {}
    if not re.match(r'^[^\s"\\;/@]+(/[^\s"\\;/@]+)?@[^\s"\\;/@]+$', principal):
        errors.add(where, 'sasl_kerberos_principal must be name[/host]@REALM, got %r' % principal)
        return {}
    path = secret_path(secrets_dir, keytab_file)
    check_secret_reference(where, 'sasl_kerberos_keytab_file', path, 'keytab', secrets_dir, errors)
    return {
        'sasl.jaas.config': jaas_login_line('GSSAPI', principal=principal, keytab=path),
        'sasl.kerberos.service.name': str(cluster.get('sasl_kerberos_service_name') or 'kafka'),
    }


def secret_settings(where: str, cluster: Mapping[str, Any], secrets_dir: str, errors: ModelErrors) -> Dict[str, str]:
    """Kafka settings that hold a secret, each as a ${file:...} placeholder."""
    settings: Dict[str, str] = {}
    for file_option, key_option, default_key, kafka_setting in SECRET_REFERENCES:
        file_name = cluster.get(file_option)
        if not file_name:
            if cluster.get(key_option):
                errors.add(where, '%s is set without %s' % (key_option, file_option))
            continue
        path = secret_path(secrets_dir, str(file_name))
        key = str(cluster.get(key_option) or default_key)
        check_secret_reference(where, file_option, path, key, secrets_dir, errors)
        if kafka_setting:
            settings[kafka_setting] = secret_placeholder(path, key)
    return settings


def client_config_settings(where: str, cluster: Mapping[str, Any], errors: ModelErrors) -> Dict[str, str]:
    extra = cluster.get('client_config') or {}
    if not isinstance(extra, Mapping):
        errors.add(where, 'client_config must be a mapping of Kafka client settings')
        return {}
    dropped = sorted(key for key in extra if not str(key).startswith(CONNECTION_SETTING_PREFIXES))
    if dropped:
        errors.add(where, 'client_config may only hold ssl.* and sasl.* connection settings (MM2 drops anything else under '
                   'source.cluster.*/target.cluster.*): %s; put consumer tuning in the flow\'s consumer, producer tuning '
                   'in its producer' % ', '.join(dropped))
    return connect_settings(where, 'client_config', without_nulls(extra), errors)


def check_alias(where: str, alias: str, errors: ModelErrors) -> None:
    if not ALIAS_RE.match(alias):
        errors.add(where, 'aliases may hold letters, digits, "_" and "-" only (they prefix remote topic names)')


def cluster_connection(alias: str, cluster: Any, secrets_dir: str, errors: ModelErrors) -> Dict[str, str]:
    """Connection settings of one cluster: bootstrap, security protocol, TLS and SASL (secrets as placeholders)."""
    where = 'cluster %s' % alias
    check_alias(where, alias, errors)
    if not isinstance(cluster, Mapping):
        errors.add(where, 'must be a mapping with at least bootstrap_servers')
        return {}
    check_cluster_options(where, cluster, errors)
    protocol = str(cluster.get('security_protocol') or 'PLAINTEXT')
    if protocol not in SECURITY_PROTOCOLS:
        errors.add(where, 'security_protocol must be one of %s, got %s' % (', '.join(SECURITY_PROTOCOLS), protocol))
    settings = {'bootstrap.servers': ','.join(check_bootstrap(where, cluster, errors)), 'security.protocol': protocol}
    uses_sasl = protocol.startswith('SASL_')
    sasl_options = sorted(option for option in cluster if option.startswith('sasl_') and cluster.get(option))
    if sasl_options and not uses_sasl:
        errors.add(where, '%s set but security_protocol %s does not use SASL' % (', '.join(sasl_options), protocol))
    kerberos_options = sorted(option for option in KERBEROS_OPTIONS if cluster.get(option))
    if kerberos_options and uses_sasl and cluster.get('sasl_mechanism') != 'GSSAPI':
        errors.add(where, '%s set but sasl_mechanism is %s, not GSSAPI' % (', '.join(kerberos_options), cluster.get('sasl_mechanism')))
    for option, kafka_setting in PLAIN_CLUSTER_SETTINGS.items():
        if cluster.get(option) not in (None, '') or (option in EMPTY_IS_A_VALUE and cluster.get(option) == ''):
            settings[kafka_setting] = str(cluster[option])
    for source, location in STORE_SOURCES.items():
        if cluster.get(source) and not cluster.get(location):
            errors.add(where, '%s needs %s: where the workers read the store' % (source, location))
    if uses_sasl:
        settings.update(sasl_settings(where, cluster, secrets_dir, errors))
    settings.update(secret_settings(where, cluster, secrets_dir, errors))
    settings.update(client_config_settings(where, cluster, errors))
    return settings


def cluster_connections(clusters: Mapping[str, Any], secrets_dir: str, errors: ModelErrors) -> Dict[str, Dict[str, str]]:
    return {str(alias): cluster_connection(str(alias), clusters[alias], secrets_dir, errors) for alias in sorted(clusters)}


def broker_probe(alias: str, connection: Mapping[str, str]) -> Dict[str, Any]:
    """How module kafka_broker_versions asks a cluster's brokers for their release: the bootstrap
    servers, the security protocol and, over TLS, the host name check, the trust store (its
    password a placeholder) and a PEM key store's client certificate. SASL needs nothing: brokers
    answer ApiVersions before authentication."""
    protocol = connection.get('security.protocol') or 'PLAINTEXT'
    probe: Dict[str, Any] = {'alias': alias, 'bootstrap': connection['bootstrap.servers'].split(','), 'security_protocol': protocol}
    if protocol not in ('SSL', 'SASL_SSL'):
        return probe
    probe['ssl_check_hostname'] = connection.get('ssl.endpoint.identification.algorithm', 'https').lower() == 'https'
    if connection.get('ssl.truststore.location'):
        probe['ssl_truststore_location'] = connection['ssl.truststore.location']
        probe['ssl_truststore_type'] = connection.get('ssl.truststore.type', '')
        if connection.get('ssl.truststore.password'):
            probe['ssl_truststore_password'] = connection['ssl.truststore.password']
    if connection.get('ssl.keystore.location') and connection.get('ssl.keystore.type', '').upper() == 'PEM':
        probe['ssl_certfile'] = connection['ssl.keystore.location']
        if connection.get('ssl.key.password'):
            probe['ssl_key_password'] = connection['ssl.key.password']
    return probe


def endpoints_of(bootstrap_servers: str) -> List[Dict[str, Any]]:
    """host and port of each bootstrap entry ([v6] addresses without their brackets)."""
    endpoints = []
    for entry in bootstrap_servers.split(','):
        host, _separator, port = entry.rpartition(':')
        endpoints.append({'host': host.strip('[]'), 'port': int(port)})
    return endpoints


def store_files(cluster: Mapping[str, Any]) -> List[Dict[str, str]]:
    """The stores of a cluster that the role copies from the controller: src (controller) and dest (workers)."""
    return [{'kind': source[len('ssl_'):-len('_src')], 'src': str(cluster[source]), 'dest': str(cluster[location])}
            for source, location in STORE_SOURCES.items() if cluster.get(source) and cluster.get(location)]


def cluster_summary(connection: Mapping[str, str], secrets_dir: str, cluster: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """What the role needs per cluster: endpoints to probe, client settings for the topic checks
    and the stores to install."""
    client_properties = dict(connection)
    # Only where a value reads a secret file: the provider refuses to start when its allowed path
    # is missing, as on a Connect node the collection did not build and that holds no secrets.
    if any('${file:' in str(value) for value in connection.values()):
        client_properties.update({
            'config.providers': 'file',
            'config.providers.file.class': FILE_CONFIG_PROVIDER,
            'config.providers.file.param.allowed.paths': secrets_dir,
        })
    return {'bootstrap_servers': connection['bootstrap.servers'], 'endpoints': endpoints_of(connection['bootstrap.servers']),
            'client_properties': client_properties, 'store_files': store_files(cluster or {})}


def secret_files_in(config: Mapping[str, str]) -> List[str]:
    """Files a config reads on the workers: those of its ${file:...} placeholders and the keytabs of its JAAS lines."""
    values = ' '.join(config.values())
    return sorted(set(re.findall(r'\$\{file:([^:}]+):', values)) | set(re.findall(r'keyTab="([^"]+)"', values)))


def relative_to(base: str, paths: Iterable[str]) -> List[str]:
    """Secret file names as mirrormaker_secret_files spells them (relative to the secrets directory)."""
    prefix = posixpath.normpath(base).rstrip('/') + '/'
    return sorted(path[len(prefix):] if path.startswith(prefix) else path for path in paths)


def placeholders_in(text: str) -> Set[Tuple[str, str]]:
    """(path, key) of each ${file:path:key} placeholder of a setting's value."""
    return set(FILE_PLACEHOLDER_RE.findall(text))


def secret_readers(connections: Mapping[str, Mapping[str, str]]) -> Tuple[Set[Tuple[str, str]], Set[Tuple[str, str]]]:
    """(path, key) read inside the quoted values of JAAS lines, and (path, key) read by any other setting."""
    in_jaas: Set[Tuple[str, str]] = set()
    elsewhere: Set[Tuple[str, str]] = set()
    for settings in connections.values():
        for name, value in settings.items():
            quoted = jaas_quoted_values(value) if name.endswith('sasl.jaas.config') else []
            inside = set().union(*(placeholders_in(text) for text in quoted))
            in_jaas |= inside
            elsewhere |= placeholders_in(value) - inside
    return in_jaas, elsewhere


def jaas_secret_keys(clusters: Any, secrets_dir: str, secret_files: Mapping[str, Any]) -> Dict[str, List[str]]:
    """Keys of the secret files (mirrormaker_secret_files) whose values are written JAAS-escaped, by file name.

    A file that a quoted value of a cluster's JAAS line reads holds JAAS values: all of its keys,
    those a login line reads now and those staged for a password rotation, except the keys a
    setting outside the JAAS lines reads (a store password, used as it is). A key read both ways
    is a ValueError: one value cannot be right for both. Problems of the model itself are the
    plan's to report; a cluster that does not render reads nothing here.
    """
    if not isinstance(clusters, Mapping) or not isinstance(secret_files, Mapping):
        raise ValueError('expects the clusters and the secret files as mappings')
    connections = cluster_connections(clusters, str(secrets_dir), ModelErrors())
    in_jaas, elsewhere = secret_readers(connections)
    escaped: Dict[str, List[str]] = {}
    for name in sorted(secret_files):
        path = secret_path(str(secrets_dir), str(name))
        jaas_keys = {key for read_path, key in in_jaas if read_path == path}
        if not jaas_keys:
            continue
        plain_keys = {key for read_path, key in elsewhere if read_path == path}
        both = sorted(jaas_keys & plain_keys)
        if both:
            raise ValueError('key %s of secret file %s is read inside a JAAS line and by another setting; '
                             'give each its own key' % (', '.join(both), name))
        settings = secret_files[name] if isinstance(secret_files[name], Mapping) else {}
        escaped[str(name)] = sorted(str(key) for key in settings if str(key) not in plain_keys)
    return escaped
