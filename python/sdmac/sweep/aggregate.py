"""The sweep's results: every run's figures ordered by (grid point, seed), and per grid
point and figure the summary over the seeds (n, mean, sd, confidence interval, min,
median, max).

The runs are ordered before anything is summed, and the sums are exact-rounded, so the
results do not depend on where or in which order the runs ran.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import figures as fig
from .spec import Spec
from .stats import summarize


def order_runs(spec: Spec, records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records ordered by (grid point, position of the seed in the spec)."""
    seed_pos = {s: i for i, s in enumerate(spec.seeds)}
    return sorted(records, key=lambda r: (r["point"], seed_pos[r["seed"]]))


def aggregate(spec: Spec, records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The results document: spec summary, grid points with their summaries, runs and failures."""
    runs = order_runs(spec, records)
    points = spec.points()

    seen: dict[str, None] = {}
    for r in runs:
        if r["error"] is None:
            seen.update(dict.fromkeys(r["figures"]))
    names = fig.select(seen, spec.figures)
    chosen = set(names)

    out_points = []
    for i, point in enumerate(points):
        mine = [r for r in runs if r["point"] == i]
        ok = [r for r in mine if r["error"] is None]
        summaries = {}
        for name in names:
            values = [r["figures"][name] for r in ok if name in r["figures"]]
            summaries[name] = summarize(values, spec.confidence)
        out_points.append(
            {
                "index": i,
                "params": point,
                "runs": len(ok),
                "failed_seeds": [r["seed"] for r in mine if r["error"] is not None],
                "figures": summaries,
            }
        )

    return {
        "spec": str(spec.path),
        "kind": spec.kind,
        "target": spec.target,
        "grid": spec.grid,
        "fixed": spec.fixed,
        "seeds": list(spec.seeds),
        "confidence": spec.confidence,
        "figures": names,
        "unmatched_figure_patterns": fig.unmatched(seen, spec.figures) if seen else list(spec.figures or ()),
        "points": out_points,
        "runs": [
            {
                "point": r["point"],
                "params": points[r["point"]],
                "seed": r["seed"],
                "error": r["error"],
                "figures": {k: v for k, v in r["figures"].items() if k in chosen},
                **({"other": r["other"]} if r.get("other") else {}),
            }
            for r in runs
        ],
        "failures": [
            {"point": r["point"], "params": points[r["point"]], "seed": r["seed"], "error": r["error"]}
            for r in runs
            if r["error"] is not None
        ],
    }
