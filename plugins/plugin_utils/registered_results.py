# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Registered results of looped tasks, read back.

Logic behind the filter outputs_by_item. Errors are ValueError; the filter turns them into
AnsibleFilterError.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Mapping


def dotted(value: Any, path: str) -> Any:
    """The value at a dotted path of nested mappings (``item.key``), as Jinja's ``attribute=`` reads it."""
    for name in path.split('.'):
        if not isinstance(value, Mapping) or name not in value:
            raise ValueError('a result has no %s' % path)
        value = value[name]
    return value


def outputs_by_item(results: Iterable[Mapping[str, Any]], key: str = 'item', value: str = 'stdout') -> Dict[Any, Any]:
    """One entry per result, in order (a later result wins a repeated key): its value at ``key``, its value at ``value``."""
    if isinstance(results, (str, bytes, Mapping)):
        raise ValueError('outputs_by_item expects a list of results, got %s' % type(results).__name__)
    return {dotted(result, key): dotted(result, value) for result in results}
