"""Incremental mode: the increment logic and the state, in pure Python (no Spark, no Kafka).

A `Log` stands in for one partitioned topic; records are `Rec`s whose fingerprint is
their key and value, so a test reads as the records it moves around.
"""

from __future__ import annotations

import json

import pytest

from mm2_validator.incremental import (
    Flow,
    Rec,
    StateError,
    StateStore,
    TopicSnapshot,
    judge_partition,
    run_increment,
)

FLOW = Flow("src", "dst")


def rec(offset, key, value, ts_type=0):
    return Rec(offset, fp=f"{key}|{value}", key_fp=key, value_fp=value, ts_type=ts_type, key_preview=key)


class Log:
    """A topic: per partition a list of (offset, key, value); offsets grow by one unless a
    record is deleted (`delete`)."""

    def __init__(self, partitions=1, start=0):
        self.records = {p: [] for p in range(partitions)}
        self.start = {p: start for p in range(partitions)}
        self.next = {p: start for p in range(partitions)}
        self.topic_id = None

    def append(self, partition, key, value, ts_type=0):
        self.records[partition].append(rec(self.next[partition], key, value, ts_type))
        self.next[partition] += 1

    def copy_of(self, source, partition, offset):
        """Append the copy of a source record (MM2 replicating it)."""
        original = next(r for r in source.records[partition] if r.offset == offset)
        self.append(partition, original.key_fp, original.value_fp, original.ts_type)

    def delete(self, partition, offset):
        self.records[partition] = [r for r in self.records[partition] if r.offset != offset]

    def read(self, start, end):
        return {p: [r for r in rs if start.get(p, 0) <= r.offset < end.get(p, 0)] for p, rs in self.records.items()}


class Lab:
    """A source topic `orders` and its remote topic `src.orders`."""

    def __init__(self, tmp_path, partitions=1):
        self.source = Log(partitions)
        self.target = Log(partitions)
        self.store = StateStore(tmp_path / "state.json")
        self.reports = []

    def mirror(self, partition=0, upto=None):
        """Copy source records not yet copied, up to (excluding) offset `upto`."""
        copied = len(self.target.records[partition])
        for r in list(self.source.records[partition])[copied:]:
            if upto is not None and r.offset >= upto:
                break
            self.target.copy_of(self.source, partition, r.offset)

    def snapshot(self, topic):
        parts = sorted(self.source.records)
        return TopicSnapshot(
            topic,
            "src." + topic,
            parts,
            dict(self.source.start),
            dict(self.source.next),
            sorted(self.target.records),
            dict(self.target.start),
            dict(self.target.next),
            topic_id=self.source.topic_id,
        )

    def read(self, side, topic, start, end):
        return (self.source if side == "source" else self.target).read(start, end)

    def run(self, reset=False, flow=FLOW, memory=100, write_reports=None):
        return run_increment(
            self.store,
            flow,
            ["orders"],
            self.snapshot,
            self.read,
            write_reports or self.reports.append,
            reset=reset,
            memory=memory,
            clock=lambda: 1000.0,  # a redone increment keeps the same state
        )


def kinds(result):
    return sorted((f["kind"], f["source_offset"], f["target_offset"]) for f in result.findings)


def positions(lab, partition=0):
    state = lab.store.load()["topics"]["orders"]["partitions"][str(partition)]
    return state["proven"], state["target_from"]


def fill(lab, count, partition=0, prefix="k"):
    for i in range(count):
        lab.source.append(partition, f"{prefix}{i % 3}", f"v{len(lab.source.records[partition])}")


def test_a_clean_flow_advances_and_counts(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 5)
    lab.mirror()
    first = lab.run()
    assert first.verdict == "PASS" and first.run == 1
    assert positions(lab) == (5, 5)
    fill(lab, 3)
    lab.mirror()
    second = lab.run()
    part = second.topics[0].partitions[0]
    assert (part.source_from, part.source_end, part.records_judged) == (5, 8, 3)
    assert second.cumulative["orders"]["records_judged"] == 8
    assert positions(lab) == (8, 8)


def test_a_record_in_flight_at_one_snapshot_is_proven_at_the_next(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 6)
    lab.mirror(upto=4)  # 4 and 5 still in flight
    first = lab.run()
    assert first.verdict == "PASS"
    part = first.topics[0].partitions[0]
    assert (part.records_judged, part.carried_source, part.first_carried_offset) == (4, 2, 4)
    assert positions(lab) == (4, 4)
    lab.mirror()
    second = lab.run()
    assert second.verdict == "PASS"
    assert second.topics[0].partitions[0].records_judged == 2
    assert positions(lab) == (6, 6)
    assert second.cumulative["orders"]["records_judged"] == 6


def test_nothing_copied_yet_carries_everything(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 3)
    result = lab.run()
    assert result.verdict == "PASS"
    assert result.topics[0].partitions[0].carried_source == 3
    assert positions(lab) == (0, 0)


def test_a_copy_arriving_in_the_next_increment(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 3)
    lab.mirror()
    lab.run()
    fill(lab, 2)  # produced after the first run, copied before the second
    lab.mirror()
    second = lab.run()
    assert second.verdict == "PASS" and positions(lab) == (5, 5)


def test_copies_of_records_past_the_source_snapshot_are_left_for_the_next_run(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 3)
    lab.mirror()
    snapshot = lab.snapshot

    def late_snapshot(topic):
        taken = snapshot(topic)  # the source end is taken first...
        fill(lab, 2)  # ...records arrive and are copied before the target end is taken
        lab.mirror()
        taken.target_end = dict(lab.target.next)
        return taken

    lab.snapshot = late_snapshot
    first = lab.run()
    assert first.verdict == "PASS"
    assert first.topics[0].partitions[0].carried_target == 2
    assert positions(lab) == (3, 3)
    lab.snapshot = snapshot
    second = lab.run()
    assert second.verdict == "PASS" and positions(lab) == (5, 5)


def test_a_duplicate_across_the_boundary(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 4)
    lab.mirror()
    lab.run()
    lab.target.copy_of(lab.source, 0, 2)  # a replay after an MM2 task restart
    lab.target.copy_of(lab.source, 0, 3)
    fill(lab, 1)
    lab.target.copy_of(lab.source, 0, 4)
    second = lab.run()
    assert kinds(second) == [("duplicate", 2, 4), ("duplicate", 3, 5)]
    assert positions(lab) == (5, 7)
    # judged once: the next run does not see them again
    third = lab.run()
    assert third.findings == [] and third.cumulative["orders"]["duplicate"] == 2


def test_a_duplicate_of_a_proven_record_is_judged_without_new_copies(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 3)
    lab.mirror()
    lab.run()
    lab.target.copy_of(lab.source, 0, 1)
    second = lab.run()
    assert kinds(second) == [("duplicate", 1, 3)]
    assert positions(lab) == (3, 4)


def test_a_duplicate_within_an_increment(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 3)
    lab.mirror()
    lab.target.copy_of(lab.source, 0, 2)
    assert kinds(lab.run()) == [("duplicate", 2, 3)]


def test_an_order_violation_spanning_two_increments(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 3)
    lab.mirror(upto=1)  # 0 copied
    lab.target.copy_of(lab.source, 0, 2)  # 2 overtakes 1
    first = lab.run()
    assert kinds(first) == [("missing", 1, None)]
    lab.target.copy_of(lab.source, 0, 1)  # 1 arrives late
    second = lab.run()
    assert kinds(second) == [("order_violation", 1, 2)]
    assert "late copy" in second.findings[0]["detail"]
    # a further copy of it is a duplicate, no longer a late copy
    lab.target.copy_of(lab.source, 0, 1)
    assert kinds(lab.run()) == [("duplicate", 1, 3)]


def test_a_key_out_of_order_against_an_earlier_increment(tmp_path):
    lab = Lab(tmp_path)
    lab.source.append(0, "a", "1")
    lab.source.append(0, "a", "2")
    lab.target.copy_of(lab.source, 0, 0)
    lab.run()
    # the state remembers key a's copy at target offset 0; an earlier target position for
    # a later record of the key can only come from a state whose target moved back
    state = lab.store.load()
    state["topics"]["orders"]["partitions"]["0"]["recent"][0][3] = 5
    lab.store.save(state)
    lab.target.copy_of(lab.source, 0, 1)
    assert kinds(lab.run()) == [("order_violation", 1, 1)]


def test_a_deleted_target_record_is_missing_once_later_records_are_copied(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 3)
    lab.mirror()
    lab.target.delete(0, 2)  # the last copy is gone: indistinguishable from in flight
    first = lab.run()
    assert first.verdict == "PASS" and positions(lab) == (2, 3)
    fill(lab, 2)
    lab.target.copy_of(lab.source, 0, 3)
    lab.target.copy_of(lab.source, 0, 4)
    second = lab.run()
    assert kinds(second) == [("missing", 2, None)]
    assert positions(lab) == (5, 5)
    assert second.cumulative["orders"]["missing"] == 1


def test_a_foreign_record_on_the_target(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 2)
    lab.mirror()
    lab.target.append(0, "zz", "foreign")
    fill(lab, 1)
    lab.target.copy_of(lab.source, 0, 2)
    result = lab.run()
    assert kinds(result) == [("unexpected", None, 2)]
    finding = result.findings[0]
    assert finding["topic"] == "orders" and finding["partition"] == 0 and finding["id"] == "orders:0:unexpected:-:2"


def test_a_changed_copy_is_a_content_mismatch(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 3)
    lab.target.copy_of(lab.source, 0, 0)
    lab.target.append(0, "k1", "changed")
    lab.target.copy_of(lab.source, 0, 2)
    result = lab.run()
    assert kinds(result) == [("content_mismatch", 1, 1)]
    assert result.findings[0]["detail"] == "value"


def test_a_timestamp_type_change(tmp_path):
    lab = Lab(tmp_path)
    lab.source.append(0, "a", "1")
    lab.target.append(0, "a", "1", ts_type=1)
    assert kinds(lab.run()) == [("timestamp_type_change", 0, 0)]


def test_state_of_another_flow_is_refused(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 2)
    lab.mirror()
    lab.run()
    with pytest.raises(StateError, match="belongs to flow src -> dst, not other -> dst"):
        lab.run(flow=Flow("other", "dst"))
    assert lab.store.load()["flow"]["source_alias"] == "src"
    restarted = lab.run(flow=Flow("other", "dst"), reset=True)
    assert restarted.run == 1 and restarted.topics[0].partitions[0].records_judged == 2


def test_state_of_another_remote_topic_is_refused(tmp_path):
    lab = Lab(tmp_path)
    lab.run()
    state = lab.store.load()
    state["topics"]["orders"]["remote_topic"] = "orders"
    lab.store.save(state)
    with pytest.raises(StateError, match="remote topic orders, this run with src.orders"):
        lab.run()


def test_a_recreated_topic_is_refused_by_its_id(tmp_path):
    lab = Lab(tmp_path)
    lab.source.topic_id = "AAAA"
    fill(lab, 2)
    lab.mirror()
    lab.run()
    lab.source.topic_id = "BBBB"
    with pytest.raises(StateError, match="re-created .topic id BBBB, the state has AAAA"):
        lab.run()
    result = lab.run(reset=True)
    assert [n["code"] for n in result.topics[0].notes] == ["state_reset"]


def test_a_recreated_topic_is_refused_by_its_partitions_and_log_start(tmp_path):
    lab = Lab(tmp_path, partitions=2)
    lab.source.start = {0: 10, 1: 10}
    lab.source.next = {0: 10, 1: 10}
    fill(lab, 2)
    lab.mirror()
    lab.run()
    fewer = Lab(tmp_path, partitions=1)
    with pytest.raises(StateError, match="1 partitions, the state has 2"):
        fewer.run()
    restarted = Lab(tmp_path, partitions=2)  # log start back at 0
    with pytest.raises(StateError, match="partition 0 starts at offset 0, the state saw it start at 10"):
        restarted.run()


def test_state_beyond_the_log_end_is_reported_naming_the_partition(tmp_path):
    lab = Lab(tmp_path, partitions=2)
    fill(lab, 3, partition=1)
    lab.mirror(partition=1)
    lab.run()
    state = lab.store.load()
    state["topics"]["orders"]["partitions"]["1"]["proven"] = 9
    lab.store.save(state)
    with pytest.raises(StateError, match="past the log end of orders:1: proven up to offset 9, the partition ends at 3"):
        lab.run()


def test_a_new_partition_starts_from_its_log_start(tmp_path):
    lab = Lab(tmp_path, partitions=1)
    fill(lab, 2)
    lab.mirror()
    lab.run()
    lab.source.records[1], lab.source.start[1], lab.source.next[1] = [], 0, 0
    lab.target.records[1], lab.target.start[1], lab.target.next[1] = [], 0, 0
    fill(lab, 2, partition=1)
    lab.mirror(partition=1)
    result = lab.run()
    assert result.verdict == "PASS" and positions(lab, 1) == (2, 2)
    assert "state_new_partition" in [n["code"] for n in result.topics[0].notes]


def test_records_deleted_before_they_were_verified_are_a_truncated_finding(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 4)
    lab.run()  # nothing copied: proven stays 0
    lab.source.start[0] = 2
    lab.source.records[0] = lab.source.records[0][2:]
    lab.mirror()
    result = lab.run()
    (finding,) = result.findings
    assert (finding["kind"], finding["source_offset"], finding["records"]) == ("truncated", 0, 2)
    assert "source offsets 0-1 (2 record(s)) were deleted" in finding["detail"]
    assert result.verdict == "FAIL" and positions(lab) == (4, 2)
    partition = lab.store.load()["topics"]["orders"]["partitions"]["0"]
    assert partition["cumulative"]["truncated"] == 2 and partition["cumulative"]["missing"] == 0
    assert "truncated_from" not in partition
    # Counted once: the next increment starts after them.
    assert lab.run().findings == []


def test_copies_of_truncated_records_are_not_unexpected(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 2)
    lab.run()  # nothing copied yet
    lab.mirror()
    fill(lab, 2, prefix="m")
    lab.mirror()
    lab.source.start[0] = 2
    lab.source.records[0] = lab.source.records[0][2:]
    result = lab.run()
    assert kinds(result) == [("truncated", 0, None)] and result.topics[0].counts()["truncated"] == 2
    assert "2 target record(s) before the first verified copy" in result.findings[0]["detail"]
    assert result.findings[0]["lost"] == 0
    assert result.topics[0].partitions[0].target_records_judged == 2


def empty_source(lab, partition=0):
    """Delete every record of the source partition (DeleteRecords to its end, or retention)."""
    lab.source.start[partition] = lab.source.next[partition]
    lab.source.records[partition] = []


def test_an_emptied_partition_counts_the_records_never_copied(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 4)
    lab.mirror(upto=2)
    lab.run()  # 0 and 1 judged; 2 and 3 in flight
    fill(lab, 3)
    lab.mirror(upto=3)  # MM2 copies 2, then stands still
    empty_source(lab)  # 2..6 deleted: 2 was copied, 3..6 never
    result = lab.run()
    (finding,) = result.findings
    assert (finding["kind"], finding["source_offset"], finding["records"], finding["lost"]) == ("truncated", 2, 5, 4)
    assert "at least 4 of them were never copied" in finding["detail"]
    assert result.verdict == "FAIL" and positions(lab) == (7, 2)
    # The copy of 2 waits for a verified copy to be told from later ones; it is never unexpected.
    fill(lab, 2, prefix="n")
    for offset in (7, 8):  # MM2 goes on from the log start
        lab.target.copy_of(lab.source, 0, offset)
    after = lab.run()
    assert after.findings == [] and after.verdict == "PASS", after.findings
    assert positions(lab) == (9, 5)


def test_a_partition_never_copied_and_emptied_loses_all_it_held(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 1)
    lab.run()  # the partition known from offset 0, nothing copied
    fill(lab, 299)
    empty_source(lab)
    (finding,) = lab.run().findings
    assert (finding["kind"], finding["records"], finding["lost"]) == ("truncated", 300, 300)


def test_the_state_keeps_each_partitions_figures_for_the_metrics(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 3)
    lab.mirror(upto=2)
    clock = iter([100.0, 200.0, 300.0])
    run_increment(lab.store, FLOW, ["orders"], lab.snapshot, lab.read, lab.reports.append, clock=lambda: next(clock))
    saved = lab.store.load()["topics"]["orders"]["partitions"]["0"]
    assert (saved["proven"], saved["source_end"], saved["verified_at"]) == (2, 3, 100.0)
    assert saved["cumulative"]["records_judged"] == 2
    # Nothing new copied while the source has more: the time of the last advance stays.
    run_increment(lab.store, FLOW, ["orders"], lab.snapshot, lab.read, lab.reports.append, clock=lambda: next(clock))
    assert lab.store.load()["topics"]["orders"]["partitions"]["0"]["verified_at"] == 100.0
    lab.mirror()
    run_increment(lab.store, FLOW, ["orders"], lab.snapshot, lab.read, lab.reports.append, clock=lambda: next(clock))
    saved = lab.store.load()["topics"]["orders"]["partitions"]["0"]
    assert (saved["proven"], saved["verified_at"], saved["cumulative"]["records_judged"]) == (3, 300.0, 3)


def test_the_remembered_records_are_bounded(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 10)
    lab.mirror()
    lab.run(memory=3)
    recent = lab.store.load()["topics"]["orders"]["partitions"]["0"]["recent"]
    assert [entry[0] for entry in recent] == [7, 8, 9]


def test_the_state_file_is_replaced_atomically(tmp_path):
    store = StateStore(tmp_path / "sub" / "state.json")
    store.save({"format": "x"})
    store.save({"format": "mm2-validator-incremental-state", "version": 1})
    assert json.loads((tmp_path / "sub" / "state.json").read_text())["version"] == 1
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == ["state.json"]


def test_a_file_that_is_not_a_state_is_refused(tmp_path):
    (tmp_path / "state.json").write_text('{"verdict": "PASS"}')
    with pytest.raises(StateError, match="not a validator state file"):
        StateStore(tmp_path / "state.json").load()


def test_judge_partition_carries_unknown_target_records_after_the_last_copy():
    saved = {"proven": 0, "target_from": 0, "recent": []}
    source = [rec(0, "a", "1"), rec(1, "a", "2")]
    target = [rec(0, "a", "1"), rec(1, "x", "foreign")]
    outcome = judge_partition("orders", 0, saved, source, target, 2, 2)
    # the foreign record may yet be followed by the copy of offset 1: both wait
    assert outcome.findings == []
    assert (outcome.proven, outcome.next_target_from, outcome.carried_target) == (1, 1, 1)


# -- crash safety ------------------------------------------------------------------------


class Crash(Exception):
    pass


def crash_on_save(document: object) -> None:
    """A store whose write dies, as a process killed between the report and the state write."""
    raise Crash()


def scenario(lab):
    """Three increments' worth of traffic, with faults of several kinds."""
    yield lambda: (fill(lab, 5), lab.mirror(upto=3))
    yield lambda: (lab.mirror(), lab.target.copy_of(lab.source, 0, 1), fill(lab, 3), lab.mirror(upto=7))
    yield lambda: (lab.target.append(0, "zz", "x"), lab.mirror(), fill(lab, 1), lab.mirror())


def run_scenario(tmp_path, crash_in_run=None, crash_where=None):
    lab = Lab(tmp_path)
    results = []
    for number, step in enumerate(scenario(lab), start=1):
        step()
        if number == crash_in_run:
            if crash_where == "before_report":

                def failing_report(result):
                    raise Crash()

                with pytest.raises(Crash):
                    lab.run(write_reports=failing_report)
            else:
                save = lab.store.save

                def failing_save(document):
                    raise Crash()

                lab.store.save = failing_save
                with pytest.raises(Crash):
                    lab.run()  # the report is written, the state is not
                lab.store.save = save
        results.append(lab.run())
    state = lab.store.load()
    return results, state


@pytest.mark.parametrize("crash_where", ["before_report", "between_report_and_state"])
@pytest.mark.parametrize("crash_in_run", [1, 2, 3])
def test_a_crash_redoes_the_same_increment(tmp_path, crash_in_run, crash_where):
    expected, expected_state = run_scenario(tmp_path / "clean")
    results, state = run_scenario(tmp_path / "crash", crash_in_run, crash_where)
    assert [kinds(r) for r in results] == [kinds(r) for r in expected]
    assert [sorted(f["id"] for f in r.findings) for r in results] == [sorted(f["id"] for f in r.findings) for r in expected]
    for document in (state, expected_state):
        document.pop("updated_at")
    assert state == expected_state
    assert state["runs"] == 3
    cumulative = state["topics"]["orders"]["cumulative"]
    assert cumulative["duplicate"] == 1 and cumulative["unexpected"] == 1 and cumulative["records_judged"] == 9


def test_the_redone_increment_repeats_the_crashed_report(tmp_path):
    lab = Lab(tmp_path)
    fill(lab, 3)
    lab.mirror()
    lab.target.copy_of(lab.source, 0, 0)
    fill(lab, 1)
    lab.mirror()
    save = lab.store.save
    lab.store.save = crash_on_save
    with pytest.raises(Crash):
        lab.run()
    lab.store.save = save
    redone = lab.run()
    assert [f["id"] for f in lab.reports[0].findings] == [f["id"] for f in redone.findings]
    assert redone.run == 1 and redone.cumulative["orders"]["duplicate"] == 1


def test_two_runs_never_share_a_state(tmp_path):
    lab = Lab(tmp_path)
    with lab.store.locked():
        with pytest.raises(StateError, match="another validator run holds"):
            lab.run()
