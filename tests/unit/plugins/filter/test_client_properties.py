"""client_properties repeats one client's settings for the worker and its connector clients."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.client_properties import client_properties


def test_every_setting_under_every_worker_client_prefix() -> None:
    settings = {'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'SCRAM-SHA-512'}
    assert client_properties(settings) == {
        'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'SCRAM-SHA-512',
        'producer.security.protocol': 'SASL_SSL', 'producer.sasl.mechanism': 'SCRAM-SHA-512',
        'consumer.security.protocol': 'SASL_SSL', 'consumer.sasl.mechanism': 'SCRAM-SHA-512',
        'admin.security.protocol': 'SASL_SSL', 'admin.sasl.mechanism': 'SCRAM-SHA-512',
    }


def test_settings_not_in_use_are_left_out() -> None:
    assert client_properties({'security.protocol': 'SSL', 'ssl.keystore.location': None}, prefixes=['', 'admin.']) == {
        'security.protocol': 'SSL', 'admin.security.protocol': 'SSL'}


def test_values_keep_their_types() -> None:
    assert client_properties({'retries': 3, 'enable.idempotence': True}, prefixes=['producer.']) == {
        'producer.retries': 3, 'producer.enable.idempotence': True}


def test_no_settings_give_no_properties() -> None:
    assert client_properties({}) == {}


@pytest.mark.parametrize('prefixes', [['producer'], 'producer.', [None]])
def test_malformed_prefixes_are_refused(prefixes: object) -> None:
    with pytest.raises(AnsibleFilterError, match='client_properties'):
        client_properties({'security.protocol': 'SSL'}, prefixes=prefixes)  # type: ignore[arg-type]


def test_settings_must_be_a_mapping() -> None:
    with pytest.raises(AnsibleFilterError, match='mapping'):
        client_properties([('security.protocol', 'SSL')])  # type: ignore[arg-type]
