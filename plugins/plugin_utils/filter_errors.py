# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A plugin_utils function as a filter: the ValueError it raises reaches Ansible as AnsibleFilterError."""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

from ansible.errors import AnsibleFilterError

Result = TypeVar('Result')


def as_filter(function: Callable[..., Result]) -> Callable[..., Result]:
    """The function, with its ValueError turned into AnsibleFilterError (same message)."""
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Result:
        try:
            return function(*args, **kwargs)
        except ValueError as error:
            raise AnsibleFilterError(str(error)) from error
    return wrapper
