#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: kafka_broker_versions
short_description: Tell the Kafka release of each cluster's brokers and refuse those below a floor
version_added: 0.4.0
description:
  - For each cluster of O(clusters), asks the first bootstrap server that takes a connection for its API versions
    (ApiVersionsRequest v0, which every broker since Kafka 0.10 answers, on SASL listeners before authentication, so no
    credentials are needed) and estimates the release it answers as from the highest versions of Produce, Fetch,
    ListOffsets and Metadata it advertises.
  - Fails when a cluster answers as a release below O(floor), naming the cluster, the broker, the release and the floor.
    The default floor, Kafka 2.1, is the oldest broker the collection's 4.x Kafka clients (the failover module, the
    validation job) can talk to (KIP-896).
  - Also fails when no bootstrap server of a cluster takes a connection, when one closes it or stays silent instead of
    answering, when it answers with something that is not Kafka, and when the TLS handshake fails against a CA that was
    given.
  - Over TLS (O(clusters[].security_protocol) C(SSL) or C(SASL_SSL)) the broker's chain is verified against
    O(clusters[].ssl_ca_file), or the certificates of O(clusters[].ssl_truststore_location) (keytool lists them from a
    JKS or PKCS12 store; a PEM store is read as it is), or this host's own CAs when neither is given; its host name
    too, unless O(clusters[].ssl_check_hostname=false).
  - A cluster whose brokers cannot be judged for want of a CA (none given and this host's CAs do not verify them, or a
    trust store or CA file that cannot be read) or of a client certificate the listener asks for is reported as
    C(unknown) with a warning, not as a failure.
  - Reads only; changes nothing.
author:
  - kafka_dr.mm2 maintainers (!UNKNOWN)
options:
  clusters:
    description:
      - The clusters to look at.
      - The C(broker_probes) that M(kafka_dr.mm2.mm2_plan) returns may be given as they are.
    type: list
    elements: dict
    required: true
    suboptions:
      alias:
        description: The cluster's name in messages and in RV(clusters).
        type: str
        required: true
      bootstrap:
        description: The bootstrap servers, C(host:port) each, as a list or one comma-separated string; tried in order.
        type: list
        elements: str
        required: true
      security_protocol:
        description: The security protocol of the listener the bootstrap servers name.
        type: str
        choices: [PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL]
        default: PLAINTEXT
      ssl_ca_file:
        description: A PEM file of the CA certificates that verify the brokers.
        type: path
      ssl_truststore_location:
        description: The trust store of the cluster's clients (C(ssl.truststore.location)), when O(clusters[].ssl_ca_file) is not given.
        type: path
      ssl_truststore_type:
        description: Its type (C(ssl.truststore.type)) as keytool names it, or C(PEM); empty lets keytool tell.
        type: str
        default: ''
      ssl_truststore_password:
        description:
          - Its password; a C(${file:path:key}) placeholder is read from that properties file on the host, as Kafka's
            C(FileConfigProvider) reads it. Not needed for a PEM store.
        type: str
      ssl_check_hostname:
        description: The broker's name must match its certificate (Kafka's C(ssl.endpoint.identification.algorithm=https)).
        type: bool
        default: true
      ssl_certfile:
        description: A PEM client certificate (its chain after it) for a listener that asks for one; it may hold the key too.
        type: path
      ssl_keyfile:
        description: The PEM private key of O(clusters[].ssl_certfile), when that file does not hold it.
        type: path
      ssl_key_password:
        description: The password of that key, or a C(${file:path:key}) placeholder.
        type: str
  floor:
    description:
      - The oldest release accepted, one of those the estimate tells apart (C(0.10.0), C(0.10.1), C(0.11.0), C(1.0),
        C(1.1), C(2.0), C(2.1), C(2.2), C(2.3), C(2.4), C(2.7), C(2.8), C(3.0), C(3.1), C(3.5), C(3.7), C(3.8), C(3.9),
        C(4.0)); a patch release such as C(2.4.1) counts as its minor release.
    type: str
    default: '2.1'
  timeout:
    description: Seconds to wait for each connection, handshake and answer.
    type: float
    default: 10
  keytool:
    description: The keytool command that lists the certificates of JKS and PKCS12 trust stores.
    type: str
    default: keytool
extends_documentation_fragment:
  - kafka_dr.mm2.attributes.read_only
notes:
  - The estimate is a lower bound, as fine as the releases listed under O(floor); a release that added none of the four
    API versions (such as 2.5 or 3.6) answers as the release before it.
  - A client certificate in a JKS or PKCS12 key store cannot be presented; a listener that asks for one then gives
    C(unknown).
'''

EXAMPLES = r'''
- name: Refuse brokers older than the 4.x clients' floor
  kafka_dr.mm2.kafka_broker_versions:
    clusters:
      - alias: emrsource
        bootstrap: [b-1.emr.internal:9096, b-2.emr.internal:9096]
        security_protocol: SASL_SSL
        ssl_truststore_location: /etc/kafka/connect/tls/emrsource-truststore.p12
        ssl_truststore_type: PKCS12
        ssl_truststore_password: ${file:/etc/kafka/connect/secrets/emrsource.properties:ssl.truststore.password}
      - alias: dst
        bootstrap: dst-1:9092,dst-2:9092
  register: brokers

- name: The clusters of the planned flows, from the first worker
  kafka_dr.mm2.kafka_broker_versions:
    clusters: "{{ plan.broker_probes }}"
    floor: "2.4"
  run_once: true
'''

RETURN = r'''
clusters:
  description:
    - Per cluster alias, C(endpoint) (the C(host:port) that answered, null when none did), C(status) (C(ok),
      C(below_floor), C(unknown) or C(error)), C(at_least) (the release it answers as at least, C(unknown) without an
      answer), C(below_floor) (a boolean), C(reason) (why not C(ok), empty otherwise) and C(api_versions) (each
      C(api_key) with its C(min_version) and C(max_version), as the broker sent them).
  returned: always
  type: dict
  sample:
    emrsource: {endpoint: "b-1.emr.internal:9096", status: ok, at_least: "2.8", below_floor: false, reason: "",
                api_versions: [{api_key: 0, min_version: 0, max_version: 9}]}
floor:
  description: The floor the clusters were held to.
  returned: always
  type: str
  sample: "2.1"
refused:
  description: One message per cluster that fails the task (below the floor, or not to be asked at all).
  returned: always
  type: list
  elements: str
  sample: ["cluster 'emr-src' (b-1:9092) answers as Kafka 2.0 (it lacks Produce v7, Fetch v10, ListOffsets v4, Metadata v7,
            which 2.1 brought); the collection needs brokers at 2.1 or later (its 4.x clients' protocol floor)"]
unknown:
  description: One message per cluster whose brokers could not be judged (also given as a warning).
  returned: always
  type: list
  elements: str
'''

from typing import Any, Dict, List, Mapping, Optional, Tuple

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_api_versions import (
    CLIENT_FLOOR,
    RELEASES,
    ProbeError,
    TlsError,
    TlsSettings,
    is_below,
    known_release,
    missing_for,
    parse_endpoint,
    probe_first,
)
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import resolve_file_placeholders
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_stores import StoreReader

CLUSTER_OPTIONS = {
    'alias': {'type': 'str', 'required': True},
    'bootstrap': {'type': 'list', 'elements': 'str', 'required': True},
    'security_protocol': {'type': 'str', 'default': 'PLAINTEXT', 'choices': ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL']},
    'ssl_ca_file': {'type': 'path'},
    'ssl_truststore_location': {'type': 'path'},
    'ssl_truststore_type': {'type': 'str', 'default': ''},
    'ssl_truststore_password': {'type': 'str', 'no_log': True},
    'ssl_check_hostname': {'type': 'bool', 'default': True},
    'ssl_certfile': {'type': 'path'},
    'ssl_keyfile': {'type': 'path', 'no_log': False},
    'ssl_key_password': {'type': 'str', 'no_log': True},
}
ARGUMENT_SPEC = {
    'clusters': {'type': 'list', 'elements': 'dict', 'required': True, 'options': CLUSTER_OPTIONS},
    'floor': {'type': 'str', 'default': CLIENT_FLOOR},
    'timeout': {'type': 'float', 'default': 10},
    'keytool': {'type': 'str', 'default': 'keytool', 'no_log': False},
}


class CannotJudge(Exception):
    """The brokers of a cluster cannot be asked for want of something this host lacks (a CA)."""


def secret(value: Optional[str]) -> Optional[str]:
    """A password option, its ${file:path:key} placeholder read from the host's secret file."""
    if not value:
        return value
    return resolve_file_placeholders({'value': value})['value']


def trusted_certificates(cluster: Mapping[str, Any], reader: StoreReader) -> Tuple[Optional[str], Optional[str]]:
    """(CA file, CA PEM text) of a TLS cluster; both None for this host's own CAs. CannotJudge when
    the CA that was given cannot be had."""
    if cluster['ssl_ca_file']:
        return cluster['ssl_ca_file'], None
    location = cluster['ssl_truststore_location']
    if not location:
        return None, None
    store_type = cluster['ssl_truststore_type'] or ''
    if store_type.upper() == 'PEM':
        return location, None
    try:
        password = secret(cluster['ssl_truststore_password']) or ''
    except ValueError as exc:
        raise CannotJudge('the trust store\'s password cannot be read: %s' % exc) from None
    try:
        error, _entries, pems = reader.read(location, store_type, password)
    except OSError as exc:
        error, pems = 'keytool does not run: %s' % exc, []
    if error:
        raise CannotJudge('trust store %s cannot be read: %s' % (location, error))
    if not pems:
        raise CannotJudge('trust store %s holds no certificate' % location)
    return None, '\n'.join(pems)


def tls_settings(cluster: Mapping[str, Any], reader: StoreReader) -> Optional[TlsSettings]:
    if cluster['security_protocol'] not in ('SSL', 'SASL_SSL'):
        return None
    ca_file, ca_pem = trusted_certificates(cluster, reader)
    try:
        key_password = secret(cluster['ssl_key_password'])
    except ValueError as exc:
        raise CannotJudge('the client key\'s password cannot be read: %s' % exc) from None
    return TlsSettings(ca_file=ca_file, ca_pem=ca_pem, check_hostname=cluster['ssl_check_hostname'],
                       certfile=cluster['ssl_certfile'], keyfile=cluster['ssl_keyfile'], key_password=key_password)


def judge(cluster: Mapping[str, Any], floor: str, reader: StoreReader, timeout: float) -> Dict[str, Any]:
    """The entry of RV(clusters) for one cluster."""
    alias = cluster['alias']
    entry: Dict[str, Any] = {'endpoint': None, 'status': 'error', 'at_least': 'unknown', 'below_floor': False,
                             'reason': '', 'api_versions': []}
    tls: Optional[TlsSettings] = None
    try:
        endpoints = [parse_endpoint(item) for item in cluster['bootstrap'] if item.strip()]
        if not endpoints:
            raise ValueError('bootstrap names no server')
        tls = tls_settings(cluster, reader)
        answer = probe_first(endpoints, tls, timeout)
    except ValueError as exc:
        entry['reason'] = 'cluster %r: %s' % (alias, exc)
        return entry
    except CannotJudge as exc:
        entry.update(status='unknown', reason='cluster %r: the broker version was not checked: %s' % (alias, exc))
        return entry
    except TlsError as exc:
        entry['endpoint'] = exc.endpoint
        own_ca = tls is not None and tls.own_ca
        if exc.cause in ('setup', 'client_certificate') or (exc.cause == 'verify' and not own_ca):
            hint = '' if own_ca or exc.cause != 'verify' else ' (no ssl_ca_file or trust store given: this host\'s CAs were tried)'
            entry.update(status='unknown', reason='cluster %r: the broker version was not checked: %s%s' % (alias, exc, hint))
        else:
            entry['reason'] = 'cluster %r: %s' % (alias, exc)
        return entry
    except ProbeError as exc:
        entry['reason'] = 'cluster %r: %s' % (alias, exc)
        return entry
    entry.update(answer.as_dict())
    entry['below_floor'] = is_below(answer.at_least, floor)
    if entry['below_floor']:
        entry['status'] = 'below_floor'
        why = 'its 4.x clients\' protocol floor' if floor == CLIENT_FLOOR else 'the floor given'
        following = RELEASES[RELEASES.index(answer.at_least) + 1]
        entry['reason'] = ('cluster %r (%s) answers as Kafka %s (it lacks %s, which %s brought); the collection needs brokers '
                           'at %s or later (%s)' % (alias, answer.endpoint, answer.at_least,
                                                    ', '.join(missing_for(answer.api_versions, following)), following, floor, why))
    else:
        entry['status'] = 'ok'
    return entry


def main() -> None:
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    floor = known_release(module.params['floor'])
    if floor is None:
        module.fail_json(msg='floor must be a release the estimate tells apart (%s), got %r'
                         % (', '.join(RELEASES), module.params['floor']))
    aliases = [cluster['alias'] for cluster in module.params['clusters']]
    repeated = sorted({alias for alias in aliases if aliases.count(alias) > 1})
    if repeated:
        module.fail_json(msg='each cluster alias must be given once: %s repeated' % ', '.join(repeated))
    keytool = module.get_bin_path(module.params['keytool'], required=False) or module.params['keytool']
    reader = StoreReader(keytool)
    clusters = {cluster['alias']: judge(cluster, floor, reader, module.params['timeout'])
                for cluster in module.params['clusters']}
    ordered = [clusters[alias] for alias in aliases]
    refused: List[str] = [entry['reason'] for entry in ordered if entry['status'] == 'below_floor']
    refused += [entry['reason'] for entry in ordered if entry['status'] == 'error']
    unknown = [entry['reason'] for entry in ordered if entry['status'] == 'unknown']
    for message in unknown:
        module.warn(message)
    result = {'changed': False, 'clusters': clusters, 'floor': floor, 'refused': refused, 'unknown': unknown}
    if refused:
        module.fail_json(msg='; '.join(refused), **result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
