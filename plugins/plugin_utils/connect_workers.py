# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Values role connect_worker derives from its settings: JVM options, REST secrets, stores, watchdog URLs;
the workers' REST URLs as role mirrormaker calls them.

Logic behind the filters connect_worker_derived and connect_rest_urls. Numbers and switches are read as the role's
Jinja read them (``| int``, ``| bool``). Errors are ValueError; the filter turns them into
AnsibleFilterError.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_clients import java_login_options
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.role_rules import jinja_bool, jinja_int, require_settings

# The options of connect_worker_derived: role variables without connect_worker_, and the role's
# switches rest_https, kafka_tls, kafka_client_certificate, kafka_gssapi and exporter_tls.
CONNECT_WORKER_DERIVED_OPTIONS = (
    'jmx_port', 'rest_https', 'rest_basic_auth', 'rest_jaas_file', 'krb5_conf', 'kafka_tls', 'kafka_client_certificate',
    'kafka_gssapi', 'kafka_ssl_truststore_location', 'kafka_ssl_keystore_location', 'rest_ssl_keystore_location',
    'rest_ssl_truststore_location', 'rest_ca_path', 'rest_ssl_keystore_password', 'rest_ssl_key_password',
    'rest_ssl_truststore_password', 'rest_advertised_host', 'metrics_address', 'metrics_port', 'exporter_tls',
    'auto_restart_exporter_url', 'auto_restart_metrics_address', 'auto_restart_metrics_port',
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
    }


def connect_rest_urls(play_hosts: Iterable[str], this_host: str, scheme: str, port: Any, advertised_host: str) -> List[str]:
    """The REST URL of this host's worker first (its certificate's name over https, else 127.0.0.1), then the other hosts'."""
    if isinstance(play_hosts, (str, bytes, Mapping)):
        raise ValueError('connect_rest_urls expects the list of the play\'s hosts, got %s' % type(play_hosts).__name__)
    others: List[str] = []
    for host in play_hosts:
        if host != this_host and host not in others:
            others.append(host)
    local = advertised_host if scheme == 'https' else '127.0.0.1'
    return ['%s://%s:%s' % (scheme, host, port) for host in [local] + others]
