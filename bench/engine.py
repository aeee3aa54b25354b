#!/usr/bin/env python3
"""Engine benchmark: the saturation scenario (802.11a, 54 Mb/s, 1500 B, n saturated
stations) run several times; prints the median events per second and simulated seconds
per wall-clock second, and the peak memory of a 10,000-station medium.

    python3 bench/engine.py [--runs 5] [--stations 10,50] [--duration 10] [--json OUT]

Uses the release binary target/release/sdmac-sim (built if missing). The machine is
shared and noisy: medians of several runs are reported, with min and max.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import machine  # noqa: E402  (bench/machine.py)

#: The engine's goals (issue: the house redesign): memory per idle station of a large
#: medium, in KiB.
GOAL_KIB_PER_STATION = 2.0

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
BIN = os.path.join(TARGET, "release", "sdmac-sim")

MEMORY_SCENARIO = """name = "10k stations"
duration = {duration}
seed = 1
[phy]
standard = "802.11a"
rate = 54
[[station]]
name = "sta"
count = {n}
grid_spacing_m = 150
[[flow]]
from = "sta"
to = "broadcast"
pattern = "poisson"
rate_pps = 1
payload = 100
"""


def build():
    if not os.path.exists(BIN):
        subprocess.run(["cargo", "build", "--release", "-p", "sdmac-sim"], cwd=ROOT, check=True)


def run(args):
    """Runs sdmac-sim and returns (parsed JSON, peak RSS of the child in MiB)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        # A fresh process per run: ru_maxrss of children is the max over them, so the
        # memory run goes first (see main).
        subprocess.run([BIN, *args, "--json", out.name], check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        with open(out.name) as f:
            return json.load(f), max(before, after) / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--stations", default="10,50")
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--memory-stations", type=int, default=10_000)
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args()
    build()
    started = machine.describe()
    results = {"machine": started, "started_utc": started["date_utc"], "command": ["bench/engine.py", *sys.argv[1:]],
               "saturation": [], "memory": None}

    # Memory first: RUSAGE_CHILDREN keeps the maximum over all children.
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(MEMORY_SCENARIO.format(n=a.memory_stations, duration=1.0))
        scen = f.name
    print(f"memory: {a.memory_stations} stations on one medium (150 m grid), 1 s ...", file=sys.stderr, flush=True)
    j, rss = run([scen])
    os.unlink(scen)
    kib = rss * 1024 / a.memory_stations
    results["memory"] = {"stations": a.memory_stations, "peak_rss_mib": round(rss, 1), "kib_per_station": round(kib, 2),
                         "goal_kib_per_station": GOAL_KIB_PER_STATION, "goal_met": kib <= GOAL_KIB_PER_STATION,
                         "events": j["events"], "wall_seconds": j["wall_seconds"]}
    print(f"  peak RSS {rss:.1f} MiB ({kib:.1f} KiB per station), {j['events']} events in {j['wall_seconds']:.2f} s")
    print(f"  goal <= {GOAL_KIB_PER_STATION:g} KiB per station: {'met' if kib <= GOAL_KIB_PER_STATION else 'NOT met'} ({kib:.1f})")

    print(f"\nsaturation, 802.11a 54 Mb/s 1500 B, {a.duration:g} simulated s, median of {a.runs} runs")
    print(f"{'n':>4} {'Mb/s':>8} {'events':>9} {'ev/frame':>8} {'Mev/s':>7} {'sim s/wall s':>13} {'(min..max)':>18}")
    for n in [int(x) for x in a.stations.split(",")]:
        runs = []
        for seed in range(1, a.runs + 1):
            j, _ = run(["saturation", "--stations", str(n), "--duration", str(a.duration), "--seed", str(seed)])
            runs.append(j["results"][0])
        speed = [r["sim_seconds_per_wall_second"] for r in runs]
        evs = [r["events_per_second"] for r in runs]
        thr = statistics.mean(r["throughput_mbps"] for r in runs)
        events = statistics.mean(r["events"] for r in runs)
        frames = statistics.mean(r["attempts"] for r in runs)
        row = {
            "stations": n,
            "throughput_mbps": thr,
            "events": events,
            "events_per_attempt": events / frames,
            "events_per_second_median": statistics.median(evs),
            "sim_seconds_per_wall_second_median": statistics.median(speed),
            "sim_seconds_per_wall_second_min": min(speed),
            "sim_seconds_per_wall_second_max": max(speed),
        }
        results["saturation"].append(row)
        print(f"{n:>4} {thr:8.2f} {events:9.0f} {events / frames:8.2f} {statistics.median(evs) / 1e6:7.2f} "
              f"{statistics.median(speed):13.1f} {f'({min(speed):.0f}..{max(speed):.0f})':>18}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0 if results["memory"]["goal_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
