"""802.11n/ac and 802.11s mesh through sdmac-mediumd, in the QEMU VM test bed, with
real hostapd, wpa_supplicant, ping and iperf3. The guest side is
testbed/mediumd_ht.sh.

mac80211's rate control (minstrel_ht) sends data at HT MCS (and VHT MCS on a VHT
link), with legacy rates as the series' last fall-back. A daemon whose channels had
only legacy PHYs refused every such frame (reported it not acknowledged, delivered
nothing): association worked (management frames go at legacy rates), data did not.

1. ht20: hostapd with ieee80211n=1 on channel 1 (20 MHz) and a station.
2. ht40: the same with ht_capab=[HT40+] (the AP reports secondary_channel=1).
3. vht80: hostapd with hw_mode=a, channel 36, ieee80211ac=1, vht_oper_chwidth=1,
   vht_oper_centr_freq_seg0_idx=42 (80 MHz), regulatory domain US (the world
   domain lets no AP start a BSS at 5 GHz), and a station.
4. mesh: three radios in an 802.11s mesh started by wpa_supplicant (HT20 by
   default) with the wmediumd snr model A-B and B-C 30 dB, A-C -10 dB: B peers with
   both, A and C never peer, A reaches C through B (A's mesh path to C has B as next
   hop: HWMP forwarding); once more with the daemon's --threads.

Each carries data: a ping of 50 (at most 5 lost) and an iperf3 TCP run that moves
more than 0 bytes; the daemon refuses nothing (its refused counter and every
per-cause count 0, at its stop and in its last --stats line), answers every frame
(frames_in == statuses), hwsim hands it every frame (d_tx_failed 0), and its
capture (-p), read with tshark, holds data frames with the radiotap MCS field
(HT) — some at 40 MHz in ht40 — or the VHT field (vht80). The station's interface
runs at 40 MHz (ht40) or 80 MHz (vht80). Behaviour only: no throughput figure and
no choice of rate control is asserted.

Each test boots its own VM (TCG: ~25-90 s, 4 tests ~2 min on a loaded host). Skipped, with the reason, when the VM
test bed cannot run here, the daemon is not built, or tshark is missing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest

from vmbed import TESTBED, daemon_share, run

SCRIPT = TESTBED / "mediumd_ht.sh"
TSHARK = shutil.which("tshark")
pytestmark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed (make deps installs it)")

PINGS = 50
MAX_LOST = 5


@pytest.fixture(scope="module")
def share(tmp_path_factory) -> Path:
    return daemon_share(tmp_path_factory, "mediumd-ht")


def _run(share: Path, scenario: str, *variant: str):
    r = run(SCRIPT, args=[scenario, *variant, "mediumd=/share/sdmac-mediumd"], timeout=400, share=share)
    detail = f"status {r.status}, {r.accel}, VM {r.wall_seconds:.1f} s\n--- output\n{r.output}"
    assert r.status == 0, detail
    assert "MD PASS" in r.output and "MD FAIL" not in r.output, detail
    return r, detail


def _measure(output: str, scenario: str) -> Dict[str, str]:
    out: Dict[str, str] = {}
    for line in output.splitlines():
        if line.startswith(f"MEASURE {scenario} "):
            out.update(kv.split("=", 1) for kv in line.split()[2:] if "=" in kv)
    return out


def _stop_counters(output: str, detail: str) -> Dict[str, int]:
    m = re.search(
        r"stopping; Counters \{ frames_in: (\d+), statuses: (\d+), acked: (\d+), deliveries: (\d+), refused: (\d+), "
        r"refusals: Refusals \{ malformed: (\d+), no_usable_rate: (\d+), engine: (\d+), rates_skipped: (\d+) \}(?:, status_retries: \d+, statuses_refused: \d+)? \}",
        output,
    )
    assert m, f"no stop line with the refusal counters from the daemon\n{detail}"
    keys = ("frames_in", "statuses", "acked", "deliveries", "refused", "malformed", "no_usable_rate", "engine", "rates_skipped")
    return dict(zip(keys, map(int, m.groups())))


def _tshark(pcap: Path, fields: List[str], display_filter: str) -> List[List[str]]:
    args = [TSHARK, "-r", str(pcap), "-Y", display_filter, "-T", "fields"]
    for f in fields:
        args += ["-e", f]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"tshark failed: {r.stderr}"
    return [line.split("\t") for line in r.stdout.splitlines() if line.strip()]


def _carries_data_and_refuses_nothing(share: Path, scenario: str, output: str, detail: str) -> None:
    m = _measure(output, scenario)
    replies = int(m.get("ping_replies", "0"))
    assert replies >= PINGS - MAX_LOST, f"ping: {replies}/{PINGS}\n{detail}"
    report = json.loads((share / f"{scenario}-iperf.json").read_text())
    assert "error" not in report, f"iperf3: {report.get('error')}\n{detail}"
    received = report["end"]["sum_received"]["bytes"]
    assert received > 0, f"iperf3 moved no data\n{detail}"
    vals = m["d_tx_failed"].split(",")
    assert all(v != "" and int(v) == 0 for v in vals), f"hwsim could not hand frames to the daemon: {vals}\n{detail}"

    c = _stop_counters(output, detail)
    assert c["frames_in"] == c["statuses"], f"frames not answered: {c}\n{detail}"
    assert c["frames_in"] > 0 and c["deliveries"] > 0, f"{c}\n{detail}"
    for k in ("refused", "malformed", "no_usable_rate", "engine", "rates_skipped"):
        assert c[k] == 0, f"{k}: {c}\n{detail}"
    assert "reported once" not in output, f"the daemon reported a refusal\n{detail}"

    lines = [json.loads(x) for x in (share / f"{scenario}-stats.jsonl").read_text().splitlines() if x.strip()]
    daemon = [x["daemon"] for x in lines if "daemon" in x]
    assert daemon, f"no daemon line in --stats\n{detail}"
    assert daemon[-1]["refused"] == 0 and set(daemon[-1]["refusals"].values()) == {0}, f"{daemon[-1]}\n{detail}"


def _ht_data_frames(pcap: Path) -> List[List[str]]:
    """(MCS index, bandwidth code) of every data frame captured with a radiotap MCS field."""
    return _tshark(pcap, ["radiotap.mcs.index", "radiotap.mcs.bw"], "wlan.fc.type == 2 && radiotap.mcs.index")


@pytest.mark.parametrize("scenario", ["ht20", "ht40"])
def test_ht_ap_and_station(share: Path, scenario: str) -> None:
    r, detail = _run(share, scenario)
    assert "ieee80211n=1" in r.output, detail
    _carries_data_and_refuses_nothing(share, scenario, r.output, detail)
    ht = _ht_data_frames(share / f"{scenario}.pcapng")
    assert ht, f"no HT-rated data frame in the capture\n{detail}"
    if scenario == "ht40":
        assert "secondary_channel=1" in r.output, f"hostapd did not start a 40 MHz BSS\n{detail}"
        assert "width: 40 MHz" in r.output, f"the station does not run at 40 MHz\n{detail}"
        assert any(bw == "1" for _, bw in ht), f"no data frame at a 40 MHz MCS: {sorted(set(map(tuple, ht)))}\n{detail}"


def test_vht_ap_and_station_at_80_mhz(share: Path) -> None:
    r, detail = _run(share, "vht80")
    assert "ieee80211ac=1" in r.output and "vht_oper_chwidth=1" in r.output, detail
    _carries_data_and_refuses_nothing(share, "vht80", r.output, detail)
    assert "width: 80 MHz" in r.output, f"the station does not run at 80 MHz\n{detail}"
    vht = _tshark(share / "vht80.pcapng", ["radiotap.vht.mcs.0", "radiotap.vht.nss.0", "radiotap.vht.bw"], "wlan.fc.type == 2 && radiotap.vht.mcs.0")
    assert vht, f"no VHT-rated data frame in the capture\n{detail}"
    # Which MCS, streams and widths minstrel_ht picks is the kernel's choice: only
    # their presence is asserted (its sampling frames go at 40 and 80 MHz too).


@pytest.mark.parametrize("variant", [(), ("threads",)], ids=["one-thread", "threads"])
def test_mesh_of_three_forwards_through_the_middle(share: Path, variant) -> None:
    r, detail = _run(share, "mesh", *variant)
    if variant:
        assert "medium daemon registered (pid" in r.output and ", --threads)" in r.output, detail
    assert "A has no peer link to C" in r.output and "has B as next hop" in r.output, detail
    _carries_data_and_refuses_nothing(share, "mesh", r.output, detail)
    assert _ht_data_frames(share / "mesh.pcapng"), f"no HT-rated data frame in the capture\n{detail}"
