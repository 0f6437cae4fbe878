"""The failover module logs in with the password Kafka reads from the worker's secret file.

The mirrormaker role writes the workers' secret files with properties_files, which escapes what
Java would read as syntax; MM2 reads them back with Kafka's FileConfigProvider. A password that a
placeholder inside a JAAS line reads is JAAS-escaped first (the keys mm2_jaas_secret_keys names):
Kafka substitutes the placeholder before its JAAS parser (a StreamTokenizer) reads backslash
escapes inside password="...". The failover module resolves the same ${file:...} placeholders
itself (kafka_jvm.resolve_file_placeholders) before opening Kafka's Admin client (JvmKafkaSide).
This test creates a SCRAM account of its own on the lab's target broker whose password holds
every character class the properties format and the JAAS parser treat specially, backslash and
double quote included, writes the secret file as the role does, and runs that code path against
the broker's SASL_SSL listener: listing the groups needs a login with the password as given.

Cleans up: the SCRAM account and the local secret file and CA copy (pytest's tmp_path).
About 10 s of lab time: one account change and one Admin client in a JVM of its own.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Iterator

import pytest
from ansible_collections.kafka_dr.mm2.plugins.filter.mm2_jaas_secret_keys import mm2_jaas_secret_keys
from ansible_collections.kafka_dr.mm2.plugins.filter.properties_files import properties_files
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import (
    JvmKafkaSide,
    KafkaJvm,
    resolve_file_placeholders,
)
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_clients import jaas_escape

from tests.integration import lab, lab_admin

ACCOUNT = f"secret-round-trip-{os.getpid()}"
# Leading and trailing blanks, separators, comment marks, a tab, non-ASCII inside and beyond the BMP,
# backslashes (one before a letter, as Kafka would drop it, and a trailing one) and double quotes.
PASSWORD = ' p@ss=w:rd\\x#é!\t漢 "q" :=!# \U0001d11e \\'
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


def write_secret_file(secrets_dir: Path) -> Path:
    """The secret file as the mirrormaker role writes it for a cluster whose login line reads its password."""
    clusters = {"dst": {"bootstrap_servers": f"{BROKER}:{lab.CLIENT_PORT}", "security_protocol": "SASL_SSL",
                        "sasl_mechanism": "SCRAM-SHA-512", "sasl_username": ACCOUNT, "sasl_password_file": "mm2.properties"}}
    files = {"mm2.properties": {"sasl.password": PASSWORD}}
    jaas_keys = mm2_jaas_secret_keys(clusters, str(secrets_dir), files)
    assert jaas_keys == {"mm2.properties": ["sasl.password"]}
    (entry,) = properties_files(files, str(secrets_dir), jaas_keys=jaas_keys)
    secret_file = Path(entry["dest"])
    secret_file.write_text(entry["content"], encoding="utf-8")
    return secret_file


def test_the_failover_module_logs_in_with_a_password_of_every_character_class(account: str, tmp_path: Path) -> None:
    secret_file = write_secret_file(tmp_path)
    ca_file = tmp_path / "ca.pem"
    ca_file.write_text(subprocess.run(["docker", "exec", BROKER, "cat", lab.LAB_CA], capture_output=True,
                                      text=True, check=True).stdout, encoding="utf-8")
    # The same name resolution as the test's Admin clients (lab.admin() wrote the hosts file above).
    hosts_file = lab.REPO_ROOT / "build" / "lab-hosts" / f"{lab.LAB_NETWORK}-{os.getpid()}"

    settings = resolve_file_placeholders(client_settings(secret_file, ca_file, account))
    # The line holds the JAAS-escaped password; Kafka's parser gives the login module PASSWORD.
    assert f'password="{jaas_escape(PASSWORD)}";' in settings["sasl.jaas.config"]
    with KafkaJvm(str(lab_admin.client_libs()), options=[f"-Djdk.net.hosts.file={hosts_file}"]) as jvm:
        side = JvmKafkaSide(jvm, "dst", settings, timeout_ms=20000)
        try:
            assert isinstance(side.groups(), list)  # a wrong password fails here: SaslAuthenticationException
        finally:
            side.close()
