"""properties_files turns named settings into file_set entries, one properties file each."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.properties_files import properties_files


def test_one_entry_per_name_in_name_order_with_rendered_content() -> None:
    entries = properties_files({'b.properties': {'password': 'p=1'}, 'a.properties': {'user': 'mm2'}},
                               '/etc/kafka/secrets/', owner='root', group='kafka', secret=True)
    assert entries == [
        {'dest': '/etc/kafka/secrets/a.properties', 'content': 'user=mm2\n', 'mode': '0640', 'secret': True,
         'owner': 'root', 'group': 'kafka'},
        {'dest': '/etc/kafka/secrets/b.properties', 'content': 'password=p=1\n', 'mode': '0640', 'secret': True,
         'owner': 'root', 'group': 'kafka'},
    ]


def test_attribute_and_suffix_pick_the_settings_of_each_value() -> None:
    clusters = {'src': {'bootstrap_servers': 'src:9094', 'client_properties': {'security.protocol': 'SASL_SSL'}}}
    assert properties_files(clusters, '/etc/mm2', suffix='.properties', attribute='client_properties', mode='0600') == [
        {'dest': '/etc/mm2/src.properties', 'content': 'security.protocol=SASL_SSL\n', 'mode': '0600', 'secret': False}]


def test_no_names_no_entries() -> None:
    assert properties_files({}, '/etc/kafka') == []


@pytest.mark.parametrize('named, directory, kwargs, message', [
    (['a'], '/etc', {}, 'must be a mapping of file names'),
    ({'a': 'x=1'}, '/etc', {}, "'a' must be a mapping of settings"),
    ({'a': {'other': {}}}, '/etc', {'attribute': 'client_properties'}, "item 'client_properties' of 'a'"),
    ({'a': {}}, 'etc', {}, 'must be an absolute path'),
    ({'../a': {}}, '/etc', {}, "'../a' is not a file name"),
    ({'a': {}}, '/etc', {'jaas_keys': {'a': 'k'}}, 'jaas_keys must map file names to lists of keys'),
    ({'a': {}}, '/etc', {'jaas_keys': ['a']}, 'jaas_keys must map file names to lists of keys'),
    ({'a': {'k': {'x': 1}}}, '/etc', {'jaas_keys': {'a': ['k']}}, "the value of k in 'a' must be a string"),
])
def test_bad_input_is_refused_with_its_reason(named: object, directory: str, kwargs: dict, message: str) -> None:
    with pytest.raises(AnsibleFilterError, match=message):
        properties_files(named, directory, **kwargs)  # type: ignore[arg-type]


def test_jaas_keys_are_jaas_escaped_then_properties_escaped_once() -> None:
    files = {'mm2.properties': {'sasl.password': 'a\\b"c', 'ssl.truststore.password': 'a\\b"c', 'unset': None},
             'other.properties': {'sasl.password': 'a\\b"c'}}
    entries = properties_files(files, '/s', jaas_keys={'mm2.properties': ['sasl.password', 'unset', 'absent']})
    assert [entry['content'] for entry in entries] == [
        'sasl.password=a\\\\\\\\b\\\\"c\nssl.truststore.password=a\\\\b"c\n',
        'sasl.password=a\\\\b"c\n',  # other.properties: no JAAS line reads it
    ]


def test_jaas_keys_leave_ordinary_values_byte_identical() -> None:
    files = {'mm2.properties': {'sasl.password': 'p@ss=w:rd#\u00e9! x', 'n': 7}}
    assert (properties_files(files, '/s', jaas_keys={'mm2.properties': ['sasl.password', 'n']})
            == properties_files(files, '/s'))
