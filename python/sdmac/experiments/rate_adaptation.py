"""User-space rate adaptation following a station that moves away, on the emulated medium.

The SDMAC paper's testbed (``Session.paper``: an AP and a station `distance_m` apart,
802.11a) with a saturated queue from the station to the AP of `payload_len`-byte
packets (``sdmac._core.rate_run``). The emulated medium has no run-time mobility knob
for a station's position, so the station "moves away" by lowering its transmit power
at run time: the run is split into equal phases, one per entry of `tx_power_dbm`
(20, 14 and 10 dBm by default), and at the start of each phase after the first the
overlay sets the interface's ``tx_power`` attribute, which lowers the SNR at the AP as
a longer distance would.

`policy` is ``adaptive`` (the Minstrel-like adaptation, driven by confirmations) or a
fixed 802.11a rate in Mb/s (``"6"`` … ``"54"``), sent with `tries` tries per packet.

Figures: ``delivered`` (packets acknowledged over the run), ``goodput_mbps``
(delivered payload bits over the run's duration), ``attempts``, and per phase
``phaseK_delivered``; the best rate per phase (``best_rates``, under the adaptation)
and the attempts per rate are kept as non-numeric entries.

The run happens on the wall clock: on a loaded host the request and confirmation paths
limit what is delivered alongside the rates. The seed fixes the medium's draws and the
adaptation's sampling.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from .. import _core
from .report import ci as _ci, comparison, main, sweep_header

AP = "02:00:00:00:00:01"
#: The 802.11a rates (Mb/s), as the rate series name them.
RATES = ("6", "9", "12", "18", "24", "36", "48", "54")
POLICIES = ("adaptive", *RATES)
DEFAULTS: dict[str, Any] = {
    "policy": "adaptive",
    "distance_m": 40.0,
    "tx_power_dbm": [20.0, 14.0, 10.0],
    "phase_ms": 400.0,
    "payload_len": 2000,
    "tries": 8,
    "update_ms": 20.0,
}


def check_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters with defaults filled in; ValueError naming a bad or unknown one."""
    unknown = sorted(set(params) - set(DEFAULTS))
    if unknown:
        raise ValueError(
            f"rate_adaptation: unknown parameter(s) {', '.join(unknown)} (known: {', '.join(sorted(DEFAULTS))})"
        )
    p = {**DEFAULTS, **params}
    if isinstance(p["policy"], (int, float)) and not isinstance(p["policy"], bool):
        p["policy"] = f"{p['policy']:g}"
    if p["policy"] not in POLICIES:
        raise ValueError(f"rate_adaptation: policy must be one of {', '.join(POLICIES)}, not {p['policy']!r}")
    for name, lo, hi in (("distance_m", 0.1, 10_000.0), ("phase_ms", 10.0, 60_000.0), ("update_ms", 1.0, 10_000.0)):
        v = p[name]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
            raise ValueError(f"rate_adaptation: {name} must be a number in {lo:g} … {hi:g}, not {v!r}")
    for name, lo, hi in (("payload_len", 1, 2304), ("tries", 1, 15)):
        v = p[name]
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"rate_adaptation: {name} must be an integer in {lo} … {hi}, not {v!r}")
    powers = p["tx_power_dbm"]
    if (
        not isinstance(powers, (list, tuple))
        or not powers
        or any(isinstance(x, bool) or not isinstance(x, (int, float)) or not -10 <= x <= 40 for x in powers)
    ):
        raise ValueError(
            f"rate_adaptation: tx_power_dbm must be a non-empty list of dBm in -10 … 40, one per phase, not {powers!r}"
        )
    p["tx_power_dbm"] = [float(x) for x in powers]
    return p


def run(params: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """Runs the experiment once on emu and returns its figures (see the module doc)."""
    p = check_params(params)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ValueError(f"rate_adaptation: seed must be a non-negative integer, not {seed!r}")
    powers = p["tx_power_dbm"]
    phase = float(p["phase_ms"])
    duration = phase * len(powers)
    steps = [(phase * k, dbm) for k, dbm in enumerate(powers) if k > 0]
    fixed = None if p["policy"] == "adaptive" else f"{p['policy']}x{p['tries']}"
    with _core.Session.paper(distance_m=float(p["distance_m"]), seed=seed) as s:
        sta = s.interface("sta")
        sta.set("tx_power", powers[0])
        r = _core.rate_run(
            sta,
            AP,
            fixed=fixed,
            duration_ms=duration,
            payload_len=p["payload_len"],
            steps=steps,
            update_ms=float(p["update_ms"]),
            seed=seed,
        )
    figures: dict[str, Any] = {
        "delivered": r["delivered"],
        "goodput_mbps": r["delivered"] * p["payload_len"] * 8 / (duration * 1e3),
        "attempts": r["attempts"],
        "sent": r["sent"],
    }
    for k, ph in enumerate(r["phases"]):
        figures[f"phase{k}_delivered"] = ph["delivered"]
    figures["policy"] = p["policy"]
    figures["best_rates"] = [ph["best"] for ph in r["phases"]]
    figures["attempts_per_rate"] = dict(r["attempts_per_rate"])
    return figures


# ----------------------------------------------------------------------------- summary


def summary(sweep: Mapping[str, Any]) -> str:
    """A Markdown summary of a sweep of this experiment (its ``sweep.json``): a table per
    policy and whether the adaptation delivered more than every fixed rate."""
    pts = {str(p["params"]["policy"]): p["figures"] for p in sweep["points"]}
    phases = sorted(k for k in next(iter(pts.values())) if k.startswith("phase"))
    lines = [
        sweep_header(sweep, per="policy"),
        "",
        "| policy | delivered | goodput (Mb/s) | attempts | " + " | ".join(f"phase {k} delivered" for k in range(len(phases))) + " |",
        "|---|---:|---:|---:|" + "---:|" * len(phases),
    ]
    for policy in sorted(pts, key=lambda x: POLICIES.index(x) if x in POLICIES else len(POLICIES)):
        f = pts[policy]
        label = policy if policy == "adaptive" else f"fixed {policy} Mb/s"
        lines.append(
            f"| {label} | {_ci(f['delivered'])} | {_ci(f['goodput_mbps'])} | {_ci(f['attempts'])} | "
            + " | ".join(_ci(f[ph]) for ph in phases)
            + " |"
        )
    fixed = {k: v for k, v in pts.items() if k != "adaptive"}
    if "adaptive" in pts and fixed:
        top = max(fixed, key=lambda k: fixed[k]["delivered"]["mean"])
        lines += [
            "",
            comparison(
                "the adaptation delivered more than every fixed rate",
                pts["adaptive"]["delivered"],
                fixed[top]["delivered"],
                higher_is_better=True,
                fmt=".0f",
                against=f" at the best fixed rate, {top} Mb/s",
            ),
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main(summary, "sdmac.experiments.rate_adaptation"))
