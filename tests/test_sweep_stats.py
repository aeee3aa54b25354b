"""The sweep's statistics: Student's t quantiles and the confidence interval of a
mean, against closed forms, tables and hand-computed small samples."""

import math

import pytest

from sdmac.sweep.stats import betainc, summarize, t_cdf, t_quantile


@pytest.mark.parametrize(
    "p, df, t",
    [
        # Printed tables of Student's t (two-sided 95 % and 99 %).
        (0.975, 1, 12.706),
        (0.975, 2, 4.303),
        (0.975, 4, 2.776),
        (0.975, 9, 2.262),
        (0.975, 29, 2.045),
        (0.995, 10, 3.169),
        (0.95, 5, 2.015),
    ],
)
def test_t_quantile_table(p, df, t):
    assert t_quantile(p, df) == pytest.approx(t, abs=5e-4)


@pytest.mark.parametrize("p", [0.6, 0.9, 0.975, 0.995, 0.9999])
def test_t_quantile_closed_forms(p):
    # df = 1 is the Cauchy distribution; df = 2 has t = (2p - 1) / sqrt(2 p (1 - p)).
    assert t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-10)
    assert t_quantile(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-10)


def test_t_quantile_tends_to_the_normal_and_is_symmetric():
    assert t_quantile(0.975, 1e7) == pytest.approx(1.959964, abs=1e-5)
    assert t_quantile(0.025, 4) == pytest.approx(-t_quantile(0.975, 4), rel=1e-12)
    assert t_quantile(0.5, 3) == 0.0
    for p in (0.8, 0.975):
        assert t_cdf(t_quantile(p, 7), 7) == pytest.approx(p, abs=1e-12)
    with pytest.raises(ValueError):
        t_quantile(1.0, 3)
    with pytest.raises(ValueError):
        t_quantile(0.9, 0)


def test_betainc_closed_forms():
    for x in (0.0, 0.1, 0.5, 0.93, 1.0):
        assert betainc(1, 1, x) == pytest.approx(x, abs=1e-14)
        assert betainc(3, 1, x) == pytest.approx(x**3, abs=1e-14)
        assert betainc(1, 2, x) == pytest.approx(1 - (1 - x) ** 2, abs=1e-14)


def test_summary_of_five_by_hand():
    # 1..5: mean 3, s^2 = (4 + 1 + 0 + 1 + 4) / 4 = 2.5, half-width t(0.975, 4) s / sqrt(5).
    s = summarize([5, 1, 4, 2, 3], 0.95)
    assert s["n"] == 5
    assert s["mean"] == 3.0
    assert s["sd"] == pytest.approx(math.sqrt(2.5), rel=1e-15)
    half = 2.776445105 * math.sqrt(2.5) / math.sqrt(5)
    assert s["ci_half_width"] == pytest.approx(half, rel=1e-9)
    assert (s["ci_low"], s["ci_high"]) == pytest.approx((3 - half, 3 + half), rel=1e-9)
    assert (s["min"], s["median"], s["max"]) == (1.0, 3.0, 5.0)


def test_summary_of_four_at_90_percent():
    # 2, 4, 4, 6: mean 4, s^2 = 8 / 3; t(0.95, 3) = 2.353363.
    s = summarize([2.0, 4.0, 6.0, 4.0], 0.90)
    assert s["median"] == 4.0
    assert s["ci_half_width"] == pytest.approx(2.353363 * math.sqrt(8 / 3) / 2, rel=1e-6)


def test_summary_of_one_and_none():
    one = summarize([7.5], 0.95)
    assert (one["n"], one["mean"], one["median"], one["sd"], one["ci_low"]) == (1, 7.5, 7.5, None, None)
    none = summarize([], 0.95)
    assert none["n"] == 0 and all(v is None for k, v in none.items() if k != "n")
    same = summarize([3, 3, 3], 0.95)
    assert (same["sd"], same["ci_low"], same["ci_high"]) == (0.0, 3.0, 3.0)


def test_summary_does_not_depend_on_order():
    xs = [0.1, 1e16, -1e16, 0.2, 0.3, 1 / 3]
    assert summarize(xs, 0.95) == summarize(list(reversed(xs)), 0.95) == summarize(sorted(xs), 0.95)
