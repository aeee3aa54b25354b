"""Reports of confirmed one-shot transmissions, after the SDMAC paper's Table V.

Every latency component (µs) is summarized per outcome set: ``A`` (acked), ``LD``
(DATA lost) and ``LA`` (DATA delivered, ACK lost). Two inputs are handled:

* a **result** dict, the JSON contract written by the measurement runs::

    {"config": {...},
     "sets": {"A": {"count": n,
                    "components": {"Tsw_req": {"mean": .., "sd": .., "min": .., "p99": ..,
                                               "p99.9": .., "p99.99": .., "max": ..,
                                               "ci95": [lo, hi]},
                                   "Thw": {...}, ...}},
              "LD": {...}, "LA": {...}}}

  (a set with ``count`` 0 has ``"components": {}``; numbers may be ``null``);
* per-sample **columns**: a dict mapping ``"id"`` to a list of ints, ``"set"`` to a
  list of set names and each component name to a list of floats (µs), plus any
  extra columns (``"attempts"``, ``"cause"``, ...), all of the same length.

:func:`render_table` prints the tables with rich, :func:`write_json` and
:func:`write_csv` save a run, :func:`load_samples_csv` reads the CSV back, and
:func:`plot_ccdf` draws the empirical CCDF of the components per set.

This module is pure Python: it needs neither the compiled ``sdmac._core`` nor any
other part of the package.
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Union

from rich.console import Console
from rich.table import Table

PathLike = Union[str, "os.PathLike[str]"]

#: Outcome sets, in report order, with their descriptions.
SETS: tuple[str, ...] = ("A", "LD", "LA")
SET_DESCRIPTIONS: dict[str, str] = {
    "A": "acked",
    "LD": "DATA lost",
    "LA": "DATA delivered, ACK lost",
}
#: Latency components (µs), in report order.
COMPONENTS: tuple[str, ...] = ("Tsw_req", "Thw", "Tca", "Ttoa", "Tsw_con", "TSDMAC", "Tpath")
#: Statistics of a component, in column order (keys of the result contract).
STATS: tuple[str, ...] = ("mean", "sd", "min", "p99", "p99.9", "p99.99", "max")
#: Components drawn by :func:`plot_ccdf` by default.
CCDF_COMPONENTS: tuple[str, ...] = ("Tsw_req", "Tsw_con", "TSDMAC", "Tpath", "Ttoa")

CI_HEADER = "95 % CI of mean"
MISSING = "-"


# --------------------------------------------------------------------------- tables


def _fmt(v: Any, digits: int = 2) -> str:
    """A number with `digits` decimals; "-" for null, NaN, infinities and non-numbers."""
    if v is None or isinstance(v, bool) or not isinstance(v, (int, float)):
        return MISSING
    if not math.isfinite(v):
        return MISSING
    return f"{v:.{digits}f}"


def _fmt_ci(ci: Any, digits: int = 2) -> str:
    if not isinstance(ci, (list, tuple)) or len(ci) != 2:
        return MISSING
    lo, hi = (_fmt(x, digits) for x in ci)
    if MISSING in (lo, hi):
        return MISSING
    return f"[{lo}, {hi}]"


def set_title(name: str, count: int) -> str:
    """``"A — acked (n = 123)"``; a set without a known description is just named."""
    desc = SET_DESCRIPTIONS.get(name)
    return f"{name} — {desc} (n = {count})" if desc else f"{name} (n = {count})"


def _ordered_sets(sets: Mapping[str, Any]) -> list[str]:
    """A, LD, LA first, then any other set in its order of appearance."""
    return [s for s in SETS if s in sets] + [s for s in sets if s not in SETS]


def _ordered_components(names: Iterable[str]) -> list[str]:
    """All of COMPONENTS (a missing one shows as a row of "-"), then the others."""
    return list(COMPONENTS) + [c for c in names if c not in COMPONENTS]


def set_table(name: str, entry: Mapping[str, Any], digits: int = 2) -> Table:
    """The rich table of one outcome set of a result (see the module's contract)."""
    components: Mapping[str, Any] = entry.get("components") or {}
    table = Table(title=set_title(name, int(entry.get("count") or 0)), caption="times in µs", title_justify="left")
    table.add_column("component", no_wrap=True)
    for stat in STATS:
        table.add_column(stat, justify="right", no_wrap=True)
    table.add_column(CI_HEADER, justify="right", no_wrap=True)
    for comp in _ordered_components(components):
        stats = components.get(comp) or {}
        table.add_row(comp, *(_fmt(stats.get(s), digits) for s in STATS), _fmt_ci(stats.get("ci95"), digits))
    return table


def _print_unsqueezed(console: Console, table: Table) -> None:
    """Prints `table`; on a non-terminal (a pipe, a file, a recording) narrower than
    the table, at its natural width instead of squeezing or truncating it."""
    if not console.is_terminal:
        natural = console.measure(table, options=console.options.update_width(10_000)).maximum
        if natural > console.width:
            table.width = natural
            console.print(table, crop=False, overflow="ignore")
            return
    console.print(table)


def render_table(result: Mapping[str, Any], console: Console, digits: int = 2) -> None:
    """Prints one table per non-empty outcome set of `result` (A, LD, LA, then others).

    Rows are the components (Tsw_req, Thw, Tca, Ttoa, Tsw_con, TSDMAC, Tpath, then any
    other one present), columns the statistics with `digits` decimals ("-" for null)
    and the 95 % confidence interval of the mean. A set with count 0 or without
    components is skipped.
    """
    sets: Mapping[str, Any] = result.get("sets") or {}
    printed = 0
    for name in _ordered_sets(sets):
        entry = sets[name] or {}
        if not entry.get("count") or not entry.get("components"):
            continue
        if printed:
            console.print()
        _print_unsqueezed(console, set_table(name, entry, digits))
        printed += 1
    if not printed:
        console.print("no transmission in any outcome set")


# --------------------------------------------------------------------------- files


def write_json(result: Mapping[str, Any], path: PathLike) -> None:
    """Writes `result` as JSON (indent 2, keys in insertion order, non-ASCII kept).

    NaN and infinities become ``null`` so that the file is strict JSON.
    """
    Path(path).write_text(json.dumps(_strict(result), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _strict(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, Mapping):
        return {k: _strict(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_strict(x) for x in v]
    return v


def sample_columns(samples: Mapping[str, Sequence[Any]]) -> list[str]:
    """Column order of the CSV: id, set, the components in report order, then the
    other columns in their order in `samples`."""
    first = [c for c in ("id", "set") if c in samples]
    comps = [c for c in COMPONENTS if c in samples]
    return first + comps + [c for c in samples if c not in first and c not in comps]


def _check_lengths(samples: Mapping[str, Sequence[Any]], columns: Sequence[str]) -> int:
    lengths = {c: len(samples[c]) for c in columns}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"sample columns differ in length: {lengths}")
    return next(iter(lengths.values()), 0)


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)  # shortest round-trip form; "nan", "inf"
    return str(v)


def write_csv(samples: Mapping[str, Sequence[Any]], path: PathLike) -> None:
    """Writes the per-sample columns as CSV, one row per sample, header first (see
    :func:`sample_columns` for the column order). Floats are written so that they
    read back exactly; ``None`` is an empty cell."""
    columns = sample_columns(samples)
    n = _check_lengths(samples, columns)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(columns)
        cols = [samples[c] for c in columns]
        for i in range(n):
            w.writerow([_cell(col[i]) for col in cols])


def _parse_column(name: str, cells: list[str]) -> list[Any]:
    """Cells of one CSV column as Python values: empty -> None; then, judged on the
    non-empty cells, ints, floats, booleans ("True"/"False") or strings. The set
    column stays text; component columns are always floats."""
    if name == "set":
        return list(cells)
    present = [c for c in cells if c != ""]

    def convert(kind: Any) -> list[Any] | None:
        try:
            return [None if c == "" else kind(c) for c in cells]
        except ValueError:
            return None

    if name in COMPONENTS:
        out = convert(float)
        if out is None:
            raise ValueError(f"column {name!r} holds a value that is not a number")
        return out
    if present and all(c in ("True", "False") for c in present):
        return [None if c == "" else c == "True" for c in cells]
    for kind in (int, float):
        out = convert(kind)
        if out is not None:
            return out
    return list(cells)


def load_samples_csv(path: PathLike) -> dict[str, list[Any]]:
    """Reads a CSV written by :func:`write_csv` back into per-sample columns (the
    inverse of :func:`write_csv`, columns in file order)."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise ValueError(f"{path}: empty file, no header")
    header, body = rows[0], rows[1:]
    if len(set(header)) != len(header):
        raise ValueError(f"{path}: repeated column names in {header}")
    for lineno, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise ValueError(f"{path}:{lineno}: {len(row)} cells, the header has {len(header)}")
    return {name: _parse_column(name, [row[j] for row in body]) for j, name in enumerate(header)}


# --------------------------------------------------------------------------- CCDF


def ccdf_points(values: Iterable[float]) -> tuple[list[float], list[float]]:
    """The empirical CCDF P(X > x) of the finite `values` as the vertices of a step
    line drawn with ``where="post"``: it starts at (min, 1), drops at every distinct
    value and ends at the max; the final drop to 0 (invisible on a log axis) is left
    out. Empty input gives two empty lists."""
    xs = sorted(v for v in values if v is not None and math.isfinite(v))
    n = len(xs)
    if n == 0:
        return [], []
    px: list[float] = [xs[0]]
    py: list[float] = [1.0]
    i = 0
    while i < n:
        j = i
        while j < n and xs[j] == xs[i]:
            j += 1
        above = (n - j) / n  # P(X > xs[i])
        if above > 0:
            px.append(xs[i])
            py.append(above)
        else:
            px.append(xs[i])  # the max: hold the last level up to it
            py.append(py[-1])
        i = j
    return px, py


def _values_by_set(samples: Mapping[str, Sequence[Any]], component: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {s: [] for s in SETS}
    sets = samples.get("set") or []
    col = samples.get(component) or []
    for s, v in zip(sets, col):
        if s in out and v is not None and isinstance(v, (int, float)) and math.isfinite(v):
            out[s].append(float(v))
    return out


def plot_ccdf(
    samples: Mapping[str, Sequence[Any]],
    path: PathLike,
    components: Sequence[str] = CCDF_COMPONENTS,
    dpi: int = 100,
) -> None:
    """Saves as PNG one subplot per component with, for each outcome set (A, LD, LA)
    that has samples of it, the empirical CCDF P(X > x) as a step line on a log y
    axis (x in µs, on a log axis too when the values are positive and span more
    than a factor of 50). The legend gives n per set; empty sets are left out.

    Rendered with matplotlib's Agg canvas through :class:`matplotlib.figure.Figure`
    (no pyplot), so it works without a display and leaves the caller's pyplot
    backend and figures alone.
    """
    from matplotlib.figure import Figure  # imported here: the rest of the module does not need it

    components = list(components)
    if not components:
        raise ValueError("no component to plot")
    ncols = min(3, len(components))
    nrows = math.ceil(len(components) / ncols)
    fig = Figure(figsize=(5.0 * ncols, 3.8 * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    colors = {"A": "tab:blue", "LD": "tab:red", "LA": "tab:orange"}
    for k, comp in enumerate(components):
        ax = axes[k // ncols][k % ncols]
        by_set = _values_by_set(samples, comp)
        smallest = 1.0
        everything = [v for s in SETS for v in by_set[s]]
        positive = [v for v in everything if v > 0]
        # Software latencies span decades (sub-µs to ms stalls): a log x axis shows
        # both the body and the tail; narrow ranges (e.g. Ttoa) stay linear.
        log_x = len(positive) == len(everything) and bool(positive) and max(positive) / min(positive) > 50
        for s in SETS:
            vals = by_set[s]
            if not vals:
                continue
            px, py = ccdf_points(vals)
            label = f"{s} (n = {len(vals)})"
            if len(px) > 2:
                ax.step(px, py, where="post", color=colors[s], label=label, linewidth=1.2)
            else:  # a single distinct value: a point at P = 1
                ax.plot(px[:1], py[:1], "o", color=colors[s], label=label)
            smallest = min(smallest, 1.0 / len(vals))
        ax.set_title(comp)
        ax.set_xlabel(f"{comp} (µs)")
        ax.set_ylabel("P(X > x)")
        ax.set_yscale("log")
        if log_x:
            ax.set_xscale("log")
        ax.set_ylim(smallest / 2.0, 1.5)
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize="small")
        else:
            ax.text(0.5, 0.5, "no samples", transform=ax.transAxes, ha="center", va="center")
    for k in range(len(components), nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    fig.suptitle("Empirical CCDF of the latency components per outcome set")
    fig.savefig(path, format="png", dpi=dpi)


# --------------------------------------------------------------------------- command line


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m sdmac.analysis.oneshot_report RESULT.json [--samples CSV] [--ccdf PNG]``."""
    import click

    @click.command(context_settings={"help_option_names": ["-h", "--help"]})
    @click.argument("result_json", type=click.Path(exists=True, dir_okay=False, path_type=Path))
    @click.option("--samples", "samples_csv", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                  help="Per-sample CSV (from write_csv) to draw the CCDF from.")
    @click.option("--ccdf", "ccdf_png", type=click.Path(dir_okay=False, path_type=Path),
                  help="Write the CCDF plot of the samples to this PNG.")
    def cli(result_json: Path, samples_csv: Path | None, ccdf_png: Path | None) -> None:
        """Prints the Table V report of a saved one-shot run."""
        console = Console(soft_wrap=False, highlight=False)
        render_table(json.loads(result_json.read_text(encoding="utf-8")), console)
        if ccdf_png is not None:
            if samples_csv is None:
                raise click.UsageError("--ccdf needs --samples")
            plot_ccdf(load_samples_csv(samples_csv), ccdf_png)
            Console(stderr=True, highlight=False).print(f"CCDF written to {ccdf_png}")

    cli.main(args=list(argv) if argv is not None else None, prog_name="oneshot_report")


if __name__ == "__main__":  # pragma: no cover
    main()
