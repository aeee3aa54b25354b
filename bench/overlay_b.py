#!/usr/bin/env python3
"""Seamless redundancy and rate adaptation on emu, with the figures the tests do not
assert (issue 17, items 3 and 4).

    .venv/bin/python bench/overlay_b.py [--packets 300] [--json OUT]

Redundancy: channels 36 and 40 (802.11a, 24 Mb/s, one try per copy, packets 400 µs
apart). The AP loses the same share of DATA frames on both channels, drawn
independently, for each loss level. For each level it prints loss and latency
percentiles (request to the end on air of the first copy received) for one channel,
for two channels, and for two channels with duplicate avoidance (cancelling), with
the copies on air and the airtime saved.
Goal: two channels lose less than one at every level.

Rate adaptation: a station 40 m from its AP moves away (tx_power 20, 14, then
10 dBm, 400 ms each; 2000-byte payloads, saturated). It prints the packets the
adaptation delivers against every fixed 802.11a rate (8 tries) over the same run.
Goal: the adaptation delivers more than any single fixed rate.

The emu backend runs on the wall clock. On a loaded machine the host's request and
confirmation paths can limit what is delivered, and the delivered counts then say
more about the machine than about the rates.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import machine  # bench/machine.py
from sdmac._core import rate_run, redundancy_run
from sdmac.emu import Session

AP_ADDR = "02:00:00:00:00:01"
LOSSES = [0.01, 0.05, 0.10, 0.20]
RATES = ["6", "9", "12", "18", "24", "36", "48", "54"]
#: The two channels (centre frequencies, MHz: 36 and 40) and their media's seeds.
FREQS_MHZ = (5180, 5200)
CHANNEL_SEEDS = (11, 22)
#: The moving station's start: 48 and 54 Mb/s fail at its SNR, 36 does not.
FAR_DISTANCE_M = 40.0
FAR_SEED = 7


def channel(freq_mhz: int, loss: float, seed: int) -> str:
    return f"""
name = "channel {freq_mhz}"
duration = 1.0
seed = {seed}
[phy]
standard = "802.11a"
freq_mhz = {freq_mhz}
basic_rates = [6]
[[station]]
name = "ap"
address = "{AP_ADDR}"
position = [0, 0]
ap = true
[[station]]
name = "sta"
address = "02:00:00:00:00:02"
position = [10, 0]
[[link]]
from = "sta"
to = "ap"
error_prob = {loss}
"""


def channels(loss_a: float, loss_b: float) -> tuple[Session, Session]:
    """The two channels, each an emu medium with an AP and a station (interfaces "ap"
    and "sta"), the AP losing `loss_a` and `loss_b` of the DATA frames."""
    return (
        Session.from_scenario(channel(FREQS_MHZ[0], loss_a, CHANNEL_SEEDS[0]), interfaces=["ap", "sta"]),
        Session.from_scenario(channel(FREQS_MHZ[1], loss_b, CHANNEL_SEEDS[1]), interfaces=["ap", "sta"]),
    )


def far_station() -> Session:
    """The SDMAC paper's testbed with the station FAR_DISTANCE_M from its AP."""
    return Session.paper(distance_m=FAR_DISTANCE_M, seed=FAR_SEED)


def redundancy(packets: int) -> list[dict[str, Any]]:
    rows = []
    for loss in LOSSES:
        for mode in ("one", "two", "two_cancel"):
            a, b = channels(loss, loss)
            with a, b:
                r = redundancy_run(
                    [a.interface("sta"), b.interface("sta")],
                    [a.interface("ap"), b.interface("ap")],
                    [AP_ADDR] * 2,
                    mode=mode,  # type: ignore[arg-type]
                    rates="24x1",
                    packets=packets,
                    spacing_us=400.0,
                )
            rows.append({"loss": loss, **r})
            lat = r["latency_ns"]
            print(
                f"loss {loss:5.0%}  {mode:10s}  lost {r['lost']:4d}/{r['sent']}"
                f"  latency p50 {lat['p50'] / 1e3:8.1f} µs  p95 {lat['p95'] / 1e3:8.1f} µs  p99 {lat['p99'] / 1e3:8.1f} µs"
                f"  on air {r['copies_on_air']:4d}  cancelled {r['copies_cancelled']:4d}"
                f"  saved {r['airtime_saved_ns'] / 1e6:6.2f} ms"
            )
        one, two = rows[-3], rows[-2]
        verdict = "meets" if two["lost"] < one["lost"] or one["lost"] == 0 else "MISSES"
        print(f"  goal (two channels lose less than one): {verdict}")
    return rows


def rate() -> dict[str, Any]:
    steps = [(400.0, 14.0), (800.0, 10.0)]
    kw: dict[str, Any] = {"duration_ms": 1200.0, "payload_len": 2000, "steps": steps}
    out: dict[str, Any] = {}
    with far_station() as s:
        a = rate_run(s.interface("sta"), AP_ADDR, update_ms=20.0, **kw)
    out["adaptive"] = a
    best = [p["best"] for p in a["phases"]]
    print(f"adaptive: {a['delivered']} delivered, per phase "
          f"{[p['delivered'] for p in a['phases']]}, best rate per phase {best}")
    for r in RATES:
        with far_station() as s:
            f = rate_run(s.interface("sta"), AP_ADDR, fixed=f"{r}x8", **kw)
        out[r] = f
        print(f"fixed {r:>2} Mb/s: {f['delivered']} delivered, per phase "
              f"{[p['delivered'] for p in f['phases']]}")
    top = max(RATES, key=lambda r: out[r]["delivered"])
    verdict = "meets" if a["delivered"] > out[top]["delivered"] else "MISSES"
    print(f"  goal (more than any fixed rate; the best fixed is {top} Mb/s "
          f"with {out[top]['delivered']}): {verdict}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--packets", type=int, default=300)
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    print(f"machine: {machine.describe()}")
    result = {"command": " ".join(sys.argv), "machine": machine.describe(),
              "redundancy": redundancy(args.packets), "rate": rate()}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
