"""``sdmac experiment``: published experiments reproduced on the SDMAC API.

``sdmac experiment rtwlan`` runs RT-WLAN's timed-transmission experiment on the
emulated medium (:mod:`sdmac.experiments.rtwlan`) over a grid of modes, spacings and
replier counts, prints a table per run and a summary, and writes JSON and a plot per run.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from .cli_bench import CountProgress
from .experiments import rtwlan, rtwlan_report

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
U63_MAX = 2**63 - 1
#: Set-up and drain of each run on top of packets × spacing (seconds, rough).
RUN_OVERHEAD_S = 0.4


@click.group(context_settings=CONTEXT_SETTINGS)
def experiment() -> None:
    """Published experiments reproduced on the SDMAC API (on the emulated medium)."""


def _floats(text: str, option: str) -> list[float]:
    out = []
    for part in text.split(","):
        part = part.strip()
        try:
            v = float(part)
        except ValueError:
            raise click.BadParameter(f"{part!r} is not a number (give a comma-separated list)", param_hint=option) from None
        if not math.isfinite(v):
            raise click.BadParameter(f"{part!r} is not a finite number", param_hint=option)
        out.append(v)
    return out


def _ints(text: str, option: str) -> list[int]:
    out = []
    for part in text.split(","):
        part = part.strip()
        try:
            out.append(int(part))
        except ValueError:
            raise click.BadParameter(f"{part!r} is not an integer (give a comma-separated list)", param_hint=option) from None
    return out


@experiment.command("rtwlan", context_settings=CONTEXT_SETTINGS)
@click.option("--spacing", default="20,5,3,1.5", show_default=True, help="Request spacings (ms), comma-separated.")
@click.option("--repliers", default="1,2", show_default=True, help="Numbers of replying hosts (1 or 2), comma-separated.")
@click.option("--packets", default=rtwlan.DEFAULT_PACKETS, show_default=True, type=click.IntRange(1, rtwlan.MAX_PACKETS),
              help="Requests per run.")
@click.option("--mode", default="dcf", show_default=True,
              help="Modes, comma-separated: dcf (plain DCF broadcast), policy (replies deferred and repeated "
                   "by a software retransmission policy), tdma (slots in rounds equal to the spacing).")
@click.option("--seed", default=1, show_default=True, type=click.IntRange(0, U63_MAX), help="Seed of the medium's random draws.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write rtwlan.json and one CCDF plot (PNG) per run into DIR.")
@click.option("-q", "--quiet", is_flag=True, help="No progress and no tables.")
def rtwlan_cmd(spacing: str, repliers: str, packets: int, mode: str, seed: int, out_dir: Path | None, quiet: bool) -> None:
    """RT-WLAN's experiment on emu: an originator broadcasts PACKETS frames of 74 octets at
    2 Mb/s (802.11b, long preamble, no ACK, no retry, no RTS/CTS) every SPACING ms; one or
    two hosts answer each with an amended broadcast. Prints Tqueued, time to the card,
    on-air latency (Tev_tx), total send latency, RTT and the drops per run, and whether the
    on-air latency lies within the first-attempt bounds computed from the 802.11b formulas.
    MODE: dcf answers at once; policy spreads and repeats the replies; tdma sends each
    frame in its slot and refuses, before sending, spacings where the slots do not fit.

    It runs on the wall clock: a run takes about PACKETS × SPACING plus half a second,
    so the default grid (1000 packets; 20, 5, 3, 1.5 ms; 1 and 2 repliers) takes about a
    minute, and a 20 ms run alone 20 s.
    """
    spacings = _floats(spacing, "--spacing")
    counts = _ints(repliers, "--repliers")
    modes = [m.strip() for m in mode.split(",")]
    for m in modes:
        if m not in rtwlan.MODES:
            raise click.BadParameter(f"{m!r} is not a mode (one of {', '.join(rtwlan.MODES)})", param_hint="--mode")
    grid: list[dict[str, Any]] = [
        {"spacing_ms": s, "repliers": r, "packets": packets, "mode": m} for m in modes for r in counts for s in spacings
    ]
    for params in grid:
        try:
            rtwlan.check_params(params)
        except ValueError as e:
            raise click.ClickException(str(e)) from None
    console = Console(highlight=False, soft_wrap=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(highlight=False, soft_wrap=False, width=160)
    err = Console(stderr=True, highlight=False)
    if out_dir is not None:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise click.ClickException(f"cannot create {out_dir}: {e.strerror or e}") from None
    if not quiet:
        est = sum(packets * p["spacing_ms"] / 1000.0 + RUN_OVERHEAD_S for p in grid)
        err.print(f"sdmac experiment rtwlan: {len(grid)} run(s) on emu, {packets} packets each (about {est:.0f} s on the wall clock)")
    results = []
    for i, params in enumerate(grid, 1):
        label = f"run {i}/{len(grid)}: {params['mode']}, {params['spacing_ms']:g} ms, {params['repliers']} replier(s)"
        with CountProgress(packets, quiet, label) as progress:
            try:
                result = rtwlan.run(params, seed, progress=progress)
            except (ValueError, RuntimeError) as e:
                raise click.ClickException(str(e)) from None
        results.append(result)
        if out_dir is not None and not result.get("refused"):
            path = out_dir / rtwlan_report.plot_name(result)
            rtwlan_report.plot_run(result, path)
            result["plot"] = str(path)
        if not quiet:
            rtwlan_report.print_run(result, console)
            if "plot" in result:
                console.print(f"plot: {result['plot']}\n")
    if not quiet and len(results) > 1:
        console.print(rtwlan_report.summary_table(results))
    if not quiet:
        lines = rtwlan_report.refusals(results)
        if lines:
            console.print("spacings where TDMA's slots cannot fit (refused before sending):")
            for line in lines:
                console.print(f"  {line}")
    if out_dir is not None:
        path = out_dir / "rtwlan.json"
        doc = {"experiment": "rtwlan", "seed": seed, "runs": results}
        try:
            path.write_text(json.dumps(doc, indent=1) + "\n")
        except OSError as e:
            raise click.ClickException(f"cannot write {path}: {e.strerror or e}") from None
        if not quiet:
            console.print(f"JSON: {path}")
