"""The ``sdmac`` command line.

``sdmac sim SCENARIO`` runs a TOML scenario on the simulator and prints
per-station and per-medium tables; ``sdmac sim saturation`` sweeps the number of
saturated stations. Progress goes to stderr (a bar on a terminal, a plain line
at most every 2 s otherwise), tables to stdout, JSON to ``--json FILE``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from . import _core
from ._overrides import apply_overrides, unshift_error
from .analysis import bianchi

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
PLAIN_PROGRESS_EVERY_S = 2.0
U64_MAX = 2**64 - 1


# --------------------------------------------------------------------------- output


def _stdout_console() -> Console:
    console = Console(soft_wrap=False, highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        # Piped or captured: do not squeeze tables into 80 columns.
        console = Console(soft_wrap=False, highlight=False, width=160)
    return console


def _stderr_console() -> Console:
    return Console(stderr=True, highlight=False)


def _si(x: float) -> str:
    """1234567 -> '1.23 M'."""
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.2f} {unit}"
    return f"{x:.0f}"


def _num(v: Any, fmt: str = "{:.2f}") -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return fmt.format(v)
    return str(v)


class ProgressReporter:
    """The progress callback handed to the simulator.

    ``mode`` is ``"bar"`` (rich progress bar on a terminal), ``"plain"`` (a line on
    stderr at most every 2 s) or ``"off"``.
    """

    def __init__(self, label: str, quiet: bool, console: Console | None = None) -> None:
        self.console = console or _stderr_console()
        self.label = label
        if quiet:
            self.mode = "off"
        elif self.console.is_terminal:
            self.mode = "bar"
        else:
            self.mode = "plain"
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._start = 0.0
        self._last_plain = 0.0

    def __enter__(self) -> ProgressReporter:
        self._start = time.monotonic()
        self._last_plain = self._start
        if self.mode == "bar":
            self._progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                TaskProgressColumn(),
                TextColumn("{task.fields[sim]}/{task.fields[total_s]} sim s"),
                TextColumn("{task.fields[rate]} ev/s"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task(self.label, total=None, sim="0.00", total_s="?", rate="–")
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def __call__(self, sim_s: float, total_s: float, events: int) -> None:
        now = time.monotonic()
        elapsed = max(now - self._start, 1e-9)
        if self.mode == "bar" and self._progress is not None and self._task is not None:
            self._progress.update(
                self._task,
                completed=sim_s,
                total=total_s,
                sim=f"{sim_s:.2f}",
                total_s=f"{total_s:.2f}",
                rate=_si(events / elapsed),
            )
        elif self.mode == "plain" and now - self._last_plain >= PLAIN_PROGRESS_EVERY_S:
            self._last_plain = now
            pct = 100.0 * sim_s / total_s if total_s else 100.0
            print(
                f"sdmac: {self.label}: {sim_s:.2f}/{total_s:.2f} sim s ({pct:.0f} %), "
                f"{events} events, {_si(events / elapsed)} ev/s",
                file=sys.stderr,
                flush=True,
            )
        return None


def print_scenario_results(res: dict[str, Any], console: Console) -> None:
    title = res.get("scenario") or "scenario"
    # No vertical rules, so that the ten columns fit in 80.
    st = Table(title=f"{title}: stations", title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1), collapse_padding=True, pad_edge=False)
    for col in ("name", "address", "Mb/s", "sent", "lost", "coll.", "p50 µs", "p99 µs", "p99.9 µs", "max µs"):
        # Nothing is cut with an ellipsis, however narrow the terminal: an address keeps
        # its line, other cells fold onto the next.
        if col == "address":
            st.add_column(col, justify="left", no_wrap=True, min_width=17)
        else:
            st.add_column(col, justify="left" if col == "name" else "right", overflow="fold")
    for s in res.get("stations", []):
        d = s.get("delay_us") or {}
        st.add_row(
            str(s.get("name", "")),
            str(s.get("address", "")),
            _num(s.get("throughput_mbps"), "{:.3f}"),
            _num(s.get("sent")),
            _num(s.get("lost")),
            _num(s.get("collisions")),
            *(_num(d.get(k), "{:.1f}") for k in ("p50", "p99", "p99.9", "max")),
        )
    console.print(st)

    agg = res.get("aggregate", {})
    at = Table(title="aggregate", title_justify="left", show_header=False)
    at.add_column("what")
    at.add_column("value", justify="right")
    first = ("throughput_mbps", "sent", "acked", "lost", "dropped", "attempts", "collisions", "collision_probability")
    for key in [k for k in first if k in agg] + [k for k in agg if k not in first]:
        value = agg[key]
        if isinstance(value, dict):
            value = ", ".join(f"{k} {_num(v, '{:.1f}')}" for k, v in value.items())
        at.add_row(key, _num(value, "{:.4f}"))
    console.print(at)

    mediums = res.get("mediums", [])
    if mediums:
        mt = Table(title="mediums: utilization (fraction of time)", title_justify="left")
        for col in ("medium", "MHz", "busy", "BK", "BE", "VI", "VO", "beacons"):
            mt.add_column(col, justify="left" if col == "medium" else "right")
        for m in mediums:
            per_ac = m.get("utilization_per_ac") or {}
            mt.add_row(
                str(m.get("id", "")),
                _num(m.get("freq_mhz")),
                _num(m.get("utilization"), "{:.4f}"),
                *(_num(per_ac.get(ac), "{:.4f}") for ac in ("BK", "BE", "VI", "VO")),
                _num(m.get("beacon_utilization"), "{:.4f}"),
            )
        console.print(mt)

    rt = Table(title="run", title_justify="left", show_header=False)
    rt.add_column("what")
    rt.add_column("value", justify="right")
    rt.add_row("events", _num(res.get("events")))
    rt.add_row("wall seconds", _num(res.get("wall_seconds"), "{:.3f}"))
    rt.add_row("events per second", _si(res.get("events_per_second") or 0.0))
    rt.add_row("simulated s per wall s", _num(res.get("sim_seconds_per_wall_second"), "{:.1f}"))
    if res.get("stopped_early"):
        rt.add_row("stopped early", "yes")
    console.print(rt)


SATURATION_COLUMNS = (
    ("stations", 8),
    ("Mb/s", 9),
    ("Bianchi", 9),
    ("diff", 8),
    ("collision p", 11),
    ("Bianchi p", 9),
    ("events", 10),
    ("wall s", 8),
    ("sim s / wall s", 14),
)


def _saturation_title(params: dict[str, Any]) -> str:
    return (
        f"saturation: {params['standard']} at {params['rate']} Mb/s, {params['payload']} B payload, "
        f"{params['duration_s']:g} s per point, seed {params['seed']}"
    )


def _bianchi(r: dict[str, Any], params: dict[str, Any]) -> tuple[float | None, float | None]:
    """Bianchi's model for this point, from the timing the simulator used."""
    timing = params.get("timing")
    if not timing or not r.get("stations"):
        return None, None
    return bianchi.throughput_mbps(int(r["stations"]), bianchi.Timing.from_json(timing), int(params["payload"]))


def _saturation_row_table(r: dict[str, Any], header: bool, params: dict[str, Any] | None = None) -> Table:
    """One row of the sweep's table, printed as soon as its n is done; rows line up."""
    t = Table(show_header=header, box=None, pad_edge=False, header_style="bold")
    for col, width in SATURATION_COLUMNS:
        t.add_column(col, justify="right", width=width, no_wrap=True)
    model, model_p = _bianchi(r, params or {})
    thr = r.get("throughput_mbps")
    diff = None if model is None or thr is None else f"{(thr - model) / model * 100:+.2f}%"
    t.add_row(
        _num(r.get("stations")),
        _num(thr, "{:.3f}"),
        _num(model, "{:.3f}"),
        diff or "-",
        _num(r.get("collision_probability"), "{:.4f}"),
        _num(model_p, "{:.4f}"),
        _num(r.get("events")),
        _num(r.get("wall_seconds"), "{:.3f}"),
        _num(r.get("sim_seconds_per_wall_second"), "{:.1f}"),
    )
    return t


def _write_json(path: Path, text: str) -> None:
    try:
        path.write_text(text if text.endswith("\n") else text + "\n")
    except OSError as e:
        raise click.ClickException(f"cannot write {path}: {e.strerror or e}") from None


# --------------------------------------------------------------------------- commands


class SimGroup(click.Group):
    """``sdmac sim SCENARIO [OPTIONS]`` runs a file; ``sdmac sim NAME`` a subcommand."""

    default_command = "run"

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path, "SCENARIO [OPTIONS] | saturation [OPTIONS]")


class ScenarioCommand(click.Command):
    """The hidden ``sim run`` command, shown as ``sdmac sim SCENARIO``."""

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        parent = ctx.parent.command_path if ctx.parent else "sdmac sim"
        formatter.write_usage(parent, "SCENARIO [OPTIONS]")


@click.group(context_settings=CONTEXT_SETTINGS)
@click.version_option(_core.version(), "-V", "--version", prog_name="sdmac")
def sdmac() -> None:
    """sdmac: a software-defined MAC for Wi-Fi."""


@sdmac.group(cls=SimGroup, context_settings=CONTEXT_SETTINGS)
def sim() -> None:
    """Run the offline simulator.

    \b
    sdmac sim SCENARIO.toml [--json FILE] [--pcap FILE] [--seed N] [--duration S]
    sdmac sim saturation [--stations 1,2,5,10,20,50] [--json FILE]

    Run `sdmac sim SCENARIO --help` or `sdmac sim saturation --help` for options.
    """


@sim.command("run", cls=ScenarioCommand, hidden=True, context_settings=CONTEXT_SETTINGS)
@click.argument("scenario", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True, path_type=Path), help="Write the results as JSON to FILE.")
@click.option("--pcap", "pcap_path", type=click.Path(dir_okay=False, writable=True, path_type=Path), help="Write every frame on air to FILE (pcapng, radiotap).")
@click.option("--seed", type=click.IntRange(0, U64_MAX), help="Override the scenario's seed.")
@click.option("--duration", type=click.FloatRange(min=0, min_open=True), help="Override the scenario's duration (simulated seconds).")
@click.option("--threads", is_flag=True, help="Run each medium on its own thread.")
@click.option("-q", "--quiet", is_flag=True, help="No progress and no tables (errors still go to stderr).")
def sim_run(
    scenario: Path,
    json_path: Path | None,
    pcap_path: Path | None,
    seed: int | None,
    duration: float | None,
    threads: bool,
    quiet: bool,
) -> None:
    """Run the scenario file SCENARIO (TOML)."""
    try:
        text = scenario.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise click.ClickException(f"cannot read {scenario}: {e}") from None
    name = str(scenario)
    try:
        text, shift = apply_overrides(text, {"seed": seed, "duration": duration})
    except ValueError as e:
        raise click.ClickException(f"{name}: {e}") from None

    with ProgressReporter(scenario.name, quiet) as progress:
        try:
            out = _core.run_scenario(
                text,
                name=name,
                pcap=str(pcap_path) if pcap_path else None,
                progress=progress,
                progress_step_s=0.05,
                threads=threads,
            )
        except ValueError as e:
            raise click.ClickException(unshift_error(str(e), name, shift)) from None
        except OSError as e:
            raise click.ClickException(str(e)) from None
    if json_path:
        _write_json(json_path, out)
    if not quiet:
        print_scenario_results(json.loads(out), _stdout_console())


def _parse_stations(ctx: click.Context, param: click.Parameter, value: str) -> list[int]:
    try:
        ns = [int(x) for x in value.replace(" ", "").split(",") if x]
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a comma-separated list of station counts") from None
    if not ns or any(n < 1 for n in ns):
        raise click.BadParameter("every number of stations must be at least 1")
    return ns


@sim.command("saturation", context_settings=CONTEXT_SETTINGS)
@click.option("--standard", default="802.11a", show_default=True, help="PHY: 802.11a, 802.11b, 802.11g, 802.11n-2.4, 802.11n-5.")
@click.option("--rate", default="54", show_default=True, help='Data rate in Mb/s or an MCS name ("mcs7").')
@click.option("--payload", default=1500, show_default=True, type=click.IntRange(1, 65535), help="Payload bytes above LLC/SNAP.")
@click.option("--stations", default="1,2,5,10,20,50", show_default=True, callback=_parse_stations, help="Numbers of saturated stations, comma-separated.")
@click.option("--duration", default=10.0, show_default=True, type=click.FloatRange(min=0, min_open=True), help="Simulated seconds per point.")
@click.option("--seed", default=1, show_default=True, type=click.IntRange(0, U64_MAX))
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True, path_type=Path), help="Write the results as JSON to FILE.")
@click.option("-q", "--quiet", is_flag=True, help="No progress and no table.")
def sim_saturation(
    standard: str,
    rate: str,
    payload: int,
    stations: Sequence[int],
    duration: float,
    seed: int,
    json_path: Path | None,
    quiet: bool,
) -> None:
    """Sweep the number of saturated stations sending to one AP (DCF, basic access)."""
    console = _stdout_console()
    params: dict[str, Any] = {}
    results: list[dict[str, Any]] = []
    for n in stations:
        with ProgressReporter(f"n={n}", quiet) as progress:
            try:
                out = json.loads(_core.saturation(standard, rate, payload, [n], duration, seed, progress=progress))
            except ValueError as e:
                raise click.ClickException(str(e)) from None
        params = out.get("params") or {"standard": standard, "rate": rate, "payload": payload, "duration_s": duration, "seed": seed}
        if not quiet:
            if not results:
                console.print(_saturation_title(params), style="bold")
            console.print(_saturation_row_table(out["results"][0], header=not results, params=params))
        results.extend(out["results"])
    if json_path:
        _write_json(json_path, json.dumps({"params": params, "results": results}, indent=2))


from .cli_bench import bench as _bench  # noqa: E402

sdmac.add_command(_bench)

from .cli_probe import probe as _probe  # noqa: E402

sdmac.add_command(_probe)

from .cli_experiment import experiment as _experiment  # noqa: E402

sdmac.add_command(_experiment)

from .cli_tap import tap as _tap  # noqa: E402

sdmac.add_command(_tap)

from .cli_sweep import sweep as _sweep  # noqa: E402

sdmac.add_command(_sweep)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``sdmac`` console script."""
    try:
        rv = sdmac.main(args=list(argv) if argv is not None else None, prog_name="sdmac", standalone_mode=False)
    except (KeyboardInterrupt, click.exceptions.Abort):
        print("sdmac: interrupted", file=sys.stderr)
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    sys.exit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":
    main()
