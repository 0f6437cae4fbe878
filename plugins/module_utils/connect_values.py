# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Connect's string form of a configuration value.

Kafka Connect stores every connector setting as a string, and Kafka reads properties
files as strings. The connector module, the MirrorMaker 2 planner and the to_properties
filter all render values through connect_string, so `true`, `3` and `a,b` are spelt the
same way everywhere and a desired config compares equal to what Connect returns.
"""

from __future__ import annotations

from typing import Any


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
