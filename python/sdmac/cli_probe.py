"""``sdmac probe IFACE``: what per-frame control really works on a mac80211 adapter.

The probing is done by the Rust binary ``sdmac-probe`` (crates/sdmac-probe, built by
``make build`` into target/release); this command runs it and shows its JSON report
as a table, or passes the JSON through with ``--json``. It needs CAP_NET_ADMIN and
CAP_NET_RAW (run it as root, or grant them to the binary with setcap).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
ROOT = Path(__file__).resolve().parent.parent.parent
VERDICT_STYLE = {
    "works": "green",
    "not honoured": "yellow",
    "not supported": "red",
    "unverified": "cyan",
    "not tried": "dim",
    "error": "bold red",
}


def probe_binary() -> Path:
    """Where ``sdmac-probe`` is: $SDMAC_PROBE, else the workspace's target/release
    (or $CARGO_TARGET_DIR/release), else PATH."""
    env = os.environ.get("SDMAC_PROBE")
    if env:
        return Path(env)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    built = target / "release" / "sdmac-probe"
    if built.exists():
        return built
    found = shutil.which("sdmac-probe")
    if found:
        return Path(found)
    raise click.ClickException(f"sdmac-probe is not built ({built} is missing): run `make build` (or cargo build --release -p sdmac-probe)")


def run_probe(iface: str, peer: str | None, channel: int | None, wait_ms: int | None) -> dict[str, Any]:
    """Runs the binary; returns its report, or raises ClickException with its error."""
    cmd: list[str] = [str(probe_binary()), iface]
    if peer:
        cmd += ["--peer", peer]
    if channel:
        cmd += ["--channel", str(channel)]
    if wait_ms is not None:
        cmd += ["--wait-ms", str(wait_ms)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise click.ClickException(f"cannot run {cmd[0]}: {e.strerror or e}") from None
    try:
        out = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        out = None
    if isinstance(out, dict) and "error" in out:
        raise click.ClickException(out["error"]["message"])
    if p.returncode != 0 or not isinstance(out, dict):
        msg = p.stderr.strip() or f"exit status {p.returncode}"
        raise click.ClickException(f"sdmac-probe failed: {msg}")
    return out


def report_table(rep: dict[str, Any]) -> Table:
    """The matrix as a rich table: item, verdict, what was sent, what came back."""
    where = f"{rep['interface']} ({rep['phy']})"
    if rep.get("freq_mhz"):
        where += f", {rep['freq_mhz']} MHz"
    t = Table(title=f"sdmac probe {where}", show_lines=True)
    t.add_column("item", no_wrap=True)
    t.add_column("verdict", no_wrap=True)
    t.add_column("sent")
    t.add_column("got")
    for e in rep["entries"]:
        style = VERDICT_STYLE.get(e["verdict"], "")
        t.add_row(e["title"], f"[{style}]{e['verdict']}[/]" if style else e["verdict"], e["sent"], e["got"])
    return t


@click.command("probe", context_settings=CONTEXT_SETTINGS)
@click.argument("iface")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (for machines).")
@click.option("--peer", metavar="MAC", help="An address that acknowledges on the channel (a station or AP): tests the ACK report.")
@click.option("--channel", type=click.IntRange(1), metavar="MHZ", help="Probe on this channel (default 2412 MHz, or the radio's first channel).")
@click.option("--wait-ms", type=click.IntRange(1), help="How long to wait for each TX-status echo (default 1000).")
def probe(iface: str, as_json: bool, peer: str | None, channel: int | None, wait_ms: int | None) -> None:
    """Try, on IFACE's radio, the per-frame control sdmac's linux backend uses.

    Creates a monitor interface (removed again on every path), injects frames and
    reads their TX-status echoes (F_TX_FAIL, DATA_RETRIES, the rate), sets channel,
    TX power, a bitrate mask and the coverage class through nl80211 and reads them
    back. Each item: works / not honoured / not supported / unverified / not tried /
    error, with the evidence. Needs CAP_NET_ADMIN and CAP_NET_RAW.
    """
    rep = run_probe(iface, peer, channel, wait_ms)
    if as_json:
        click.echo(json.dumps(rep, indent=2))
        return
    console = Console(soft_wrap=False, highlight=False, width=None if Console().is_terminal else 200)
    console.print(report_table(rep))
    cleanup = rep.get("cleanup", {})
    if cleanup.get("ok"):
        console.print(f"cleanup: {rep.get('monitor') or 'nothing'} removed")
    else:
        console.print(f"[bold red]cleanup: {cleanup.get('error')}[/]")
