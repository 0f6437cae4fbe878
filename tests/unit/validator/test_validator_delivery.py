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


def judged(duplicates, validated, **policy):
    return DuplicatePolicy(**policy).judge(duplicates, validated)


def test_defaults_are_at_least_once_with_a_tenth_of_the_records():
    policy = DuplicatePolicy()
    assert policy.delivery == AT_LEAST_ONCE
    assert policy.max_duplicates is None and policy.max_duplicate_ratio == 0.1
    assert policy.allowed_duplicates(300_000) == 30_000


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
    assert DuplicatePolicy(max_duplicate_ratio=0.1).allowed_duplicates(1009) == 100
    assert judged(101, 1009).severity == "error"


def test_ratio_uses_the_written_decimal_not_the_binary_float():
    # 0.07 x 100 is 7.000000000000001 in binary floating point; the budget is 7.
    assert DuplicatePolicy(max_duplicate_ratio=0.07).allowed_duplicates(100) == 7
    assert DuplicatePolicy(max_duplicate_ratio=0.29).allowed_duplicates(100) == 29  # 28.999999999999996 in floats


@pytest.mark.parametrize(
    ("duplicates", "severity"),
    [(5, "warning"), (6, "error")],
)
def test_count_boundary_is_inclusive(duplicates, severity):
    assert judged(duplicates, 1_000_000, max_duplicates=5, max_duplicate_ratio=None).severity == severity


def test_with_both_limits_the_smaller_one_applies():
    # Count is the tighter one here...
    assert DuplicatePolicy(max_duplicates=50, max_duplicate_ratio=0.1).allowed_duplicates(1000) == 50
    assert judged(51, 1000, max_duplicates=50).severity == "error"
    # ...and the ratio there.
    assert DuplicatePolicy(max_duplicates=500, max_duplicate_ratio=0.1).allowed_duplicates(1000) == 100
    assert judged(101, 1000, max_duplicates=500).severity == "error"


def test_count_given_keeps_the_default_ratio():
    assert DuplicatePolicy(max_duplicates=1_000_000).allowed_duplicates(10) == 1


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


def test_budget_line_names_guarantee_budget_and_usage():
    line = describe_budget(judged(14_906, 300_000))
    assert line.startswith("delivery at-least-once: 14906 duplicate(s)")
    assert "budget 30000" in line and "ratio 0.1 of 300000 validated" in line and "count unlimited" in line
    assert line.endswith("within budget")
    assert "none allowed" in describe_budget(judged(2, 10, delivery=EXACTLY_ONCE))
