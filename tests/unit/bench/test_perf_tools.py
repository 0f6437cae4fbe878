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


def test_the_steady_state_summary_leaves_out_the_warm_up() -> None:
    output = PRODUCER_OUTPUT + ("50000 steady state records sent, 31000.5 records/sec (30.27 MB/sec), 400.00 ms avg "
                                "latency, 900.00 ms max latency, 380 ms 50th, 800 ms 95th, 880 ms 99th, 899 ms 99.9th.\n")
    steady = perf_tools.parse_producer_steady(output)
    assert steady is not None and steady.records == 50000 and steady.rate == Rate(31000.5, 30.27)
    # The whole run's summary is still the last plain one.
    assert perf_tools.parse_producer_summary(output).records == 100000
    assert perf_tools.parse_producer_steady(PRODUCER_OUTPUT) is None


def test_warm_up_records_go_on_the_producers_command_line() -> None:
    args = perf_tools.producer_args("t", 2000, 1024, "/c", "b:9094", warmup_records=1000)
    assert args[args.index("--num-records") + 1] == "2000" and args[args.index("--warmup-records") + 1] == "1000"
    assert "--warmup-records" not in perf_tools.producer_args("t", 2000, 1024, "/c", "b:9094")


def test_a_consumers_steady_rate_runs_from_half_its_records_to_its_last_line() -> None:
    output = ("time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, "
              "fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec\n"
              "2026-11-28 10:00:00:500, 0, 1.0, 1.0, 1000, 1000.0, 400, 100, 1.0, 1000.0\n"
              "2026-11-28 10:00:01:500, 0, 6.0, 5.0, 6000, 5000.0, 0, 1000, 5.0, 5000.0\n"
              "2026-11-28 10:00:03:500, 0, 16.0, 5.0, 16000, 5000.0, 0, 1000, 5.0, 5000.0\n")
    # Half of 16,000 is first passed at 10:00:03.5 (its last line): the line before is the start.
    assert perf_tools.parse_consumer_steady(output) == Rate(5000.0, 5.0)
    assert perf_tools.parse_consumer_steady(output.splitlines()[0]) is None
    args = perf_tools.consumer_args("t", 10, "/c", "b:9094", "g", detailed=True)
    assert args[args.index("--reporting-interval") + 1] == str(perf_tools.REPORTING_INTERVAL_MS)


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


def test_tools_run_with_c2_and_g1_not_kafka_runs_c1_only_flags() -> None:
    """kafka-run's default KAFKA_TOOL_OPTS (C1 alone, serial GC) is replaced as a whole."""
    command = perf_tools.tool_command("task-1-1", perf_tools.PRODUCER_PERFORMANCE, "--topic", "t")
    assert command[:4] == ["docker", "exec", "-e", f"KAFKA_TOOL_OPTS={perf_tools.PERF_JVM_OPTIONS}"]
    assert command[4:7] == ["task-1-1", perf_tools.lab.KAFKA_RUN, perf_tools.PRODUCER_PERFORMANCE]
    options = perf_tools.PERF_JVM_OPTIONS.split()
    assert "-XX:+UseG1GC" in options and "-XX:TieredStopAtLevel=4" in options
    assert "-XX:TieredStopAtLevel=1" not in options and "-XX:+UseSerialGC" not in options


def test_compression_is_replaced_and_the_rest_of_the_flows_settings_kept() -> None:
    props = perf_tools.with_compression(perf_tools.FLOW_PRODUCER_PROPS, "none")
    assert props == ("acks=all", "linger.ms=20", "batch.size=131072", "compression.type=none")
    assert perf_tools.with_compression(perf_tools.FLOW_PRODUCER_PROPS, "lz4") == perf_tools.FLOW_PRODUCER_PROPS


def test_a_group_consumer_waits_the_idle_timeout_it_is_given() -> None:
    args = perf_tools.consumer_args("t", 100, "/root/c.properties", "src-kafka-1:9094", "g", 10000)
    assert args[args.index("--timeout") + 1] == "10000"
    assert perf_tools.consumer_args("t", 100, "/c", "b", "g")[-1] == "60000"


TIMED_OUT_OUTPUT = """\
start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, \
fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
WARNING: Exiting before consuming the expected number of messages: timeout (10000 ms) exceeded. You can use \
the --timeout option to increase the timeout.
2026-11-24 12:14:41:090, 2026-11-24 12:14:55:590, 65.1042, 4.4900, 66667, 4597.7241, 500, 14000, 4.6503, \
4761.9286
"""


def test_a_consumer_that_ended_on_its_timeout_is_rated_without_the_idle_wait() -> None:
    rate = perf_tools.parse_consumer_summary(TIMED_OUT_OUTPUT, idle_timeout_ms=10000)
    # 14,000 ms of fetch time, of which the last 10,000 waited for records that never came.
    assert rate.records_per_s == pytest.approx(66667 / 4.0)
    assert rate.mib_per_s == pytest.approx(65.1042 / 4.0)
    # Without the idle timeout given, the tool's own fetch rate (the warning line is skipped).
    assert perf_tools.parse_consumer_summary(TIMED_OUT_OUTPUT) == Rate(4761.9286, 4.6503)


def test_a_consumer_that_read_nothing_before_its_timeout_has_a_zero_rate() -> None:
    output = TIMED_OUT_OUTPUT.replace("65.1042, 4.4900, 66667, 4597.7241, 500, 14000, 4.6503, 4761.9286",
                                      "0.0000, 0.0000, 0, 0.0000, 500, 9000, 0.0000, 0.0000")
    assert perf_tools.parse_consumer_summary(output, idle_timeout_ms=10000) == Rate(0.0, 0.0)
