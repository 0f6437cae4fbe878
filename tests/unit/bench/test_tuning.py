"""The tuning part's drain order, its ratios to the defaults and the variant flows, without a lab."""

from __future__ import annotations

from typing import Any

from bench import flows, tuning


def figure(records_per_s: float) -> dict[str, Any]:
    return {"records_per_s": records_per_s, "mib_per_s": records_per_s / 1024}


def test_the_defaults_drain_first_and_last_around_every_variant() -> None:
    order = tuning.run_order()
    assert order[0] == (tuning.DEFAULTS_FIRST, {}) and order[-1] == (tuning.DEFAULTS_LAST, {})
    assert order[1:-1] == list(tuning.VARIANTS)
    assert len({entry[0] for entry in order}) == len(order)


def test_each_variant_changes_only_connector_client_settings() -> None:
    for _label, overrides in tuning.VARIANTS:
        assert overrides
        assert all(key.startswith(("producer.override.", "consumer.")) for key in overrides)
        assert not any(key.startswith("consumer.override.") for key in overrides)
    in_flight = dict(tuning.VARIANTS)["max.in.flight.requests.per.connection 5"]
    assert "producer.override.enable.idempotence" not in in_flight


def test_ratios_are_to_the_mean_of_both_defaults_drains() -> None:
    figures = tuning.with_ratios({tuning.DEFAULTS_FIRST: figure(9000), "zstd": figure(12000),
                                  tuning.DEFAULTS_LAST: figure(11000)})
    assert tuning.baseline(figures) == 10000
    assert figures["zstd"]["ratio_to_defaults"] == 1.2
    assert figures[tuning.DEFAULTS_FIRST]["ratio_to_defaults"] == 0.9


def test_one_defaults_drain_is_baseline_enough_and_none_gives_no_ratio() -> None:
    assert tuning.with_ratios({tuning.DEFAULTS_FIRST: figure(8000), "x": figure(4000)})["x"]["ratio_to_defaults"] == 0.5
    assert tuning.with_ratios({"x": figure(4000)})["x"]["ratio_to_defaults"] is None


def test_a_variant_flow_keeps_the_defaults_config_but_the_overridden_keys() -> None:
    defaults = flows.Flow("defaults", {"source.cluster.alias": "src", "producer.override.linger.ms": "20", "tasks.max": "2"})
    variant = flows.with_overrides(defaults, "linger", {"producer.override.linger.ms": "50"})
    assert variant.label == "linger"
    assert variant.base_config == {"source.cluster.alias": "src", "producer.override.linger.ms": "50", "tasks.max": "2"}
    assert defaults.base_config["producer.override.linger.ms"] == "20"
    assert variant.config_for("bench-1-tuning1", "t")["topics"] == "^t$"


def test_the_failed_task_trace_is_its_last_cause() -> None:
    status = {"tasks": [{"id": 0, "state": "RUNNING"},
                        {"id": 1, "state": "FAILED", "trace": "ConnectException: send\nCaused by: A\n\tat x\nCaused by: B: no zstd"}]}
    assert flows.failed_task_trace(status) == "Caused by: B: no zstd"
    assert flows.failed_task_trace({"tasks": [{"state": "FAILED", "trace": "Boom\n\tat y"}]}) == "Boom"
    assert flows.failed_task_trace({"tasks": [{"state": "RUNNING"}]}) is None
    assert flows.failed_task_trace({}) is None


def test_each_variant_is_loaded_at_the_same_rate_for_its_latency(monkeypatch: Any) -> None:
    drains = iter([figure(2000.0)] * len(tuning.run_order()))
    loads: list[tuple[str, str, float, int]] = []

    def latency_point(flow: flows.Flow, name: str, topic: str, _size: int, rate: float, seconds: int) -> dict[str, Any]:
        loads.append((flow.label, topic, rate, seconds))
        if flow.label == "linger.ms 0":
            raise RuntimeError("a task failed")
        return {"end_to_end": {"p99_ms": 100.0}}

    monkeypatch.setattr(tuning, "drain_variant", lambda *_args: next(drains))
    monkeypatch.setattr(tuning, "latency_point", latency_point)
    monkeypatch.setattr(tuning, "retry", lambda action, _what: action())
    monkeypatch.setattr(tuning.perf_tools, "fill_topic", lambda *_args: None)
    monkeypatch.setattr(tuning.lab, "create_topic", lambda *_args: None)
    monkeypatch.setattr(tuning.Cleanup, "run", lambda _self: None)
    monkeypatch.setattr(flows, "defaults_flow", lambda: flows.Flow("defaults", {"source.cluster.alias": "bench"}))
    measured = tuning.measure(tuning.Settings("7", 1000, (1024,), 20), 1000.0)
    assert [load[0] for load in loads] == [label for label, _overrides in tuning.run_order()]
    assert {load[2] for load in loads} == {1000.0} and {load[3] for load in loads} == {20}
    assert len({load[1] for load in loads}) == len(loads)  # a topic pair of its own each
    assert measured["latency_load_records_per_s"] == 1000.0
    assert measured["figures"]["linger.ms 5"]["latency"] == {"end_to_end": {"p99_ms": 100.0}}
    assert "latency" not in measured["figures"]["linger.ms 0"]
    assert measured["failures"] == {"linger.ms 0": "RuntimeError: a task failed"}
