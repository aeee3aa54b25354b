"""`--pcap`: tshark reads the capture and sees DATA and ACK frames with the
right addresses and durations."""

import shutil
import subprocess
from collections import Counter

import pytest

import sdmac
from helpers import ROOT, load_json, run_sdmac

TSHARK = shutil.which("tshark")
pytestmark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed (make deps installs it)")

DATA, QOS_DATA, ACK, BEACON = 0x20, 0x28, 0x1D, 0x08
DATA_TYPES = {DATA, QOS_DATA}
FIELDS = ["wlan.fc.type_subtype", "wlan.ra", "wlan.ta", "wlan.duration", "wlan_radio.data_rate", "wlan_radio.duration", "frame.len"]


def _tshark_fields(path):
    cmd = [TSHARK, "-r", str(path), "-T", "fields", "-E", "separator=|"]
    for f in FIELDS:
        cmd += ["-e", f]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rows = []
    for line in p.stdout.splitlines():
        v = dict(zip(FIELDS, line.split("|")))
        v["subtype"] = int(v["wlan.fc.type_subtype"], 16)
        rows.append(v)
    return rows


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    d = tmp_path_factory.mktemp("pcap")
    scenario = ROOT / "examples" / "scenarios" / "two_stations_cbr.toml"
    run_sdmac("sim", scenario, "--duration", "0.3", "--json", d / "out.json", "--pcap", d / "out.pcapng", "--quiet")
    return _tshark_fields(d / "out.pcapng"), load_json(d / "out.json")


def test_frames_present(capture):
    rows, _ = capture
    kinds = Counter(r["subtype"] for r in rows)
    assert kinds[DATA] > 100  # sta1
    assert kinds[QOS_DATA] > 50  # sta2 (qos = true)
    assert kinds[ACK] > 100
    assert kinds[ACK] <= kinds[DATA] + kinds[QOS_DATA]
    assert kinds[BEACON] >= 2  # the AP beacons every 102.4 ms


def test_addresses(capture):
    rows, res = capture
    addr = {s["name"]: s["address"] for s in res["stations"]}
    senders = {addr["sta1"], addr["sta2"]}
    data = [r for r in rows if r["subtype"] in DATA_TYPES]
    assert {r["wlan.ta"] for r in data} == senders
    assert {r["wlan.ta"] for r in data if r["subtype"] == QOS_DATA} == {addr["sta2"]}
    assert {r["wlan.ra"] for r in data} == {addr["ap"]}
    acks = [r for r in rows if r["subtype"] == ACK]
    assert {r["wlan.ra"] for r in acks} == senders
    # An ACK answers the DATA frame just before it.
    for i, r in enumerate(rows):
        if r["subtype"] == ACK:
            assert rows[i - 1]["subtype"] in DATA_TYPES
            assert rows[i - 1]["wlan.ta"] == r["wlan.ra"]


def test_durations(capture):
    rows, _ = capture
    ack_us = sdmac.airtime_us("802.11a", "24", 14)
    assert ack_us == 28.0
    for r in rows:
        if r["subtype"] in DATA_TYPES:
            # MPDU: sta1 1000 B payload + 24 B header, sta2 500 B + 26 B QoS header; + 8 LLC/SNAP + 4 FCS.
            mpdu = 1000 + 24 + 12 if r["subtype"] == DATA else 500 + 26 + 12
            assert float(r["wlan_radio.data_rate"]) == 54.0
            assert int(r["wlan_radio.duration"]) == sdmac.airtime_us("802.11a", "54", mpdu)
            # NAV: SIFS + ACK at the control-response rate.
            assert int(r["wlan.duration"]) == 16 + ack_us
        elif r["subtype"] == ACK:
            assert float(r["wlan_radio.data_rate"]) == 24.0
            assert int(r["wlan_radio.duration"]) == ack_us
