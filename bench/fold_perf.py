#!/usr/bin/env python3
"""Folds `perf script` output into one line per distinct stack, as flame-graph
tools read it: `thread;outermost;...;innermost COUNT`.

    perf record -g -p PID -o perf.data -- sleep 3
    perf script -i perf.data | python3 bench/fold_perf.py > out.folded

Each sample of `perf script` is a header line (thread name first) followed by its
call chain, innermost frame first, one per line (address, symbol, object), and a
blank line. Unresolved symbols are named by their object.
"""

from __future__ import annotations

import collections
import re
import sys
from collections.abc import Iterable

FRAME = re.compile(r"^\s+[0-9a-f]+\s+(?P<sym>.+?)\s+\((?P<obj>[^)]*)\)\s*$")


def fold(lines: Iterable[str]) -> collections.Counter[str]:
    """Counts of the folded stacks in `perf script` text."""
    counts: collections.Counter[str] = collections.Counter()
    thread: str | None = None
    frames: list[str] = []

    def flush() -> None:
        if thread is not None:
            counts[";".join([thread, *reversed(frames)])] += 1

    for line in lines:
        if not line.strip():
            flush()
            thread, frames = None, []
            continue
        if thread is None and not line[0].isspace():
            thread = line.split()[0].replace(";", ":")
            continue
        m = FRAME.match(line)
        if m and thread is not None:
            sym = m.group("sym")
            if sym == "[unknown]":
                obj = m.group("obj").rsplit("/", 1)[-1]
                sym = obj if obj.startswith("[") else f"[{obj}]"
            sym = re.sub(r"\+0x[0-9a-f]+$", "", sym).replace(";", ":")
            frames.append(sym)
    flush()
    return counts


def main() -> int:
    for stack, n in sorted(fold(sys.stdin).items()):
        print(f"{stack} {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
