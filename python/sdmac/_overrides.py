"""Command-line overrides of top-level scenario keys (``seed``, ``duration``).

The scenario text is edited in place, line for line, so that the simulator's
error messages (``file:line: ...``) still point at the user's file. A key that
the file sets at top level is rewritten on its own line; a key the file lacks
is added as a new first line, and the returned ``line_shift`` (1 per added
line) lets the caller map line numbers in error messages back.
"""

from __future__ import annotations

import re
import sys
from typing import Union

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Debian 12 has 3.11
    import tomli as tomllib

Value = Union[int, float]

_TABLE_HEADER = re.compile(r"^\s*\[")


def _toml_value(v: Value) -> str:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"override values must be numbers, not {v!r}")
    if isinstance(v, float):
        return repr(v)  # '5.0', '0.25', '1e-06': all valid TOML floats
    return str(v)


def apply_overrides(text: str, overrides: dict[str, Value | None]) -> tuple[str, int]:
    """Returns ``(new_text, line_shift)`` with every non-None override applied.

    A text that is not valid TOML is returned unchanged, so that the simulator
    reports its error against the user's own lines.
    """
    wanted = {k: v for k, v in overrides.items() if v is not None}
    if not wanted:
        return text, 0
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return text, 0

    lines = text.splitlines(keepends=True)
    top_end = next((i for i, line in enumerate(lines) if _TABLE_HEADER.match(line)), len(lines))
    prepend = []
    for key, value in wanted.items():
        pattern = re.compile(rf"^(\s*){re.escape(key)}\s*=")
        for i in range(top_end):
            m = pattern.match(lines[i])
            if m:
                eol = "\r\n" if lines[i].endswith("\r\n") else "\n"
                lines[i] = f"{m.group(1)}{key} = {_toml_value(value)}{eol}"
                break
        else:
            prepend.append(f"{key} = {_toml_value(value)}\n")
    new_text = "".join(prepend + lines)

    try:
        parsed = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError as e:  # pragma: no cover - defensive
        raise ValueError(f"cannot apply {', '.join(wanted)} override(s) to this scenario: {e}") from None
    for key, value in wanted.items():
        if parsed.get(key) != value:  # pragma: no cover - defensive
            raise ValueError(f"cannot apply the {key} override to this scenario; set it in the file instead")
    return new_text, len(prepend)


def unshift_error(message: str, name: str, line_shift: int) -> str:
    """Maps the line number in a ``name:line: ...`` message back to the user's file."""
    if not line_shift:
        return message
    prefix = re.escape(name)

    def fix(m: re.Match[str]) -> str:
        line = int(m.group(1)) - line_shift
        return f"{name}:{line}:" if line >= 1 else f"{name}:"

    return re.sub(rf"^{prefix}:(\d+):", fix, message, count=1)
