# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the watchdog remembers across its own restarts: the restart counts of each key, in a JSON
state file (version 1) that systemd's StateDirectory= holds."""

from __future__ import annotations

import json
import logging
import os
import tempfile
from typing import Any, Dict, Mapping, Optional

from .decisions import UnitKey, UnitState
from .log_lines import LOG

STATE_VERSION = 1


def encode_states(states: Mapping[UnitKey, UnitState]) -> Dict[str, Any]:
    units = [dict(connector=key.connector, task=key.task, restarts=state.restarts, last_restart=state.last_restart,
                  running_since=state.running_since, cap_reached=state.cap_reached)
             for key, state in sorted(states.items(), key=lambda item: item[0].sort_key())]
    return {'version': STATE_VERSION, 'units': units}


def _optional_time(value: Any, name: str) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError('%s must be a number or null' % name)
    return float(value)


def decode_states(document: Any) -> Dict[UnitKey, UnitState]:
    """The states of a state file; ValueError when it is not one this version wrote."""
    if not isinstance(document, Mapping) or document.get('version') != STATE_VERSION or not isinstance(document.get('units'), list):
        raise ValueError('not a version %d state document' % STATE_VERSION)
    states: Dict[UnitKey, UnitState] = {}
    for unit in document['units']:
        if not isinstance(unit, Mapping) or not isinstance(unit.get('connector'), str):
            raise ValueError('a unit without a connector name')
        task, restarts = unit.get('task'), unit.get('restarts')
        if task is not None and (isinstance(task, bool) or not isinstance(task, int)):
            raise ValueError('task of %s must be a number or null' % unit['connector'])
        if isinstance(restarts, bool) or not isinstance(restarts, int) or restarts < 0:
            raise ValueError('restarts of %s must be a count' % unit['connector'])
        states[UnitKey(unit['connector'], task)] = UnitState(
            restarts, _optional_time(unit.get('last_restart'), 'last_restart'),
            _optional_time(unit.get('running_since'), 'running_since'), bool(unit.get('cap_reached')))
    return states


class StateStore:
    """The JSON state file: read once at start, replaced atomically (0600) when the state changes.

    A missing file is an empty history; an unreadable or corrupt one is logged and replaced
    by the next save, never fatal.
    """

    def __init__(self, path: str, logger: logging.Logger = LOG) -> None:
        self.path = path
        self.log = logger

    def load(self) -> Dict[UnitKey, UnitState]:
        try:
            with open(self.path, encoding='utf-8') as handle:
                return decode_states(json.load(handle))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            self.log.error('state file %s is unreadable or corrupt (%s): starting without restart history; '
                           'it is replaced on the next change', self.path, exc)
            return {}

    def save(self, states: Mapping[UnitKey, UnitState]) -> bool:
        directory = os.path.dirname(os.path.abspath(self.path))
        temporary = None
        try:
            # mkstemp creates the file 0600; os.replace keeps that mode.
            descriptor, temporary = tempfile.mkstemp(prefix='.state-', suffix='.json', dir=directory)
            with os.fdopen(descriptor, 'w', encoding='utf-8') as handle:
                json.dump(encode_states(states), handle, sort_keys=True)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, self.path)
            return True
        except OSError as exc:
            self.log.error('cannot write state file %s: %s', self.path, exc)
            if temporary is not None and os.path.exists(temporary):
                os.unlink(temporary)
            return False
