# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Kafka command line tools: their command lines, and what they print read back (failures, the metadata quorum).

Controller-side logic behind the filters kafka_tool_argv, java_failure and quorum_replication.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

ToolOutput = Union[str, Sequence[str], None]

# A Java exception line: "[Caused by: ]package.Class[$Inner]Exception: message".
_EXCEPTION_LINE = re.compile(r'(?:Exception|Error): ')
_QUALIFIED_CLASS = re.compile(r'^(?P<cause>Caused by: )?\s*(?:[\w$]+\.)*(?P<name>\w+(?:Exception|Error): )')
_CAUSED_BY = 'Caused by: '
# Long messages (certificate chains, stack frames glued to a line) are cut to this length.
MAX_REASON_LENGTH = 300

# What the Kerberos login failures Java reports mean for the operator, by a phrase of the message.
KERBEROS_HINTS = (
    ('Client not found in Kerberos database', 'the KDC has no such principal'),
    ('Checksum failed', "the keytab does not hold the principal's current key (exported before the key changed, "
                        "or another principal's keytab)"),
    ('Pre-authentication information was invalid', "the keytab does not hold the principal's current key"),
    ('Unable to obtain password from user', 'the keytab is unreadable or holds no key for this principal'),
    ('Server not found in Kerberos database', "the KDC has no principal for the broker's service and host name"),
    ('Clock skew too great', 'the clocks of this host and the KDC differ by more than the allowed skew'),
    ('Cannot locate KDC', 'krb5.conf names no reachable KDC for the realm'),
)
_LOGIN_EXCEPTION = 'LoginException: '

# The first column of MetadataQuorumCommand describe --replication.
_REPLICATION_HEADER = 'NodeId'


def _lines(output: ToolOutput) -> List[str]:
    if output is None:
        return []
    if isinstance(output, str):
        return output.splitlines()
    return [line for chunk in output for line in str(chunk).splitlines()]


def _short_exception(line: str) -> str:
    """'Caused by: org.x.FooException: msg' -> 'Caused by: FooException: msg', cut to MAX_REASON_LENGTH."""
    short = _QUALIFIED_CLASS.sub(lambda match: (match.group('cause') or '') + match.group('name'), line, count=1)
    if len(short) > MAX_REASON_LENGTH:
        short = short[:MAX_REASON_LENGTH - 3].rstrip() + '...'
    return short


def java_failure_reason(output: ToolOutput) -> str:
    """'FirstException: msg, caused by RootException: msg' from a Java tool's output, '' without exception.

    The first exception says what failed; the last 'Caused by' says why (a password, a
    certificate, a keytab). Package names are dropped; the root cause is left out when it
    repeats the first exception.
    """
    exceptions = [_short_exception(line.strip()) for line in _lines(output) if _EXCEPTION_LINE.search(line)]
    first: Optional[str] = next((line for line in exceptions if not line.startswith(_CAUSED_BY)), None)
    causes = [line[len(_CAUSED_BY):] for line in exceptions if line.startswith(_CAUSED_BY)]
    # A JAAS login failure carries the KDC's or the login module's answer; what Java raised
    # beneath it is an internal check (e.g. "Identifier doesn't match expected value").
    login = next((cause for cause in causes if cause.startswith(_LOGIN_EXCEPTION)), None)
    root = login or (causes[-1] if causes else None)
    if first is None:
        reason = root or ''
    elif root is None or root == first:
        reason = first
    else:
        reason = '%s, caused by %s' % (first, root)
    return reason + kerberos_hint(reason)


def kerberos_hint(reason: str) -> str:
    """' (meaning: ...)' for a Kerberos failure whose message alone does not say what to fix."""
    hint = next((meaning for phrase, meaning in KERBEROS_HINTS if phrase in reason), None)
    return ' (meaning: %s)' % hint if hint else ''


def _column_value(text: str) -> Union[int, str]:
    return int(text) if re.fullmatch(r'-?[0-9]+', text) else text


def quorum_replication(output: ToolOutput) -> List[Dict[str, Union[int, str]]]:
    """The rows of 'MetadataQuorumCommand describe --replication', keyed by the header's column names.

    Kafka 3.x prints NodeId, LogEndOffset, Lag, LastFetchTimestamp, LastCaughtUpTimestamp,
    Status; 4.x adds DirectoryId. Columns are read by name, numbers become integers.
    """
    lines = [line.split() for line in _lines(output) if line.strip()]
    start = next((index for index, words in enumerate(lines) if words[0] == _REPLICATION_HEADER), None)
    if start is None:
        return []
    header = lines[start]
    return [
        {name: _column_value(value) for name, value in zip(header, words)}
        for words in lines[start + 1:]
        if len(words) == len(header)
    ]


def kafka_tool_argv(command: Sequence[str], clusters: Mapping[str, Any], alias: str, config_dir: str,
                    arguments: Sequence[Any] = ()) -> List[Any]:
    """The command, then one cluster's bootstrap servers and client settings (<config_dir>/<alias>.properties), then the arguments."""
    if not isinstance(command, list) or not isinstance(arguments, (list, tuple)):
        raise ValueError('kafka_tool_argv expects the command and the arguments as lists')
    if alias not in clusters:
        raise ValueError('kafka_tool_argv: no cluster %s' % alias)
    return command + ['--bootstrap-server', clusters[alias]['bootstrap_servers'],
                      '--command-config', str(config_dir) + '/' + str(alias) + '.properties'] + list(arguments)
