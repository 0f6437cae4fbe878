# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Java properties: what the writer escapes, the reader reads back unchanged, and the reader
follows java.util.Properties on text written by hand (tests/unit/plugins/module_utils/
test_java_properties_jvm.py holds the same values up against Java's own reader)."""

from __future__ import annotations

import random
from typing import Dict, List

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.java_properties import (
    PropertiesFormatError,
    dumps,
    escape_key,
    escape_value,
    loads,
    read_file,
    to_text,
)

# Every character class the format gives a meaning to, and a few it does not.
TRICKY_VALUES: Dict[str, str] = {
    'separators': 'a=b:c',
    'comment.marks': '#not a comment!',
    'leading.bang': '!bang',
    'leading.colon': ':colon',
    'leading.equals': '=equals',
    'backslashes': 'C:\\dir\\file\\',
    'escape.lookalikes': '\\u00e9 \\n \\t',
    'spaces.around': '  lead and trail  ',
    'only.spaces': '   ',
    'empty': '',
    'tabs': '\ttab\tinner\t',
    'form.feed': '\fff',
    'line.breaks': 'one\ntwo\r\nthree\rfour',
    'non.ascii': 'caf\u00e9 \u6f22\u5b57',
    'astral': 'clef \U0001d11e',
    'controls': '\x00\x01\x1b\x7f',
    'password': 'p@ss=w:rd\\x#\u00e9!',
    'key with spaces': 'v',
    'key=with:separators#and!marks': 'v',
    '\u6f22.key': 'v',
    ' leading.space.key': 'v',
}
ALPHABET = 'ab= :#!\\\t\n\r\f"\'$\u00e9\u6f22\U0001d11e\x00\x7f'


def random_texts(count: int, seed: int = 20240611) -> List[str]:
    """Seeded strings over the characters the format treats specially (no property-based library here)."""
    generator = random.Random(seed)
    return [''.join(generator.choice(ALPHABET) for _position in range(generator.randrange(0, 12))) for _text in range(count)]


def test_the_table_reads_back_unchanged() -> None:
    assert loads(dumps(TRICKY_VALUES.items())) == TRICKY_VALUES


def test_many_random_keys_and_values_read_back_unchanged() -> None:
    keys, values = random_texts(500, seed=1), random_texts(500, seed=2)
    for key, value in zip(keys, values):
        assert loads(dumps([(key, value)])) == {key: value}, (key, value)


def test_what_the_writer_writes_is_printable_ascii() -> None:
    for text in random_texts(200) + list(TRICKY_VALUES.values()):
        for line in (escape_key(text), escape_value(text)):
            assert all(' ' <= char <= '~' for char in line), repr(line)


def test_the_failover_password_survives_a_file(tmp_path) -> None:
    path = tmp_path / 'secret.properties'
    path.write_text(to_text({'sasl.password': 'p@ss=w:rd\\x#\u00e9!'}), encoding='utf-8')
    assert path.read_text(encoding='utf-8') == 'sasl.password=p@ss=w:rd\\\\x#\\u00e9!\n'
    assert read_file(str(path)) == {'sasl.password': 'p@ss=w:rd\\x#\u00e9!'}


@pytest.mark.parametrize('text, expected', [
    ('a=b', {'a': 'b'}),
    ('a = b', {'a': 'b'}),
    ('a:b', {'a': 'b'}),
    ('a b', {'a': 'b'}),
    ('a \t = \f b ', {'a': 'b '}),  # trailing blanks of a value are kept
    ('a = = b', {'a': '= b'}),  # one separator only
    ('a==b', {'a': '=b'}),
    ('a b=c', {'a': 'b=c'}),
    ('a', {'a': ''}),
    ('=b', {'': 'b'}),
    ('  # comment\n\t! comment\n\n', {}),
    ('a=#b', {'a': '#b'}),
    ('a\\=b\\:c\\ d=e', {'a=b:c d': 'e'}),
    ('a=one \\\n    two', {'a': 'one two'}),
    ('a=one\\\\\nb=two', {'a': 'one\\', 'b': 'two'}),  # an even run of backslashes does not continue
    ('a=one\\\n# not a comment', {'a': 'one# not a comment'}),
    ('# comment \\\na=b', {'a': 'b'}),  # a comment does not continue
    ('a=one\\\n\nb=two', {'a': 'one', 'b': 'two'}),
    ('a=end\\', {'a': 'end'}),  # a continuation at the end of the input
    ('a=1\r\nb=2\rc=3', {'a': '1', 'b': '2', 'c': '3'}),
    ('a=\\u00e9\\u6F22\\ud834\\udd1e', {'a': '\u00e9\u6f22\U0001d11e'}),
    ('a=\\t\\n\\r\\f\\q\\"', {'a': '\t\n\r\fq"'}),
    ('a=caf\u00e9', {'a': 'caf\u00e9'}),  # UTF-8 text, as FileConfigProvider reads it
    ('a=1\na=2', {'a': '2'}),
    ('a=x\u2028y\x0bz\x85', {'a': 'x\u2028y\x0bz\x85'}),  # not line breaks for Java
])
def test_the_reader_follows_java_util_properties(text: str, expected: Dict[str, str]) -> None:
    assert loads(text) == expected


def test_a_malformed_unicode_escape_is_refused_as_java_does() -> None:
    with pytest.raises(PropertiesFormatError, match='malformed'):
        loads('a=\\u12g4')


def test_the_writer_escapes_only_where_java_would_read_syntax() -> None:
    assert escape_key('a=b:c d#e!f') == 'a\\=b\\:c\\ d\\#e\\!f'
    assert escape_value(' a=b:c d#e!') == '\\ a=b:c d#e!'
    assert escape_value('#x') == '\\#x'
    assert escape_value('\U0001d11e') == '\\ud834\\udd1e'
