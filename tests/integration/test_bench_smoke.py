"""`make bench` on the lab, tiny: a few thousand records of one size, the raw ceiling and the
defaults' drain only. It proves the benchmark runs and writes what docs/performance.md
describes; the figures of so small a run are not meaningful (tool start-up dominates)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.integration import lab


def test_bench_writes_positive_rates_and_ratios(lab_brokers: tuple[str, str], tmp_path: Path) -> None:
    heartbeats_before = heartbeat_counts()
    env = dict(os.environ, BENCH_RECORDS="3000", BENCH_SIZES="1024", BENCH_PARTS="raw,mm2", BENCH_OUT=str(tmp_path),
               PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-m", "bench"], cwd=lab.REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=480, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    results = json.loads((tmp_path / "bench.json").read_text())
    raw = results["raw"]["1024"]
    for figure in ("producer_target", "consumer_source", "ceiling"):
        assert raw[figure]["records_per_s"] > 0 and raw[figure]["mib_per_s"] > 0, figure
    # The lab's flow runs two source tasks over the benchmark's three partitions.
    assert raw["clients"] == 2 and [run["compression"] for run in raw["runs"]] == ["lz4", "none"]
    for run in raw["runs"]:
        assert len(run["producers_tools"]) == len(run["consumers"]) == 2
        assert run["producer_sum"]["records_per_s"] > 0 and run["consumer_sum"]["records_per_s"] > 0, run
    assert raw["ceiling"]["compression"] in ("lz4", "none")
    mm2 = results["mm2_defaults"]["1024"]
    assert mm2["records"] == 3000
    assert mm2["records_per_s"] > 0 and mm2["mib_per_s"] > 0
    assert mm2["ratio_to_ceiling"] > 0
    assert "mm2_to_ceiling" in results["goals"]
    assert (tmp_path / "bench.png").stat().st_size > 0
    assert "MM2, collection defaults" in done.stdout
    run_id = results["settings"]["run_id"]
    assert not [name for name in lab.connector_names() if name.startswith(f"bench-{run_id}-")]
    assert not [topic for topic in lab.topic_names(lab.SOURCE_BROKER) if topic.startswith(f"bench.{run_id}.")]
    # The drains copied no heartbeats into the lab's flow: its src.heartbeats grew only by what the
    # source's heartbeats topic grew (the drains' own copies went to bench.heartbeats, removed).
    source_growth, target_growth = (after - before for before, after in zip(heartbeats_before, heartbeat_counts()))
    # The slack: a task moved by a rebalance (other tests add connectors meanwhile) copies again
    # what it sent since its last offset flush (at most the flush interval's heartbeats), and the
    # copy may lag by a heartbeat or two at the first count.
    assert target_growth <= source_growth + 10, (source_growth, target_growth)
    assert "bench.heartbeats" not in lab.topic_names(lab.TARGET_BROKER)


def heartbeat_counts() -> tuple[int, int]:
    """Records in the source's heartbeats topic and in its copy on the target."""
    return (sum(lab.end_offsets(lab.SOURCE_BROKER, "heartbeats").values()),
            sum(lab.end_offsets(lab.TARGET_BROKER, "src.heartbeats").values()))
