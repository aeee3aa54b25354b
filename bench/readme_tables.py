#!/usr/bin/env python3
"""Markdown tables for the README and docs/mediumd.md from bench/mediumd.py result
files (bench/results/*.json), so the figures there are the files' figures.

    python3 bench/readme_tables.py FILE [FILE ...]        # one table per file
    python3 bench/readme_tables.py --ratios FILE [--strace FILE]

--ratios: per N, each other daemon's figure over sdmac-mediumd's (CPU per frame,
system calls per frame from --strace's file, goodput).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional


def load(path: str) -> Dict[str, Any]:
    d = json.loads(Path(path).read_text())
    if isinstance(d, list):  # files written before the result files named the machine
        d = {"rows": d, "machine": None}
    return d


def f(v: Any, spec: str = ".1f") -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return format(v, spec)
    return str(v)


def machine_line(d: Dict[str, Any]) -> str:
    m = d.get("machine")
    if not m:
        return ""
    load = d.get("loadavg_at_start")
    ld = f", load average {load[0]:.1f} at the start" if load else ""
    return f"{m['cores']} cores ({m['cpu_model']}), host kernel {m['kernel']}, {d.get('started_utc', m['date_utc'])}{ld}"


def rows_table(d: Dict[str, Any]) -> List[str]:
    basis = "all sending" if any("mbps_basis" in r for r in d["rows"]) else "sum of the pairs' averages"
    out = [f"| N | medium | Mb/s ({basis}) | served | Jain | `d_tx_failed` | daemon CPU | CPU µs / frame | syscalls / frame (own) | syscalls / frame (strace) |",
           "|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for r in d["rows"]:
        if r.get("status", "ok") != "ok":
            out.append(f"| {r['stations']} | {r['label']} | {r['status']} ({r.get('clients_done', 0)} of {r['pairs']} clients finished) | | | {f(r.get('d_tx_failed'))} | | | | |")
            continue
        cpu = f"{r['daemon_cpu_pct']:.0f} %" if r.get("daemon_cpu_pct") is not None else "–"
        out.append(
            f"| {r['stations']} | {r['label']} | {f(r['mbps'])} | {r['served']}/{r['pairs']} | {f(r.get('jain'), '.2f')} | {f(r.get('d_tx_failed'))} | "
            f"{cpu} | {f(r.get('cpu_us_per_frame'), '.0f')} | {f(r.get('syscalls_per_frame'), '.2f')} | {f(r.get('strace_syscalls_per_frame'), '.2f')} |"
        )
    return out


def backlog_table(d: Dict[str, Any]) -> List[str]:
    """The medium's side of a file: backlog over the run and while every pair sends,
    how late the daemon's outputs left, and the runs behind each row (rows without
    those figures, such as the kernel's medium, are left out; no table if none has)."""
    rows = [r for r in d["rows"] if r.get("status", "ok") == "ok" and r.get("backlog") is not None]
    if not rows:
        return []
    out = ["| N | medium | backlog (run) | backlog (all pairs on) | late p50 µs | late p99 µs | runs |",
           "|--:|---|--:|--:|--:|--:|--:|"]
    for r in rows:
        out.append(f"| {r['stations']} | {r['label']} | {f(r.get('backlog'), '.3f')} | {f(r.get('backlog_steady'), '.3f')} | "
                   f"{f(r.get('late_p50_us'), '.0f')} | {f(r.get('late_p99_us'), '.0f')} | {f(r.get('runs', 1))} |")
    return out


def ratio(a: Optional[float], b: Optional[float]) -> str:
    return f"{a / b:.1f}×" if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b else "–"


def ratios_table(d: Dict[str, Any], st: Optional[Dict[str, Any]]) -> List[str]:
    rows = [r for r in d["rows"] if r["label"] != "kernel"]
    others = [x for x in dict.fromkeys(r["label"] for r in rows) if not x.startswith("sdmac-mediumd")]
    out = ["| N | daemon | goodput, sdmac-mediumd / it | CPU µs per frame, it / sdmac-mediumd | system calls per frame, it / sdmac-mediumd (both under strace -c, 5 s) |",
           "|--:|---|--:|--:|--:|"]
    for n in sorted({r["stations"] for r in rows}):
        s = next((r for r in rows if r["stations"] == n and r["label"] == "sdmac-mediumd"), None)
        if s is None:
            continue
        for o in others:
            r = next((x for x in rows if x["stations"] == n and x["label"] == o), None)
            if r is None:
                continue
            sy = "–"
            if st:
                ss = next((x for x in st["rows"] if x["stations"] == n and x["label"] == "sdmac-mediumd"), {})
                so = next((x for x in st["rows"] if x["stations"] == n and x["label"] == o), {})
                sy = ratio(so.get("strace_syscalls_per_frame"), ss.get("strace_syscalls_per_frame"))
            if r.get("status", "ok") != "ok":
                out.append(f"| {n} | {o} | {r['status']} | | {sy} |")
                continue
            out.append(f"| {n} | {o} | {ratio(s['mbps'], r['mbps'])} | {ratio(r.get('cpu_us_per_frame'), s.get('cpu_us_per_frame'))} | {sy} |")
    return out


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--ratios", action="store_true")
    ap.add_argument("--strace", metavar="FILE")
    a = ap.parse_args(argv)
    for p in a.files:
        d = load(p)
        print(f"<!-- {p}: {machine_line(d)} -->")
        print("\n".join(ratios_table(d, load(a.strace) if a.strace else None) if a.ratios else rows_table(d)))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
