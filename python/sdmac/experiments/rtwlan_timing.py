"""The RT-WLAN experiment's timing from the 802.11 formulas: the on-air bounds of a
first attempt, the measured request path, and the TDMA slot plan and policy schedule
built from them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import _core
from .rtwlan_params import FRAME_OCTETS, POLICY_MAX_COPIES, RATE, SIFS_US, SLOT_US, STANDARD


@dataclass(frozen=True)
class Bounds:
    """The on-air latency bounds of a first attempt, from the 802.11 formulas (µs)."""

    airtime_us: float
    difs_us: float
    slot_us: float
    cw_min: int

    @property
    def rtwlan(self) -> tuple[float, float]:
        """RT-WLAN's range: DIFS + airtime … DIFS + CWmin·slot + airtime."""
        return (self.difs_us + self.airtime_us, self.difs_us + self.cw_min * self.slot_us + self.airtime_us)

    @property
    def standard(self) -> tuple[float, float]:
        """With immediate access on a medium idle for DIFS: airtime … RT-WLAN's upper bound."""
        return (self.airtime_us, self.rtwlan[1])

    def as_dict(self) -> dict[str, float]:
        """The bounds and the values they come from."""
        return {
            "airtime_us": self.airtime_us,
            "difs_us": self.difs_us,
            "slot_us": self.slot_us,
            "cw_min": float(self.cw_min),
            "rtwlan_lo_us": self.rtwlan[0],
            "rtwlan_hi_us": self.rtwlan[1],
            "standard_lo_us": self.standard[0],
            "standard_hi_us": self.standard[1],
        }


def bounds(aifsn: int = 2, cw_min: int = 31) -> Bounds:
    """The first-attempt bounds of the experiment's frame for a queue's AIFSN and CWmin
    (DCF: AIFSN 2, so DIFS = SIFS + 2·slot)."""
    airtime = _core.airtime_us(STANDARD, RATE, FRAME_OCTETS, short_preamble=False)
    return Bounds(airtime_us=airtime, difs_us=SIFS_US + aifsn * SLOT_US, slot_us=SLOT_US, cw_min=cw_min)


@dataclass(frozen=True)
class Timing:
    """The measured timing spread that the policy's margin and TDMA's guard cover (µs)."""

    #: The API's request path alone (``tdma_measure_jitter``, t_start − t1): minimum, GUARD_QUANTILE.
    api_min_us: float
    api_q_us: float
    #: The loop's whole path, from a send's due time to its start on air: minimum, GUARD_QUANTILE.
    path_min_us: float
    path_q_us: float
    sync_error_us: float

    @property
    def jitter_us(self) -> float:
        """The request path's jitter as the loop sends: its GUARD_QUANTILE − its minimum."""
        return self.path_q_us - self.path_min_us

    @property
    def guard_us(self) -> float:
        """The request path's jitter + the synchronisation error."""
        return self.jitter_us + self.sync_error_us

    @property
    def tdma_guard_us(self) -> float:
        """TDMA's guard: the API's request-path jitter (its GUARD_QUANTILE − its minimum)
        + the synchronisation error. The TDMA stations run in Rust and hand their frames
        over as their windows open, so the Python loop's wake-ups do not enter it."""
        return self.api_q_us - self.api_min_us + self.sync_error_us

    def as_dict(self) -> dict[str, float]:
        """The parts and the guard."""
        return {
            "api_min_us": self.api_min_us,
            "api_q_us": self.api_q_us,
            "api_jitter_us": self.api_q_us - self.api_min_us,
            "path_min_us": self.path_min_us,
            "path_q_us": self.path_q_us,
            "jitter_us": self.jitter_us,
            "sync_error_us": self.sync_error_us,
            "guard_us": self.guard_us,
            "tdma_guard_us": self.tdma_guard_us,
        }


@dataclass(frozen=True)
class SlotPlan:
    """TDMA's schedule for one spacing: a slot for the request and one per replier (µs)."""

    spacing_us: float
    repliers: int
    bounds: Bounds
    guard_us: float
    #: How late after its window opens a frame may still be handed over (µs).
    handover_us: float = 0.0

    @property
    def slot_us(self) -> float:
        """DIFS + airtime + a guard at each end + the hand-over slack."""
        return self.bounds.difs_us + self.bounds.airtime_us + 2 * self.guard_us + self.handover_us

    @property
    def post_backoff_us(self) -> float:
        """The idle time a post-backoff may need: DIFS + CWmin·slot."""
        return self.bounds.difs_us + self.bounds.cw_min * self.bounds.slot_us

    @property
    def needed_us(self) -> float:
        """The slots of a round plus the post-backoff time after them."""
        return (1 + self.repliers) * self.slot_us + self.post_backoff_us

    def slot_start_us(self, slot: int) -> float:
        """Where slot `slot` opens in the round: the request's (0) at its start, the
        replies' (1 …) as late as the post-backoff allows, so that the hosts have the
        round's slack to hear the request before their slots."""
        if slot == 0:
            return 0.0
        return self.spacing_us - self.post_backoff_us - (1 + self.repliers - slot) * self.slot_us

    @property
    def slack_us(self) -> float:
        """The time between the request's slot and the first reply's slot."""
        return self.slot_start_us(1) - self.slot_us

    @property
    def fits(self) -> bool:
        """Whether the round (the spacing) holds what it needs."""
        return self.needed_us <= self.spacing_us

    def reason(self) -> str:
        """Why the plan does not fit ('' when it does)."""
        if self.fits:
            return ""
        n = 1 + self.repliers
        return (
            f"TDMA cannot fit a {self.spacing_us / 1000:g} ms round: {n} slots × {self.slot_us:.0f} µs "
            f"(DIFS {self.bounds.difs_us:.0f} + airtime {self.bounds.airtime_us:.0f} + 2 × guard "
            f"{self.guard_us:.1f} + hand-over slack {self.handover_us:.0f}) + post-backoff {self.post_backoff_us:.0f} µs (DIFS + CWmin·slot) = "
            f"{self.needed_us:.0f} µs > {self.spacing_us:.0f} µs"
        )

    def as_dict(self) -> dict[str, float]:
        """The plan's figures; `fits` is 1 or 0."""
        return {
            "slots": float(1 + self.repliers),
            "slot_us": self.slot_us,
            "guard_us": self.guard_us,
            "handover_us": self.handover_us,
            "post_backoff_us": self.post_backoff_us,
            "needed_us": self.needed_us,
            "round_us": self.spacing_us,
            "slack_us": self.slack_us,
            "fits": 1.0 if self.fits else 0.0,
        }


def policy_schedule(spacing_us: float, repliers: int, b: Bounds, margin_us: float) -> tuple[float, int]:
    """The policy's step (airtime + DIFS + margin) and its copies per reply: as many as
    end (the last host's, with DIFS) before the next request may start, 1 … POLICY_MAX_COPIES.

    The margin is capped so that the hosts' first copies fit in the spacing after the
    request (at least one slot): a host that stalled while the spread was measured
    would otherwise push the replies past many later requests."""
    frame = b.airtime_us + b.difs_us
    cap = max(b.slot_us, (spacing_us - frame) / repliers - frame)
    step = frame + min(margin_us, cap)
    room = spacing_us - 2 * b.airtime_us - b.difs_us - (repliers - 1) * step
    copies = 1 + math.floor(room / (repliers * step)) if room >= 0 else 1
    return step, max(1, min(POLICY_MAX_COPIES, copies))
