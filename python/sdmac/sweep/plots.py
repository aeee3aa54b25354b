"""One plot per aggregated figure: its mean against the first grid parameter, with the
confidence interval as error bars, one line per combination of the other parameters.
PNG files, drawn with matplotlib's Agg canvas (no display needed)."""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path
from typing import Any

from .figures import is_number


def file_name(figure: str, taken: set[str]) -> str:
    """A file name for `figure` (``stations.sta1.delay_us.p99.9`` -> ``stations.sta1.delay_us.p99.9.png``),
    made unique against `taken` (which it joins)."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", figure).strip("._") or "figure"
    name, n = f"{base}.png", 2
    while name in taken:
        name, n = f"{base}-{n}.png", n + 1
    taken.add(name)
    return name


def _label(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def plot_all(doc: dict[str, Any], out_dir: Path) -> list[Path]:
    """Writes a plot per figure of the results `doc` into `out_dir`; returns the files.
    Nothing is drawn without a grid (there is no axis to draw against)."""
    grid: dict[str, list[Any]] = doc["grid"]
    if not grid:
        return []
    from matplotlib.figure import Figure  # imported here: the rest of the sweep does not need it

    keys = list(grid)
    xkey, others = keys[0], keys[1:]
    xs_raw = grid[xkey]
    numeric_x = all(is_number(v) for v in xs_raw)
    xs = [float(v) for v in xs_raw] if numeric_x else list(range(len(xs_raw)))
    by_params = {json.dumps(p["params"], sort_keys=True): p for p in doc["points"]}
    combos = list(itertools.product(*(grid[k] for k in others)))
    level = round(100 * float(doc["confidence"]), 3)

    out_dir.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    files = []
    for name in doc["figures"]:
        f = Figure(figsize=(7, 4.5), layout="constrained")
        ax = f.add_subplot()
        for combo in combos:
            means, errs = [], []
            for xv in xs_raw:
                params = dict(zip([xkey, *others], [xv, *combo]))
                s = by_params[json.dumps(params, sort_keys=True)]["figures"][name]
                means.append(math.nan if s["mean"] is None else s["mean"])
                errs.append(0.0 if s["ci_half_width"] is None else s["ci_half_width"])
            label = ", ".join(f"{k} = {_label(v)}" for k, v in zip(others, combo)) or None
            ax.errorbar(xs, means, yerr=errs, marker="o", capsize=3, label=label)
        if not numeric_x:
            ax.set_xticks(xs, [_label(v) for v in xs_raw])
        ax.set_xlabel(xkey)
        ax.set_ylabel(name)
        ax.set_title(f"{name}\nmean and {level:g} % confidence interval over {len(doc['seeds'])} seeds", fontsize=10)
        ax.grid(True, alpha=0.3)
        if others:
            ax.legend(fontsize=8)
        path = out_dir / file_name(name, taken)
        f.savefig(path, dpi=100)
        files.append(path)
    return files
