"""Software retransmission against bursts of interference (the SDMAC paper's Fig. 1).

Three stations on one emulated 802.11a medium, placed by link budgets: an AP hears a
sender (−65 dBm) and an interferer (−55 dBm); the sender and the interferer cannot
hear each other (−130 dBm), so carrier sense does not stop the sender during a burst.
The interferer is a second interface driven from Python through the API: every
`period_ms` it queues `burst_frames` broadcast frames of 2000 bytes at 6 Mb/s (no ACK,
one try), which go out back to back (about 2.7 ms each on air).

The sender sends `packets` packets of 200 bytes to the AP, one every `spacing_ms`,
each due `deadline_ms` after it is handed over, under the software retransmission
overlay (``sdmac._core.retransmit``) with `policy`:

- ``mac_retries``: one request, the MAC's own back-to-back retries (24 Mb/s × 7 tries);
- ``beyond_burst``: up to 3 requests of 2 tries, the next one the set burst length
  after a failure was known, so that a burst of that length is over. The set length is
  the burst's airtime from the IEEE 802.11 formulas (DIFS + DATA per frame) plus 15 %;
- ``deadline_spread``: up to 4 requests of 2 tries, spread evenly over the time left
  to the deadline;
- ``fixed_spacing``: up to 3 requests of 2 tries, `fixed_spacing_ms` apart.

Every wait (the sender's next packet, the interferer's next burst) blocks in
``data_con`` with a timeout until the moment wanted on the backend's clock
(``CLOCK_MONOTONIC``, the clock of ``time.monotonic_ns``), as the overlays do.

The overlay's call is blocking: a packet is handed over when it is due or, if the
previous packet's policy is still at work, when that call returns; its deadline runs
from the handover, as in the overlay's own test. ``delivered_from_due`` counts the
packets acknowledged within `deadline_ms` of when they were due instead, which charges
a policy for holding up the packets behind it; ``handover_late_ms`` is the mean delay
of the handover after the due time.

Figures: ``delivered`` (acknowledged by the deadline), ``delivered_share``, ``late``,
``gave_up``, ``deadline_reached`` (not started for lack of time), ``dropped``,
``requests`` and ``attempts`` (MAC attempts over all packets), ``bursts`` sent and
``burst_ms`` (the mean measured burst: from the first frame reaching the device, t4,
to the last frame's end on air, t5), and ``set_burst_ms``.

The run happens on the wall clock, so its figures vary with the host's scheduling; the
seed fixes the medium's random draws.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any

from .. import _core
from .report import ci as _ci, comparison, main, sweep_header

AP = "02:00:00:00:00:01"
STA = "02:00:00:00:00:02"
INT = "02:00:00:00:00:03"
BROADCAST = "ff:ff:ff:ff:ff:ff"
POLICIES = ("mac_retries", "beyond_burst", "deadline_spread", "fixed_spacing")
#: The interferer's frames: payload octets and the octets around it on air (non-QoS
#: header 24, LLC/SNAP 8, FCS 4).
BURST_PAYLOAD = 2000
BURST_OVERHEAD = 24 + 8 + 4
PAYLOAD = 200
#: DIFS of the OFDM PHY: SIFS 16 µs + 2 slots of 9 µs (IEEE 802.11-2016 Clause 17).
DIFS_US = 16.0 + 2 * 9.0
#: Margin added to the burst's airtime for `beyond_burst`'s set burst length.
BURST_MARGIN = 0.15
DEFAULTS: dict[str, Any] = {
    "policy": "beyond_burst",
    "burst_frames": 12,
    "period_ms": 90.0,
    "packets": 40,
    "spacing_ms": 15.0,
    "deadline_ms": 60.0,
    "fixed_spacing_ms": 5.0,
}

_SCENARIO = """
name = "retransmission"
duration = 1.0
seed = {seed}
[phy]
standard = "802.11a"
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
[[station]]
name = "int"
address = "{int}"
position = [-10, 0]
[[link]]
from = "sta"
to = "ap"
rx_power_dbm = -65
[[link]]
from = "int"
to = "ap"
rx_power_dbm = -55
[[link]]
from = "sta"
to = "int"
rx_power_dbm = -130
"""


def check_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters with defaults filled in; ValueError naming a bad or unknown one."""
    unknown = sorted(set(params) - set(DEFAULTS))
    if unknown:
        raise ValueError(
            f"retransmission: unknown parameter(s) {', '.join(unknown)} (known: {', '.join(sorted(DEFAULTS))})"
        )
    p = {**DEFAULTS, **params}
    if p["policy"] not in POLICIES:
        raise ValueError(f"retransmission: policy must be one of {', '.join(POLICIES)}, not {p['policy']!r}")
    for name, lo, hi in (("burst_frames", 0, 100), ("packets", 1, 10_000)):
        v = p[name]
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"retransmission: {name} must be an integer in {lo} … {hi}, not {v!r}")
    for name in ("period_ms", "spacing_ms", "deadline_ms", "fixed_spacing_ms"):
        v = p[name]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.1 <= v <= 10_000:
            raise ValueError(f"retransmission: {name} must be a number of milliseconds in 0.1 … 10000, not {v!r}")
    if burst_airtime_ms(p["burst_frames"]) >= p["period_ms"]:
        raise ValueError(
            f"retransmission: a burst of {p['burst_frames']} frames takes "
            f"{burst_airtime_ms(p['burst_frames']):.1f} ms, not less than period_ms = {p['period_ms']}"
        )
    return p


def burst_airtime_ms(frames: int) -> float:
    """A burst's airtime (ms): per frame DIFS and the frame at 6 Mb/s, back to back."""
    one = _core.airtime_us("802.11a", "6", BURST_PAYLOAD + BURST_OVERHEAD)
    return frames * (DIFS_US + one) / 1e3


def _wait_until(iface: _core.Interface, t_ns: int) -> None:
    """Blocks in data_con until the backend's clock reaches `t_ns` (no confirmation is due)."""
    while (now := time.monotonic_ns()) < t_ns:
        c = iface.data_con(timeout=(t_ns - now) / 1e9)
        if c is not None:
            raise RuntimeError(f"retransmission: unexpected confirmation of id {c.id} while waiting")


class _Interferer(threading.Thread):
    """Sends a burst every period until stopped, from its own interface."""

    def __init__(self, iface: _core.Interface, frames: int, period_ns: int, start_ns: int) -> None:
        super().__init__(name="interferer", daemon=True)
        self.iface, self.frames, self.period_ns, self.next_ns = iface, frames, period_ns, start_ns
        self.stop = threading.Event()
        self.bursts_ns: list[int] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self._loop()
        except BaseException as e:  # reported by the caller after join()
            self.error = e

    def _loop(self) -> None:
        frame = b"\x55" * BURST_PAYLOAD
        k = 1 << 40
        while not self.stop.is_set():
            _wait_until(self.iface, self.next_ns)
            for _ in range(self.frames):
                self.iface.data_req(k, frame, dst=BROADCAST, rates="6x1", no_ack=True)
                k += 1
            first: int | None = None
            last: int | None = None
            for _ in range(self.frames):
                c = self.iface.data_con(timeout=2.0)
                if c is None:
                    raise RuntimeError("retransmission: the interferer's frame was not confirmed within 2 s")
                ts = c.timestamps
                if first is None:
                    first = ts.get("t4")
                last = ts.get("t5")
            if first is not None and last is not None:
                self.bursts_ns.append(last - first)
            self.next_ns += self.period_ns


def run(params: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """Runs the experiment once on emu and returns its figures (see the module doc)."""
    p = check_params(params)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ValueError(f"retransmission: seed must be a non-negative integer, not {seed!r}")
    set_burst_ms = burst_airtime_ms(p["burst_frames"]) * (1 + BURST_MARGIN)
    kw: dict[str, Any] = {"policy": p["policy"]}
    if p["policy"] == "mac_retries":
        kw["rates"] = "24x7"
    else:
        kw["rates"] = "24x2"
        kw["requests"] = 4 if p["policy"] == "deadline_spread" else 3
        if p["policy"] == "beyond_burst":
            kw["burst_us"] = max(set_burst_ms, 0.1) * 1e3
        elif p["policy"] == "fixed_spacing":
            kw["spacing_us"] = p["fixed_spacing_ms"] * 1e3
    scenario = _SCENARIO.format(seed=seed, ap=AP, sta=STA, int=INT)
    fates: list[str] = []
    handed_ns: list[int] = []
    in_time_from_due = 0
    deadline_ns = int(p["deadline_ms"] * 1e6)
    requests = attempts = 0
    with _core.Session.from_scenario(scenario, ["sta", "int"], name="retransmission", seed=seed) as s:
        sta, intf = s.interface("sta"), s.interface("int")
        t0 = time.monotonic_ns() + 5_000_000
        interferer = _Interferer(intf, p["burst_frames"], int(p["period_ms"] * 1e6), t0)
        if p["burst_frames"] > 0:
            interferer.start()
        try:
            spacing_ns = int(p["spacing_ms"] * 1e6)
            for k in range(p["packets"]):
                # The first packet meets the first burst 5 ms after it began.
                due = t0 + 5_000_000 + k * spacing_ns
                _wait_until(sta, due)
                handed_ns.append(time.monotonic_ns() - due)
                r = _core.retransmit(
                    sta, bytes([k % 256]) * PAYLOAD, dst=AP, deadline_us=p["deadline_ms"] * 1e3,
                    first_id=1 + 64 * k, **kw,
                )
                fates.append(r["fate"])
                acked = r["acked_at_ns"]
                in_time_from_due += acked is not None and acked <= due + deadline_ns
                requests += r["requests"]
                attempts += r["attempts"]
        finally:
            interferer.stop.set()
            if interferer.is_alive():
                interferer.join()
    if interferer.error is not None:
        raise RuntimeError(f"retransmission: the interferer failed: {interferer.error}") from interferer.error
    n = p["packets"]
    delivered = fates.count("delivered")
    bursts = interferer.bursts_ns
    return {
        "delivered": delivered,
        "delivered_share": delivered / n,
        "delivered_from_due": in_time_from_due,
        "handover_late_ms": math.fsum(handed_ns) / len(handed_ns) / 1e6,
        "late": fates.count("late"),
        "gave_up": fates.count("gave_up"),
        "deadline_reached": fates.count("deadline_reached"),
        "dropped": fates.count("dropped"),
        "requests": requests,
        "attempts": attempts,
        "bursts": len(bursts),
        "burst_ms": math.fsum(bursts) / len(bursts) / 1e6 if bursts else 0.0,
        "set_burst_ms": set_burst_ms,
        "policy": p["policy"],
        "fates": fates,
    }


# ----------------------------------------------------------------------------- summary


def summary(sweep: Mapping[str, Any]) -> str:
    """A Markdown summary of a sweep of this experiment (its ``sweep.json``): a table per
    policy and burst length and, per burst length, whether retrying beyond the burst
    delivered more within the deadline than the MAC's back-to-back retries."""
    pts = {(p["params"]["burst_frames"], p["params"]["policy"]): p["figures"] for p in sweep["points"]}
    lines = [
        sweep_header(sweep),
        "",
        "| burst (frames) | burst measured (ms) | policy | delivered in time | gave up | deadline reached "
        "| requests | MAC attempts | in time from due | handover late (ms) |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (burst, policy), f in sorted(pts.items(), key=lambda kv: (kv[0][0], POLICIES.index(kv[0][1]))):
        lines.append(
            f"| {burst} | {_ci(f['burst_ms'])} | {policy} | {_ci(f['delivered'])} | {_ci(f['gave_up'])} "
            f"| {_ci(f['deadline_reached'])} | {_ci(f['requests'])} | {_ci(f['attempts'])} "
            f"| {_ci(f['delivered_from_due'])} | {_ci(f['handover_late_ms'])} |"
        )
    lines.append("")
    for burst in sorted({b for b, _ in pts}):
        if (burst, "beyond_burst") not in pts or (burst, "mac_retries") not in pts:
            continue
        for fig, what in (("delivered", "from the handover"), ("delivered_from_due", "from the due time")):
            lines.append(comparison(
                f"bursts of {burst} frames, deadline {what}: beyond the burst delivers more within it "
                "than back to back",
                pts[(burst, "beyond_burst")][fig],
                pts[(burst, "mac_retries")][fig],
                higher_is_better=True,
                fmt=".1f",
            ))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main(summary, "sdmac.experiments.retransmission"))
