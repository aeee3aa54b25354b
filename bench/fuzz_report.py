"""The fuzzing campaign's result file: reads the output of `make fuzz` (its log,
bench/out/fuzz.log, or standard input) and writes, per target, the inputs libFuzzer
executed, the seconds it ran, its rate, its corpus and coverage at the end, and the
crashes it found (the inputs it wrote to fuzz/artifacts/).

    FUZZ_RUNS=10000000 make fuzz                     # runs this itself at the end
    python3 bench/fuzz_report.py bench/out/fuzz.log  # -> bench/results/fuzz.json

A target is the output between the Makefile's `fuzz: T for ...` line (`N runs`,
`N runs or S s`, or `S s`, then `(sanitizer NAME)`) and its `fuzz: T ended after S s, exit C` line. The
figures are libFuzzer's final statistics (`-print_final_stats=1`:
`stat::number_of_executed_units`, `stat::average_exec_per_sec`, ...), which it prints
when a run ends, is interrupted or crashes; the corpus and coverage are those of its
last `#N` status line. A crash names the input it wrote (`Test unit written to PATH`).
Several logs (targets run separately) make one file; a target in two logs is taken
from the later one, and its earlier run (one that crashed before a fix, say) is kept
under `earlier_runs`."""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import Any, Dict, Iterable, List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import machine  # noqa: E402

TARGET = re.compile(
    r"^fuzz: (\S+) for (?:(\d+) runs(?: or (\d+) s)?|(\d+) s)(?: \(sanitizer (\w+)\))?$"
)
ENDED = re.compile(r"^fuzz: (\S+) ended after ([\d.]+) s, exit (\d+)$")
STAT = re.compile(r"^stat::(\w+):\s+(\d+)$")
STATUS = re.compile(r"^#(\d+)\s+(\w+)\b(.*)$")
FIELD = re.compile(r"\b(cov|ft|exec/s): (\d+)")
CORP = re.compile(r"\bcorp: (\d+)/(\d+)(b|Kb|Mb)\b")
WRITTEN = re.compile(r"Test unit written to (\S+)")
ERROR = re.compile(r"^==\d+== ERROR: libFuzzer: (.*)$")
INTERRUPTED = re.compile(r"libFuzzer: run interrupted")
# libFuzzer's artifact prefixes; slow-unit- marks a slow input, not a failure.
FAILURE_PREFIXES = ("crash-", "oom-", "timeout-", "leak-")
UNIT = {"b": 1, "Kb": 1 << 10, "Mb": 1 << 20}


def _new(name: str, runs: Optional[int], seconds: Optional[int], sanitizer: str) -> Dict[str, Any]:
    return {
        "target": name,
        "sanitizer": sanitizer,
        "goal_runs": runs,
        "limit_seconds": seconds,
        "executions": 0,
        "seconds": None,
        "exec_per_s": None,
        "reached_goal": None,
        "corpus_units": None,
        "corpus_bytes": None,
        "new_units": None,
        "cov": None,
        "ft": None,
        "peak_rss_mb": None,
        "exit": None,
        "interrupted": False,
        "crashes": 0,
        "errors": [],
        "artifacts": [],
    }


def parse(lines: Iterable[str]) -> List[Dict[str, Any]]:
    """One record per target, in the order they ran."""
    targets: List[Dict[str, Any]] = []
    cur: Optional[Dict[str, Any]] = None
    stats: Dict[str, int] = {}
    for raw in lines:
        line = raw.rstrip("\n")
        m = TARGET.match(line)
        if m:
            runs = int(m.group(2)) if m.group(2) else None
            secs = m.group(3) or m.group(4)
            # logs from before the sanitizer was named ran under AddressSanitizer
            cur = _new(m.group(1), runs, int(secs) if secs else None, m.group(5) or "address")
            stats = cur.setdefault("_stats", {})
            targets.append(cur)
            continue
        if cur is None:
            continue
        m = ENDED.match(line)
        if m and m.group(1) == cur["target"]:
            cur["seconds"] = float(m.group(2))
            cur["exit"] = int(m.group(3))
            continue
        m = STAT.match(line)
        if m:
            stats[m.group(1)] = int(m.group(2))
            continue
        m = STATUS.match(line)
        if m:
            cur["executions"] = int(m.group(1))
            fields = dict(FIELD.findall(m.group(3)))
            for key in ("cov", "ft"):
                if key in fields:
                    cur[key] = int(fields[key])
            corp = CORP.search(m.group(3))
            if corp:
                cur["corpus_units"] = int(corp.group(1))
                cur["corpus_bytes"] = int(corp.group(2)) * UNIT[corp.group(3)]
            continue
        if INTERRUPTED.search(line):
            cur["interrupted"] = True
            continue
        m = ERROR.match(line)
        if m:
            cur["errors"].append(m.group(1).strip())
            continue
        m = WRITTEN.search(line)
        if m:
            # relative to the repository (libFuzzer names it from the root down)
            path = m.group(1)
            cur["artifacts"].append(path[path.find("fuzz/artifacts/"):] if "fuzz/artifacts/" in path else path)
    for t in targets:
        stats = t.pop("_stats")
        if "number_of_executed_units" in stats:
            t["executions"] = stats["number_of_executed_units"]
        if "average_exec_per_sec" in stats:
            t["exec_per_s"] = stats["average_exec_per_sec"]
        elif t["seconds"]:
            t["exec_per_s"] = round(t["executions"] / t["seconds"])
        t["new_units"] = stats.get("new_units_added")
        t["peak_rss_mb"] = stats.get("peak_rss_mb")
        if t["goal_runs"] is not None:
            t["reached_goal"] = t["executions"] >= t["goal_runs"]
        failures = [a for a in t["artifacts"] if os.path.basename(a).startswith(FAILURE_PREFIXES)]
        t["crashes"] = max(len(failures), len(t["errors"]))
    return targets


def report(logs: List[List[str]]) -> Dict[str, Any]:
    """The result file of one or more logs (a target in a later log replaces it)."""
    by_name: Dict[str, Dict[str, Any]] = {}
    earlier: List[Dict[str, Any]] = []
    for lines in logs:
        for t in parse(lines):
            old = by_name.pop(t["target"], None)
            if old is not None:
                earlier.append(old)
            by_name[t["target"]] = t
    targets = list(by_name.values())
    return {
        "machine": machine.describe(),
        "command": "make fuzz",
        "targets": targets,
        "total_executions": sum(t["executions"] for t in targets),
        "total_crashes": sum(t["crashes"] for t in targets),
        "failed_targets": [t["target"] for t in targets if t["crashes"] or (t["exit"] or 0) != 0],
        "earlier_runs": earlier,
    }


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("logs", nargs="*", help="logs of make fuzz (default: standard input)")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("-o", "--out", default=os.path.join(here, "results", "fuzz.json"))
    ap.add_argument("--command", help="the command that produced the log, for the record")
    args = ap.parse_args(argv)
    logs: List[List[str]] = []
    for path in args.logs:
        with open(path, encoding="utf-8", errors="replace") as f:
            logs.append(f.readlines())
    if not args.logs:
        logs.append(sys.stdin.readlines())
    rep = report(logs)
    if args.command:
        rep["command"] = args.command
    if not rep["targets"]:
        print("fuzz_report: no `fuzz: T for ...` line in the input", file=sys.stderr)
        return 1
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(rep, f, indent=2)
        f.write("\n")
    for t in rep["targets"]:
        rate = t["exec_per_s"] if t["exec_per_s"] is not None else "-"
        goal = {True: "reached", False: "short of", None: "no"}[t["reached_goal"]]
        print(
            f"{t['target']:16} {t['executions']:>10} execs  {rate:>8} exec/s  "
            f"crashes {t['crashes']}  ({goal} goal)"
        )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
