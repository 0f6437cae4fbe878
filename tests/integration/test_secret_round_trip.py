"""The failover module logs in with the password Kafka reads from the worker's secret file.

The roles write the workers' secret files with to_properties, which escapes what Java would
read as syntax; MM2 reads them back with Kafka's FileConfigProvider. The failover module
resolves the same ${file:...} placeholders itself (kafka_jvm.resolve_file_placeholders) before
opening Kafka's Admin client (JvmKafkaSide). This test creates a SCRAM account of its own on
the lab's target broker whose password holds every character class the properties format
treats specially, writes the secret file with to_properties, and runs that code path against
the broker's SASL_SSL listener: listing the groups needs a login.

The password leaves out backslash and double quote: the JAAS parser (a StreamTokenizer) reads
those as escapes inside password="...", for MM2 as for the module.

Cleans up: the SCRAM account and the local secret file and CA copy (pytest's tmp_path).
About 10 s of lab time: one account change and one Admin client in a JVM of its own.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Iterator

import pytest
from ansible_collections.kafka_dr.mm2.plugins.filter.properties import to_properties
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import (
    JvmKafkaSide,
    KafkaJvm,
    resolve_file_placeholders,
)

from tests.integration import lab, lab_admin

ACCOUNT = f"secret-round-trip-{os.getpid()}"
# Leading and trailing blanks, separators, comment marks, a tab, non-ASCII inside and beyond the BMP.
PASSWORD = " p@ss=w:rd#é!\t漢 :=!# \U0001d11e "
BROKER = lab.TARGET_BROKER


@pytest.fixture
def account() -> Iterator[str]:
    lab.set_scram_account(BROKER, ACCOUNT, PASSWORD)
    try:
        yield ACCOUNT
    finally:
        lab.delete_scram_account(BROKER, ACCOUNT)


def client_settings(secret_file: Path, ca_file: Path, user: str) -> dict[str, str]:
    """The connector's settings as the inventory hands them to the failover module (a placeholder, no secret)."""
    return {
        "bootstrap.servers": f"{BROKER}:{lab.CLIENT_PORT}",
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": ("org.apache.kafka.common.security.scram.ScramLoginModule required "
                             f'username="{user}" password="${{file:{secret_file}:sasl.password}}";'),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(ca_file),
    }


def test_the_failover_module_logs_in_with_a_password_of_every_character_class(account: str, tmp_path: Path) -> None:
    secret_file = tmp_path / "mm2.properties"
    secret_file.write_text(to_properties({"sasl.password": PASSWORD}), encoding="utf-8")
    ca_file = tmp_path / "ca.pem"
    ca_file.write_text(subprocess.run(["docker", "exec", BROKER, "cat", lab.LAB_CA], capture_output=True,
                                      text=True, check=True).stdout, encoding="utf-8")
    # The same name resolution as the test's Admin clients (lab.admin() wrote the hosts file above).
    hosts_file = lab.REPO_ROOT / "build" / "lab-hosts" / f"{lab.LAB_NETWORK}-{os.getpid()}"

    settings = resolve_file_placeholders(client_settings(secret_file, ca_file, account))
    assert f'password="{PASSWORD}";' in settings["sasl.jaas.config"]
    with KafkaJvm(str(lab_admin.client_libs()), options=[f"-Djdk.net.hosts.file={hosts_file}"]) as jvm:
        side = JvmKafkaSide(jvm, "dst", settings, timeout_ms=20000)
        try:
            assert isinstance(side.groups(), list)  # a wrong password fails here: SaslAuthenticationException
        finally:
            side.close()
