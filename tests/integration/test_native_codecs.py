"""Native codecs on hosts that mount /tmp noexec (the lab's containers do, as hardened hosts do):
zstd-jni unpacks its library into java.io.tmpdir and loads it from there. A source topic that
stores zstd makes the source broker compress, MM2's consumer in the worker decompress, and the
synced topic config makes the target broker compress again: every record must still arrive."""

from __future__ import annotations

import time

from tests.integration import lab

RECORDS = 2000


def test_a_zstd_topic_is_replicated_whole_with_tasks_running(lab_brokers: tuple[str, str]) -> None:
    topic = f"foo.zstd.{int(time.time())}"
    remote = f"src.{topic}"
    lab.create_topic(lab.SOURCE_BROKER, topic, 3, "compression.type=zstd")
    try:
        lab.produce(lab.SOURCE_BROKER, topic, [
            lab.Record(partition=-1, key=f"k{index}", value=f"value-{index}-" + "x" * 200, headers=(("n", str(index)),))
            for index in range(RECORDS)
        ])
        # End offsets only: no client of the test decompresses (the tools' JVMs keep /tmp).
        lab.wait_until(lambda: sum(lab.end_offsets(lab.TARGET_BROKER, remote).values()) == RECORDS or None,
                       180, f"{RECORDS} records on {remote}")
        assert lab.topic_config(lab.TARGET_BROKER, remote).get("compression.type") == "zstd"
        # Other tests add and remove connectors meanwhile: a rebalance may leave a task unassigned
        # for a moment, while a task that failed on the codec stays FAILED.
        status = lab.wait_until(every_task_running, 60, "every task of mm2-src-dst-source running", interval=3)
        assert status["connector"]["state"] == "RUNNING", status
    finally:
        lab.delete_mirrored_topics(lab.SOURCE_BROKER, [topic], lab.TARGET_BROKER, [remote], "mm2-src-dst-source")


def every_task_running() -> dict | None:
    status = lab.connector_status("mm2-src-dst-source") or {}
    states = [task["state"] for task in status.get("tasks", [])]
    return status if states and set(states) == {"RUNNING"} else None
