"""The total number of system calls in `strace -c` output, read by column header.

strace 6.1 prints

    % time     seconds  usecs/call     calls    errors syscall
    ------ ----------- ----------- --------- --------- ----------------
     57.73    0.000616         154         4         2 wait4
    ...
    100.00    0.001067           2       363        57 total

The count is the `calls` column; reading "the first integer" takes usecs/call
instead (2 above: ~100x too low on a daemon's busy loop). Rows may leave the errors
column empty, so columns are found by the header's words and counted from the right
only where the row has as many fields as the header.
"""
from __future__ import annotations

from typing import Dict, Optional


def parse(text: str) -> Optional[Dict[str, int]]:
    """{syscall: calls, ..., "total": calls} from `strace -c` output; None when it holds
    no table (strace did not run, or was killed before writing it)."""
    header = None
    calls: Dict[str, int] = {}
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if "calls" in f and "syscall" in f:
            # "% time" is two words in the header but one number in the rows.
            header = [w for w in f if w != "%"]
            continue
        if header is None or set(line.strip()) <= {"-", " "}:
            continue
        name = f[-1]
        ci = header.index("calls")
        if len(f) == len(header):
            v = f[ci]
        elif len(f) == len(header) - 1 and header.index("errors") > ci:
            # The errors column is blank: the columns up to calls are where they were.
            v = f[ci]
        else:
            continue
        try:
            calls[name] = int(v)
        except ValueError:
            continue
    return calls if "total" in calls else None


def total(text: str) -> Optional[int]:
    """The total count of system calls, or None without a table."""
    t = parse(text)
    return None if t is None else t["total"]
