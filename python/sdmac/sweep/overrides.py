"""Overrides of a scenario's values by path, as a sweep's grid names them.

A path is keys joined by dots, each key optionally followed by a selector in brackets:

* ``duration``, ``phy.rate``, ``propagation.exponent``: a top-level key or a key of a
  table (a missing table or key is added: the simulator then checks it);
* ``flow[0].rate_pps``: an element of an array of tables by its index (from 0);
* ``station[sta1].position``: the element whose ``name`` (or, for ``[[medium]]``,
  ``id``) is ``sta1``;
* ``flow[*].payload``: every element;
* ``station[sta1].position[0]``: an element of an array value (an index or ``*``).

An error names the path and what is wrong with it (an index out of range, no element of
that name, a key that is an array used as a table, ...).
"""

from __future__ import annotations

import copy
import re
from typing import Any

_SEGMENT = re.compile(r"([A-Za-z0-9_-]+)(?:\[([^\]]*)\])?")


class OverrideError(ValueError):
    """A path that does not fit the scenario, or that is not a path."""


def parse_path(path: str) -> list[tuple[str, str | None]]:
    """``"flow[0].rate_pps"`` -> ``[("flow", "0"), ("rate_pps", None)]``."""
    segments: list[tuple[str, str | None]] = []
    pos = 0
    while True:
        m = _SEGMENT.match(path, pos)
        if m is None:
            raise OverrideError(
                f"{path!r} is not a path: expected keys of letters, digits, '_' or '-' joined by dots, "
                f"each optionally followed by [INDEX], [NAME] or [*] (at character {pos + 1})"
            )
        sel = m.group(2)
        if sel is not None and not sel.strip():
            raise OverrideError(f"{path!r}: empty selector [] after {m.group(1)!r}")
        segments.append((m.group(1), sel.strip() if sel is not None else None))
        pos = m.end()
        if pos == len(path):
            return segments
        if path[pos] != ".":
            raise OverrideError(f"{path!r} is not a path: unexpected {path[pos]!r} at character {pos + 1}")
        pos += 1


def _where(segments: list[tuple[str, str | None]], upto: int) -> str:
    return ".".join(k + (f"[{s}]" if s is not None else "") for k, s in segments[: upto + 1])


def _select(items: list[Any], sel: str, where: str, tables: bool) -> list[int]:
    """The indices `sel` picks out of `items`."""
    if sel == "*":
        return list(range(len(items)))
    if re.fullmatch(r"-?[0-9]+", sel):
        i = int(sel)
        if not 0 <= i < len(items):
            raise OverrideError(f"{where}: index {i} is out of range: there are {len(items)} (indices 0 to {len(items) - 1})")
        return [i]
    if not tables:
        raise OverrideError(f"{where}: an array value is indexed by a number or *, not {sel!r}")
    hits = [i for i, t in enumerate(items) if t.get("name") == sel or t.get("id") == sel]
    if not hits:
        known = [str(t.get("name", t.get("id"))) for t in items if "name" in t or "id" in t]
        raise OverrideError(f"{where}: no element named {sel!r}" + (f" (there are: {', '.join(known)})" if known else ""))
    return hits


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def apply(doc: dict[str, Any], path: str, value: Any) -> None:
    """Sets `path` to `value` in the parsed scenario `doc` (in place)."""
    segments = parse_path(path)
    targets: list[dict[str, Any]] = [doc]
    for depth, (key, sel) in enumerate(segments):
        where = _where(segments, depth)
        last = depth == len(segments) - 1
        nxt: list[dict[str, Any]] = []
        for table in targets:
            if sel is None:
                if last:
                    if _is_table_array(table.get(key)) or isinstance(table.get(key), dict):
                        raise OverrideError(f"{where} is a table, not a value: set one of its keys")
                    table[key] = copy.deepcopy(value)
                    continue
                sub = table.setdefault(key, {})
                if _is_table_array(sub):
                    raise OverrideError(f"{where} is an array of tables: pick elements with {key}[0], {key}[NAME] or {key}[*]")
                if not isinstance(sub, dict):
                    raise OverrideError(f"{where} is a value ({sub!r}), not a table")
                nxt.append(sub)
                continue
            if key not in table:
                raise OverrideError(f"{where}: the scenario has no {key!r} here")
            items = table[key]
            if not isinstance(items, list):
                raise OverrideError(f"{where}: {key!r} is not an array, so it takes no [{sel}]")
            tables = _is_table_array(items)
            indices = _select(items, sel, where, tables)
            if last:
                if tables:
                    raise OverrideError(f"{where} is a table, not a value: set one of its keys")
                for i in indices:
                    items[i] = copy.deepcopy(value)
            elif not tables:
                raise OverrideError(f"{where} is an array of values, not of tables")
            else:
                nxt.extend(items[i] for i in indices)
        targets = nxt
