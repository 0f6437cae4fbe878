"""Parsing the output of Kafka's perf tools, and the client settings the benchmark gives them."""

from __future__ import annotations

import pytest

from bench import perf_tools
from bench.perf_tools import Rate

PRODUCER_OUTPUT = """\
Option --producer-props has been deprecated and will be removed in a future version.
51234 records sent, 10246.8 records/sec (10.01 MB/sec), 812.3 ms avg latency, 1201.0 ms max latency.
100000 records sent, 22768.670310 records/sec (22.24 MB/sec), 909.64 ms avg latency, 1265.00 ms max latency, \
1060 ms 50th, 1211 ms 95th, 1245 ms 99th, 1263 ms 99.9th.
"""

CONSUMER_OUTPUT = """\
start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, \
fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
2026-11-24 12:14:41:090, 2026-11-24 12:14:45:081, 97.6563, 24.4691, 100000, 25056.3768, 507, 3484, 28.0299, \
28702.6406
"""


def test_producer_summary_is_the_final_line() -> None:
    summary = perf_tools.parse_producer_summary(PRODUCER_OUTPUT)
    assert summary.records == 100000
    assert summary.rate == Rate(22768.670310, 22.24)
    assert (summary.avg_latency_ms, summary.max_latency_ms) == (909.64, 1265.0)


def test_producer_output_without_summary_is_an_error() -> None:
    with pytest.raises(ValueError, match="no ProducerPerformance summary"):
        perf_tools.parse_producer_summary("org.apache.kafka.common.errors.TopicAuthorizationException\n")


def test_consumer_rate_leaves_out_the_group_join() -> None:
    assert perf_tools.parse_consumer_summary(CONSUMER_OUTPUT) == Rate(28702.6406, 28.0299)


def test_consumer_rate_falls_back_to_the_whole_run_without_fetch_time() -> None:
    output = CONSUMER_OUTPUT.replace("3484, 28.0299, \\\n28702.6406", "0, 0.0, 0.0").replace(
        "507, 3484, 28.0299, 28702.6406", "507, 0, 0.0, 0.0")
    assert perf_tools.parse_consumer_summary(output) == Rate(25056.3768, 24.4691)


def test_consumer_output_without_summary_is_an_error() -> None:
    with pytest.raises(ValueError, match="no ConsumerPerformance summary"):
        perf_tools.parse_consumer_summary("WARN nothing consumed\n")


def test_scram_account_properties_authenticate_like_mm2() -> None:
    properties = perf_tools.MM2_ACCOUNT.properties("s3cret")
    assert "security.protocol=SASL_SSL\n" in properties
    assert "sasl.mechanism=SCRAM-SHA-512\n" in properties
    assert 'ScramLoginModule required username="mm2" password="s3cret";' in properties
    assert "ssl.truststore.location=/etc/kafka/tls/ca.pem\n" in properties


def test_the_scram_account_follows_the_labs_current_mechanism(monkeypatch: pytest.MonkeyPatch) -> None:
    """After a rotation drill moved the lab's clients to SCRAM-SHA-256 (the SHA-512 credentials
    retired), a SHA-512 login would hang the perf tools until their timeout."""
    monkeypatch.setattr(perf_tools.lab, "scram_mechanism", lambda: "SCRAM-SHA-256")
    assert "sasl.mechanism=SCRAM-SHA-256\n" in perf_tools.MM2_ACCOUNT.properties("s3cret")


def test_plain_account_uses_the_plain_login_module() -> None:
    assert "PlainLoginModule required username=\"validator\"" in perf_tools.READER_ACCOUNT.properties("x")


def test_producer_runs_with_the_flows_producer_settings_on_the_client_listener() -> None:
    args = perf_tools.producer_args("src.t", 10, 1024, "/root/c.properties", "dst-kafka-1:9094")
    assert args[args.index("--bootstrap-server") + 1] == "dst-kafka-1:9094"
    assert args[args.index("--command-property") + 1:] == list(perf_tools.FLOW_PRODUCER_PROPS)
    assert args[args.index("--record-size") + 1] == "1024"
