"""The fuzzing campaign's result file: reads the output of `make fuzz` (a file, or
standard input) and writes, per target, the inputs libFuzzer executed, its rate and
coverage at the end, and the crashes it found (the inputs it wrote to fuzz/artifacts/).

    make fuzz FUZZ_SECONDS=10 2>&1 | tee fuzz.log
    python3 bench/fuzz_report.py fuzz.log            # -> bench/results/fuzz.json

A target is the output between the Makefile's `fuzz: T for N s` line and the next.
libFuzzer ends a run that finished with `#N DONE cov: ... exec/s: E ...` and
`Done N runs in S second(s)`; a run stopped by a crash has neither (its executions
are then those of its last `#N` status line) and names the input it wrote in
`Test unit written to PATH`."""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import Any, Dict, Iterable, List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import machine  # noqa: E402

TARGET = re.compile(r"^fuzz: (\S+) for (\d+) s\b")
STATUS = re.compile(r"^#(\d+)\s+(\w+)\b(.*)$")
DONE_RUNS = re.compile(r"^Done (\d+) runs in (\d+) second")
WRITTEN = re.compile(r"Test unit written to (\S+)")
ERROR = re.compile(r"^==\d+== ERROR: libFuzzer: (.*)$")
FIELD = re.compile(r"([a-z/]+): (\d+)")
FAILED = re.compile(r"^fuzz: failed:(.*?)(?: \(|$)")
# libFuzzer's artifact prefixes; slow-unit- marks a slow input, not a failure.
FAILURE_PREFIXES = ("crash-", "oom-", "timeout-", "leak-")


def _new(name: str, seconds: int) -> Dict[str, Any]:
    return {
        "target": name,
        "fuzz_seconds": seconds,
        "completed": False,
        "executions": 0,
        "seconds": None,
        "exec_per_s": None,
        "cov": None,
        "ft": None,
        "corpus_units": None,
        "crashes": 0,
        "errors": [],
        "artifacts": [],
    }


def parse(lines: Iterable[str]) -> List[Dict[str, Any]]:
    """One record per target, in the order they ran."""
    targets: List[Dict[str, Any]] = []
    cur: Optional[Dict[str, Any]] = None
    for raw in lines:
        line = raw.rstrip("\n")
        m = TARGET.match(line)
        if m:
            cur = _new(m.group(1), int(m.group(2)))
            targets.append(cur)
            continue
        if cur is None:
            continue
        m = STATUS.match(line)
        if m:
            cur["executions"] = int(m.group(1))
            if m.group(2) == "DONE":
                cur["completed"] = True
                fields = dict(FIELD.findall(m.group(3)))
                for key, name in (("cov", "cov"), ("ft", "ft"), ("exec/s", "exec_per_s")):
                    if key in fields:
                        cur[name] = int(fields[key])
                corp = re.search(r"corp: (\d+)/", m.group(3))
                if corp:
                    cur["corpus_units"] = int(corp.group(1))
            continue
        m = DONE_RUNS.match(line)
        if m:
            cur["executions"] = int(m.group(1))
            cur["seconds"] = int(m.group(2))
            continue
        m = ERROR.match(line)
        if m:
            cur["errors"].append(m.group(1).strip())
            continue
        m = WRITTEN.search(line)
        if m:
            cur["artifacts"].append(m.group(1))
    for t in targets:
        failures = [a for a in t["artifacts"] if os.path.basename(a).startswith(FAILURE_PREFIXES)]
        t["crashes"] = max(len(failures), len(t["errors"]))
    return targets


def report(lines: Iterable[str]) -> Dict[str, Any]:
    lines = list(lines)
    targets = parse(lines)
    failed: List[str] = []
    for line in lines:
        m = FAILED.match(line.rstrip("\n"))
        if m:
            failed = m.group(1).split()
    return {
        "machine": machine.describe(),
        "command": "make fuzz",
        "targets": targets,
        "total_executions": sum(t["executions"] for t in targets),
        "total_crashes": sum(t["crashes"] for t in targets),
        "failed_targets": failed,
    }


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log", nargs="?", help="output of make fuzz (default: standard input)")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("-o", "--out", default=os.path.join(here, "results", "fuzz.json"))
    ap.add_argument("--command", help="the command that produced the log, for the record")
    args = ap.parse_args(argv)
    if args.log:
        with open(args.log, encoding="utf-8", errors="replace") as f:
            rep = report(f)
    else:
        rep = report(sys.stdin)
    if args.command:
        rep["command"] = args.command
    if not rep["targets"]:
        print("fuzz_report: no `fuzz: T for N s` line in the input", file=sys.stderr)
        return 1
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(rep, f, indent=2)
        f.write("\n")
    for t in rep["targets"]:
        rate = t["exec_per_s"] if t["exec_per_s"] is not None else "-"
        state = "done" if t["completed"] else "stopped"
        print(
            f"{t['target']:16} {t['executions']:>10} execs  {rate:>8} exec/s  "
            f"crashes {t['crashes']}  ({state})"
        )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
