"""Summary statistics of one figure over the seeds of one grid point.

The confidence interval of the mean is Student's t interval: mean ± t(1 − α/2, n − 1) ·
s / √n, with s the sample standard deviation. The t quantile is computed here (no
scipy): Student's t distribution function through the regularized incomplete beta
function, evaluated with its continued fraction (DLMF 8.17.22), and inverted by
bisection to double precision.

Sums use :func:`math.fsum` (correctly rounded), so a summary does not depend on the
order of its values: the same runs give the same figures wherever they ran.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

_CF_EPS = 1e-16
_CF_TINY = 1e-300
_CF_MAX_TERMS = 10_000


def _beta_cf(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b), by the modified Lentz method."""
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _CF_TINY else _CF_TINY)
    h = d
    for m in range(1, _CF_MAX_TERMS):
        # The even step d_{2m}, then the odd step d_{2m+1}.
        for num in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > _CF_TINY else _CF_TINY)
            c = 1.0 + num / c
            c = c if abs(c) > _CF_TINY else _CF_TINY
            delta = c * d
            h *= delta
        if abs(delta - 1.0) < _CF_EPS:
            return h
    raise ArithmeticError(f"incomplete beta I_{x}({a}, {b}) did not converge")  # pragma: no cover


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) for a, b > 0 and 0 ≤ x ≤ 1."""
    if not (a > 0 and b > 0):
        raise ValueError(f"betainc needs a, b > 0, not a={a}, b={b}")
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"betainc needs 0 <= x <= 1, not {x}")
    if x in (0.0, 1.0):
        return x
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_cf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_cf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t distribution with `df` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, not {df}")
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The t with P(T ≤ t) = p for Student's t with `df` degrees of freedom (0 < p < 1)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a quantile needs 0 < p < 1, not {p}")
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, not {df}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if p == 0.5:
        return 0.0
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    # Bisection until the interval stops shrinking in double precision.
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def summarize(values: Sequence[float], confidence: float) -> dict[str, Any]:
    """n, mean, sd, the `confidence` interval of the mean (Student's t), min, median, max.

    sd and the interval are None for fewer than two values; every figure is None for none.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    n = len(values)
    out: dict[str, Any] = {
        "n": n,
        "mean": None,
        "sd": None,
        "ci_low": None,
        "ci_high": None,
        "ci_half_width": None,
        "min": None,
        "median": None,
        "max": None,
    }
    if n == 0:
        return out
    xs = sorted(float(v) for v in values)
    mean = math.fsum(xs) / n
    mid = n // 2
    out.update(mean=mean, min=xs[0], max=xs[-1], median=xs[mid] if n % 2 else (xs[mid - 1] + xs[mid]) / 2.0)
    if n >= 2:
        sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
        half = t_quantile(0.5 + confidence / 2.0, n - 1) * sd / math.sqrt(n)
        out.update(sd=sd, ci_low=mean - half, ci_high=mean + half, ci_half_width=half)
    return out
