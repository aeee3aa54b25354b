#!/usr/bin/env python3
"""The medium daemon's performance goals, checked in the VM test beds: each figure
printed beside its goal; exits 1 when a goal is missed (77 when no test bed runs
here). These were assertions of the functional tests once; they are figures, and
they move with whatever else runs on the machine, so they live here.

    python3 bench/mediumd_goals.py [--vm uml,qemu] [--json OUT]

uml   One pair at 54 Mb/s, 8 s: the kernel's medium, sdmac-mediumd (running ahead,
      the default), --no-run-ahead and --coalesce-us 50. Four pairs on four
      channels, 8 s: running ahead and --no-run-ahead.
qemu  One pair at 54 Mb/s, 3 s: the kernel's medium and sdmac-mediumd.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import goals  # noqa: E402
import machine  # noqa: E402
import mediumd  # noqa: E402

G = goals.Goal
S, EXACT, HELD = "sdmac-mediumd", "sdmac-mediumd --no-run-ahead", "sdmac-mediumd coalesce 50"

# (name, test bed, bench/mediumd.py arguments, goals)
EXPERIMENTS: List[Tuple[str, str, List[str], List[goals.Goal]]] = [
    ("uml-1-pair", "uml", ["--stations", "2", "--seconds", "8", "--no-run-ahead", "--coalesce-us", "50"], [
        # TCP over one 802.11g pair at 54 Mb/s carries ~23-30 Mb/s.
        G(S, "mbps", ">", 2.0, "TCP through 54 Mb/s air"), G(S, "mbps", "<", 35.0, "TCP through 54 Mb/s air"),
        G("kernel", "mbps", ">", (S, "mbps", 2.0), "the kernel's medium has no airtime"),
        G(S, "backlog_steady", ">", 0.9, "the medium never waits for the daemon"),
        G(S, "late_p50_us", "<", 5000.0, "outputs on time"),
        G(S, "timed_per_frame", ">", 0.5, "most outputs sent by the kernel at their time"),
        G(S, "syscalls_per_frame", "<=", 2.0, "at most 2 system calls a frame"),
        G(S, "syscalls_per_frame", "<", (EXACT, "syscalls_per_frame", 0.8), "running ahead saves system calls"),
        G(EXACT, "mbps", ">", 2.0), G(EXACT, "mbps", "<", 35.0), G(EXACT, "backlog_steady", ">", 0.9),
        G(HELD, "mbps", ">", 2.0), G(HELD, "mbps", "<", 35.0), G(HELD, "backlog_steady", ">", 0.9),
        G(HELD, "syscalls_per_frame", "<=", 2.0),
        G(HELD, "syscalls_per_frame", "<", (EXACT, "syscalls_per_frame", 0.8), "coalescing saves system calls"),
        G(HELD, "late_p50_us", ">", (EXACT, "late_p50_us", 1.0), "a delivery waits for its status"),
    ]),
    ("uml-4-channels", "uml", ["--stations", "8", "--channels", "4", "--seconds", "8", "--no-kernel", "--no-run-ahead"], [
        G(S, "backlog_steady", ">", 0.9), G(EXACT, "backlog_steady", ">", 0.9),
        G(S, "timed_per_frame", ">", 0.5, "each channel runs ahead on its own"),
        G(S, "syscalls_per_frame", "<", (EXACT, "syscalls_per_frame", 0.6)),
    ]),
    ("qemu-1-pair", "qemu", ["--stations", "2", "--seconds", "3"], [
        G(S, "mbps", ">", 3.0), G("kernel", "mbps", ">", (S, "mbps", 1.0), "the kernel's medium has no airtime"),
        G(S, "utilization", ">", 0.3), G(S, "late_p50_us", "<", 10_000.0),
        G(S, "syscalls_per_frame", "<", 10.0), G(S, "syscalls_per_frame", ">", 0.05),
    ]),
]


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vm", default="uml,qemu", help="test beds, comma-separated (default uml,qemu)")
    ap.add_argument("--json", metavar="OUT", help="write figures, goals and the machine as JSON")
    a = ap.parse_args(argv)
    beds = [x.strip() for x in a.vm.split(",") if x.strip()]
    report: Dict[str, Any] = {"machine": machine.describe(), "experiments": []}
    ran, all_met = 0, True
    for name, bed, args, gs in EXPERIMENTS:
        if bed not in beds:
            continue
        with tempfile.TemporaryDirectory(prefix="sdmac-goals-") as d:
            out = Path(d) / "rows.json"
            print(f"== {name}: bench/mediumd.py --vm {bed} {' '.join(args)}", flush=True)
            rc = mediumd.main(["--vm", bed, *args, "--json", str(out)])
            if rc == 77:
                print(f"{name}: skipped (the {bed} test bed cannot run here)")
                continue
            rows = json.loads(out.read_text())["rows"] if out.exists() else []
        res, met = goals.check(gs, rows)
        print("\n".join(goals.lines(res)), flush=True)
        ran += 1
        all_met &= met and rc == 0
        report["experiments"].append({"name": name, "testbed": bed, "args": args, "rc": rc, "goals": res, "rows": rows})
    report["loadavg_at_end"] = machine.describe()["loadavg_1_5_15"]
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(report, indent=2))
    if ran == 0:
        return 77
    print("every goal met" if all_met else "GOALS MISSED (see above)")
    return 0 if all_met else 1


if __name__ == "__main__":
    sys.exit(main())
