"""`sdmac tap` over two mac80211_hwsim radios in a QEMU VM (testbed/tap_hwsim.sh):
the user-space data path on the radios' monitor interfaces (`--backend
hwsim:wlan0,hwsim:wlan1`), sdmac-mediumd as their medium, the kernel's own wlan0
and wlan1 down.

Judged (behaviour only, never rates): each station takes its radio's address;
ping from one namespace to the other gets replies; iperf3 UDP and TCP complete
with bytes received; sdmac-tap's statistics show frames acknowledged over the
radios and carried up to the TAP devices, and it exits cleanly on SIGINT.

Skipped, with the reason, where the VM test bed cannot run here or the binaries
(sdmac-tap, sdmac-mediumd; `cargo build --release -p sdmac-tap -p sdmac-mediumd`)
are not built.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from sdmac.bench_tap import USER_SCENARIO
from vmbed import TARGET, TESTBED, daemon_share, run

TAP = TARGET / "release" / "sdmac-tap"
SECONDS = 3

# The station pair of `sdmac bench tap`'s paths; over radios its PHY and positions
# do not apply (the daemon's medium and the radios' rates do).
SCENARIO = USER_SCENARIO


@pytest.fixture(scope="module")
def guest(tmp_path_factory):
    if not TAP.exists():
        pytest.skip(f"{TAP} is not built (cargo build --release -p sdmac-tap)")
    share = daemon_share(tmp_path_factory, "tap-hwsim")
    shutil.copy2(TAP, share / "sdmac-tap")
    (share / "tap.toml").write_text(SCENARIO)
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
