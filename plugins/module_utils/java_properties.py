# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Java properties files, written and read as java.util.Properties does.

The writer escapes so that any key and value read back unchanged by every Java reader:
backslash, line breaks, tab and form feed get their escapes; separators (``=``, ``:``,
whitespace) and comment marks (``#``, ``!``) are escaped wherever the parser would take
them as syntax; everything outside printable ASCII becomes ``\\uXXXX`` (UTF-16 units, so
characters beyond the BMP take two). The file is then plain ASCII: Kafka's
FileConfigProvider (``Properties.load(Reader)``, UTF-8) and ``Properties.load(InputStream)``
(ISO-8859-1) read the same text from it.

The reader is ``Properties.load`` over a UTF-8 reader: natural lines end at LF, CR or CRLF;
leading whitespace (space, tab, form feed) is skipped; ``#``/``!`` lines are comments; an odd
number of trailing backslashes continues a line, whose follower loses its leading
whitespace; the key ends at the first unescaped ``=``, ``:`` or whitespace, and one ``=``/``:``
may follow whitespace; ``\\t \\n \\r \\f \\uXXXX`` are decoded and any other escaped character
stands for itself.

The to_properties filter, the SCRAM account files, the failover module's secret files and
the validator job's client files all go through this file (the replication_check role ships
it into the validator package). Standard library only.
"""

from __future__ import annotations

import re
from typing import Dict, Iterable, Iterator, List, Mapping, Tuple

WHITESPACE = ' \t\f'
SEPARATORS = '=:'
COMMENT_MARKS = '#!'
_NAMED_ESCAPES = {'\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\f': '\\f'}
_DECODED_ESCAPES = {'t': '\t', 'n': '\n', 'r': '\r', 'f': '\f'}
_NATURAL_LINE_END = re.compile(r'\r\n|\r|\n')
_HEX4 = re.compile(r'[0-9a-fA-F]{4}')


class PropertiesFormatError(ValueError):
    """Text java.util.Properties refuses (a malformed \\uXXXX escape)."""


# ---- writing ---------------------------------------------------------------------------

def _utf16_escapes(char: str) -> str:
    data = char.encode('utf-16-be', 'surrogatepass')
    return ''.join('\\u%04x' % int.from_bytes(data[at:at + 2], 'big') for at in range(0, len(data), 2))


def _escape_char(char: str, syntax_here: bool) -> str:
    """One character; `syntax_here` where the parser would read a separator or comment mark as syntax."""
    if char in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[char]
    if syntax_here and (char in SEPARATORS or char in COMMENT_MARKS or char == ' '):
        return '\\' + char
    if not ' ' <= char <= '~':
        return _utf16_escapes(char)
    return char


def escape_key(text: str) -> str:
    """A key: every separator, blank and comment mark escaped (any of them would end or hide it)."""
    return ''.join(_escape_char(char, True) for char in text)


def escape_value(text: str) -> str:
    """A value: only its first character can be read as syntax (a blank or separator would be skipped)."""
    return ''.join(_escape_char(char, index == 0) for index, char in enumerate(text))


def format_line(key: str, value: str) -> str:
    return '%s=%s' % (escape_key(key), escape_value(value))


def dumps(properties: Iterable[Tuple[str, str]]) -> str:
    """key=value lines in the order given, each ending with a newline."""
    return ''.join(format_line(key, value) + '\n' for key, value in properties)


# ---- reading ---------------------------------------------------------------------------

def _odd_trailing_backslashes(line: str) -> bool:
    return (len(line) - len(line.rstrip('\\'))) % 2 == 1


def logical_lines(text: str) -> Iterator[str]:
    """The logical lines of a document: comments and blank lines dropped, continuations joined."""
    pending: List[str] = []
    for natural in _NATURAL_LINE_END.split(text):
        line = natural.lstrip(WHITESPACE)
        if not pending and (not line or line[0] in COMMENT_MARKS):
            continue
        if _odd_trailing_backslashes(line):
            pending.append(line[:-1])
            continue
        pending.append(line)
        yield ''.join(pending)
        pending = []
    if pending:  # a continuation at the end of the input: Java drops the backslash
        yield ''.join(pending)


def _key_end(line: str) -> int:
    index = 0
    while index < len(line):
        if line[index] == '\\':
            index += 2
            continue
        if line[index] in SEPARATORS or line[index] in WHITESPACE:
            return index
        index += 1
    return len(line)


def split_line(line: str) -> Tuple[str, str]:
    """(key, value) of one logical line, both still escaped."""
    end = _key_end(line)
    has_separator = line[end:end + 1] in tuple(SEPARATORS)
    rest = line[end + 1:]
    start = 0
    # Blanks around the separator; one = or : may still come after a key ended by a blank.
    while start < len(rest):
        if rest[start] in WHITESPACE:
            start += 1
        elif rest[start] in SEPARATORS and not has_separator:
            has_separator = True
            start += 1
        else:
            break
    return line[:end], rest[start:]


def unescape(text: str) -> str:
    """Properties' loadConvert: \\t \\n \\r \\f and \\uXXXX decoded, any other escaped character kept."""
    out: List[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char != '\\' or index + 1 >= len(text):
            out.append(char)
            index += 1
            continue
        escaped = text[index + 1]
        if escaped == 'u':
            digits = text[index + 2:index + 6]
            if not _HEX4.fullmatch(digits):
                raise PropertiesFormatError('malformed \\uxxxx encoding: %r' % text[index:index + 6])
            out.append(chr(int(digits, 16)))
            index += 6
            continue
        out.append(_DECODED_ESCAPES.get(escaped, escaped))
        index += 2
    # \uXXXX pairs of a character beyond the BMP arrive as two surrogates: join them.
    return ''.join(out).encode('utf-16-be', 'surrogatepass').decode('utf-16-be', 'surrogatepass')


def loads(text: str) -> Dict[str, str]:
    """Every key and value of a document; a later key wins, as in Java."""
    properties: Dict[str, str] = {}
    for line in logical_lines(text):
        key, value = split_line(line)
        properties[unescape(key)] = unescape(value)
    return properties


def read_file(path: str) -> Dict[str, str]:
    """A properties file read as UTF-8 text (what Kafka's FileConfigProvider does). OSError propagates."""
    with open(path, encoding='utf-8', newline='') as handle:
        return loads(handle.read())


def to_text(properties: Mapping[str, str]) -> str:
    """A mapping as a document, sorted by key (stable files, small diffs)."""
    return dumps(sorted(properties.items()))
