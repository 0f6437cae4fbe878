# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The connector module run against a fake Connect worker, for the tests of its behaviours."""

from __future__ import annotations

from typing import Any, Callable, Dict


# The connector module against a fake worker: polls and retries fast, so a test takes milliseconds.
FAST_POLLING = {'poll_interval': 0.05, 'wait_timeout': 10, 'retry_backoff': 0.05}


def connector_runner(run_module: Callable[..., Dict[str, Any]], url: str, diff: bool = False,
                     **defaults: Any) -> Callable[..., Dict[str, Any]]:
    """kafka_dr.mm2.connector at `url`; a test's own arguments override FAST_POLLING and `defaults`."""
    def run(check_mode: bool = False, diff: bool = diff, **args: Any) -> Dict[str, Any]:
        return run_module('connector', check_mode=check_mode, diff=diff, **{**FAST_POLLING, 'url': url, **defaults, **args})
    return run
