#!/usr/bin/env python3
"""The medium-daemon benchmark: N mac80211_hwsim stations in ad-hoc pairs, iperf3 TCP
(or UDP at a fixed offered load) on every pair at once, in the VM test bed (testbed/),
against several media side by side — the kernel's own perfect medium (the baseline:
no airtime at all), sdmac-mediumd, and any other medium daemon given with --daemon
(wmediumd, or an older sdmac-mediumd).

    python3 bench/mediumd.py [--stations 2,10,40,100] [--channels 1] [--seconds 10]
                             [--daemon PATH ...] [--threads] [--epoll] [--no-run-ahead] [--coalesce-us US] [--beacon TU]
                             [--rate MBPS] [--udp MBPS]
                             [--no-kernel] [--strace] [--runs 1] [--json OUT]

Every medium daemon runs at real-time priority in the guest (SCHED_FIFO 10; --nice:
nice -10 instead): it is the emulation's clock, and beside 100 or 200 runnable iperf3
processes a daemon at a nice value waits tens of milliseconds for the CPU after each
wake-up. Per run it reports: aggregate goodput (the bytes received while every pair
sends, over that window: bench/aggregate.py) with Jain's fairness index over the
pairs, and pairs served (more than 0.1 Mb/s,
or than a tenth of the mean pair's goodput where that is less: a pair with its fair
share of a slow medium is served); hwsim's d_tx_failed (frames the kernel could not
hand to the daemon); the daemon's CPU time per delivered frame and peak RSS; for sdmac-mediumd its own
statistics — medium utilization (time with a frame on air), backlog (time with a
frame queued or in its exchange: 1.0 = the medium never waited for the daemon),
system calls per frame the kernel handed it (its own count; with --strace, strace
-c's count for every daemon; also per delivered copy in the JSON), and how late its
statuses and deliveries left after their time on the medium (medians of the
per-second 50th and 99th percentiles; the largest in the JSON). Frames are
mac80211's, counted by ethtool on every radio, so every medium is measured alike.

--daemon PATH (repeatable; or WMEDIUMD=PATH[,PATH]) runs other daemons (wmediumd)
side by side: a table per N gives each figure and its ratio to sdmac-mediumd's. A
daemon counts as registered once hwsim hands it frames (seen from the kernel, not
its log). A run that fails or times out is kept as a row with its status and what
was measured. --json writes the rows with the machine and the date.

--channels K spreads the pairs over K channels (each its own medium): --stations 200
--channels 10 is 10 media x 20 stations. --udp MBPS has every pair send iperf3 UDP at
MBPS Mb/s instead of TCP: offered more than it carries, a medium stays saturated
without the TCP work (ACKs, congestion control) that limits what an emulated VM can
offer; --rate sets the legacy rate of every frame (54 by default). With --runs R
every figure is the median of R runs. Each run boots its own VM (software emulation here: everything, the daemon
included, runs much slower than on hardware; compare media side by side, not with
numbers from elsewhere).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
import aggregate  # noqa: E402  (bench/aggregate.py)
import machine  # noqa: E402  (bench/machine.py)
import side_by_side  # noqa: E402  (bench/side_by_side.py)
import strace_table  # noqa: E402  (bench/strace_table.py)
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
SDMAC = TARGET / "release" / "sdmac-mediumd"
CTL = TARGET / "release" / "sdmac-mediumctl"
GUEST = ROOT / "bench" / "mediumd_pairs.sh"
SERVED_BPS = 100e3
USER_MEM = os.environ.get("SDMAC_VM_MEM")


def served(bps: List[float]) -> int:
    """Pairs that got more than 0.1 Mb/s, or more than a tenth of the mean pair's
    goodput where that is less."""
    if not bps:
        return 0
    floor = min(SERVED_BPS, 0.1 * sum(bps) / len(bps))
    return sum(1 for b in bps if b > floor)


def load_runner(kind: str = "qemu"):
    """The test bed: testbed/run.py (QEMU) or testbed/uml.py (User-Mode Linux)."""
    import importlib.util

    name, file = ("sdmac_testbed_uml", "uml.py") if kind == "uml" else ("sdmac_testbed_run", "run.py")
    spec = importlib.util.spec_from_file_location(name, ROOT / "testbed" / file)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def parse_results(output: str) -> Dict[str, str]:
    r: Dict[str, str] = {}
    for line in output.splitlines():
        if line.startswith("RESULT "):
            for kv in line.split()[1:]:
                k, _, v = kv.partition("=")
                r[k] = v
    return r


def pair_goodput(out: Path, pairs: int) -> tuple:
    """Each pair's goodput (b/s, over its own run) and the bytes all pairs received."""
    bps, total = [], 0
    for p in range(pairs):
        try:
            d = json.loads((out / f"client{p}.json").read_text())
            bps.append(float(d["end"]["sum_received"]["bits_per_second"]))
            total += int(d["end"]["sum_received"]["bytes"])
        except (OSError, ValueError, KeyError):
            bps.append(0.0)
    return bps, total


def read_stats(path: Path) -> Optional[tuple]:
    """sdmac-mediumd's statistics lines, its daemon lines, and the offset from its
    clock to CLOCK_MONOTONIC (s); None without daemon lines."""
    if not path.exists():
        return None
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    # Each daemon line closes an interval; medium lines just before it share its t.
    daemon = [x for x in lines if "daemon" in x]
    if not daemon:
        return None
    return lines, daemon, daemon[0]["mono_s"] - daemon[0]["t"]


def window_stats(read: tuple, t0: float, t1: float) -> Dict[str, Any]:
    """sdmac-mediumd's statistics (as `read_stats` gives them) inside [t0, t1]
    (CLOCK_MONOTONIC s)."""
    lines, daemon, offset = read
    inside = [x for x in lines if "freq" in x and t0 + 1.0 <= x["t"] + offset <= t1 and x["interval_s"] > 0.5]
    d_in = [x for x in daemon if t0 <= x["mono_s"] <= t1]
    res: Dict[str, Any] = {}
    if inside:
        res["utilization"] = statistics.mean(x["utilization"] for x in inside)
        res["backlog"] = statistics.mean(x["backlog"] for x in inside)
        res["backlog_min"] = min(x["backlog"] for x in inside)
        res["media"] = len({(x.get("medium", 0), x["freq"]) for x in inside})
    if len(d_in) >= 2:
        a, b = d_in[0]["daemon"], d_in[-1]["daemon"]
        frames = b["frames"] - a["frames"]
        deliveries = b["deliveries"] - a["deliveries"]
        span = d_in[-1]["mono_s"] - d_in[0]["mono_s"]
        if span > 0:
            res["daemon_frames_per_s"] = frames / span
        if frames > 0:
            res["deliveries_per_frame"] = deliveries / frames
            res["syscalls_per_frame"] = (b["syscalls"] - a["syscalls"]) / frames
            res["rounds_per_frame"] = (b["rounds"] - a["rounds"]) / frames
            if "timed" in b:
                # Statuses and deliveries the kernel sent at their time (run ahead).
                res["timed_per_frame"] = (b["timed"] - a.get("timed", 0)) / frames
        if deliveries > 0:
            res["syscalls_per_delivery"] = (b["syscalls"] - a["syscalls"]) / deliveries
    # How late outputs left, per second (the first second after t0 is the interval
    # that ends there, so it is left out): medians of the seconds' percentiles, and
    # the largest of all.
    late = [x["late_us"] for x in d_in[1:] if x.get("late_us", {}).get("n", 0) > 0]
    if late:
        res["late_p50_us"] = statistics.median(x["p50"] for x in late)
        res["late_p99_us"] = statistics.median(x["p99"] for x in late)
        res["late_max_us"] = max(x["max"] for x in late)
    return res


def steady_window(out: Path, pairs: int) -> Optional[tuple]:
    """The seconds in which every pair sends (CLOCK_BOOTTIME s), from the clients'
    spans: from 3 s after the last one was let go (under emulation 100 clients
    connecting at once take that long to send) to 2 s before the first one ended
    (its results exchange); None when less than 2 s is left."""
    spans = []
    for p in range(pairs):
        try:
            s, e = (float(x) for x in (out / f"span{p}").read_text().split())
        except (OSError, ValueError):
            return None
        spans.append((s, e))
    if not spans:
        return None
    s0, s1 = max(s for s, _ in spans) + 3.0, min(e for _, e in spans) - 2.0
    return (s0, s1) if s1 - s0 >= 2.0 else None


def steady_stats(read: tuple, window: tuple) -> Dict[str, Any]:
    """Utilization and backlog over the statistics intervals (as `read_stats` gives
    them) that lie wholly inside `window` (CLOCK_MONOTONIC s): the medium while every
    pair sends."""
    lines, _, offset = read
    s0, s1 = window
    inside = [x for x in lines if "freq" in x and x["t"] + offset - x["interval_s"] >= s0 and x["t"] + offset <= s1]
    if not inside:
        return {}
    return {
        "steady_s": s1 - s0,
        "utilization_steady": statistics.mean(x["utilization"] for x in inside),
        "backlog_steady": statistics.mean(x["backlog"] for x in inside),
        "backlog_steady_min": min(x["backlog"] for x in inside),
    }


def strace_total(path: Path) -> Optional[int]:
    """The system calls strace -c counted (its `calls` column's total), or None."""
    if not path.exists():
        return None
    return strace_table.total(path.read_text())


def read_spans(out: Path, pairs: int) -> List[Optional[tuple]]:
    spans: List[Optional[tuple]] = []
    for p in range(pairs):
        try:
            s, e = (float(x) for x in (out / f"span{p}").read_text().split())
            spans.append((s, e))
        except (OSError, ValueError):
            spans.append(None)
    return spans


def read_clients(out: Path, pairs: int) -> List[Optional[Dict[str, Any]]]:
    res: List[Optional[Dict[str, Any]]] = []
    for p in range(pairs):
        try:
            res.append(json.loads((out / f"client{p}.json").read_text()))
        except (OSError, ValueError):
            res.append(None)
    return res


def run_once(vm, n: int, channels: int, seconds: int, medium: str, strace: bool, rate: int, medium_args: str = "", label: str = "", beacon: int = 100, udp: float = 0.0, prio: str = "fifo", keep: Optional[Path] = None, perf: int = 0) -> Dict[str, Any]:
    share = Path(tempfile.mkdtemp(prefix="sdmac-bench-"))
    guest_share = getattr(vm, "GUEST_SHARE", "/share")
    try:
        arg_medium = "kernel"
        if medium != "kernel":
            shutil.copy2(medium, share / "daemon")
            arg_medium = f"{guest_share}/daemon"
        if CTL.exists():
            shutil.copy2(CTL, share / "mediumctl")
        args = [f"CTL={guest_share}/mediumctl", f"N={n}", f"SECONDS={seconds}", f"CHANNELS={channels}", f"RATE={rate}", f"MEDIUM={arg_medium}", f"STRACE={int(strace)}", f"MEDIUM_ARGS={medium_args}", f"BEACON={beacon}", f"UDP={udp:g}", f"PRIO={prio}", f"PERF={perf if medium != 'kernel' else 0}"]
        os.environ["SDMAC_VM_MEM"] = USER_MEM or str(max(768, 512 + 24 * n))
        timeout = 120 + 4 * n + 3 * seconds
        status, output, res = "ok", "", {}
        try:
            r = vm.run(GUEST, args=args, timeout=timeout, share=share)
            output = r.output
            if r.status != 0:
                status = f"failed (guest status {r.status})"
        except vm.VMError as e:
            # A timeout (or a VM that died) keeps what was measured: the clients that
            # finished, the daemon's statistics so far.
            status = "timeout" if type(e).__name__ == "VMTimeout" else f"vm error: {e.args[0] if e.args else e}"
            output = str(e)
        res = parse_results(output)
        out = share / "out"
        pairs = n // 2
        bps, received = pair_goodput(out, pairs)
        if status != "ok" or "window_start" not in res:
            tail = "\n".join(output.splitlines()[-25:])
            print(f"  {label or name_of(medium)} at N={n}: {status}; the row keeps what was measured:\n{tail}", file=sys.stderr)
            return {
                "medium": medium, "label": label or name_of(medium), "stations": n, "channels": channels,
                "rate_mbps": rate, "seconds": seconds, "testbed": getattr(vm, "TESTBED_NAME", "qemu"),
                "status": status if status != "ok" else "failed (no results)", "pairs": pairs,
                "served": served(bps), "clients_done": sum(1 for b in bps if b > 0), "mbps": None,
                "d_tx_failed": int(res["d_tx_failed"]) if "d_tx_failed" in res else None,
                "output_tail": tail,
            }
        t0, t1 = float(res["window_start"]), float(res["window_end"])
        agg = aggregate.aggregate(read_clients(out, pairs), read_spans(out, pairs))
        rx = int(res.get("rx_packets", 0))
        row: Dict[str, Any] = {
            "medium": medium,
            "label": label or name_of(medium),
            "stations": n,
            "channels": channels,
            "rate_mbps": rate,
            "beacon_tu": beacon,
            "seconds": seconds,
            "traffic": f"udp {udp:g}" if udp else "tcp",
            "daemon_prio": prio,
            "testbed": getattr(vm, "TESTBED_NAME", "qemu"),
            "status": "ok",
            # The aggregate: bytes received while every pair sends, over that window
            # (bench/aggregate.py); without such a window, every byte received over
            # the whole run's wall time (a lower bound). The sum of the pairs' own
            # averages is kept for comparison with older result files: it overstates
            # the aggregate when the pairs' transfers do not overlap fully.
            "mbps": agg["aggregate_mbps"] if agg["aggregate_mbps"] is not None else 8 * received / max(t1 - t0, 1e-9) / 1e6,
            "mbps_basis": "all-sending window" if agg["aggregate_mbps"] is not None else "wall time (lower bound)",
            "mbps_window_s": agg["window_s"],
            "mbps_slack_s": agg["slack_s"],
            "mbps_sum_of_pairs": sum(bps) / 1e6,
            "mbps_wall": 8 * received / max(t1 - t0, 1e-9) / 1e6,
            "pairs": pairs,
            "served": served(bps),
            "pair_mbps_min": min(bps) / 1e6,
            "pair_mbps_max": max(bps) / 1e6,
            # Jain's index over the pairs' rates in the window (over their own
            # averages without one).
            "jain": agg["jain_window"] if agg["jain_window"] is not None else aggregate.jain(bps),
            "d_tx_failed": int(res.get("d_tx_failed", 0)),
            "rx_frames": rx,
            "wall_s": t1 - t0,
        }
        if "cpu_ticks" in res:
            cpu_s = int(res["cpu_ticks"]) / int(res.get("hz", 100))
            row["daemon_cpu_s"] = cpu_s
            row["daemon_cpu_pct"] = 100 * cpu_s / max(t1 - t0, 1e-9)
            row["cpu_us_per_frame"] = 1e6 * cpu_s / rx if rx else None
            if "sys_ticks" in res and cpu_s > 0:
                # The kernel's part: system calls, and hwsim's work inside them.
                row["cpu_sys_fraction"] = int(res["sys_ticks"]) / int(res.get("hz", 100)) / cpu_s
            row["rss_kb"] = int(res.get("rss_kb", 0))
            read = read_stats(out / "stats.jsonl")
            if read is not None:
                row.update(window_stats(read, t0, t1))
                steady = steady_window(out, pairs)
                if steady is not None:
                    row.update(steady_stats(read, steady))
            st = strace_total(out / "strace.txt")
            if st is not None and rx:
                row["strace_syscalls_per_frame"] = st / rx
        return row
    finally:
        if keep is not None and (share / "out").is_dir():
            dst = keep / f"n{n}-ch{channels}-{(label or name_of(medium)).replace(' ', '_')}-{os.path.basename(share)}"
            shutil.copytree(share / "out", dst, dirs_exist_ok=True)
            print(f"  raw outputs kept in {dst}", file=sys.stderr)
        shutil.rmtree(share, ignore_errors=True)


def median_row(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The median of each figure over the runs that completed; runs that failed or
    timed out are counted (runs_failed) and, when no run completed, the first of them
    is the row."""
    ok = [r for r in rows if r.get("status", "ok") == "ok"]
    failed = len(rows) - len(ok)
    if not ok:
        m = dict(rows[0])
        m["runs"], m["runs_failed"] = len(rows), failed
        return m
    rows = ok
    if len(rows) == 1 and not failed:
        return rows[0]
    # A figure some runs lack (the all-pairs-sending window when the clients ran too
    # staggered) is the median of the runs that have it; steady_runs says how many.
    m: Dict[str, Any] = {}
    for r in rows:
        for k, v in r.items():
            m.setdefault(k, v)
    for k, v in list(m.items()):
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            vals = [r[k] for r in rows if isinstance(r.get(k), (int, float)) and not isinstance(r.get(k), bool)]
            m[k] = vals[0] if len(set(vals)) == 1 else statistics.median(vals)
    m["runs"] = len(rows) + failed
    m["runs_failed"] = failed
    m["steady_runs"] = sum(1 for r in rows if r.get("backlog_steady") is not None)
    return m


def fmt(v: Any, spec: str = ".1f") -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return format(v, spec)
    return str(v)


def name_of(medium: str) -> str:
    return "kernel" if medium == "kernel" else Path(medium).name


def print_table(rows: List[Dict[str, Any]]) -> None:
    hdr = f"{'N':>4} {'ch':>3} {'medium':<24} {'Mb/s':>7} {'(sum)':>7} {'served':>7} {'jain':>5} {'d_tx_failed':>11} {'cpu %':>6} {'cpu µs/fr':>9} {'RSS MB':>6} {'util':>5} {'backlog':>7} {'all-on':>7} {'sys/fr':>6} {'st/fr':>6} {'kern%':>5} {'late µs p50/p99':>15}"
    print(hdr)
    for r in rows:
        if r.get("status", "ok") != "ok":
            print(f"{r['stations']:>4} {r['channels']:>3} {r['label']:<24} {r['status']}: {r.get('clients_done', 0)} of {r['pairs']} clients finished, d_tx_failed {fmt(r.get('d_tx_failed'))}")
            continue
        sysfr = r.get("syscalls_per_frame")
        print(
            f"{r['stations']:>4} {r['channels']:>3} {r['label']:<24} {fmt(r['mbps']):>7} {fmt(r.get('mbps_sum_of_pairs')):>7} "
            f"{str(r['served']) + '/' + str(r['pairs']):>7} {fmt(r['jain'], '.2f'):>5} {r['d_tx_failed']:>11} "
            f"{fmt(r.get('daemon_cpu_pct')):>6} {fmt(r.get('cpu_us_per_frame')):>9} "
            f"{fmt(r['rss_kb'] / 1024 if r.get('rss_kb') else None):>6} {fmt(r.get('utilization'), '.2f'):>5} "
            f"{fmt(r.get('backlog'), '.3f'):>7} {fmt(r.get('backlog_steady'), '.3f'):>7} {fmt(sysfr, '.2f'):>6} {fmt(r.get('strace_syscalls_per_frame'), '.2f'):>6} "
            f"{fmt(100 * r['cpu_sys_fraction'] if r.get('cpu_sys_fraction') is not None else None, '.0f'):>5} "
            f"{(fmt(r['late_p50_us'], '.0f') + '/' + fmt(r['late_p99_us'], '.0f')) if r.get('late_p50_us') is not None else '-':>15}"
        )
    for r in rows:
        if r.get("utilization") is not None and r.get("runs", 1) > 1 and r.get("steady_runs", r["runs"]) < r["runs"]:
            print(f"N={r['stations']} {r['label']}: all-on from {r['steady_runs']} of {r['runs']} runs (in the others the clients did not all send at once for long enough)")


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--stations", default="2,10,40", help="comma-separated N (even), default 2,10,40")
    ap.add_argument("--channels", type=int, default=1, help="channels (media) the pairs are spread over")
    ap.add_argument("--seconds", type=int, default=10, help="iperf3 duration per run")
    ap.add_argument("--rate", type=int, default=54, choices=[6, 9, 12, 18, 24, 36, 48, 54], help="legacy rate of every frame, Mb/s (default 54)")
    ap.add_argument("--udp", type=float, default=0.0, metavar="MBPS", help="iperf3 UDP at MBPS Mb/s per pair instead of TCP")
    ap.add_argument("--nice", action="store_true", help="run the daemon at nice -10 instead of SCHED_FIFO 10")
    ap.add_argument("--daemon", action="append", default=[], metavar="PATH", help="another medium daemon to run the same experiment against, side by side (wmediumd's command line; repeat for several; or WMEDIUMD=PATH[,PATH] in the environment)")
    ap.add_argument("--sdmac", default=str(SDMAC), metavar="PATH", help="the sdmac-mediumd binary (default: the release build)")
    ap.add_argument("--no-kernel", action="store_true", help="skip the kernel's own medium (the baseline)")
    ap.add_argument("--threads", action="store_true", help="also run sdmac-mediumd with --threads (a thread per medium)")
    ap.add_argument("--coalesce-us", type=int, metavar="US", help="also run sdmac-mediumd with --coalesce-us US (a delivery leaves with its TX status)")
    ap.add_argument("--epoll", action="store_true", help="also run sdmac-mediumd --epoll (its loop without io_uring)")
    ap.add_argument("--no-run-ahead", action="store_true", help="also run sdmac-mediumd --no-run-ahead (a wake-up for every output, none sent by the kernel at its time)")
    ap.add_argument("--beacon", type=int, default=100, metavar="TU", help="beacon interval of every IBSS, TU (default 100; every station beacons)")
    ap.add_argument("--strace", action="store_true", help="count every daemon's system calls with strace -c (slows them)")
    ap.add_argument("--perf", type=int, default=0, metavar="S", help="sample each daemon's CPU with perf for S seconds while the pairs send (needs linux-perf on the host; the profile is kept as perf.txt with --keep)")
    ap.add_argument("--runs", type=int, default=1, help="runs per point, interleaved across the media; figures are medians")
    ap.add_argument("--vm", choices=["qemu", "uml"], default="qemu", help="the test bed: QEMU (TCG here; the default) or User-Mode Linux (testbed/build_uml.sh builds it, ~7 min the first time; one CPU, the setting FACTS.md §7 measured wmediumd in)")
    ap.add_argument("--json", metavar="OUT", help="write the rows as JSON")
    ap.add_argument("--keep", metavar="DIR", help="keep each run's raw outputs (iperf3 JSON, client spans, the daemon's log and statistics) under DIR")
    a = ap.parse_args(argv)
    started = machine.describe()
    # WMEDIUMD=path[,path]: the daemons to run beside sdmac-mediumd (as --daemon).
    daemons = list(a.daemon) + [d for d in os.environ.get("WMEDIUMD", "").split(",") if d.strip()]
    a.daemon = list(dict.fromkeys(daemons))
    vm = load_runner(a.vm)
    why = vm.availability()
    if why:
        print(f"mediumd benchmark: the VM test bed cannot run here: {why}", file=sys.stderr)
        return 77
    if not Path(a.sdmac).exists():
        print(f"mediumd benchmark: {a.sdmac} is not built (cargo build --release -p sdmac-mediumd)", file=sys.stderr)
        return 2
    for d in a.daemon:
        if not os.access(d, os.X_OK):
            print(f"mediumd benchmark: --daemon {d} is not an executable file", file=sys.stderr)
            return 2
    vm.build_image()
    # (binary, extra arguments, label)
    media = ([] if a.no_kernel else [("kernel", "", "kernel")]) + [(a.sdmac, "", "sdmac-mediumd")]
    if a.threads:
        media.append((a.sdmac, "--threads", "sdmac-mediumd -t"))
    if a.epoll:
        media.append((a.sdmac, "--epoll", "sdmac-mediumd --epoll"))
    if a.no_run_ahead:
        media.append((a.sdmac, "--no-run-ahead", "sdmac-mediumd --no-run-ahead"))
    if a.coalesce_us is not None:
        if not 0 <= a.coalesce_us <= 1_000_000:
            print(f"mediumd benchmark: --coalesce-us {a.coalesce_us} is not from 0 to 1000000", file=sys.stderr)
            return 2
        media.append((a.sdmac, f"--coalesce-us {a.coalesce_us}", f"sdmac-mediumd coalesce {a.coalesce_us}"))
    labels = [name_of(d) for d in a.daemon]
    media += [(d, "", lb if labels.count(lb) == 1 else f"{lb} ({d})") for d, lb in zip(a.daemon, labels)]
    if a.beacon < 1 or a.beacon > 10000:
        print(f"mediumd benchmark: --beacon {a.beacon} TU is not from 1 to 10000", file=sys.stderr)
        return 2
    if not 0 <= a.udp <= 1000:
        print(f"mediumd benchmark: --udp {a.udp:g} Mb/s is not from 0 to 1000", file=sys.stderr)
        return 2
    stations = [int(x) for x in a.stations.split(",") if x.strip()]
    rows: List[Dict[str, Any]] = []
    total = len(stations) * len(media) * a.runs
    k = 0
    for n in stations:
        if n < 2 or n % 2:
            print(f"mediumd benchmark: N={n} must be even and at least 2", file=sys.stderr)
            return 2
        # Interleaved: run r of every medium, then run r + 1 of every medium, so that a
        # drift in the host's load (a shared machine) reaches every medium alike rather
        # than whichever ran last.
        runs: list[list[dict[str, Any]]] = [[] for _ in media]
        for _ in range(a.runs):
            for i, (m, margs, label) in enumerate(media):
                k += 1
                print(f"[{k}/{total}] N={n} channels={a.channels} medium={label} ...", file=sys.stderr, flush=True)
                runs[i].append(run_once(vm, n, a.channels, a.seconds, m, a.strace, a.rate, margs, label, a.beacon, a.udp, "nice" if a.nice else "fifo", Path(a.keep) if a.keep else None, a.perf))
        rows.extend(median_row(r) for r in runs)
    traffic = f"iperf3 UDP at {a.udp:g} Mb/s per pair" if a.udp else "iperf3 TCP"
    print(f"{traffic}, every frame at {a.rate} Mb/s, beacons every {a.beacon} TU, {a.seconds} s per run, daemon at {'nice -10' if a.nice else 'SCHED_FIFO 10'}, {'User-Mode Linux (1 CPU)' if a.vm == 'uml' else 'QEMU'}")
    print_table(rows)
    print("Mb/s: bytes received while every pair sends, over that window (bench/aggregate.py; the wall time where there is no such window, a lower bound); (sum): the sum of the pairs' own averages, which overstates it when the pairs do not send at the same time")
    print("jain: Jain's fairness index over the pairs' rates in that window; sys/fr: the daemon's own count of system calls per frame; st/fr: strace -c's (--strace)")
    print("backlog: over the whole run; all-on: while every pair sends (from 3 s after the clients were let go to 2 s before the first one ended)")
    # Side by side: sdmac-mediumd against every other daemon, per N, with ratios.
    for n in stations:
        lines = side_by_side.table(rows, n)
        if lines:
            print()
            print("\n".join(lines))
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        doc = {
            "machine": machine.describe(),
            "started_utc": started["date_utc"],
            "loadavg_at_start": started["loadavg_1_5_15"],
            "command": ["bench/mediumd.py", *(argv if argv is not None else sys.argv[1:])],
            "testbed": a.vm,
            "rows": rows,
        }
        Path(a.json).write_text(json.dumps(doc, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
