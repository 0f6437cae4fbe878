# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cross-field rules of the roles' settings, the ones their argument specs cannot express.

Controller-side logic behind the filters connect_worker_errors and kafka_broker_errors. Each
function takes the role's variables by name and returns one message per broken rule, naming
the variables, in the order the rules are listed; an empty list means the settings are valid.
Values are read as the roles' Jinja read them (``| int``, ``| bool``), so a number given as a
string is checked as the number. Errors in the input itself are ValueError.
"""

from __future__ import annotations

import ipaddress
import os
import re
from typing import Any, Iterable, List, Mapping, Optional, Tuple

NOTHING_CHANGED = 'Nothing was changed.'
_TRUE = frozenset(('yes', 'on', 'true', '1'))
_HOST_PORT = re.compile(r'^[^:\s]+:[0-9]+$')
_JVM_SIZE = re.compile(r'^[0-9]+[kKmMgG]$')
_CLUSTER_ID = re.compile(r'^[A-Za-z0-9_-]{22}$')
_NODE_ID = re.compile(r'^[0-9]+$')
_PLAIN_USER = re.compile(r'^[A-Za-z0-9._-]+$')
_KERBEROS_SERVICE_PRINCIPAL = re.compile(r'^[A-Za-z0-9._-]+/[A-Za-z0-9._-]+@[A-Za-z0-9._-]+$')

CONNECT_WORKER_VARIABLES = (
    'connect_worker_bootstrap_servers', 'connect_worker_rest_port', 'connect_worker_jmx_port', 'connect_worker_heap',
    'connect_worker_auto_restart', 'connect_worker_auto_restart_poll_interval',
    'connect_worker_auto_restart_max_restarts', 'connect_worker_auto_restart_metrics_port',
    'connect_worker_auto_restart_stall_seconds', 'connect_worker_auto_restart_exporter_url',
    'connect_worker_kafka_security_protocol', 'connect_worker_kafka_sasl_mechanism',
    'connect_worker_kafka_sasl_username', 'connect_worker_kafka_sasl_password',
    'connect_worker_kafka_kerberos_principal', 'connect_worker_kafka_kerberos_keytab',
    'connect_worker_rest_scheme', 'connect_worker_rest_ssl_keystore_type', 'connect_worker_rest_basic_auth',
    'connect_worker_rest_users', 'connect_worker_rest_listen_address', 'connect_worker_rest_ssl_client_auth',
    'connect_worker_rest_insecure', 'connect_worker_rest_admin_port', 'connect_worker_client_config_override_policy',
    'kafka_install_version',
)
# KIP-1188 added the override policy Allowlist in Kafka 4.2.
ALLOWLIST_POLICY_SINCE = (4, 2)

KAFKA_BROKER_VARIABLES = (
    'inventory_hostname', 'kafka_broker_group', 'kafka_broker_group_members', 'kafka_broker_client_listeners',
    'kafka_broker_cluster_id', 'kafka_broker_node_id', 'kafka_broker_controller_port',
    'kafka_broker_inter_broker_listener', 'kafka_broker_plaintext_enabled', 'kafka_broker_ssl_enabled',
    'kafka_broker_sasl_ssl_enabled', 'kafka_broker_sasl_mechanisms', 'kafka_broker_plain_users',
    'kafka_broker_authorizer_enabled', 'kafka_broker_kerberos_principal', 'kafka_broker_kerberos_keytab_src',
)


def jinja_int(value: Any) -> int:
    """What Jinja's ``int`` filter gives: the number, the whole part of a decimal, else 0."""
    try:
        return int(value, 10) if isinstance(value, str) else int(value)
    except (TypeError, ValueError):
        try:
            return int(float(value))
        except (TypeError, ValueError, OverflowError):
            return 0


def jinja_bool(value: Any) -> bool:
    """What Ansible's ``bool`` filter gives: yes, on, true and 1 in any case, 1 and True are true."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (str, int)):
        return str(value).lower() in _TRUE
    return value == 1


def jinja_text(value: Any) -> str:
    """A value as a template prints it in a message."""
    return '' if value is None else str(value)


def require_settings(settings: Mapping[str, Any], names: Iterable[str], what: str) -> None:
    """Refuse (ValueError) anything but a mapping that holds each of the names; what names the caller."""
    if not isinstance(settings, Mapping):
        raise ValueError('%s expects a mapping of the role variables, got %s' % (what, type(settings).__name__))
    missing = [name for name in names if name not in settings]
    if missing:
        raise ValueError('%s is missing %s' % (what, ', '.join(missing)))


def connect_worker_errors(settings: Mapping[str, Any]) -> List[str]:
    """The broken rules of role connect_worker's settings (keys: CONNECT_WORKER_VARIABLES)."""
    require_settings(settings, CONNECT_WORKER_VARIABLES, 'connect_worker_errors')
    get = settings.__getitem__
    errors: List[str] = []

    def broken(message: str) -> None:
        errors.append('connect_worker: %s %s' % (message, NOTHING_CHANGED))

    bootstrap = jinja_text(get('connect_worker_bootstrap_servers'))
    if not bootstrap.strip() or any(not _HOST_PORT.match(server.strip()) for server in bootstrap.split(',')):
        broken("connect_worker_bootstrap_servers must be a comma-separated host:port list (got '%s')." % bootstrap)
    rest_port = jinja_int(get('connect_worker_rest_port'))
    if not 0 < rest_port < 65536:
        broken('connect_worker_rest_port must be 1-65535 (got %s).' % jinja_text(get('connect_worker_rest_port')))

    if jinja_bool(get('connect_worker_auto_restart')):
        poll_interval = jinja_int(get('connect_worker_auto_restart_poll_interval'))
        if poll_interval <= 0:
            broken('connect_worker_auto_restart_poll_interval must be positive (got %s).'
                   % jinja_text(get('connect_worker_auto_restart_poll_interval')))
        if jinja_int(get('connect_worker_auto_restart_max_restarts')) < 0:
            broken('connect_worker_auto_restart_max_restarts must be 0 (no cap) or more (got %s).'
                   % jinja_text(get('connect_worker_auto_restart_max_restarts')))
        metrics_port = jinja_int(get('connect_worker_auto_restart_metrics_port'))
        if not 0 < metrics_port < 65536 or metrics_port in (rest_port, jinja_int(get('connect_worker_jmx_port'))):
            broken('connect_worker_auto_restart_metrics_port must be 1-65535 and differ from the REST and JMX ports '
                   '(got %s; REST %s, JMX %s).' % (jinja_text(get('connect_worker_auto_restart_metrics_port')),
                                                   jinja_text(get('connect_worker_rest_port')),
                                                   jinja_text(get('connect_worker_jmx_port'))))
        stall_seconds = jinja_int(get('connect_worker_auto_restart_stall_seconds'))
        exporter_url = jinja_text(get('connect_worker_auto_restart_exporter_url'))
        stall_valid = stall_seconds == 0 or stall_seconds >= 2 * poll_interval
        if stall_seconds < 0 or not stall_valid or (exporter_url and not re.match('https?://', exporter_url)):
            broken('connect_worker_auto_restart_stall_seconds must be 0 (off) or at least twice '
                   'connect_worker_auto_restart_poll_interval (got %s, poll interval %s), and '
                   "connect_worker_auto_restart_exporter_url empty or an http(s):// URL (got '%s')."
                   % (jinja_text(get('connect_worker_auto_restart_stall_seconds')),
                      jinja_text(get('connect_worker_auto_restart_poll_interval')), exporter_url))

    heap = jinja_text(get('connect_worker_heap'))
    if not _JVM_SIZE.match(heap):
        broken("connect_worker_heap must be a JVM size such as 512m (got '%s')." % heap)

    protocol = get('connect_worker_kafka_security_protocol')
    mechanism = get('connect_worker_kafka_sasl_mechanism')
    sasl = protocol in ('SASL_SSL', 'SASL_PLAINTEXT')
    gssapi = sasl and mechanism == 'GSSAPI'
    if sasl and not gssapi and not (jinja_text(get('connect_worker_kafka_sasl_username'))
                                    and jinja_text(get('connect_worker_kafka_sasl_password'))):
        broken('connect_worker_kafka_security_protocol %s with connect_worker_kafka_sasl_mechanism %s needs '
               'connect_worker_kafka_sasl_username and connect_worker_kafka_sasl_password.'
               % (jinja_text(protocol), jinja_text(mechanism)))
    if gssapi and not jinja_text(get('connect_worker_kafka_kerberos_principal')):
        broken('connect_worker_kafka_sasl_mechanism GSSAPI needs connect_worker_kafka_kerberos_principal.')

    rest_https = get('connect_worker_rest_scheme') == 'https'
    if rest_https and get('connect_worker_rest_ssl_keystore_type') == 'PEM':
        broken('connect_worker_rest_ssl_keystore_type must be PKCS12 or JKS with connect_worker_rest_scheme=https '
               '(the REST server reads no PEM).')
    if jinja_bool(get('connect_worker_rest_basic_auth')):
        if not rest_https:
            broken('connect_worker_rest_basic_auth needs connect_worker_rest_scheme=https (passwords would cross the '
                   'network in clear).')
        if not get('connect_worker_rest_users'):
            broken('connect_worker_rest_basic_auth needs at least one connect_worker_rest_users entry (the health gate '
                   'logs in with the first).')
    open_rest = rest_open_to_network(settings)
    if open_rest:
        broken(open_rest)
    admin_port = jinja_int(get('connect_worker_rest_admin_port'))
    if admin_port and (not 0 < admin_port < 65536 or admin_port == rest_port):
        broken('connect_worker_rest_admin_port must be 0 (no admin listener) or 1-65535 and differ from '
               'connect_worker_rest_port (got %s).' % jinja_text(get('connect_worker_rest_admin_port')))
    kafka_version = kafka_release(get('kafka_install_version'))
    if get('connect_worker_client_config_override_policy') == 'Allowlist' and (kafka_version or (0, 0)) < ALLOWLIST_POLICY_SINCE:
        broken('connect_worker_client_config_override_policy=Allowlist needs Kafka 4.2 or later (kafka_install_version '
               'is %s): upgrade, or set the policy to All.' % jinja_text(get('kafka_install_version')))
    return errors


def kafka_release(version: Any) -> Optional[Tuple[int, int]]:
    """A Kafka version's major and minor numbers ('4.3.1' -> (4, 3)); None when it does not start with them."""
    match = re.match(r'^\s*(\d+)\.(\d+)', jinja_text(version))
    return (int(match.group(1)), int(match.group(2))) if match else None


def is_loopback(address: str) -> bool:
    """An address only this host reaches: 127.0.0.0/8, ::1 or localhost."""
    host = address.strip().strip('[]').lower()
    if host == 'localhost':
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def rest_open_to_network(settings: Mapping[str, Any]) -> str:
    """Why the REST API would let anyone on the network in: plain HTTP or no authentication on an address other
    than loopback ('' when it does not, or when connect_worker_rest_insecure opts in). Anyone who reaches such a
    listener can create connectors, point their clients anywhere and read the secret files through placeholders."""
    address = jinja_text(settings['connect_worker_rest_listen_address'])
    if jinja_bool(settings['connect_worker_rest_insecure']) or is_loopback(address):
        return ''
    https = settings['connect_worker_rest_scheme'] == 'https'
    authenticated = jinja_bool(settings['connect_worker_rest_basic_auth']) or (
        https and settings['connect_worker_rest_ssl_client_auth'] == 'required')
    gaps = [gap for gap, missing in (('plain HTTP', not https), ('no authentication', not authenticated)) if missing]
    if not gaps:
        return ''
    return ('the REST API would listen on %s:%s with %s: anyone who reaches it can create connectors that read the '
            'secret files and send them anywhere. Set connect_worker_rest_scheme=https with '
            'connect_worker_rest_basic_auth=true and connect_worker_rest_users (or '
            'connect_worker_rest_ssl_client_auth=required), or connect_worker_rest_listen_address=127.0.0.1 for a '
            'single worker, or accept it with connect_worker_rest_insecure=true.'
            % (address, jinja_text(settings['connect_worker_rest_port']), ' and '.join(gaps)))


def kafka_broker_errors(settings: Mapping[str, Any]) -> List[str]:
    """The broken rules of role kafka_broker's settings (keys: KAFKA_BROKER_VARIABLES).

    kafka_broker_group_members lists the hosts of the inventory group (empty when there is no
    such group); kafka_broker_client_listeners the enabled client listeners, each with name,
    protocol and port. kafka_broker_kerberos_keytab_src is looked for on this machine.
    """
    require_settings(settings, KAFKA_BROKER_VARIABLES, 'kafka_broker_errors')
    get = settings.__getitem__
    errors: List[str] = []

    def broken(message: str) -> None:
        errors.append('kafka_broker: %s %s' % (message, NOTHING_CHANGED))

    if get('inventory_hostname') not in (get('kafka_broker_group_members') or ()):
        broken("%s must be listed in the inventory group kafka_broker_group ('%s')."
               % (jinja_text(get('inventory_hostname')), jinja_text(get('kafka_broker_group'))))
    if not _CLUSTER_ID.match(jinja_text(get('kafka_broker_cluster_id'))):
        broken("kafka_broker_cluster_id must be a 22-character id (generate one with `kafka-run "
               "kafka.tools.StorageTool random-uuid`), got '%s'." % jinja_text(get('kafka_broker_cluster_id')))
    if not _NODE_ID.match(str(get('kafka_broker_node_id'))):
        broken("kafka_broker_node_id must be a non-negative integer (got '%s')." % jinja_text(get('kafka_broker_node_id')))

    listeners = list(get('kafka_broker_client_listeners'))
    names = [jinja_text(listener['name']) for listener in listeners]
    ports = [listener['port'] for listener in listeners]
    if not listeners:
        broken('enable at least one client listener (kafka_broker_plaintext_enabled, kafka_broker_sasl_ssl_enabled, '
               'kafka_broker_ssl_enabled).')
    if len({name.upper() for name in names}) != len(names):
        broken('kafka_broker_listener_name, kafka_broker_sasl_ssl_listener_name and kafka_broker_ssl_listener_name must '
               'differ (got %s).' % ', '.join(names))
    if len({jinja_int(port) for port in ports + [get('kafka_broker_controller_port')]}) != len(ports) + 1:
        broken('the ports of the enabled listeners (kafka_broker_port, kafka_broker_sasl_ssl_port, kafka_broker_ssl_port: '
               '%s) and kafka_broker_controller_port (%s) must differ.'
               % (', '.join(jinja_text(port) for port in ports), jinja_text(get('kafka_broker_controller_port'))))
    if get('kafka_broker_inter_broker_listener') not in names:
        broken("kafka_broker_inter_broker_listener ('%s') must name an enabled listener (%s)."
               % (jinja_text(get('kafka_broker_inter_broker_listener')), ', '.join(names)))

    sasl_ssl = jinja_bool(get('kafka_broker_sasl_ssl_enabled'))
    ssl = jinja_bool(get('kafka_broker_ssl_enabled'))
    if sasl_ssl and not get('kafka_broker_sasl_mechanisms'):
        broken('kafka_broker_sasl_mechanisms must list at least one mechanism with kafka_broker_sasl_ssl_enabled.')
    users = list(get('kafka_broker_plain_users'))
    bad_names = [jinja_text(user['username']) for user in users if not _PLAIN_USER.match(jinja_text(user['username']))]
    if bad_names:
        broken("kafka_broker_plain_users names use letters, digits, '.', '_' and '-' (got %s)." % ', '.join(bad_names))
    if jinja_bool(get('kafka_broker_authorizer_enabled')) and not ssl:
        broken('kafka_broker_authorizer_enabled needs kafka_broker_ssl_enabled: brokers and controllers prove who they '
               'are with their certificates there, and the role runs its admin commands through it.')
    if not jinja_bool(get('kafka_broker_plaintext_enabled')) and not ssl:
        broken("with kafka_broker_plaintext_enabled off, kafka_broker_ssl_enabled must be on (it carries the "
               "inter-broker and controller traffic and the role's admin commands).")

    principal = jinja_text(get('kafka_broker_kerberos_principal'))
    keytab_src = jinja_text(get('kafka_broker_kerberos_keytab_src'))
    gssapi = sasl_ssl and 'GSSAPI' in (get('kafka_broker_sasl_mechanisms') or ())
    if gssapi and not (_KERBEROS_SERVICE_PRINCIPAL.match(principal) and (not keytab_src or os.path.isfile(keytab_src))):
        broken("GSSAPI needs kafka_broker_kerberos_principal as service/host@REALM (got '%s') and "
               "kafka_broker_kerberos_keytab_src, when set, must be a file on the controller (got '%s')."
               % (principal, keytab_src))
    return errors
