# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fake kafka-run (AclCommand and ConfigCommand over a JSON file) for the admin-tool modules, and a fake
Connect worker that answers like the Kafka version it reports."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_cluster import FakeCluster  # noqa: E402  pylint: disable=wrong-import-position
from versioned_connect import VersionedConnect  # noqa: E402  pylint: disable=wrong-import-position


@pytest.fixture
def cluster(tmp_path: Path) -> FakeCluster:
    return FakeCluster(tmp_path)


@pytest.fixture
def versioned() -> Iterator[VersionedConnect]:
    server = VersionedConnect()
    server.start()
    yield server
    server.stop()
