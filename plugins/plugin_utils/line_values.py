# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Inventory values written into line-based files (systemd units, spark-defaults.conf).

Such a file is read line by line: a line break in a value would end the setting and start another one
of the inventory's choosing. No control character has a safe spelling there, so the writers refuse
them; this module finds them and the values that are no scalar at all.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Optional, Tuple

CONTROL_RE = re.compile(r'[\x00-\x1f\x7f]')
CONTROL_NAMES = {'\n': 'a line break', '\r': 'a carriage return', '\t': 'a tab'}


def scalar_text(value: Any) -> Optional[str]:
    """A string or number as a template renders it ({{ value }}); None for None, a mapping or a collection."""
    if value is None or isinstance(value, (Mapping, list, tuple, set)):
        return None
    return str(value)


def first_control(text: str) -> Optional[Tuple[int, str]]:
    """The first control character of the text: its position (from 1) and what it is, or None."""
    control = CONTROL_RE.search(text)
    if not control:
        return None
    char = control.group(0)
    return control.start() + 1, CONTROL_NAMES.get(char, 'the control character %r' % char)
