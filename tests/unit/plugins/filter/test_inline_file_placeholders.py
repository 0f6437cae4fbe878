"""inline_file_placeholders puts a worker's own secrets back where its placeholders stood, and only those."""

from __future__ import annotations

from typing import Any

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.inline_file_placeholders import inline_file_placeholders

WORKER_SECRETS = '/etc/kafka/connect/worker-secrets.properties'
JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="connect" password="s3cr=t";'


def test_the_placeholders_of_the_file_take_their_values() -> None:
    properties = {
        'sasl.jaas.config': '${file:%s:sasl.jaas.config}' % WORKER_SECRETS,
        'producer.sasl.jaas.config': '${file:%s:sasl.jaas.config}' % WORKER_SECRETS,
        'listeners.https.ssl.keystore.password': '${file:%s:rest.ssl.keystore.password}' % WORKER_SECRETS,
        'group.id': 'connect-mm2',
    }
    values = {'sasl.jaas.config': JAAS, 'rest.ssl.keystore.password': 'st0re'}
    assert inline_file_placeholders(properties, WORKER_SECRETS, values) == {
        'sasl.jaas.config': JAAS, 'producer.sasl.jaas.config': JAAS,
        'listeners.https.ssl.keystore.password': 'st0re', 'group.id': 'connect-mm2'}


@pytest.mark.parametrize('value', [
    '${file:/etc/kafka/connect/secrets/mm2.properties:sasl.jaas.config}',   # another file: a connector's
    '${file:%s:ssl.key.password}' % WORKER_SECRETS,                         # a key the values do not hold
    'prefix ${file:%s:sasl.jaas.config}' % WORKER_SECRETS,                  # not the whole value
    None, 8083,
])
def test_anything_else_stays_as_it_is(value: Any) -> None:
    assert inline_file_placeholders({'key': value}, WORKER_SECRETS, {'sasl.jaas.config': JAAS}) == {'key': value}


@pytest.mark.parametrize('properties, values, path', [
    (['sasl.jaas.config'], {}, WORKER_SECRETS),
    ({}, ['sasl.jaas.config'], WORKER_SECRETS),
    ({}, {'sasl.jaas.config': JAAS}, 'worker-secrets.properties'),
])
def test_wrong_input_is_refused(properties: Any, values: Any, path: str) -> None:
    with pytest.raises(AnsibleFilterError):
        inline_file_placeholders(properties, path, values)
