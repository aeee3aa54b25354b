"""The figures of one run: named numbers, taken from a scenario's JSON result or an
experiment's returned mapping, and the selection of those a sweep aggregates.

A scenario's result is flattened into dotted names: ``aggregate.throughput_mbps``,
``stations.sta1.delay_us.p99`` (array elements by their ``name`` or ``id``, else their
index), ``mediums.ch36.utilization``. The wall-clock fields (which depend on where a run
ran) and the seed are left out; so are values that are not numbers (addresses, nulls).
"""

from __future__ import annotations

import fnmatch
import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

#: A scenario result's fields that measure the wall clock, and the seed (a parameter).
NOT_FIGURES = ("wall_seconds", "events_per_second", "sim_seconds_per_wall_second", "seed")


def is_number(v: Any) -> bool:
    """A finite int or float (not a bool)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _flatten(prefix: str, v: Any, out: dict[str, float]) -> None:
    if isinstance(v, dict):
        for k, x in v.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), x, out)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            label: Any = i
            if isinstance(x, dict):
                label = x.get("name", x.get("id", i))
            _flatten(f"{prefix}.{label}", x, out)
    elif is_number(v):
        out[prefix] = v


def scenario_figures(result: Mapping[str, Any]) -> dict[str, float]:
    """The numbers of a scenario's JSON result, by dotted name."""
    out: dict[str, float] = {}
    for k, v in result.items():
        if k not in NOT_FIGURES:
            _flatten(k, v, out)
    return out


def experiment_figures(result: Any) -> tuple[dict[str, float], dict[str, Any]]:
    """``(figures, other)`` of an experiment's returned mapping: its numbers, and the rest
    (kept as JSON; what JSON cannot hold is kept as its repr)."""
    if not isinstance(result, Mapping):
        raise TypeError(f"an experiment's run() must return a mapping of figures, not {type(result).__name__}")
    figures: dict[str, float] = {}
    other: dict[str, Any] = {}
    for k, v in result.items():
        if not isinstance(k, str):
            raise TypeError(f"an experiment's figure names must be strings, not {k!r}")
        if is_number(v):
            figures[k] = v
        else:
            try:
                json.dumps(v, allow_nan=False)
                other[k] = v
            except (TypeError, ValueError):
                other[k] = repr(v)
    return figures, other


def select(names: Iterable[str], patterns: Iterable[str] | None) -> list[str]:
    """The names matching any of the glob `patterns` (all of them when None), in order."""
    pats = list(patterns) if patterns is not None else None
    return [n for n in names if pats is None or any(fnmatch.fnmatchcase(n, p) for p in pats)]


def unmatched(names: Iterable[str], patterns: Iterable[str] | None) -> list[str]:
    """The patterns that match none of `names`."""
    all_names = list(names)
    return [p for p in patterns or () if not any(fnmatch.fnmatchcase(n, p) for n in all_names)]
