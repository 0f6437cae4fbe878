# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Inventory values written into systemd units come back as given: specifiers and $ escaped, words quoted
only when they need it (so ordinary values render as before), and a line break or other control character
refused with the variable's name, since it would add a directive of the inventory's choosing."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import List

import pytest

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.systemd_units import (
    systemd_dropin,
    systemd_env,
    systemd_exec,
    systemd_value,
)

# Words a JVM option, a path or a regular expression of the inventory may hold.
HARD_WORDS = ['a b', 'say "hi"', "it's", 'C:\\dir\\', '100%n', '$HOME', '${JAVA_HOME}/bin', '', 'caf\u00e9', 'x;y',
              r'foo\..*', '-XX:OnOutOfMemoryError=kill -9 %p']


def unescaped(text: str) -> str:
    """What systemd makes of specifier and variable escapes once a word is split off."""
    assert not re.search(r'%[^%]', text.replace('%%', '')), 'a lone %% would be a specifier: %r' % text
    return text.replace('%%', '%')


def systemd_words(line: str) -> List[str]:
    """An Exec line split as systemd does (extract_first_word with unquoting and C escapes), then $$ and %% undone."""
    words: List[str] = []
    index = 0
    while index < len(line):
        while index < len(line) and line[index] in ' \t':
            index += 1
        if index == len(line):
            break
        word, quote = '', None
        while index < len(line) and (quote or line[index] not in ' \t'):
            char = line[index]
            if char == '\\':
                word += {'n': '\n', 't': '\t'}.get(line[index + 1], line[index + 1])
                index += 2
                continue
            if quote and char == quote:
                quote = None
            elif not quote and char in '"\'':
                quote = char
            else:
                word += char
            index += 1
        assert quote is None, 'unbalanced quotes in %r' % line
        assert not re.search(r'\$(?!\$)', word.replace('$$', '')), 'a lone $ would be expanded: %r' % word
        words.append(unescaped(word.replace('$$', '$')))
    return words


# ---- Exec lines ------------------------------------------------------------------------------

def test_ordinary_words_render_as_the_former_templates_joined_them() -> None:
    words = ['/usr/bin/java', '-Xms1g', '-Xmx1g', ['-XX:+UseG1GC', '-Djava.awt.headless=true'], '-cp', '/opt/kafka/current/libs/*']
    assert systemd_exec(words, 'cmd') == '/usr/bin/java -Xms1g -Xmx1g -XX:+UseG1GC -Djava.awt.headless=true -cp /opt/kafka/current/libs/*'
    # An empty group keeps the double blank that "{{ [] | join(' ') }}" left between two words.
    assert systemd_exec(['/usr/bin/java', '-Xmx1g', [], '-cp'], 'cmd') == '/usr/bin/java -Xmx1g  -cp'


@pytest.mark.parametrize('word', HARD_WORDS)
def test_each_word_reaches_the_program_as_given(word: str) -> None:
    line = systemd_exec(['/usr/bin/java', word, [word, 'x'], 'last'], 'cmd')
    assert systemd_words(line) == ['/usr/bin/java', word, word, 'x', 'last']


def test_a_lone_semicolon_is_no_command_separator() -> None:
    assert systemd_exec(['/bin/echo', ';'], 'cmd') == '/bin/echo \\;'


@pytest.mark.parametrize('word, what', [('-Xmx1g\nExecStartPre=/bin/sh -c id', 'a line break (character 7)'),
                                        ('a\rb', 'a carriage return'), ('a\tb', 'a tab'), ('a\x00b', "the control character '\\x00'")])
def test_control_characters_are_refused_naming_the_variable(word: str, what: str) -> None:
    with pytest.raises(ValueError, match=re.escape('connect_worker_jvm_options, word 2: a systemd unit value must not hold %s' % what)):
        systemd_exec(['/usr/bin/java', [word]], 'connect_worker_jvm_options')


@pytest.mark.parametrize('command', ['-/usr/bin/java', '@/bin/sh', '', '+/bin/sh'])
def test_a_command_that_systemd_would_read_with_a_prefix_is_refused(command: str) -> None:
    with pytest.raises(ValueError, match='must not be empty or start with one of'):
        systemd_exec([command, 'x'], 'cmd')


def test_an_exec_line_must_be_a_list() -> None:
    with pytest.raises(ValueError, match='an Exec line must be a list of words'):
        systemd_exec('/usr/bin/java -Xmx1g', 'cmd')


# ---- plain values and Environment= -------------------------------------------------------------

def test_plain_values_escape_specifiers_only() -> None:
    assert systemd_value('mm2', 'connect_worker_group_id') == 'mm2'
    assert systemd_value('dr-100%', 'connect_worker_group_id') == 'dr-100%%'
    assert systemd_value(100000, 'connect_worker_limit_nofile') == '100000'


@pytest.mark.parametrize('value, message', [
    ('mm2\nExecStartPre=/bin/sh -c id', 'connect_worker_group_id: a systemd unit value must not hold a line break (character 4)'),
    ('mm2\\', 'connect_worker_group_id: a systemd unit value must not end with a backslash'),
    (None, 'connect_worker_group_id: a systemd unit value must be a string or a number'),
    (['a'], 'connect_worker_group_id: a systemd unit value must be a string or a number'),
])
def test_plain_values_that_would_break_the_line_are_refused(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        systemd_value(value, 'connect_worker_group_id')


@pytest.mark.parametrize('value, rendered', [
    ('/etc/spark', 'SPARK_CONF_DIR=/etc/spark'),
    ('/etc/spark 2', '"SPARK_CONF_DIR=/etc/spark 2"'),
    ('a"b\\c', '"SPARK_CONF_DIR=a\\"b\\\\c"'),
    ('50%', 'SPARK_CONF_DIR=50%%'),
    ('$HOME', 'SPARK_CONF_DIR=$HOME'),  # Environment= expands no variables
])
def test_environment_assignments_are_quoted_when_needed(value: str, rendered: str) -> None:
    assert systemd_env(value, 'SPARK_CONF_DIR', 'spark_standalone_conf_dir') == rendered
    (assignment,) = systemd_words(rendered.replace('$', '$$'))
    assert assignment == 'SPARK_CONF_DIR=' + value


def test_environment_keeps_the_quotes_a_unit_had() -> None:
    assert systemd_env('-Djava.io.tmpdir=/var/lib/spark/tmp', 'SPARK_DAEMON_JAVA_OPTS', quote=True) == \
        '"SPARK_DAEMON_JAVA_OPTS=-Djava.io.tmpdir=/var/lib/spark/tmp"'


def test_environment_refuses_line_breaks_and_bad_names() -> None:
    with pytest.raises(ValueError, match='spark_standalone_conf_dir: a systemd unit value must not hold a line break'):
        systemd_env('/etc/spark\nExecStartPre=/bin/id', 'SPARK_CONF_DIR', 'spark_standalone_conf_dir')
    with pytest.raises(ValueError, match="replication_check_environment: 'A B' is not an environment variable name"):
        systemd_env('x', 'A B', 'replication_check_environment')


# ---- drop-ins -----------------------------------------------------------------------------------

def test_a_dropin_renders_as_the_former_template() -> None:
    overrides = {'Service': {'Nice': 5, 'LimitNOFILE': 200000, 'PrivateUsers': 'false'}, 'Unit': {'After': 'x.service'}}
    assert systemd_dropin(overrides, 'connect_worker_systemd_overrides') == (
        '[Service]\nLimitNOFILE=200000\nNice=5\nPrivateUsers=false\n[Unit]\nAfter=x.service\n')
    assert systemd_dropin({}, 'connect_worker_systemd_overrides') == ''


def test_a_list_repeats_its_directive_and_values_stay_systemd_syntax() -> None:
    overrides = {'Service': {'Environment': ['A=1', '"B=two words"'], 'ExecStartPre': '/bin/echo %n'}}
    assert systemd_dropin(overrides, 'o') == '[Service]\nEnvironment=A=1\nEnvironment="B=two words"\nExecStartPre=/bin/echo %n\n'


@pytest.mark.parametrize('overrides, message', [
    ({'Service': {'Nice': '5\nExecStartPre=/bin/sh -c id'}}, 'o: Service Nice: a systemd unit value must not hold a line break'),
    ({'Service': {'Environment': ['A=1', 'B=2\n']}}, 'o: Service Environment: a systemd unit value must not hold a line break'),
    ({'Service]\n[Unit': {'Nice': 5}}, 'is not a section name'),
    ({'Service': {'Nice=5\nUser': 'root'}}, 'is not a directive name'),
    ({'Service': 'Nice=5'}, 'section Service must map directives to values'),
    ({'Service': {'ExecStart': '/bin/true \\'}}, 'must not end with a backslash'),
])
def test_a_dropin_that_would_break_out_of_its_lines_is_refused(overrides: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        systemd_dropin(overrides, 'o')


# ---- systemd's own parser ------------------------------------------------------------------------

@pytest.mark.skipif(not shutil.which('systemd-analyze'), reason='needs systemd-analyze')
def test_systemd_accepts_the_escaped_unit_without_a_warning(tmp_path: Path) -> None:
    unit = tmp_path / 'escaped.service'
    unit.write_text('[Unit]\nDescription=%s\n[Service]\nEnvironment=%s\nExecStart=%s\n' % (
        systemd_value('group 100% "x"', 'g'), systemd_env('a "b" \\c %n', 'JAVA_OPTS', 'j'),
        systemd_exec(['/bin/echo'] + HARD_WORDS[:-1] + [HARD_WORDS[:3]], 'cmd')))
    done = subprocess.run(['systemd-analyze', 'verify', '--man=no', str(unit)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and 'escaped.service' not in done.stderr, done.stderr
