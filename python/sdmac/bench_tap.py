"""``sdmac bench tap``: DPDK-WiFi's four scenarios between two stations, sdmac's
user-space 802.11 path (``sdmac tap`` over the emulated medium) against the kernel's
(two ``mac80211_hwsim`` radios with ``sdmac-mediumd`` as their medium).

Each run of a path is one call of ``testbed/tap_scenarios.sh``: (1) TCP with iperf3,
(2) one-way delay at 50,000 pps of 60 B, (3) maximum UDP rate with 1472 B payloads
(1500 B IP packets), (4) maximum packets per second with 60 B, each from station a
to station b, the last three with ``sdmac-pktgen``. Paths:

- ``user-host``: ``sdmac-tap`` on this machine;
- ``user-vm`` and ``kernel-vm``: the same script in the VM test bed (testbed/run.py),
  one VM per run, so both paths run under the same (software) emulation;
- ``hwsim-vm``: ``sdmac-tap`` in the VM on the kernel path's two radios and medium
  (``--backend hwsim:wlan0,hwsim:wlan1``): sdmac's user-space MAC on their monitor
  interfaces instead of the kernel's mac80211.
- ``user-host-unbound``, ``user-vm-unbound`` and ``kernel-vm-unbound``: the same
  over a custom PHY whose air does not cap 60 B frames (``UNBOUND_SCENARIO``; the
  kernel path's ``sdmac-mediumd`` takes its ``[phy]`` table with ``--phy``), so
  scenario 4 measures each path's own packet rate; ``user-vm-unbound-syscalls``
  is ``user-vm-unbound`` with ``sdmac-tap --tap-io syscalls`` (one system call per
  TAP read or write instead of io_uring, whose TAP reads the VM's 6.1 kernel
  serves through io_uring worker threads).
- ``user-vm-one`` and ``user-vm-unbound-one``: ``user-vm`` and ``user-vm-unbound``
  with ``sdmac-tap --one-thread --realtime 10``: every data path and the emulated
  medium on one loop (no hand-off between threads per frame) under SCHED_FIFO 10,
  the policy the kernel path's ``sdmac-mediumd`` runs under in the same script.

A fifth scenario, (5) one-way delay at ``s5_pps`` (2,000) pps of 60 B (below the
paths' capacity, so no queue builds), runs when named in ``scenarios``; ``perf`` names a
scenario during which ``perf record -a -g`` samples the whole machine (or VM), its
``perf script`` kept beside the run's figures.

Every figure is the median of the runs with a distribution-free confidence interval
(order statistics of the runs), and the ratio user / kernel of the medians with the
interval its two intervals bound.
"""

from __future__ import annotations

import datetime
import importlib.util
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "testbed" / "tap_scenarios.sh"
PATHS = (
    "user-host", "user-vm", "hwsim-vm", "kernel-vm",
    "user-host-unbound", "user-vm-unbound", "user-vm-unbound-syscalls", "kernel-vm-unbound",
    "user-vm-one", "user-vm-unbound-one",
)
# Each user-space path and the kernel path it is set against, in the table's order.
RATIO_PAIRS = {
    "user-vm": "kernel-vm",
    "hwsim-vm": "kernel-vm",
    "user-host": "kernel-vm",
    "user-vm-unbound": "kernel-vm-unbound",
    "user-vm-unbound-syscalls": "kernel-vm-unbound",
    "user-vm-one": "kernel-vm",
    "user-vm-unbound-one": "kernel-vm-unbound",
}
USER_PATHS = tuple(RATIO_PAIRS)
SCENARIOS = ("s1", "s2", "s3", "s4", "s5")
DEFAULT_SCENARIOS = ("s1", "s2", "s3", "s4")

# The station pair of the user-space path: an IBSS, ERP-OFDM at 54 Mb/s like the
# kernel path's hwsim radios (2412 MHz, every frame at 54 Mb/s).
USER_SCENARIO = """\
name = "tap bench pair"
duration = 1.0
seed = 1

[phy]
standard = "802.11g"
rate = 54

[[station]]
name = "a"
address = "02:00:00:00:0b:01"
position = [0, 0]

[[station]]
name = "b"
address = "02:00:00:00:0b:02"
position = [5, 0]
"""

# The same pair on a PHY whose air does not bind at 60 B: a custom PHY at
# 500 Mb/s with 1 µs slots and header, SIFS 1 µs, DIFS 3 µs, CW 1. No 802.11 PHY
# does that (every one spends ~180 µs of fixed overhead per 60 B frame exchange,
# ~5,000-5,400 frames/s for one sender, whatever its data rate: 802.11g 54 Mb/s,
# HT MCS 7 short GI, 40 MHz alike); the kernel path's medium models only standard
# PHYs, so this path has no kernel counterpart: it measures what the user-space
# path itself carries. The table lives in one file, which `sdmac sim` runs and
# crates/sdmac-mediumd/tests/custom_phy.rs reads too.
UNBOUND_SCENARIO = (ROOT / "examples" / "scenarios" / "unbound_phy.toml").read_text(encoding="utf-8")


def unbound_phy() -> str:
    """The ``[phy]`` table of ``UNBOUND_SCENARIO`` alone: what the kernel path's
    ``sdmac-mediumd --phy`` reads, so both paths run on one table."""
    start = UNBOUND_SCENARIO.index("[phy]")
    return UNBOUND_SCENARIO[start:UNBOUND_SCENARIO.index("[[station]]")].rstrip() + "\n"


# Metric: (what it is, unit, which way is better: +1 higher, -1 lower).
METRICS: dict[str, tuple[str, str, int]] = {
    "s1_tcp_mbps": ("1. TCP throughput (iperf3)", "Mb/s", +1),
    "s2_delay_p50_us": ("2. one-way delay at 50,000 pps of 60 B, median", "µs", -1),
    "s2_delay_p99_us": ("2. one-way delay at 50,000 pps of 60 B, 99th percentile", "µs", -1),
    "s2_rx_pps": ("2. packets/s received of 50,000 offered", "pps", +1),
    "s3_udp_mbps": ("3. maximum UDP rate, 1472 B payloads", "Mb/s", +1),
    "s4_rx_pps": ("4. maximum packets/s, 60 B", "pps", +1),
    "s5_delay_p50_us": ("5. one-way delay below capacity (s5_pps), 60 B, median", "µs", -1),
    "s5_delay_p99_us": ("5. one-way delay below capacity (s5_pps), 60 B, 99th percentile", "µs", -1),
}


class BenchError(Exception):
    """A run that cannot be read or made: the message names what and where."""


def median(xs: Sequence[float]) -> float:
    """The median of a non-empty sequence."""
    if not xs:
        raise BenchError("median of no values")
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _binom_cdf_half(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    return float(sum(math.comb(n, i) for i in range(k + 1))) / float(2**n)


def median_ci(xs: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """A distribution-free interval for the median from order statistics: the
    narrowest (x_(j+1), x_(n-j)) whose coverage 1 - 2 P(Bin(n, 1/2) <= j) is at
    least `level`; with too few runs for that, (min, max) and its smaller coverage.
    Returns (low, high, coverage)."""
    if not xs:
        raise BenchError("confidence interval of no values")
    s = sorted(xs)
    n = len(s)
    # (x_(k), x_(n+1-k)), k from 1: it covers the median with 1 - 2 P(B <= k-1).
    k = 1
    while k + 1 <= n // 2 and 1 - 2 * _binom_cdf_half(k, n) >= level:
        k += 1
    return s[k - 1], s[n - k], 1 - 2 * _binom_cdf_half(k - 1, n)


def ratio(num: Sequence[float], den: Sequence[float]) -> dict[str, float | None]:
    """The ratio of the medians of `num` and `den`, with the interval the two
    median intervals bound (lowest over highest, highest over lowest)."""
    mn, md = median(num), median(den)
    nlo, nhi, _ = median_ci(num)
    dlo, dhi, _ = median_ci(den)
    if md == 0:
        return {"ratio": None, "low": None, "high": None}
    return {
        "ratio": mn / md,
        "low": nlo / dhi if dhi > 0 else None,
        "high": nhi / dlo if dlo > 0 else None,
    }


def _load(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise BenchError(f"{path}: missing (the scenario did not finish)") from None
    except json.JSONDecodeError as e:
        raise BenchError(f"{path}: not JSON ({e})") from None


def metrics_of_run(out: Path, scenarios: Sequence[str] = DEFAULT_SCENARIOS) -> dict[str, float]:
    """The figures of one run of `scenarios` from what tap_scenarios.sh wrote into
    `out`."""
    m: dict[str, float] = {}
    if "s1" in scenarios:
        s1 = _load(out / "s1.json")
        try:
            tcp = float(s1["end"]["sum_received"]["bits_per_second"]) / 1e6
        except (KeyError, TypeError):
            raise BenchError(f"{out / 's1.json'}: no end.sum_received.bits_per_second (iperf3 said: {s1.get('error')})") from None
        m["s1_tcp_mbps"] = tcp
    for s in (x for x in ("s2", "s3", "s4", "s5") if x in scenarios):
        send, recv = _load(out / f"{s}_send.json"), _load(out / f"{s}_recv.json")
        for key, obj, name in (("sent", send, "send"), ("received", recv, "recv")):
            if key not in obj:
                raise BenchError(f"{out / f'{s}_{name}.json'}: no '{key}'")
        m[f"{s}_sent"] = float(send["sent"])
        m[f"{s}_received"] = float(recv["received"])
        m[f"{s}_loss"] = 1 - recv["received"] / send["sent"] if send["sent"] else 1.0
        # Over the longer of the sending time and the receiving span: a span
        # alone, with few packets arriving in a burst, overstates the rate.
        window = max(float(send.get("duration_s", 0.0)), float(recv.get("span_s", 0.0)))
        if window <= 0:
            raise BenchError(f"{out / f'{s}_send.json'}: no duration_s and no receiving span")
        m[f"{s}_rx_pps"] = recv["received"] / window
        m[f"{s}_mbps"] = float(recv.get("bytes", 0)) * 8 / window / 1e6
        d = recv.get("delay_us") or {}
        if d.get("p50") is not None:
            m[f"{s}_delay_p50_us"] = float(d["p50"])
            m[f"{s}_delay_p99_us"] = float(d["p99"])
    if "s3" in scenarios:
        m["s3_udp_mbps"] = m["s3_mbps"]
    return m


def summarize(runs: Mapping[str, Sequence[Mapping[str, float]]]) -> dict[str, Any]:
    """Per path and metric the runs, median and interval; per metric the ratios
    user / kernel (each path of ``RATIO_PAIRS`` against its kernel path) where both
    exist."""
    paths: dict[str, Any] = {}
    for path, rs in runs.items():
        per: dict[str, Any] = {}
        keys = sorted({k for r in rs for k in r})
        for k in keys:
            xs = [r[k] for r in rs if k in r]
            lo, hi, cov = median_ci(xs)
            per[k] = {"runs": xs, "median": median(xs), "ci_low": lo, "ci_high": hi, "ci_coverage": cov}
        paths[path] = {"runs": len(rs), "metrics": per}
    ratios: dict[str, Any] = {}
    for user, kernel in RATIO_PAIRS.items():
        up, kern = paths.get(user), paths.get(kernel)
        if up and kern:
            ratios[user] = {}
            for k in METRICS:
                if k in up["metrics"] and k in kern["metrics"]:
                    ratios[user][k] = ratio(up["metrics"][k]["runs"], kern["metrics"][k]["runs"])
    return {"paths": paths, "ratios": ratios}


def _at_least_2(x: float) -> bool:
    return x >= 2.0


def _below_1(x: float) -> bool:
    return x < 1.0


def goals(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The issue's goals, checked on the same-emulation comparisons (user-vm against
    kernel-vm; on the unbound PHY, user-vm-unbound against kernel-vm-unbound, where
    they ran): at least 2x the kernel path's packets/s at 60 B, lower one-way delay;
    `met` is None where a path is missing. Each goal carries the interval of its
    ratio, and `met_at_low` whether the interval's low end meets it too."""
    out = []
    ratios = summary.get("ratios", {})
    # user-vm's goals are listed even when it did not run (then not measured).
    wheres = {
        "user-vm-one": " (--one-thread)",
        "user-vm-unbound": ", unbound PHY",
        "user-vm-unbound-syscalls": ", unbound PHY (--tap-io syscalls)",
        "user-vm-unbound-one": ", unbound PHY (--one-thread)",
    }
    pairs = [("user-vm", "")] + [(u, w) for u, w in wheres.items() if u in ratios]
    for user, where in pairs:
        r = ratios.get(user, {})
        for key, goal, ok in (
            ("s4_rx_pps", "user-space packets/s at 60 B >= 2x the kernel path's", _at_least_2),
            ("s2_delay_p50_us", "user-space one-way delay (median) < the kernel path's", _below_1),
            ("s5_delay_p50_us", "user-space one-way delay below capacity (median) < the kernel path's", _below_1),
        ):
            if key.startswith("s5") and key not in r:
                continue  # scenario 5 runs only when asked for
            x = r.get(key, {})
            v, lo, hi = x.get("ratio"), x.get("low"), x.get("high")
            bound = lo if key == "s4_rx_pps" else hi
            out.append({
                "goal": goal + where, "ratio": v, "low": lo, "high": hi,
                "met": None if v is None else ok(v),
                "met_at_low": None if bound is None else ok(bound),
            })
    return out


def table(summary: Mapping[str, Any]) -> str:
    """A Markdown table: per metric each path's median [CI] and the ratios."""
    paths = [p for p in PATHS if p in summary["paths"]]
    users = [u for u in USER_PATHS if u in summary.get("ratios", {})] or ["user-vm", "user-host"]
    head = "| Scenario | " + " | ".join(paths) + " | " + " | ".join(f"{u} / {RATIO_PAIRS[u]}" for u in users) + " |"
    lines = [head, "|" + "---|" * (len(paths) + len(users) + 1)]
    for k, (label, unit, _) in METRICS.items():
        if not any(k in summary["paths"][p]["metrics"] for p in paths):
            continue
        cells = []
        for p in paths:
            m = summary["paths"][p]["metrics"].get(k)
            cells.append("–" if m is None else f"{_fmt(m['median'])} [{_fmt(m['ci_low'])}, {_fmt(m['ci_high'])}] {unit}")
        for u in users:
            r = summary.get("ratios", {}).get(u, {}).get(k)
            if r is None or r["ratio"] is None:
                cells.append("–")
            else:
                lo = "?" if r["low"] is None else f"{r['low']:.2f}"
                hi = "?" if r["high"] is None else f"{r['high']:.2f}"
                cells.append(f"{r['ratio']:.2f} [{lo}, {hi}]")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _fmt(x: float) -> str:
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:.3g}"


def _machine() -> dict[str, Any]:
    try:
        load: list[float] | None = list(os.getloadavg())
    except OSError:
        load = None
    model = platform.processor() or "unknown"
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cores": os.cpu_count(),
        "cpu_model": model,
        "kernel": platform.release(),
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "loadavg_1_5_15": load,
    }


def _binaries(target: Path) -> Path:
    for b in ("sdmac-tap", "sdmac-pktgen", "sdmac-mediumd"):
        if not (target / b).exists():
            raise BenchError(f"{target / b} is missing: run `cargo build --release -p sdmac-tap -p sdmac-mediumd`")
    return target


def _vm_runner() -> Any:
    spec = importlib.util.spec_from_file_location("sdmac_testbed_run", ROOT / "testbed" / "run.py")
    if spec is None or spec.loader is None:
        raise BenchError(f"{ROOT / 'testbed' / 'run.py'} cannot be loaded")
    vm = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = vm
    spec.loader.exec_module(vm)
    return vm


def script_args(path: str, seconds: int, scenarios: Sequence[str], perf: str | None, s5_pps: int = 2000) -> list[str]:
    """The arguments of tap_scenarios.sh for one run of `path`, but BIN, OUT and the
    files' places: SCEN=user.toml for the user paths, PHY=phy.toml for
    kernel-vm-unbound (both written by `run_once`)."""
    if path not in PATHS:
        raise BenchError(f"path {path!r}: not one of {', '.join(PATHS)}")
    bad = [x for x in scenarios if x not in SCENARIOS]
    if bad or not scenarios:
        raise BenchError(f"scenarios {','.join(scenarios)!r}: each must be one of {', '.join(SCENARIOS)}")
    if perf is not None and perf not in scenarios:
        raise BenchError(f"perf {perf!r}: not one of the scenarios run ({','.join(scenarios)})")
    kind = "user" if path.startswith("user-") else "hwsim" if path == "hwsim-vm" else "kernel"
    args = [f"PATH_KIND={kind}", f"SECONDS={seconds}", f"ONLY={','.join(scenarios)}"]
    if path.endswith("-syscalls"):
        args.append("TAPIO=syscalls")
    if path.endswith("-one"):
        args.append("TAPMODE=one")
    if "s5" in scenarios:
        if not 1 <= s5_pps <= 1_000_000:
            raise BenchError(f"s5_pps {s5_pps}: not a packet rate from 1 to 1,000,000")
        args.append(f"S5_PPS={s5_pps}")
    if perf is not None:
        args.append(f"PERF={perf}")
    return args


def run_once(
    path: str, target: Path, seconds: int, work: Path, log: Callable[[str], None],
    scenarios: Sequence[str] = DEFAULT_SCENARIOS, perf: str | None = None, s5_pps: int = 2000,
) -> dict[str, float]:
    """One run of `scenarios` on `path`; its figures. With `perf`, the `perf script`
    text of that scenario is left in `work`/perf_PATH.txt."""
    args = script_args(path, seconds, scenarios, perf, s5_pps)
    out = work / "out"
    shutil.rmtree(out, ignore_errors=True)
    scen_text = UNBOUND_SCENARIO if "-unbound" in path else USER_SCENARIO
    if path.startswith("user-host"):
        scen = work / "user.toml"
        scen.write_text(scen_text)
        p = subprocess.run(
            ["bash", str(SCRIPT), *args, f"BIN={target}", f"OUT={out}", f"SCEN={scen}"],
            capture_output=True, text=True, timeout=seconds * 8 + 120,
        )
        if p.returncode != 0:
            raise BenchError(f"{path} run failed ({p.returncode}): {p.stdout[-1500:]} {p.stderr[-500:]}")
    else:
        share = work / "share"
        shutil.rmtree(share, ignore_errors=True)
        (share / "bin").mkdir(parents=True)
        for b in ("sdmac-tap", "sdmac-pktgen", "sdmac-mediumd"):
            shutil.copy2(target / b, share / "bin" / b)
        (share / "user.toml").write_text(scen_text)
        args += ["BIN=/share/bin", "OUT=/share/out", "SCEN=/share/user.toml"]
        if path == "kernel-vm-unbound":
            (share / "phy.toml").write_text(unbound_phy())
            args.append("PHY=/share/phy.toml")
        vm = _vm_runner()
        r = vm.run(SCRIPT, args=args, timeout=seconds * 30 + 300, share=share)
        if r.status != 0:
            raise BenchError(f"{path} run failed ({r.status}): {r.output[-1500:]}")
        log(f"{path}: VM ran {r.wall_seconds:.0f} s ({r.accel})")
        out = share / "out"
    if perf is not None:
        shutil.copy2(out / f"perf_{perf}.txt", work / f"perf_{path}.txt")
        shutil.copy2(out / f"perfstat_{perf}.txt", work / f"perfstat_{path}.txt")
    return metrics_of_run(out, scenarios)


def bench(
    paths: Sequence[str], runs: int, seconds: int, target: Path, log: Callable[[str], None],
    scenarios: Sequence[str] = DEFAULT_SCENARIOS, perf: str | None = None, perf_dir: Path | None = None,
    s5_pps: int = 2000,
) -> dict[str, Any]:
    """Runs every path `runs` times, interleaved (one run of each path in turn), and
    returns the report: machine, configuration, summary and goals. With `perf` (a
    scenario), one more run of each path, of that scenario alone, samples the whole
    machine with `perf record -a -g` while it sends; its `perf script` text goes to
    `perf_dir`/perf_PATH_SCENARIO.txt and its figures are not in the summary (the
    sampling costs the path CPU)."""
    _binaries(target)
    for p in paths:
        script_args(p, seconds, scenarios, perf, s5_pps)
    if perf is not None and perf_dir is None:
        raise BenchError("perf: no directory to keep its output in")
    results: dict[str, list[dict[str, float]]] = {p: [] for p in paths}
    failures: list[dict[str, Any]] = []
    profiled: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="sdmac-bench-tap-") as tmp:
        for i in range(runs):
            for p in paths:
                log(f"run {i + 1}/{runs}: {p}")
                try:
                    results[p].append(run_once(p, target, seconds, Path(tmp), log, scenarios, None, s5_pps))
                except (BenchError, subprocess.TimeoutExpired) as e:
                    failures.append({"path": p, "run": i + 1, "error": str(e)})
                    log(f"run {i + 1} {p} failed: {e}")
        for p in paths:
            if perf is None or perf_dir is None:
                break
            log(f"perf run: {p}, {perf}")
            try:
                m = run_once(p, target, seconds, Path(tmp), log, [perf], perf)
            except (BenchError, subprocess.TimeoutExpired) as e:
                failures.append({"path": p, "run": "perf", "error": str(e)})
                log(f"perf run {p} failed: {e}")
                continue
            kept = perf_dir / f"perf_{p}_{perf}.txt"
            shutil.copy2(Path(tmp) / f"perf_{p}.txt", kept)
            stat = (Path(tmp) / f"perfstat_{p}.txt").read_text()
            profiled[p] = {"file": str(kept), "figures_while_sampled": m, "perf_stat": perf_stat_counts(stat)}
    summary = summarize({p: rs for p, rs in results.items() if rs})
    return {
        "benchmark": "sdmac bench tap",
        "machine": _machine(),
        "config": {
            "runs": runs, "seconds_per_scenario": seconds, "paths": list(paths),
            "phy": "ERP-OFDM 54 Mb/s, 2412 MHz (kernel path: IBSS, bitrates and basic rate 54; user path: 802.11g at 54 in sdmac's emulated medium; hwsim path: the kernel path's radios, IBSS, every frame at 54 through the monitor interfaces)",
            "sizes": "UDP payloads: 60 B (s2, s4, s5), 1472 B (s3, 1500 B IP packets)",
            "scenarios": list(scenarios),
            "s5_pps": s5_pps,
            "unbound_phy": "custom: 500 Mb/s data and control rate, 1 us slots and PHY header, SIFS 1 us, DIFS 3 us, EIFS 10 us, ACK timeout 20 us, CW 1 (UNBOUND_SCENARIO; the kernel path's sdmac-mediumd reads its [phy] table with --phy)",
        },
        "perf": profiled,
        "summary": summary,
        "goals": goals(summary),
        "failures": failures,
    }


# Groups of a perf breakdown: (name, what a frame's symbol starts with or contains).
# A sample goes to the group of its innermost frame that matches one (lock and
# interrupt helpers, socket buffer and copy helpers match none: a sample there is its
# caller's), else to its thread's own code.
PERF_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("idle", ("do_idle", "default_idle_call", "native_safe_halt", "cpu_idle")),
    ("mac80211 and cfg80211", ("ieee80211", "__ieee80211", "cfg80211", "invoke_tx_handlers", "sta_info", "minstrel", "rate_control", "rc_")),
    ("hwsim and netlink to the daemon", ("mac80211_hwsim", "hwsim_", "genl", "netlink", "__netlink", "nlmsg")),
    ("TUN device", ("tun_",)),
    ("io_uring", ("io_", "__io_", "handle_tw_list", "tctx_task_work")),
    ("UDP/IP stack and sockets", ("udp", "__udp", "ip_", "__ip", "ip4", "ipv4", "inet_", "__inet", "dev_queue_xmit", "__dev_queue_xmit", "dev_hard_start_xmit", "netif_", "__netif", "net_rx_action", "sch_direct_xmit", "__qdisc", "qdisc", "__sys_sendto", "__sys_recvfrom", "__sys_sendmsg", "__sys_recvmsg", "neigh_", "arp_", "fib_", "nf_", "raw_", "napi_", "__napi", "process_backlog", "validate_xmit")),
    ("scheduling, wake-ups, timers", ("schedule", "__schedule", "futex", "__futex", "try_to_wake_up", "wake_up", "__wake_up", "finish_task_switch", "pick_next", "enqueue_task", "dequeue_task", "__switch_to", "hrtimer", "__hrtimer", "ttwu", "select_task_rq", "do_nanosleep", "clock_nanosleep", "ep_poll", "do_epoll", "__x64_sys_poll", "do_sys_poll")),
)
THREAD_GROUPS = (
    ("sdmac-mediumd", "the daemon's own code"),
    ("sdmac-pktgen", "the generator's own code"),
    ("tap-", "sdmac-tap's own code"),
    ("sdmac-tap", "sdmac-tap's own code"),
    ("sdmac-emu", "sdmac-tap's own code"),
)


def perf_stat_counts(text: str) -> dict[str, float]:
    """The counts of `perf stat -x,` output (value first, event name third), by event;
    an event perf could not count is left out."""
    counts: dict[str, float] = {}
    for line in text.splitlines():
        fields = line.split(",")
        if line.startswith("#") or len(fields) < 3:
            continue
        try:
            counts[fields[2]] = float(fields[0])
        except ValueError:
            continue
    return counts


def perf_group(stack: str) -> str:
    """The group of one folded stack (`thread;outermost;...;innermost`)."""
    thread, *frames = stack.split(";")
    for f in reversed(frames):
        for name, prefixes in PERF_GROUPS:
            if f.startswith(prefixes):
                return name
    for prefix, name in THREAD_GROUPS:
        if thread.startswith(prefix):
            return name
    return "other"


def perf_breakdown(folded: str) -> dict[str, int]:
    """Samples per group of a folded profile (`stack COUNT` lines, as
    bench/fold_perf.py writes them), largest first."""
    counts: dict[str, int] = {}
    for n, line in enumerate(folded.splitlines(), 1):
        if not line.strip():
            continue
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            raise BenchError(f"line {n}: not `stack COUNT`: {line[:80]!r}")
        g = perf_group(stack)
        counts[g] = counts.get(g, 0) + int(count)
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def goal_line(g: Mapping[str, Any]) -> str:
    """One goal as a line of text: its ratio and whether it is met."""
    r = "–" if g["ratio"] is None else f"{g['ratio']:.2f}"
    if g["ratio"] is not None and g.get("low") is not None and g.get("high") is not None:
        r += f" [{g['low']:.2f}, {g['high']:.2f}]"
    verdict = "not measured" if g["met"] is None else ("met" if g["met"] else "not met")
    if g["met"] and g.get("met_at_low") is False:
        verdict += " (not by the whole interval)"
    return f"goal: {g['goal']}: ratio {r}, {verdict}"
