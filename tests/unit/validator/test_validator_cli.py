"""The command line end to end, with in-memory clusters instead of Kafka."""

from __future__ import annotations

import hashlib
import json

import pytest

from validator_helpers import BASE_TS_MS, record
from mm2_validator.cli import (EXIT_FAIL, EXIT_PASS, EXIT_USAGE, build_parser, config_from_args,
                               default_shuffle_partitions, main)
from mm2_validator.kafka_io import KafkaAccessError
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_records import (
    Checkpoint,
    Heartbeat,
    OffsetSync,
    encode_checkpoint,
    encode_heartbeat,
    encode_offset_sync,
)
from validator_fakes import InMemoryCluster

SECRET = "s3cret-never-printed"


def orders(count=6, partitions=2):
    return [
        record(key=f"k{i % 3}".encode(), value=f"v{i}".encode(), ts_ms=BASE_TS_MS + i, partition=i % partitions)
        for i in range(count)
    ]


def internal(key_value, ts_type=0, ts_ms=BASE_TS_MS):
    key, value = key_value
    return record(key=key, value=value, ts_type=ts_type, ts_ms=ts_ms)


def clusters(spark, target_records=None, checkpoints=(), syncs=()):
    source_data = orders()
    source = InMemoryCluster("source", spark, {"orders": source_data, "__consumer_offsets": [record()]})
    source.add("mm2-offset-syncs.dst.internal", [internal(encode_offset_sync(s)) for s in syncs])
    target = InMemoryCluster(
        "target",
        spark,
        {"src.orders": list(source_data if target_records is None else target_records)},
        partitions={"src.orders": 2},
    )
    target.add("src.checkpoints.internal", [internal(encode_checkpoint(c)) for c in checkpoints])
    target.add(
        "src.heartbeats",
        [
            internal(encode_heartbeat(Heartbeat("src", "other", BASE_TS_MS + i)), ts_type=1, ts_ms=BASE_TS_MS + i + 20)
            for i in range(3)
        ],
    )
    return {"source": source, "target": target}


def run_cli(spark, by_name, tmp_path, *extra):
    properties = tmp_path / "target.properties"
    properties.write_text(
        "# client security\nsecurity.protocol=SASL_SSL\nsasl.mechanism : PLAIN\n"
        f'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n    username="u" password="{SECRET}";\n'
    )
    argv = [
        "--source-bootstrap",
        "source:9092",
        "--target-bootstrap",
        "target:9092",
        "--target-properties",
        str(properties),
        "--source-alias",
        "src",
        "--target-alias",
        "dst",
        "--catchup-timeout",
        "0",
        "--report-json",
        str(tmp_path / "report.json"),
        "--report-html",
        str(tmp_path / "report.html"),
        *extra,
    ]
    if "--topics-regex" not in extra and "--topics" not in extra:
        argv += ["--topics", "orders"]
    return main(argv, spark_factory=lambda *_: spark, cluster_factory=lambda _spark, access: by_name[access.name])


@pytest.mark.parametrize(
    ("extra", "expected_topic", "expected_bootstrap"),
    [
        ([], "mm2-offset-syncs.dst.internal", "src:9092"),
        (["--offset-syncs-bootstrap", "dst:9092"], "mm2-offset-syncs.src.internal", "dst:9092"),
        (["--offset-syncs-bootstrap", "dst:9092", "--offset-syncs-topic", "custom"], "custom", "dst:9092"),
    ],
    ids=["kept-on-source", "kept-on-target", "named-explicitly"],
)
def test_offset_syncs_topic_is_named_after_the_cluster_it_does_not_live_on(extra, expected_topic, expected_bootstrap):
    args = build_parser().parse_args(
        ["--source-alias", "src", "--target-alias", "dst", "--topics", "t",
         "--source-bootstrap", "src:9092", "--target-bootstrap", "dst:9092", *extra]
    )
    config = config_from_args(args)
    assert config.offset_syncs_topic == expected_topic
    assert config.offset_syncs_cluster.bootstrap == expected_bootstrap


def test_help_exits_zero(capsys):
    assert main(["--help"]) == EXIT_PASS
    assert "--source-bootstrap" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--source-alias", "a", "--target-alias", "b", "--topics", "t", "--topics-regex", "t.*"],
        ["--source-alias", "a", "--target-alias", "b", "--topics", "t", "--replication-policy", "rename"],
        [
            "--source-alias",
            "a",
            "--target-alias",
            "b",
            "--topics",
            "t",
            "--source-bootstrap",
            "x:1",
        ],  # no target bootstrap
        [
            "--source-alias",
            "a",
            "--target-alias",
            "b",
            "--topics",
            "t",
            "--source-bootstrap",
            "x:1",
            "--target-bootstrap",
            "y:1",
            "--source-properties",
            "/nonexistent/client.properties",
        ],
        [
            "--source-alias",
            "a",
            "--target-alias",
            "b",
            "--topics-regex",
            "(",
            "--source-bootstrap",
            "x:1",
            "--target-bootstrap",
            "y:1",
        ],
    ],
)
def test_usage_errors_exit_two(argv, capsys):
    assert main(argv) == EXIT_USAGE


def test_clean_run_passes_and_writes_reports_without_secrets(spark, tmp_path, capsys):
    checkpoints = [Checkpoint("billing", "src.orders", 0, 2, 2, "")]
    syncs = [OffsetSync("orders", 0, 1, 1)]
    code = run_cli(spark, clusters(spark, checkpoints=checkpoints, syncs=syncs), tmp_path, "--groups", "billing")
    out = capsys.readouterr()
    assert code == EXIT_PASS, out.out + out.err
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["schema_version"] == 1 and report["verdict"] == "PASS"
    for key in (
        "inputs",
        "topics",
        "checkpoints",
        "latency",
        "findings",
        "elapsed_s",
        "records_validated",
        "totals",
        "offset_syncs",
    ):
        assert key in report
    assert report["records_validated"] == 6
    assert report["topics"][0]["partitions"][0]["verified_by"] == "digest"
    assert report["checkpoints"]["partitions"][0]["safe"] is True
    assert report["offset_syncs"]["latest_checked"] == 1 and report["offset_syncs"]["mismatched"] == 0
    assert report["latency"]["p50_ms"] == 20.0
    assert "sasl.jaas.config" in report["inputs"]["target"]["property_keys"]
    html = (tmp_path / "report.html").read_text()
    assert "<svg" in html and "PASS" in html and "<script" not in html and "http" not in html.split("<svg")[0].lower()
    for text in ((tmp_path / "report.json").read_text(), html, out.out, out.err):
        assert SECRET not in text
    assert "verdict: PASS" in out.out


def test_data_problems_and_unsafe_checkpoint_fail(spark, tmp_path, capsys):
    source = orders()
    target = [r for i, r in enumerate(source) if i != 2] + [dict(source[4], value=b"tampered")]
    unsafe = Checkpoint("billing", "src.orders", 0, 1, 3, "")  # skips source offset 1 and 2
    code = run_cli(
        spark, clusters(spark, target_records=target, checkpoints=[unsafe]), tmp_path, "--catchup-timeout", "0"
    )
    assert code == EXIT_FAIL
    report = json.loads((tmp_path / "report.json").read_text())
    codes = {f["code"] for f in report["findings"]}
    assert {"missing", "checkpoint_unsafe"} <= codes
    assert report["verdict"] == "FAIL"
    assert "verdict: FAIL" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "shown"),
    [([], hashlib.sha256(b"k2").hexdigest()[:12]), (["--raw-key-preview"], b"k2".hex().upper())],
    ids=["hashed-by-default", "raw-when-asked"],
)
def test_report_examples_show_a_short_hash_of_the_key_unless_asked_for_its_bytes(spark, tmp_path, extra, shown):
    source = orders()
    target = [r for i, r in enumerate(source) if i != 2]  # source offset 1 of partition 0, key k2
    assert run_cli(spark, clusters(spark, target_records=target), tmp_path, *extra) == EXIT_FAIL
    report = json.loads((tmp_path / "report.json").read_text())
    examples = [e for t in report["topics"] for p in t["partitions"] for e in p.get("examples", [])]
    assert [e["key"] for e in examples if e["kind"] == "missing"] == [shown]
    assert report["inputs"]["key_preview"] == ("raw" if extra else "sha256")
    if not extra:
        assert b"k2".hex().upper() not in (tmp_path / "report.json").read_text() + (tmp_path / "report.html").read_text()


def test_target_that_never_catches_up_fails_with_target_behind(spark, tmp_path):
    code = run_cli(spark, clusters(spark, target_records=orders()[:3]), tmp_path)
    report = json.loads((tmp_path / "report.json").read_text())
    assert code == EXIT_FAIL and report["caught_up"] is False
    assert any(f["code"] == "target_behind" for f in report["findings"])


def test_topics_regex_skips_internal_topics(spark, tmp_path):
    code = run_cli(spark, clusters(spark), tmp_path, "--topics-regex", ".*")
    report = json.loads((tmp_path / "report.json").read_text())
    assert code == EXIT_PASS and [t["source_topic"] for t in report["topics"]] == ["orders"]


def test_unknown_topic_is_a_usage_error(spark, tmp_path):
    assert run_cli(spark, clusters(spark), tmp_path, "--topics", "nope") == EXIT_USAGE


class Unreachable(InMemoryCluster):
    def partitions(self, topic):
        raise KafkaAccessError("source cluster (source:9092): describing orders failed: TimeoutException")


def test_unreachable_cluster_exits_two(spark, tmp_path, capsys):
    by_name = clusters(spark)
    by_name["source"] = Unreachable("source", spark)
    assert run_cli(spark, by_name, tmp_path) == EXIT_USAGE
    assert "connection error" in capsys.readouterr().err


# -- delivery, duplicate budget and window options ----------------------------------------

BASE_ARGS = ["--source-alias", "src", "--target-alias", "dst", "--topics", "foo.orders",
             "--source-bootstrap", "src:9092", "--target-bootstrap", "dst:9092"]


def parsed_config(*extra):
    return config_from_args(build_parser().parse_args([*BASE_ARGS, *extra]))


def test_delivery_defaults_to_at_least_once_with_a_ratio_budget():
    config = parsed_config()
    policy = config.duplicate_policy
    assert (policy.delivery, policy.max_duplicates, policy.max_duplicate_ratio) == ("at-least-once", None, 0.1)
    assert not config.window.is_set
    assert "isolation.level" not in config.target.client_properties
    assert config.describe()["delivery"] == "at-least-once"


def test_key_previews_are_hashed_unless_the_raw_prefix_is_asked_for():
    assert parsed_config().raw_key_preview is False
    assert parsed_config().describe()["key_preview"] == "sha256"
    config = parsed_config("--raw-key-preview")
    assert config.raw_key_preview is True and config.describe()["key_preview"] == "raw"


def test_budget_options_parse_counts_fractions_and_unlimited():
    policy = parsed_config("--max-duplicates", "500", "--max-duplicate-ratio", "0.02").duplicate_policy
    assert (policy.max_duplicates, policy.max_duplicate_ratio) == (500, 0.02)
    policy = parsed_config("--max-duplicates", "unlimited", "--max-duplicate-ratio", "UNLIMITED").duplicate_policy
    assert (policy.max_duplicates, policy.max_duplicate_ratio) == (None, None)


def test_exactly_once_reads_committed_target_records_unless_the_file_says_otherwise(tmp_path):
    config = parsed_config("--delivery", "exactly-once")
    assert config.target.client_properties["isolation.level"] == "read_committed"
    assert "isolation.level" not in config.source.client_properties
    assert config.offset_syncs_cluster is config.source
    properties = tmp_path / "target.properties"
    properties.write_text("isolation.level=read_uncommitted\n")
    config = parsed_config("--delivery", "exactly-once", "--target-properties", str(properties))
    assert config.target.client_properties["isolation.level"] == "read_uncommitted"


def test_window_options_reach_the_config():
    config = parsed_config("--from-offsets", "foo.orders:0=1200,foo.orders:1=900")
    assert config.window.from_offsets == {"foo.orders": {0: 1200, 1: 900}}
    assert parsed_config("--from-timestamp", "2023-11-14T22:13:20Z").window.from_timestamp_ms == 1_700_000_000_000
    assert config.describe()["window"]["from_offsets"] == {"foo.orders": {"0": 1200, "1": 900}}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--delivery", "at-most-once"], "invalid choice"),
        (["--max-duplicates", "-1"], "must be zero or more"),
        (["--max-duplicates", "many"], "expected a whole number"),
        (["--max-duplicate-ratio", "-0.5"], "finite fraction"),
        (["--max-duplicate-ratio", "inf"], "finite fraction"),
        (["--max-duplicate-ratio", "ten percent"], "expected a fraction"),
        (["--from-offsets", "foo.orders:0"], "is not <topic>:<partition>=<offset>"),
        (["--from-offsets", "bar.orders:0=1"], "names topic bar.orders, which --topics foo.orders does not select"),
        (["--from-timestamp", "2024-05-01T10:00:00"], "add a UTC offset"),
        (["--from-timestamp", "1714557600"], "looks like seconds"),
        (["--from-offsets", "foo.orders:0=1", "--from-timestamp", "1714557600000"], "not both"),
    ],
)
def test_bad_verdict_and_window_options_are_usage_errors_before_spark(extra, message, capsys):
    def no_spark(*_):
        raise AssertionError("Spark must not start")

    assert main([*BASE_ARGS, *extra], spark_factory=no_spark) == EXIT_USAGE
    assert message in capsys.readouterr().err


class FakeSession:
    """What default_shuffle_partitions reads and sets of a SparkSession."""

    def __init__(self, cores, named):
        self.settings = dict(named)
        context_conf = type("Conf", (), {"contains": lambda _self, key: key in named})()
        self.sparkContext = type("Context", (), {"defaultParallelism": cores, "getConf": lambda _self: context_conf})()
        self.conf = type("RuntimeConf", (), {"set": lambda _self, key, value: self.settings.__setitem__(key, value)})()


@pytest.mark.parametrize("cores, expected", [(1, "2"), (2, "4"), (16, "32")])
def test_shuffle_partitions_follow_the_cores_the_job_has(cores, expected):
    session = FakeSession(cores, {})
    default_shuffle_partitions(session)
    assert session.settings == {"spark.sql.shuffle.partitions": expected}


def test_shuffle_partitions_the_settings_name_are_kept():
    session = FakeSession(16, {"spark.sql.shuffle.partitions": "400"})
    default_shuffle_partitions(session)
    assert session.settings == {"spark.sql.shuffle.partitions": "400"}
