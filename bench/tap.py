#!/usr/bin/env python3
"""The tap benchmark: DPDK-WiFi's four scenarios (TCP with iperf3; one-way delay
at 50,000 pps of 60 B; maximum UDP rate at 1500 B; maximum packets/s at 60 B)
between two stations, sdmac's user-space path (`sdmac tap` over the emulated
medium, on the host and in the VM test bed; and over the kernel path's radios,
`--backend hwsim:...`, in the VM) against the kernel path (two mac80211_hwsim
radios with sdmac-mediumd, in the VM). The logic is
python/sdmac/bench_tap.py, also behind `sdmac bench tap`.

    python3 bench/tap.py [--runs 3] [--seconds 5] [--paths user-host,user-vm,hwsim-vm,kernel-vm]
                         [--json bench/results/tap.json]

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
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release"
    try:
        report = bt.bench([p for p in a.paths.split(",") if p], a.runs, a.seconds, target, lambda s: print(s, file=sys.stderr, flush=True))
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
