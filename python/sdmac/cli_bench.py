"""``sdmac bench``: measurements of the SDMAC API.

``sdmac bench oneshot`` reproduces the SDMAC paper's experiment on the emulated
medium: an AP beaconing on a quiet 5 GHz channel, one station sending confirmed
one-shot transmissions (50 B at 54 Mb/s by default), each timed at every reference
plane. It prints the paper's Table V (per outcome set A, LD, LA) and writes JSON,
CSV and a CCDF plot on request.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from . import _core
from .analysis import oneshot_report

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
U64_MAX = 2**64 - 1
SIFS_US = 16.0  # 802.11a
MAC_OVERHEAD = 24 + 8 + 4  # non-QoS header + LLC/SNAP + FCS
ACK_LEN = 14


class CountProgress:
    """Progress of a run of N samples: a bar on a terminal, a line every 2 s otherwise."""

    def __init__(self, total: int, quiet: bool, label: str) -> None:
        self.console = Console(stderr=True, highlight=False)
        self.total = total
        self.mode = "off" if quiet else ("bar" if self.console.is_terminal else "plain")
        self.label = label
        self._bar: Progress | None = None
        self._task: Any = None
        self._last = 0.0
        self._start = 0.0

    def __enter__(self) -> CountProgress:
        self._start = self._last = time.monotonic()
        if self.mode == "bar":
            self._bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=self.total)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._bar is not None:
            self._bar.stop()

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if self._bar is not None:
            self._bar.update(self._task, completed=done)
        elif self.mode == "plain" and (now - self._last >= 2.0 or done == total):
            self._last = now
            self.console.print(f"{self.label}: {done}/{total} samples ({now - self._start:.0f} s)")


def _binomial_ci(k: int, n: int) -> str:
    """Share k/n with its 95 % Wilson interval, as text."""
    if n == 0:
        return "–"
    z = 1.959964
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return f"{100 * p:.2f} % (95 % CI {100 * max(0.0, c - h):.2f}–{100 * min(1.0, c + h):.2f} %)"


def print_checks(result: Mapping[str, Any], console: Console) -> None:
    """What the run shows against the 802.11 formulas and the configured losses."""
    cfg = result["config"]
    sets = result["sets"]
    if "standard" not in cfg:  # not the paper's testbed: only the shares, below
        console.print()
        _print_shares(cfg, sets, console)
        return
    data_us = _core.airtime_us("802.11a", cfg["rate"], cfg["payload"] + MAC_OVERHEAD)
    basic = [r for r in cfg["basic_rates"] if r <= float(cfg["rate"])] or [6]
    ack_us = _core.airtime_us("802.11a", _rate_name(max(basic)), ACK_LEN)
    timeout = cfg["ack_timeout_us"]
    acked = data_us + SIFS_US + ack_us
    console.print()
    console.print(
        f"Ttoa expected: acked {data_us:g} + {SIFS_US:g} + {ack_us:g} = {acked:g} µs (DATA + SIFS + ACK); "
        f"no ACK preamble {data_us:g} + {timeout:g} = {data_us + timeout:g} µs (DATA + ACKTimeout)"
    )
    for name in ("A", "LD", "LA"):
        modes = sets.get(name, {}).get("ttoa_us", {})
        if modes:
            txt = ", ".join(f"{float(v):g} µs × {n}" for v, n in modes.items())
            console.print(f"Ttoa measured {name}: {txt}")
    _print_shares(cfg, sets, console)


def _print_shares(cfg: Mapping[str, Any], sets: Mapping[str, Any], console: Console) -> None:
    n = sum(sets.get(s, {}).get("count", 0) for s in ("A", "LD", "LA"))
    ld = sets.get("LD", {}).get("count", 0)
    la = sets.get("LA", {}).get("count", 0)
    console.print(f"LD share of all: {_binomial_ci(ld, n)}" + (f"  (configured {cfg['loss_data']})" if cfg.get("loss_data") is not None else ""))
    console.print(f"LA share of delivered: {_binomial_ci(la, n - ld)}" + (f"  (configured {cfg['loss_ack']})" if cfg.get("loss_ack") is not None else ""))
    if n < 10_000:
        console.print(
            "note: with n samples a percentile above 1 - 1/n is the max; p99.99 needs n >= 10000 "
            "(e.g. --mode back-to-back --count 100000, about 30 s)"
        )


def _rate_name(r: float) -> str:
    return str(int(r)) if float(r).is_integer() else str(r)


@click.group(context_settings=CONTEXT_SETTINGS)
def bench() -> None:
    """Measurements of the SDMAC API (on the emulated medium unless --backend says otherwise)."""


#: The options that build the paper's testbed: they apply to --backend emu alone.
TESTBED_OPTIONS = ("loss_data", "loss_ack", "snr_data", "snr_ack", "ack_preamble_share", "ack_timeout_us", "basic_rates", "beacon_interval_tu")


@bench.command("oneshot", context_settings=CONTEXT_SETTINGS)
@click.option("--backend", default="emu", show_default=True, help="The backend, by name: emu (the paper's testbed, which the loss, SNR, ACK and beacon options configure), emu:SCENARIO.toml[#STATION], hwsim:IFACE or linux:IFACE.")
@click.option("--dst", help="Destination MAC address (default: the interface's BSSID; on emu, the AP).")
@click.option("--mode", type=click.Choice(["beacon", "back-to-back"]), default="beacon", show_default=True, help="beacon: each request TWAIT after a beacon (the paper); back-to-back: GAP after each confirmation (fast).")
@click.option("--count", default=500, show_default=True, type=click.IntRange(1, 100_000_000), help="Transmissions.")
@click.option("--payload", default=50, show_default=True, type=click.IntRange(0, 2304), help="Payload bytes (MSDU).")
@click.option("--rate", default="54", show_default=True, help="Data rate, Mb/s (802.11a).")
@click.option("--loss-data", type=click.FloatRange(0, 1), default=0.1, show_default=True, help="Probability that a DATA frame is lost.")
@click.option("--loss-ack", type=click.FloatRange(0, 1), default=0.1, show_default=True, help="Probability that an ACK is lost.")
@click.option("--snr-data", type=float, help="Set DATA losses by the link's SNR (dB) instead.")
@click.option("--snr-ack", type=float, help="Set ACK losses by the link's SNR (dB) instead.")
@click.option("--ack-preamble-share", type=click.FloatRange(0, 1), default=0.5, show_default=True, help="Share of lost ACKs whose preamble is missed (sender gives up at the ACKTimeout); the rest are corrupted after the preamble (sender waits for the ACK's end).")
@click.option("--ack-timeout", "ack_timeout_us", type=click.FloatRange(1, 10000), help="ACK timeout (µs); default the standard's 45 (ath9k: 25).")
@click.option("--basic-rates", default="6", show_default=True, help="BSS basic rate set, Mb/s, comma-separated (sets the ACK rate).")
@click.option("--beacon-interval", "beacon_interval_tu", default=50, show_default=True, type=click.IntRange(1, 65535), help="Beacon interval (TU; 50 TU = 51.2 ms).")
@click.option("--twait", "twait_ms", default=20.0, show_default=True, type=click.FloatRange(0), help="Delay after each beacon (ms), beacon mode.")
@click.option("--gap", "gap_us", default=250.0, show_default=True, type=click.FloatRange(0), help="Delay after each confirmation (µs), back-to-back mode; >= EIFS + CWmin slots (94 + 135 µs) lets any post-transmission backoff finish, so channel access is immediate.")
@click.option("--device-latency", "device_lat", default="0,0", show_default=True, help="Device latency profile REQ,CON in µs; each a number or LO-HI (uniform).")
@click.option("--device-wait", type=click.Choice(["spin", "park"]), default="spin", show_default=True, help="spin: the device thread polls (one core busy); park: it sleeps between events.")
@click.option("--seed", default=1, show_default=True, type=click.IntRange(0, U64_MAX))
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True, path_type=Path), help="Write the report as JSON to FILE.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, writable=True, path_type=Path), help="Write every sample as CSV to FILE.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, writable=True, path_type=Path), help="Write CCDF plots (PNG) to FILE.")
@click.option("-q", "--quiet", is_flag=True, help="No progress and no table.")
@click.pass_context
def oneshot(
    ctx: click.Context,
    backend: str,
    dst: str | None,
    mode: str,
    count: int,
    payload: int,
    rate: str,
    loss_data: float,
    loss_ack: float,
    snr_data: float | None,
    snr_ack: float | None,
    ack_preamble_share: float,
    ack_timeout_us: float | None,
    basic_rates: str,
    beacon_interval_tu: int,
    twait_ms: float,
    gap_us: float,
    device_lat: str,
    device_wait: str,
    seed: int,
    json_path: Path | None,
    csv_path: Path | None,
    plot_path: Path | None,
    quiet: bool,
) -> None:
    """Confirmed one-shot transmissions (the SDMAC paper's Table V), on the emulated testbed or any backend."""
    if backend != "emu":
        given = [n for n in TESTBED_OPTIONS if ctx.get_parameter_source(n) == click.core.ParameterSource.COMMANDLINE]
        if given:
            opts = ", ".join("--" + n.replace("_us", "").replace("_tu", "").replace("_", "-") for n in given)
            raise click.UsageError(f"{opts}: only for --backend emu (the paper's testbed); backend {backend!r} has its own medium")
    try:
        basic = [float(x) for x in basic_rates.split(",") if x.strip()]
    except ValueError:
        raise click.BadParameter(f"{basic_rates!r} is not a comma-separated list of rates", param_hint="--basic-rates") from None
    parts = device_lat.split(",")
    if len(parts) != 2:
        raise click.BadParameter("give REQ,CON (µs), e.g. 0,0 or 2-4,15-25", param_hint="--device-latency")
    args: dict[str, Any] = dict(
        backend=backend,
        dst=dst,
        mode=mode,
        count=count,
        payload=payload,
        rate=rate,
        loss_data=None if snr_data is not None else loss_data,
        loss_ack=None if snr_ack is not None else loss_ack,
        snr_data=snr_data,
        snr_ack=snr_ack,
        ack_preamble_share=ack_preamble_share,
        ack_timeout_us=ack_timeout_us,
        basic_rates=basic,
        beacon_interval_tu=beacon_interval_tu,
        twait_ms=twait_ms,
        gap_us=gap_us,
        seed=seed,
        device_wait=device_wait,
        device_req_us=parts[0].strip(),
        device_con_us=parts[1].strip(),
    )
    console = Console(highlight=False, soft_wrap=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(highlight=False, soft_wrap=False, width=160)
    if not quiet:
        per = (beacon_interval_tu * 1.024e-3) if mode == "beacon" else (gap_us + 100) * 1e-6
        Console(stderr=True, highlight=False).print(
            f"sdmac bench oneshot: {count} confirmed one-shots on {backend}, {payload} B at {rate} Mb/s, mode {mode} (about {count * per:.0f} s)"
        )
    with CountProgress(count, quiet, "one-shots") as progress:
        try:
            text, samples = _core.bench_oneshot(progress=progress, **args)
        except (ValueError, _core.SdmacError) as e:
            raise click.ClickException(str(e)) from None
    result = json.loads(text)
    if json_path:
        oneshot_report.write_json(result, json_path)
    if csv_path:
        oneshot_report.write_csv(samples, csv_path)
    if plot_path:
        oneshot_report.plot_ccdf(samples, plot_path)
    if not quiet:
        oneshot_report.render_table(result, console)
        print_checks(result, console)
        for what, p in (("JSON", json_path), ("CSV", csv_path), ("CCDF plot", plot_path)):
            if p:
                console.print(f"{what}: {p}")


@bench.command("tap", context_settings=CONTEXT_SETTINGS)
@click.option("--runs", default=3, show_default=True, type=click.IntRange(1, 100), help="Runs of every path (interleaved); each figure is their median.")
@click.option("--seconds", default=5, show_default=True, type=click.IntRange(1, 600), help="Seconds of every scenario.")
@click.option("--paths", default="user-host,user-vm,hwsim-vm,kernel-vm", show_default=True, help="Paths, comma-separated: user-host (sdmac tap here), user-vm, hwsim-vm and kernel-vm (the VM test bed; hwsim: sdmac tap on the kernel path's radios; kernel: mac80211_hwsim with sdmac-mediumd), user-host-unbound, user-vm-unbound, user-vm-unbound-syscalls (sdmac-tap --tap-io syscalls) and kernel-vm-unbound (the same on a custom PHY whose air does not cap 60 B frames; sdmac-mediumd --phy), user-vm-one and user-vm-unbound-one (sdmac-tap --one-thread --realtime 10: one loop, under the kernel path's daemon's SCHED_FIFO 10).")
@click.option("--scenarios", default="s1,s2,s3,s4", show_default=True, help="Scenarios, comma-separated, of s1..s5 (s5: one-way delay at --s5-pps packets/s of 60 B, below capacity).")
@click.option("--s5-pps", default=2000, show_default=True, type=click.IntRange(1, 1_000_000), help="The packet rate of scenario 5.")
@click.option("--perf", default=None, help="One more run of each path, of this scenario alone, under perf record -a -g (in the VM for VM paths); its perf script text goes to --perf-dir.")
@click.option("--perf-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("bench/results"), show_default=True, help="Where --perf keeps perf_PATH_SCENARIO.txt.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True, path_type=Path), help="Write the report (machine, date, runs, medians, intervals, ratios, goals) to FILE.")
def tap_bench(runs: int, seconds: int, paths: str, scenarios: str, perf: str | None, perf_dir: Path, s5_pps: int, json_path: Path | None) -> None:
    """DPDK-WiFi's four scenarios between two stations, sdmac's user-space path
    against the kernel's: TCP (iperf3), one-way delay at 50,000 pps of 60 B, maximum
    UDP rate at 1500 B, maximum packets/s at 60 B. Needs root, /dev/net/tun, iperf3
    and release builds of sdmac-tap, sdmac-pktgen and sdmac-mediumd."""
    from . import bench_tap

    chosen = [p for p in paths.split(",") if p]
    for p in chosen:
        if p not in bench_tap.PATHS:
            raise click.BadParameter(f"{p!r} is not one of {', '.join(bench_tap.PATHS)}", param_hint="--paths")
    target = Path(os.environ.get("CARGO_TARGET_DIR", bench_tap.ROOT / "target")) / "release"
    console = Console(stderr=True, highlight=False)
    try:
        report = bench_tap.bench(chosen, runs, seconds, target, console.print, [x for x in scenarios.split(",") if x], perf, perf_dir, s5_pps)
    except bench_tap.BenchError as e:
        raise click.ClickException(str(e)) from None
    click.echo(bench_tap.table(report["summary"]))
    for g in report["goals"]:
        click.echo(bench_tap.goal_line(g))
    if json_path is not None:
        json_path.write_text(json.dumps(report, indent=1) + "\n")
