# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Server-side security settings of a KRaft broker: TLS, client certificates, SASL, authorizer.

Controller-side logic behind the filter broker_security (role kafka_broker). The client side
is kafka_clients.client_security. Switches are read as the role's Jinja read them (``| bool``).
Errors are ValueError; the filter turns them into AnsibleFilterError.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_clients import file_placeholders, java_login_options
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.role_rules import jinja_bool, require_settings

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

# The options of kafka_broker_derived: role variables without kafka_broker_, and the role's switch gssapi
# and its JAAS file.
KAFKA_BROKER_DERIVED_OPTIONS = (
    'plaintext_enabled', 'listener_name', 'port', 'sasl_ssl_enabled', 'sasl_ssl_listener_name', 'sasl_ssl_port',
    'ssl_enabled', 'ssl_listener_name', 'ssl_port', 'gssapi', 'jaas_file', 'krb5_conf',
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
    return {'properties': properties, 'tls_secrets': secrets}


def client_listeners(broker: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """The client listeners that are on, in order PLAINTEXT, SASL_SSL, SSL: each its name, protocol and port."""
    return [{'name': broker[name], 'protocol': protocol, 'port': broker[port]}
            for protocol, switch, name, port in CLIENT_LISTENERS if jinja_bool(broker[switch])]


def kafka_broker_derived(broker: Mapping[str, Any]) -> Dict[str, Any]:
    """The client listeners, and the JVM options of the JAAS file (SASL_SSL) and of krb5.conf (GSSAPI)."""
    require_settings(broker, KAFKA_BROKER_DERIVED_OPTIONS, 'kafka_broker_derived')
    jvm_options = java_login_options(broker['jaas_file'] if jinja_bool(broker['sasl_ssl_enabled']) else None,
                                     broker['krb5_conf'] if jinja_bool(broker['gssapi']) else None)
    return {'client_listeners': client_listeners(broker), 'jvm_security_options': jvm_options}
