# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Settings of the Kafka clients the roles configure: Connect worker clients, secrets, JAAS lines.

Controller-side logic behind the filters client_properties, file_placeholders and jaas_config.
Errors are ValueError; the filters turn them into AnsibleFilterError.

Kafka parses a sasl.jaas.config line with a java.io.StreamTokenizer, double quote as its quote
character: inside a quoted option value a backslash starts an escape (\\\\, \\", \\n, \\t, octal
digits...) and a double quote or a line break ends the value. Kafka resolves ${file:...}
placeholders before it parses the line, so a secret that a placeholder inside the quotes reads is
parsed like a value written in the line. jaas_escape writes both so that Kafka reads them back.
"""

from __future__ import annotations

import re
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

# The clients of a Connect worker: its own (group membership, internal topics) and the
# producer., consumer. and admin. clients it creates for connectors.
WORKER_CLIENT_PREFIXES = ('', 'producer.', 'consumer.', 'admin.')

PLAIN_LOGIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule'
SCRAM_LOGIN_MODULE = 'org.apache.kafka.common.security.scram.ScramLoginModule'
KERBEROS_LOGIN_MODULE = 'com.sun.security.auth.module.Krb5LoginModule'
SASL_MECHANISMS = ('PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'GSSAPI')


def prefixed_client_properties(settings: Mapping[str, object],
                               prefixes: Sequence[str] = WORKER_CLIENT_PREFIXES) -> dict:
    """The settings repeated under every prefix; None values (settings not in use) are left out."""
    if not isinstance(settings, Mapping):
        raise ValueError('client settings must be a mapping, got %s' % type(settings).__name__)
    if isinstance(prefixes, str) or not all(isinstance(prefix, str) for prefix in prefixes):
        raise ValueError('prefixes must be a list of strings, got %r' % (prefixes,))
    malformed = [prefix for prefix in prefixes if prefix and not prefix.endswith('.')]
    if malformed:
        raise ValueError('a client prefix is empty or ends with a dot (producer.), got %s' % ', '.join(malformed))
    return {
        prefix + str(key): value
        for prefix in prefixes
        for key, value in settings.items()
        if value is not None
    }


def file_placeholders(keys: Iterable[str], path: str) -> dict:
    """Each key mapped to the FileConfigProvider placeholder that reads it from path."""
    if not isinstance(path, str) or not path.startswith('/'):
        raise ValueError('the secrets file must be an absolute path, got %r' % (path,))
    if isinstance(keys, str):
        raise ValueError('keys must be a list or a mapping, not the string %r' % keys)
    return {str(key): '${file:%s:%s}' % (path, key) for key in keys}


def inline_file_placeholders(properties: Mapping[str, Any], path: str, values: Mapping[str, Any]) -> Dict[str, Any]:
    """The properties with each placeholder that reads a key of `values` from path replaced by that value.

    For a process whose secrets may not stay behind placeholders: Connect's config providers serve the
    connectors too, so whatever a worker reads through them, a connector can read as well."""
    if not isinstance(properties, Mapping) or not isinstance(values, Mapping):
        raise ValueError('expects the properties and the secret values as mappings')
    inline = {placeholder: values[key] for key, placeholder in file_placeholders(values, path).items()}
    return {name: inline.get(value, value) if isinstance(value, str) else value for name, value in properties.items()}


# What ends or escapes a quoted JAAS option value, and how the value says it instead.
_JAAS_ESCAPES = {'\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r'}
# A quoted option value of a JAAS line, as written (its escapes kept).
_JAAS_QUOTED = re.compile(r'"((?:[^"\\\n\r]|\\.)*)"')


def java_login_options(jaas_file: Optional[str] = None, krb5_conf: Optional[str] = None) -> List[str]:
    """JVM options naming the JAAS login file and the Kerberos configuration, each left out when None."""
    options = [] if jaas_file is None else ['-Djava.security.auth.login.config=%s' % jaas_file]
    return options + ([] if krb5_conf is None else ['-Djava.security.krb5.conf=%s' % krb5_conf])


def jaas_escape(value: str) -> str:
    """The text to put between the quotes of a JAAS option so that Kafka's parser reads `value`.

    Backslash, double quote, line feed and carriage return are escaped; any other text, tabs and
    non-ASCII included, stands for itself, so a value without those four comes back unchanged.
    For values written into a login line and for secrets read by a placeholder inside its quotes.
    """
    if not isinstance(value, str):
        raise ValueError('a JAAS value must be a string, got %s' % type(value).__name__)
    return ''.join(_JAAS_ESCAPES.get(char, char) for char in value)


def jaas_quoted_values(line: str) -> List[str]:
    """The quoted option values of a JAAS line as written, escapes kept (placeholders stay unresolved)."""
    return _JAAS_QUOTED.findall(line)


def _jaas_value(name: str, value: str) -> str:
    """A quoted JAAS option value, escaped so that Kafka reads it as given."""
    if not isinstance(value, str) or not value:
        raise ValueError('the JAAS login line needs %s' % name)
    return '"%s"' % jaas_escape(value)


def jaas_login_line(mechanism: str, username: str = '', password: str = '',
                    principal: str = '', keytab: str = '') -> str:
    """The sasl.jaas.config value of a client that logs in with mechanism."""
    if mechanism == 'GSSAPI':
        return '%s required useKeyTab=true storeKey=true keyTab=%s principal=%s;' % (
            KERBEROS_LOGIN_MODULE, _jaas_value('keytab', keytab), _jaas_value('principal', principal))
    if mechanism == 'PLAIN':
        module = PLAIN_LOGIN_MODULE
    elif mechanism in ('SCRAM-SHA-256', 'SCRAM-SHA-512'):
        module = SCRAM_LOGIN_MODULE
    else:
        raise ValueError('SASL mechanism must be one of %s, got %r' % (', '.join(SASL_MECHANISMS), mechanism))
    return '%s required username=%s password=%s;' % (
        module, _jaas_value('username', username), _jaas_value('password', password))


SECURITY_PROTOCOLS = ('PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL')
SASL_PROTOCOLS = ('SASL_PLAINTEXT', 'SASL_SSL')
TLS_PROTOCOLS = ('SSL', 'SASL_SSL')
# The options of client_security, each a string unless said otherwise.
CLIENT_SECURITY_OPTIONS = (
    'security_protocol', 'sasl_mechanism', 'sasl_username', 'sasl_password',
    'kerberos_principal', 'kerberos_keytab', 'kerberos_service_name',
    'ssl_truststore_type', 'ssl_truststore_location', 'ssl_truststore_password',
    'ssl_client_certificate',  # a boolean: the client shows a certificate (mutual TLS)
    'ssl_keystore_type', 'ssl_keystore_location', 'ssl_keystore_password', 'ssl_key_password',
)


def _flag(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ('true', 'yes', 'on', '1', 'false', 'no', 'off', '0', ''):
        return value.lower() in ('true', 'yes', 'on', '1')
    raise ValueError('ssl_client_certificate must be a boolean, got %r' % (value,))


def client_security(client: Mapping[str, object]) -> dict:
    """Security settings of one Kafka client for its protocol: ``settings`` and ``secrets``.

    ``settings`` holds what may be written anywhere: security.protocol, sasl.mechanism and
    sasl.kerberos.service.name (GSSAPI) with SASL, the trust store with TLS, the key store
    with TLS and a client certificate. ``secrets`` holds the JAAS login line (SASL) and the
    store passwords the protocol uses, those left empty out. Values are kept as given, so
    a caller may pass ${file:...} placeholders instead of passwords.
    """
    if not isinstance(client, Mapping):
        raise ValueError('the client must be a mapping, got %s' % type(client).__name__)
    unknown = sorted(set(map(str, client)) - set(CLIENT_SECURITY_OPTIONS))
    if unknown:
        raise ValueError('unknown option(s) %s' % ', '.join(unknown))
    protocol = client.get('security_protocol')
    if protocol not in SECURITY_PROTOCOLS:
        raise ValueError('security_protocol must be one of %s, got %r' % (', '.join(SECURITY_PROTOCOLS), protocol))
    sasl = protocol in SASL_PROTOCOLS
    tls = protocol in TLS_PROTOCOLS
    mechanism = client.get('sasl_mechanism')
    certificate = tls and _flag(client.get('ssl_client_certificate', False))
    settings: dict = {'security.protocol': protocol}
    secrets: dict = {}
    if sasl:
        settings['sasl.mechanism'] = mechanism
        if mechanism == 'GSSAPI':
            settings['sasl.kerberos.service.name'] = client.get('kerberos_service_name')
        secrets['sasl.jaas.config'] = jaas_login_line(
            str(mechanism), username=client.get('sasl_username') or '', password=client.get('sasl_password') or '',
            principal=client.get('kerberos_principal') or '', keytab=client.get('kerberos_keytab') or '')
    if tls:
        settings['ssl.truststore.type'] = client.get('ssl_truststore_type')
        settings['ssl.truststore.location'] = client.get('ssl_truststore_location')
        secrets['ssl.truststore.password'] = client.get('ssl_truststore_password')
    if certificate:
        settings['ssl.keystore.type'] = client.get('ssl_keystore_type')
        settings['ssl.keystore.location'] = client.get('ssl_keystore_location')
        secrets['ssl.keystore.password'] = client.get('ssl_keystore_password')
        secrets['ssl.key.password'] = client.get('ssl_key_password')
    return {'settings': settings, 'secrets': {key: value for key, value in secrets.items() if value not in (None, '')}}
