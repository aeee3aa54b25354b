"""The SDMAC paper's one-shot measurement loop on any backend: N confirmed one-shots
(one try each) at one rate to the interface's BSS, then the count of each status
and the median latency t9 - t1. The backend is opened by name, so this script runs
unchanged on every backend:

    python examples/api/oneshot.py --backend emu
    python examples/api/oneshot.py --backend emu:examples/scenarios/two_stations_cbr.toml#sta1
    python examples/api/oneshot.py --backend hwsim:wlan1

examples/c/oneshot.c is the same loop in C, and prints the same lines. With
`--clock virtual` (emu only) the medium runs on the virtual clock: the same seed gives
the same run, so both print exactly the same lines.

A one-shot given within aCCATime (4 µs) of a beacon's start collides with it, as on a
radio, so once in a while one of the 200 is not acked.

Expect: one-shots: 200 at 54 Mb/s
"""

import argparse
import statistics
import sys
import time

import sdmac

STATUSES = ("acked", "ack_timeout", "sent", "dropped", "no_report")

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--backend", default="emu", help="backend name (default: emu)")
ap.add_argument("--count", type=int, default=200, help="one-shots (default: 200)")
ap.add_argument("--rate", default="54", help="rate, Mb/s or MCS name (default: 54)")
ap.add_argument("--payload", type=int, default=50, help="payload bytes (default: 50)")
ap.add_argument("--dst", help="destination (default: the interface's bssid)")
ap.add_argument("--clock", choices=("wall", "virtual"), default="wall",
                help="the emulated medium's clock (default: wall; virtual: emu only)")
ap.add_argument("--gap-us", type=float, default=250.0, help="pause after each confirmation, µs (default: 250)")
args = ap.parse_args()

try:
    iface = sdmac.open(args.backend, clock=args.clock)
except (sdmac.OpenError, ValueError) as e:
    sys.exit(f"error: {e}")

dst = args.dst or iface.get("bssid")
counts = dict.fromkeys(STATUSES, 0)
latency_us = []
for i in range(1, args.count + 1):
    iface.data_req(i, b"\x5a" * args.payload, dst=dst, rates=f"{args.rate}x1")
    c = iface.data_con(timeout=5.0)
    if c is None:
        sys.exit(f"error: no confirmation for request {i} within 5 s")
    counts[c.status] += 1
    ts = c.timestamps
    if ts["t1"] is not None and ts["t9"] is not None:
        latency_us.append((ts["t9"] - ts["t1"]) / 1000)
    time.sleep(args.gap_us * 1e-6)

print(f"backend: {args.backend}")
print(f"one-shots: {args.count} at {args.rate} Mb/s, {args.payload} B, to {dst}")
for s in STATUSES:
    print(f"{s}: {counts[s]}")
if latency_us:
    print(f"latency median (t9 - t1): {statistics.median(latency_us):.1f} us")
