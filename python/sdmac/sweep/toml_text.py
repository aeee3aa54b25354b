"""TOML text from a parsed document (what ``tomllib`` returns), for the scenarios a
sweep edits: the simulator takes scenario text, and the standard library reads TOML
but does not write it.

Plain values, arrays, tables and arrays of tables are written; dates and times are
refused (the scenario format has none). Reading the text back gives the same document.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _string(s: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped, the rest
    as it is."""
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _key(k: str) -> str:
    return k if _BARE_KEY.fullmatch(k) else _string(k)


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def value_text(v: Any) -> str:
    """One value as inline TOML."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)  # '5.0', '1e-06': valid TOML floats, read back exactly
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, list):
        return "[" + ", ".join(value_text(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {value_text(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"a {type(v).__name__} value ({v}) is not supported here: use a number, string, boolean or array")


def _table(doc: Mapping[str, Any], path: list[str], out: list[str]) -> None:
    for k, v in doc.items():
        if not isinstance(v, dict) and not _is_table_array(v):
            out.append(f"{_key(k)} = {value_text(v)}\n")
    for k, v in doc.items():
        if isinstance(v, dict):
            header = ".".join(_key(p) for p in [*path, k])
            out.append(f"\n[{header}]\n")
            _table(v, [*path, k], out)
        elif _is_table_array(v):
            header = ".".join(_key(p) for p in [*path, k])
            for item in v:
                out.append(f"\n[[{header}]]\n")
                _table(item, [*path, k], out)


def dumps(doc: Mapping[str, Any]) -> str:
    """The document as TOML text."""
    out: list[str] = []
    _table(doc, [], out)
    return "".join(out).lstrip("\n")
