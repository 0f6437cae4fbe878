# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Values of the inventory written into systemd unit files and drop-ins, as systemd reads them back.

Controller-side logic behind the filters systemd_value, systemd_env, systemd_exec and systemd_dropin.
A unit file is read line by line (systemd.syntax(7)): a line break in a value would end the directive
and start another one of the inventory's choosing, and a backslash at the end of a line joins the next
one. systemd expands specifiers (%n, %h, %i ...) in most values, so a % of the inventory is written %%.
Exec lines are split into words at blanks, unquoted, C-unescaped and have $VAR and ${VAR} expanded
(systemd.service(5)); each word is written so that the program gets it as given, quoted only when it
needs to be, so values without such characters render as they always did. Environment= takes one
assignment per quoted word (systemd.exec(5)) and expands no variables. Control characters cannot be
written safely anywhere in a unit and are refused, naming the variable. Errors are ValueError.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, List, Mapping

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.line_values import first_control, scalar_text

# Characters that make an Exec word or an Environment= assignment need double quotes.
NEEDS_QUOTES_RE = re.compile(r'[\s"\'\\]')
# What an executable may not start with: systemd reads these as prefixes (-, @, :, +, !) of ExecStart=.
EXEC_PREFIXES = '-@:+!'
ENV_NAME_RE = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')
# Section names and directive names of a drop-in.
SECTION_RE = re.compile(r'^[A-Za-z][A-Za-z0-9-]*$')
DIRECTIVE_RE = re.compile(r'^[A-Za-z][A-Za-z0-9-]*$')


def unit_text(value: Any, name: str) -> str:
    """A scalar as the former templates rendered it ({{ value }}); anything else is refused."""
    text = scalar_text(value)
    if text is None:
        raise ValueError('%s: a systemd unit value must be a string or a number, got %s' % (name, type(value).__name__))
    control = first_control(text)
    if control:
        raise ValueError('%s: a systemd unit value must not hold %s (character %d): it would end the directive and start '
                         'another' % (name, control[1], control[0]))
    return text


def specifiers_escaped(text: str) -> str:
    """% starts a specifier wherever systemd expands them; %% stands for itself."""
    return text.replace('%', '%%')


def quoted(text: str) -> str:
    """A double-quoted word: backslash and double quote escaped, as systemd unquotes and C-unescapes it."""
    return '"%s"' % text.replace('\\', '\\\\').replace('"', '\\"')


def systemd_value(value: Any, name: str) -> str:
    """A plain directive value (Description=, User=, WorkingDirectory= ...): specifiers escaped."""
    text = unit_text(value, name)
    if text.endswith('\\'):
        raise ValueError('%s: a systemd unit value must not end with a backslash, which joins the next line' % name)
    return specifiers_escaped(text)


def systemd_env(value: Any, variable: str, name: str = '', quote: bool = False) -> str:
    """The value of Environment= that sets `variable` to `value`, quoted when it holds blanks, quotes or backslashes
    (or always, with `quote`, for a unit that quoted it before)."""
    if not isinstance(variable, str) or not ENV_NAME_RE.match(variable):
        raise ValueError('%s: %r is not an environment variable name' % (name or variable, variable))
    assignment = '%s=%s' % (variable, specifiers_escaped(unit_text(value, name or variable)))
    return quoted(assignment) if quote or NEEDS_QUOTES_RE.search(assignment) else assignment


def exec_word(word: Any, name: str, first: bool = False) -> str:
    """One word of an Exec line, read back by systemd as given: specifiers and $ escaped, quoted when needed."""
    text = unit_text(word, name)
    if first and (not text or text[0] in EXEC_PREFIXES):
        raise ValueError('%s: the command %r must not be empty or start with one of %s, which systemd reads as prefixes'
                         % (name, text, ' '.join(EXEC_PREFIXES)))
    escaped = specifiers_escaped(text).replace('$', '$$')
    if text == ';':
        return '\\;'
    return quoted(escaped) if not text or NEEDS_QUOTES_RE.search(text) else escaped


def systemd_exec(words: Iterable[Any], name: str) -> str:
    """An Exec line from its words. An item that is a list is a group of words: its words joined, an empty
    group an empty string, so a unit whose options list is empty renders as it did with the list joined."""
    if isinstance(words, (str, Mapping)) or not isinstance(words, Iterable):
        raise ValueError('%s: an Exec line must be a list of words, got %s' % (name, type(words).__name__))
    rendered: List[str] = []
    for index, item in enumerate(words):
        where = '%s, word %d' % (name, index + 1)
        if isinstance(item, (list, tuple)):
            rendered.append(' '.join(exec_word(word, where) for word in item))
        else:
            rendered.append(exec_word(item, where, first=index == 0))
    return ' '.join(rendered)


def dropin_lines(section: str, directives: Any, name: str) -> List[str]:
    """[section] and its directives, in the order of Jinja's dictsort; a list value repeats its directive."""
    if not isinstance(section, str) or not SECTION_RE.match(section):
        raise ValueError('%s: %r is not a section name (Service, Unit, Install ...)' % (name, section))
    if not isinstance(directives, Mapping):
        raise ValueError('%s: section %s must map directives to values, got %s' % (name, section, type(directives).__name__))
    lines = ['[%s]' % section]
    for key, value in sorted(directives.items(), key=lambda item: str(item[0]).lower()):
        where = '%s: %s %s' % (name, section, key)
        if not isinstance(key, str) or not DIRECTIVE_RE.match(key):
            raise ValueError('%s: %r is not a directive name' % (name, key))
        values = value if isinstance(value, list) else [value]
        for item in values:
            text = unit_text(item, where)
            if text.endswith('\\'):
                raise ValueError('%s: a systemd unit value must not end with a backslash, which joins the next line' % where)
            lines.append('%s=%s' % (key, text))
    return lines


def systemd_dropin(overrides: Any, name: str) -> str:
    """The sections of a drop-in, section -> directive -> value (a list repeats the directive), each line ended.

    The values are systemd syntax as the operator writes them (quotes, specifiers and $ are theirs to use);
    only what would break out of a line is refused."""
    if overrides in (None, ''):
        return ''
    if not isinstance(overrides, Mapping):
        raise ValueError('%s: must map sections to directives, got %s' % (name, type(overrides).__name__))
    lines: List[str] = []
    for section, directives in sorted(overrides.items(), key=lambda item: str(item[0]).lower()):
        lines += dropin_lines(section, directives, name)
    return ''.join(line + '\n' for line in lines)
