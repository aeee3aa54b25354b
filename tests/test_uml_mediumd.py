"""sdmac-mediumd in the User-Mode Linux test bed (testbed/uml.py): the benchmark's
experiment, pairs in IBSS cells at 54 Mb/s with iperf3 TCP through the daemon in each
of its modes, in a UML kernel with mac80211_hwsim built in (its radios made at run
time with sdmac-mediumctl, since the module's parameter is not there). The tests
assert behaviour (served, every frame handed over, counters consistent, the mode
engaged); the figures of the same runs (goodput, backlog, lateness, system calls per
frame) are checked against their goals by bench/mediumd_goals.py (`make bench`).
Skipped, with the reason, where the UML kernel cannot be built or run.
"""
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
SDMAC = TARGET / "release" / "sdmac-mediumd"


@pytest.fixture(scope="module")
def uml():
    spec = importlib.util.spec_from_file_location("sdmac_testbed_uml_t", ROOT / "testbed" / "uml.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    why = mod.availability()
    if why:
        pytest.skip(f"UML test bed unavailable: {why}")
    try:
        mod.build_image()
    except mod.VMUnavailable as e:
        pytest.skip(f"UML test bed unavailable: {e}")
    if not SDMAC.exists():
        pytest.skip(f"{SDMAC} is not built (cargo build --release -p sdmac-mediumd)")
    return mod


def test_a_script_runs_as_root_with_hwsim_built_in_and_its_status_comes_back(uml, tmp_path):
    script = tmp_path / "probe.sh"
    script.write_text(
        "[ -d /sys/module/mac80211_hwsim ] || exit 3\n"
        "[ \"$(id -u)\" = 0 ] || exit 4\n"
        "echo probe > \"$SHARE/out.txt\"\n"
        "exit 7\n"
    )
    share = tmp_path / "share"
    share.mkdir()
    r = uml.run(script, timeout=60, share=share)
    assert r.status == 7, r.console[-2000:]
    assert (share / "out.txt").read_text() == "probe\n"


def _bench(*args: str, timeout: float) -> dict:
    out_dir = Path(os.environ.get("TMPDIR", "/tmp"))
    import tempfile

    with tempfile.TemporaryDirectory(dir=out_dir) as d:
        out = Path(d) / "rows.json"
        p = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "mediumd.py"), "--vm", "uml", "--sdmac", str(SDMAC), *args, "--json", str(out)],
            capture_output=True, text=True, timeout=timeout,
        )
        assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
        rows = json.loads(out.read_text())["rows"]
    for r in rows:
        assert r.get("status") == "ok", r
    return {r["label"]: r for r in rows}


def _answered_in_order(r: dict) -> None:
    """Served, nothing lost between the kernel and the daemon, its counters and
    percentiles consistent. No rate, lateness or system-call bound: those are
    figures (bench/mediumd_goals.py checks them against their goals)."""
    assert r["served"] == r["pairs"] and r["d_tx_failed"] == 0, r
    # TCP cannot carry more than the 54 Mb/s on air, whatever the machine: no pair
    # (each alone in its cell), no channel in all.
    assert 0 < r["pair_mbps_min"] and r["pair_mbps_max"] < 54.0, r
    assert 0 < r["mbps"] < 54.0 * r["channels"], r
    assert r["syscalls_per_frame"] > 0 and r["rounds_per_frame"] > 0, r
    assert 0 <= r["late_p50_us"] <= r["late_p99_us"] <= r["late_max_us"], r


def test_one_pair_through_the_daemon_in_each_mode(uml):
    # One pair at 54 Mb/s through the daemon: running ahead (the default), each
    # output sent by the daemon at its time (--no-run-ahead), and a delivery held for
    # its status (--coalesce-us 50). Each carries the pair, and each mode engaged:
    # running ahead has the kernel send outputs at their time, the other two never.
    rows = _bench("--stations", "2", "--seconds", "4", "--no-kernel", "--no-run-ahead", "--coalesce-us", "50", timeout=600)
    ahead, exact, held = rows["sdmac-mediumd"], rows["sdmac-mediumd --no-run-ahead"], rows["sdmac-mediumd coalesce 50"]
    for r in (ahead, exact, held):
        assert r["testbed"] == "uml"
        _answered_in_order(r)
    assert ahead["timed_per_frame"] > 0, ahead
    assert exact.get("timed_per_frame", 0) == 0, exact
    assert held.get("timed_per_frame", 0) == 0, held


def test_each_busy_channel_runs_ahead_on_its_own(uml):
    # Four pairs on four channels, each pair saturating its own: some channel's
    # stations are nearly always free to send, so no instant finds every channel
    # blocked. Each channel runs ahead while its own stations are blocked: the
    # kernel sends outputs at their time (uring.rs, the bells). (That --no-run-ahead
    # never has it do so is the test above; how many system calls running ahead saves
    # here is a figure, bench/mediumd_goals.py.)
    rows = _bench("--stations", "8", "--channels", "4", "--seconds", "4", "--no-kernel", timeout=600)
    ahead = rows["sdmac-mediumd"]
    _answered_in_order(ahead)
    assert ahead["media"] == 4, ahead
    assert ahead["timed_per_frame"] > 0, ahead
