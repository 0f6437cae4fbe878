# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the watchdog logs: one line per restart (the start of the trace of a failed key, the
figures of a stalled one), with JAAS lines and password-like values masked."""

from __future__ import annotations

import json
import logging
import re

from .decisions import Restart

LOG = logging.getLogger('kafka_dr.connect_watchdog')

TRACE_LINES = 3
MASK = '********'

# A JAAS line is masked whole; other secrets by their key (password, ssl.key.password, ...).
_JAAS_RE = re.compile(r'(sasl\.jaas\.config"?\s*[=:]\s*)[^\n]*', re.IGNORECASE)
_SECRET_VALUE_RE = re.compile(r'''((?:password|passwd|secret)[\w.-]*"?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;}\]]+)''', re.IGNORECASE)


def mask_secrets(text: str) -> str:
    """Hide JAAS lines and password-like values in free text (a trace, an error message)."""
    return _SECRET_VALUE_RE.sub(r'\1' + MASK, _JAAS_RE.sub(r'\1' + MASK, text))


def trace_excerpt(trace: str, lines: int = TRACE_LINES) -> str:
    """The first lines of a trace, masked, on one line."""
    kept = [line.strip() for line in mask_secrets(trace).splitlines() if line.strip()]
    return ' | '.join(kept[:lines])


def format_delay(seconds: float) -> str:
    return '%dm' % (seconds // 60)


def format_restart(restart: Restart, outcome: str) -> str:
    """The one log line of a restart: the start of the trace of a failed one, the figures of a stalled one."""
    why = 'stalled=%s' % json.dumps(restart.stall.describe()) if restart.stall else 'trace=%s' % json.dumps(trace_excerpt(restart.trace))
    return 'restart connector=%s task=%s attempt=%d next_delay=%s outcome=%s %s' % (
        json.dumps(restart.key.connector), restart.key.label, restart.attempt, format_delay(restart.next_delay), outcome, why)
