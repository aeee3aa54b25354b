"""``sdmac tap SCENARIO``: an Ethernet view of the scenario's stations.

Every station of the scenario's first medium gets a TAP device in a network
namespace of its own (``sdmac-<station>``), addressed 10.0.0.N/24 by default, and
IP traffic between the namespaces crosses sdmac's emulated 802.11 medium. The work
is done by the Rust binary ``sdmac-tap`` (crates/sdmac-tap, built by ``make build``
into target/release); this command replaces itself with it, so that Ctrl-C reaches
it directly and it removes everything it made. It needs root and /dev/net/tun.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import click

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
ROOT = Path(__file__).resolve().parent.parent.parent


def tap_binary() -> Path:
    """Where ``sdmac-tap`` is: $SDMAC_TAP, else the workspace's target/release
    (or $CARGO_TARGET_DIR/release), else PATH."""
    env = os.environ.get("SDMAC_TAP")
    if env:
        return Path(env)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    built = target / "release" / "sdmac-tap"
    if built.exists():
        return built
    found = shutil.which("sdmac-tap")
    if found:
        return Path(found)
    raise click.ClickException(f"sdmac-tap is not built ({built} is missing): run `make build` (or cargo build --release -p sdmac-tap)")


def tap_command(
    scenario: str,
    subnet: str | None = None,
    duration: float | None = None,
    busy_poll: bool = False,
    seed: int | None = None,
    json_path: str | None = None,
    ready_file: str | None = None,
    prefix: str | None = None,
    pcap: str | None = None,
    tap_io: str | None = None,
    control: str | None = None,
    reserve: int | None = None,
    backend: str | None = None,
    radio_rates: str | None = None,
    freq: int | None = None,
    max_stations: int | None = None,
    one_thread: bool = False,
    realtime: int | None = None,
) -> list[str]:
    """The command line that runs ``sdmac-tap`` with these options."""
    cmd = [str(tap_binary()), scenario]
    if subnet:
        cmd += ["--subnet", subnet]
    if duration is not None:
        cmd += ["--duration", str(duration)]
    if busy_poll:
        cmd.append("--busy-poll")
    if seed is not None:
        cmd += ["--seed", str(seed)]
    if json_path:
        cmd += ["--json", json_path]
    if ready_file:
        cmd += ["--ready-file", ready_file]
    if prefix:
        cmd += ["--prefix", prefix]
    if pcap:
        cmd += ["--pcap", pcap]
    if tap_io:
        cmd += ["--tap-io", tap_io]
    if control:
        cmd += ["--control", control]
    if reserve:
        cmd += ["--reserve", str(reserve)]
    if max_stations is not None:
        cmd += ["--max-stations", str(max_stations)]
    if backend:
        cmd += ["--backend", backend]
    if radio_rates:
        cmd += ["--radio-rates", radio_rates]
    if freq is not None:
        cmd += ["--freq", str(freq)]
    if one_thread:
        cmd.append("--one-thread")
    if realtime is not None:
        cmd += ["--realtime", str(realtime)]
    return cmd


@click.command("tap", context_settings=CONTEXT_SETTINGS)
@click.argument("scenario", type=click.Path(exists=True, dir_okay=False))
@click.option("--subnet", default=None, metavar="A.B.C.D/LEN", help="Station addresses: host N+1 of this subnet for station N [default: 10.0.0.0/24].")
@click.option("--duration", type=float, default=None, help="Stop after this many seconds (default: until Ctrl-C).")
@click.option("--busy-poll", is_flag=True, help="Station loops spin instead of sleeping (costs a core per station).")
@click.option("--one-thread", is_flag=True, help="Every station's data path and the emulated medium on one thread (run to completion: no hand-off between threads per frame; TAP I/O one system call per frame).")
@click.option("--realtime", type=click.IntRange(1, 99), default=None, metavar="PRIO", help="Run the data paths under SCHED_FIFO at this priority (needs CAP_SYS_NICE).")
@click.option("--tap-io", type=click.Choice(["uring", "syscalls"]), default=None, help="TAP reads and writes batched on io_uring, or one system call per frame [default: uring].")
@click.option("--control", default=None, metavar="SOCKET", help="Listen for control requests (sdmac-mediumd's protocol: add, delete, position, tx power) at this UNIX socket.")
@click.option("--reserve", type=int, default=None, metavar="N", help="N stations on the medium from the start, brought up by an add on the control socket.")
@click.option("--max-stations", type=int, default=None, metavar="N", help="Room for N stations in all: the scenario's, the pool and those added at run time [default: 64].")
@click.option("--backend", default=None, metavar="NAME,NAME,...", help="One radio per station, in order (hwsim:IFACE or linux:IFACE) instead of the emulated medium.")
@click.option("--radio-rates", default=None, metavar="SERIES", help="The radios' default_rates, e.g. 54x1 (with --backend).")
@click.option("--freq", type=int, default=None, metavar="MHZ", help="The radios' channel (with --backend).")
@click.option("--seed", type=int, default=None, help="Seed of the emulated device.")
@click.option("--json", "json_path", default=None, metavar="FILE", help="Write the statistics to FILE (default: stdout).")
@click.option("--ready-file", default=None, metavar="FILE", help="Write the stations' namespaces and addresses to FILE once all are up.")
@click.option("--prefix", default=None, help="Namespace name prefix [default: sdmac-].")
@click.option("--pcap", default=None, metavar="FILE", help="Capture the frames sent, their ACKs and the beacons heard (pcapng, IEEE 802.11).")
def tap(
    scenario: str,
    subnet: str | None,
    duration: float | None,
    busy_poll: bool,
    seed: int | None,
    json_path: str | None,
    ready_file: str | None,
    prefix: str | None,
    pcap: str | None,
    tap_io: str | None,
    control: str | None,
    reserve: int | None,
    backend: str | None,
    radio_rates: str | None,
    freq: int | None,
    max_stations: int | None,
    one_thread: bool,
    realtime: int | None,
) -> None:
    """Give every station of SCENARIO a TAP device in its own network namespace.

    Run commands in a station's namespace with ``ip netns exec sdmac-STATION``.
    Ctrl-C stops it, removes the namespaces and prints per-station statistics
    (frames each way, retries, drops by reason).
    """
    cmd = tap_command(scenario, subnet, duration, busy_poll, seed, json_path, ready_file, prefix, pcap, tap_io, control, reserve, backend, radio_rates, freq, max_stations, one_thread, realtime)
    try:
        os.execv(cmd[0], cmd)
    except OSError as e:
        raise click.ClickException(f"cannot run {cmd[0]}: {e.strerror or e}") from None
