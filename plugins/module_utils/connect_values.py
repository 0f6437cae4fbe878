# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Connect's string form of a configuration value, and the readers of loose values.

Kafka Connect stores every connector setting as a string, and Kafka reads properties
files as strings. The connector module, the MirrorMaker 2 planner and the to_properties
filter all render values through connect_string, so `true`, `3` and `a,b` are spelt the
same way everywhere and a desired config compares equal to what Connect returns.

The readers go the other way: an integer from an inventory or a Connect answer (either may
spell it as text), and the excerpt of a Java stack trace a report shows.
"""

from __future__ import annotations

import re
from typing import Any, Optional

_WHOLE_NUMBER_RE = re.compile(r'^\s*-?[0-9]+\s*$')


def connect_string(value: Any) -> str:
    """The text Connect stores for `value`.

    Booleans become true/false (not Python's True/False), numbers their decimal text,
    lists and tuples their items joined by commas (Connect's LIST type). None and
    mappings have no string form: TypeError, so the caller can name the key at fault.
    """
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return ','.join(connect_string(item) for item in value)
    if value is None:
        raise TypeError('has no value')
    raise TypeError('must be a string, number, boolean or list, got %s' % type(value).__name__)


def as_int(value: Any) -> Optional[int]:
    """An integer given as a number or as its decimal text, else None (booleans and fractions too)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str) and _WHOLE_NUMBER_RE.match(value):
        return int(value)
    return None


def trace_excerpt(trace: Optional[str], lines: int = 1, width: Optional[int] = None) -> Optional[str]:
    """The first non-blank lines of a trace, stripped and joined with ' | ', cut to `width` characters; None for no trace."""
    if not trace:
        return None
    kept = [line.strip() for line in trace.splitlines() if line.strip()][:lines]
    excerpt = ' | '.join(kept)
    return excerpt[:width] if width is not None else excerpt
