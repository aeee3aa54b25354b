"""``sdmac experiment``: published experiments reproduced on the SDMAC API.

``sdmac experiment --list`` names every experiment of :mod:`sdmac.experiments`;
``sdmac experiment NAME --param KEY=VALUE --seed S --out DIR`` runs one, prints its
figures as a table and writes them as JSON with a plot per run.

``sdmac experiment rtwlan`` runs RT-WLAN's timed-transmission experiment on the
emulated medium (:mod:`sdmac.experiments.rtwlan`) over a grid of modes, spacings and
replier counts, prints a table per run and a summary, and writes JSON and a plot per run.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import click
import tomllib
from rich.console import Console

from . import experiments
from .cli_bench import CountProgress
from .experiments import report, rtwlan, rtwlan_report

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
U63_MAX = 2**63 - 1
#: Set-up and drain of each run on top of packets × spacing (seconds, rough).
RUN_OVERHEAD_S = 0.4
#: rtwlan's parameters that its options give as comma-separated lists (a grid).
RTWLAN_AXES = ("spacing_ms", "repliers", "packets", "mode", "clock")


def _first_line(module: ModuleType) -> str:
    return (module.__doc__ or "").strip().splitlines()[0] if module.__doc__ else ""


def parse_param(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` as a key and a value: VALUE read as a TOML value (``0.1``, ``24``,
    ``[20, 10]``, ``true``, ``"two"``), or else kept as the text (``two``)."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key.isidentifier():
        raise click.BadParameter(f"{text!r} is not KEY=VALUE", param_hint="--param")
    value = value.strip()
    try:
        return key, tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        return key, value


def _params(items: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        k, v = parse_param(item)
        if k in out:
            raise click.BadParameter(f"{k} is given twice", param_hint="--param")
        out[k] = v
    return out


def _console() -> Console:
    console = Console(highlight=False, soft_wrap=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(highlight=False, soft_wrap=False, width=160)
    return console


def _make_dir(out_dir: Path) -> None:
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise click.ClickException(f"cannot create {out_dir}: {e.strerror or e}") from None


def _write_json(path: Path, doc: dict[str, Any]) -> None:
    try:
        path.write_text(json.dumps(doc, indent=1) + "\n")
    except OSError as e:
        raise click.ClickException(f"cannot write {path}: {e.strerror or e}") from None


class ExperimentGroup(click.Group):
    """The experiments as subcommands: rtwlan's own command, and for every other
    experiment module one made on demand (``--param``, ``--seed``, ``--out``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return experiments.names()

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        if cmd_name not in experiments.names():
            return None
        return _generic_command(cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0]
        if self.get_command(ctx, name) is None and not name.startswith("-") and not ctx.resilient_parsing:
            raise click.UsageError(
                f"unknown experiment {name!r}; the experiments are: {', '.join(experiments.names())}", ctx
            )
        return super().resolve_command(ctx, args)


@click.group(cls=ExperimentGroup, context_settings=CONTEXT_SETTINGS, invoke_without_command=True)
@click.option("--list", "list_", is_flag=True, help="Name every experiment, with its first line, and exit.")
@click.pass_context
def experiment(ctx: click.Context, list_: bool) -> None:
    """Published experiments reproduced on the SDMAC API (on the emulated medium).

    Every experiment runs as NAME --param KEY=VALUE ... --seed S --out DIR; --list
    names them, NAME --help gives an experiment's parameters and their defaults."""
    if list_:
        for name in experiments.names():
            click.echo(f"{name:<18} {_first_line(experiments.load(name))}")
        ctx.exit(0)
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


def _defaults_help(module: ModuleType) -> str:
    defaults = getattr(module, "DEFAULTS", None)
    if not isinstance(defaults, dict):
        return ""
    return "\n\nParameters (KEY=default): " + ", ".join(f"{k}={json.dumps(v)}" for k, v in defaults.items()) + "."


def _generic_command(name: str) -> click.Command:
    module = experiments.load(name)

    def callback(params: tuple[str, ...], clock: str | None, seed: int, out_dir: Path | None, quiet: bool) -> None:
        given = _params(params)
        if clock is not None:
            given.setdefault("clock", clock)
        run_one(name, module, given, seed, out_dir, quiet)

    return click.Command(
        name,
        context_settings=CONTEXT_SETTINGS,
        callback=callback,
        params=[
            click.Option(["--param", "-p", "params"], multiple=True, metavar="KEY=VALUE",
                         help="Set a parameter (repeatable); VALUE is a TOML value or a bare word."),
            click.Option(["--clock"], type=click.Choice(["wall", "virtual"]), default=None,
                         help="emu's clock, for an experiment that has a clock parameter (as -p clock=...)."),
            click.Option(["--seed"], default=1, show_default=True, type=click.IntRange(0, U63_MAX),
                         help="Seed of the run's random draws."),
            click.Option(["--out", "out_dir"], type=click.Path(file_okay=False, path_type=Path),
                         help=f"Write {name}.json and the run's plot (PNG) into DIR."),
            click.Option(["-q", "--quiet"], is_flag=True, help="No table."),
        ],
        help=(module.__doc__ or name).strip() + _defaults_help(module),
        short_help=_first_line(module),
    )


def run_one(name: str, module: ModuleType, params: dict[str, Any], seed: int, out_dir: Path | None, quiet: bool) -> None:
    """Runs experiment `name` once: checks the parameters before anything runs, prints
    the figures, writes NAME.json and the plot into `out_dir`."""
    try:
        checked = module.check_params(params)
    except ValueError as e:
        raise click.ClickException(f"{e}{_known(module, str(e))}") from None
    if out_dir is not None:
        _make_dir(out_dir)
    err = Console(stderr=True, highlight=False)
    if not quiet:
        err.print(f"sdmac experiment {name}: one run on emu, seed {seed}")
    try:
        figures = module.run(params, seed)
    except (ValueError, RuntimeError) as e:
        raise click.ClickException(str(e)) from None
    title = f"{name}, seed {seed}: " + ", ".join(f"{k} = {v}" for k, v in params.items()) if params else f"{name}, seed {seed}"
    doc: dict[str, Any] = {"experiment": name, "seed": seed, "params": checked, "runs": [figures]}
    if out_dir is not None:
        path = out_dir / report.plot_name(name, seed)
        report.plot_run(title, figures, path)
        figures["plot"] = str(path)
    if not quiet:
        console = _console()
        console.print(report.figure_table(title, {k: v for k, v in figures.items() if k != "plot"}))
        for line in report.notes(figures):
            console.print(f"note: {line}")
        if "plot" in figures:
            console.print(f"plot: {figures['plot']}", soft_wrap=True)
    if out_dir is not None:
        path = out_dir / f"{name}.json"
        _write_json(path, doc)
        if not quiet:
            _console().print(f"JSON: {path}", soft_wrap=True)


def _known(module: ModuleType, message: str) -> str:
    defaults = getattr(module, "DEFAULTS", None)
    if not isinstance(defaults, dict) or "known:" in message:
        return ""
    return f" (parameters: {', '.join(sorted(defaults))})"


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
@click.option("--clock", default="wall", show_default=True, type=click.Choice(["wall", "virtual"]),
              help="emu's clock: wall (paced to CLOCK_MONOTONIC) or virtual (time moves only when every "
                   "station waits, so the host cannot delay a frame; mode tdma only).")
@click.option("--seed", default=1, show_default=True, type=click.IntRange(0, U63_MAX), help="Seed of the medium's random draws.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write rtwlan.json and one CCDF plot (PNG) per run into DIR.")
@click.option("--param", "-p", "params", multiple=True, metavar="KEY=VALUE",
              help=f"Set one of {', '.join(RTWLAN_AXES)} to one value (repeatable); overrides its option.")
@click.option("-q", "--quiet", is_flag=True, help="No progress and no tables.")
def rtwlan_cmd(
    spacing: str, repliers: str, packets: int, mode: str, clock: str, seed: int, out_dir: Path | None,
    params: tuple[str, ...], quiet: bool
) -> None:
    """RT-WLAN's experiment on emu: an originator broadcasts PACKETS frames of 74 octets at
    2 Mb/s (802.11b, long preamble, no ACK, no retry, no RTS/CTS) every SPACING ms; one or
    two hosts answer each with an amended broadcast. Prints Tqueued, time to the card,
    on-air latency (Tev_tx), total send latency, RTT and the drops per run, and whether the
    on-air latency lies within the first-attempt bounds computed from the 802.11b formulas.
    MODE: dcf answers at once; policy spreads and repeats the replies; tdma sends each
    frame in its slot and refuses, before sending, spacings where the slots do not fit.

    It runs on the wall clock by default: a run takes about PACKETS × SPACING plus half a
    second, so the default grid (1000 packets; 20, 5, 3, 1.5 ms; 1 and 2 repliers) takes
    about a minute, and a 20 ms run alone 20 s. With --clock virtual (mode tdma) the
    medium's time moves only when every station waits: no host stall reaches the air,
    the same seed gives the same figures, and a run takes as long as its work.
    """
    spacings = _floats(spacing, "--spacing")
    counts = _ints(repliers, "--repliers")
    modes = [m.strip() for m in mode.split(",")]
    given = _params(params)
    unknown = sorted(set(given) - set(RTWLAN_AXES))
    if unknown:
        raise click.BadParameter(
            f"rtwlan has no parameter {', '.join(unknown)} (its parameters: {', '.join(RTWLAN_AXES)})", param_hint="--param"
        )
    spacings = [given["spacing_ms"]] if "spacing_ms" in given else spacings
    counts = [given["repliers"]] if "repliers" in given else counts
    modes = [given["mode"]] if "mode" in given else modes
    packets = given.get("packets", packets)
    clock = given.get("clock", clock)
    for m in modes:
        if m not in rtwlan.MODES:
            raise click.BadParameter(f"{m!r} is not a mode (one of {', '.join(rtwlan.MODES)})", param_hint="--mode")
    grid: list[dict[str, Any]] = [
        {"spacing_ms": s, "repliers": r, "packets": packets, "mode": m, "clock": clock}
        for m in modes for r in counts for s in spacings
    ]
    for point in grid:
        try:
            rtwlan.check_params(point)
        except ValueError as e:
            raise click.ClickException(str(e)) from None
    console = _console()
    err = Console(stderr=True, highlight=False)
    if out_dir is not None:
        _make_dir(out_dir)
    if not quiet:
        est = sum(packets * p["spacing_ms"] / 1000.0 + RUN_OVERHEAD_S for p in grid)
        err.print(f"sdmac experiment rtwlan: {len(grid)} run(s) on emu, {packets} packets each (about {est:.0f} s on the wall clock)")
    results = []
    for i, point in enumerate(grid, 1):
        label = f"run {i}/{len(grid)}: {point['mode']}, {point['spacing_ms']:g} ms, {point['repliers']} replier(s)"
        with CountProgress(packets, quiet, label) as progress:
            try:
                result = rtwlan.run(point, seed, progress=progress)
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
                console.print(f"plot: {result['plot']}\n", soft_wrap=True)
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
        _write_json(path, doc)
        if not quiet:
            console.print(f"JSON: {path}", soft_wrap=True)
