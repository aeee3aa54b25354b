#!/usr/bin/env python3
"""The tap benchmark: DPDK-WiFi's four scenarios (TCP with iperf3; one-way delay
at 50,000 pps of 60 B; maximum UDP rate at 1500 B; maximum packets/s at 60 B)
between two stations, sdmac's user-space path (`sdmac tap` over the emulated
medium, on the host and in the VM test bed; and over the kernel path's radios,
`--backend hwsim:...`, in the VM) against the kernel path (two mac80211_hwsim
radios with sdmac-mediumd, in the VM). The logic is
python/sdmac/bench_tap.py, also behind `sdmac bench tap`.

    python3 bench/tap.py [--runs 3] [--seconds 5] [--paths user-host,user-vm,hwsim-vm,kernel-vm]
                         [--scenarios s1,s2,s3,s4] [--perf s4 [--perf-dir bench/results]]
                         [--json bench/results/tap.json]

Paths ending in -unbound run on a custom PHY whose air does not cap 60 B frames
(user-host-unbound, user-vm-unbound, kernel-vm-unbound). --scenarios picks some of
s1..s5 (s5: one-way delay at --s5-pps, 2,000, packets/s of 60 B, below capacity). --perf sN adds one
run of each path, of sN alone, under `perf record -a -g -e cpu-clock` (in the VM for
the VM paths); its `perf script` text goes to PERF_DIR/perf_PATH_sN.txt (fold it
with bench/fold_perf.py; `--breakdown FILE.folded...` groups its samples: mac80211,
hwsim and netlink, the daemon, UDP/IP, TUN, io_uring, scheduling, the generator).

Needs root, /dev/net/tun, iperf3, and release builds of sdmac-tap, sdmac-pktgen
and sdmac-mediumd. Each VM run boots its own VM (software emulation on this
machine); runs are interleaved, one of each path in turn.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("sdmac_bench_tap", ROOT / "python" / "sdmac" / "bench_tap.py")
assert _spec is not None and _spec.loader is not None
bt = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = bt
_spec.loader.exec_module(bt)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--paths", default=",".join(bt.PATHS))
    ap.add_argument("--scenarios", default=",".join(bt.DEFAULT_SCENARIOS))
    ap.add_argument("--perf", default=None)
    ap.add_argument("--s5-pps", type=int, default=2000)
    ap.add_argument("--perf-dir", type=Path, default=ROOT / "bench" / "results")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--breakdown", type=Path, nargs="+", help="print the grouped breakdown of these folded profiles and exit")
    a = ap.parse_args()
    if a.breakdown:
        for f in a.breakdown:
            b = bt.perf_breakdown(f.read_text())
            total = sum(b.values())
            busy = total - b.get("idle", 0)
            print(f"{f}: {total} samples, {busy} busy")
            for g, n in b.items():
                share = "" if g == "idle" else f", {100 * n / busy:.1f} % of busy"
                print(f"  {g}: {n} ({100 * n / total:.1f} % of all{share})")
        return 0
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release"
    try:
        report = bt.bench([p for p in a.paths.split(",") if p], a.runs, a.seconds, target, lambda s: print(s, file=sys.stderr, flush=True),
                          [x for x in a.scenarios.split(",") if x], a.perf, a.perf_dir, a.s5_pps)
    except bt.BenchError as e:
        print(f"bench/tap.py: {e}", file=sys.stderr)
        return 2
    print(bt.table(report["summary"]))
    for g in report["goals"]:
        print(bt.goal_line(g))
    if a.json:
        a.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
