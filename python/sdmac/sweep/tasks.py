"""The runs of a sweep: one task per (grid point, seed), and the function that runs one.

A task carries everything its run needs (the scenario text with the point's values and
the seed applied, or the experiment's name and parameters), so that it runs the same in
this process, in a pool worker or on a Ray node. :func:`run_task` never raises: a run
that fails returns its error, and the sweep goes on with the others.
"""

from __future__ import annotations

import importlib
import json
import re
import time
import traceback
from dataclasses import dataclass
from typing import Any

from .figures import experiment_figures, scenario_figures
from .spec import Spec, SpecError, point_label


@dataclass(frozen=True)
class Task:
    """One run: grid point `point` (its index) with `seed`."""

    point: int
    seed: int
    kind: str
    #: The scenario's file name (for the simulator's messages) or the experiment's name.
    name: str
    #: The scenario text, for a scenario.
    text: str | None
    #: The parameters, for an experiment.
    params: dict[str, Any] | None


def build_tasks(spec: Spec) -> list[Task]:
    """Every task of `spec`, ordered by (grid point, seed)."""
    tasks = []
    for i, point in enumerate(spec.points()):
        for seed in spec.seeds:
            if spec.kind == "scenario":
                tasks.append(Task(i, seed, "scenario", str(spec.scenario_path), spec.scenario_text(point, seed), None))
            else:
                tasks.append(Task(i, seed, "experiment", spec.target, None, spec.params(point)))
    return tasks


def _drop_line(message: str, name: str) -> str:
    """The simulator's ``name:LINE: ...`` without LINE: the text it ran is generated, so
    its line numbers are not the file's."""
    return re.sub(rf"^{re.escape(name)}:\d+:", f"{name}:", message, count=1)


def preflight(spec: Spec) -> None:
    """Has the simulator check the scenario at every grid point before anything runs
    (each is built, then stopped at once); SpecError naming the point otherwise."""
    if spec.kind != "scenario":
        return
    from .. import _core

    assert spec.scenario_path is not None
    name = str(spec.scenario_path)
    points = spec.points()
    for point in points:
        try:
            text = spec.scenario_text(point, spec.seeds[0])
            _core.run_scenario(text, name=name, progress=lambda *_: False, progress_step_s=1e-9)
        except ValueError as e:
            values = point_label({**spec.fixed, **point})
            raise SpecError(f"{spec.path}: the scenario with {values} is refused: {_drop_line(str(e), name)}") from None


def run_task(task: Task) -> dict[str, Any]:
    """Runs one task; ``{"point", "seed", "figures", "other", "error", "wall_s", "cpu_s"}``
    (the wall-clock and CPU seconds it took where it ran)."""
    start, cpu_start = time.perf_counter(), time.process_time()
    record: dict[str, Any] = {"point": task.point, "seed": task.seed, "figures": {}, "other": {}, "error": None}
    try:
        if task.kind == "scenario":
            from .. import _core

            assert task.text is not None
            try:
                result = json.loads(_core.run_scenario(task.text, name=task.name))
            except ValueError as e:
                raise ValueError(_drop_line(str(e), task.name)) from None
            record["figures"] = scenario_figures(result)
        else:
            from .. import experiments

            module = importlib.import_module(task.name) if "." in task.name else experiments.load(task.name)
            record["figures"], record["other"] = experiment_figures(module.run(dict(task.params or {}), task.seed))
    except Exception as e:  # noqa: BLE001 - a failed run is reported, the sweep goes on
        frames = traceback.extract_tb(e.__traceback__)
        at = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames and task.kind == "experiment" else ""
        record["error"] = f"{type(e).__name__}: {e}{at}"
    record["wall_s"] = time.perf_counter() - start
    record["cpu_s"] = time.process_time() - cpu_start
    return record
