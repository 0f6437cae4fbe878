"""file_placeholders maps secret names to the ${file:...} placeholders Kafka resolves."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.file_placeholders import file_placeholders

SECRETS_FILE = '/etc/kafka/connect/secrets/worker.properties'


def test_each_key_reads_itself_from_the_file() -> None:
    assert file_placeholders(['sasl.jaas.config', 'ssl.key.password'], SECRETS_FILE) == {
        'sasl.jaas.config': '${file:/etc/kafka/connect/secrets/worker.properties:sasl.jaas.config}',
        'ssl.key.password': '${file:/etc/kafka/connect/secrets/worker.properties:ssl.key.password}',
    }


def test_the_keys_of_a_mapping_are_used_never_its_values() -> None:
    placeholders = file_placeholders({'ssl.truststore.password': 'store-secret'}, SECRETS_FILE)
    assert placeholders == {'ssl.truststore.password': '${file:%s:ssl.truststore.password}' % SECRETS_FILE}
    assert 'store-secret' not in str(placeholders)


def test_no_keys_no_placeholders() -> None:
    assert file_placeholders([], SECRETS_FILE) == {}


@pytest.mark.parametrize('path', ['secrets/worker.properties', '', None])
def test_relative_or_missing_paths_are_refused(path: object) -> None:
    with pytest.raises(AnsibleFilterError, match='absolute path'):
        file_placeholders(['a'], path)  # type: ignore[arg-type]


def test_a_single_string_is_not_taken_for_a_list_of_characters() -> None:
    with pytest.raises(AnsibleFilterError, match='list'):
        file_placeholders('sasl.jaas.config', SECRETS_FILE)
