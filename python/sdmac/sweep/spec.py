"""The sweep specification: a TOML file naming what to run, the grid and the seeds.

::

    scenario = "../scenarios/hidden_terminal.toml"   # or: experiment = "rtwlan"
    seeds = 5                     # seeds 1 to 5; or a list: [1, 7, 42]
    figures = ["aggregate.*"]     # optional: glob patterns of the figures to aggregate
    confidence = 0.95             # optional: of the intervals

    [grid]                        # every combination of these values is one grid point
    "flow[*].rate_pps" = [200, 400, 600]
    "link[2].rx_power_dbm" = [-130, -60]

    [fixed]                       # optional: the same value in every run
    duration = 1.0

For a scenario, grid and fixed keys are paths into the scenario (see
:mod:`sdmac.sweep.overrides`); for an experiment they are the names of its parameters.
A relative scenario path is taken from the spec file's directory. Every error names the
file, the line when it can be found, the key, and what is wrong.
"""

from __future__ import annotations

import copy
import importlib
import itertools
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import overrides, toml_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Debian 12 has 3.11
    import tomli as tomllib

U64_MAX = 2**64 - 1
TOP_KEYS = ("scenario", "experiment", "seeds", "figures", "confidence", "grid", "fixed")
_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")


class SpecError(ValueError):
    """A sweep specification that cannot be run; the message names file, line and key."""


@dataclass(frozen=True)
class Spec:
    """A parsed sweep specification."""

    path: Path
    kind: str
    target: str
    scenario_path: Path | None
    scenario_doc: dict[str, Any] | None
    grid: dict[str, list[Any]]
    fixed: dict[str, Any]
    seeds: tuple[int, ...]
    figures: tuple[str, ...] | None
    confidence: float
    _text: str = field(repr=False, default="")

    def points(self) -> list[dict[str, Any]]:
        """The grid points in order (the first grid key varies slowest), as parameter maps."""
        keys = list(self.grid)
        return [dict(zip(keys, combo)) for combo in itertools.product(*self.grid.values())]

    def scenario_text(self, point: dict[str, Any], seed: int | None = None) -> str:
        """The scenario with the fixed values, the point's values and `seed` applied."""
        if self.scenario_doc is None:
            raise TypeError(f"{self.path} runs an experiment, not a scenario")
        doc = copy.deepcopy(self.scenario_doc)
        for path, value in [*self.fixed.items(), *point.items()]:
            overrides.apply(doc, path, value)
        if seed is not None:
            doc["seed"] = seed
        return toml_text.dumps(doc)

    def params(self, point: dict[str, Any]) -> dict[str, Any]:
        """An experiment's parameters at `point`: the fixed ones and the point's."""
        return {**self.fixed, **point}

    def where(self, table: str | None, key: str) -> str:
        """``FILE:LINE: KEY`` (or ``FILE: KEY`` when the line is not found) for messages."""
        return _where(self.path, self._text, table, key)


def point_label(params: dict[str, Any]) -> str:
    """``a = 1, b = "x"`` (or ``(no grid)``) for messages."""
    return ", ".join(f"{k} = {json.dumps(v)}" for k, v in params.items()) or "(no grid)"


def _key_label(table: str | None, key: str) -> str:
    shown = key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else f'"{key}"'
    return f"{table}.{shown}" if table else shown


def _line_of(text: str, table: str | None, key: str) -> int | None:
    """The line that sets `key` (a flattened key: its first dotted part) in `table`."""
    current: str | None = None
    candidates = {key, key.split(".")[0]}
    for n, line in enumerate(text.splitlines(), start=1):
        m = _HEADER.match(line)
        if m:
            current = m.group(1).strip()
            if table and current.startswith(table + "."):
                sub = current[len(table) + 1 :]
                if key.startswith(sub + ".") or key == sub:
                    return n
            continue
        if current != table:
            continue
        stripped = line.lstrip()
        for c in candidates:
            for form in (c, f'"{c}"', f"'{c}'"):
                if stripped.startswith(form) and stripped[len(form) :].lstrip()[:1] in ("=", "."):
                    return n
    return None


def _where(path: Path, text: str, table: str | None, key: str) -> str:
    line = _line_of(text, table, key)
    return f"{path}:{line}: {_key_label(table, key)}" if line else f"{path}: {_key_label(table, key)}"


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"phy": {"rate": [..]}}`` (TOML's dotted keys) -> ``{"phy.rate": [..]}``."""
    out: dict[str, Any] = {}
    for k, v in table.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, name + "."))
        else:
            out[name] = v
    return out


def _seeds(value: Any, err: Any) -> tuple[int, ...]:
    if isinstance(value, bool) or not isinstance(value, (int, list)):
        raise err("must be a number of seeds (1 to N) or a list of seeds")
    if isinstance(value, int):
        if value < 1:
            raise err(f"a number of seeds must be at least 1, not {value}")
        return tuple(range(1, value + 1))
    if not value:
        raise err("the list of seeds is empty")
    for s in value:
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= U64_MAX:
            raise err(f"{s!r} is not a seed (an integer from 0 to 2^64 - 1)")
    dups = sorted({s for s in value if value.count(s) > 1})
    if dups:
        raise err(f"seed {dups[0]} is listed twice")
    return tuple(value)


def _load_experiment(name: str) -> None:
    """Raises ValueError when `name` is not an experiment with a run() function."""
    from .. import experiments

    try:
        module = importlib.import_module(name) if "." in name else experiments.load(name)
    except ValueError:
        raise
    except Exception as e:  # noqa: BLE001 - any error importing it (a syntax error, a failed import)
        raise ValueError(f"cannot import the experiment module {name!r}: {type(e).__name__}: {e}") from None
    if not callable(getattr(module, "run", None)):
        raise ValueError(f"the experiment module {module.__name__} has no run(params, seed) function")


def load(path: Path) -> Spec:
    """Reads and checks the sweep specification at `path`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError(f"cannot read {path}: {e}") from None
    return parse(text, path)


def parse(text: str, path: Path) -> Spec:
    """Checks the specification `text` read from `path` (relative paths start from its directory)."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        if m:
            msg = msg[: m.start()].strip()
            raise SpecError(f"{path}:{m.group(1)}: not valid TOML: {msg} (column {m.group(2)})") from None
        raise SpecError(f"{path}: not valid TOML: {msg}") from None

    def error(table: str | None, key: str) -> Any:
        return lambda what: SpecError(f"{_where(path, text, table, key)}: {what}")

    for k in raw:
        if k not in TOP_KEYS:
            raise error(None, k)(f"unknown key; a sweep spec has {', '.join(TOP_KEYS)}")

    has = [k for k in ("scenario", "experiment") if k in raw]
    if len(has) != 1:
        what = "both" if has else "neither"
        raise SpecError(f"{path}: a sweep runs a scenario file or an experiment: give one of scenario = \"FILE\" "
                        f"and experiment = \"NAME\" ({what} given)")
    kind = has[0]
    target = raw[kind]
    if not isinstance(target, str) or not target.strip():
        raise error(None, kind)(f"must be a non-empty string, not {target!r}")

    scenario_path: Path | None = None
    scenario_doc: dict[str, Any] | None = None
    if kind == "scenario":
        scenario_path = Path(target) if Path(target).is_absolute() else path.parent / target
        try:
            scenario_text = scenario_path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise error(None, kind)(f"cannot read the scenario {scenario_path}: {e.strerror if isinstance(e, OSError) else e}") from None
        try:
            scenario_doc = tomllib.loads(scenario_text)
        except tomllib.TOMLDecodeError as e:
            raise SpecError(f"{scenario_path}: not valid TOML: {e}") from None
    else:
        try:
            _load_experiment(target)
        except ValueError as e:
            raise error(None, kind)(str(e)) from None

    if "seeds" not in raw:
        raise SpecError(f"{path}: seeds: missing; give a number of seeds (seeds = 5 runs seeds 1 to 5) or a list")
    seeds = _seeds(raw["seeds"], error(None, "seeds"))

    figures: tuple[str, ...] | None = None
    if "figures" in raw:
        f = raw["figures"]
        if not isinstance(f, list) or not f or not all(isinstance(x, str) and x.strip() for x in f):
            raise error(None, "figures")("must be a non-empty list of figure names or glob patterns (\"aggregate.*\")")
        figures = tuple(f)

    confidence = raw.get("confidence", 0.95)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise error(None, "confidence")(f"must be a number between 0 and 1 (exclusive), not {confidence!r}")

    tables: dict[str, dict[str, Any]] = {}
    for name in ("grid", "fixed"):
        t = raw.get(name, {})
        if not isinstance(t, dict):
            raise error(None, name)(f"must be a table ([{name}]), not {t!r}")
        tables[name] = _flatten(t)
    grid, fixed = tables["grid"], tables["fixed"]

    for key, values in grid.items():
        err = error("grid", key)
        if not isinstance(values, list) or not values:
            raise err(f"must be a non-empty list of values (the grid takes each in turn), not {values!r}")
        for i, v in enumerate(values):
            if v in values[:i]:
                raise err(f"the value {v!r} is listed twice")
    for key in fixed:
        if key in grid:
            raise error("fixed", key)("is also a grid key; give it in one place")

    for table, entries in (("fixed", fixed), ("grid", grid)):
        for key, value in entries.items():
            err = error(table, key)
            if kind == "scenario" and key == "seed":
                raise err("the seed is set per run by seeds = ...; it cannot be a parameter")
            if kind == "experiment" and not key:
                raise err("an empty parameter name")
            for v in value if table == "grid" else [value]:
                try:
                    toml_text.value_text(v)  # dates and times are refused (JSON has none)
                    if scenario_doc is not None:
                        overrides.apply(copy.deepcopy(scenario_doc), key, v)
                except (overrides.OverrideError, TypeError) as e:
                    raise err(str(e)) from None

    return Spec(
        path=path,
        kind=kind,
        target=target,
        scenario_path=scenario_path,
        scenario_doc=scenario_doc,
        grid=grid,
        fixed=fixed,
        seeds=seeds,
        figures=figures,
        confidence=float(confidence),
        _text=text,
    )
