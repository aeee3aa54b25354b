#!/usr/bin/env python3
"""Writes docs/benchmarks.md from the result files in bench/results/ and the prose in
bench/text/, so that every figure on that page is a result file's figure.

    python3 bench/render_benchmarks.py            # (re)write docs/benchmarks.md
    python3 bench/render_benchmarks.py --check    # exit 1 if docs/benchmarks.md is stale
    python3 bench/render_benchmarks.py --stdout   # print the page

`make benchmarks-page` runs the first; tests/test_benchmarks_page.py the check. The
prose (bench/text/*.md) is written by hand and holds no figures: the tables, the
machine and the date of each run come from the files. The medium daemon's tables are
bench/readme_tables.py's.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
TEXT = ROOT / "bench" / "text"
PAGE = ROOT / "docs" / "benchmarks.md"
COMMAND = "make benchmarks-page"


sys.path.insert(0, str(ROOT / "bench"))
import oneshot_breakdown as breakdown  # noqa: E402  (bench/oneshot_breakdown.py)
import readme_tables as tables  # noqa: E402  (bench/readme_tables.py)
from page_cli import page_main  # noqa: E402  (bench/page_cli.py)


def text(name: str) -> str:
    """A hand-written part, bench/text/NAME.md, without its trailing blank lines."""
    return (TEXT / f"{name}.md").read_text(encoding="utf-8").rstrip() + "\n"


def rel(p: Path) -> str:
    return p.relative_to(ROOT).as_posix()


def link(p: Path) -> str:
    """A link to a repository file from docs/."""
    return f"[`{rel(p)}`](../{rel(p)})"


def missing(name: str, command: str) -> str:
    return (f"No result file `bench/results/{name}` is kept yet, so this page has no figures for it: "
            f"run `{command}` and keep its JSON there to have them here.\n")


# ---------------------------------------------------------------- generic files


def _leaves(d: Any, prefix: str = "") -> List[tuple]:
    out: List[tuple] = []
    if isinstance(d, dict):
        for k, v in d.items():
            out += _leaves(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            out += _leaves(v, f"{prefix}[{i}]")
    elif isinstance(d, (int, float, str, bool)) or d is None:
        out.append((prefix, d))
    return out


def generic_table(d: Any) -> List[str]:
    """Every value of a file this script has no layout for, one row each."""
    out = ["| field | value |", "|---|---|"]
    for k, v in _leaves(d):
        val = f"{v:.4g}" if isinstance(v, float) else str(v)
        out.append(f"| `{k}` | {val.replace('|', '/')} |")
    return out


def machine_of(d: Any) -> str:
    """'Machine and date' line of any result file: what the file records, or that it
    records none."""
    if not isinstance(d, dict):
        return "The file records no machine or date (it was written before result files named them)."
    m = d.get("machine") or {}
    cores = m.get("cores", m.get("cpus"))
    cpu = m.get("cpu_model", m.get("cpu"))
    date = d.get("started_utc") or d.get("date_utc") or d.get("date") or m.get("date_utc")
    la = d.get("loadavg_at_start") or m.get("loadavg_1_5_15") or m.get("load_avg")
    parts = []
    if cores:
        parts.append(f"{cores} cores")
    if cpu:
        parts.append(f"CPU {cpu}")
    if m.get("kernel"):
        parts.append(f"host kernel {m['kernel']}")
    if la:
        parts.append(f"load average {la[0]:.1f} at the start")
    if not parts and not date:
        return "The file records no machine or date."
    return f"Machine: {', '.join(parts) or 'not recorded'}; date: {date or 'not recorded'}."


# ---------------------------------------------------------------- sections


def section_engine() -> List[str]:
    out = ["## The engine, and beside ns-3", "", text("engine")]
    for name, cmd in (("engine.json", "python3 bench/engine.py --runs 5 --json bench/results/engine.json"),
                      ("compare_ns3.json", "python3 bench/compare_ns3.py --stations 10,50 --duration 10 --seeds 1,2,3 "
                                           "--json bench/results/compare_ns3.json")):
        p = RESULTS / name
        out += [f"### `{name}`", ""]
        if p.exists():
            d = json.loads(p.read_text())
            out += [f"{link(p)}. {machine_of(d)}", ""] + generic_table(d) + [""]
        else:
            out += [missing(name, cmd)]
    return out


def section_api_overhead() -> List[str]:
    out = ["## Software overhead of the SDMAC API", "", text("api_overhead")]
    p = RESULTS / "api_overhead.json"
    if p.exists():
        d = json.loads(p.read_text())
        out += [f"{link(p)}. {machine_of(d)}", ""] + generic_table(d) + [""]
    else:
        out += [missing("api_overhead.json",
                        ".venv/bin/python bench/api_overhead.py --count 50000 --runs 3 --json bench/results/api_overhead.json")]
    return out


def section_oneshot() -> List[str]:
    out = ["## Where the time of a one-shot goes: emu beside hwsim", "", text("oneshot_breakdown")]
    p = RESULTS / "oneshot-breakdown.json"
    if not p.exists():
        return out + [missing("oneshot-breakdown.json", ".venv/bin/python bench/oneshot_breakdown.py "
                                                         "--json bench/results/oneshot-breakdown.json")]
    d = json.loads(p.read_text())
    out += [f"{link(p)}, {d.get('count')} one-shots a backend. {machine_of(d)} Command: `{d.get('command')}`.", ""]
    out += breakdown.build_table(d) + [""]
    notes = d.get("notes") or []
    if notes:
        out += ["What the file notes about the run:", ""] + [f"- {n}" for n in notes] + [""]
    for b, v in (d.get("backends") or {}).items():
        if v.get("command"):
            out.append(f"- {b}: `{v['command']}`")
    out.append("")
    return out


def _mediumd_summary(d: Dict[str, Any]) -> str:
    rows = d["rows"]
    ns = sorted({r["stations"] for r in rows})
    ch = sorted({r.get("channels", 1) for r in rows})
    labels = list(dict.fromkeys(r["label"] for r in rows))
    rates = sorted({r["rate_mbps"] for r in rows if r.get("rate_mbps")})
    runs = sorted({r.get("runs", 1) or 1 for r in rows})
    s = f"N = {', '.join(map(str, ns))}"
    if ch != [1]:
        s += f" over {'/'.join(map(str, ch))} media"
    if rates:
        s += f" at {'/'.join(map(str, rates))} Mb/s"
    s += f"; {', '.join(labels)}; "
    s += "one run a row" if runs == [1] else f"medians of {'/'.join(map(str, runs))} runs"
    return s + "."


def _mediumd_file(p: Path, strace: Optional[Path] = None) -> List[str]:
    d = tables.load(str(p))
    out = [f"#### `{p.name}`", "", f"{link(p)}: {_mediumd_summary(d)} "
           + (tables.machine_line(d) + "." if d.get("machine") else machine_of(None)), ""]
    if isinstance(d.get("command"), str):
        out += [f"Command: `{d['command']}`", ""]
    out += tables.rows_table(d) + [""]
    bt = tables.backlog_table(d)
    if bt:
        out += bt + [""]
    if strace is not None:
        out += ["Each other daemon against sdmac-mediumd (system calls from "
                f"`{strace.name}`, both under strace -c):", ""]
        out += tables.ratios_table(d, tables.load(str(strace))) + [""]
    return out


def _is_uml(p: Path) -> bool:
    return "-uml-" in p.name or any(r.get("testbed") == "uml" for r in tables.load(str(p))["rows"])


def section_mediumd(handled: set) -> List[str]:
    out = ["## The medium daemon: sdmac-mediumd beside the kernel's medium and wmediumd", "", text("mediumd")]
    files = sorted(p for p in RESULTS.glob("mediumd-*.json") if p.name != "mediumd-goals.json")
    wm = [p for p in files if p.name.startswith("mediumd-uml-wmediumd")]
    st = RESULTS / "mediumd-uml-wmediumd-strace.json"
    out += ["### Beside wmediumd (User-Mode Linux)", "", text("mediumd_wmediumd")]
    for p in wm:
        out += _mediumd_file(p, st if p.name == "mediumd-uml-wmediumd.json" and st.exists() else None)
        handled.add(p.name)
    rest = [p for p in files if p not in wm]
    out += ["### In User-Mode Linux", "", text("mediumd_uml")]
    for p in (p for p in rest if _is_uml(p)):
        out += _mediumd_file(p)
        handled.add(p.name)
    out += ["### Under QEMU (TCG)", "", text("mediumd_qemu")]
    for p in (p for p in rest if not _is_uml(p)):
        out += _mediumd_file(p)
        handled.add(p.name)
    g = RESULTS / "mediumd-goals.json"
    out += ["### The goals", "", text("mediumd_goals")]
    if g.exists():
        handled.add(g.name)
        d = json.loads(g.read_text())
        out += [f"{link(g)}. {machine_of(d)}", "",
                "| experiment | testbed | medium | figure | value | goal | met | why |", "|---|---|---|---|--:|---|---|---|"]
        for e in d.get("experiments", []):
            for x in e.get("goals", []):
                v = x.get("value")
                val = "–" if v is None else (f"{v:.3g}" if isinstance(v, float) else str(v))
                out.append(f"| {e['name']} | {e.get('testbed', '')} | {x['label']} | `{x['figure']}` | {val} | {x['goal']} | "
                           f"{'yes' if x.get('met') else '**no**'} | {x.get('why', '')} |")
        out.append("")
    else:
        out += [missing("mediumd-goals.json", "python3 bench/mediumd_goals.py --json bench/results/mediumd-goals.json")]
    return out


def section_mininet() -> List[str]:
    out = ["## Mininet-WiFi: sdmac-mediumd beside Mininet-WiFi's wmediumd fork", "", text("mininet_wifi")]
    p = RESULTS / "mininet-wifi.json"
    if not p.exists():
        return out + [missing("mininet-wifi.json", "make bench-mininet-wifi")]
    d = json.loads(p.read_text())
    mw = d.get("mininet_wifi") or {}
    out += [f"{link(p)}. {machine_of(d)} Testbed: {d.get('testbed')}; Mininet-WiFi written against "
            f"{(mw.get('written_against') or '')[:8]}; {d.get('pings')} pings a link, {d.get('iperf_seconds')} s of iperf3. "
            f"{d.get('note', '')}", ""]
    daemons = list(d.get("daemons") or {})
    out.append("| topology | " + " | ".join(f"{x}: ping loss | {x}: median RTT ms | {x}: iperf3 Mb/s | {x}: run-time checks"
                                              for x in daemons) + " |")
    out.append("|---|" + "--:|--:|--:|--:|" * len(daemons))

    def pct(v: Any) -> str:
        return "–" if v is None else f"{100 * v:.0f} %"

    for topo, by in (d.get("results") or {}).items():
        cells = []
        for x in daemons:
            r = by.get(x, {})
            cells += [pct(r.get("ping_loss")), tables.f(r.get("rtt_median_ms"), ".2f"),
                      tables.f(r.get("iperf_mbps"), ".1f"), str(r.get("control_as_configured", "–"))]
        out.append(f"| {topo} | " + " | ".join(cells) + " |")
    out.append("")
    return out


def section_sweep() -> List[str]:
    out = ["## Sweeps: one process, the process pool and Ray", "", text("sweep")]
    p = RESULTS / "sweep.json"
    if not p.exists():
        return out + [missing("sweep.json", ".venv/bin/python bench/sweep.py --repeat 3 --json bench/results/sweep.json")]
    d = json.loads(p.read_text())
    g = d.get("grid") or {}
    la_end = d.get("loadavg_at_end")
    out += [f"{link(p)}: {g.get('runs')} runs a sweep, median of {d.get('repeat')} sweeps a way. {machine_of(d)}"
            + (f" Load average {la_end[0]:.1f} at the end." if la_end else "")
            + f" Autogroup scheduling: {'on' if d.get('sched_autogroup') else 'off'}."
            + f" Identical aggregates: {'yes' if d.get('identical_aggregates') else 'no'}.", "",
            "| way | median wall s | CPU of the runs / wall | speed-up against one process |", "|---|--:|--:|--:|"]
    for w in d.get("ways", []):
        cw = "/".join(f"{c:.2f}" for c in w.get("cpu_over_wall", []))
        out.append(f"| {w['way']} | {w['wall_s_median']:.2f} | {cw} | {w['speedup_vs_one_process']:.2f}× |")
    goal = d.get("goal") or {}
    out += ["", f"Goal: `--jobs 2` at least {goal.get('speedup_jobs_2_at_least')}× one process; measured "
            f"{goal.get('speedup_jobs_2', 0):.2f}×: {'met' if goal.get('met') else '**not met**'}."]
    if d.get("ray_init_s") is not None:
        out.append(f"Ray's start-up (`ray.init`, local, 2 CPUs): {d['ray_init_s']:.1f} s.")
    return out + [""]


def section_other(handled: set) -> List[str]:
    known = handled | {"oneshot-breakdown.json", "mininet-wifi.json", "engine.json", "compare_ns3.json", "api_overhead.json",
                       "sweep.json"}
    other = sorted(p for p in RESULTS.glob("*.json") if p.name not in known)
    if not other:
        return []
    out = ["## Other result files", "",
           "Files in bench/results/ this script has no layout for, every value as the file holds it.", ""]
    for p in other:
        d = json.loads(p.read_text())
        out += [f"### `{p.name}`", "", f"{link(p)}. {machine_of(d)}", ""] + generic_table(d) + [""]
    return out


def render() -> str:
    handled: set = set()
    parts: List[str] = [
        f"<!-- Generated by `{COMMAND}` (python3 bench/render_benchmarks.py) from bench/results/*.json and "
        "bench/text/*.md: edit those and regenerate, not this page. -->",
        "",
        "# Benchmarks",
        "",
        text("intro"),
    ]
    sections: List[Callable[[], List[str]]] = [
        section_engine, section_api_overhead, section_oneshot, lambda: section_mediumd(handled), section_mininet,
        section_sweep, lambda: section_other(handled),
    ]
    for s in sections:
        parts += s()
    page = "\n".join(parts)
    while "\n\n\n" in page:
        page = page.replace("\n\n\n", "\n\n")
    return page.rstrip() + "\n"


def main(argv: Optional[List[str]] = None) -> int:
    return page_main(argv, __doc__.split("\n\n")[0], render, PAGE, ROOT, COMMAND)


if __name__ == "__main__":
    sys.exit(main())
