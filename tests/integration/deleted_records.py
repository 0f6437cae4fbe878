"""Records deleted from the start of a partition (Kafka's DeleteRecords), as the readiness and the
continuous verification drills delete them on a lab broker."""

from __future__ import annotations

import json
import subprocess

from tests.integration import lab


def delete_before(host: str, topic: str, before: int, partition: int = 0) -> None:
    """Delete the records of topic-partition below offset `before` (its log start moves there)."""
    offsets = json.dumps({"version": 1, "partitions": [{"topic": topic, "partition": partition, "offset": before}]})
    path = f"/tmp/delete-records-{topic}-{partition}.json"
    # DeleteRecordsCommand reads its offsets from a file on the broker's host.
    subprocess.run(["docker", "exec", "-i", host, "sh", "-c", f"cat > {path}"], input=offsets, text=True,
                   check=True, capture_output=True)
    lab.kafka_run(host, "org.apache.kafka.tools.DeleteRecordsCommand", "--bootstrap-server", lab.bootstrap(host),
                  "--offset-json-file", path)
