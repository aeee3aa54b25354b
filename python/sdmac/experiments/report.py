"""Reports of the experiments, shared by their modules and by ``sdmac experiment``.

For a sweep of an experiment (its ``sweep.json``): `ci` writes one aggregated figure
as "mean ± half-width", `sweep_header` the line above a summary table, `comparison` a
verdict line ("yes"/"NO", with the two confidence intervals "disjoint" or
"overlapping"), and `main` is the ``python -m sdmac.experiments.NAME sweep.json``
entry that prints a module's summary.

For one run (``sdmac experiment NAME``): `figure_table` lists its figures, `plot_run`
draws them in one panel per unit, and `plot_name` names the plot's file.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table

# ----------------------------------------------------------------------------- sweeps


def ci(fig: Mapping[str, Any], scale: float = 1.0, digits: int = 3) -> str:
    """'mean ± half-width' of one aggregated figure, scaled."""
    return f"{fig['mean'] * scale:.{digits}g} ± {fig['ci_half_width'] * scale:.2g}"


def sweep_header(sweep: Mapping[str, Any], per: str = "point") -> str:
    """The line above a summary table: seeds per `per`, the confidence level and the
    fixed parameters of the sweep."""
    return (
        f"{len(sweep['seeds'])} seeds per {per}, mean ± half-width of the "
        f"{sweep['confidence']:.0%} confidence interval; fixed: "
        + ", ".join(f"{k} = {v!r}" for k, v in sweep["fixed"].items())
    )


def comparison(
    claim: str,
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    *,
    higher_is_better: bool,
    fmt: str = ".3f",
    against: str = "",
) -> str:
    """A verdict line: whether aggregated figure `a` beats `b` ("yes" or "NO": higher
    or lower mean, as `higher_is_better` says) and whether their confidence intervals
    are "disjoint" (on the winning side) or "overlapping". `against` follows `b`'s mean."""
    if higher_is_better:
        better, apart = a["mean"] > b["mean"], a["ci_low"] > b["ci_high"]
    else:
        better, apart = a["mean"] < b["mean"], a["ci_high"] < b["ci_low"]
    return (
        f"- {claim}: {'yes' if better else 'NO'} ({a['mean']:{fmt}} against {b['mean']:{fmt}}{against}; "
        f"intervals {'disjoint' if apart else 'overlapping'})"
    )


def main(summary: Callable[[Mapping[str, Any]], str], module: str, argv: Sequence[str] | None = None) -> int:
    """Prints ``summary`` of the sweep.json named in `argv` (default: the command line)
    and returns the exit status; `module` names the command in the usage line."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print(f"usage: python -m {module} DIR/sweep.json", file=sys.stderr)
        return 2
    try:
        doc = json.loads(Path(args[0]).read_text())
    except OSError as e:
        print(f"{module}: cannot read {args[0]}: {e.strerror or e}", file=sys.stderr)
        return 1
    except json.JSONDecodeError as e:
        print(f"{module}: {args[0]} is not JSON: {e}", file=sys.stderr)
        return 1
    print(summary(doc), end="")
    return 0


# ----------------------------------------------------------------------------- one run

#: Units by the suffix of a figure's name; figures without one are counts.
UNITS = (("_us", "µs"), ("_ms", "ms"), ("_s", "s"), ("_mbps", "Mb/s"), ("_share", "share"), ("_ratio", "share"))
COUNT = "count"
#: Entries of a run that are its inputs or long series, not figures to list.
NOT_LISTED = ("params",)


def is_number(v: Any) -> bool:
    """Whether `v` is a figure's number (an int or float, not a bool)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def unit(name: str) -> str:
    """The unit of figure `name`, from its suffix."""
    for suffix, u in UNITS:
        if name.endswith(suffix):
            return u
    return COUNT


def number(v: Any) -> str:
    """A figure's value as the table prints it (six significant digits; – for none)."""
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _entry(v: Any) -> str:
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    if len(text) <= 60:
        return text
    n = len(v) if isinstance(v, (list, dict)) else len(text)
    return f"({n} entries, in the JSON)"


def figure_table(title: str, figures: Mapping[str, Any]) -> Table:
    """The run's figures, one per row with its unit, then its other entries (modes,
    short lists; long ones are counted)."""
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    t.add_column("figure", no_wrap=True)
    t.add_column("value", justify="right", no_wrap=True)
    t.add_column("unit", no_wrap=True)
    for k, v in figures.items():
        if k not in NOT_LISTED and k != "notes" and (is_number(v) or v is None):
            t.add_row(k, number(v), unit(k))
    for k, v in figures.items():
        if k not in NOT_LISTED and k != "notes" and not (is_number(v) or v is None):
            t.add_row(k, _entry(v), "")
    return t


def notes(figures: Mapping[str, Any]) -> list[str]:
    """The run's notes, if it has any."""
    ns = figures.get("notes")
    if isinstance(ns, str):
        return [ns]
    return [str(n) for n in ns] if isinstance(ns, list) else []


def plot_name(experiment: str, seed: int) -> str:
    """The file name of a run's plot."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", f"{experiment}-seed{seed}") + ".png"


def plot_run(title: str, figures: Mapping[str, Any], path: Path) -> None:
    """Draws the run's figures into `path` (PNG): one panel of horizontal bars per unit,
    the value written beside each bar. Drawn on matplotlib's Agg canvas (no display)."""
    from matplotlib.figure import Figure  # imported here: the experiments do not need it

    groups: dict[str, list[tuple[str, float]]] = {}
    for k, v in figures.items():
        if k not in NOT_LISTED and is_number(v):
            groups.setdefault(unit(k), []).append((k, float(v)))
    if not groups:
        raise ValueError(f"{title}: the run has no figures to plot")
    rows = sum(len(g) for g in groups.values())
    f = Figure(figsize=(8, 1.2 + 0.32 * rows + 0.5 * len(groups)), layout="constrained")
    axes = f.subplots(len(groups), 1, squeeze=False, height_ratios=[len(g) + 1 for g in groups.values()])
    for ax, (u, items) in zip(axes[:, 0], groups.items()):
        labels = [k for k, _ in items]
        values = [v for _, v in items]
        bars = ax.barh(range(len(items)), values, color="tab:blue")
        ax.set_yticks(range(len(items)), labels, fontsize=8)
        ax.invert_yaxis()
        ax.bar_label(bars, labels=[number(v) for v in values], fontsize=7, padding=2)
        ax.set_xlabel(u)
        ax.margins(x=0.15)
        if min(values) >= 0:
            ax.set_xlim(left=0)
        ax.grid(axis="x", alpha=0.3)
    f.suptitle(title, fontsize=10)
    path.parent.mkdir(parents=True, exist_ok=True)
    f.savefig(path, dpi=100)
