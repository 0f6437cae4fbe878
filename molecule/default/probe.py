"""Samples GET / of every worker until a stop file appears (bounded to 10 minutes).

Writes one JSON line per round: {"t": seconds, "<worker>": true|false, ...}.
"""

import json
import os
import sys
import time
import urllib.request

STOP_FILE = "/tmp/probe.stop"
MAX_SECONDS = 600


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200 and b"kafka_cluster_id" in response.read()
    except OSError:
        return False


def main(output_path: str, workers: list) -> None:
    started = time.monotonic()
    with open(output_path, "w", encoding="utf-8") as output:
        while not os.path.exists(STOP_FILE) and time.monotonic() - started < MAX_SECONDS:
            sample = {"t": round(time.monotonic() - started, 2)}
            for worker in workers:
                sample[worker] = answers("http://%s:8083/" % worker)
            output.write(json.dumps(sample) + "\n")
            output.flush()
            time.sleep(0.25)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
