# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The handle tests hold on the fake kafka-run: where it is, what the cluster holds, what was called."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, List

FAKE_SCRIPT = Path(__file__).resolve().parent / 'fake_kafka_run.py'


class FakeCluster:
    """The fake's state: ACLs as [TYPE, name, PATTERN, principal, host, OPERATION, PERMISSION] lists,
    SCRAM credentials as {name: {mechanism: {iterations, password}}}, and every call made."""

    def __init__(self, directory: Path) -> None:
        self.state_path = directory / 'cluster.json'
        self.kafka_run = directory / 'kafka-run'
        self.kafka_run.write_text('#!/bin/sh\nexec "%s" "%s" "%s" "$@"\n' % (sys.executable, FAKE_SCRIPT, self.state_path))
        self.kafka_run.chmod(0o755)
        self.save({'acls': [], 'scram': {}, 'calls': []})

    def load(self) -> Dict[str, Any]:
        return json.loads(self.state_path.read_text(encoding='utf-8'))

    def save(self, state: Dict[str, Any]) -> None:
        self.state_path.write_text(json.dumps(state), encoding='utf-8')

    def update(self, **values: Any) -> None:
        state = self.load()
        state.update(values)
        self.save(state)

    def acls(self) -> List[List[str]]:
        return sorted(self.load()['acls'])

    def calls(self) -> List[List[str]]:
        return self.load()['calls']

    def reset_calls(self) -> None:
        self.update(calls=[])
