"""Experiments that `sdmac experiment NAME` runs and `sdmac sweep` repeats over a grid.

Each experiment is a module ``sdmac.experiments.NAME`` with a function

    run(params: dict[str, Any], seed: int) -> dict[str, Any]

that runs once with the given parameters and seed and returns its figures: a flat
mapping of names to numbers (the figures a sweep aggregates), plus optional non-numeric
entries (notes, per-packet series) that a sweep keeps but does not aggregate. The same
parameters and seed give the same figures.
"""

from __future__ import annotations

import importlib
from types import ModuleType


def load(name: str) -> ModuleType:
    """The experiment module `name`; ValueError naming the known ones when absent."""
    if not name.isidentifier():
        raise ValueError(f"experiment name {name!r} is not a Python identifier")
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
        raise ValueError(f"unknown experiment {name!r}") from None
