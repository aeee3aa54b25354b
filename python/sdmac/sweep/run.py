"""A whole sweep: check the spec's grid points, run every (point, seed), aggregate."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from typing import Any

from . import execute
from .aggregate import aggregate
from .spec import Spec
from .tasks import build_tasks, preflight


def default_jobs() -> int:
    """The CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def run_sweep(
    spec: Spec,
    *,
    jobs: int | None = None,
    ray: str | None = None,
    on_done: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Runs `spec` and returns its results document (see :func:`aggregate.aggregate`).

    ``jobs=1`` runs in this process; more, on a process pool of that many workers
    (default: the CPU count); `ray` (an address, or ``"local"``) runs on Ray instead.
    The document's ``execution`` entry says where it ran, how long it took and the CPU
    time of the runs; the rest does not depend on it.
    """
    preflight(spec)
    tasks = build_tasks(spec)
    jobs = jobs or default_jobs()
    done = on_done or (lambda _r: None)
    start = time.perf_counter()
    if ray is not None:
        records = execute.run_ray(tasks, ray, jobs if ray == "local" else None, done)
        where: dict[str, Any] = {"executor": "ray", "address": ray}
    elif jobs == 1:
        records = execute.run_serial(tasks, done)
        where = {"executor": "serial", "jobs": 1}
    else:
        records = execute.run_pool(tasks, jobs, done)
        where = {"executor": "process pool", "jobs": jobs}
    wall = time.perf_counter() - start
    doc = aggregate(spec, records)
    cpu = math.fsum(r["cpu_s"] for r in records if r.get("cpu_s") is not None)
    # The CPU seconds of the runs over the wall time: how many ran at once, in effect.
    doc["execution"] = {**where, "runs": len(tasks), "wall_s": wall, "runs_cpu_s": cpu, "concurrency": cpu / wall if wall > 0 else None}
    return doc
