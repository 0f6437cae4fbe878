# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""List the Jinja expressions ({{ ... }}) of the roles and playbooks with their length.

Every string of every YAML file under roles/ and playbooks/ (and site.yml) is searched,
keys included, whatever its style: plain, quoted, folded or literal. An expression's
length is the number of characters from ``{{`` to ``}}`` as they stand in the file,
line breaks and indentation included (what a reader has to take in); with --compact,
each run of white space counts as one character.

    scripts/jinja_lengths.py [--over N] [--compact] [--text] [--root DIR]

prints the expressions longer than N (200 by default), longest first, then the counts
over 200 and over 400.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Iterator, List, NamedTuple

import yaml

WHITESPACE = re.compile(r'\s+')


class Expression(NamedTuple):
    path: str
    line: int
    length: int
    text: str


class _Loader(yaml.SafeLoader):
    """Composes any YAML, Ansible's tags (!vault, !unsafe) included; only nodes are read."""


def _expression_end(text: str, start: int) -> int:
    """Index just past the ``}}`` that closes the expression opened at start, or -1."""
    depth = 0
    index = start + 2
    while index < len(text):
        char = text[index]
        if char == '\\':
            # An escaped quote of a double-quoted YAML scalar, seen in its source.
            index += 2
            continue
        if char in '\'"':
            close = index + 1
            while close < len(text) and text[close] != char:
                close += 2 if text[close] == '\\' else 1
            index = close + 1
            continue
        if char == '{':
            depth += 1
        elif char == '}':
            if depth == 0 and text.startswith('}}', index):
                return index + 2
            depth -= 1
        index += 1
    return -1


def expressions_in(text: str) -> Iterator[str]:
    """The {{ ... }} expressions of one string, outermost only."""
    index = text.find('{{')
    while index >= 0:
        end = _expression_end(text, index)
        if end < 0:
            return
        yield text[index:end]
        index = text.find('{{', end)


def _scalars(node: yaml.Node) -> Iterator[yaml.ScalarNode]:
    if isinstance(node, yaml.ScalarNode):
        yield node
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _scalars(item)
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield from _scalars(key)
            yield from _scalars(value)


def yaml_files(root: Path) -> List[Path]:
    files = [path for top in ('roles', 'playbooks') for pattern in ('*.yml', '*.yaml')
             for path in (root / top).rglob(pattern)]
    if (root / 'site.yml').is_file():
        files.append(root / 'site.yml')
    return sorted(files)


def file_expressions(path: Path, root: Path, compact: bool = False) -> Iterator[Expression]:
    """The expressions of one file, each measured in the scalar's source text."""
    relative = str(path.relative_to(root))
    source = path.read_text(encoding='utf-8')
    for document in yaml.compose_all(source, Loader=_Loader):
        if document is None:
            continue
        for scalar in _scalars(document):
            if not isinstance(scalar.value, str) or '{{' not in scalar.value:
                continue
            raw = source[scalar.start_mark.index:scalar.end_mark.index]
            for text in expressions_in(raw):
                line = scalar.start_mark.line + 1 + raw[:raw.find(text)].count('\n')
                length = len(WHITESPACE.sub(' ', text)) if compact else len(text)
                yield Expression(relative, line, length, WHITESPACE.sub(' ', text))


def all_expressions(root: Path, compact: bool = False) -> List[Expression]:
    return [expression for path in yaml_files(root) for expression in file_expressions(path, root, compact)]


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--over', type=int, default=200, help='list the expressions longer than this (200)')
    parser.add_argument('--root', type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument('--compact', action='store_true', help='count each run of white space as one character')
    parser.add_argument('--text', action='store_true', help='print each listed expression too')
    args = parser.parse_args(argv)
    expressions = all_expressions(args.root, args.compact)
    for expression in sorted(expressions, key=lambda item: -item.length):
        if expression.length <= args.over:
            break
        print('%5d  %s:%d' % (expression.length, expression.path, expression.line))
        if args.text:
            print('       ' + expression.text)
    print('expressions: %d, over 200: %d, over 400: %d' % (
        len(expressions),
        sum(1 for expression in expressions if expression.length > 200),
        sum(1 for expression in expressions if expression.length > 400)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
