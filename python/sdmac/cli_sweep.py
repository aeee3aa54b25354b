"""``sdmac sweep SPEC.toml``: a scenario or an experiment over a grid × seeds.

Runs every (grid point, seed) on a local process pool (``--jobs``, default the CPU
count) or on Ray (``--ray ADDRESS``, ``--ray local``), with progress on stderr; writes
``DIR/sweep.json`` (per grid point and figure: n, mean, sd, confidence interval, min,
median, max; and every run's figures) and a plot per figure under ``DIR/plots``. A run
that fails is reported with its grid point and seed, the others still run, and the exit
status is non-zero. The format of SPEC is in docs/sweep.md.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click
from rich import box
from rich.console import Console
from rich.table import Table

from .sweep import SpecError, load_spec, run_sweep
from .sweep.plots import plot_all
from .sweep.progress import SweepProgress
from .sweep.spec import point_label

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
TABLE_FIGURES = 3


def _stdout_console() -> Console:
    console = Console(soft_wrap=False, highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(soft_wrap=False, highlight=False, width=160)
    return console


def _mean_ci(s: dict[str, Any]) -> str:
    if s["mean"] is None:
        return "–"
    if s["ci_half_width"] is None:
        return f"{s['mean']:.4g}"
    return f"{s['mean']:.4g} ± {s['ci_half_width']:.2g}"


def print_summary(doc: dict[str, Any], console: Console) -> None:
    """A table of the first figures per grid point (mean ± half the interval), a column
    per grid parameter."""
    names = doc["figures"][:TABLE_FIGURES]
    level = round(100 * doc["confidence"], 3)
    t = Table(
        title=f"{doc['target']}: mean ± {level:g} % CI half-width over {len(doc['seeds'])} seeds",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    keys = list(doc["grid"])
    for k in keys:
        t.add_column(k, overflow="fold")
    t.add_column("runs", justify="right")
    for n in names:
        t.add_column(n, justify="right", overflow="fold")
    for p in doc["points"]:
        values = [json.dumps(p["params"][k]) for k in keys]
        t.add_row(*values, str(p["runs"]), *(_mean_ci(p["figures"][n]) for n in names))
    console.print(t)
    if len(doc["figures"]) > len(names):
        console.print(f"({len(doc['figures'])} figures in all; the others are in the JSON and the plots)")


@click.command("sweep", context_settings=CONTEXT_SETTINGS)
@click.argument("spec_path", metavar="SPEC", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), help="Write sweep.json and plots/ here (default: sweep-SPECNAME).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: the CPU count; 1 runs in this process).")
@click.option("--ray", "ray_address", metavar="ADDRESS", help='Run on the Ray cluster at ADDRESS instead ("local" starts a local instance).')
@click.option("--no-plots", is_flag=True, help="Write the JSON only.")
@click.option("-q", "--quiet", is_flag=True, help="No progress and no table (failures still go to stderr).")
def sweep(spec_path: Path, out_dir: Path | None, jobs: int | None, ray_address: str | None, no_plots: bool, quiet: bool) -> None:
    """Run the scenario or experiment of SPEC (TOML) over its grid and seeds."""
    try:
        spec = load_spec(spec_path)
    except SpecError as e:
        raise click.ClickException(str(e)) from None
    out_dir = out_dir or Path(f"sweep-{spec_path.stem}")
    points = spec.points()
    total = len(points) * len(spec.seeds)
    label = f"{spec_path.name}: {len(points)} points × {len(spec.seeds)} seeds"
    with SweepProgress(total, points, label, quiet) as progress:
        try:
            doc = run_sweep(spec, jobs=jobs, ray=ray_address, on_done=progress)
        except SpecError as e:
            raise click.ClickException(str(e)) from None
        except RuntimeError as e:
            raise click.ClickException(str(e)) from None

    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "sweep.json").write_text(json.dumps(doc, indent=2) + "\n")
        plots = [] if no_plots else plot_all(doc, out_dir / "plots")
    except OSError as e:
        raise click.ClickException(f"cannot write into {out_dir}: {e.strerror or e}") from None

    if not quiet:
        print_summary(doc, _stdout_console())
        where = f"; {len(plots)} plots in {out_dir / 'plots'}" if plots else ""
        click.echo(f"wrote {out_dir / 'sweep.json'}{where}", err=True)

    problems = []
    if doc["failures"]:
        lines = [f"  grid point {f['point']} ({point_label(f['params'])}), seed {f['seed']}: {f['error']}" for f in doc["failures"]]
        problems.append(f"{len(doc['failures'])} of {total} runs failed:\n" + "\n".join(lines))
    if doc["unmatched_figure_patterns"]:
        pats = ", ".join(repr(p) for p in doc["unmatched_figure_patterns"])
        problems.append(f"{spec.where(None, 'figures')}: {pats} matched no figure of any run")
    if problems:
        raise click.ClickException("\n".join(problems))
