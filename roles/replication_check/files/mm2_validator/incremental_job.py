"""The Spark side of incremental mode: snapshot offsets, read and fingerprint the
increment's records, hand them to `incremental.run_increment` as plain lists, and turn
its outcome into the usual report (with an ``incremental`` section)."""

from __future__ import annotations

import logging
from typing import Any, Callable, Mapping, Optional

from pyspark.sql import SparkSession

from mm2_validator.config import ValidatorConfig
from mm2_validator.delivery import AT_LEAST_ONCE
from mm2_validator.fingerprint import FP_A, FP_B, HEADERS_FP, KEY_FP, KEY_PREVIEW, TS_MICROS, VALUE_FP, with_fingerprints
from mm2_validator.incremental import (
    DEFAULT_MEMORY,
    KINDS,
    Flow,
    IncrementResult,
    Rec,
    StateStore,
    TopicSnapshot,
    run_increment,
)
from mm2_validator.kafka_io import KafkaCluster
from mm2_validator.model import DUPLICATE, VERIFIED_BY_RECORDS, Finding, PartitionResult, TopicResult, ValidationResult

log = logging.getLogger("mm2_validator")

_MASK = (1 << 64) - 1


def _hex(value: Optional[int]) -> str:
    return "" if value is None else f"{int(value) & _MASK:016x}"


def collect_records(
    cluster: KafkaCluster,
    topic: str,
    start: Mapping[int, int],
    end: Mapping[int, int],
    raw_key_preview: bool = False,
) -> dict[int, list[Rec]]:
    """The records of [start, end) per partition as `Rec`s (fingerprints only; the
    increment is collected on the driver, so its size bounds the driver's memory)."""
    rows = (
        with_fingerprints(cluster.read(topic, start, end), raw_key_preview)
        .select("partition", "offset", FP_A, FP_B, KEY_FP, VALUE_FP, HEADERS_FP, TS_MICROS, "timestampType", KEY_PREVIEW)
        .collect()
    )
    records: dict[int, list[Rec]] = {}
    for row in rows:
        records.setdefault(int(row["partition"]), []).append(
            Rec(
                offset=int(row["offset"]),
                fp=_hex(row[FP_A]) + _hex(row[FP_B]),
                key_fp=_hex(row[KEY_FP]),
                value_fp=_hex(row[VALUE_FP]),
                headers_fp=_hex(row[HEADERS_FP]),
                ts=int(row[TS_MICROS] or 0),
                ts_type=int(row["timestampType"] or 0),
                key_preview=row[KEY_PREVIEW],
            )
        )
    return records


def snapshot_topic(source: KafkaCluster, target: KafkaCluster, topic: str, remote_topic: str) -> TopicSnapshot:
    """Source offsets first, then the target's: every copy below the target end replicates
    a record the source had by then."""
    partitions = source.partitions(topic)
    source_start = source.start_offsets(topic, partitions)
    source_end = source.end_offsets(topic, partitions)
    topic_id_of = getattr(source, "topic_id", None)
    topic_id = topic_id_of(topic) if callable(topic_id_of) else None
    target_partitions = target.partitions(remote_topic)
    return TopicSnapshot(
        topic,
        remote_topic,
        partitions,
        source_start,
        source_end,
        target_partitions,
        target.start_offsets(remote_topic, target_partitions),
        target.end_offsets(remote_topic, target_partitions),
        topic_id=topic_id,
    )


def increment_severity(kind: str, config: ValidatorConfig) -> str:
    """Under at-least-once a duplicate is a replay, a warning in the increment's report: its budget
    over time is the MM2VerificationDuplicatesOverBudget alert's. Every other finding is an error."""
    return "warning" if kind == DUPLICATE and config.duplicate_policy.delivery == AT_LEAST_ONCE else "error"


def validation_result(result: IncrementResult, config: ValidatorConfig) -> ValidationResult:
    """The increment as a `ValidationResult`, so the JSON, text and HTML reports apply."""
    validation = ValidationResult(inputs=config.describe())
    validation.started_at = result.started_at
    for topic in result.topics:
        topic_result = TopicResult(topic.source_topic, topic.remote_topic)
        for outcome in topic.partitions:
            partition = PartitionResult(
                outcome.partition,
                source_start_offset=outcome.source_from,
                source_snapshot_offset=outcome.source_end,
                source_read_offset=outcome.source_end,
                target_start_offset=outcome.target_from,
                target_end_offset=outcome.target_end,
                source_records=outcome.records_judged,
                source_tail_records=outcome.carried_source,
                target_records=outcome.target_records_judged,
                verified_by=VERIFIED_BY_RECORDS,
            )
            partition.problems = dict(outcome.counts)
            per_kind: dict[str, int] = {}
            for finding in outcome.findings:
                if per_kind.get(finding["kind"], 0) < config.max_examples:
                    per_kind[finding["kind"]] = per_kind.get(finding["kind"], 0) + 1
                    partition.examples.append(dict(finding))
            topic_result.partitions.append(partition)
            for kind in KINDS:
                count = outcome.counts.get(kind, 0)
                if count:
                    validation.findings.append(
                        Finding(
                            increment_severity(kind, config),
                            kind,
                            f"{count} record(s): {kind.replace('_', ' ')} in this increment",
                            topic=topic.source_topic,
                            partition=outcome.partition,
                        )
                    )
        for note in topic.notes:
            if note["severity"] in ("error", "warning"):
                validation.findings.append(Finding(note["severity"], note["code"], note["message"], topic=topic.source_topic))
        validation.topics.append(topic_result)
    validation.incremental = result.summary()
    return validation


def run_incremental(
    spark: SparkSession,
    config: ValidatorConfig,
    source: KafkaCluster,
    target: KafkaCluster,
    state_path: Any,
    write_reports: Callable[[ValidationResult], None],
    reset: bool = False,
    memory: int = DEFAULT_MEMORY,
) -> ValidationResult:
    """One increment; `write_reports` runs before the state is written."""
    from mm2_validator.job import Validation

    topics = Validation(spark, config, source, target, source).resolve_topics()
    reports: list[ValidationResult] = []

    def snapshot(topic: str) -> TopicSnapshot:
        return snapshot_topic(source, target, topic, config.remote_topic(topic))

    def read(side: str, topic: str, start: Mapping[int, int], end: Mapping[int, int]) -> dict[int, list[Rec]]:
        return collect_records(source if side == "source" else target, topic, start, end, config.raw_key_preview)

    def report(result: IncrementResult) -> None:
        validation = validation_result(result, config)
        write_reports(validation)
        reports.append(validation)

    run_increment(
        StateStore(state_path),
        Flow(config.source_alias, config.target_alias),
        topics,
        snapshot,
        read,
        report,
        reset=reset,
        memory=memory,
        log=log.info,
    )
    return reports[-1]
