"""Seamless redundancy (after Wi-Red) on the SDMAC API over the emulated medium.

A station sends `packets` packets to its AP over two channels, 36 and 40 (802.11a),
each an emulated medium of its own. On each channel the AP loses a share of the DATA
frames (`loss`, and `loss_second` for channel 40 when it differs), drawn
independently on the two channels (each medium has its own seed). The overlay
(``sdmac._core.redundancy_run``) sends each packet

- ``one``: on channel 36 only (the baseline);
- ``two``: on both channels, the receiver dropping the duplicate;
- ``two_cancel``: on both, the copy still queued on one channel cancelled once the
  other copy is acknowledged (duplicate avoidance; its airtime is counted as saved).

By default each copy gets one try at 24 Mb/s (``rates = "24x1"``), so a lost frame is
a lost copy, and packets are handed over `spacing_us` apart. `rates_second` gives
channel 40 a series of its own (a slower link, say): cancelling needs a backlog on one
channel, which channels running in step do not build.

Figures: ``loss_share`` (lost / sent), the latency from the request to the end on air
of the first copy received (``latency_p50_us``, ``latency_p90_us``, ``latency_p95_us``,
``latency_p99_us``, ``latency_max_us``), the same from the
request to the first ACK known at the sender (``ack_latency_*``), ``copies_on_air``,
``copies_cancelled``, ``cancel_too_late`` and ``airtime_saved_ms`` (a lower bound: one
attempt of each cancelled copy).

The run happens on the wall clock, so the latencies and how many copies could still be
cancelled vary with the host's scheduling; the seed fixes the media's loss draws.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from .. import _core
from .report import ci as _ci, comparison, main, sweep_header

MODES = ("one", "two", "two_cancel")
AP = "02:00:00:00:00:01"
STA = "02:00:00:00:00:02"
#: The two channels, by centre frequency (MHz): channels 36 and 40.
FREQS_MHZ = (5180, 5200)
DEFAULTS: dict[str, Any] = {
    "loss": 0.10,
    "loss_second": None,
    "mode": "two_cancel",
    "packets": 300,
    "payload_len": 100,
    "rates": "24x1",
    "rates_second": None,
    "spacing_us": 400.0,
    "window": 16,
}
MAX_PACKETS = 100_000

_SCENARIO = """
name = "redundancy channel {freq}"
duration = 1.0
seed = {seed}
[phy]
standard = "802.11a"
freq_mhz = {freq}
basic_rates = [6]
[[station]]
name = "ap"
address = "{ap}"
position = [0, 0]
ap = true
[[station]]
name = "sta"
address = "{sta}"
position = [10, 0]
[[link]]
from = "sta"
to = "ap"
error_prob = {loss}
"""


def _share(name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v < 1.0:
        raise ValueError(f"redundancy: {name} must be a share in [0, 1), not {v!r}")
    return float(v)


def check_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters with defaults filled in; ValueError naming a bad or unknown one."""
    unknown = sorted(set(params) - set(DEFAULTS))
    if unknown:
        raise ValueError(
            f"redundancy: unknown parameter(s) {', '.join(unknown)} (known: {', '.join(sorted(DEFAULTS))})"
        )
    p = {**DEFAULTS, **params}
    p["loss"] = _share("loss", p["loss"])
    p["loss_second"] = p["loss"] if p["loss_second"] is None else _share("loss_second", p["loss_second"])
    if p["mode"] not in MODES:
        raise ValueError(f"redundancy: mode must be one of {', '.join(MODES)}, not {p['mode']!r}")
    for name, hi in (("packets", MAX_PACKETS), ("payload_len", 1500), ("window", 1024)):
        v = p[name]
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= hi:
            raise ValueError(f"redundancy: {name} must be an integer in 1 … {hi}, not {v!r}")
    s = p["spacing_us"]
    if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0.0 <= s <= 1e6:
        raise ValueError(f"redundancy: spacing_us must be a number in 0 … 1e6 µs, not {s!r}")
    if not isinstance(p["rates"], str):
        raise ValueError(f"redundancy: rates must be a rate series such as \"24x1\", not {p['rates']!r}")
    if p["rates_second"] is not None and not isinstance(p["rates_second"], str):
        raise ValueError(
            f"redundancy: rates_second must be a rate series such as \"6x1\", not {p['rates_second']!r}"
        )
    return p


def run(params: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """Runs the experiment once on emu and returns its figures (see the module doc)."""
    p = check_params(params)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**62:
        raise ValueError(f"redundancy: seed must be a non-negative integer, not {seed!r}")
    sessions = [
        _core.Session.from_scenario(
            _SCENARIO.format(freq=f, seed=2 * seed + k, ap=AP, sta=STA, loss=loss),
            ["ap", "sta"],
            name=f"redundancy-{f}",
            seed=2 * seed + k,
        )
        for k, (f, loss) in enumerate(zip(FREQS_MHZ, (p["loss"], p["loss_second"])))
    ]
    try:
        tx = [s.interface("sta") for s in sessions]
        rx = [s.interface("ap") for s in sessions]
        rates: str | None = p["rates"]
        if p["rates_second"] is not None:
            # Each channel its own series: the overlay then uses each interface's default.
            tx[0].set("default_rates", p["rates"])
            tx[1].set("default_rates", p["rates_second"])
            rates = None
        r = _core.redundancy_run(
            tx,
            rx,
            [AP, AP],
            mode=p["mode"],
            rates=rates,
            packets=p["packets"],
            payload_len=p["payload_len"],
            spacing_us=float(p["spacing_us"]),
            window=p["window"],
        )
    finally:
        for s in sessions:
            s.close()
    figures: dict[str, Any] = {
        "sent": r["sent"],
        "delivered": r["delivered"],
        "lost": r["lost"],
        "loss_share": r["lost"] / r["sent"],
        "duplicates_dropped": r["duplicates_dropped"],
        "duplicates_delivered": r["duplicates_delivered"],
        "copies": r["copies"],
        "copies_on_air": r["copies_on_air"],
        "attempts_on_air": r["attempts_on_air"],
        "copies_cancelled": r["copies_cancelled"],
        "cancel_too_late": r["cancel_too_late"],
        "airtime_saved_ms": r["airtime_saved_ns"] / 1e6,
    }
    for key, prefix in (("latency_ns", "latency"), ("ack_latency_ns", "ack_latency")):
        for stat, v in r[key].items():  # type: ignore[literal-required]
            figures[f"{prefix}_{stat}_us"] = v / 1e3
    figures["mode"] = p["mode"]
    return figures


# ----------------------------------------------------------------------------- summary


def summary(sweep: Mapping[str, Any]) -> str:
    """A Markdown summary of a sweep of this experiment (its ``sweep.json``): a table per
    grid point and, per loss of 10 % or more, whether two channels lost less than one."""
    pts = {(p["params"]["loss"], p["params"].get("payload_len", DEFAULTS["payload_len"]), p["params"]["mode"]): p
           for p in sweep["points"]}
    lines = [
        sweep_header(sweep),
        "",
        "| loss | payload | mode | loss share | latency p50 (ms) | p90 (ms) | p95 (ms) | p99 (ms) "
        "| copies on air | cancelled | too late | airtime saved (ms) |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (loss, payload, mode), p in sorted(pts.items(), key=lambda kv: (kv[0][0], kv[0][1], MODES.index(kv[0][2]))):
        f = p["figures"]
        lines.append(
            f"| {loss:.0%} | {payload} | {mode} | {_ci(f['loss_share'])} | {_ci(f['latency_p50_us'], 1e-3)} "
            f"| {_ci(f['latency_p90_us'], 1e-3)} | {_ci(f['latency_p95_us'], 1e-3)} | {_ci(f['latency_p99_us'], 1e-3)} "
            f"| {_ci(f['copies_on_air'])} "
            f"| {_ci(f['copies_cancelled'])} | {_ci(f['cancel_too_late'])} | {_ci(f['airtime_saved_ms'])} |"
        )
    lines.append("")
    for (loss, payload, mode), p in sorted(pts.items()):
        if mode != "two" or loss < 0.10 or (loss, payload, "one") not in pts:
            continue
        lines.append(comparison(
            f"loss {loss:.0%}, {payload}-byte payloads: two channels lose less than one",
            p["figures"]["loss_share"],
            pts[(loss, payload, "one")]["figures"]["loss_share"],
            higher_is_better=False,
        ))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main(summary, "sdmac.experiments.redundancy"))
