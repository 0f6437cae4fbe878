# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Server-side security settings of a KRaft broker: TLS, client certificates, SASL, authorizer; the
listeners, replication factors, admin connection and controller quorum role kafka_broker derives.

Controller-side logic behind the filters broker_security, kafka_broker_derived and kafka_broker_voters
(role kafka_broker). The client side is kafka_clients.client_security. Switches are read as the role's
Jinja read them (``| bool``). Errors are ValueError; the filters turn them into AnsibleFilterError.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Optional

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_clients import file_placeholders, java_login_options
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.role_rules import jinja_bool, jinja_text, require_settings

STANDARD_AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer'
FILE_CONFIG_PROVIDER = 'org.apache.kafka.common.config.provider.FileConfigProvider'
# The options of broker_security, by the name of the role variable without kafka_broker_.
BROKER_SECURITY_OPTIONS = (
    'ssl_enabled', 'sasl_ssl_enabled', 'controller_protocol', 'secrets_dir',
    'ssl_keystore_type', 'ssl_keystore_location', 'ssl_keystore_password', 'ssl_key_password',
    'ssl_truststore_type', 'ssl_truststore_location', 'ssl_truststore_password', 'ssl_principal_mapping_rules',
    'ssl_listener_name', 'ssl_client_auth', 'sasl_mechanisms', 'kerberos_service_name',
    'kerberos_principal_to_local_rules', 'authorizer_enabled', 'super_users', 'allow_everyone_if_no_acl_found',
)

# The options of kafka_broker_derived: role variables without kafka_broker_, and the role's JAAS file.
KAFKA_BROKER_DERIVED_OPTIONS = (
    'plaintext_enabled', 'listener_name', 'port', 'sasl_ssl_enabled', 'sasl_ssl_listener_name', 'sasl_ssl_port',
    'ssl_enabled', 'ssl_listener_name', 'ssl_port', 'sasl_mechanisms', 'jaas_file', 'krb5_conf', 'advertised_host',
    'controller_port', 'controller_protocol', 'admin_client_config', 'kerberos_keytab_src', 'krb5_conf_src',
)
# The client listeners in their order: the switch that turns one on, its name and its port, by protocol.
CLIENT_LISTENERS = (
    ('PLAINTEXT', 'plaintext_enabled', 'listener_name', 'port'),
    ('SASL_SSL', 'sasl_ssl_enabled', 'sasl_ssl_listener_name', 'sasl_ssl_port'),
    ('SSL', 'ssl_enabled', 'ssl_listener_name', 'ssl_port'),
)


def tls_secrets(broker: Mapping[str, Any]) -> Dict[str, Any]:
    """The store passwords that are set (not empty), by property name."""
    passwords = {'ssl.keystore.password': broker['ssl_keystore_password'], 'ssl.key.password': broker['ssl_key_password'],
                 'ssl.truststore.password': broker['ssl_truststore_password']}
    return {key: value for key, value in passwords.items() if value != ''}


def broker_security(broker: Mapping[str, Any]) -> Dict[str, Any]:
    """The security properties of server.properties: ``properties``, and ``tls_secrets`` for its own file.

    Empty with the PLAINTEXT defaults. The TLS settings (every SSL-based listener, the
    controller's included) read the store passwords from <secrets_dir>/tls.properties through
    ${file:...} placeholders; client certificates are required on the SSL listener (as
    ssl_client_auth says) and on the controller's, not on SASL_SSL.
    """
    if not isinstance(broker, Mapping):
        raise ValueError('broker_security expects a mapping, got %s' % type(broker).__name__)
    missing = [name for name in BROKER_SECURITY_OPTIONS if name not in broker]
    if missing:
        raise ValueError('broker_security is missing %s' % ', '.join(missing))
    ssl = jinja_bool(broker['ssl_enabled'])
    sasl_ssl = jinja_bool(broker['sasl_ssl_enabled'])
    controller_tls = broker['controller_protocol'] == 'SSL'
    secrets = tls_secrets(broker)
    properties: Dict[str, Any] = {}
    if sasl_ssl or ssl or controller_tls:
        properties.update({
            'ssl.keystore.type': broker['ssl_keystore_type'],
            'ssl.keystore.location': broker['ssl_keystore_location'],
            'ssl.truststore.type': broker['ssl_truststore_type'],
            'ssl.truststore.location': broker['ssl_truststore_location'],
            'ssl.principal.mapping.rules': broker['ssl_principal_mapping_rules'],
        })
        properties.update(file_placeholders(secrets, '%s/tls.properties' % broker['secrets_dir']))
        if secrets:
            properties.update({'config.providers': 'file', 'config.providers.file.class': FILE_CONFIG_PROVIDER,
                               'config.providers.file.param.allowed.paths': broker['secrets_dir']})
    if ssl:
        properties['listener.name.%s.ssl.client.auth' % str(broker['ssl_listener_name']).lower()] = broker['ssl_client_auth']
    if controller_tls:
        properties['listener.name.controller.ssl.client.auth'] = 'required'
    if sasl_ssl:
        mechanisms = list(broker['sasl_mechanisms'])
        properties['sasl.enabled.mechanisms'] = ','.join(str(mechanism) for mechanism in mechanisms)
        if 'GSSAPI' in mechanisms:
            properties['sasl.kerberos.service.name'] = broker['kerberos_service_name']
            properties['sasl.kerberos.principal.to.local.rules'] = ','.join(
                str(rule) for rule in broker['kerberos_principal_to_local_rules'])
    if jinja_bool(broker['authorizer_enabled']):
        properties.update({'authorizer.class.name': STANDARD_AUTHORIZER,
                           'super.users': ';'.join(str(user) for user in broker['super_users']),
                           'allow.everyone.if.no.acl.found': jinja_bool(broker['allow_everyone_if_no_acl_found'])})
    return {'properties': properties, 'tls_secrets': secrets, 'secrets_needed': sasl_ssl or len(secrets) > 0}


def client_listeners(broker: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """The client listeners that are on, in order PLAINTEXT, SASL_SSL, SSL: each its name, protocol and port."""
    return [{'name': broker[name], 'protocol': protocol, 'port': broker[port]}
            for protocol, switch, name, port in CLIENT_LISTENERS if jinja_bool(broker[switch])]


def listener_properties(broker: Mapping[str, Any], listeners: List[Dict[str, Any]]) -> Dict[str, Optional[str]]:
    """The values of listeners, advertised.listeners and listener.security.protocol.map: the client listeners
    in their order, the controller's listener bound (never advertised) after them and first in the map.

    Without a client listener advertised.listeners is None (left out of the file), as the role's Jinja gave it.
    """
    host = jinja_text(broker['advertised_host'])
    named = [(jinja_text(listener['name']), jinja_text(listener['port']), listener['protocol']) for listener in listeners]
    return {
        'listeners': ''.join('%s://0.0.0.0:%s,' % (name, port) for name, port, _protocol in named)
        + 'CONTROLLER://0.0.0.0:%s' % jinja_text(broker['controller_port']),
        'advertised_listeners': ','.join('%s://%s:%s' % (name, host, port) for name, port, _protocol in named) or None,
        'listener_security_protocol_map': 'CONTROLLER:%s' % jinja_text(broker['controller_protocol'])
        + ''.join(',%s:%s' % (name, protocol) for name, _port, protocol in named),
    }


def admin_connection(broker: Mapping[str, Any]) -> Dict[str, Any]:
    """The role's own admin connection: the SSL listener with the broker certificate (a super user) when it is
    on, else the PLAINTEXT listener; its own listener, so an answer proves that this broker serves."""
    tls = jinja_bool(broker['ssl_enabled'])
    if tls:
        bootstrap = '%s:%s' % (broker['advertised_host'], broker['ssl_port'])
    else:
        bootstrap = '%s:%s' % (jinja_text(broker['advertised_host']), jinja_text(broker['port']))
    return {'admin_tls': tls, 'admin_bootstrap': bootstrap,
            'admin_connection': ['--bootstrap-server', bootstrap.strip()] + (['--command-config', broker['admin_client_config']] if tls else [])}


def _shipped(gssapi: Any, source: Any, name: str) -> bool:
    """Whether the role ships a Kerberos file: with GSSAPI, from a source on the controller that is given."""
    if not jinja_bool(gssapi):
        return False
    try:
        return len(source) > 0
    except TypeError:
        raise ValueError('kafka_broker_derived: %s must be a path or empty, got %s' % (name, type(source).__name__)) from None


def kafka_broker_derived(broker: Mapping[str, Any]) -> Dict[str, Any]:
    """The client listeners and the listener properties; whether the SASL_SSL listener offers GSSAPI and
    whether a listener uses TLS (the controller's on SSL included); the JVM options of the JAAS file (SASL_SSL)
    and of krb5.conf (GSSAPI), the admin connection and which Kerberos files the role ships."""
    require_settings(broker, KAFKA_BROKER_DERIVED_OPTIONS, 'kafka_broker_derived')
    sasl_ssl = jinja_bool(broker['sasl_ssl_enabled'])
    gssapi = sasl_ssl and 'GSSAPI' in broker['sasl_mechanisms']
    jvm_options = java_login_options(broker['jaas_file'] if sasl_ssl else None, broker['krb5_conf'] if gssapi else None)
    listeners = client_listeners(broker)
    derived: Dict[str, Any] = {'client_listeners': listeners, 'jvm_security_options': jvm_options, 'gssapi': gssapi,
                               'tls_needed': sasl_ssl or jinja_bool(broker['ssl_enabled']) or broker['controller_protocol'] == 'SSL'}
    derived.update(listener_properties(broker, listeners))
    derived.update(admin_connection(broker))
    derived.update(ship_keytab=_shipped(gssapi, broker['kerberos_keytab_src'], 'kerberos_keytab_src'),
                   ship_krb5_conf=_shipped(gssapi, broker['krb5_conf_src'], 'krb5_conf_src'))
    return derived


def _group_members(members: Any, what: str) -> List[Any]:
    """The hosts of the broker group, refusing a string or a mapping."""
    if isinstance(members, (str, bytes, Mapping)):
        raise ValueError('%s expects the list of the group\'s hosts, got %s' % (what, type(members).__name__))
    return list(members)


def kafka_broker_replication(members: Iterable[str]) -> Dict[str, int]:
    """The replication factor and the minimum in-sync replicas: the cluster's size, 3 and 2 at most, so that
    a one-node lab works and three nodes are safe."""
    size = len(_group_members(members, 'kafka_broker_replication'))
    return {'replication_factor': min(size, 3), 'min_insync_replicas': min(size, 2)}


def kafka_broker_voters(members: Iterable[str], hostvars: Mapping[str, Mapping[str, Any]], controller_port: Any) -> Optional[str]:
    """controller.quorum.voters: each member as <node id>@<advertised host>:<controller port>, in the group's order.

    A member's own inventory settings win; without them its node id is its place in the group (from 1), its
    host its inventory name and its port this host's (role defaults are not in hostvars). A setting of None
    prints as nothing and an empty group gives None, as the role's Jinja did.
    """
    voters = []
    for index, member in enumerate(_group_members(members, 'kafka_broker_voters'), 1):
        if member not in hostvars:
            raise ValueError('kafka_broker_voters: %s is not in hostvars' % member)
        host_vars = hostvars[member]
        parts = (host_vars.get('kafka_broker_node_id', index), host_vars.get('kafka_broker_advertised_host', member),
                 host_vars.get('kafka_broker_controller_port', controller_port))
        voters.append('%s@%s:%s' % tuple(jinja_text(part) for part in parts))
    return ','.join(voters) or None


# Kafka's own default of log.dirs when neither log.dirs nor log.dir is set.
KAFKA_DEFAULT_LOG_DIR = '/tmp/kafka-logs'


def kafka_broker_log_dirs(properties: Mapping[str, Any]) -> List[str]:
    """The directories a broker keeps its partitions and its KRaft metadata in, as Kafka reads server.properties:
    log.dirs (comma-separated), else log.dir, else Kafka's default; then metadata.log.dir when set elsewhere."""
    if not isinstance(properties, Mapping):
        raise ValueError('kafka_broker_log_dirs expects the broker properties, got %s' % type(properties).__name__)

    def setting(key: str) -> str:
        value = properties.get(key)
        return '' if value is None else jinja_text(value).strip()

    listed = setting('log.dirs') or setting('log.dir') or KAFKA_DEFAULT_LOG_DIR
    directories: List[str] = []
    for directory in [part.strip() for part in listed.split(',')] + [setting('metadata.log.dir')]:
        if directory and directory not in directories:
            directories.append(directory)
    return directories
