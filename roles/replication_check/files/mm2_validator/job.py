"""The validation run: snapshot, wait for the target, compare, check translations.

Order matters:
1. snapshot the source end offsets (S1) of every topic before anything else;
2. read the source below S1 and count its records exactly;
3. wait until every target partition spans at least that many offsets (or time out);
4. read the checkpoints and offset syncs, *then* the target end offsets (T), *then*
   the source end offsets again (S2): every checkpoint then points inside [.., T)
   and every target record below T replicates a source record below S2;
5. compare source [start, S2) with target [start, T); only records below S1 must be
   on the target.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable, Optional

from pyspark.sql import DataFrame, SparkSession

from mm2_validator.checkpoints import (
    check_offset_syncs,
    decode_checkpoint_records,
    evaluate_topic_checkpoints,
    latest_checkpoints,
    summarize_groups,
)
from mm2_validator.compare import compare_topic
from mm2_validator.config import ConfigError, ValidatorConfig
from mm2_validator.delivery import EXACTLY_ONCE, SEVERITY_NONE, describe_budget
from mm2_validator.fingerprint import with_fingerprints
from mm2_validator.kafka_io import KafkaCluster, collect_internal_rows, read_whole_topic
from mm2_validator.latency import heartbeat_latency
from mm2_validator.model import (
    DUPLICATE,
    PROBLEM_KINDS,
    TIMESTAMP_TYPE_CHANGE,
    CheckpointResult,
    Finding,
    PartitionResult,
    TopicResult,
    ValidationResult,
)
from mm2_validator.shared import mm2_records
from mm2_validator.window import WindowError, check_window_partitions, selected_topics_missing

log = logging.getLogger("mm2_validator")

# Topics a regex never selects: Kafka's, MM2's and Connect's own.
_INTERNAL_TOPIC = re.compile(r"^__|\.internal$|(^|\.)heartbeats$|^mm2-|^connect-")


@dataclass
class TopicPlan:
    source_topic: str
    target_topic: str
    partitions: list[int]
    source_start: dict[int, int]
    snapshot_end: dict[int, int]
    source_head: Optional[DataFrame] = None  # fingerprinted records below the snapshot, cached
    required_counts: dict[int, int] = field(default_factory=dict)
    target_partitions: list[int] = field(default_factory=list)
    target_start: dict[int, int] = field(default_factory=dict)
    target_end: dict[int, int] = field(default_factory=dict)
    source_read_end: dict[int, int] = field(default_factory=dict)


@dataclass
class Clock:
    """Time sources, replaceable in tests."""

    monotonic: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    wall_ms: Callable[[], int] = lambda: int(time.time() * 1000)


class Validation:
    def __init__(
        self,
        spark: SparkSession,
        config: ValidatorConfig,
        source: KafkaCluster,
        target: KafkaCluster,
        offset_syncs_cluster: KafkaCluster,
        clock: Optional[Clock] = None,
    ) -> None:
        self.spark = spark
        self.config = config
        self.source = source
        self.target = target
        self.offset_syncs_cluster = offset_syncs_cluster
        self.clock = clock or Clock()
        self.result = ValidationResult(inputs=config.describe())

    # -- steps ------------------------------------------------------------------------

    def resolve_topics(self) -> list[str]:
        if self.config.topics:
            absent = [t for t in self.config.topics if not self.source.partitions(t)]
            if absent:
                raise ConfigError(f"topics not found on the source cluster: {', '.join(absent)}")
            return list(self.config.topics)
        pattern = re.compile(self.config.topics_regex or "")
        chosen = [t for t in self.source.list_topics() if pattern.fullmatch(t) and not _INTERNAL_TOPIC.search(t)]
        if not chosen:
            raise ConfigError(f"no source topic matches --topics-regex {self.config.topics_regex!r}")
        return chosen

    def snapshot(self, topics: list[str]) -> list[TopicPlan]:
        plans = []
        for topic in topics:
            partitions = self.source.partitions(topic)
            plans.append(
                TopicPlan(
                    source_topic=topic,
                    target_topic=self.config.remote_topic(topic),
                    partitions=partitions,
                    source_start=self.source.start_offsets(topic, partitions),
                    snapshot_end=self.source.end_offsets(topic, partitions),
                )
            )
        self.check_window(plans)
        return plans

    def check_window(self, plans: list[TopicPlan]) -> None:
        """Refuse a window naming what the source does not have, before any record is read."""
        window = self.config.window
        try:
            absent = selected_topics_missing(window, [plan.source_topic for plan in plans])
            if absent:
                raise WindowError(f"--from-offsets names topics this run does not validate: {', '.join(absent)}")
            for plan in plans:
                check_window_partitions(
                    window.for_topic(plan.source_topic), plan.source_topic, plan.partitions, plan.snapshot_end
                )
        except WindowError as error:
            raise ConfigError(str(error)) from None

    def read_source_heads(self, plans: list[TopicPlan]) -> None:
        for plan in plans:
            head = with_fingerprints(
                self.source.read(plan.source_topic, plan.source_start, plan.snapshot_end), self.config.raw_key_preview
            ).persist()
            counts = {row["partition"]: row["count"] for row in head.groupBy("partition").count().collect()}
            plan.source_head = head
            plan.required_counts = {p: int(counts.get(p, 0)) for p in plan.partitions}

    def _refresh_target_offsets(self, plan: TopicPlan) -> None:
        plan.target_partitions = self.target.partitions(plan.target_topic)
        plan.target_start = self.target.start_offsets(plan.target_topic, plan.target_partitions)
        plan.target_end = self.target.end_offsets(plan.target_topic, plan.target_partitions)

    @staticmethod
    def lagging_partitions(plan: TopicPlan) -> dict[int, tuple[int, int]]:
        """{partition: (target offsets spanned, source records required)} where the
        target spans fewer offsets than the source has records below the snapshot."""
        lagging = {}
        for partition, required in plan.required_counts.items():
            spanned = plan.target_end.get(partition, 0) - plan.target_start.get(partition, 0)
            if partition not in plan.target_end or spanned < required:
                lagging[partition] = (max(spanned, 0), required)
        return lagging

    def wait_for_catch_up(self, plans: list[TopicPlan]) -> bool:
        deadline = self.clock.monotonic() + self.config.catchup_timeout_s
        while True:
            behind = []
            for plan in plans:
                self._refresh_target_offsets(plan)
                if self.lagging_partitions(plan):
                    behind.append(plan)
            if not behind:
                return True
            remaining = deadline - self.clock.monotonic()
            if remaining <= 0:
                for plan in behind:
                    for partition, (spanned, required) in sorted(self.lagging_partitions(plan).items()):
                        self.result.findings.append(
                            Finding(
                                "error",
                                "target_behind",
                                f"target behind after {self.config.catchup_timeout_s:g} s: "
                                f"{spanned} offsets on the target for {required} source records",
                                topic=plan.source_topic,
                                partition=partition,
                            )
                        )
                return False
            log.info("waiting for the target to catch up on %d topic(s)", len(behind))
            self.clock.sleep(min(self.config.poll_interval_s, remaining))

    def read_checkpoints(self) -> list[CheckpointResult]:
        records = read_whole_topic(self.target, self.config.checkpoints_topic)
        if records is None:
            if self.config.groups:
                self.result.findings.append(
                    Finding(
                        "error",
                        "checkpoints_missing",
                        f"checkpoints topic {self.config.checkpoints_topic} not found on the target",
                    )
                )
            return []
        rows = [(row[0], row[1], row[2]) for row in collect_internal_rows(records)]
        history, malformed = decode_checkpoint_records(rows)
        if malformed:
            self.result.findings.append(
                Finding(
                    "warning",
                    "checkpoints_malformed",
                    f"{malformed} records of {self.config.checkpoints_topic} could not be decoded",
                )
            )
        return latest_checkpoints(history, self.config.groups)

    def read_offset_syncs(self) -> dict[tuple[str, int], tuple[int, int]]:
        """Newest (upstream, downstream) per source topic-partition."""
        records = read_whole_topic(self.offset_syncs_cluster, self.config.offset_syncs_topic)
        summary = self.result.offset_syncs
        if records is None:
            return {}
        summary.topic_found = True
        latest: dict[tuple[str, int], tuple[int, int]] = {}
        for row in collect_internal_rows(records):
            key, value = row[0], row[1]
            if value is None:
                continue
            try:
                sync = mm2_records.decode_offset_sync(key, value)
            except mm2_records.RecordFormatError:
                continue
            summary.records += 1
            latest[(sync.topic, sync.partition)] = (sync.upstream_offset, sync.downstream_offset)
        return latest

    def compare(
        self, plan: TopicPlan, checkpoints: list[CheckpointResult], syncs: dict[tuple[str, int], tuple[int, int]]
    ) -> TopicResult:
        assert plan.source_head is not None
        raw_key_preview = self.config.raw_key_preview
        tail = with_fingerprints(
            self.source.read(plan.source_topic, plan.snapshot_end, plan.source_read_end), raw_key_preview
        )
        source_records = plan.source_head.unionByName(tail)
        target_records = with_fingerprints(
            self.target.read(plan.target_topic, plan.target_start, plan.target_end), raw_key_preview
        ).persist()
        topic_checkpoints = [c for c in checkpoints if c.topic == plan.target_topic]
        topic_syncs = {p: s for (t, p), s in syncs.items() if t == plan.source_topic}
        # Checkpoint safety needs the target -> source offset map of its partitions.
        # Offset syncs are only checked where a map exists anyway (checkpointed or
        # mismatching partitions), so they never force a record-level pass.
        mapped = {c.partition for c in topic_checkpoints}
        comparison = compare_topic(
            source_records,
            target_records,
            plan.snapshot_end,
            mapped_partitions=sorted(mapped),
            max_examples=self.config.max_examples,
            window=self.config.window.for_topic(plan.source_topic),
        )
        try:
            evaluate_topic_checkpoints(self.spark, topic_checkpoints, comparison.offset_map, plan.target_end)
            checked, mismatches = check_offset_syncs(self.spark, topic_syncs, comparison.offset_map)
            self.result.offset_syncs.latest_checked += checked
            self.result.offset_syncs.mismatched += len(mismatches)
            self.result.offset_syncs.examples += [dict(m, topic=plan.source_topic) for m in mismatches][
                : self.config.max_examples
            ]
        finally:
            comparison.release()
            target_records.unpersist()
            plan.source_head.unpersist()
        topic_result = TopicResult(
            plan.source_topic, plan.target_topic, target_topic_exists=bool(plan.target_partitions)
        )
        for partition, result in sorted(comparison.partitions.items()):
            result.source_start_offset = plan.source_start.get(partition, 0)
            result.source_snapshot_offset = plan.snapshot_end.get(partition, 0)
            result.source_read_offset = plan.source_read_end.get(partition, 0)
            result.target_start_offset = plan.target_start.get(partition, 0)
            result.target_end_offset = plan.target_end.get(partition, 0)
            topic_result.partitions.append(result)
        return topic_result

    def measure_latency(self) -> None:
        topic = self.config.naming.remote_heartbeats_topic(self.config.source_alias)
        records = read_whole_topic(self.target, topic)
        rows = [] if records is None else [(row[0], row[1], row[3], row[4]) for row in collect_internal_rows(records)]
        self.result.latency = heartbeat_latency(
            rows, self.config.source_alias, topic, self.clock.wall_ms(), topic_found=records is not None
        )

    # -- verdict ------------------------------------------------------------------------

    def add_findings(self) -> None:
        findings = self.result.findings
        for topic in self.result.topics:
            if not topic.target_topic_exists:
                findings.append(
                    Finding(
                        "error",
                        "target_topic_missing",
                        f"{topic.target_topic} does not exist on the target",
                        topic=topic.source_topic,
                    )
                )
            for partition in topic.partitions:
                for kind in PROBLEM_KINDS:
                    count = partition.problems.get(kind, 0)
                    if not count:
                        continue
                    findings.append(
                        Finding(
                            self._problem_severity(kind),
                            kind,
                            _problem_message(kind, count, partition),
                            topic=topic.source_topic,
                            partition=partition.partition,
                        )
                    )
        self._add_duplicate_budget_finding()
        for checkpoint in self.result.checkpoints:
            where = dict(topic=checkpoint.topic, partition=checkpoint.partition, group=checkpoint.group)
            if checkpoint.safe is False:
                findings.append(
                    Finding(
                        "error",
                        "checkpoint_unsafe",
                        f"downstream offset {checkpoint.downstream_offset} for upstream {checkpoint.upstream_offset} "
                        f"skips {checkpoint.skipped_records} record(s) on failover",
                        **where,
                    )
                )
            if checkpoint.within_log is False:
                findings.append(
                    Finding(
                        "error",
                        "checkpoint_outside_log",
                        f"downstream offset {checkpoint.downstream_offset} is outside the target log",
                        **where,
                    )
                )
            if not checkpoint.monotonic:
                findings.append(Finding("error", "checkpoint_not_monotonic", checkpoint.note, **where))
        evaluated_groups = {c.group for c in self.result.checkpoints if c.evaluated}
        for group in self.config.groups:
            if group not in evaluated_groups:
                findings.append(
                    Finding("warning", "group_without_checkpoints", "no checkpoint for a validated topic", group=group)
                )
        if self.result.offset_syncs.mismatched:
            findings.append(
                Finding(
                    "warning",
                    "offset_sync_mismatch",
                    f"{self.result.offset_syncs.mismatched} offset sync(s) point at a target record that replicates another source offset",
                )
            )

    def judge_duplicates(self) -> None:
        result = self.result
        result.duplicate_budget = self.config.duplicate_policy.judge(
            result.duplicates, result.records_validated, result.duplicate_replays
        )

    def _problem_severity(self, kind: str) -> str:
        if kind == TIMESTAMP_TYPE_CHANGE and self.config.allow_timestamp_type_change:
            return "warning"
        if kind == DUPLICATE:
            return self.result.duplicate_budget.severity
        return "error"

    def _add_duplicate_budget_finding(self) -> None:
        budget = self.result.duplicate_budget
        if budget.severity == SEVERITY_NONE:
            return
        if budget.delivery == EXACTLY_ONCE:
            code = "duplicates_under_exactly_once"
        else:
            code = "duplicates_within_budget" if budget.within_budget else "duplicate_budget_exceeded"
        self.result.findings.append(Finding(budget.severity, code, describe_budget(budget)))

    # -- the run ------------------------------------------------------------------------

    def run(self) -> ValidationResult:
        started = self.clock.monotonic()
        self.result.started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        topics = self.resolve_topics()
        plans = self.snapshot(topics)
        log.info("snapshot taken of %d topic(s)", len(plans))
        self.read_source_heads(plans)
        self.result.caught_up = self.wait_for_catch_up(plans)
        checkpoints = self.read_checkpoints()
        syncs = self.read_offset_syncs()
        for plan in plans:
            self._refresh_target_offsets(plan)
            plan.source_read_end = self.source.end_offsets(plan.source_topic, plan.partitions)
        for plan in plans:
            log.info("comparing %s with %s", plan.source_topic, plan.target_topic)
            self.result.topics.append(self.compare(plan, checkpoints, syncs))
        self.result.checkpoints = checkpoints
        self.result.groups = summarize_groups(checkpoints)
        self.measure_latency()
        self.judge_duplicates()
        self.add_findings()
        self.result.elapsed_s = round(self.clock.monotonic() - started, 3)
        return self.result


def _problem_message(kind: str, count: int, partition: PartitionResult) -> str:
    message = f"{count} record(s): {kind.replace('_', ' ')}"
    where = partition.duplicate_range
    if kind == DUPLICATE and where:
        replays = partition.duplicate_replays
        message += (
            f" in {replays} replay{'' if replays == 1 else 's'}"
            f" (copies of source offsets {where['source_first']}-{where['source_last']}"
            f" at target offsets {where['target_first']}-{where['target_last']})"
        )
    return message
