"""Experiments that `sdmac experiment NAME` runs and `sdmac sweep` repeats over a grid.

Each experiment is a module ``sdmac.experiments.NAME`` with a function

    run(params: dict[str, Any], seed: int) -> dict[str, Any]

that runs once with the given parameters and seed and returns its figures: a flat
mapping of names to numbers (the figures a sweep aggregates), plus optional non-numeric
entries (notes, per-packet series) that a sweep keeps but does not aggregate. The same
parameters and seed give the same figures. `names` lists the modules that follow this
contract (a module with both ``run`` and ``check_params``); the others here are their
helpers (reports, parameters, loops).
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def load(name: str) -> ModuleType:
    """The experiment module `name`; ValueError naming the known ones when absent."""
    if not name.isidentifier():
        raise ValueError(f"experiment name {name!r} is not a Python identifier")
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
        module = None
    if module is None or not is_experiment(module):
        raise ValueError(f"unknown experiment {name!r} (known: {', '.join(names())})")
    return module


def is_experiment(module: ModuleType) -> bool:
    """Whether `module` follows the experiment contract (callable ``run`` and ``check_params``)."""
    return callable(getattr(module, "run", None)) and callable(getattr(module, "check_params", None))


def names() -> list[str]:
    """The experiments of this package, sorted by name (its helper modules left out)."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_") and is_experiment(importlib.import_module(f"{__name__}.{info.name}")):
            found.append(info.name)
    return sorted(found)
