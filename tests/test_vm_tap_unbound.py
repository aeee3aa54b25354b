"""The kernel path of `sdmac bench tap` on a custom PHY, in a QEMU VM
(testbed/tap_scenarios.sh PATH_KIND=kernel PHY=FILE): two mac80211_hwsim radios in
an IBSS, `sdmac-mediumd --phy FILE` their medium, with the user path's unbound
`[phy]` table.

Judged (behaviour only, never rates): the daemon takes the table, ping crosses the
IBSS, and the below-capacity generator scenario (s5) delivers packets with a
one-way delay measured; a table the daemon refuses stops the run with the daemon's
message naming the key. Skipped, with the reason, where the VM test bed cannot run
here or the binaries are not built (`cargo build --release -p sdmac-tap -p
sdmac-mediumd`).
"""

from __future__ import annotations

import json
import shutil

import pytest

from sdmac.bench_tap import SCRIPT, unbound_phy
from vmbed import TARGET, daemon_share, run

PKTGEN = TARGET / "release" / "sdmac-pktgen"


def _share(tmp_path_factory, name: str, phy: str):
    if not PKTGEN.exists():
        pytest.skip(f"{PKTGEN} is not built (cargo build --release -p sdmac-tap)")
    share = daemon_share(tmp_path_factory, name)
    shutil.copy2(PKTGEN, share / "sdmac-pktgen")
    (share / "phy.toml").write_text(phy)
    return share


def _args(*more: str) -> list[str]:
    return ["PATH_KIND=kernel", "BIN=/share", "OUT=/share/out", "SECONDS=2", "PHY=/share/phy.toml", *more]


def test_the_kernel_path_runs_on_the_unbound_phy(tmp_path_factory):
    share = _share(tmp_path_factory, "tap-unbound", unbound_phy())
    r = run(SCRIPT, args=_args("ONLY=s5"), timeout=600, share=share)
    detail = f"status {r.status}, {r.accel}\n--- output\n{r.output}"
    assert r.status == 0 and "TAPB DONE" in r.output, detail
    assert "TAPB OK: kernel path up" in r.output, detail
    recv = json.loads((share / "out" / "s5_recv.json").read_text())
    sent = json.loads((share / "out" / "s5_send.json").read_text())
    assert sent["sent"] > 0 and 0 < recv["received"] <= sent["sent"], detail
    assert recv["delay_us"]["p50"] > 0, detail


def test_a_phy_table_the_daemon_refuses_stops_the_run_naming_the_key(tmp_path_factory):
    share = _share(tmp_path_factory, "tap-unbound-bad", unbound_phy().replace("difs_us = 3", "difs_us = 2.5"))
    r = run(SCRIPT, args=_args("ONLY=s5"), timeout=600, share=share)
    assert r.status != 0, r.output
    # The daemon exits at once; the script fails and shows the daemon's log.
    assert "TAPB FAIL: sdmac-mediumd exited" in r.output and "phy.difs_us" in r.output, r.output
