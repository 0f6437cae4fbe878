"""Command line: parse flags, start Spark, run the validation, write the reports.

Exit codes: 0 PASS, 1 FAIL (a data or translation problem, including a target that
did not catch up in time), 2 usage or connection error, 3 internal error.
"""

from __future__ import annotations

import argparse
import glob
import logging
import os
import sys
import time
from pathlib import Path
from typing import Callable, Optional, Sequence

from mm2_validator import __version__
from mm2_validator.config import ClusterAccess, ConfigError, ValidatorConfig, cluster_access, target_access_for
from mm2_validator.delivery import (
    AT_LEAST_ONCE,
    DEFAULT_MAX_DUPLICATE_RATIO,
    DELIVERY_GUARANTEES,
    DeliveryError,
    DuplicatePolicy,
)
from mm2_validator.incremental import StateError
from mm2_validator.shared import mm2_naming
from mm2_validator.window import (
    ReplicationWindow,
    WindowError,
    check_window_topics,
    parse_from_offsets,
    parse_from_timestamp,
)

EXIT_PASS = 0
EXIT_FAIL = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3

# Kafka client failures that mean "cannot reach or may not use this cluster".
_KAFKA_ACCESS_ERRORS = (
    "org.apache.kafka.common.errors.TimeoutException",
    "org.apache.kafka.common.errors.AuthenticationException",
    "org.apache.kafka.common.errors.SaslAuthenticationException",
    "org.apache.kafka.common.errors.SslAuthenticationException",
    "org.apache.kafka.common.errors.TopicAuthorizationException",
    "org.apache.kafka.common.errors.GroupAuthorizationException",
    "org.apache.kafka.common.errors.ClusterAuthorizationException",
    "org.apache.kafka.common.config.ConfigException",
    "org.apache.kafka.common.KafkaException: Failed to construct kafka consumer",
)

# Bad input found before or while planning the run: usage errors (exit code 2).
USAGE_ERRORS = (ConfigError, WindowError, DeliveryError, StateError)
UNLIMITED = "unlimited"

log = logging.getLogger("mm2_validator")

ClusterFactory = Callable[[object, ClusterAccess], object]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mm2_validator",
        description="Prove that MirrorMaker 2 replicated every source record to the target, "
        "in order and unchanged, and that consumer-group checkpoints are safe to fail over to.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    clusters = parser.add_argument_group(
        "clusters (client security settings go in the properties files, never on the command line)"
    )
    clusters.add_argument(
        "--source-bootstrap", help="source bootstrap servers (or bootstrap.servers in --source-properties)"
    )
    clusters.add_argument(
        "--target-bootstrap", help="target bootstrap servers (or bootstrap.servers in --target-properties)"
    )
    clusters.add_argument("--source-properties", metavar="FILE", help="Java-properties file of source client settings")
    clusters.add_argument("--target-properties", metavar="FILE", help="Java-properties file of target client settings")
    clusters.add_argument("--source-alias", required=True, help="MM2 alias of the source cluster")
    clusters.add_argument("--target-alias", required=True, help="MM2 alias of the target cluster")

    naming = parser.add_argument_group("replication")
    naming.add_argument(
        "--replication-policy",
        choices=("default", "identity"),
        default="default",
        help="default: remote topic is <alias><separator><topic>; identity: same name",
    )
    naming.add_argument("--separator", default=".", help="replication.policy.separator (default: .)")
    selection = naming.add_mutually_exclusive_group(required=True)
    selection.add_argument("--topics", help="comma-separated source topics")
    selection.add_argument("--topics-regex", help="regular expression matched against whole source topic names")
    naming.add_argument(
        "--groups", default="", help="comma-separated consumer groups whose checkpoints to check (default: all)"
    )
    naming.add_argument(
        "--checkpoints-topic", help="default: <source-alias><sep>checkpoints<sep>internal (on the target)"
    )
    naming.add_argument(
        "--offset-syncs-topic",
        help="default: mm2-offset-syncs<sep><target-alias><sep>internal on the source,"
        " mm2-offset-syncs<sep><source-alias><sep>internal when --offset-syncs-bootstrap is the target"
        " (offset-syncs.topic.location=target); <sep> is --separator",
    )
    naming.add_argument("--offset-syncs-bootstrap", help="cluster holding the offset-syncs topic (default: the source)")
    naming.add_argument(
        "--offset-syncs-properties",
        metavar="FILE",
        help="client settings for --offset-syncs-bootstrap (default: those of the matching cluster)",
    )
    naming.add_argument("--heartbeats-topic", default="heartbeats", help="heartbeats topic name (default: heartbeats)")

    verdict = parser.add_argument_group("verdict")
    verdict.add_argument(
        "--delivery",
        choices=DELIVERY_GUARANTEES,
        default=AT_LEAST_ONCE,
        help="the flow's delivery guarantee: at-least-once (MM2's default) judges duplicates against the budget "
        "below; exactly-once fails on any duplicate and reads the target's committed records only",
    )
    verdict.add_argument(
        "--max-duplicates",
        type=_budget_count,
        default=None,
        metavar="N|unlimited",
        help="at-least-once: at most N duplicates per replay (a run of duplicated records, one per crash) pass, "
        "with a warning (default: unlimited)",
    )
    verdict.add_argument(
        "--max-duplicate-ratio",
        type=_budget_ratio,
        default=DEFAULT_MAX_DUPLICATE_RATIO,
        metavar="FRACTION|unlimited",
        help="at-least-once: at most floor(FRACTION x records validated) duplicates per replay pass, with a warning; "
        f"with --max-duplicates the smaller limit applies (default: {DEFAULT_MAX_DUPLICATE_RATIO:g})",
    )
    window = parser.add_argument_group("window (judge only the records after a point, e.g. an incident)")
    window.add_argument(
        "--from-offsets",
        metavar="TOPIC:PARTITION=OFFSET,...",
        help="first source offset judged per topic-partition; partitions not named are judged whole",
    )
    window.add_argument(
        "--from-timestamp",
        metavar="ISO-8601|EPOCH-MS",
        help="judge source records with a timestamp at or after this moment, and their replicas",
    )

    incremental = parser.add_argument_group(
        "incremental mode (judge only what arrived since the last proven position; see docs/validator.md)"
    )
    incremental.add_argument(
        "--incremental",
        action="store_true",
        help="judge the records since the positions in --state, carry records still in flight, then advance the state",
    )
    incremental.add_argument("--state", type=Path, metavar="PATH", help="the incremental state file (JSON, on this node)")
    incremental.add_argument(
        "--reset-state",
        action="store_true",
        help="start the state over when it belongs to another flow or a re-created topic (refused otherwise)",
    )
    incremental.add_argument(
        "--state-memory",
        type=int,
        default=None,
        metavar="N",
        help="judged records remembered per partition to find duplicates and late copies in later runs (default: 5000)",
    )
    incremental.add_argument(
        "--metrics-file",
        type=Path,
        metavar="PATH",
        help="after the state, write the flow's verification metrics there (Prometheus text, replaced atomically)",
    )
    incremental.add_argument(
        "--metrics-flow",
        metavar="NAME",
        help="label flow of those metrics (default: <source alias>-<target alias>)",
    )

    run = parser.add_argument_group("run")
    run.add_argument(
        "--catchup-timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long to wait for the target to reach the source snapshot (default: 300)",
    )
    run.add_argument(
        "--poll-interval", type=float, default=5.0, metavar="SECONDS", help="catch-up polling interval (default: 5)"
    )
    run.add_argument(
        "--request-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="Kafka metadata request timeout; an unreachable cluster fails after it (default: 30)",
    )
    run.add_argument(
        "--allow-timestamp-type-change",
        action="store_true",
        help="report CreateTime/LogAppendTime changes as warnings instead of failures",
    )
    run.add_argument("--max-examples", type=int, default=5, help="examples per problem kind and partition (default: 5)")
    run.add_argument(
        "--raw-key-preview",
        action="store_true",
        help="show the hex of the first 16 bytes of each example's key; by default an example shows the first 12 hex "
        "digits of the key's SHA-256 (keys may hold personal or secret data)",
    )
    run.add_argument("--master", help="Spark master (default: local[*]; under spark-submit: its --master)")
    run.add_argument("--jars", help="comma-separated Spark Kafka jars (default: all jars of the local cache)")
    run.add_argument(
        "--spark-conf", action="append", default=[], metavar="KEY=VALUE", help="extra Spark setting (repeatable)"
    )
    run.add_argument("--report-json", type=Path, metavar="PATH", help="write the JSON report here")
    run.add_argument("--report-html", type=Path, metavar="PATH", help="write the HTML report here")
    run.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    return parser


def _budget_count(text: str) -> Optional[int]:
    if text.strip().lower() == UNLIMITED:
        return None
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number or {UNLIMITED}, got {text!r}") from None
    if count < 0:
        raise argparse.ArgumentTypeError(f"must be zero or more, got {count}")
    return count


def _budget_ratio(text: str) -> Optional[float]:
    if text.strip().lower() == UNLIMITED:
        return None
    try:
        ratio = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction such as 0.1 or {UNLIMITED}, got {text!r}") from None
    if not 0 <= ratio < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite fraction >= 0, got {text}")
    return ratio


def window_from_args(args: argparse.Namespace) -> ReplicationWindow:
    window = ReplicationWindow(parse_from_offsets(args.from_offsets), parse_from_timestamp(args.from_timestamp))
    check_window_topics(window, _split_list(args.topics), args.topics_regex)
    return window


def check_incremental_args(args: argparse.Namespace) -> None:
    """Incremental options make sense together and without a window."""
    if not args.incremental:
        if args.state or args.reset_state or args.state_memory is not None or args.metrics_file or args.metrics_flow:
            raise ConfigError("--state, --reset-state, --state-memory and --metrics-file/--metrics-flow need --incremental")
        return
    if not args.state:
        raise ConfigError("--incremental needs --state PATH")
    if args.from_offsets or args.from_timestamp:
        raise ConfigError("--incremental starts from the state's positions: --from-offsets and --from-timestamp do not apply")
    if args.state_memory is not None and args.state_memory < 0:
        raise ConfigError(f"--state-memory must be zero or more, got {args.state_memory}")


def _split_list(text: Optional[str]) -> tuple[str, ...]:
    return tuple(item.strip() for item in (text or "").split(",") if item.strip())


def _offset_syncs_access(args: argparse.Namespace, source: ClusterAccess, target: ClusterAccess) -> ClusterAccess:
    bootstrap = args.offset_syncs_bootstrap
    if args.offset_syncs_properties:
        return cluster_access("offset-syncs", bootstrap or source.bootstrap, args.offset_syncs_properties)
    if not bootstrap or bootstrap == source.bootstrap:
        return source
    if bootstrap == target.bootstrap:
        return target
    return ClusterAccess("offset-syncs", bootstrap, source.client_properties, source.properties_file)


# The mirrormaker and replication_check roles compute the internal topic names with the
# collection's naming rules and pass them; these defaults, for runs by hand, use the same rules.
def _default_naming(args: argparse.Namespace) -> mm2_naming.ReplicationNaming:
    # An empty separator is reported by ValidatorConfig; the identity policy inherits these names.
    return mm2_naming.ReplicationNaming(separator=args.separator or mm2_naming.DEFAULT_SEPARATOR)


def _default_checkpoints_topic(args: argparse.Namespace) -> str:
    return _default_naming(args).checkpoints_topic(args.source_alias)


def _default_offset_syncs_topic(args: argparse.Namespace, target: ClusterAccess) -> str:
    location = "target" if args.offset_syncs_bootstrap == target.bootstrap else "source"
    return _default_naming(args).offset_syncs_placement(args.source_alias, args.target_alias, location)[1]


def config_from_args(args: argparse.Namespace) -> ValidatorConfig:
    source = cluster_access("source", args.source_bootstrap, args.source_properties)
    target = target_access_for(args.delivery, cluster_access("target", args.target_bootstrap, args.target_properties))
    return ValidatorConfig(
        source=source,
        target=target,
        offset_syncs_cluster=_offset_syncs_access(args, source, target),
        source_alias=args.source_alias,
        target_alias=args.target_alias,
        replication_policy=args.replication_policy,
        separator=args.separator,
        topics=_split_list(args.topics),
        topics_regex=args.topics_regex,
        groups=_split_list(args.groups),
        checkpoints_topic=args.checkpoints_topic or _default_checkpoints_topic(args),
        offset_syncs_topic=args.offset_syncs_topic or _default_offset_syncs_topic(args, target),
        heartbeats_topic=args.heartbeats_topic,
        catchup_timeout_s=args.catchup_timeout,
        poll_interval_s=max(args.poll_interval, 0.1),
        allow_timestamp_type_change=args.allow_timestamp_type_change,
        max_examples=max(args.max_examples, 0),
        raw_key_preview=args.raw_key_preview,
        duplicate_policy=DuplicatePolicy(args.delivery, args.max_duplicates, args.max_duplicate_ratio),
        window=window_from_args(args),
    )


def default_jar_dir() -> Path:
    """Where scripts/fetch_spark_jars.sh puts the jars for the installed pyspark."""
    import pyspark

    cache = Path(os.environ.get("KAFKA_DR_CACHE") or Path.home() / ".cache" / "kafka-dr")
    return cache / "spark-jars" / pyspark.__version__


def _under_spark_submit() -> bool:
    # spark-submit starts the JVM first and hands its gateway port to Python.
    return "PYSPARK_GATEWAY_PORT" in os.environ


def spark_jars(args: argparse.Namespace) -> list[str]:
    if args.jars:
        jars = list(_split_list(args.jars))
        absent = [j for j in jars if not Path(j).is_file()]
        if absent:
            raise ConfigError(f"--jars: no such file: {', '.join(absent)}")
        return jars
    if _under_spark_submit():
        return []  # spark-submit --jars provides them
    jars = sorted(glob.glob(str(default_jar_dir() / "*.jar")))
    if not jars:
        raise ConfigError(f"no Spark Kafka jars in {default_jar_dir()}: run scripts/fetch_spark_jars.sh or pass --jars")
    return jars


def spark_settings(args: argparse.Namespace) -> dict[str, str]:
    settings: dict[str, str] = {}
    for item in args.spark_conf:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--spark-conf expects KEY=VALUE, got {item!r}")
        settings[key.strip()] = value
    return settings


SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions"


def shuffle_partitions(cores: int) -> int:
    """Two shuffle partitions per core: every core stays busy. Spark's default (200) suits one
    big query; a validation runs a dozen shuffles per topic (windows, joins, aggregations), and
    each shuffle partition is a task to launch, so on small topics the tasks cost far more than
    the comparison."""
    return max(2, 2 * cores)


def default_shuffle_partitions(spark) -> None:  # spark: SparkSession
    """Shuffle partitions from the cores the job has, unless the job's settings (--spark-conf,
    spark-defaults.conf, spark-submit --conf) name them."""
    context = spark.sparkContext
    if not context.getConf().contains(SHUFFLE_PARTITIONS):
        spark.conf.set(SHUFFLE_PARTITIONS, str(shuffle_partitions(context.defaultParallelism)))


def build_spark(master: Optional[str], jars: Sequence[str], settings: dict[str, str]):  # -> SparkSession
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("mm2-validator")
    if master:
        builder = builder.master(master)
    if jars:
        builder = builder.config("spark.jars", ",".join(jars))
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    default_shuffle_partitions(spark)
    return spark


def kafka_access_failure(error: BaseException) -> Optional[str]:
    """The Kafka client's own message line when `error` (often a Spark/py4j error
    wrapping a Java stack trace) is a connection or authorisation failure."""
    for line in str(error).splitlines():
        if any(marker in line for marker in _KAFKA_ACCESS_ERRORS):
            return line.strip()
    return None


def failure_exit_code(error: BaseException) -> int:
    """Explain a failed run on stderr and choose its exit code."""
    from mm2_validator.kafka_io import KafkaAccessError

    if isinstance(error, USAGE_ERRORS):
        print(f"mm2_validator: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    if isinstance(error, KafkaAccessError):
        print(f"mm2_validator: connection error: {error}", file=sys.stderr)
        return EXIT_USAGE
    text = str(error)
    if "Failed to find data source: kafka" in text or "DATA_SOURCE_NOT_FOUND" in text:
        print(
            "mm2_validator: error: the Spark Kafka source is not on the classpath; pass its jars (--jars)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    access_failure = kafka_access_failure(error)
    if access_failure:
        print(f"mm2_validator: connection error: {access_failure}", file=sys.stderr)
        return EXIT_USAGE
    log.exception("validation failed with an internal error", exc_info=error)
    return EXIT_INTERNAL


def main(
    argv: Optional[Sequence[str]] = None,
    *,
    spark_factory: Optional[Callable[..., object]] = None,
    cluster_factory: Optional[ClusterFactory] = None,
) -> int:
    """Run the validator; returns the process exit code.

    `spark_factory(master, jars, settings)` and `cluster_factory(spark, access)`
    replace Spark start-up and Kafka access (tests use in-memory data)."""
    started = time.time()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_request:  # --help, --version, or a usage error
        return int(exit_request.code or 0) if exit_request.code in (0, None) else EXIT_USAGE
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    logging.getLogger("py4j").setLevel(logging.WARNING)

    try:
        check_incremental_args(args)
        config = config_from_args(args)
        jars = [] if spark_factory else spark_jars(args)
        settings = spark_settings(args)
    except USAGE_ERRORS as error:
        print(f"mm2_validator: error: {error}", file=sys.stderr)
        return EXIT_USAGE

    from mm2_validator.job import Validation
    from mm2_validator.kafka_io import SparkKafkaCluster
    from mm2_validator.report import text_summary, write_reports

    master = args.master or (None if _under_spark_submit() else "local[*]")
    make_cluster = cluster_factory or (lambda s, access: SparkKafkaCluster(s, access, args.request_timeout))
    opened: dict[int, object] = {}  # ClusterAccess id -> cluster, so each is opened once
    try:
        spark = (spark_factory or build_spark)(master, jars, settings)
        clusters = []
        for access in (config.source, config.target, config.offset_syncs_cluster):
            if id(access) not in opened:
                opened[id(access)] = make_cluster(spark, access)
            clusters.append(opened[id(access)])
        if args.incremental:
            result = _run_increment(spark, config, clusters, args)
        else:
            result = Validation(spark, config, *clusters).run()  # type: ignore[arg-type]
    except Exception as error:  # noqa: BLE001 - every failure maps to an exit code
        return failure_exit_code(error)
    finally:
        for cluster in opened.values():
            getattr(cluster, "close", lambda: None)()

    if not args.incremental:  # an increment wrote its reports before its state
        write_reports(result, args.report_json, args.report_html)
    elif args.metrics_file:
        write_increment_metrics(args, config, result, started)
    print(text_summary(result))
    return EXIT_PASS if result.verdict == "PASS" else EXIT_FAIL


def write_increment_metrics(args: argparse.Namespace, config: ValidatorConfig, result, started: float) -> None:
    """The flow's verification metrics, from the state the increment just wrote (docs/validator.md,
    "Continuous verification")."""
    from mm2_validator.incremental import StateStore
    from mm2_validator.shared import mm2_verification

    flow = args.metrics_flow or f"{config.source_alias}-{config.target_alias}"
    state = StateStore(args.state).load() or {}
    records = sum(t["counts"].get("records_judged", 0) for t in (result.incremental or {}).get("topics", []))
    finished = time.time()
    text = mm2_verification.increment_metrics(flow, state, finished, finished - started, records)
    mm2_verification.write_atomically(str(args.metrics_file), text)


def _run_increment(spark, config: ValidatorConfig, clusters: list, args: argparse.Namespace):  # -> ValidationResult
    from mm2_validator.incremental import DEFAULT_MEMORY
    from mm2_validator.incremental_job import run_incremental
    from mm2_validator.report import write_reports

    return run_incremental(
        spark,
        config,
        clusters[0],
        clusters[1],
        args.state,
        lambda result: write_reports(result, args.report_json, args.report_html),
        reset=args.reset_state,
        memory=DEFAULT_MEMORY if args.state_memory is None else args.state_memory,
    )
