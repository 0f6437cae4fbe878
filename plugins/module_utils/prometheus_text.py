# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A reader of the Prometheus text exposition format (version 0.0.4), standard library only.

The restart watchdog reads its worker's JMX exporter endpoint with it. Each sample line is
`name[{label="value",...}] value [timestamp]`; label values escape backslash, double quote
and line feed; values are floats, NaN, +Inf or -Inf. Comment lines (# HELP, # TYPE and any
other) and blank lines carry no sample. A line that is none of these is an error: a reader
that acts on the figures must not act on half a page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List, Tuple

_METRIC_NAME_RE = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*')
_LABEL_NAME_RE = re.compile(r'[a-zA-Z_][a-zA-Z0-9_]*')
_TIMESTAMP_RE = re.compile(r'-?[0-9]+')
_ESCAPED = {'\\': '\\', '"': '"', 'n': '\n'}
# Longest excerpt of a bad token quoted in an error.
_EXCERPT = 40


class ExpositionError(ValueError):
    """A line that is not in the text exposition format."""


@dataclass(frozen=True)
class Sample:
    name: str
    labels: Dict[str, str]
    value: float


def parse_exposition(text: str) -> List[Sample]:
    """Every sample of an exposition, in page order; ExpositionError names the first bad line."""
    samples: List[Sample] = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith('#'):
            continue
        try:
            samples.append(parse_sample_line(stripped))
        except ExpositionError as exc:
            raise ExpositionError('line %d: %s' % (number, exc)) from None
    return samples


def parse_sample_line(line: str) -> Sample:
    """One sample line, without surrounding blanks."""
    match = _METRIC_NAME_RE.match(line)
    if match is None:
        raise ExpositionError('no metric name at %r' % line[:_EXCERPT])
    name, position = match.group(), match.end()
    labels: Dict[str, str] = {}
    if line.startswith('{', position):
        labels, position = _parse_labels(line, position + 1)
    rest = line[position:]
    if not rest[:1].isspace():
        raise ExpositionError('no blank between %s and its value' % name)
    fields = rest.split()
    if len(fields) > 2 or (len(fields) == 2 and not _TIMESTAMP_RE.fullmatch(fields[1])):
        raise ExpositionError('%s: expected a value and an optional integer timestamp, got %r' % (name, rest.strip()[:_EXCERPT]))
    return Sample(name, labels, parse_value(fields[0]))


def parse_value(token: str) -> float:
    """A sample value: a Go-style float, NaN, +Inf, -Inf (Python's float reads them all)."""
    try:
        # float() also takes "1_000", which the format does not.
        if '_' in token:
            raise ValueError(token)
        return float(token)
    except ValueError:
        raise ExpositionError('bad value %r' % token[:_EXCERPT]) from None


def _skip_blanks(line: str, position: int) -> int:
    while position < len(line) and line[position] in ' \t':
        position += 1
    return position


def _parse_labels(line: str, position: int) -> Tuple[Dict[str, str], int]:
    """The labels after "{"; returns them and the position after "}"."""
    labels: Dict[str, str] = {}
    while True:
        position = _skip_blanks(line, position)
        if line.startswith('}', position):
            return labels, position + 1
        match = _LABEL_NAME_RE.match(line, position)
        if match is None:
            raise ExpositionError('bad label name at column %d' % (position + 1))
        label = match.group()
        position = _skip_blanks(line, match.end())
        if not line.startswith('=', position):
            raise ExpositionError('label %s has no "="' % label)
        position = _skip_blanks(line, position + 1)
        labels[label], position = _parse_label_value(line, position, label)
        position = _skip_blanks(line, position)
        if line.startswith(',', position):
            position += 1
        elif not line.startswith('}', position):
            raise ExpositionError('expected "," or "}" after label %s' % label)


def _parse_label_value(line: str, position: int, label: str) -> Tuple[str, int]:
    """A quoted label value at `position`; returns it unescaped and the position after its quote."""
    if not line.startswith('"', position):
        raise ExpositionError('value of label %s is not quoted' % label)
    characters: List[str] = []
    position += 1
    while position < len(line):
        character = line[position]
        if character == '"':
            return ''.join(characters), position + 1
        if character == '\\' and position + 1 < len(line):
            following = line[position + 1]
            # An unknown escape is kept as written, as Prometheus does.
            characters.append(_ESCAPED.get(following, '\\' + following))
            position += 2
            continue
        characters.append(character)
        position += 1
    raise ExpositionError('value of label %s has no closing quote' % label)
