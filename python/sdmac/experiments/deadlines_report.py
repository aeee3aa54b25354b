"""The summary table of a deadlines sweep, as Markdown, from its ``sweep.json``.

    python -m sdmac.experiments.deadlines_report DIR/sweep.json

One row per grid point (stations × scheme): the runs, the deadline-miss ratio with its
confidence interval, the delivered share, the latency p99, the TDMA frames withdrawn,
and for a point whose runs all failed the reason (a schedule that does not fit). A sweep
of ``mix = "urgent+bulk"`` runs gets the miss ratio and latency p50 and p99 of the urgent and the
bulk frames too.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

from sdmac.experiments import report


def _mean(fig: Mapping[str, Any] | None, scale: float = 1.0, digits: int = 3) -> str:
    if not fig or fig.get("mean") is None:
        return "–"
    return f"{fig['mean'] * scale:.{digits}f}"


def _ci(fig: Mapping[str, Any] | None) -> str:
    if not fig or fig.get("mean") is None:
        return "–"
    if fig.get("ci_low") is None:
        return f"{fig['mean']:.3f}"
    return f"{fig['mean']:.3f} [{max(0.0, fig['ci_low']):.3f}, {min(1.0, fig['ci_high']):.3f}]"


def _reason(doc: Mapping[str, Any], index: int) -> str:
    errors = {f["error"] for f in doc.get("failures", []) if f["point"] == index}
    if not errors:
        return ""
    text: str = sorted(errors)[0]
    text = text.split(" (at ")[0].removeprefix("ValueError: ").removeprefix("deadlines: ")
    return text + (f" (and {len(errors) - 1} other reasons)" if len(errors) > 1 else "")


def table(doc: Mapping[str, Any]) -> str:
    """The Markdown table of the sweep document `doc`."""
    level = round(100 * float(doc.get("confidence", 0.95)))
    mixed = any("miss_ratio_urgent" in pt["figures"] for pt in doc["points"])
    if mixed:
        rows = [
            f"| N | scheme | runs | urgent miss ratio [{level} % CI] | bulk miss ratio [{level} % CI] | "
            f"overall miss ratio [{level} % CI] | urgent latency p50 / p99 (ms) | bulk latency p50 / p99 (ms) | refused |",
            "|---:|---|---:|---|---|---|---:|---:|---|",
        ]
    else:
        rows = [
            f"| N | scheme | runs | miss ratio, mean [{level} % CI] | delivered | latency p99 (ms) | TDMA withdrawn | refused |",
            "|---:|---|---:|---|---:|---:|---:|---|",
        ]
    for pt in doc["points"]:
        f = pt["figures"]
        prm = pt["params"]
        if mixed:
            rows.append(
                f"| {prm.get('stations', '?')} | {prm.get('scheme', '?')} | {pt['runs']} | "
                f"{_ci(f.get('miss_ratio_urgent'))} | {_ci(f.get('miss_ratio_bulk'))} | {_ci(f.get('miss_ratio'))} | "
                f"{_mean(f.get('latency_p50_urgent_us'), 1e-3, 1)} / {_mean(f.get('latency_p99_urgent_us'), 1e-3, 1)} | "
                f"{_mean(f.get('latency_p50_bulk_us'), 1e-3, 1)} / {_mean(f.get('latency_p99_bulk_us'), 1e-3, 1)} | "
                f"{_reason(doc, pt['index'])} |"
            )
            continue
        rows.append(
            f"| {prm.get('stations', '?')} | {prm.get('scheme', '?')} | {pt['runs']} | {_ci(f.get('miss_ratio'))} | "
            f"{_mean(f.get('delivered_share'))} | {_mean(f.get('latency_p99_us'), 1e-3, 1)} | "
            f"{_mean(f.get('withdrawn'), 1.0, 1)} | {_reason(doc, pt['index'])} |"
        )
    seeds = doc.get("seeds", [])
    ex = doc.get("execution", {})
    rows.append("")
    rows.append(
        f"Seeds {', '.join(str(s) for s in seeds)}; fixed {json.dumps(doc.get('fixed', {}), ensure_ascii=False)}; "
        f"ran {ex.get('executor', '?')} with {ex.get('jobs', '?')} job(s) in {ex.get('wall_s', 0.0):.0f} s."
    )
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(report.main(lambda doc: table(doc) + "\n", "sdmac.experiments.deadlines_report"))
