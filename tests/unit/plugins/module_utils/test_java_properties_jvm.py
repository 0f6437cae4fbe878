# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Our properties writer against Java's own readers, in a JVM with the Kafka client jars:
Kafka's FileConfigProvider (Properties.load(Reader), UTF-8: how connectors read secret files)
and Utils.loadProps (Properties.load(InputStream), ISO-8859-1: how Connect and the tools read
their config files) read what we wrote as we meant it, and as our reader reads it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.java_properties import read_file, to_text
from test_java_properties import TRICKY_VALUES, random_texts

pytestmark = pytest.mark.spark  # starts a JVM (fixture jvm of tests/unit/conftest.py)


def file_config_provider(jvm: Any, path: Path) -> Dict[str, str]:
    provider = jvm.org.apache.kafka.common.config.provider.FileConfigProvider()
    provider.configure(jvm.java.util.HashMap())
    try:
        return dict(provider.get(str(path)).data())
    finally:
        provider.close()


def load_props(jvm: Any, path: Path) -> Dict[str, str]:
    properties = jvm.org.apache.kafka.common.utils.Utils.loadProps(str(path))
    return {str(name): str(properties.getProperty(name)) for name in properties.stringPropertyNames()}


def test_java_reads_what_we_write_as_we_read_it(jvm: Any, tmp_path: Path) -> None:
    written = dict(TRICKY_VALUES)
    written.update(('random.%03d %s' % (index, key), value)
                   for index, (key, value) in enumerate(zip(random_texts(150, seed=3), random_texts(150, seed=4))))
    path = tmp_path / 'tricky.properties'
    path.write_text(to_text(written), encoding='utf-8')

    ours = read_file(str(path))
    assert ours == written
    assert file_config_provider(jvm, path) == written
    assert load_props(jvm, path) == written
