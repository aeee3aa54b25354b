"""Where the runs of a sweep run: in this process, on a local process pool, or on Ray.

Each executor runs every task once and hands each record to `on_done` as it arrives;
records come back in whatever order the runs finish (the aggregation orders them).
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import multiprocessing
import re
import socket
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .tasks import Task, run_task

OnDone = Callable[[dict[str, Any]], None]


def _lost(task: Task, why: str) -> dict[str, Any]:
    return {"point": task.point, "seed": task.seed, "figures": {}, "other": {}, "error": why, "wall_s": None, "cpu_s": None}


def run_serial(tasks: Sequence[Task], on_done: OnDone) -> list[dict[str, Any]]:
    """Runs the tasks one after the other in this process."""
    out = []
    for t in tasks:
        rec = run_task(t)
        on_done(rec)
        out.append(rec)
    return out


def run_pool(tasks: Sequence[Task], jobs: int, on_done: OnDone) -> list[dict[str, Any]]:
    """Runs the tasks on `jobs` worker processes (started fresh: the spawn method)."""
    if jobs < 1:
        raise ValueError(f"the number of jobs must be at least 1, not {jobs}")
    out = []
    ctx = multiprocessing.get_context("spawn")
    pool = cf.ProcessPoolExecutor(max_workers=min(jobs, max(len(tasks), 1)), mp_context=ctx)
    try:
        futures = {pool.submit(run_task, t): t for t in tasks}
        for fut in cf.as_completed(futures):
            try:
                rec = fut.result()
            except Exception as e:  # noqa: BLE001 - a worker that died; its task is reported
                rec = _lost(futures[fut], f"the worker process running it died ({type(e).__name__}: {e})")
            on_done(rec)
            out.append(rec)
    except BaseException:
        # Interrupted: the runs not started are dropped rather than waited for.
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return out


def check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """RuntimeError when `address` is ``[ray://]HOST:PORT`` and nothing accepts a TCP
    connection there (Ray itself retries for minutes before it gives up)."""
    m = re.fullmatch(r"(?:ray://)?(\[[0-9A-Fa-f:.]+\]|[^:/\[\]]+):([0-9]{1,5})", address)
    if m is None:
        return
    host, port = m.group(1).strip("[]"), int(m.group(2))
    try:
        socket.create_connection((host, port), timeout=timeout_s).close()
    except OSError as e:
        raise RuntimeError(f"cannot connect to the Ray cluster at {address}: {e.strerror or e}") from None


def run_ray(tasks: Sequence[Task], address: str, jobs: int | None, on_done: OnDone) -> list[dict[str, Any]]:
    """Runs the tasks on Ray: the cluster at `address` (``ray.init(address=...)``), or a
    local instance of `jobs` CPUs for ``"local"``. When Ray is already initialised in
    this process, that cluster is used and left running."""
    try:
        import ray  # type: ignore[import-not-found, unused-ignore]  # (optional: only --ray needs it)
    except ImportError as e:
        raise RuntimeError(f"--ray needs the ray package ({e}); install it with pip install ray") from None

    started = False
    if not ray.is_initialized():
        try:
            if address == "local":
                # The workers run this interpreter with this environment: they import sdmac
                # as this process does.
                ray.init(num_cpus=jobs, include_dashboard=False, logging_level=logging.ERROR)
            else:
                check_reachable(address)
                ray.init(address=address, logging_level=logging.ERROR)
        except RuntimeError:
            raise
        except Exception as e:  # noqa: BLE001 - Ray raises several kinds; all mean the same here
            what = "start a local Ray instance" if address == "local" else f"connect to the Ray cluster at {address}"
            raise RuntimeError(f"cannot {what}: {type(e).__name__}: {e}") from None
        started = True
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(run_task)
        refs = {remote.remote(t): t for t in tasks}
        pending = list(refs)
        out = []
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                try:
                    rec = ray.get(ref)
                except ray.exceptions.RayError as e:
                    rec = _lost(refs[ref], f"the Ray task running it failed: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
                on_done(rec)
                out.append(rec)
        return out
    finally:
        if started:
            ray.shutdown()
        sys.stdout.flush()
