"""Verdict rules for duplicates per delivery guarantee (pure Python, no Spark)."""

from __future__ import annotations

import pytest

from mm2_validator.delivery import (
    AT_LEAST_ONCE,
    EXACTLY_ONCE,
    DeliveryError,
    DuplicatePolicy,
    describe_budget,
)


def judged(duplicates, validated, replays=1, **policy):
    return DuplicatePolicy(**policy).judge(duplicates, validated, replays)


def test_defaults_are_at_least_once_with_a_tenth_of_the_records():
    policy = DuplicatePolicy()
    assert policy.delivery == AT_LEAST_ONCE
    assert policy.max_duplicates is None and policy.max_duplicate_ratio == 0.1
    assert policy.allowed_per_replay(300_000) == 30_000


def test_the_reported_incident_passes_with_a_warning_under_at_least_once():
    budget = judged(14_906, 300_000)
    assert budget.within_budget and budget.severity == "warning"
    assert budget.allowed_duplicates == 30_000 and budget.duplicate_ratio == pytest.approx(0.049687, abs=1e-6)


@pytest.mark.parametrize(
    ("duplicates", "severity"),
    [(0, "none"), (1, "warning"), (100, "warning"), (101, "error")],
)
def test_ratio_boundary_is_inclusive(duplicates, severity):
    assert judged(duplicates, 1000, max_duplicate_ratio=0.1).severity == severity


def test_ratio_budget_rounds_down():
    # 0.1 x 1009 = 100.9: 100 pass, 101 fail.
    assert DuplicatePolicy(max_duplicate_ratio=0.1).allowed_per_replay(1009) == 100
    assert judged(101, 1009).severity == "error"


def test_ratio_uses_the_written_decimal_not_the_binary_float():
    # 0.07 x 100 is 7.000000000000001 in binary floating point; the budget is 7.
    assert DuplicatePolicy(max_duplicate_ratio=0.07).allowed_per_replay(100) == 7
    assert DuplicatePolicy(max_duplicate_ratio=0.29).allowed_per_replay(100) == 29  # 28.999999999999996 in floats


@pytest.mark.parametrize(
    ("duplicates", "severity"),
    [(5, "warning"), (6, "error")],
)
def test_count_boundary_is_inclusive(duplicates, severity):
    assert judged(duplicates, 1_000_000, max_duplicates=5, max_duplicate_ratio=None).severity == severity


def test_with_both_limits_the_smaller_one_applies():
    # Count is the tighter one here...
    assert DuplicatePolicy(max_duplicates=50, max_duplicate_ratio=0.1).allowed_per_replay(1000) == 50
    assert judged(51, 1000, max_duplicates=50).severity == "error"
    # ...and the ratio there.
    assert DuplicatePolicy(max_duplicates=500, max_duplicate_ratio=0.1).allowed_per_replay(1000) == 100
    assert judged(101, 1000, max_duplicates=500).severity == "error"


def test_count_given_keeps_the_default_ratio():
    assert DuplicatePolicy(max_duplicates=1_000_000).allowed_per_replay(10) == 1


def test_no_limit_at_all_makes_every_duplicate_a_warning():
    budget = judged(10_000, 10, max_duplicate_ratio=None)
    assert budget.allowed_duplicates is None and budget.severity == "warning"


def test_nothing_validated_leaves_no_ratio_budget():
    budget = judged(1, 0)
    assert budget.allowed_duplicates == 0 and budget.severity == "error" and budget.duplicate_ratio is None


@pytest.mark.parametrize("policy", [{}, {"max_duplicates": 10**9, "max_duplicate_ratio": None}])
def test_exactly_once_fails_on_one_duplicate_whatever_the_budget(policy):
    budget = judged(1, 1_000_000, delivery=EXACTLY_ONCE, **policy)
    assert budget.severity == "error" and budget.allowed_duplicates == 0 and not budget.within_budget
    assert judged(0, 1_000_000, delivery=EXACTLY_ONCE, **policy).severity == "none"


@pytest.mark.parametrize(
    "policy",
    [
        {"delivery": "at-most-once"},
        {"max_duplicates": -1},
        {"max_duplicate_ratio": -0.1},
        {"max_duplicate_ratio": float("nan")},
        {"max_duplicate_ratio": float("inf")},
    ],
)
def test_impossible_policies_are_refused(policy):
    with pytest.raises(DeliveryError):
        DuplicatePolicy(**policy)


def test_budget_line_names_guarantee_replays_and_allowance_per_replay():
    line = describe_budget(judged(1_204, 300_000, replays=2))
    assert line == (
        "delivery at-least-once: 1,204 duplicates in 2 replays (at most 30,000 per replay: "
        "10 % of the 300,000 records validated; 60,000 in all): within budget"
    )
    assert describe_budget(judged(30_013, 300_000)) == (
        "delivery at-least-once: 30,013 duplicates in 1 replay (at most 30,000 per replay: "
        "10 % of the 300,000 records validated): over budget"
    )
    assert "none allowed" in describe_budget(judged(2, 10, delivery=EXACTLY_ONCE))
    assert "(no limit: each is a warning)" in describe_budget(judged(2, 10, max_duplicate_ratio=None))


@pytest.mark.parametrize(
    ("policy", "reason"),
    [
        ({"max_duplicates": 500}, "at most 500 per replay: the count limit, below 10 % of the 300,000 records validated"),
        ({"max_duplicates": 50_000}, "at most 30,000 per replay: 10 % of the 300,000 records validated, within the count limit of 50,000"),
        ({"max_duplicates": 500, "max_duplicate_ratio": None}, "at most 500 per replay: the count limit"),
        ({"max_duplicate_ratio": 0.025}, "at most 7,500 per replay: 2.5 % of the 300,000 records validated"),
    ],
)
def test_budget_line_says_which_limit_sets_the_allowance(policy, reason):
    assert f"({reason})" in describe_budget(judged(1, 300_000, **policy))


# -- per replay -------------------------------------------------------------------------


def test_the_allowance_applies_to_each_replay():
    policy = DuplicatePolicy()
    assert policy.allowed_per_replay(300_000) == 30_000
    assert [policy.allowed_duplicates(300_000, replays) for replays in (0, 1, 2, 3)] == [30_000, 30_000, 60_000, 90_000]
    assert DuplicatePolicy(max_duplicates=500).allowed_duplicates(300_000, 4) == 2_000
    assert DuplicatePolicy(max_duplicate_ratio=None).allowed_duplicates(300_000, 4) is None


def test_two_crashes_in_a_burst_pass_with_a_warning():
    # Two SIGKILLs 20 s apart: 300,000 records, 30,013 duplicates (10.004 %) in two replays.
    budget = judged(30_013, 300_000, replays=2)
    assert budget.severity == "warning" and budget.within_budget
    assert (budget.replays, budget.allowed_per_replay, budget.allowed_duplicates) == (2, 30_000, 60_000)
    # The same duplicates in one replay are more than one crash can leave.
    assert judged(30_013, 300_000, replays=1).severity == "error"


@pytest.mark.parametrize(("duplicates", "severity"), [(200, "warning"), (201, "error")])
def test_the_per_replay_boundary_is_inclusive(duplicates, severity):
    assert judged(duplicates, 1000, replays=2).severity == severity


@pytest.mark.parametrize("replays", [1, 5, 1000])
def test_exactly_once_allows_no_duplicate_whatever_the_replays(replays):
    budget = judged(1, 1_000_000, replays=replays, delivery=EXACTLY_ONCE)
    assert (budget.allowed_per_replay, budget.allowed_duplicates, budget.severity) == (0, 0, "error")
