"""Confirmed one-shots timed at every plane, for bench/oneshot_breakdown.py: the
halves of Thw and of the confirmation path that `sdmac bench oneshot`'s per-sample
data only carries as sums (run on the host for emu, in the guest for hwsim by
testbed/oneshot_breakdown.sh).

    python3 oneshot_planes.py BACKEND COUNT

BACKEND "emu" is the paper's testbed (sdmac.emu.Session.paper, device thread
parked); anything else is opened with sdmac.open and sent to its BSSID. 50 B at
54 Mb/s, one try, 250 µs after each confirmation. Prints one JSON object: per part
(µs) the median and p99 over the acknowledged one-shots with every plane recorded."""

import json
import sys
import time
from contextlib import ExitStack

import sdmac

PARTS = {"send": ("t3", "t4"), "echo": ("t5", "t7"), "publish": ("t7", "t8"), "pickup": ("t8", "t9"), "wake": ("t7", "t9"), "tpath": ("t1", "t9")}


def quantile(v, q):
    s = sorted(v)
    return s[max(0, min(len(s) - 1, -int(-q * len(s) // 1) - 1))]


def main():
    backend, count = sys.argv[1], int(sys.argv[2])
    with ExitStack() as stack:
        if backend == "emu":
            from sdmac.emu import Session

            iface = stack.enter_context(Session.paper(device_wait="park")).interface("sta")
            dst = "02:00:00:00:00:01"
        else:
            iface = sdmac.open(backend)
            dst = iface.get("bssid")
        vals = {k: [] for k in PARTS}
        for i in range(1, count + 1):
            iface.data_req(i, b"\x5a" * 50, dst=dst, rates="54x1")
            c = iface.data_con(timeout=10.0)
            if c is None:
                sys.exit(f"error: no confirmation for request {i} within 10 s")
            ts = c.timestamps
            if c.set == "A" and all(ts.get(p) for ab in PARTS.values() for p in ab):
                for k, (a, b) in PARTS.items():
                    vals[k].append((ts[b] - ts[a]) / 1000.0)
            time.sleep(250e-6)
    n = len(vals["send"])
    out = {"count": count, "acked_with_planes": n,
           "parts": {k: {"median_us": quantile(v, 0.5) if v else None, "p99_us": quantile(v, 0.99) if v else None} for k, v in vals.items()}}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
