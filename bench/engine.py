#!/usr/bin/env python3
"""Engine benchmark, each part against its goal (issue: the house redesign):

* speed: the saturation scenario (802.11a, 54 Mb/s, 1500 B, n saturated stations) run
  several times; the median events per second and simulated seconds per wall-clock
  second;
* cost per frame from 10 to 1000 stations on one medium (`--sweep`): CPU microseconds
  (user + system of the sdmac-sim process, setup included) per delivered frame and per
  event; goal: flat, the cost at the largest n at most 1.5 times the cost at the
  smallest;
* memory per idle station of a medium of 10,000 stations on a 150 m grid, measured
  inside the engine (crates/sdmac-medium/examples/engine_memory.rs: the growth of the
  resident set while the stations are added; goal: at most 2 KiB), with the same
  medium under light broadcast traffic and the whole simulator's peak RSS beside it.

    python3 bench/engine.py [--runs 5] [--stations 10,50] [--duration 10]
                            [--sweep 10,50,100,300,1000] [--sweep-duration 2] [--json OUT]

Uses the release binaries target/release/sdmac-sim and
target/release/examples/engine_memory (built if missing). The machine is shared and
noisy: medians of several runs are reported, with min and max.
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
#: Cost per delivered frame at the largest n of the sweep over the cost at the smallest.
GOAL_FLAT_RATIO = 1.5

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
BIN = os.path.join(TARGET, "release", "sdmac-sim")
MEMORY_BIN = os.path.join(TARGET, "release", "examples", "engine_memory")
#: Payload of the saturation scenario (bytes): a delivered frame carries this much.
PAYLOAD = 1500

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
    if not os.path.exists(MEMORY_BIN):
        subprocess.run(["cargo", "build", "--release", "-p", "sdmac-medium", "--example", "engine_memory"],
                       cwd=ROOT, check=True)


def run(args):
    """Runs sdmac-sim; returns (parsed JSON, peak RSS of the children so far in MiB,
    CPU seconds of this child)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        # A fresh process per run: ru_maxrss of children is the max over them, so the
        # memory run goes first (see main).
        subprocess.run([BIN, *args, "--json", out.name], check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        with open(out.name) as f:
            return json.load(f), max(before.ru_maxrss, after.ru_maxrss) / 1024.0, cpu


def engine_memory(stations, traffic):
    """The engine's own memory for `stations` stations (examples/engine_memory)."""
    r = subprocess.run([MEMORY_BIN, str(stations), traffic], capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def sweep(points, duration, runs):
    """CPU per delivered frame and per event for each n on one medium."""
    rows = []
    print(f"\ncost per frame, saturation on one medium, {duration:g} simulated s, median of {runs} runs")
    print(f"{'n':>5} {'Mb/s':>7} {'frames':>8} {'att/frame':>9} {'events':>9} {'CPU us/frame':>13} {'(min..max)':>16} "
          f"{'CPU ns/event':>13} {'CPU ns/att/rx':>13}")
    for n in points:
        per_frame, per_event, per_rx, thr, frames_l, events_l, att_l = [], [], [], [], [], [], []
        for seed in range(1, runs + 1):
            j, _, cpu = run(["saturation", "--stations", str(n), "--duration", str(duration), "--seed", str(seed)])
            r = j["results"][0]
            frames = r["throughput_mbps"] * 1e6 * duration / (8 * PAYLOAD)
            per_frame.append(cpu * 1e6 / frames if frames else float("inf"))
            per_event.append(cpu * 1e9 / r["events"])
            # Every attempt is heard by the n other stations on the medium (the AP and
            # the n - 1 other senders): the work the model does per attempt and receiver.
            per_rx.append(cpu * 1e9 / (r["attempts"] * n))
            att_l.append(r["attempts"])
            thr.append(r["throughput_mbps"])
            frames_l.append(frames)
            events_l.append(r["events"])
        row = {"stations": n, "throughput_mbps": statistics.mean(thr), "delivered_frames": statistics.mean(frames_l),
               "events": statistics.mean(events_l), "attempts": statistics.mean(att_l),
               "attempts_per_delivered_frame": statistics.mean(att_l) / statistics.mean(frames_l),
               "cpu_us_per_frame_median": statistics.median(per_frame), "cpu_us_per_frame_min": min(per_frame),
               "cpu_us_per_frame_max": max(per_frame), "cpu_ns_per_event_median": statistics.median(per_event),
               "cpu_ns_per_attempt_per_receiver_median": statistics.median(per_rx)}
        rows.append(row)
        print(f"{n:>5} {row['throughput_mbps']:7.2f} {row['delivered_frames']:8.0f} "
              f"{row['attempts_per_delivered_frame']:9.2f} {row['events']:9.0f} "
              f"{row['cpu_us_per_frame_median']:13.2f} {f'({min(per_frame):.1f}..{max(per_frame):.1f})':>16} "
              f"{row['cpu_ns_per_event_median']:13.0f} {row['cpu_ns_per_attempt_per_receiver_median']:13.1f}")
    ratio = rows[-1]["cpu_us_per_frame_median"] / rows[0]["cpu_us_per_frame_median"]
    met = ratio <= GOAL_FLAT_RATIO
    print(f"  goal flat: cost per frame at n = {rows[-1]['stations']} over n = {rows[0]['stations']} "
          f"<= {GOAL_FLAT_RATIO:g}: {'met' if met else 'NOT met'} ({ratio:.1f})")
    # Not the goal, its explanation: the same ratio per attempt and receiver, the unit
    # of work that grows with n (attempts per delivered frame and receivers per attempt).
    rx_ratio = rows[-1]["cpu_ns_per_attempt_per_receiver_median"] / rows[0]["cpu_ns_per_attempt_per_receiver_median"]
    print(f"  cost per attempt and receiver at n = {rows[-1]['stations']} over n = {rows[0]['stations']}: {rx_ratio:.2f}")
    return {"duration_s": duration, "runs": runs, "points": rows, "goal_ratio_max": GOAL_FLAT_RATIO,
            "ratio_largest_to_smallest": ratio, "goal_met": met,
            "ratio_per_attempt_per_receiver_largest_to_smallest": rx_ratio}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--stations", default="10,50")
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--memory-stations", type=int, default=10_000)
    ap.add_argument("--sweep", default="10,50,100,300,1000", help="stations of the cost-per-frame sweep")
    ap.add_argument("--sweep-duration", type=float, default=2.0)
    ap.add_argument("--sweep-runs", type=int, default=3)
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
    print(f"memory: {a.memory_stations} stations on one medium (150 m grid)", file=sys.stderr, flush=True)
    j, rss, _ = run([scen])
    os.unlink(scen)
    sim_kib = rss * 1024 / a.memory_stations
    idle = engine_memory(a.memory_stations, "idle")
    light = engine_memory(a.memory_stations, "poisson")
    kib = idle["resident_setup_bytes_per_station"] / 1024
    results["memory"] = {
        "stations": a.memory_stations,
        "engine_idle_resident_kib_per_station": round(kib, 2),
        "engine_idle_allocated_kib_per_station": round(idle["setup_bytes_per_station"] / 1024, 2),
        "engine_light_traffic_resident_kib_per_station": round(light["resident_after_run_bytes_per_station"] / 1024, 2),
        "engine_light_traffic_allocated_kib_per_station": round(light["after_run_bytes_per_station"] / 1024, 2),
        "simulator_light_traffic_peak_rss_mib": round(rss, 1),
        "simulator_light_traffic_kib_per_station": round(sim_kib, 2),
        "goal_kib_per_station": GOAL_KIB_PER_STATION, "goal_met": kib <= GOAL_KIB_PER_STATION,
        "events": j["events"], "wall_seconds": j["wall_seconds"],
    }
    print(f"  engine, idle stations: {kib:.2f} KiB resident per station "
          f"({idle['setup_bytes_per_station'] / 1024:.2f} KiB allocated, vectors' spare capacity included)")
    print(f"  engine, 1 pps broadcast for 1 s: {light['resident_after_run_bytes_per_station'] / 1024:.2f} KiB resident "
          f"per station (links of the stations that sent)")
    print(f"  simulator process, 1 pps broadcast: peak RSS {rss:.1f} MiB ({sim_kib:.1f} KiB per station)")
    print(f"  goal <= {GOAL_KIB_PER_STATION:g} KiB per idle station: {'met' if kib <= GOAL_KIB_PER_STATION else 'NOT met'} "
          f"({kib:.2f})")

    print(f"\nsaturation, 802.11a 54 Mb/s 1500 B, {a.duration:g} simulated s, median of {a.runs} runs")
    print(f"{'n':>4} {'Mb/s':>8} {'events':>9} {'ev/attempt':>10} {'Mev/s':>7} {'sim s/wall s':>13} {'(min..max)':>18}")
    for n in [int(x) for x in a.stations.split(",")]:
        runs = []
        for seed in range(1, a.runs + 1):
            j, _, _ = run(["saturation", "--stations", str(n), "--duration", str(a.duration), "--seed", str(seed)])
            runs.append(j["results"][0])
        speed = [r["sim_seconds_per_wall_second"] for r in runs]
        evs = [r["events_per_second"] for r in runs]
        thr = statistics.mean(r["throughput_mbps"] for r in runs)
        events = statistics.mean(r["events"] for r in runs)
        attempts = statistics.mean(r["attempts"] for r in runs)
        row = {
            "stations": n,
            "throughput_mbps": thr,
            "events": events,
            "events_per_attempt": events / attempts,
            "events_per_second_median": statistics.median(evs),
            "sim_seconds_per_wall_second_median": statistics.median(speed),
            "sim_seconds_per_wall_second_min": min(speed),
            "sim_seconds_per_wall_second_max": max(speed),
        }
        results["saturation"].append(row)
        print(f"{n:>4} {thr:8.2f} {events:9.0f} {events / attempts:10.2f} {statistics.median(evs) / 1e6:7.2f} "
              f"{statistics.median(speed):13.1f} {f'({min(speed):.0f}..{max(speed):.0f})':>18}")
    results["sweep"] = sweep([int(x) for x in a.sweep.split(",")], a.sweep_duration, a.sweep_runs)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0 if results["memory"]["goal_met"] and results["sweep"]["goal_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
