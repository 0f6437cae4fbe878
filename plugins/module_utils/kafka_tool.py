# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kafka's admin tools (AclCommand, ConfigCommand) run on the host through the kafka-run wrapper.

Each call starts a JVM, which costs seconds: callers list once and apply in as few calls as
they can. `KafkaAdmin.runs` says what each JVM did, so modules can report the count.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

DEFAULT_KAFKA_RUN = '/opt/kafka/kafka-run'
DEFAULT_TIMEOUT = 120
# AclCommand moved from core (Scala) to the tools module in Kafka 4.0.
ACL_COMMAND_4 = 'org.apache.kafka.tools.AclCommand'
ACL_COMMAND_3 = 'kafka.admin.AclCommand'
CONFIG_COMMAND = 'kafka.admin.ConfigCommand'
MAX_MESSAGE = 300
EXIT_TIMEOUT = 124
EXIT_NOT_STARTED = 127

# "org.apache.kafka.common.errors.SecurityDisabledException: ..." -> "SecurityDisabledException: ..."
QUALIFIED_THROWABLE = re.compile(r'\b(?:[a-z_][\w$]*\.)+([A-Z][\w$]*(?:Exception|Error))\b')
THROWABLE_LINE = re.compile(r'\b[A-Z][\w$]*(?:Exception|Error)(?::\s|$)')
TOOL_PREFIX = re.compile(r'^Error while executing (?:ACL|config) command(?: with args .*)?:\s*')
MISSING_CLASS = re.compile(r'Could not find or load main class (\S+)')


@dataclass(frozen=True)
class ToolResult:
    """What one JVM printed and how it exited."""

    rc: int
    stdout: str
    stderr: str


Runner = Callable[[Sequence[str], float], ToolResult]


def run_process(argv: Sequence[str], timeout: float) -> ToolResult:
    """Run a command without a shell; a hung or missing tool becomes a failed result."""
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        partial = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or '')
        return ToolResult(EXIT_TIMEOUT, partial, 'no answer within %g s' % timeout)
    except OSError as exc:
        return ToolResult(EXIT_NOT_STARTED, '', '%s: %s' % (argv[0], exc.strerror or exc))
    return ToolResult(done.returncode, done.stdout, done.stderr)


def _short(text: str) -> str:
    text = QUALIFIED_THROWABLE.sub(r'\1', text.strip())
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 3] + '...'


def failure_reason(result: ToolResult) -> str:
    """The tool's own words: the first exception it reports and, when different, the root cause."""
    lines = [line.strip() for line in (result.stdout + '\n' + result.stderr).splitlines() if line.strip()]
    missing = next((match.group(1) for match in map(MISSING_CLASS.search, lines) if match), None)
    if missing:
        return 'this Kafka has no class %s (Kafka 3.x names it %s)' % (missing, ACL_COMMAND_3) \
            if missing == ACL_COMMAND_4 else 'this Kafka has no class %s' % missing
    causes = [line[len('Caused by:'):].strip() for line in lines if line.startswith('Caused by:')]
    headlines = [TOOL_PREFIX.sub('', line) for line in lines
                 if not line.startswith(('Caused by:', 'at ', '...')) and THROWABLE_LINE.search(TOOL_PREFIX.sub('', line))]
    first = _short(headlines[0]) if headlines else ''
    root = _short(causes[-1]) if causes else ''
    if first and root and root not in first:
        return '%s, caused by %s' % (first, root)
    if first or root:
        return first or root
    # Usage errors: the message is the first line, the option table follows.
    plain = [line for line in result.stderr.splitlines() if line.strip()] or lines
    if plain:
        return _short(plain[0])
    return 'exit code %d without a message' % result.rc


class KafkaToolError(Exception):
    """A tool that exited non-zero, with what it was asked to do and why it failed."""

    def __init__(self, action: str, result: ToolResult) -> None:
        self.action = action
        self.result = result
        self.reason = failure_reason(result)
        super().__init__('%s: %s' % (action, self.reason))


@dataclass
class KafkaAdmin:
    """Admin connection to one cluster: every call goes to the bootstrap server with the client settings."""

    bootstrap_server: str
    command_config: Optional[str] = None
    kafka_run: str = DEFAULT_KAFKA_RUN
    timeout: float = DEFAULT_TIMEOUT
    runner: Runner = run_process
    runs: List[str] = field(default_factory=list)

    def connection_args(self) -> List[str]:
        args = ['--bootstrap-server', self.bootstrap_server]
        if self.command_config:
            args += ['--command-config', self.command_config]
        return args

    def run(self, main_class: str, args: Sequence[str], action: str) -> ToolResult:
        """Start one JVM; raise KafkaToolError unless it exits 0."""
        self.runs.append(action)
        result = self.runner([self.kafka_run, main_class] + self.connection_args() + list(args), self.timeout)
        if result.rc != 0:
            raise KafkaToolError(action, result)
        return result


def admin_argument_spec() -> Dict[str, Dict[str, Any]]:
    """Connection options shared by the modules that run Kafka's admin tools (see their DOCUMENTATION)."""
    return {
        'bootstrap_server': {'type': 'str', 'required': True},
        'command_config': {'type': 'path'},
        'kafka_run': {'type': 'path', 'default': DEFAULT_KAFKA_RUN},
        'timeout': {'type': 'int', 'default': DEFAULT_TIMEOUT},
    }


def admin_from_params(params: Dict[str, Any], runner: Runner = run_process) -> KafkaAdmin:
    return KafkaAdmin(bootstrap_server=params['bootstrap_server'], command_config=params['command_config'] or None,
                      kafka_run=params['kafka_run'], timeout=params['timeout'], runner=runner)


def write_private_file(path: str, content: str) -> None:
    """Create or replace a root-only file (0600) atomically, without a moment of wider access."""
    handle, scratch = tempfile.mkstemp(prefix='.%s.' % os.path.basename(path), dir=os.path.dirname(path) or '.')
    try:
        with os.fdopen(handle, 'w', encoding='utf-8') as stream:
            stream.write(content)
        os.chmod(scratch, 0o600)
        os.replace(scratch, path)
    except BaseException:
        if os.path.exists(scratch):
            os.unlink(scratch)
        raise


def private_directory_fault(path: str) -> Optional[str]:
    """Why a state directory is not private to the user the module runs as (None when it is): it is
    missing, or another user owns it, or its group or others have any access."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return 'missing'
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(path)
    if info.st_uid != os.geteuid() or stat.S_IMODE(info.st_mode) & 0o077:
        return 'mode %04o, owner uid %d' % (stat.S_IMODE(info.st_mode), info.st_uid)
    return None


def make_private_directory(path: str) -> None:
    """Create the directory, or correct it: 0700, owned by the user and group the module runs as."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    os.chown(path, os.geteuid(), os.getegid())
    os.chmod(path, 0o700)


def private_directory_diff(path: str, fault: str) -> Dict[str, str]:
    """The diff of a state directory made private: what it was, what it becomes."""
    before = 'absent\n' if fault == 'missing' else fault + '\n'
    return {'before': before, 'after': 'mode 0700, owner uid %d\n' % os.geteuid(),
            'before_header': path + ' (directory)', 'after_header': path + ' (directory)'}
