# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fake Connect worker answering like the Kafka version it reports.

Older Apache Kafka workers lack endpoints (404) and ignore query parameters they do not know,
so a module that trusted them would silently do less than asked: this fake does the same, and
the tests prove the modules never rely on it.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from fake_connect import MIRROR_PLUGINS, FakeConnect, FakeConnector, Reply, not_found

# The versions the modules are tested against: EMR's 2.4.1 up to 4.x, and a vendor string.
VERSIONS = ['2.4.1', '2.8.2', '3.0.2', '3.4.1', '3.5.2', '3.9.1', '4.3.0', 'vendor-build-7']
UNPARSEABLE = 'vendor-build-7'


def kafka_of(version: str) -> Optional[Tuple[int, int]]:
    match = re.match(r'(\d+)\.(\d+)', version)
    return (int(match.group(1)), int(match.group(2))) if match else None


def at_least(version: str, minimum: Tuple[int, int]) -> bool:
    """What the worker can do: an unparseable version is a new worker here."""
    kafka = kafka_of(version)
    return kafka is None or kafka >= minimum


class VersionedConnect(FakeConnect):
    """/stop and /offsets only from 3.5; restart query parameters only from 3.0; MM2 plugins
    only from 2.4, and only while `mirror_installed`."""

    def __init__(self, version: str = '3.9.0') -> None:
        super().__init__(version)
        self.mirror_installed = True

    def _plugins(self, method: str, segments: List[str], body: Any) -> Reply:
        if len(segments) == 1 and method == 'GET':
            plugins = [{'class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', 'type': 'source', 'version': self.version}]
            if self.mirror_installed and at_least(self.version, (2, 4)):
                plugins += [{'class': cls, 'type': 'source', 'version': self.version} for cls in MIRROR_PLUGINS]
            return 200, plugins
        return super()._plugins(method, segments, body)

    def _connector(self, method: str, name: str, rest: List[str], query: Dict[str, List[str]], body: Any) -> Reply:
        action = '/'.join(rest)
        if action == 'stop' and not at_least(self.version, (3, 5)):
            return not_found()
        if action == 'offsets' and not at_least(self.version, (3, 5)):
            return not_found()
        if action == 'restart' and not at_least(self.version, (3, 0)):
            query = {}  # the parameters are unknown to the worker: the connector instance alone restarts
        return super()._connector(method, name, rest, query, body)

    def _restart(self, connector: FakeConnector, query: Dict[str, List[str]]) -> Reply:
        if not at_least(self.version, (3, 0)):
            connector.pending_restart = ['connector']
            connector.finish_restart()
            return 204, None
        return super()._restart(connector, query)


def request_paths(fake: FakeConnect, method: Optional[str] = None) -> List[str]:
    return [request.path for request in fake.requests if method in (None, request.method)]
