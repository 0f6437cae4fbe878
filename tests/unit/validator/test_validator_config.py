"""Properties files, remote topic names and report-safe inputs."""

from __future__ import annotations

import pytest

from mm2_validator.config import ConfigError, ValidatorConfig, cluster_access


def test_java_properties_syntax(tmp_path):
    path = tmp_path / "client.properties"
    path.write_text(
        "# comment\n! also a comment\n\n"
        "security.protocol=SASL_SSL\n"
        "sasl.mechanism : SCRAM-SHA-512\n"
        "ssl.truststore.location /etc/kafka/truststore.jks\n"
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n"
        '    username="u" \\\n    password="p\\u00e4ss";\n'
        "key\\=with\\:seps = value\\tafter\n"
    )
    properties = cluster_access("source", "b:9092", str(path)).client_properties
    assert properties["security.protocol"] == "SASL_SSL"
    assert properties["sasl.mechanism"] == "SCRAM-SHA-512"
    assert properties["ssl.truststore.location"] == "/etc/kafka/truststore.jks"
    assert properties["sasl.jaas.config"].endswith('username="u" password="päss";')
    assert properties["key=with:seps"] == "value\tafter"


def test_cluster_access_keeps_secret_values_out_of_descriptions(tmp_path):
    path = tmp_path / "c.properties"
    path.write_text("bootstrap.servers=b:9093\nssl.keystore.password=hunter2\ngroup.id=ignored\n")
    access = cluster_access("source", None, str(path))
    assert access.bootstrap == "b:9093"
    assert access.spark_options()["kafka.ssl.keystore.password"] == "hunter2"
    assert "kafka.group.id" not in access.spark_options()  # the Spark Kafka source rejects it
    assert "hunter2" not in repr(access) and "hunter2" not in str(access.describe())


def test_missing_bootstrap_is_a_config_error():
    with pytest.raises(ConfigError):
        cluster_access("target", None, None)


def test_unreadable_or_malformed_properties_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        cluster_access("source", "b:9092", str(tmp_path / "absent.properties"))
    broken = tmp_path / "broken.properties"
    broken.write_text("password=\\u12\n")
    with pytest.raises(ConfigError, match="malformed"):
        cluster_access("source", "b:9092", str(broken))


def _config(policy: str, separator: str) -> ValidatorConfig:
    access = cluster_access("source", "b:9092", None)
    return ValidatorConfig(access, access, access, "us-east", "us-west", policy, separator, topics=("orders",))


def test_remote_topic_names():
    assert _config("default", ".").remote_topic("orders") == "us-east.orders"
    assert _config("default", "_").remote_topic("orders") == "us-east_orders"
    assert _config("identity", ".").remote_topic("orders") == "orders"
    # The identity policy prefixes heartbeats like the default one, so they cannot loop.
    assert _config("identity", ".").remote_topic("heartbeats") == "us-east.heartbeats"
    assert _config("identity", ".").naming.remote_heartbeats_topic("us-east") == "us-east.heartbeats"
