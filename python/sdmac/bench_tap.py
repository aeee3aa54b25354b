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
- ``user-host-unbound``: ``sdmac-tap`` on this machine over a custom PHY whose air
  does not cap 60 B frames (``UNBOUND_SCENARIO``), so scenario 4 measures the
  user-space path's own packet rate (no kernel counterpart: see there).

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
PATHS = ("user-host", "user-vm", "hwsim-vm", "kernel-vm", "user-host-unbound")
# The paths set against kernel-vm, in the table's order.
USER_PATHS = ("user-vm", "hwsim-vm", "user-host")

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
# path itself carries.
UNBOUND_SCENARIO = """\
name = "tap bench pair, air not binding"
duration = 1.0
seed = 1

[phy]
standard = "custom"
rate = "custom500000k"
control_rate = "custom500000k"
slot_us = 1
sifs_us = 1
difs_us = 3
eifs_us = 10
ack_timeout_us = 20
phy_header_us = 1
cw_min = 1
cw_max = 1

[[station]]
name = "a"
address = "02:00:00:00:0b:01"
position = [0, 0]

[[station]]
name = "b"
address = "02:00:00:00:0b:02"
position = [5, 0]
"""

# Metric: (what it is, unit, which way is better: +1 higher, -1 lower).
METRICS: dict[str, tuple[str, str, int]] = {
    "s1_tcp_mbps": ("1. TCP throughput (iperf3)", "Mb/s", +1),
    "s2_delay_p50_us": ("2. one-way delay at 50,000 pps of 60 B, median", "µs", -1),
    "s2_delay_p99_us": ("2. one-way delay at 50,000 pps of 60 B, 99th percentile", "µs", -1),
    "s2_rx_pps": ("2. packets/s received of 50,000 offered", "pps", +1),
    "s3_udp_mbps": ("3. maximum UDP rate, 1472 B payloads", "Mb/s", +1),
    "s4_rx_pps": ("4. maximum packets/s, 60 B", "pps", +1),
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


def metrics_of_run(out: Path) -> dict[str, float]:
    """The figures of one run from what tap_scenarios.sh wrote into `out`."""
    s1 = _load(out / "s1.json")
    try:
        tcp = float(s1["end"]["sum_received"]["bits_per_second"]) / 1e6
    except (KeyError, TypeError):
        raise BenchError(f"{out / 's1.json'}: no end.sum_received.bits_per_second (iperf3 said: {s1.get('error')})") from None
    m: dict[str, float] = {"s1_tcp_mbps": tcp}
    for s in ("s2", "s3", "s4"):
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
    m["s3_udp_mbps"] = m["s3_mbps"]
    return m


def summarize(runs: Mapping[str, Sequence[Mapping[str, float]]]) -> dict[str, Any]:
    """Per path and metric the runs, median and interval; per metric the ratios
    user / kernel (user-vm, hwsim-vm and user-host against kernel-vm) where both
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
    kern = paths.get("kernel-vm")
    if kern:
        for user in USER_PATHS:
            up = paths.get(user)
            if not up:
                continue
            ratios[user] = {}
            for k in METRICS:
                if k in up["metrics"] and k in kern["metrics"]:
                    ratios[user][k] = ratio(up["metrics"][k]["runs"], kern["metrics"][k]["runs"])
    return {"paths": paths, "ratios": ratios}


def goals(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The issue's goals, checked on the same-emulation comparison (user-vm against
    kernel-vm): at least 2x the kernel path's packets/s at 60 B, lower one-way delay;
    `met` is None where a path is missing."""
    out = []
    r = summary.get("ratios", {}).get("user-vm", {})
    pps = r.get("s4_rx_pps", {}).get("ratio")
    out.append({"goal": "user-space packets/s at 60 B >= 2x the kernel path's", "ratio": pps, "met": None if pps is None else pps >= 2.0})
    d = r.get("s2_delay_p50_us", {}).get("ratio")
    out.append({"goal": "user-space one-way delay (median) < the kernel path's", "ratio": d, "met": None if d is None else d < 1.0})
    return out


def table(summary: Mapping[str, Any]) -> str:
    """A Markdown table: per metric each path's median [CI] and the ratios."""
    paths = [p for p in PATHS if p in summary["paths"]]
    users = [u for u in USER_PATHS if u in summary.get("ratios", {})] or ["user-vm", "user-host"]
    head = "| Scenario | " + " | ".join(paths) + " | " + " | ".join(f"{u} / kernel-vm" for u in users) + " |"
    lines = [head, "|" + "---|" * (len(paths) + len(users) + 1)]
    for k, (label, unit, _) in METRICS.items():
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


def run_once(path: str, target: Path, seconds: int, work: Path, log: Callable[[str], None]) -> dict[str, float]:
    """One run of the four scenarios on `path`; its figures."""
    if path not in PATHS:
        raise BenchError(f"path {path!r}: not one of {', '.join(PATHS)}")
    out = work / "out"
    shutil.rmtree(out, ignore_errors=True)
    if path in ("user-host", "user-host-unbound"):
        scen = work / "user.toml"
        scen.write_text(USER_SCENARIO if path == "user-host" else UNBOUND_SCENARIO)
        p = subprocess.run(
            ["bash", str(SCRIPT), "PATH_KIND=user", f"BIN={target}", f"OUT={out}", f"SECONDS={seconds}", f"SCEN={scen}"],
            capture_output=True, text=True, timeout=seconds * 8 + 120,
        )
        if p.returncode != 0:
            raise BenchError(f"{path} run failed ({p.returncode}): {p.stdout[-1500:]} {p.stderr[-500:]}")
        return metrics_of_run(out)
    share = work / "share"
    shutil.rmtree(share, ignore_errors=True)
    (share / "bin").mkdir(parents=True)
    for b in ("sdmac-tap", "sdmac-pktgen", "sdmac-mediumd"):
        shutil.copy2(target / b, share / "bin" / b)
    (share / "user.toml").write_text(USER_SCENARIO)
    kind = {"user-vm": "user", "hwsim-vm": "hwsim"}.get(path, "kernel")
    vm = _vm_runner()
    r = vm.run(SCRIPT, args=[f"PATH_KIND={kind}", "BIN=/share/bin", "OUT=/share/out", f"SECONDS={seconds}", "SCEN=/share/user.toml"],
               timeout=seconds * 30 + 300, share=share)
    if r.status != 0:
        raise BenchError(f"{path} run failed ({r.status}): {r.output[-1500:]}")
    log(f"{path}: VM ran {r.wall_seconds:.0f} s ({r.accel})")
    return metrics_of_run(share / "out")


def bench(paths: Sequence[str], runs: int, seconds: int, target: Path, log: Callable[[str], None]) -> dict[str, Any]:
    """Runs every path `runs` times, interleaved (one run of each path in turn), and
    returns the report: machine, configuration, summary and goals."""
    _binaries(target)
    results: dict[str, list[dict[str, float]]] = {p: [] for p in paths}
    failures: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="sdmac-bench-tap-") as tmp:
        for i in range(runs):
            for p in paths:
                log(f"run {i + 1}/{runs}: {p}")
                try:
                    results[p].append(run_once(p, target, seconds, Path(tmp), log))
                except (BenchError, subprocess.TimeoutExpired) as e:
                    failures.append({"path": p, "run": i + 1, "error": str(e)})
                    log(f"run {i + 1} {p} failed: {e}")
    summary = summarize({p: rs for p, rs in results.items() if rs})
    return {
        "benchmark": "sdmac bench tap",
        "machine": _machine(),
        "config": {
            "runs": runs, "seconds_per_scenario": seconds, "paths": list(paths),
            "phy": "ERP-OFDM 54 Mb/s, 2412 MHz (kernel path: IBSS, bitrates and basic rate 54; user path: 802.11g at 54 in sdmac's emulated medium; hwsim path: the kernel path's radios, IBSS, every frame at 54 through the monitor interfaces)",
            "sizes": "UDP payloads: 60 B (s2, s4), 1472 B (s3, 1500 B IP packets)",
        },
        "summary": summary,
        "goals": goals(summary),
        "failures": failures,
    }


def goal_line(g: Mapping[str, Any]) -> str:
    """One goal as a line of text: its ratio and whether it is met."""
    r = "–" if g["ratio"] is None else f"{g['ratio']:.2f}"
    verdict = "not measured" if g["met"] is None else ("met" if g["met"] else "not met")
    return f"goal: {g['goal']}: ratio {r}, {verdict}"
