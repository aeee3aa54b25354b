"""`sdmac bench oneshot`: the paper's experiment on emu, through the CLI and the
binding. Checks the JSON contract, exact air times from the 802.11 formulas, the loss
proportions against the configuration, and the CSV / PNG outputs."""

from __future__ import annotations

import csv
import json
import math

import pytest

from helpers import run_sdmac

COMPONENTS = ["Tsw_req", "Thw", "Tca", "Ttoa", "Tsw_con", "TSDMAC", "Tpath"]
STATS = ["mean", "sd", "min", "p99", "p99.9", "p99.99", "max"]


def _wilson(k: int, n: int, z: float = 3.29):
    """A wide (99.9 %) Wilson interval, so that a correct run fails 1 time in 1000."""
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("oneshot")
    out = run_sdmac(
        "bench", "oneshot", "--mode", "back-to-back", "--count", "3000", "--loss-data", "0.2", "--loss-ack", "0.25",
        "--ack-preamble-share", "0.4", "--seed", "7", "--device-wait", "park",
        "--json", d / "r.json", "--csv", d / "s.csv", "--plot", d / "c.png", timeout=120,
    )
    return out, json.loads((d / "r.json").read_text()), d


def test_json_contract(run):
    _, r, _ = run
    assert r["config"]["mode"] == "back-to-back" and r["config"]["count"] == 3000
    assert r["config"]["payload"] == 50 and r["config"]["rate"] == "54" and r["config"]["seed"] == 7
    assert set(r["sets"]) >= {"A", "LD", "LA"}
    assert sum(r["sets"][s]["count"] for s in r["sets"]) == 3000
    for name in ("A", "LD", "LA"):
        s = r["sets"][name]
        assert s["count"] > 0
        assert set(s["components"]) == set(COMPONENTS)
        for c in COMPONENTS:
            st = s["components"][c]
            assert set(STATS) <= set(st)
            assert st["min"] <= st["p99"] <= st["p99.9"] <= st["p99.99"] <= st["max"]
            assert st["min"] <= st["mean"] <= st["max"]


def test_air_times_are_exact(run):
    _, r, _ = run
    # 50 B at 54 Mb/s: 86 B MPDU = 36 µs; SIFS 16; ACK at the basic rate 6 Mb/s = 44 µs.
    assert r["sets"]["A"]["ttoa_us"] == {"96": r["sets"]["A"]["count"]}
    assert r["sets"]["LD"]["ttoa_us"] == {"81": r["sets"]["LD"]["count"]}  # DATA + ACKTimeout 45
    la = r["sets"]["LA"]["ttoa_us"]
    assert set(la) == {"81", "96"}, la  # bimodal: preamble missed / ACK corrupted after it
    for name in ("A", "LD", "LA"):
        comp = r["sets"][name]["components"]
        assert comp["Thw"]["max"] == 0.0
        # Back to back with a 200 µs gap, access is immediate — except for the few
        # requests that meet one of the AP's beacons (one every 51.2 ms of wall time:
        # ~20 in a run, ~0.6 % of the requests, more when the host is loaded and the
        # run takes longer, so a set's 99th percentile may be one of them). A delay
        # on every request (a DIFS, 28 µs) would put the mean far above 10 µs.
        assert comp["Tca"]["min"] == 0.0
        assert comp["Tca"]["mean"] < 10.0, comp["Tca"]


def test_loss_proportions_match_the_configuration(run):
    _, r, _ = run
    n = 3000
    ld, la = r["sets"]["LD"]["count"], r["sets"]["LA"]["count"]
    lo, hi = _wilson(ld, n)
    assert lo <= 0.2 <= hi, (ld, lo, hi)
    lo, hi = _wilson(la, n - ld)
    assert lo <= 0.25 <= hi, (la, lo, hi)
    short = int(r["sets"]["LA"]["ttoa_us"]["81"])
    lo, hi = _wilson(short, la)
    assert lo <= 0.4 <= hi, (short, la, lo, hi)


def test_table_and_checks_are_printed(run):
    out, r, _ = run
    for title in ("A — acked", "LD — DATA lost", "LA — DATA delivered, ACK lost"):
        assert title in out.stdout
    for c in COMPONENTS:
        assert c in out.stdout
    assert "acked 36 + 16 + 44 = 96 µs" in out.stdout
    assert f"Ttoa measured A: 96 µs × {r['sets']['A']['count']}" in out.stdout


def test_csv_and_plot(run):
    _, r, d = run
    with open(d / "s.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 3000
    assert {"id", "set", *COMPONENTS} <= set(rows[0])
    assert sum(1 for x in rows if x["set"] == "LD") == r["sets"]["LD"]["count"]
    for x in rows:
        parts = sum(float(x[c]) for c in ("Tsw_req", "Thw", "Tca", "Ttoa", "Tsw_con"))
        assert abs(parts - float(x["Tpath"])) < 1e-6
    png = (d / "c.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


def test_beacon_mode_and_ack_timeout():
    """The paper's mode: each request 20 ms after a beacon; ath9k's 25 µs ACK timeout."""
    import sdmac._core as core

    text, cols = core.bench_oneshot(mode="beacon", count=12, beacon_interval_tu=30, twait_ms=5.0,
                                    loss_data=0.5, loss_ack=0.0, ack_timeout_us=25.0, seed=3, device_wait="park")
    r = json.loads(text)
    assert r["config"]["ack_timeout_us"] == 25.0
    assert r["sets"]["LD"]["count"] > 0 and r["sets"]["A"]["count"] > 0
    assert r["sets"]["LD"]["ttoa_us"] == {"61": r["sets"]["LD"]["count"]}  # 36 + 25
    assert set(cols["set"]) <= {"A", "LD"} and len(cols["id"]) == 12
    assert all(t == 0.0 for t in cols["Tca"])  # 5 ms after a beacon the channel is quiet


def test_device_latency_profile_is_thw():
    import sdmac._core as core

    text, cols = core.bench_oneshot(mode="back-to-back", count=50, device_req_us="3", device_con_us="4-6",
                                    loss_data=0.0, loss_ack=0.0, device_wait="park")
    assert all(7.0 <= t <= 9.0 for t in cols["Thw"]), cols["Thw"][:5]


@pytest.mark.parametrize("args, expect", [
    (["--mode", "sideways"], "Invalid value for '--mode'"),
    (["--loss-data", "1.5"], "--loss-data"),
    (["--device-latency", "5"], "REQ,CON"),
    (["--device-latency", "a,b"], "device_req_us"),
    (["--basic-rates", "7"], "basic rate 7"),
    (["--rate", "7"], "rate"),
])
def test_bad_options_are_clean_errors(args, expect):
    out = run_sdmac("bench", "oneshot", "--count", "1", "-q", *args, check=False, timeout=60)
    assert out.returncode != 0
    assert expect in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


def test_summary_of_any_samples():
    import sdmac

    s = sdmac.summary([float(x) for x in range(1, 101)])
    assert s["count"] == 100 and s["mean"] == 50.5 and s["min"] == 1.0 and s["max"] == 100.0
    assert s["p99"] == 99.0 and s["p99.9"] == 100.0 and s["p99.99"] == 100.0
    lo, hi = s["ci95"]
    assert lo < 50.5 < hi and abs((hi - lo) / 2 - 1.984217 * s["sd"] / 10) < 1e-4
    assert sdmac.summary([]) is None
    with pytest.raises(ValueError, match="sample 2 is not finite"):
        sdmac.summary([1.0, 2.0, float("nan")])
