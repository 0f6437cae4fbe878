"""connect_worker_probe_fingerprint keys its digest with the host's key: an HMAC-SHA-256 of the document the
role's former Jinja hashed, so the fingerprint cannot be checked against guessed passwords without the key.

Hosts keep the fingerprint of the settings that last logged in, and the role runs the login probe again
when it differs: the same settings and key must give the same digest on every run.
fixtures/connect_worker_probe_fingerprint_jinja.yml holds that Jinja as it was in vars/main.yml; each case
renders its document with Ansible's templar (its to_json filter) and compares with the filter.
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path
from typing import Any, Dict

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.connect_worker_probe_fingerprint import connect_worker_probe_fingerprint

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'connect_worker_probe_fingerprint_jinja.yml'
STORES = ['/etc/kafka/connect/tls/truststore.p12', '/etc/kafka/connect/tls/keystore.p12', '/etc/kafka/connect/tls/ca.pem']
# What module path_info reported: a checksum, a path that does not exist, a path it was not asked about.
PATH_INFO = {'changed': False, 'missing': ['/etc/kafka/connect/tls/keystore.p12'], 'paths': {
    STORES[0]: {'exists': True, 'isreg': True, 'checksum': 'a' * 64}, STORES[1]: {'exists': False}}}
# Looped stat results: every item skipped (the block's switch off), and one run with files that exist or not.
STAT_SKIPPED = {'skipped': True, 'changed': False, 'msg': 'All items skipped', 'results': [
    {'skipped': True, 'changed': False, 'item': '/etc/kafka/connect/connect.keytab', 'ansible_loop_var': 'item'},
    {'skipped': True, 'changed': False, 'item': '', 'ansible_loop_var': 'item'}]}
STAT_RUN = {'changed': False, 'results': [
    {'changed': False, 'item': 'files/connect.keytab', 'stat': {'exists': True, 'checksum': 'b' * 64}},
    {'changed': False, 'item': 'files/krb5.conf', 'stat': {'exists': False}}]}
SCRAM = {'bootstrap.servers': 'broker-1:9094', 'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'SCRAM-SHA-512',
         'sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required username="connect" password="s";',
         'ssl.truststore.location': STORES[0], 'ssl.truststore.type': 'PKCS12'}

BASE: Dict[str, Any] = {'client': SCRAM, 'kafka': '3.9.1', 'user': 'kafka', 'store_paths': []}
KEY = '5f' * 32
OTHER_KEY = '0a' * 32
CASES: Dict[str, Dict[str, Any]] = {
    'nothing registered': {},
    'stores with checksums': {'store_paths': STORES, 'stores': PATH_INFO},
    'stores not looked at': {'store_paths': STORES[:1]},
    'stores task skipped': {'store_paths': STORES[:1], 'stores': {'skipped': True, 'changed': False}},
    'kerberos files skipped and looked at': {'kerberos_stat': STAT_SKIPPED, 'kerberos_src_stat': STAT_RUN},
    'kerberos tasks skipped without results': {'kerberos_stat': {'skipped': True}, 'kerberos_src_stat': {'skipped': True}},
    'everything': {'store_paths': STORES, 'stores': PATH_INFO, 'kerberos_stat': STAT_RUN, 'kerberos_src_stat': STAT_SKIPPED},
    'non-ASCII, quotes and backslashes': {'client': dict(SCRAM, **{'sasl.jaas.config': 'password="\u00e9\u4e2d\\"x\\\\\n\U0001f600";'})},
    'numbers, booleans and None': {'client': dict(SCRAM, **{'request.timeout.ms': 30000, 'x.flag': True, 'x.none': None,
                                                            'x.list': ['b', 'a'], 'x.float': 1.5}), 'kafka': 3.9},
    'keys sorted at every level': {'client': {'z': {'b': 1, 'a': [{'y': 2, 'x': 1}]}, 'a': 'first'}},
}


def trusted(value: Any) -> Any:
    """The fixture's strings, nested ones included, as templates."""
    if isinstance(value, dict):
        return {key: trusted(item) for key, item in value.items()}
    return trust_as_template(value) if isinstance(value, str) else value


def jinja_document(probe: Dict[str, Any]) -> str:
    """The document the role's former Jinja hashed, as text; a registered result missing from probe was undefined."""
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8').replace("| hash('sha256')", ''))
    variables: Dict[str, Any] = {name: trusted(value) for name, value in old.items()}
    variables.update({'__connect_worker_probe_properties': probe['client'], 'kafka_install_version': probe['kafka'],
                      'kafka_install_user': probe['user'], '__connect_worker_store_paths': probe['store_paths']})
    for name in ('stores', 'kerberos_stat', 'kerberos_src_stat'):
        if name in probe:
            variables['__connect_worker_' + name] = probe[name]
    templar = Templar(loader=DataLoader(), variables=variables)
    return templar.template(trust_as_template('{{ __connect_worker_probe_fingerprint }}')).strip()


def filter_input(probe: Dict[str, Any], key: str = KEY) -> Dict[str, Any]:
    """The filter's input as vars/main.yml gives it: an undefined registered result is {}."""
    return {'client': probe['client'], 'kafka': probe['kafka'], 'user': probe['user'], 'store_paths': probe['store_paths'],
            'stores': probe.get('stores', {}), 'kerberos_stats': [probe.get('kerberos_stat', {}), probe.get('kerberos_src_stat', {})],
            'key': key}


@pytest.mark.parametrize('changes', CASES.values(), ids=list(CASES))
def test_an_hmac_keyed_by_the_host_key_of_the_former_document(changes: Dict[str, Any]) -> None:
    probe = dict(BASE, **changes)
    expected = hmac.new(bytes.fromhex(KEY), jinja_document(probe).encode('utf-8', 'surrogatepass'), hashlib.sha256).hexdigest()
    assert connect_worker_probe_fingerprint(filter_input(probe)) == expected


def test_a_rerun_with_the_same_settings_and_key_matches() -> None:
    probe = dict(BASE, **CASES['everything'])
    assert connect_worker_probe_fingerprint(filter_input(probe)) == connect_worker_probe_fingerprint(filter_input(probe))
    # The key file holds the key with a line break, as the role writes it.
    assert connect_worker_probe_fingerprint(filter_input(probe, KEY + '\n')) == connect_worker_probe_fingerprint(filter_input(probe))


def test_without_the_key_the_digest_is_neither_the_unkeyed_hash_nor_another_hosts() -> None:
    probe = dict(BASE, **CASES['everything'])
    digest = connect_worker_probe_fingerprint(filter_input(probe))
    # What the former Jinja recorded for these settings: a plain sha256 of the settings, password included.
    assert digest != '4e405d70e9139c07add160a3e8e2ea1a96600c24f15099ec4fc0b2d9cd13256e'
    assert digest != hashlib.sha256(jinja_document(probe).encode('utf-8', 'surrogatepass')).hexdigest()
    assert digest != connect_worker_probe_fingerprint(filter_input(probe, OTHER_KEY))


@pytest.mark.parametrize('key', ['', None, 'not-hex' * 9, '5f' * 31, '5F' * 32])
def test_a_missing_or_malformed_key_is_refused(key: Any) -> None:
    with pytest.raises(AnsibleFilterError, match='key must be the host.s login probe key, 64 hexadecimal digits'):
        connect_worker_probe_fingerprint(filter_input(BASE, key))


def test_each_input_changes_the_digest() -> None:
    probe = filter_input(dict(BASE, **CASES['everything']))
    digests = {connect_worker_probe_fingerprint(probe)}
    for name, value in {'client': dict(SCRAM, **{'sasl.jaas.config': 'other'}), 'kafka': '4.0.0', 'user': 'connect',
                        'store_paths': STORES[:2], 'stores': {}, 'kerberos_stats': [{}, STAT_RUN]}.items():
        digests.add(connect_worker_probe_fingerprint(dict(probe, **{name: value})))
    assert len(digests) == 7


def test_a_missing_input_is_named() -> None:
    probe = filter_input(BASE)
    del probe['user']
    with pytest.raises(AnsibleFilterError, match='missing user'):
        connect_worker_probe_fingerprint(probe)


def test_a_stat_result_without_item_is_refused() -> None:
    probe = dict(filter_input(BASE), kerberos_stats=[{'results': [{'stat': {}}]}])
    with pytest.raises(AnsibleFilterError, match='has no item'):
        connect_worker_probe_fingerprint(probe)
