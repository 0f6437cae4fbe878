"""Which parts a run measures, its settings, and the connector configs it compares."""

from __future__ import annotations

import importlib

import pytest

from bench import flows
from tests.integration import lab

bench_main = importlib.import_module("bench.__main__")


def test_default_parts_leave_out_the_deployment() -> None:
    assert bench_main.selected_parts({}) == ("raw", "mm2", "stock", "latency", "scaling", "validator", "verification", "replays")


def test_parts_are_chosen_by_name_in_a_fixed_order_and_bench_deploy_adds_one() -> None:
    assert bench_main.selected_parts({"BENCH_PARTS": "mm2, raw"}) == ("raw", "mm2")
    assert bench_main.selected_parts({"BENCH_PARTS": "mm2", "BENCH_DEPLOY": "1"}) == ("mm2", "deploy")


def test_unknown_parts_are_refused() -> None:
    with pytest.raises(SystemExit, match="unknown BENCH_PARTS nope"):
        bench_main.selected_parts({"BENCH_PARTS": "raw,nope"})


def test_settings_from_the_environment() -> None:
    settings = bench_main.settings_from({"BENCH_RECORDS": "3000", "BENCH_SIZES": "100", "BENCH_LATENCY_SECONDS": "5",
                                         "BENCH_LATENCY_PERCENTS": "50, 10"})
    assert (settings.records, settings.record_sizes, settings.latency_seconds) == (3000, (100,), 5)
    assert settings.latency_fractions == (0.1, 0.5)
    defaults = bench_main.settings_from({})
    assert defaults.record_sizes == (1024, 100)
    assert (defaults.latency_seconds, defaults.latency_fractions) == (30, (0.1, 0.25, 0.5, 0.75, 0.9))


def test_the_latency_curve_is_offered_as_fractions_of_the_measured_drain_rate() -> None:
    measured = {"settings": {"record_sizes": [1024]}, "mm2_defaults": {"1024": {"records_per_s": 9000.0}}}
    assert bench_main.drain_rate(measured) == 9000.0
    assert bench_main.drain_rate({"settings": {"record_sizes": [1024]}}) == bench_main.FALLBACK_DRAIN_RATE
    # Without a drain the 50 % point sends what the single point sent before: 2,000 records/s.
    assert bench_main.FALLBACK_DRAIN_RATE * 0.5 == 2000.0


def test_a_config_for_one_topic_keeps_everything_else() -> None:
    base = {"name": "mm2-src-dst-source", "topics": "foo\\..*", "tasks.max": "2", "linger": "20"}
    config = flows.connector_config(base, "bench-1-x", "bench.1.size1024", tasks_max=4)
    assert config == {"name": "bench-1-x", "topics": "^bench\\.1\\.size1024$", "tasks.max": "4", "linger": "20"}
    assert flows.connector_config(base, "n", "t")["tasks.max"] == "2"


def test_stock_config_is_the_guide_with_the_labs_client_settings() -> None:
    seed = {"source.cluster.alias": "emrsource", "target.cluster.alias": "emrdest", "tasks.max": "4",
            "source.cluster.bootstrap.servers": "seed-src-kafka-1:9092",
            "source.cluster.security.protocol": "PLAINTEXT", "target.cluster.security.protocol": "PLAINTEXT"}
    config = flows.stock_config(seed)
    assert config["tasks.max"] == "4"
    assert config["source.cluster.bootstrap.servers"] == f"{lab.SOURCE_BROKER}:9094"
    assert config["target.cluster.bootstrap.servers"] == f"{lab.TARGET_BROKER}:9094"
    assert config["source.cluster.security.protocol"] == config["target.cluster.security.protocol"] == "SASL_SSL"
    # Only the buffer: the workers' own producer (its account, batching and compression) writes.
    assert {key: value for key, value in config.items() if key.startswith("producer.override.")} == {
        "producer.override.buffer.memory": "4194304"}


def test_stock_flow_grants_the_workers_producer_and_the_offset_syncs_on_the_source() -> None:
    flow = flows.Flow("stock", {"source.cluster.alias": "emrsource"},
                      flows.stock_grants("emrsource", "emrdest"))
    assert flow.remote_topic("bench.1.size100") == "emrsource.bench.1.size100"
    by_principal = {(grant.host, grant.principal, grant.resource[-1]) for grant in flow.grants
                    if grant.resource[0] == "--topic" and len(grant.resource) == 2}
    by_principal |= {(grant.host, grant.principal, grant.resource[1]) for grant in flow.grants
                     if grant.resource[-1] == "prefixed"}
    assert (lab.TARGET_BROKER, "User:connect", "emrsource.") in by_principal
    assert (lab.SOURCE_BROKER, "User:mm2", "mm2-offset-syncs.emrdest.internal") in by_principal


def test_python_m_bench_imports_the_collection_without_pytest_paths() -> None:
    """`make bench` runs `python -m bench` outside pytest: the package itself puts .collections on
    the import path, so its modules import the collection's module_utils."""
    import subprocess  # pylint: disable=import-outside-toplevel
    import sys  # pylint: disable=import-outside-toplevel
    from pathlib import Path  # pylint: disable=import-outside-toplevel

    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", "import bench.flows"], cwd=root, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home())}, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
