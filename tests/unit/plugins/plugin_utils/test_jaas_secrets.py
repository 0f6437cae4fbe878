# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The JAAS escape and which keys of the MirrorMaker 2 secret files it applies to."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from ansible_collections.kafka_dr.mm2.plugins.filter.mm2_jaas_secret_keys import mm2_jaas_secret_keys
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_clients import jaas_escape, jaas_quoted_values

SECRETS = '/etc/kafka/connect/secrets'


@pytest.mark.parametrize(('value', 'escaped'), [
    ('p@ss=w:rd\\x#\u00e9!', 'p@ss=w:rd\\\\x#\u00e9!'),
    ('say "hi"', 'say \\"hi\\"'),
    ('\\"', '\\\\\\"'),
    ('a\nb\rc', 'a\\nb\\rc'),
    # Tabs, blanks, separators, comment marks and non-ASCII stand for themselves inside the quotes.
    (' \tx=y:z #! ; \u6f22 \U0001d11e ', ' \tx=y:z #! ; \u6f22 \U0001d11e '),
    ('', ''),
])
def test_jaas_escape(value: str, escaped: str) -> None:
    assert jaas_escape(value) == escaped


def test_a_value_without_backslash_quote_or_line_break_is_unchanged() -> None:
    ordinary = 'Abc123-_.~!@#$%^&*()+=[]{}|;:,<>/? \u00e9'
    assert jaas_escape(ordinary) == ordinary


def test_jaas_escape_wants_text() -> None:
    with pytest.raises(ValueError, match='must be a string'):
        jaas_escape(1234)  # type: ignore[arg-type]


def test_quoted_values_keep_their_escapes() -> None:
    line = 'M required username="mm2" password="a\\"b\\\\${file:/s/f:k}" flag=true;'
    assert jaas_quoted_values(line) == ['mm2', 'a\\"b\\\\${file:/s/f:k}']


def scram(**options: str) -> Dict[str, Any]:
    return dict({'bootstrap_servers': 'b:9094', 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'SCRAM-SHA-512',
                 'sasl_username': 'mm2', 'sasl_password_file': 'mm2.properties'}, **options)


def test_every_key_of_a_file_a_jaas_line_reads_is_escaped_but_store_passwords() -> None:
    clusters = {'src': scram(ssl_truststore_password_file='mm2.properties'),
                'dst': scram(sasl_password_file='dst.properties', sasl_password_key='pw')}
    files = {'mm2.properties': {'sasl.password': 'a', 'sasl.password.sha256': 'b', 'ssl.truststore.password': 'c'},
             'dst.properties': {'pw': 'd'},
             'stores.properties': {'ssl.keystore.password': 'e'}}
    assert mm2_jaas_secret_keys(clusters, SECRETS, files) == {
        'mm2.properties': ['sasl.password', 'sasl.password.sha256'],  # the one read now and one staged for a rotation
        'dst.properties': ['pw'],
    }


def test_a_jaas_config_of_the_model_counts_only_inside_quotes() -> None:
    given = ('org.apache.kafka.common.security.plain.PlainLoginModule required username="u" '
             'password="${file:%s/given.properties:password}";' % SECRETS)
    clusters = {'a': {'bootstrap_servers': 'a:9094', 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'PLAIN',
                      'sasl_jaas_config': given},
                # The whole line in a file: the file holds a JAAS line, written as it is.
                'b': {'bootstrap_servers': 'b:9094', 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'PLAIN',
                      'sasl_jaas_config_file': 'line.properties'}}
    files = {'given.properties': {'password': 'x'}, 'line.properties': {'sasl.jaas.config': 'M required a="b";'}}
    assert mm2_jaas_secret_keys(clusters, SECRETS, files) == {'given.properties': ['password']}


def test_a_model_without_sasl_or_with_errors_escapes_nothing() -> None:
    files = {'mm2.properties': {'sasl.password': 'x'}}
    assert mm2_jaas_secret_keys({'a': {'bootstrap_servers': 'a:9092'}}, SECRETS, files) == {}
    assert mm2_jaas_secret_keys({'a': 'not a mapping'}, SECRETS, files) == {}


def test_a_key_read_inside_and_outside_a_jaas_line_is_refused() -> None:
    clusters = {'src': scram(ssl_truststore_password_file='mm2.properties', ssl_truststore_password_key='sasl.password')}
    with pytest.raises(Exception, match='key sasl.password of secret file mm2.properties is read inside a JAAS line'):
        mm2_jaas_secret_keys(clusters, SECRETS, {'mm2.properties': {'sasl.password': 'secret'}})
