"""Figures against goals: each goal names a row (by its label), a figure, a
comparison and a bound, which may be another row's figure times a factor. A run
prints every figure beside its goal and reports whether any was missed. Pure: the
benchmarks that have goals (bench/mediumd_goals.py) feed it their rows."""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq}


@dataclass(frozen=True)
class Goal:
    label: str  # the row
    key: str  # the figure
    op: str  # one of OPS
    bound: Union[float, Tuple[str, str, float]]  # a number, or (label, key, factor)
    why: str = ""

    def bound_value(self, rows: Dict[str, Dict[str, Any]]) -> Optional[float]:
        if isinstance(self.bound, tuple):
            label, key, factor = self.bound
            v = rows.get(label, {}).get(key)
            return None if not isinstance(v, (int, float)) else factor * v
        return float(self.bound)

    def describe(self) -> str:
        if isinstance(self.bound, tuple):
            label, key, factor = self.bound
            return f"{self.op} {factor:g} x {label} {key}"
        return f"{self.op} {self.bound:g}"


def check(goals: Sequence[Goal], rows: Sequence[Dict[str, Any]]) -> Tuple[List[Dict[str, Any]], bool]:
    """Each goal's figure, bound and verdict, and whether all were met. A figure that
    is missing (the run failed, or measured nothing) misses its goal."""
    by = {r["label"]: r for r in rows}
    out: List[Dict[str, Any]] = []
    ok_all = True
    for g in goals:
        v = by.get(g.label, {}).get(g.key)
        b = g.bound_value(by)
        ok = isinstance(v, (int, float)) and b is not None and OPS[g.op](v, b)
        ok_all &= ok
        out.append({"label": g.label, "figure": g.key, "value": v, "goal": g.describe(), "bound": b, "met": ok, "why": g.why})
    return out, ok_all


def lines(results: Sequence[Dict[str, Any]]) -> List[str]:
    res = [f"{'row':<30} {'figure':<22} {'value':>10}  {'goal':<40} verdict"]
    for r in results:
        v = r["value"]
        vs = "-" if v is None else (f"{v:.3g}" if isinstance(v, float) else str(v))
        res.append(f"{r['label'][:30]:<30} {r['figure'][:22]:<22} {vs:>10}  {r['goal'][:40]:<40} {'met' if r['met'] else 'MISSED'}")
    return res
