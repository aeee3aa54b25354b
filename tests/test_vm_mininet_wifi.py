"""Mininet-WiFi itself on the medium daemon, in the User-Mode Linux test bed: four small
topologies of testbed/mininet_wifi/scenario.py (an AP and stations in interference mode
and in error-probability mode, ad hoc, mesh), each run by Mininet-WiFi with the daemon
first on the PATH as `wmediumd`, as a Mininet-WiFi user runs it.

Checked: association (`iw dev X link`), ping loss where the configuration implies it
(near links deliver, a link at error probability 1 or out of range delivers nothing),
and that the run-time control Mininet-WiFi sends over the daemon's socket takes effect:
setPosition out of range and back, setTxPower down and back, error probability set to 1
and back to 0.

Daemons: sdmac-mediumd (target/release, or SDMAC_MEDIUMD_BIN), and the Mininet-WiFi
fork of wmediumd when WMEDIUMD_FORK=/path/to/wmediumd is set (for comparison).
Needs SDMAC_MININET_WIFI=<Mininet-WiFi source tree> and Debian's Mininet; skipped with
the reason otherwise. Each (daemon, topology) is one UML boot; its checks are separate
tests.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "testbed" / "mininet_wifi"))
import runner  # noqa: E402

TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
SDMAC = Path(os.environ.get("SDMAC_MEDIUMD_BIN", TARGET / "release" / "sdmac-mediumd"))

# A link that should carry traffic may lose this share of pings (20 at 0.2 s, after two
# not counted): a ping is one exchange each way, through an AP two.
NEAR_MAX_LOSS = 0.2


def daemons() -> List[str]:
    return ["sdmac-mediumd", "wmediumd-fork"]


# ------------------------------------------------------------------ checks

def ping_ok(run: runner.Run, phase: str, src: str, dst: str) -> None:
    p = run.ping(phase, src, dst)
    assert p is not None, f"no ping {src}->{dst} in phase '{phase}' (scenario ended early?)"
    loss = 1 - p["received"] / max(p["sent"], 1)
    assert loss <= NEAR_MAX_LOSS, f"{src}->{dst} '{phase}': {p['received']}/{p['sent']} answered (loss {loss:.0%})"


def ping_dead(run: runner.Run, phase: str, src: str, dst: str, before: Tuple[str, str, str]) -> None:
    """Nothing answered in `phase` — where the link `before` (phase, src, dst) carried
    traffic first: silence from a medium that delivers nothing proves no control."""
    ping_ok(run, *before)
    p = run.ping(phase, src, dst)
    assert p is not None, f"no ping {src}->{dst} in phase '{phase}' (scenario ended early?)"
    assert p["received"] == 0, f"{src}->{dst} '{phase}': {p['received']}/{p['sent']} answered, expected none"


def associated(run: runner.Run, sta: str, expect: bool = True) -> None:
    a = run.of("assoc", sta=sta)
    assert a, f"no association check of {sta} (scenario ended early?)"
    assert a[0]["connected"] == expect, f"{sta}: iw dev link says: {a[0]['link'][:300]!r}"


def not_associated(run: runner.Run, sta: str, beside: str) -> None:
    """`sta` did not associate, where `beside` (same AP) did."""
    associated(run, beside)
    associated(run, sta, expect=False)


def ran_to_the_end(run: runner.Run) -> None:
    assert run.of("done"), f"scenario.py did not finish (status {run.status})"
    assert run.status == 0, f"guest status {run.status}"


CHECKS: Dict[str, List[Tuple[str, Callable[[runner.Run], None]]]] = {
    "interference": [
        ("ran", ran_to_the_end),
        ("associated", lambda r: (associated(r, "sta1"), associated(r, "sta2"))),
        ("ping_via_ap", lambda r: ping_ok(r, "near", "sta1", "sta2")),
        ("setPosition_out", lambda r: ping_dead(r, "sta2 out of range", "sta1", "sta2", ("near", "sta1", "sta2"))),
        ("setPosition_back", lambda r: ping_ok(r, "sta2 back", "sta1", "sta2")),
    ],
    "error_prob": [
        ("ran", ran_to_the_end),
        ("associated", lambda r: (associated(r, "sta1"), associated(r, "sta2"))),
        ("prob1_not_associated", lambda r: not_associated(r, "sta3", beside="sta1")),
        ("ping_prob0", lambda r: ping_ok(r, "configured 0", "sta1", "sta2")),
        ("ping_prob1", lambda r: ping_dead(r, "configured 1", "sta1", "sta3", ("configured 0", "sta1", "sta2"))),
        ("runtime_prob1", lambda r: ping_dead(r, "runtime 1", "sta1", "sta2", ("configured 0", "sta1", "sta2"))),
        ("runtime_prob0", lambda r: ping_ok(r, "runtime 0", "sta1", "sta2")),
    ],
}
for _kind in ("adhoc", "mesh"):
    CHECKS[_kind] = [
        ("ran", ran_to_the_end),
        ("ping_20m", lambda r: ping_ok(r, "near", "sta1", "sta2")),
        ("ping_40m", lambda r: ping_ok(r, "near", "sta1", "sta3")),
        ("setPosition_out", lambda r: ping_dead(r, "sta3 out of range", "sta1", "sta3", ("near", "sta1", "sta3"))),
        ("setPosition_back", lambda r: ping_ok(r, "sta3 back", "sta1", "sta3")),
        ("setTxPower_low", lambda r: ping_dead(r, "sta2 tx power -30 dBm", "sta1", "sta2", ("near", "sta1", "sta2"))),
        ("setTxPower_back", lambda r: ping_ok(r, "sta2 tx power 14 dBm", "sta1", "sta2")),
    ]

CASES = [(d, s, name) for d in daemons() for s in CHECKS for name, _ in CHECKS[s]]


# ------------------------------------------------------------------ runs

@pytest.fixture(scope="module")
def bed():
    if os.environ.get("SDMAC_VM_TESTS", "1") == "0":
        pytest.skip("VM tests disabled (SDMAC_VM_TESTS=0)")
    try:
        tree = runner.mininet_wifi_tree()
        runner.host_ready()
        uml = runner.load_uml()
        kernel = runner.uml_kernel()
    except runner.Unavailable as e:
        pytest.skip(str(e))
    return {"tree": tree, "uml": uml, "kernel": kernel, "runs": {}}


def daemon_binary(bed, daemon: str) -> Path:
    if daemon == "wmediumd-fork":
        val = os.environ.get(runner.ENV_FORK)
        if not val:
            pytest.skip(f"{runner.ENV_FORK} is not set (the path of a built Mininet-WiFi wmediumd, for comparison)")
        src = Path(val)
    else:
        src = SDMAC
    if not os.access(src, os.X_OK):
        pytest.skip(f"{src} is not an executable (cargo build --release -p sdmac-mediumd, or {runner.ENV_FORK})")
    return src


def run_of(bed, daemon: str, scenario: str) -> runner.Run:
    key = (daemon, scenario)
    if key not in bed["runs"]:
        binary = daemon_binary(bed, daemon)
        try:
            bed["runs"][key] = runner.run_scenario(bed["uml"], binary, bed["tree"], scenario, timeout=600, kernel=bed["kernel"])
        except runner.Unavailable as e:
            pytest.skip(str(e))
    return bed["runs"][key]


@pytest.mark.parametrize("daemon,scenario,check", CASES, ids=[f"{d}-{s}-{c}" for d, s, c in CASES])
def test_mininet_wifi(bed, daemon, scenario, check):
    run = run_of(bed, daemon, scenario)
    fn = dict(CHECKS[scenario])[check]
    try:
        fn(run)
    except AssertionError as e:
        raise AssertionError(f"{e}\n---- guest output (end)\n{run.tail()}") from None
