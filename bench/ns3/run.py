#!/usr/bin/env python3
"""Run the ns-3 DCF saturation baseline over station counts and seeds.

    bench/ns3/run.py --stations 1,2,5,10,20,50 --duration 10 --seeds 1,2,3 --json OUT

Builds bench/out/ns3-saturation with bench/ns3/build.sh if needed, runs every
(stations, seed) pair one after the other (never in parallel: wall-clock times are
part of the result), prints a table on stdout as each station count completes (progress
on stderr), and writes

    {"results": [{"stations": n, "throughput_mbps": mean, "events": mean,
                  "wall_seconds": median, "runs": [<one JSON line per seed>], ...}],
     "meta": {...}}

The JSON file is rewritten after each station count, so an interrupted sweep keeps
what it finished. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BUILD_SH = HERE / "build.sh"
DEFAULT_BIN = ROOT / "bench" / "out" / "ns3-saturation"

# ns-3.44, mean of 3 seeds, 10 s (shared/notes/FACTS.md section 2), and Bianchi's model.
NS3_REFERENCE = {1: 30.49, 2: 30.82, 5: 29.55, 10: 28.06, 15: 27.05, 20: 26.24, 30: 25.09, 50: 23.29}
BIANCHI = {1: 30.496, 2: 31.497, 5: 30.127, 10: 28.302, 15: 27.157, 20: 26.316, 30: 25.078, 50: 23.400}


def int_list(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}")
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"expected integers >= 1, got {text!r}")
    return values


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def build(binary: Path, python: str | None) -> None:
    env = dict(os.environ)
    if python:
        env["PYTHON"] = python
    r = subprocess.run(["bash", str(BUILD_SH)], env=env)
    if r.returncode != 0:
        sys.exit(f"run.py: {BUILD_SH} failed (exit {r.returncode})")
    if not binary.exists():
        sys.exit(f"run.py: {BUILD_SH} succeeded but {binary} does not exist")


def run_one(binary: Path, n: int, seed: int, args: argparse.Namespace) -> dict:
    cmd = [
        str(binary),
        "--stations", str(n),
        "--duration", repr(args.duration),
        "--warmup", repr(args.warmup),
        "--seed", str(seed),
        "--transport", args.transport,
    ]
    load_before = os.getloadavg()[0]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        sys.exit(f"run.py: timed out after {args.timeout} s: {' '.join(cmd)}")
    if r.returncode != 0:
        sys.exit(
            f"run.py: {' '.join(cmd)} exited {r.returncode}\n"
            f"stdout: {r.stdout.strip()}\nstderr: {r.stderr.strip()}"
        )
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    if len(lines) != 1:
        sys.exit(f"run.py: expected one JSON line from {' '.join(cmd)}, got:\n{r.stdout}")
    result = json.loads(lines[0])
    # 1-minute load average before and after: this machine may be shared, and wall-clock
    # times are only as good as the quiet they were measured in.
    result["loadavg_1min_before"] = load_before
    result["loadavg_1min_after"] = os.getloadavg()[0]
    frames = result.get("rx_total") or 0
    result["events_per_frame"] = result["events"] / frames if frames else None
    result["sim_per_wall"] = (
        result["simulated_seconds"] / result["wall_seconds"] if result["wall_seconds"] > 0 else None
    )
    return result


def summarize(n: int, runs: list[dict]) -> dict:
    thr = [r["throughput_mbps"] for r in runs]
    ev = [r["events"] for r in runs]
    wall = [r["wall_seconds"] for r in runs]
    epf = [r["events_per_frame"] for r in runs if r["events_per_frame"] is not None]
    wall_median = statistics.median(wall)
    sim = runs[0]["simulated_seconds"]
    out = {
        "stations": n,
        "throughput_mbps": statistics.fmean(thr),
        "throughput_sd": statistics.stdev(thr) if len(thr) > 1 else 0.0,
        "events": statistics.fmean(ev),
        "wall_seconds": wall_median,
        "simulated_seconds": sim,
        "events_per_frame": statistics.fmean(epf) if epf else None,
        "sim_per_wall": sim / wall_median if wall_median > 0 else None,
        "events_per_wall_second": statistics.fmean(ev) / wall_median if wall_median > 0 else None,
        "max_rss_mb": max((r.get("max_rss_kb") or 0) for r in runs) / 1024 or None,
        "runs": runs,
    }
    if n in NS3_REFERENCE:
        out["reference_ns3_mbps"] = NS3_REFERENCE[n]
    if n in BIANCHI:
        out["bianchi_mbps"] = BIANCHI[n]
    return out


def fmt(x, spec: str, width: int) -> str:
    return format(x, spec).rjust(width) if x is not None else "-".rjust(width)


def pct(x) -> str:
    return (format(x, "+.2f") + "%").rjust(7) if x is not None else "-".rjust(7)


HEADER = (
    f"{'n':>3} {'Mb/s':>8} {'sd':>6} {'ref':>6} {'vs ref':>7} {'Bianchi':>7} {'vs B.':>7}"
    f" {'events':>10} {'ev/frame':>8} {'wall s':>7} {'sim/wall':>8} {'Mev/s':>6} {'RSS MB':>6}"
)


def row(s: dict) -> str:
    ref = s.get("reference_ns3_mbps")
    bia = s.get("bianchi_mbps")
    thr = s["throughput_mbps"]
    d_ref = 100 * (thr - ref) / ref if ref else None
    d_bia = 100 * (thr - bia) / bia if bia else None
    mev = s["events_per_wall_second"] / 1e6 if s["events_per_wall_second"] else None
    return (
        f"{s['stations']:>3} {thr:>8.3f} {s['throughput_sd']:>6.3f} {fmt(ref, '.2f', 6)}"
        f" {pct(d_ref)} {fmt(bia, '.3f', 7)} {pct(d_bia)}"
        f" {s['events']:>10.0f} {fmt(s['events_per_frame'], '.1f', 8)} {s['wall_seconds']:>7.3f}"
        f" {fmt(s['sim_per_wall'], '.2f', 8)} {fmt(mev, '.2f', 6)} {fmt(s['max_rss_mb'], '.1f', 6)}"
    )


def machine_info() -> dict:
    info = {"platform": platform.platform(), "cpus": os.cpu_count()}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        info["loadavg_at_start"] = os.getloadavg()
    except OSError:
        pass
    return info


def write_json(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n")
    tmp.replace(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stations", type=int_list, default=int_list("1,2,5,10,15,20,30,50"),
                    help="comma-separated station counts (default 1,2,5,10,15,20,30,50)")
    ap.add_argument("--duration", type=float, default=10.0, help="measurement window in s (default 10)")
    ap.add_argument("--warmup", type=float, default=0.5, help="warm-up before the window in s (default 0.5)")
    ap.add_argument("--seeds", type=int_list, default=int_list("1,2,3"), help="comma-separated seeds (default 1,2,3)")
    ap.add_argument("--transport", choices=["udp", "packet-socket"], default="udp",
                    help="udp: UDP/IPv4 (default); packet-socket: no IP layer")
    ap.add_argument("--json", type=Path, help="write the results here")
    ap.add_argument("--binary", type=Path, default=DEFAULT_BIN, help=f"scenario binary (default {DEFAULT_BIN})")
    ap.add_argument("--no-build", action="store_true", help="do not run build.sh, use --binary as it is")
    ap.add_argument("--python", help="interpreter for build.sh (default: $PYTHON or python3)")
    ap.add_argument("--timeout", type=float, default=3600.0, help="per-run timeout in s (default 3600)")
    args = ap.parse_args()
    if args.duration <= 0 or args.warmup < 0:
        ap.error("--duration must be > 0 and --warmup >= 0")

    if args.no_build:
        if not args.binary.exists():
            sys.exit(f"run.py: {args.binary} does not exist (drop --no-build to build it)")
    else:
        if args.binary != DEFAULT_BIN:
            ap.error("--binary other than the default needs --no-build")
        build(args.binary, args.python)

    doc = {
        "results": [],
        "meta": {
            "simulator": "ns-3.44 (PyPI wheel ns3==3.44.post0), bench/ns3/saturation.cc",
            "scenario": "802.11a DCF saturation, DATA 54 Mb/s 1536 B MPDU, ACK 24 Mb/s, non-QoS ad hoc, "
                        "n stations -> 1 sink, retry limit 7, RTS/CTS off",
            "duration": args.duration,
            "warmup": args.warmup,
            "seeds": args.seeds,
            "transport": args.transport,
            "machine": machine_info(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "aggregation": "throughput_mbps and events: mean over seeds; wall_seconds: median",
        },
    }

    print(HEADER, flush=True)
    total = len(args.stations) * len(args.seeds)
    done = 0
    t_start = time.monotonic()
    for n in args.stations:
        runs = []
        for seed in args.seeds:
            done += 1
            log(f"[{done}/{total}] stations={n} seed={seed} ...")
            r = run_one(args.binary, n, seed, args)
            log(
                f"[{done}/{total}] stations={n} seed={seed}: {r['throughput_mbps']:.3f} Mb/s, "
                f"{r['events']} events, {r['wall_seconds']:.2f} s wall"
            )
            runs.append(r)
        s = summarize(n, runs)
        doc["results"].append(s)
        print(row(s), flush=True)
        if args.json:
            write_json(args.json, doc)
    doc["meta"]["elapsed_seconds"] = time.monotonic() - t_start
    doc["meta"]["machine"]["loadavg_at_end"] = os.getloadavg()
    if args.json:
        write_json(args.json, doc)
        log(f"wrote {args.json}")


if __name__ == "__main__":
    main()
