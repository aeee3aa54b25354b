#!/usr/bin/env python3
"""Where the time of a confirmed one-shot goes: `sdmac bench oneshot` on `emu` (the
host) beside `hwsim:wlan0` (the QEMU VM, sdmac-mediumd the medium), part by part.

    .venv/bin/python bench/oneshot_breakdown.py [--count 300] [--json OUT] [--no-vm]

Both runs are back-to-back confirmed one-shots (50 B at 54 Mb/s, 250 µs after each
confirmation) on a loss-free link; only acknowledged ones (set A) are counted. The
parts are the latency components of crates/sdmac-api/src/timestamps.rs, from the
per-sample CSV the command writes:

- API + hand-off, t1 -> t3 (Tsw_req). emu: the API call and the hand-off to the
  device thread (parked between events: --device-wait park, since on the loaded
  2-core host a spinning device thread loses its core for whole scheduler ticks). hwsim: the API call and the linux backend up to send() on the
  packet socket.
- to the medium, t4 -> t_start (Tca). emu: channel access (0 on the quiet channel).
  hwsim: from send()'s return (mac80211 has the frame) to the daemon putting it on
  air: mac80211, mac80211_hwsim, netlink to sdmac-mediumd, its scheduling.
- device / driver, (t3 -> t4) + (t5 -> t7) (Thw). emu: 0 (no device profile).
  hwsim: the send() call, plus from the daemon's outcome to the kernel's receive
  stamp of the TX-status echo (the daemon's netlink answer, hwsim, mac80211, the
  socket's error queue). The CSV carries Thw only as this sum.
- on air, t_start -> t5 (Ttoa): DATA + SIFS + ACK. emu: the simulated medium's
  times. hwsim: the daemon's truth record of the frame (first attempt's start, the
  outcome's end), on the guest's CLOCK_MONOTONIC (docs/backends.md).
- application wake-up, t7 -> t9 (Tsw_con): publishing the confirmation and waking
  the caller in data_con.
- Tpath, t1 -> t9: the sum.

The VM is QEMU under TCG on this machine (no KVM): every guest figure is inflated
by the emulation, and the ratios say how much of that slowness each part takes,
not what a real kernel would cost. Timing is never asserted.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
COUNT = 300
#: (key, label, the CSV's component column)
PARTS = [
    ("api", "API + hand-off (t1→t3, Tsw_req)", "Tsw_req"),
    ("to_medium", "to the medium (t4→t_start, Tca)", "Tca"),
    ("driver", "send() + echo back (t3→t4 + t5→t7, Thw)", "Thw"),
    ("air", "on air (t_start→t5, Ttoa)", "Ttoa"),
    ("wake", "app wake-up (t7→t9, Tsw_con)", "Tsw_con"),
    ("tpath", "Tpath (t1→t9)", "Tpath"),
]
#: Rows from the second run (testbed/oneshot_planes.py): the halves of the sums above.
PLANE_PARTS = [
    ("send", "… of Thw: send() (t3→t4)"),
    ("echo", "… of Thw: echo back (t5→t7)"),
    ("publish", "… of Tsw_con: publish (t7→t8)"),
    ("pickup", "… of Tsw_con: caller picks it up (t8→t9)"),
    ("tpath", "… Tpath of that run (t1→t9)"),
]
COMMON = ["--mode", "back-to-back", "--payload", "50", "--rate", "54", "-q"]
#: What `sdmac bench` needs in the guest besides the sdmac package.
BENCH_DEPS = ("click", "rich", "markdown_it", "mdurl", "pygments")
NOTES = [
    "back-to-back confirmed one-shots, 50 B at 54 Mb/s, 250 µs after each confirmation, loss-free link; set A only",
    "emu: the paper's testbed (802.11a) on the host, device thread parked between events (--device-wait park: on a loaded "
    "2-core host a spinning device thread loses its core for a scheduler tick); t_start/t5 are the simulated medium's, "
    "Thw = 0 (no device profile)",
    "hwsim: linux backend on mac80211_hwsim in the QEMU VM (2.4 GHz ERP-OFDM, hostapd AP), sdmac-mediumd the medium; "
    "t_start and t5 are the daemon's truth records (CLOCK_MONOTONIC in the guest), t7 the kernel's stamp of the TX-status echo",
    "the VM runs under QEMU TCG (no KVM): guest figures are inflated by the emulation; compare shapes, not absolutes",
    "Thw is send() (t3→t4) plus the echo back (t5→t7) and Tsw_con is publish (t7→t8) plus pick-up (t8→t9): "
    "sdmac bench oneshot's per-sample data carries only the sums, so the '…' rows come from a second run of as many "
    "one-shots (testbed/oneshot_planes.py, a Python loop reading every plane), not from the same samples",
]


def quantile(v: Sequence[float], q: float) -> float:
    """Nearest rank (as sdmac-measure)."""
    s = sorted(v)
    return s[max(0, min(len(s) - 1, -int(-q * len(s) // 1) - 1))]


def read_samples(path: Path) -> List[Dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def summarize(rows: Sequence[Mapping[str, str]]) -> Dict[str, Any]:
    """Median and p99 (µs) of each part over the acknowledged samples with every
    component recorded."""
    ok = [r for r in rows if r.get("set") == "A" and all(r.get(c) not in (None, "") for _, _, c in PARTS)]
    out: Dict[str, Any] = {"samples": len(rows), "acked_with_planes": len(ok), "parts": {}}
    for key, _, col in PARTS:
        v = [float(r[col]) for r in ok]
        out["parts"][key] = {"median_us": quantile(v, 0.5) if v else None, "p99_us": quantile(v, 0.99) if v else None}
    return out


def ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    if a is None or b is None or b <= 0:
        return None
    return a / b


def build_table(result: Mapping[str, Any]) -> List[str]:
    """The side-by-side table (Markdown) of a result as this script saves it."""
    emu = result["backends"].get("emu", {}).get("parts", {})
    hw = result["backends"].get("hwsim", {}).get("parts", {})

    def cell(x: Optional[float]) -> str:
        return "–" if x is None else (f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}")

    def rcell(x: Optional[float]) -> str:
        if x is None:
            return "–"
        return f"{x:.0f}×" if x >= 10 else f"{x:.1f}×" if x >= 0.1 else f"{x:.3f}×"

    lines = [
        "| part (µs) | emu median | emu p99 | hwsim median | hwsim p99 | hwsim/emu median | hwsim/emu p99 |",
        "|---|--:|--:|--:|--:|--:|--:|",
    ]
    rows = [(label, emu.get(key, {}), hw.get(key, {})) for key, label, _ in PARTS]
    pe = result["backends"].get("emu", {}).get("planes", {}).get("parts", {})
    ph = result["backends"].get("hwsim", {}).get("planes", {}).get("parts", {})
    if pe or ph:
        rows += [(label, pe.get(key, {}), ph.get(key, {})) for key, label in PLANE_PARTS]
    for label, e, h in rows:
        em, ep, hm, hp = e.get("median_us"), e.get("p99_us"), h.get("median_us"), h.get("p99_us")
        lines.append(f"| {label} | {cell(em)} | {cell(ep)} | {cell(hm)} | {cell(hp)} | {rcell(ratio(hm, em))} | {rcell(ratio(hp, ep))} |")
    return lines


def run_emu(count: int, d: Path) -> Dict[str, Any]:
    csv_path, json_path = d / "emu.csv", d / "emu.json"
    cmd = [sys.executable, "-m", "sdmac", "bench", "oneshot", "--backend", "emu", "--loss-data", "0", "--loss-ack", "0", "--device-wait", "park",
           "--count", str(count), *COMMON, "--json", str(json_path), "--csv", str(csv_path)]
    subprocess.run(cmd, check=True, cwd=ROOT)
    out = summarize(read_samples(csv_path))
    out["command"] = "sdmac bench oneshot " + " ".join(cmd[5:-4])
    out["config"] = json.loads(json_path.read_text()).get("config")
    p = subprocess.run([sys.executable, str(ROOT / "testbed" / "oneshot_planes.py"), "emu", str(count)], check=True, cwd=ROOT,
                       capture_output=True, text=True)
    out["planes"] = json.loads(p.stdout.strip().splitlines()[-1])
    return out


def run_hwsim(count: int, d: Path) -> Dict[str, Any]:
    sys.path.insert(0, str(ROOT / "tests"))
    import vmbed  # noqa: PLC0415
    from test_vm_linux_open import _python_into  # noqa: PLC0415

    vm = vmbed.vm
    why = vm.availability()
    if why:
        return {"skipped": f"VM test bed unavailable: {why}"}
    try:
        vm.build_image()
    except vm.VMUnavailable as e:
        return {"skipped": f"VM test bed unavailable: {e.args[0]}"}
    share = d / "share"
    share.mkdir()
    for b in ("sdmac-mediumd", "sdmac-mediumctl"):
        src = TARGET / "release" / b
        if not src.exists():
            raise SystemExit(f"{src} is not built (`make build`)")
        shutil.copy2(src, share / b)
    no_python = _python_into(share)
    if no_python:
        raise SystemExit(f"Python cannot run in the guest: {no_python}")
    for dep in BENCH_DEPS:
        mod = __import__(dep)
        shutil.copytree(Path(mod.__file__).parent, share / "pkg" / dep, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "testbed" / "oneshot_planes.py", share / "planes.py")
    r = vm.run(ROOT / "testbed" / "oneshot_breakdown.sh", args=[str(count)], timeout=1800, share=share)
    if r.status != 0 or "OB PASS" not in r.output:
        raise SystemExit(f"the guest run failed: status {r.status}\n{r.output}")
    out = summarize(read_samples(share / "out" / "bench.csv"))
    out["command"] = f"sdmac bench oneshot --backend hwsim:wlan0 --mode back-to-back --count {count} (testbed/oneshot_breakdown.sh)"
    out["config"] = json.loads((share / "out" / "bench.json").read_text()).get("config")
    out["planes"] = json.loads((share / "out" / "planes.out").read_text().strip().splitlines()[-1])
    out["vm"] = r.accel
    return out


def main() -> None:
    from machine import describe  # noqa: PLC0415

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=COUNT, help=f"one-shots per backend (default {COUNT})")
    ap.add_argument("--json", help="write the result to this file")
    ap.add_argument("--no-vm", action="store_true", help="emu only")
    a = ap.parse_args()
    machine = describe()
    backends: Dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as t:
        d = Path(t)
        print(f"emu: {a.count} one-shots ...", file=sys.stderr, flush=True)
        backends["emu"] = run_emu(a.count, d)
        if not a.no_vm:
            print(f"hwsim (VM): {a.count} one-shots ...", file=sys.stderr, flush=True)
            backends["hwsim"] = run_hwsim(a.count, d)
            if "skipped" in backends["hwsim"]:
                print(f"hwsim skipped: {backends['hwsim']['skipped']}", file=sys.stderr)
    machine["loadavg_end"] = list(os.getloadavg())
    result = {"benchmark": "oneshot_breakdown", "count": a.count, "machine": machine, "date_utc": machine["date_utc"],
              "command": ".venv/bin/python bench/oneshot_breakdown.py" + (f" --count {a.count}" if a.count != COUNT else ""),
              "notes": NOTES, "backends": backends}
    print(f"where the time of a confirmed one-shot goes (µs; {a.count} per backend, set A)")
    for line in build_table(result):
        print(line)
    for n in NOTES:
        print(f"- {n}")
    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
