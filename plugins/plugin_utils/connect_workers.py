# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Values role connect_worker derives from its settings: JVM options, REST secrets, stores, watchdog URLs,
the worker's properties, the watchdog's settings and the login probe's fingerprint.

Logic behind the filters connect_worker_derived, connect_worker_properties, connect_worker_watchdog_settings
and connect_worker_probe_fingerprint (the workers' REST URLs as role mirrormaker calls them are in
connect_worker_scale). Numbers and switches are read as the role's Jinja read them (``| int``, ``| bool``).
Errors are ValueError; the filters turn them into AnsibleFilterError.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from typing import Any, Dict, List, Mapping, Tuple

from ansible.module_utils.common.json import get_encoder
from ansible.module_utils.common.text.converters import to_bytes

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_clients import java_login_options, prefixed_client_properties
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.role_rules import jinja_bool, jinja_int, jinja_text, require_settings

# The options of connect_worker_derived: role variables without connect_worker_, and the role's
# switches rest_https, kafka_tls, kafka_client_certificate, kafka_gssapi and exporter_tls.
CONNECT_WORKER_DERIVED_OPTIONS = (
    'jmx_port', 'rest_https', 'rest_basic_auth', 'rest_jaas_file', 'krb5_conf', 'kafka_tls', 'kafka_client_certificate',
    'kafka_gssapi', 'kafka_ssl_truststore_location', 'kafka_ssl_keystore_location', 'rest_ssl_keystore_location',
    'rest_ssl_truststore_location', 'rest_ca_path', 'rest_ssl_keystore_password', 'rest_ssl_key_password',
    'rest_ssl_truststore_password', 'rest_advertised_host', 'metrics_address', 'metrics_port', 'exporter_tls',
    'auto_restart_exporter_url', 'auto_restart_metrics_address', 'auto_restart_metrics_port', 'rest_port',
    'rest_listen_address',
)
# Addresses that bind every interface: a local client reaches them on the loopback address.
ANY_ADDRESS = ('0.0.0.0', '::', '')


def jmx_options(port: Any) -> List[str]:
    """Remote JMX on the loopback address without authentication; none with port 0."""
    if jinja_int(port) == 0:
        return []
    return ['-Dcom.sun.management.jmxremote', '-Dcom.sun.management.jmxremote.host=127.0.0.1',
            '-Dcom.sun.management.jmxremote.port=%s' % port, '-Dcom.sun.management.jmxremote.rmi.port=%s' % port,
            '-Dcom.sun.management.jmxremote.authenticate=false', '-Dcom.sun.management.jmxremote.ssl=false']


def local_host(address: str) -> str:
    """How a client on this host names an address a server binds: loopback for any, brackets for IPv6."""
    if address in ANY_ADDRESS:
        return '127.0.0.1'
    return '[%s]' % address if ':' in address else address


def connect_worker_derived(worker: Mapping[str, Any]) -> Dict[str, Any]:
    """The derived values, each named after the role variable __connect_worker_<name> it fills."""
    require_settings(worker, CONNECT_WORKER_DERIVED_OPTIONS, 'connect_worker_derived')
    rest_https = worker['rest_https']
    rest_passwords = {'rest.ssl.keystore.password': worker['rest_ssl_keystore_password'],
                      'rest.ssl.key.password': worker['rest_ssl_key_password'],
                      'rest.ssl.truststore.password': worker['rest_ssl_truststore_password']}
    store_paths = [worker['kafka_ssl_truststore_location']] if worker['kafka_tls'] else []
    store_paths += [worker['kafka_ssl_keystore_location']] if worker['kafka_client_certificate'] else []
    store_paths += [worker['rest_ssl_keystore_location'], worker['rest_ssl_truststore_location'],
                    worker['rest_ca_path']] if rest_https else []
    jvm_options = java_login_options(worker['rest_jaas_file'] if jinja_bool(worker['rest_basic_auth']) else None,
                                     worker['krb5_conf'] if worker['kafka_gssapi'] else None)
    exporter_tls = jinja_bool(worker['exporter_tls'])
    exporter_host = worker['rest_advertised_host'] if exporter_tls else local_host(worker['metrics_address'])
    exporter_url = worker['auto_restart_exporter_url']
    if len(exporter_url) == 0:
        exporter_url = '%s://%s:%s/metrics' % ('https' if exporter_tls else 'http', exporter_host.strip(), worker['metrics_port'])
    return {
        'jmx_options': jmx_options(worker['jmx_port']),
        'rest_secrets': {key: value for key, value in rest_passwords.items() if value != ''} if rest_https else {},
        'security_jvm_options': jvm_options,
        'store_paths': store_paths,
        'watchdog_exporter_url': exporter_url,
        'watchdog_metrics_url': 'http://%s:%s/metrics' % (
            local_host(worker['auto_restart_metrics_address']), worker['auto_restart_metrics_port']),
        'health_base_url': health_base_url(rest_https, worker['rest_advertised_host'], worker['rest_port'],
                                           worker['rest_listen_address']),
    }


def health_base_url(rest_https: Any, advertised_host: Any, port: Any, listen_address: Any) -> str:
    """How this host reaches its worker: HTTPS on the name in the certificate, else plain HTTP on the address the
    listener binds (loopback when it binds every address)."""
    host = 'https://%s' % advertised_host if rest_https else 'http://%s' % local_host(jinja_text(listen_address).strip())
    return '%s:%s' % (host, jinja_text(port))


# ---- The worker's properties (filter connect_worker_properties).
# Connect's REST extension that checks basic authentication against the JAAS login file.
BASIC_AUTH_EXTENSION = 'org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension'
# The options of connect_worker_properties: the role's base properties, its Kafka client settings and the secret
# placeholders, the REST listener's settings (without connect_worker_), the switches and the user's properties.
CONNECT_WORKER_PROPERTIES_OPTIONS = (
    'base', 'kafka_security_protocol', 'kafka_client_settings', 'kafka_client_refs', 'rest_https', 'rest_port',
    'rest_ssl_keystore_type', 'rest_ssl_keystore_location', 'rest_ssl_truststore_type', 'rest_ssl_truststore_location',
    'rest_ssl_client_auth', 'rest_ssl_cipher_suites', 'rest_secret_refs', 'rest_basic_auth', 'properties',
    'rest_listen_address', 'rest_admin_port',
)


def combine(*mappings: Any) -> Dict[Any, Any]:
    """One mapping from several, a later one's keys replacing an earlier one's, as Ansible's combine (not recursive)."""
    result: Dict[Any, Any] = {}
    for mapping in mappings:
        if not isinstance(mapping, Mapping):
            raise ValueError('combine expects mappings, got %s' % type(mapping).__name__)
        result.update(mapping)
    return result


def kafka_security_properties(worker: Mapping[str, Any]) -> Dict[str, Any]:
    """The security settings of the worker's clients (its own, producer., consumer., admin.), secrets as placeholders.

    None with PLAINTEXT, so the default properties stay what they were before security existed.
    """
    if worker['kafka_security_protocol'] == 'PLAINTEXT':
        return {}
    return prefixed_client_properties(combine(worker['kafka_client_settings'], worker['kafka_client_refs']))


def listener_url(scheme: str, address: Any, port: Any) -> str:
    """A REST listener URI; an IPv6 address goes in brackets."""
    host = jinja_text(address).strip().strip('[]')
    return '%s://%s:%s' % (scheme, '[%s]' % host if ':' in host else host, jinja_text(port))


def rest_listener_properties(worker: Mapping[str, Any]) -> Dict[str, Any]:
    """The plain HTTP listener on the chosen address (HTTPS replaces it), and the admin endpoints on a loopback
    listener of their own: nobody beyond this host changes log levels."""
    properties = {
        'listeners': listener_url('http', worker['rest_listen_address'], worker['rest_port']),
        'rest.advertised.listener': 'http',
    }
    admin_port = jinja_int(worker['rest_admin_port'])
    if admin_port:
        properties['admin.listeners'] = listener_url('http', '127.0.0.1', admin_port)
    return properties


def rest_https_properties(worker: Mapping[str, Any]) -> Dict[str, Any]:
    """The HTTPS listener: Connect reads listeners.https.* for its server and for the calls between workers.

    A store password that is not set has no placeholder: its property is None, which leaves it out.
    """
    refs = worker['rest_secret_refs']
    if not isinstance(refs, Mapping):
        raise ValueError('rest_secret_refs must be a mapping, got %s' % type(refs).__name__)
    suites = worker['rest_ssl_cipher_suites']
    return {
        'listeners': listener_url('https', worker['rest_listen_address'], worker['rest_port']),
        'rest.advertised.listener': 'https',
        'listeners.https.ssl.keystore.type': worker['rest_ssl_keystore_type'],
        'listeners.https.ssl.keystore.location': worker['rest_ssl_keystore_location'],
        'listeners.https.ssl.keystore.password': refs.get('rest.ssl.keystore.password'),
        'listeners.https.ssl.key.password': refs.get('rest.ssl.key.password'),
        'listeners.https.ssl.truststore.type': worker['rest_ssl_truststore_type'],
        'listeners.https.ssl.truststore.location': worker['rest_ssl_truststore_location'],
        'listeners.https.ssl.truststore.password': refs.get('rest.ssl.truststore.password'),
        'listeners.https.ssl.client.auth': worker['rest_ssl_client_auth'],
        'listeners.https.ssl.cipher.suites': ','.join(str(suite) for suite in suites),
        'listeners.https.ssl.endpoint.identification.algorithm': 'https',
    }


def connect_worker_properties(worker: Mapping[str, Any]) -> Dict[str, Any]:
    """connect-distributed.properties as a mapping: the base, then the Kafka security settings, the HTTPS
    listener (with HTTPS), the basic authentication extension (with it), then the user's properties, each
    replacing the keys of the ones before."""
    require_settings(worker, CONNECT_WORKER_PROPERTIES_OPTIONS, 'connect_worker_properties')
    return combine(
        worker['base'],
        rest_listener_properties(worker),
        kafka_security_properties(worker),
        rest_https_properties(worker) if worker['rest_https'] else {},
        {'rest.extension.classes': BASIC_AUTH_EXTENSION} if jinja_bool(worker['rest_basic_auth']) else {},
        worker['properties'],
    )


# ---- The restart watchdog's settings (filter connect_worker_watchdog_settings).
# The options of connect_worker_watchdog_settings: role variables without connect_worker_ (auto_restart_ left out
# of the watchdog's own), the role's health URL, properties, switch rest_https and the exporter's account.
CONNECT_WORKER_WATCHDOG_OPTIONS = (
    'health_base_url', 'properties', 'rest_advertised_host', 'rest_port', 'state_file', 'poll_interval',
    'max_restarts', 'metrics_address', 'metrics_port', 'rest_https', 'rest_ca_path', 'rest_basic_auth', 'rest_users',
    'metrics_enabled', 'stall_seconds', 'exporter_url', 'exporter_username', 'exporter_password', 'exporter_ca_path',
)


def watchdog_worker_id(properties: Mapping[str, Any], advertised_host: Any, port: Any) -> str:
    """Connect's worker_id, the advertised REST host and port: the watchdog acts on what runs there.

    The properties win over the role's settings unless they leave a value empty.
    """
    host = properties.get('rest.advertised.host.name') or advertised_host
    return ('%s:%s' % (jinja_text(host), jinja_text(properties.get('rest.advertised.port') or port))).strip()


def _first_rest_account(worker: Mapping[str, Any]) -> Tuple[Any, Any]:
    """The first REST user's name and password with basic authentication, else two empty strings."""
    if not jinja_bool(worker['rest_basic_auth']):
        return '', ''
    users = worker['rest_users']
    if not users or not isinstance(users[0], Mapping) or not {'username', 'password'} <= set(users[0]):
        raise ValueError('connect_worker_watchdog_settings: basic authentication needs a first REST user with '
                         'username and password')
    return users[0]['username'], users[0]['password']


def connect_worker_watchdog_settings(worker: Mapping[str, Any]) -> Dict[str, Any]:
    """The watchdog's settings file: it reaches its worker as the health gate does, with the first REST account.

    Stall detection reads the worker's own JMX exporter: without the exporter or with stall_seconds 0 it is
    off and the exporter settings are empty; the exporter's CA only counts for an https:// URL.
    """
    require_settings(worker, CONNECT_WORKER_WATCHDOG_OPTIONS, 'connect_worker_watchdog_settings')
    username, password = _first_rest_account(worker)
    stall_detection = jinja_bool(worker['metrics_enabled']) and jinja_int(worker['stall_seconds']) > 0
    exporter_url = str(worker['exporter_url']).strip() if stall_detection else ''
    return {
        'urls': [str(worker['health_base_url']).strip()],
        'worker_id': watchdog_worker_id(worker['properties'], worker['rest_advertised_host'], worker['rest_port']),
        'state_file': worker['state_file'],
        'poll_interval': jinja_int(worker['poll_interval']),
        'max_restarts': jinja_int(worker['max_restarts']),
        'metrics_address': worker['metrics_address'],
        'metrics_port': jinja_int(worker['metrics_port']),
        'username': username,
        'password': password,
        'ca_path': worker['rest_ca_path'] if worker['rest_https'] else '',
        'validate_certs': True,
        'stall_seconds': jinja_int(worker['stall_seconds']) if stall_detection else 0,
        'exporter_url': exporter_url,
        'exporter_username': worker['exporter_username'] if stall_detection else '',
        'exporter_password': worker['exporter_password'] if stall_detection else '',
        'exporter_ca_path': worker['exporter_ca_path'] if exporter_url.startswith('https://') else '',
    }


# ---- The login probe's fingerprint (filter connect_worker_probe_fingerprint).
# The options of connect_worker_probe_fingerprint: the probe's client settings, the Kafka version, the service
# user, the stores and what module path_info said of them, the registered stat results of the Kerberos files,
# and the host's key.
PROBE_FINGERPRINT_OPTIONS = ('client', 'kafka', 'user', 'store_paths', 'stores', 'kerberos_stats', 'key')
# The host's random key as the role keeps it (tasks/credentials.yml): 32 bytes in hex.
PROBE_KEY_RE = re.compile(r'^[0-9a-f]{64}$')


def _checksum(info: Any) -> Any:
    """A file's checksum as path_info or stat reported it; '' for a file it did not report or checksum."""
    return info.get('checksum', '') if isinstance(info, Mapping) else ''


def _loop_results(registered: Any) -> List[Mapping[str, Any]]:
    """The results of a looped task as registered; none when the task left no results (not run)."""
    if not isinstance(registered, Mapping):
        raise ValueError('connect_worker_probe_fingerprint: kerberos_stats holds registered results, got %s'
                         % type(registered).__name__)
    results = registered.get('results', [])
    if any(not isinstance(result, Mapping) or 'item' not in result for result in results):
        raise ValueError('connect_worker_probe_fingerprint: a Kerberos stat result has no item')
    return list(results)


def probe_fingerprint_document(probe: Mapping[str, Any]) -> Dict[str, Any]:
    """What the fingerprint covers: the client settings with their secrets, the Kafka version, the service user,
    and each file the login reads (the stores, then the Kerberos files looked at) with its checksum."""
    require_settings(probe, PROBE_FINGERPRINT_OPTIONS, 'connect_worker_probe_fingerprint')
    stores = probe['stores']
    described = stores.get('paths', {}) if isinstance(stores, Mapping) else {}
    store_paths = list(probe['store_paths'])
    kerberos = [result for registered in probe['kerberos_stats'] for result in _loop_results(registered)]
    return {
        'client': probe['client'],
        'kafka': probe['kafka'],
        'user': probe['user'],
        'files': store_paths + [result['item'] for result in kerberos],
        'checksums': ([_checksum(described.get(path)) for path in store_paths]
                      + [_checksum(result.get('stat')) for result in kerberos]),
    }


def probe_key(probe: Mapping[str, Any]) -> bytes:
    """The host's key: without it the digest would be a plain hash of settings that hold the password."""
    key = probe.get('key')
    if not isinstance(key, str) or not PROBE_KEY_RE.match(key.strip()):
        raise ValueError('connect_worker_probe_fingerprint: key must be the host\'s login probe key, 64 hexadecimal digits')
    return bytes.fromhex(key.strip())


def connect_worker_probe_fingerprint(probe: Mapping[str, Any]) -> str:
    """The HMAC-SHA-256, keyed by the host's key, of the document as Ansible's to_json(sort_keys=true) writes it.

    The document holds the password: an unkeyed hash of it, shown wherever the fingerprint is (the host's file,
    a diff, -v output), could be checked against guessed passwords offline. The key lives elsewhere on the host,
    root-only, and never in the role's output; the same settings and key give the same digest on every run."""
    require_settings(probe, PROBE_FINGERPRINT_OPTIONS, 'connect_worker_probe_fingerprint')
    text = json.dumps(probe_fingerprint_document(probe), cls=get_encoder('tagless'), sort_keys=True)
    return hmac.new(probe_key(probe), to_bytes(text, errors='surrogate_or_strict'), hashlib.sha256).hexdigest()
