"""Bianchi's analytical model of DCF saturation throughput.

G. Bianchi, "Performance analysis of the IEEE 802.11 distributed coordination
function", IEEE JSAC 18(3), March 2000: a station transmits in a slot with probability
tau, a transmission collides with probability p = 1 - (1 - tau)^(n-1); the two are
solved as a fixed point. Basic access, no retry limit, collision time = DATA + DIFS.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def tau_of_p(p: float, w: int, m: int) -> float:
    """Bianchi's eq. (7), divided through by (1 - 2p) so that p = 1/2 is not 0/0."""
    geometric = sum((2.0 * p) ** i for i in range(m))
    return 2.0 / (w + 1.0 + p * w * geometric)


def fixed_point(n: int, w: int, m: int) -> tuple[float, float]:
    """(tau, p) for n saturated stations, minimum window W = CWmin + 1, m stages."""
    if n == 1:
        return tau_of_p(0.0, w, m), 0.0
    lo, hi = 0.0, 1.0
    for _ in range(200):  # f(p) = 1 - (1 - tau(p))^(n-1) - p decreases in p
        p = 0.5 * (lo + hi)
        if 1.0 - (1.0 - tau_of_p(p, w, m)) ** (n - 1) - p > 0.0:
            lo = p
        else:
            hi = p
    p = 0.5 * (lo + hi)
    return tau_of_p(p, w, m), p


@dataclass
class Timing:
    """Times in µs; payload in bytes."""

    slot_us: float
    sifs_us: float
    difs_us: float
    data_us: float
    ack_us: float
    cw_min: int
    cw_max: int

    @classmethod
    def from_json(cls, t: Mapping[str, Any]) -> Timing:
        return cls(t["slot_us"], t["sifs_us"], t["difs_us"], t["data_us"], t["ack_us"], t["cw_min"], t["cw_max"])


def throughput_mbps(n: int, timing: Timing, payload_bytes: int) -> tuple[float, float]:
    """(saturation throughput in Mb/s, collision probability p) for n stations."""
    w = timing.cw_min + 1
    m = round(math.log2((timing.cw_max + 1) / w))
    tau, p = fixed_point(n, w, m)
    p_tr = 1.0 - (1.0 - tau) ** n
    p_s = n * tau * (1.0 - tau) ** (n - 1) / p_tr
    ts = timing.data_us + timing.sifs_us + timing.ack_us + timing.difs_us
    tc = timing.data_us + timing.difs_us
    s = p_s * p_tr * payload_bytes * 8 / ((1 - p_tr) * timing.slot_us + p_tr * p_s * ts + p_tr * (1 - p_s) * tc)
    return s, p
