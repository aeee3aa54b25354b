"""RT-WLAN's timed-transmission experiment, on the SDMAC API over the emulated medium.

An originator broadcasts `packets` frames of 74 octets on air (PSDU: MAC header,
LLC/SNAP, body and FCS) at 2 Mb/s on 802.11b (DSSS, long preamble), one every
`spacing_ms`; broadcasts are not acknowledged, so each goes out once (no ACK, no
retry, no RTS/CTS). One host, or two, receive each request and answer with an amended
broadcast (the same sequence number, tagged with the host). Every request and reply is
timed at the SDMAC paper's reference planes (``crates/sdmac-api/src/timestamps.rs``)
and RT-WLAN's quantities are derived from them:

=====================  ==================  =============================================
RT-WLAN                planes              what it covers
=====================  ==================  =============================================
Tqueued                t3 − t1             software from the call to the device's queue
time to the card       t4 − t3             the device's own request latency
on-air (Tev_tx)        t5 − t4             channel access + the frame on air
total send latency     t9 − t1             the call until the application has the outcome
RTT (originator)       t_returned − t1     the request's call until a reply is returned
=====================  ==================  =============================================

Also reported: each host's turnaround (its reply's t4 − the request's t5), how late the
loop sent each request (t1 − its due time), and with two repliers how far apart the
two replies to one request reached their queues.

Drops: a request is dropped when it is never confirmed as sent (refused by a full
queue, dropped, or unconfirmed at the end); a host's reply is dropped when the
originator never receives it — because the host never heard the request, or because
its reply was lost on the way back. Both are shares of `packets`.

The theoretical on-air bounds of a first attempt come from the standard's formulas:
the frame's airtime (``sdmac._core.airtime_us``), DIFS = SIFS + AIFSN·slot and the
backoff range [0, CWmin]·slot, with AIFSN and CWmin read from the interface and SIFS
and the slot time of the DSSS PHY. RT-WLAN's bounds assume every frame waits DIFS
and a backoff: [DIFS + airtime, DIFS + CWmin·slot + airtime]. The standard (IEEE
802.11-2016 §10.3.4.2) also lets a frame that finds the medium idle for at least
DIFS go at once, which the emulated medium does; so a first attempt's on-air latency
lies in [airtime, DIFS + CWmin·slot + airtime], and both ranges are reported.

The run happens on the wall clock, so its figures vary from run to run with the
host's scheduling; the seed fixes the medium's random draws (backoffs).
"""

from __future__ import annotations

import math
import select
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import _core

STANDARD = "802.11b"
#: The data rate (Mb/s) of every frame, as the scenario format and rate series name it.
RATE = "2"
#: Octets on air of every request and reply (PSDU, FCS included), as in RT-WLAN.
FRAME_OCTETS = 74
#: Non-QoS data header (24) + LLC/SNAP (8) + FCS (4): the frame around the payload.
MAC_OVERHEAD = 24 + 8 + 4
PAYLOAD_OCTETS = FRAME_OCTETS - MAC_OVERHEAD
#: aSIFSTime and aSlotTime of the DSSS PHY (IEEE 802.11-2016 Clause 15, PHY characteristics).
SIFS_US = 10.0
SLOT_US = 20.0
BROADCAST = "ff:ff:ff:ff:ff:ff"
SPACINGS_MS = (20.0, 5.0, 3.0, 1.5)
DEFAULT_PACKETS = 1000
MAX_PACKETS = 100_000
MODES = ("dcf", "policy", "tdma")
HOSTS = ("host1", "host2")
#: Wall-clock margin before the first request, so the device has settled.
LEAD_IN_S = 0.05
#: After the last request: how long to wait for outstanding confirmations and replies.
DRAIN_IDLE_S = 0.25
DRAIN_MAX_S = 30.0
#: Quantities of each send, in report order: (figure name, label, planes).
SEND_QUANTITIES = (
    ("tqueued", "Tqueued", "t3−t1"),
    ("to_card", "to card", "t4−t3"),
    ("onair", "on air Tev_tx", "t5−t4"),
    ("send", "total send", "t9−t1"),
)

_SCENARIO = """
name = "RT-WLAN experiment"
duration = 1.0
seed = {seed}
[phy]
standard = "{standard}"
rate = {rate}
basic_rates = [1, 2]
short_preamble = false
[[station]]
name = "originator"
address = "02:00:00:00:00:01"
position = [0, 0]
[[station]]
name = "host1"
address = "02:00:00:00:00:02"
position = [3, 0]
[[station]]
name = "host2"
address = "02:00:00:00:00:03"
position = [0, 3]
"""

ProgressFn = Callable[[int, int], object]


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


# ----------------------------------------------------------------------------- params


def check_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters with defaults filled in; ValueError naming the bad one."""
    known = {"spacing_ms", "repliers", "packets", "mode"}
    unknown = sorted(set(params) - known)
    if unknown:
        raise ValueError(f"rtwlan: unknown parameter(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    spacing = params.get("spacing_ms", 20.0)
    if isinstance(spacing, bool) or not isinstance(spacing, (int, float)):
        raise ValueError(f"rtwlan: spacing_ms must be a number of milliseconds, not {spacing!r}")
    spacing = float(spacing)
    if not math.isfinite(spacing) or not 0.1 <= spacing <= 1000.0:
        raise ValueError(f"rtwlan: spacing_ms = {spacing} is outside 0.1 … 1000 ms")
    repliers = params.get("repliers", 1)
    if isinstance(repliers, bool) or repliers not in (1, 2):
        raise ValueError(f"rtwlan: repliers must be 1 or 2, not {repliers!r}")
    packets = params.get("packets", DEFAULT_PACKETS)
    if isinstance(packets, bool) or not isinstance(packets, int) or not 1 <= packets <= MAX_PACKETS:
        raise ValueError(f"rtwlan: packets must be an integer in 1 … {MAX_PACKETS}, not {packets!r}")
    mode = params.get("mode", "dcf")
    if mode not in MODES:
        raise ValueError(f"rtwlan: mode must be one of {', '.join(MODES)}, not {mode!r}")
    if mode != "dcf":
        overlay = {"policy": "software retransmission policy", "tdma": "TDMA"}[mode]
        raise ValueError(
            f"rtwlan: mode {mode!r} is not built yet: it needs the {overlay} overlay, which does not exist yet; "
            "only mode 'dcf' (plain DCF broadcast) runs"
        )
    return {"spacing_ms": spacing, "repliers": int(repliers), "packets": packets, "mode": mode}


# ----------------------------------------------------------------------------- run


@dataclass
class _Send:
    """One confirmed (or refused) request or reply."""

    seq: int
    status: str
    reason: str | None
    t: dict[str, int | None]


def _payload(seq: int, tag: int) -> bytes:
    return seq.to_bytes(4, "big") + bytes([tag]) + bytes(PAYLOAD_OCTETS - 5)


def _parse(payload: bytes) -> tuple[int, int] | None:
    if len(payload) != PAYLOAD_OCTETS:
        return None
    return int.from_bytes(payload[:4], "big"), payload[4]


def _us(a: int | None, b: int | None) -> float | None:
    if a is None or b is None or a == 0 or b == 0:
        return None
    return (b - a) / 1000.0


def _quantities(t: Mapping[str, int | None]) -> dict[str, float | None]:
    return {
        "tqueued": _us(t.get("t1"), t.get("t3")),
        "to_card": _us(t.get("t3"), t.get("t4")),
        "onair": _us(t.get("t4"), t.get("t5")),
        "send": _us(t.get("t1"), t.get("t9")),
    }


def _percentile(xs: Sequence[float], q: float) -> float | None:
    """The q-quantile (0 … 1) by linear interpolation; None for no samples."""
    if not xs:
        return None
    s = sorted(xs)
    pos = q * (len(s) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


class _Loop:
    """One run: the originator and the hosts served by one event loop on their eventfds."""

    def __init__(self, session: _core.Session, p: Mapping[str, Any], progress: ProgressFn | None) -> None:
        self.p = p
        self.progress = progress
        self.orig = session.interface("originator")
        self.hosts = [session.interface(h) for h in HOSTS[: p["repliers"]]]
        self.requests: dict[int, _Send] = {}
        self.replies: list[dict[int, _Send]] = [{} for _ in self.hosts]
        self.heard: list[set[int]] = [set() for _ in self.hosts]
        self.received: list[dict[int, int]] = [{} for _ in self.hosts]  # seq -> t_returned
        self.late_us: dict[int, float] = {}  # seq -> how late it was sent (µs)
        self.pending_requests = 0
        self.pending_replies = 0
        self.next_id = 1
        self.lengths: set[int] = set()
        self.last_activity = 0.0
        self.done = 0
        self.reported = -1

    def _send(self, iface: _core.Interface, seq: int, tag: int, book: dict[int, _Send]) -> bool:
        t1 = time.monotonic_ns()
        try:
            iface.data_req(seq, _payload(seq, tag), dst=BROADCAST, rates=f"{RATE}x1", no_ack=True, t1=t1)
        except (_core.QueueFull, _core.ConfirmationBacklog) as e:
            book[seq] = _Send(seq, "refused", type(e).__name__, {"t1": t1})
            return False
        return True

    def _drain(self, now: float) -> None:
        for k, host in enumerate(self.hosts):
            todo = []
            while (ind := host.data_ind(timeout=0)) is not None:
                parsed = _parse(ind.payload)
                if ind.src == self.orig.address and parsed is not None and parsed[1] == 0:
                    todo.append(parsed[0])
            for seq in todo:
                self.heard[k].add(seq)
                self.last_activity = now
                if self._send(host, seq, k + 1, self.replies[k]):
                    self.pending_replies += 1
            while (c := host.data_con(timeout=0)) is not None:
                self.replies[k][c.id] = _Send(c.id, c.status, c.reason, c.timestamps)
                self.pending_replies -= 1
                self.lengths.add(c.length)
                self.last_activity = now
        while (c := self.orig.data_con(timeout=0)) is not None:
            self.requests[c.id] = _Send(c.id, c.status, c.reason, c.timestamps)
            self.pending_requests -= 1
            self.lengths.add(c.length)
            self.last_activity = now
            self._report()
        while (ind := self.orig.data_ind(timeout=0)) is not None:
            parsed = _parse(ind.payload)
            if parsed is not None and 1 <= parsed[1] <= len(self.hosts):
                self.received[parsed[1] - 1].setdefault(parsed[0], ind.t_returned)
                self.last_activity = now

    def run(self) -> float:
        """Sends, answers and drains; returns the wall-clock seconds the run took."""
        n, spacing = self.p["packets"], self.p["spacing_ms"] / 1000.0
        fds = [self.orig.fileno()] + [h.fileno() for h in self.hosts]
        ifaces = [self.orig, *self.hosts]
        start = time.monotonic() + LEAD_IN_S
        sent = 0
        drain_from: float | None = None
        while True:
            now = time.monotonic()
            if sent < n and now >= start + sent * spacing:
                seq = sent + 1
                self.late_us[seq] = (now - start - sent * spacing) * 1e6
                if self._send(self.orig, seq, 0, self.requests):
                    self.pending_requests += 1
                sent += 1
                continue
            self._drain(now)
            if sent >= n:
                if drain_from is None:
                    drain_from = self.last_activity = now
                settled = self.pending_requests == 0 and self.pending_replies == 0
                if (settled and now - self.last_activity >= DRAIN_IDLE_S / 5) or (
                    now - self.last_activity >= DRAIN_IDLE_S
                ) or now - drain_from >= DRAIN_MAX_S:
                    break
                wait = 0.01
            else:
                wait = max(0.0, start + sent * spacing - time.monotonic())
            ready, _, _ = select.select(fds, [], [], wait)
            for fd in ready:
                ifaces[fds.index(fd)].clear_event()
        self.done = n
        self._report()
        return time.monotonic() - start

    def _report(self) -> None:
        """Calls the progress callback when the count of confirmed requests moved."""
        done = max(self.done, len(self.requests))
        if self.progress is not None and done != self.reported:
            self.reported = done
            self.progress(done, self.p["packets"])


def _summary(xs: Sequence[float]) -> dict[str, float | None]:
    return {"p50": _percentile(xs, 0.5), "p95": _percentile(xs, 0.95)}


def run(params: Mapping[str, Any], seed: int, progress: ProgressFn | None = None) -> dict[str, Any]:
    """Runs the experiment once on emu and returns its figures (see the module doc).

    `progress(done, total)` is called as requests are confirmed."""
    p = check_params(params)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ValueError(f"rtwlan: seed must be a non-negative integer, not {seed!r}")
    scenario = _SCENARIO.format(seed=seed, standard=STANDARD, rate=RATE)
    names = ["originator", *HOSTS[: p["repliers"]]]
    with _core.Session.from_scenario(scenario, names, name="rtwlan", seed=seed) as session:
        loop = _Loop(session, p, progress)
        b = bounds(aifsn=int(loop.orig.get("aifsn", ac="BE")), cw_min=int(loop.orig.get("cw_min", ac="BE")))
        wall_s = loop.run()
    if loop.lengths and loop.lengths != {FRAME_OCTETS}:
        raise RuntimeError(f"rtwlan: frames went on air with {sorted(loop.lengths)} octets, not {FRAME_OCTETS}")
    return _figures(p, b, loop, wall_s)


def _figures(p: Mapping[str, Any], b: Bounds, loop: _Loop, wall_s: float) -> dict[str, Any]:
    n = p["packets"]
    figures: dict[str, Any] = {}
    samples: dict[str, Any] = {}

    def sends(prefix: str, book: Mapping[int, _Send]) -> list[dict[str, float | None]]:
        rows = [_quantities(s.t) for s in book.values() if s.status == "sent"]
        for name, _, _ in SEND_QUANTITIES:
            xs = [x for r in rows if (x := r[name]) is not None]
            samples[f"{prefix}_{name}_us"] = xs
            for stat, v in _summary(xs).items():
                figures[f"{prefix}_{name}_{stat}_us"] = v
        return rows

    req_rows = sends("request", loop.requests)
    sent = sum(1 for s in loop.requests.values() if s.status == "sent")
    figures["request_drop_share"] = (n - sent) / n
    figures["request_refused"] = sum(1 for s in loop.requests.values() if s.status == "refused")
    # The loop sends a request when it is due, or as soon as it runs again after being
    # descheduled: late requests leave in a burst and queue behind each other.
    late = list(loop.late_us.values())
    samples["request_late_us"] = late
    for stat, v in _summary(late).items():
        figures[f"request_late_{stat}_us"] = v
    figures["request_late_max_us"] = max(late) if late else None

    onair = [x for r in req_rows if (x := r["onair"]) is not None]
    lo_rt, hi_rt = b.rtwlan
    lo_std, hi_std = b.standard
    figures["request_onair_min_us"] = min(onair) if onair else None
    figures["request_onair_max_us"] = max(onair) if onair else None
    figures["onair_within_rtwlan_share"] = (
        sum(1 for x in onair if lo_rt <= x <= hi_rt) / len(onair) if onair else None
    )
    figures["onair_within_standard_share"] = (
        sum(1 for x in onair if lo_std <= x <= hi_std) / len(onair) if onair else None
    )

    for k, host in enumerate(HOSTS[: p["repliers"]]):
        sends(f"{host}_reply", loop.replies[k])
        got = loop.received[k]
        rtt = []
        for seq, t_returned in got.items():
            req = loop.requests.get(seq)
            t1 = req.t.get("t1") if req is not None else None
            if t1:
                rtt.append((t_returned - t1) / 1000.0)
        samples[f"{host}_rtt_us"] = rtt
        for stat, v in _summary(rtt).items():
            figures[f"{host}_rtt_{stat}_us"] = v
        # The host's turnaround: from the end of the request on air to its reply
        # reaching the host's queue (within DIFS of the request's end, two replies
        # would both go when DIFS ends, in the same instant).
        turn = []
        for seq, reply in loop.replies[k].items():
            req = loop.requests.get(seq)
            if req is not None and reply.status == "sent" and (x := _us(req.t.get("t5"), reply.t.get("t4"))) is not None:
                turn.append(x)
        samples[f"{host}_turnaround_us"] = turn
        for stat, v in _summary(turn).items():
            figures[f"{host}_turnaround_{stat}_us"] = v
        heard = len(loop.heard[k])
        figures[f"{host}_request_lost_share"] = (n - heard) / n
        figures[f"{host}_reply_lost_share"] = (heard - len(got)) / n
        figures[f"{host}_drop_share"] = (n - len(got)) / n
    if p["repliers"] == 2:
        # How far apart the two replies to one request reached their queues: on a radio,
        # frames that start less than a slot apart collide (aSlotTime covers the time to
        # sense another's transmission: aCCATime + aRxTxTurnaroundTime + propagation).
        gaps = []
        for seq, first in loop.replies[0].items():
            second = loop.replies[1].get(seq)
            if second is not None and (x := _us(first.t.get("t4"), second.t.get("t4"))) is not None:
                gaps.append(abs(x))
        samples["replies_queue_gap_us"] = gaps
        for stat, v in _summary(gaps).items():
            figures[f"replies_queue_gap_{stat}_us"] = v
        figures["replies_within_slot_share"] = sum(1 for g in gaps if g < b.slot_us) / len(gaps) if gaps else None
    figures["wall_s"] = wall_s
    notes = [
        f"first-attempt on-air bounds: RT-WLAN {lo_rt:.0f}–{hi_rt:.0f} µs (DIFS + airtime + [0, CWmin]·slot), "
        f"with immediate access {lo_std:.0f}–{hi_std:.0f} µs",
    ]
    return {**figures, "params": dict(p), "bounds": b.as_dict(), "samples": samples, "notes": notes}
