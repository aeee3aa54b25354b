"""sdmac-mediumd beside other medium daemons (wmediumd), per N: each figure of each
daemon and its ratio to sdmac-mediumd's. Pure: bench/mediumd.py prints what this
returns, tests/test_bench_figures.py checks it."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

# (key, heading, format)
FIGURES: Tuple[Tuple[str, str, str], ...] = (
    ("mbps", "aggregate Mb/s (all pairs sending)", ".1f"),
    ("served", "pairs served", "d"),
    ("jain", "Jain's fairness index", ".2f"),
    ("d_tx_failed", "d_tx_failed (frames hwsim could not hand over)", "d"),
    ("cpu_us_per_frame", "daemon CPU µs per frame", ".1f"),
    ("daemon_cpu_pct", "daemon CPU %", ".0f"),
    ("strace_syscalls_per_frame", "system calls per frame (strace -c)", ".2f"),
    ("syscalls_per_frame", "system calls per frame (its own count)", ".2f"),
    ("rss_kb", "peak RSS kB", "d"),
)


def _fmt(v: Any, spec: str) -> str:
    if v is None:
        return "-"
    if spec == "d":
        return str(int(round(v)))
    return format(float(v), spec)


def ratio(a: Any, b: Any) -> Optional[float]:
    """a / b, or None when either is missing or b is 0."""
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or b == 0:
        return None
    return a / b


def table(rows: Sequence[Dict[str, Any]], n: int, base: str = "sdmac-mediumd") -> List[str]:
    """Lines of the side-by-side table at N=n: one line per figure, a column per
    daemon and, for each other daemon, other / base. Empty when base or no other
    daemon ran at n."""
    at = {r["label"]: r for r in rows if r["stations"] == n and r["label"] != "kernel"}
    if base not in at or len(at) < 2:
        return []
    others = [k for k in at if k != base]
    head = f"{'N=' + str(n):<48}" + "".join(f"{k[:16]:>17}" for k in [base] + others) + "".join(f"{(o[:10] + '/sdmac'):>17}" for o in others)
    lines = [head]
    for key, title, spec in FIGURES:
        vals = [at[k].get(key) if at[k].get("status", "ok") == "ok" else None for k in [base] + others]
        if all(v is None for v in vals):
            continue
        line = f"{title:<48}" + "".join(f"{_fmt(v, spec):>17}" for v in vals)
        for o in others:
            r = ratio(at[o].get(key), at[base].get(key)) if at[o].get("status", "ok") == "ok" else None
            line += f"{('x' + format(r, '.2f')) if r is not None else '-':>17}"
        lines.append(line)
    for k in [base] + others:
        if at[k].get("status", "ok") != "ok":
            lines.append(f"  {k}: {at[k]['status']} ({at[k].get('clients_done', 0)} of {at[k]['pairs']} clients finished)")
    return lines
