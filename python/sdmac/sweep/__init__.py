"""``sdmac sweep``: a scenario or an experiment run over a grid of parameters × seeds,
every figure aggregated with its confidence interval, as JSON and plots.

The spec format is in :mod:`sdmac.sweep.spec` and docs/sweep.md. From Python::

    from sdmac.sweep import load_spec, run_sweep
    doc = run_sweep(load_spec(Path("examples/sweeps/hidden_terminal.toml")), jobs=2)
"""

from __future__ import annotations

from .run import default_jobs, run_sweep
from .spec import Spec, SpecError, load as load_spec

__all__ = ["Spec", "SpecError", "default_jobs", "load_spec", "run_sweep"]
