# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The broker's JAAS file, as role kafka_broker renders it, read by the JDK's own login
configuration parser (what the broker's java.security.auth.login.config does): every PLAIN
account keeps its password exactly, quotes, backslashes and line breaks included."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from tests.unit.security.conftest import HARD_PLAIN_PASSWORD, PLAIN_PASSWORD

pytestmark = pytest.mark.spark  # starts a JVM (fixture jvm of tests/unit/conftest.py)


def login_entries(jvm: Any, path: str, section: str) -> Dict[str, Dict[str, str]]:
    """Login module class -> its options, for one section of a JAAS file."""
    uri = jvm.java.security.URIParameter(jvm.java.io.File(path).toURI())
    configuration = jvm.javax.security.auth.login.Configuration.getInstance('JavaLoginConfig', uri)
    return {str(entry.getLoginModuleName()): {str(key): str(value) for key, value in dict(entry.getOptions()).items()}
            for entry in configuration.getAppConfigurationEntry(section)}


def test_the_jdk_reads_every_plain_password_as_given(jvm: Any, rendered: Any) -> None:
    entries = login_entries(jvm, str(rendered.root / 'broker_secure' / 'jaas.conf'), 'sasl_ssl.KafkaServer')
    assert entries['org.apache.kafka.common.security.plain.PlainLoginModule'] == {
        'user_probe': PLAIN_PASSWORD, 'user_hard': HARD_PLAIN_PASSWORD}
    assert entries['org.apache.kafka.common.security.scram.ScramLoginModule'] == {}
