"""sdmac-mediumd with Mininet-WiFi's addresses, in the QEMU VM test bed (testbed/):
three mac80211_hwsim radios whose interfaces get addresses other than the radios'
permanent ones (00:00:00:00:00:03 for the AP, :01 and :02 for two stations, set with
`ip link set dev X address` before they come up, as Mininet-WiFi does), and a
configuration in the shape Mininet-WiFi writes naming those addresses — interference
mode (path loss, positions, `-x .../signal_table_ieee80211`, of which only the `ax`
file exists) and error-probability mode. The kernel still names each radio by its
hwsim address (42:00:00:00:0N:00): the daemon must bind each listed address to the
radio that has it, so that frames to a station reach that station's radio.

Both stations must associate with the AP (hostapd, wpa_supplicant) and ping it and
each other; the daemon must say which PER file it read, stop on SIGTERM, and leave a
capture (-p) that tshark reads whole: every frame complete, the file valid. A second
daemon, SIGKILLed after 3 s of pings, must leave a capture that reads whole too (it is
written out at block boundaries, at least once a second).

The daemon starts after the interfaces have their addresses (it learns them from
their frames, as under Mininet-WiFi) or before (it sees them come up with their
permanent addresses, go down and come up with the new ones: ADD_MAC_ADDR).

Skipped, with the reason, where the VM test bed cannot run or the daemon is not
built.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from vmbed import ROOT, TESTBED, daemon_share, run

PER_TABLE = ROOT.parent / "shared" / "data" / "per-tables" / "signal_table_ieee80211ax"


@pytest.fixture(scope="module")
def share(tmp_path_factory) -> Path:
    d = daemon_share(tmp_path_factory, "mediumd-mn")
    if not PER_TABLE.exists():
        pytest.skip(f"no PER table at {PER_TABLE}")
    shutil.copy2(PER_TABLE, d / "signal_table_ieee80211ax")
    return d


def _read_capture(pcap: Path) -> list:
    """tshark reads the capture without complaint (a file cut inside a block makes
    it say so and exit non-zero) and every frame in it is whole; its rows."""
    assert pcap.exists(), pcap
    if not shutil.which("tshark"):
        pytest.skip("tshark is not installed: the capture cannot be checked")
    out = subprocess.run(["tshark", "-r", str(pcap), "-T", "fields", "-e", "frame.len", "-e", "frame.cap_len",
                          "-e", "wlan.fc.type_subtype", "-e", "wlan.ra", "-e", "wlan.ta"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "cut short" not in out.stderr and "appears to be damaged" not in out.stderr, out.stderr
    rows = [line.split("\t") for line in out.stdout.splitlines() if line.strip()]
    assert all(r[0] == r[1] for r in rows), "every frame captured whole"
    return rows


def _check_capture(pcap: Path) -> None:
    """The capture of the daemon stopped with SIGTERM: whole, with beacons, ACKs and
    frames from the three new addresses."""
    rows = _read_capture(pcap)
    assert len(rows) > 50
    kinds = [int(r[2], 0) for r in rows if r[2]]
    assert kinds.count(0x08) > 5 and kinds.count(0x1D) > 5, "beacons and ACKs"
    tas = {r[4] for r in rows if len(r) > 4}
    assert {"00:00:00:00:00:01", "00:00:00:00:00:02", "00:00:00:00:00:03"} <= tas, tas


def _check_killed_capture(pcap: Path) -> None:
    """The capture of the daemon SIGKILLed after 3 s of pings: whole up to its last
    write-out (at least once a second), with the pings' frames in it."""
    rows = _read_capture(pcap)
    tas = {r[4] for r in rows if len(r) > 4}
    assert len(rows) > 20 and "00:00:00:00:00:01" in tas, (len(rows), tas)


@pytest.mark.parametrize("mode,order", [("interference", "late"), ("errprob", "late"), ("interference", "early")])
def test_stations_with_mininet_addresses_associate_and_ping(share: Path, mode: str, order: str) -> None:
    pcap = share / "medium.pcapng"
    pcap.unlink(missing_ok=True)
    (share / "medium-killed.pcapng").unlink(missing_ok=True)
    r = run(TESTBED / "mediumd_mininet_addrs.sh", args=[mode, order, "mediumd=/share/sdmac-mediumd"], timeout=400, share=share)
    detail = f"status {r.status}, {r.accel}\n--- output\n{r.output}"
    assert r.status == 0, detail
    for line in (
        f"MN OK: medium daemon registered ({mode}, started {order})",
        "MN OK: station 1 (00:00:00:00:00:01) associated",
        "MN OK: station 2 (00:00:00:00:00:02) associated",
        "MN OK: station 1 pings the AP",
        "MN OK: station 2 pings the AP",
        "MN OK: station 1 pings station 2 through the AP",
        "MN OK: the AP lists 00:00:00:00:00:01 and 00:00:00:00:00:02",
        "MN OK: medium daemon stopped on SIGTERM",
        "MN OK: a second daemon carried traffic",
        "MN PASS",
    ):
        assert line in r.output, f"missing {line!r}\n{detail}"
    if mode == "interference":
        assert "MN OK: -x signal_table_ieee80211 read signal_table_ieee80211ax" in r.output, detail
    _check_capture(pcap)
    _check_killed_capture(share / "medium-killed.pcapng")
