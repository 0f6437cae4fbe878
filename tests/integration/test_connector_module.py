"""kafka_dr.mm2.connector against the lab's real Connect cluster (MirrorHeartbeatConnector)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.integration import ansible_run, lab

RUN_ON = lab.CONNECT_WORKERS[0]
WORKER_URLS = [f"https://{worker}:8083" for worker in lab.CONNECT_WORKERS]
# The REST account comes from the inventory on the managed host, not from a command line.
REST_ACCESS = {"url_username": "operator", "url_password": "{{ lab_rest_password }}", "ca_path": lab.LAB_CA}
HEARTBEAT_CLASS = "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector"


def rest_get(path: str) -> tuple[int, object]:
    """GET on the first worker's REST API, from inside the lab."""
    return lab.connect_rest("GET", path, worker=RUN_ON)


def connector(arguments: dict, *flags: str) -> dict:
    return ansible_run.module(RUN_ON, "kafka_dr.mm2.connector", {"url": WORKER_URLS, **REST_ACCESS, **arguments}, *flags)


def heartbeat_config(interval_seconds: int) -> dict:
    return {
        "connector.class": HEARTBEAT_CLASS,
        "source.cluster.alias": "itest-upstream",
        "target.cluster.alias": "dst",
        **lab.client_settings("source.cluster.", lab.SOURCE_BROKER),
        **lab.client_settings("target.cluster.", lab.TARGET_BROKER),
        **lab.client_settings("producer.override.", lab.TARGET_BROKER),
        "heartbeats.topic.replication.factor": -1,
        "emit.heartbeats.interval.seconds": interval_seconds,
        "tasks.max": 1,
    }


@pytest.fixture()
def connector_name(lab_brokers: tuple[str, str]) -> Iterator[str]:
    name = f"itest-heartbeat-{int(time.time())}"
    yield name
    connector({"name": name, "state": "absent"})


def test_full_lifecycle_is_idempotent(connector_name: str) -> None:
    created = connector({"name": connector_name, "config": heartbeat_config(5), "state": "running"})
    assert created["changed"] is True, created
    assert created["status"]["connector"]["state"] == "RUNNING"

    rerun = connector({"name": connector_name, "config": heartbeat_config(5), "state": "running"})
    assert rerun["changed"] is False, rerun

    as_strings = {key: str(value) for key, value in heartbeat_config(5).items()}
    assert connector({"name": connector_name, "config": as_strings})["changed"] is False

    updated = connector({"name": connector_name, "config": heartbeat_config(2), "state": "running"})
    assert updated["changed"] is True
    assert updated["config_changes"]["changed"] == ["emit.heartbeats.interval.seconds"]
    assert rest_get(f"/connectors/{connector_name}/config")[1]["emit.heartbeats.interval.seconds"] == "2"

    for state, expected in (("paused", "PAUSED"), ("running", "RUNNING"), ("stopped", "STOPPED")):
        result = connector({"name": connector_name, "state": state})
        assert result["changed"] is True, result
        assert rest_get(f"/connectors/{connector_name}/status")[1]["connector"]["state"] == expected
        assert connector({"name": connector_name, "state": state})["changed"] is False

    deleted = connector({"name": connector_name, "state": "absent"})
    assert deleted["changed"] is True
    assert rest_get(f"/connectors/{connector_name}")[0] == 404


def test_check_mode_writes_nothing(connector_name: str) -> None:
    predicted = connector({"name": connector_name, "config": heartbeat_config(5)}, "--check")

    assert predicted["changed"] is True
    assert rest_get(f"/connectors/{connector_name}")[0] == 404


def test_failed_validation_names_the_field_and_leaves_the_cluster_as_it_was(connector_name: str) -> None:
    """Nothing created: the connector's name stays unknown. (Other tests add and remove connectors
    of their own meanwhile, so the cluster's whole list is no reference.)"""
    bad_config = {**heartbeat_config(5), "emit.heartbeats.interval.seconds": "soon"}

    result = connector({"name": connector_name, "config": bad_config})

    assert result.get("failed") is True
    assert "emit.heartbeats.interval.seconds" in result["msg"]
    assert "emit.heartbeats.interval.seconds" in result["validation_errors"]
    assert rest_get(f"/connectors/{connector_name}")[0] == 404
    assert connector_name not in rest_get("/connectors")[1]


def test_cluster_info_reports_the_target_cluster(lab_brokers: tuple[str, str]) -> None:
    info = ansible_run.module(RUN_ON, "kafka_dr.mm2.connect_cluster_info", {"url": WORKER_URLS, **REST_ACCESS})

    assert info["kafka_cluster_id"] == "DstLabCluster00000000A"
    plugin_classes = {plugin["class"] for plugin in info["plugins"]}
    assert {HEARTBEAT_CLASS, "org.apache.kafka.connect.mirror.MirrorSourceConnector",
            "org.apache.kafka.connect.mirror.MirrorCheckpointConnector"} <= plugin_classes
