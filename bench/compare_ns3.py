#!/usr/bin/env python3
"""sdmac's engine against ns-3 on the same DCF saturation scenario, side by side.

    python3 bench/compare_ns3.py [--stations 10,50] [--duration 10] [--seeds 1,2,3] [--json OUT]

Runs the ns-3 baseline of bench/ns3 (ns-3.44 from the PyPI wheel `ns3`, a C++
scenario compiled against it by bench/ns3/build.sh; an optional dependency: without it
this prints why and exits 0) and `sdmac-sim saturation` with the same stations,
duration and seeds, one run at a time and interleaved (sdmac seed 1, ns-3 seed 1,
sdmac seed 2, ...), so that a change in the machine's load hits both alike. Prints,
per n, both throughputs, their difference, the speed of each in simulated seconds per
wall-clock second (median over seeds), and the speed-up sdmac / ns-3 of each seed's
pair as min / median / max; beside it, the same speed-up by CPU time (user + system of
each whole process, start-up included), which the other loads of a shared machine move
less than wall-clock time. The goal is judged on the wall-clock speed-up.
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

#: The engine's goal (issue: the house redesign): sdmac's simulated seconds per
#: wall-clock second over ns-3's, on the same scenario, at every n.
GOAL_SPEEDUP = 1000.0

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
SDMAC = os.path.join(TARGET, "release", "sdmac-sim")
NS3 = os.path.join(ROOT, "bench", "out", "ns3-saturation")
#: ns-3's warm-up before its measurement window, in s (as bench/ns3/run.py).
NS3_WARMUP = 0.5


def children_cpu():
    """CPU seconds (user + system) of the finished children so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def sdmac_point(n, duration, seed):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        before = children_cpu()
        subprocess.run([SDMAC, "saturation", "--stations", str(n), "--duration", str(duration), "--seed", str(seed), "--json", out.name], check=True)
        cpu = children_cpu() - before
        j = json.load(open(out.name))["results"][0]
        # CPU of the whole process (start-up included): less sensitive than wall-clock
        # time to the other loads of a shared machine.
        j["sim_per_cpu"] = duration / cpu
        return j


def ns3_point(n, duration, seed):
    """One ns-3 run; its speed counts the simulated time including the warm-up."""
    cmd = [NS3, "--stations", str(n), "--duration", repr(duration), "--warmup", repr(NS3_WARMUP),
           "--seed", str(seed), "--transport", "udp"]
    before = children_cpu()
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    cpu = children_cpu() - before
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    if len(lines) != 1:
        sys.exit(f"compare_ns3.py: expected one JSON line from {' '.join(cmd)}, got:\n{r.stdout}")
    j = json.loads(lines[0])
    j["sim_per_wall"] = j["simulated_seconds"] / j["wall_seconds"]
    j["sim_per_cpu"] = j["simulated_seconds"] / cpu
    return j


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stations", default="10,50")
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--json", help="write the comparison here")
    a = ap.parse_args()
    started = machine.describe()  # the load before this run adds its own
    if not os.path.exists(SDMAC):
        subprocess.run(["cargo", "build", "--release", "-p", "sdmac-sim"], cwd=ROOT, check=True)
    build = subprocess.run(["bash", os.path.join(HERE, "ns3", "build.sh")], capture_output=True, text=True)
    if build.returncode != 0:
        print("SKIPPED: the ns-3 baseline could not be built (the optional PyPI package `ns3` is needed):")
        print("  " + (build.stderr.strip().splitlines() or ["no output"])[-1])
        return 0
    seeds = [int(s) for s in a.seeds.split(",")]
    rows = []
    print(f"\nDCF saturation, 802.11a 54 Mb/s, 1500 B, {a.duration:g} s simulated, seeds {a.seeds}, interleaved")
    print(f"{'n':>3} | {'ns-3 Mb/s':>9} {'sdmac Mb/s':>10} {'diff':>7} | {'ns-3 sim s/s':>12} {'sdmac sim s/s':>13} "
          f"| {'speed-up min / median / max':>28}")
    for n in [int(x) for x in a.stations.split(",")]:
        pairs = []
        for seed in seeds:
            s_run = sdmac_point(n, a.duration, seed)
            n_run = ns3_point(n, a.duration, seed)
            pairs.append((seed, s_run, n_run))
        s_thr = statistics.mean(p[1]["throughput_mbps"] for p in pairs)
        n_thr = statistics.mean(p[2]["throughput_mbps"] for p in pairs)
        s_speed = statistics.median(p[1]["sim_seconds_per_wall_second"] for p in pairs)
        n_speed = statistics.median(p[2]["sim_per_wall"] for p in pairs)
        ups = [p[1]["sim_seconds_per_wall_second"] / p[2]["sim_per_wall"] for p in pairs]
        cpu_ups = [p[1]["sim_per_cpu"] / p[2]["sim_per_cpu"] for p in pairs]
        diff = (s_thr - n_thr) / n_thr * 100
        row = {"stations": n, "ns3_throughput_mbps": n_thr, "sdmac_throughput_mbps": s_thr, "difference_percent": diff,
               "ns3_sim_seconds_per_wall_second": n_speed, "sdmac_sim_seconds_per_wall_second": s_speed,
               "speedup": statistics.median(ups), "speedup_min": min(ups), "speedup_median": statistics.median(ups),
               "speedup_max": max(ups),
               "cpu_speedup_min": min(cpu_ups), "cpu_speedup_median": statistics.median(cpu_ups),
               "cpu_speedup_max": max(cpu_ups),
               "pairs": [{"seed": seed, "sdmac_sim_seconds_per_wall_second": sr["sim_seconds_per_wall_second"],
                          "ns3_sim_seconds_per_wall_second": nr["sim_per_wall"],
                          "sdmac_sim_seconds_per_cpu_second": sr["sim_per_cpu"],
                          "ns3_sim_seconds_per_cpu_second": nr["sim_per_cpu"],
                          "sdmac_throughput_mbps": sr["throughput_mbps"], "ns3_throughput_mbps": nr["throughput_mbps"]}
                         for seed, sr, nr in pairs]}
        rows.append(row)
        print(f"{n:>3} | {n_thr:9.2f} {s_thr:10.2f} {diff:+6.2f}% | {n_speed:12.2f} {s_speed:13.1f} "
              f"| {min(ups):8.0f}x {statistics.median(ups):8.0f}x {max(ups):8.0f}x")
        print(f"{'':>3} | {'':>28} | {'by CPU time (whole processes)':>26} "
              f"| {min(cpu_ups):8.0f}x {statistics.median(cpu_ups):8.0f}x {max(cpu_ups):8.0f}x")
    missed = [r["stations"] for r in rows if r["speedup"] < GOAL_SPEEDUP]
    for r in rows:
        verdict = "met" if r["speedup"] >= GOAL_SPEEDUP else "NOT met"
        print(f"goal speed-up >= {GOAL_SPEEDUP:g}x at n = {r['stations']}: {verdict} "
              f"(median {r['speedup']:.0f}x, min {r['speedup_min']:.0f}x, max {r['speedup_max']:.0f}x; "
              f"by CPU time median {r['cpu_speedup_median']:.0f}x)")
    if a.json:
        json.dump({"machine": started, "date_utc": started["date_utc"], "command": ["bench/compare_ns3.py", *sys.argv[1:]],
                   "goal_speedup": GOAL_SPEEDUP, "goal_met": not missed, "results": rows}, open(a.json, "w"), indent=2)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
