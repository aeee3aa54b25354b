"""`sdmac tap` over mac80211_hwsim radios in a QEMU VM (testbed/tap_hwsim.sh):
the user-space data path on the radios' monitor interfaces (`--backend
hwsim:wlan0,hwsim:wlan1`), sdmac-mediumd as their medium, the kernel's own
interfaces of the radios down; then an AP and two stations on three radios.

Judged (behaviour only, never rates): each station takes its radio's address;
ping from one namespace to the other gets replies; iperf3 UDP and TCP complete
with bytes received; sdmac-tap's statistics show frames acknowledged over the
radios and carried up to the TAP devices, and it exits cleanly on SIGINT. In
the AP's BSS: the AP's own beacons, the stations' authentication and association
(real management frames over the radios, in the capture), and pings relayed by
the AP and to it.

Skipped, with the reason, where the VM test bed cannot run here or the binaries
(sdmac-tap, sdmac-mediumd; `cargo build --release -p sdmac-tap -p sdmac-mediumd`)
are not built.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from sdmac.bench_tap import USER_SCENARIO
from vmbed import TARGET, TESTBED, daemon_share, run

TAP = TARGET / "release" / "sdmac-tap"
SECONDS = 3

# The station pair of `sdmac bench tap`'s paths; over radios its PHY and positions
# do not apply (the daemon's medium and the radios' rates do).
SCENARIO = USER_SCENARIO

AP_SCENARIO = """\
name = "tap AP over radios"
duration = 1.0
seed = 1

[phy]
standard = "802.11g"
rate = 54

[[station]]
name = "ap"
address = "02:00:00:00:0c:00"
position = [0, 0]
ap = true

[[station]]
name = "s1"
address = "02:00:00:00:0c:01"
position = [5, 0]

[[station]]
name = "s2"
address = "02:00:00:00:0c:02"
position = [0, 5]
"""


@pytest.fixture(scope="module")
def guest(tmp_path_factory):
    if not TAP.exists():
        pytest.skip(f"{TAP} is not built (cargo build --release -p sdmac-tap)")
    share = daemon_share(tmp_path_factory, "tap-hwsim")
    shutil.copy2(TAP, share / "sdmac-tap")
    (share / "tap.toml").write_text(SCENARIO)
    (share / "ap.toml").write_text(AP_SCENARIO)
    r = run(TESTBED / "tap_hwsim.sh", args=[str(SECONDS)], timeout=600, share=share)
    detail = f"status {r.status}, {r.accel}\n--- output\n{r.output}"
    assert r.status == 0, detail
    assert "TH PASS" in r.output, detail
    return share / "out", detail


def _json(out, name: str, detail: str):
    p = out / name
    assert p.exists(), f"{name} was not written\n{detail}"
    text = p.read_text()
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise AssertionError(f"{name} is not JSON ({e}): {text[:400]}\n{detail}") from e


def test_stations_take_their_radios_addresses(guest):
    out, detail = guest
    ready = _json(out, "ready.json", detail)
    # mac80211_hwsim numbers its radios 02:00:00:00:II:00; the scenario's addresses
    # (02:00:00:00:0b:0N) must have given way to them.
    addrs = [s["address"] for s in ready["stations"]]
    assert addrs == ["02:00:00:00:00:00", "02:00:00:00:01:00"], f"{ready}\n{detail}"
    assert ready["mode"] == "ibss", ready
    assert [s["netns"] for s in ready["stations"]] == ["sdmac-a", "sdmac-b"], ready


def test_ping_gets_replies(guest):
    out, detail = guest
    text = (out / "ping.txt").read_text()
    # busybox prints "N packets received", iputils "N received".
    m = re.search(r"(\d+) packets transmitted, (\d+) (?:packets )?received", text)
    assert m, f"no ping summary in:\n{text}\n{detail}"
    assert int(m.group(2)) > 0, f"no echo reply:\n{text}\n{detail}"


def test_iperf3_udp_completes_with_bytes(guest):
    out, detail = guest
    r = _json(out, "udp.json", detail)
    assert "error" not in r, f"{r.get('error')}\n{detail}"
    s = r["end"]["sum"]
    assert s["bytes"] > 0, f"{s}\n{detail}"
    assert s["packets"] - s["lost_packets"] > 0, f"nothing arrived: {s}\n{detail}"


def test_iperf3_tcp_completes_with_bytes(guest):
    out, detail = guest
    r = _json(out, "tcp.json", detail)
    assert "error" not in r, f"{r.get('error')}\n{detail}"
    assert r["end"]["sum_received"]["bytes"] > 0, f"{r['end']}\n{detail}"


def test_full_size_ip_packets_fit_one_frame(guest):
    # The monitor interfaces get the 2304-octet MTU, so the TAP devices keep their
    # 1500 and TCP its full segment (1500 - 20 IP - 20 TCP - 12 timestamp option).
    out, detail = guest
    r = _json(out, "tcp.json", detail)
    assert r["start"]["tcp_mss_default"] == 1448, f"{r['start']}\n{detail}"


def test_frames_crossed_the_radios(guest):
    out, detail = guest
    doc = _json(out, "tap.json", detail)
    assert doc["backends"] == ["hwsim:wlan0", "hwsim:wlan1"], doc
    assert doc["cleanup_errors"] == [], doc
    for s in doc["stations"]:
        assert s["error"] is None, f"{s}\n{detail}"
        # Both directions carry traffic (echo replies, TCP ACKs): acknowledged on
        # air and handed up to the TAP device.
        assert s["tx"]["acked"] > 0, f"{s}\n{detail}"
        assert s["tap_tx"]["frames"] > 0, f"{s}\n{detail}"


def _replies(out, name: str, detail: str) -> int:
    text = (out / name).read_text()
    m = re.search(r"(\d+) packets transmitted, (\d+) (?:packets )?received", text)
    assert m, f"no ping summary in {name}:\n{text}\n{detail}"
    return int(m.group(2))


def test_ap_and_stations_associate_over_radios(guest):
    out, detail = guest
    ready = _json(out, "ap_ready.json", detail)
    assert ready["mode"] == "ap", ready
    # The AP is radio 0, and the BSSID is its address.
    assert ready["bssid"] == "02:00:00:00:00:00", ready
    assert all(s["associated"] for s in ready["stations"]), f"{ready}\n{detail}"
    doc = _json(out, "ap_tap.json", detail)
    assert doc["backends"] == ["hwsim:wlan0", "hwsim:wlan1", "hwsim:wlan2"], doc
    by = {s["station"]: s for s in doc["stations"]}
    for name in ("s1", "s2"):
        m = by[name]["management"]
        assert m["state"].startswith("associated (AID "), f"{name}: {m}\n{detail}"
    # The AP answered authentication and association (two each) and beaconed.
    assert by["ap"]["management"]["sent"] >= 4, by["ap"]
    assert by["ap"]["management"]["received"] >= 4, by["ap"]


def test_ap_relays_and_answers_pings_over_radios(guest):
    out, detail = guest
    assert _replies(out, "ap_ping_s2.txt", detail) > 0, "s1 -> s2 through the AP"
    assert _replies(out, "ap_ping_ap.txt", detail) > 0, "s2 -> the AP"
    doc = _json(out, "ap_tap.json", detail)
    ap = next(s for s in doc["stations"] if s["station"] == "ap")
    assert ap["relayed"] > 0, ap
    assert doc["cleanup_errors"] == [], doc


def test_management_frames_are_in_the_capture(guest):
    out, detail = guest
    pcap = out / "ap.pcapng"
    assert pcap.exists() and pcap.stat().st_size > 0, f"no capture\n{detail}"
    if shutil.which("tshark") is None:
        pytest.skip("tshark is not installed (the capture's frames are not read)")
    r = subprocess.run(
        ["tshark", "-r", str(pcap), "-T", "fields", "-e", "wlan.fc.type_subtype", "-e", "wlan.ta"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    seen = [line.split("\t") for line in r.stdout.splitlines() if line.strip()]
    kinds = {int(k, 0) for k, *_ in seen}
    want = {0x08: "beacon", 0x0B: "authentication", 0x00: "association request", 0x01: "association response", 0x20: "DATA"}
    missing = [n for k, n in want.items() if k not in kinds]
    assert not missing, f"the capture has no {missing} (subtypes {sorted(kinds)})"
    beacons_from = {ta for k, ta, *_ in (x + [""] for x in seen) if int(k, 0) == 0x08}
    assert beacons_from == {"02:00:00:00:00:00"}, f"beacons come from the AP's radio only: {beacons_from}"
