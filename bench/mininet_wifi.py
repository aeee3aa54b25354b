#!/usr/bin/env python3
"""Mininet-WiFi on sdmac-mediumd beside Mininet-WiFi's own wmediumd fork: the four
topologies of the Mininet-WiFi VM test (testbed/mininet_wifi/scenario.py: an AP and two
stations in interference mode, the same in error-probability mode, three ad-hoc
stations, a three-station mesh), each run by Mininet-WiFi in the User-Mode Linux test
bed with one daemon, then the other, first on the PATH as `wmediumd`.

    python3 bench/mininet_wifi.py --fork /path/to/wmediumd [--sdmac PATH]
                                  [--scenarios interference,error_prob,adhoc,mesh]
                                  [--pings 20] [--iperf 5] [--json OUT]

Per topology and daemon: ping loss and median RTT sta1 -> sta2 (20 pings at 0.2 s after
two not counted; through the AP where there is one), and iperf3 TCP goodput sta1 ->
sta2 for --iperf seconds, on the link as first configured (before any run-time
change); plus how many of the run-time checks the test makes came out as the
configuration implies. Printed as a table with sdmac/fork ratios; written as JSON (the
machine, the date, every figure) to --json (default bench/results/mininet-wifi.json).
Needs SDMAC_MININET_WIFI (Mininet-WiFi's source tree) and Debian's Mininet, as the
test does. UML runs the guest on one host CPU: figures compare the two daemons on the
same machine on the same day, nothing else.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "testbed" / "mininet_wifi"))
import runner  # noqa: E402

TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
SCENARIOS = ["interference", "error_prob", "adhoc", "mesh"]
# The phase whose ping and iperf3 are the link as first configured.
FIRST_PHASE = {"interference": "near", "error_prob": "configured 0", "adhoc": "near", "mesh": "near"}
# The run-time checks, (phase, src, dst, should it deliver?), as the test judges them.
CONTROL_CHECKS = {
    "interference": [("sta2 out of range", "sta1", "sta2", False), ("sta2 back", "sta1", "sta2", True)],
    "error_prob": [("configured 1", "sta1", "sta3", False), ("runtime 1", "sta1", "sta2", False),
                   ("runtime 0", "sta1", "sta2", True)],
    "adhoc": [("sta3 out of range", "sta1", "sta3", False), ("sta3 back", "sta1", "sta3", True),
              ("sta2 tx power -30 dBm", "sta1", "sta2", False), ("sta2 tx power 14 dBm", "sta1", "sta2", True)],
}
CONTROL_CHECKS["mesh"] = CONTROL_CHECKS["adhoc"]
NEAR_MAX_LOSS = 0.2


def machine() -> Dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"host": platform.node(), "kernel": platform.release(), "cpu": cpu, "cpus": os.cpu_count(),
            "load_avg": os.getloadavg()}


def summarize(run: runner.Run, scenario: str) -> Dict[str, Any]:
    phase = FIRST_PHASE[scenario]
    p = run.ping(phase, "sta1", "sta2")
    ip = [r for r in run.of("iperf", phase=phase, src="sta1", dst="sta2")]
    checks_ok, checks = 0, []
    for ph, src, dst, deliver in CONTROL_CHECKS[scenario]:
        q = run.ping(ph, src, dst)
        ok = q is not None and ((q["received"] == 0) if not deliver else (1 - q["received"] / max(q["sent"], 1)) <= NEAR_MAX_LOSS)
        checks_ok += ok
        checks.append({"phase": ph, "src": src, "dst": dst, "deliver": deliver,
                       "received": q["received"] if q else None, "sent": q["sent"] if q else None, "as_configured": ok})
    assoc = run.of("assoc")
    return {
        "status": run.status,
        "finished": bool(run.of("done")),
        "associated": {a["sta"]: a["connected"] for a in assoc} if assoc else {},
        "ping_sent": p["sent"] if p else None,
        "ping_received": p["received"] if p else None,
        "ping_loss": (1 - p["received"] / max(p["sent"], 1)) if p else None,
        "rtt_median_ms": statistics.median(p["rtts_ms"]) if p and p["rtts_ms"] else None,
        "iperf_mbps": (ip[-1]["bps"] / 1e6) if ip and ip[-1]["bps"] is not None else None,
        "control_checks": checks,
        "control_as_configured": f"{checks_ok}/{len(checks)}",
    }


def fmt(v: Any, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def ratio(a: Optional[float], b: Optional[float]) -> str:
    if a is None or b is None or b == 0:
        return "-"
    return f"{a / b:.2f}"


def print_table(rows: Dict[str, Dict[str, Dict[str, Any]]]) -> None:
    head = f"{'topology':<13} {'figure':<22} {'sdmac-mediumd':>14} {'wmediumd fork':>14} {'sdmac/fork':>10}"
    print(head)
    print("-" * len(head))
    for sc, by in rows.items():
        s, f = by.get("sdmac-mediumd", {}), by.get("wmediumd-fork", {})
        lines = [
            ("ping loss sta1->sta2", s.get("ping_loss"), f.get("ping_loss"), ".0%", False),
            ("RTT median (ms)", s.get("rtt_median_ms"), f.get("rtt_median_ms"), ".2f", True),
            ("iperf3 TCP (Mb/s)", s.get("iperf_mbps"), f.get("iperf_mbps"), ".2f", True),
        ]
        for name, a, b, spec, rat in lines:
            print(f"{sc:<13} {name:<22} {fmt(a, spec):>14} {fmt(b, spec):>14} {ratio(a, b) if rat else '':>10}")
        print(f"{sc:<13} {'run-time checks ok':<22} {s.get('control_as_configured', '-'):>14} {f.get('control_as_configured', '-'):>14}")


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sdmac", type=Path, default=TARGET / "release" / "sdmac-mediumd")
    ap.add_argument("--fork", type=Path, default=os.environ.get(runner.ENV_FORK) or None,
                    help=f"the Mininet-WiFi wmediumd fork's binary (default ${runner.ENV_FORK})")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--pings", type=int, default=20)
    ap.add_argument("--iperf", type=int, default=5, metavar="SECONDS")
    ap.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "mininet-wifi.json")
    ap.add_argument("--note", default="", help="free text kept in the JSON (e.g. which build of each daemon)")
    a = ap.parse_args(argv)
    scenarios = [s for s in a.scenarios.split(",") if s]
    bad = [s for s in scenarios if s not in SCENARIOS]
    if bad:
        ap.error(f"unknown scenario(s) {bad}; choose from {SCENARIOS}")
    if a.fork is None:
        ap.error(f"no fork binary: give --fork PATH or set {runner.ENV_FORK}")
    for name, path in (("--sdmac", a.sdmac), ("--fork", a.fork)):
        if not os.access(path, os.X_OK):
            ap.error(f"{name} {path} is not an executable")
    try:
        tree = runner.mininet_wifi_tree()
        runner.host_ready()
        uml = runner.load_uml()
        kernel = runner.uml_kernel()
    except runner.Unavailable as e:
        print(f"mininet_wifi: cannot run: {e}", file=sys.stderr)
        return 77
    daemons = {"sdmac-mediumd": a.sdmac, "wmediumd-fork": a.fork}
    rows: Dict[str, Dict[str, Dict[str, Any]]] = {}
    for sc in scenarios:
        rows[sc] = {}
        for name, binary in daemons.items():
            print(f"mininet_wifi: {sc} on {name} ...", file=sys.stderr, flush=True)
            try:
                run = runner.run_scenario(uml, binary, tree, sc, ["--pings", str(a.pings), "--iperf", str(a.iperf)],
                                          timeout=900, kernel=kernel)
            except runner.Unavailable as e:
                print(f"mininet_wifi: cannot run: {e}", file=sys.stderr)
                return 77
            rows[sc][name] = summarize(run, sc)
    print_table(rows)
    result = {
        "benchmark": "mininet-wifi",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(),
        "testbed": "uml",
        "mininet_wifi": {"tree": str(tree), "commit": runner.tree_commit(tree), "written_against": runner.PINNED_COMMIT},
        "daemons": {"sdmac-mediumd": str(a.sdmac), "wmediumd-fork": str(a.fork)},
        "note": a.note,
        "pings": a.pings,
        "iperf_seconds": a.iperf,
        "results": rows,
    }
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(json.dumps(result, indent=1) + "\n")
    print(f"mininet_wifi: wrote {a.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
