#!/usr/bin/env python3
"""Sweep benchmark: one grid (the two-channel scenario, 4 station counts x 4 seeds, 120
simulated seconds a run) run by `sdmac sweep` in one process (--jobs 1), on the process
pool (--jobs 2) and on a local Ray instance of 2 CPUs; the wall time of each (median of
--repeat runs) and the speed-up against one process. Goal: close to 2x with 2 processes
on a 2-core machine. The aggregates of the three must be identical (checked; the file
records it). Each way also records the CPU seconds of its runs over its wall time: how
many runs had a CPU at once (2 on an idle 2-core machine; less when other work or the
scheduler's autogroups take the cores).

    .venv/bin/python bench/sweep.py [--repeat 3] [--duration 30] [--no-ray] [--json bench/results/sweep.json]

Ray's start-up (ray.init) is timed apart from the runs: a cluster is started once and
then serves many sweeps. The machine is often shared: the load averages at the start and
at the end are in the file.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import machine  # noqa: E402  (bench/machine.py)

#: Two processes on two cores: the goal is close to 2x, said as at least this.
GOAL_SPEEDUP_2 = 1.8

SPEC = """\
scenario = "{scenario}"
seeds = 4

[grid]
"station[sta36-].count" = [2, 5, 10, 20]

[fixed]
duration = {duration}
"station[sta149-].count" = 5
"""


def _aggregates(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "execution"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each way (the median is reported)")
    ap.add_argument("--duration", type=float, default=120.0, help="simulated seconds a run")
    ap.add_argument("--no-ray", action="store_true", help="leave Ray out")
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args()

    sys.path.insert(0, str(ROOT / "python"))
    from sdmac.sweep import load_spec, run_sweep

    started = machine.describe()
    with tempfile.TemporaryDirectory() as tmp:
        spec_path = Path(tmp) / "bench.toml"
        spec_path.write_text(SPEC.format(scenario=ROOT / "examples" / "scenarios" / "two_channels.toml", duration=a.duration))
        spec = load_spec(spec_path)
        n_runs = len(spec.points()) * len(spec.seeds)

        ways: list[dict[str, Any]] = []
        reference = None

        def measure(label: str, **kw: Any) -> None:
            nonlocal reference
            walls, concurrency = [], []
            for _ in range(a.repeat):
                t0 = time.perf_counter()
                doc = run_sweep(spec, **kw)
                walls.append(time.perf_counter() - t0)
                concurrency.append(doc["execution"]["runs_cpu_s"] / walls[-1])
                if doc["failures"]:
                    raise SystemExit(f"{label}: runs failed: {doc['failures']}")
                if reference is None:
                    reference = _aggregates(doc)
                elif _aggregates(doc) != reference:
                    raise SystemExit(f"{label}: the aggregates differ from the first way's")
            ways.append({"way": label, "walls_s": walls, "wall_s_median": statistics.median(walls),
                         "cpu_over_wall": concurrency})
            print(f"{label:28s} median {statistics.median(walls):7.2f} s over {a.repeat} runs "
                  f"({', '.join(f'{w:.2f}' for w in walls)}); CPU of the runs / wall: "
                  f"{', '.join(f'{c:.2f}' for c in concurrency)}", flush=True)

        measure("one process (--jobs 1)", jobs=1)
        measure("process pool (--jobs 2)", jobs=2)
        ray_init_s = None
        if not a.no_ray:
            import logging

            import ray

            t0 = time.perf_counter()
            ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR)
            ray_init_s = time.perf_counter() - t0
            print(f"{'ray.init (local, 2 CPUs)':28s} {ray_init_s:7.2f} s", flush=True)
            try:
                measure("Ray, local instance (2 CPUs)", ray="local")
            finally:
                ray.shutdown()

    base = ways[0]["wall_s_median"]
    for w in ways:
        w["speedup_vs_one_process"] = base / w["wall_s_median"]
    pool = ways[1]["speedup_vs_one_process"]
    met = pool >= GOAL_SPEEDUP_2
    print(f"speed-up of --jobs 2: {pool:.2f}x (goal: close to 2x, at least {GOAL_SPEEDUP_2}x): {'met' if met else 'NOT met'}")
    for w in ways[2:]:
        print(f"speed-up of {w['way']}: {w['speedup_vs_one_process']:.2f}x")

    ended = machine.describe()
    try:
        autogroup = Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        autogroup = None
    result = {
        "machine": started,
        "started_utc": started["date_utc"],
        "loadavg_at_end": ended["loadavg_1_5_15"],
        "command": ["bench/sweep.py", *sys.argv[1:]],
        "grid": {"scenario": "examples/scenarios/two_channels.toml", **spec.grid, "fixed": spec.fixed,
                 "seeds": list(spec.seeds), "runs": n_runs},
        "repeat": a.repeat,
        "ways": ways,
        "ray_init_s": ray_init_s,
        "identical_aggregates": True,
        # With autogroup scheduling, the processes of one session share one group's
        # CPU share: on a machine other sessions keep busy, two workers get about the
        # CPU one would, and cpu_over_wall (the runs' CPU seconds over the wall time)
        # says how much ran at once.
        "sched_autogroup": autogroup,
        "goal": {"speedup_jobs_2_at_least": GOAL_SPEEDUP_2, "speedup_jobs_2": pool, "met": met},
    }
    if a.json:
        Path(a.json).write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {a.json}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
