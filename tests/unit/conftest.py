# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Makes this checkout importable as ansible_collections.kafka_dr.mm2 for tests that run modules."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

# Fixtures that make a test leave the process: a Spark JVM, or ansible-playbook rendering
# the roles. Tests using them get the marker, so `-m 'not playbook and not spark'` keeps
# the in-process loop fast whichever file a new test lands in.
MARKER_OF_FIXTURE = {'spark': 'spark', 'ansi': 'spark', 'jvm': 'spark', 'tls_material': 'spark', 'rendered': 'playbook', 'needs_ansible': 'playbook'}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for fixture in getattr(item, 'fixturenames', ()):
            marker = MARKER_OF_FIXTURE.get(fixture)
            if marker is not None:
                item.add_marker(marker)


# tests/unit/conftest.py -> the collection root is two levels above this directory.
COLLECTION_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope='session')
def collection_root() -> Path:
    return COLLECTION_ROOT


@pytest.fixture(scope='session')
def collections_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding ansible_collections/kafka_dr/mm2 -> this checkout (for PYTHONPATH)."""
    base = tmp_path_factory.mktemp('collections')
    namespace_dir = base / 'ansible_collections' / 'kafka_dr'
    namespace_dir.mkdir(parents=True)
    (namespace_dir / 'mm2').symlink_to(COLLECTION_ROOT, target_is_directory=True)
    return base


@pytest.fixture(scope='session')
def jvm() -> Iterator[Any]:
    """A JVM with the Kafka client jars (py4j gateway), for tests that check what Java itself reads."""
    from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import (  # pylint: disable=import-outside-toplevel
        PY4J_IMPORT_ERROR,
        KafkaJvm,
    )
    if PY4J_IMPORT_ERROR or not shutil.which('java'):
        pytest.skip('needs py4j and a java on PATH')
    from tests.integration.lab_admin import client_libs  # pylint: disable=import-outside-toplevel
    try:
        home = client_libs()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    with KafkaJvm(str(home)) as kafka_jvm:
        yield kafka_jvm.jvm
