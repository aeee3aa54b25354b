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

Three modes (``mode``):

- ``dcf``: each host answers as soon as its loop hears the request. Two hosts answer
  the same request a few microseconds apart, within aCCATime, and their replies collide.
- ``policy``: a software retransmission policy spreads the replies. Host k (counting
  from 0) waits k × step after the request ended on air (or after it heard the
  request, if later) before its first copy, where step = airtime + DIFS + margin and
  the margin is the measured timing spread (the guard below), capped so that the
  hosts' first copies fit in the spacing. The reply is a
  broadcast, so no confirmation says whether it arrived: the policy repeats it up to
  ``POLICY_MAX_COPIES`` times, one copy per host per cycle of repliers × step, as
  many as end before the next request may start.
- ``tdma``: a fixed schedule in rounds equal to the spacing: a slot for the request at
  the round's start, then one per replier at its end, so that the hosts have the
  round's slack to hear the request (the RTT is then set by the schedule). A slot holds
  DIFS + airtime + a guard at each end; each send is due a guard − the path's minimum
  after its slot opens, so that its frame starts on air within the slot's first two
  guards, finds the medium idle for DIFS and goes at once. After the last slot the
  round must hold DIFS + CWmin·slot, so that each station's post-backoff ends before
  its next slot. The guard is the measured request-path jitter + the synchronisation
  error. The request path is the loop's own, from a send's due time to its start on
  air, measured by a rehearsal (timed broadcasts on a probe session before the run):
  its 90th percentile − its minimum. (The API's path alone, t_start − t1 from
  ``sdmac._core.tdma_measure_jitter``, is reported beside it; the loop's wake-ups add
  to it.) The synchronisation error is 0 on emu, where every station reads the
  medium's clock. The plan is checked before anything is sent: where it does not fit
  the spacing the run is refused (``refused`` says why) and nothing else is reported.
  A send that the loop reaches later than the path's 90th percentile could only start
  after its first two guards: it is skipped and counted as a stall; a frame whose time
  on air (t5 − airtime … t5) left its slot all the same is counted as outside its slot.

  The overlay's ``TdmaPlan`` is not used for the slots: it budgets a unicast exchange
  (a full CWmin backoff, then DATA and the ACK or its timeout) and a contention period
  for slot requests, which these unacknowledged broadcasts on a fixed schedule do not
  need; with it only the 20 ms spacing would fit.

The run happens on the wall clock, so its figures vary from run to run with the
host's scheduling; the seed fixes the medium's random draws (backoffs).
"""

from __future__ import annotations

import heapq
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
#: Policy mode: at most this many copies of each reply (the policy's attempts).
POLICY_MAX_COPIES = 3
#: Probes of the API's request path (``tdma_measure_jitter``), one every PROBE_GAP_US.
JITTER_PROBES = 50
PROBE_GAP_US = 1500.0
#: The quantile of the measured paths that the guard covers. A busy host stalls now and
#: then for milliseconds; a guard covering the worst stall would fit no round, so the
#: rarer stalls are counted instead (see the module doc).
GUARD_QUANTILE = 0.9
#: A rehearsal of the loop's timed sends: broadcasts, one every min(spacing, REHEARSAL_GAP_MS).
REHEARSAL_PROBES = 60
REHEARSAL_GAP_MS = 5.0
#: Synchronisation error on emu: every station reads the medium's clock (CLOCK_MONOTONIC).
SYNC_ERROR_US = 0.0
#: Reply ids: the sequence number in the low bits, the copy above them.
_COPY_SHIFT = 20
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
        }


@dataclass(frozen=True)
class SlotPlan:
    """TDMA's schedule for one spacing: a slot for the request and one per replier (µs)."""

    spacing_us: float
    repliers: int
    bounds: Bounds
    guard_us: float

    @property
    def slot_us(self) -> float:
        """DIFS + airtime + a guard at each end."""
        return self.bounds.difs_us + self.bounds.airtime_us + 2 * self.guard_us

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
            f"{self.guard_us:.1f}) + post-backoff {self.post_backoff_us:.0f} µs (DIFS + CWmin·slot) = "
            f"{self.needed_us:.0f} µs > {self.spacing_us:.0f} µs"
        )

    def as_dict(self) -> dict[str, float]:
        """The plan's figures; `fits` is 1 or 0."""
        return {
            "slots": float(1 + self.repliers),
            "slot_us": self.slot_us,
            "guard_us": self.guard_us,
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


def measure_path(iface: _core.Interface, dst: str) -> tuple[float, float]:
    """The request path (t_start − t1, µs) on `iface` over a probe burst to `dst`
    (acknowledged, ``tdma_measure_jitter``): its minimum and its GUARD_QUANTILE."""
    j = _core.tdma_measure_jitter(iface, dst, rate=RATE, probes=JITTER_PROBES, gap_us=PROBE_GAP_US)
    path = [x / 1000.0 for x in j["latencies_ns"]]
    q = _percentile(path, GUARD_QUANTILE)
    assert q is not None
    return min(path), q


def rehearse(iface: _core.Interface, gap_us: float, airtime_us: float) -> tuple[float, float]:
    """The loop's whole request path, due time → start on air (t5 − airtime), over
    REHEARSAL_PROBES broadcasts from `iface` timed as the run times its sends, one every
    `gap_us`: its minimum and its GUARD_QUANTILE (µs)."""
    fd = iface.fileno()
    due: dict[int, int] = {}
    starts: list[float] = []

    def collect() -> None:
        while (c := iface.data_con(timeout=0)) is not None:
            t5 = c.timestamps.get("t5")
            if c.status == "sent" and t5 and c.id in due:
                starts.append((t5 - airtime_us * 1000 - due[c.id]) / 1000.0)

    at = time.monotonic_ns() + int(gap_us * 1000)
    for k in range(1, REHEARSAL_PROBES + 1):
        while (now := time.monotonic_ns()) < at:
            if select.select([fd], [], [], (at - now) / 1e9)[0]:
                iface.clear_event()
                collect()
        due[k] = at
        iface.data_req(k, _payload(k, 0xFF), dst=BROADCAST, rates=f"{RATE}x1", no_ack=True, t1=now)
        at += int(gap_us * 1000)
    end = time.monotonic_ns() + int(DRAIN_IDLE_S * 1e9)
    while len(starts) < len(due) and time.monotonic_ns() < end:
        if select.select([fd], [], [], 0.01)[0]:
            iface.clear_event()
        collect()
    if len(starts) < 2:
        raise RuntimeError(f"rtwlan: the rehearsal confirmed {len(starts)} of {len(due)} broadcasts as sent")
    q = _percentile(starts, GUARD_QUANTILE)
    assert q is not None
    return min(starts), q


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


@dataclass(frozen=True)
class _Schedule:
    """When the loop sends, by mode (ns on the medium's clock, µs for durations)."""

    mode: str
    start_ns: int
    spacing_ns: int
    # policy: the step between hosts and the copies; tdma: the slot, where each opens in
    # the round (the request's first) and when within it the frame is handed over
    step_ns: int = 0
    copies: int = 1
    slot_ns: int = 0
    opens_ns: tuple[int, ...] = (0,)
    offset_ns: int = 0
    #: tdma: how late (ns) past its due time a send is skipped as a stall; None: never.
    budget_ns: int | None = None


class _Loop:
    """One run: the originator and the hosts served by one event loop on their eventfds."""

    def __init__(
        self, ifaces: Sequence[_core.Interface], p: Mapping[str, Any], progress: ProgressFn | None, sched: _Schedule
    ) -> None:
        self.p = p
        self.progress = progress
        self.sched = sched
        self.orig = ifaces[0]
        self.hosts = list(ifaces[1:])
        self.requests: dict[int, _Send] = {}
        self.replies: list[dict[int, _Send]] = [{} for _ in self.hosts]
        self.copies_sent = [0 for _ in self.hosts]
        self.heard: list[set[int]] = [set() for _ in self.hosts]
        self.received: list[dict[int, int]] = [{} for _ in self.hosts]  # seq -> t_returned
        self.late_us: dict[int, float] = {}  # seq -> how late it was sent (µs)
        self.stalls = [0 for _ in range(1 + len(self.hosts))]  # tdma: sends skipped, originator first
        # Sends due: (due ns, who: 0 originator / k + 1 host k, seq, copy).
        self.due: list[tuple[int, int, int, int]] = []
        self.pending_requests = 0
        self.pending_replies = 0
        self.lengths: set[int] = set()
        self.last_activity = 0.0
        self.done = 0
        self.reported = -1

    def _send(self, iface: _core.Interface, seq: int, tag: int, book: dict[int, _Send], copy: int = 0) -> bool:
        t1 = time.monotonic_ns()
        try:
            iface.data_req(seq | copy << _COPY_SHIFT, _payload(seq, tag), dst=BROADCAST, rates=f"{RATE}x1",
                           no_ack=True, t1=t1)
        except (_core.QueueFull, _core.ConfirmationBacklog) as e:
            if copy == 0:
                book[seq] = _Send(seq, "refused", type(e).__name__, {"t1": t1})
            return False
        return True

    def _heard(self, k: int, seq: int, t_end: int) -> None:
        """Host k heard request `seq` (its end on air at `t_end`): answers or schedules."""
        sc = self.sched
        if sc.mode == "dcf":
            if self._send(self.hosts[k], seq, k + 1, self.replies[k]):
                self.pending_replies += 1
        elif sc.mode == "policy":
            # From the request's end, or from when the host heard it if later: a host
            # cannot act before it heard the request, and counting from then keeps the
            # hosts' attempts a step apart after a stall of the loop that serves them all.
            ref = max(t_end, time.monotonic_ns())
            for c in range(sc.copies):
                at = ref + k * sc.step_ns + c * len(self.hosts) * sc.step_ns
                heapq.heappush(self.due, (at, k + 1, seq, c))
        else:
            at = sc.start_ns + (seq - 1) * sc.spacing_ns + sc.opens_ns[k + 1] + sc.offset_ns
            heapq.heappush(self.due, (at, k + 1, seq, 0))

    def _drain(self, now: float) -> None:
        for k, host in enumerate(self.hosts):
            todo = []
            while (ind := host.data_ind(timeout=0)) is not None:
                parsed = _parse(ind.payload)
                if ind.src == self.orig.address and parsed is not None and parsed[1] == 0:
                    todo.append((parsed[0], ind.t_end))
            for seq, t_end in todo:
                self.heard[k].add(seq)
                self.last_activity = now
                self._heard(k, seq, t_end)
            while (c := host.data_con(timeout=0)) is not None:
                seq, copy = c.id & ((1 << _COPY_SHIFT) - 1), c.id >> _COPY_SHIFT
                if copy == 0:
                    self.replies[k][seq] = _Send(seq, c.status, c.reason, c.timestamps)
                self.copies_sent[k] += c.status == "sent"
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

    def _fire(self, now_ns: int) -> None:
        """Sends the earliest due frame (or skips it as a stall when TDMA's guard is exceeded)."""
        due, who, seq, copy = heapq.heappop(self.due)
        late = now_ns - due
        if who == 0:
            self.late_us[seq] = late / 1000.0
        budget = self.sched.budget_ns
        if budget is not None and late > budget:
            self.stalls[who] += 1
            book = self.requests if who == 0 else self.replies[who - 1]
            book[seq] = _Send(seq, "stalled", f"sent {late / 1000:.0f} µs late", {})
            return
        if who == 0:
            if self._send(self.orig, seq, 0, self.requests):
                self.pending_requests += 1
        elif self._send(self.hosts[who - 1], seq, who, self.replies[who - 1], copy):
            self.pending_replies += 1

    def run(self) -> float:
        """Sends, answers and drains; returns the wall-clock seconds the run took."""
        sc = self.sched
        n = self.p["packets"]
        fds = [self.orig.fileno()] + [h.fileno() for h in self.hosts]
        ifaces = [self.orig, *self.hosts]
        for i in range(n):
            heapq.heappush(self.due, (sc.start_ns + i * sc.spacing_ns + sc.offset_ns, 0, i + 1, 0))
        issued = 0
        drain_from: float | None = None
        while True:
            now_ns = time.monotonic_ns()
            if self.due and self.due[0][0] <= now_ns:
                issued += self.due[0][1] == 0
                self._fire(now_ns)
                continue
            now = now_ns / 1e9
            self._drain(now)
            if issued >= n and not self.due:
                if drain_from is None:
                    drain_from = self.last_activity = now
                settled = self.pending_requests == 0 and self.pending_replies == 0
                if (settled and now - self.last_activity >= DRAIN_IDLE_S / 5) or (
                    now - self.last_activity >= DRAIN_IDLE_S
                ) or now - drain_from >= DRAIN_MAX_S:
                    break
                wait = 0.01
            else:
                wait = max(0.0, (self.due[0][0] - time.monotonic_ns()) / 1e9) if self.due else 0.01
            ready, _, _ = select.select(fds, [], [], wait)
            for fd in ready:
                ifaces[fds.index(fd)].clear_event()
        self.done = n
        self._report()
        return (time.monotonic_ns() - sc.start_ns) / 1e9

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
    timing: Timing | None = None
    plan: SlotPlan | None = None
    spacing_us = p["spacing_ms"] * 1000.0
    if p["mode"] != "dcf":
        # Measured on a session of its own, before the run: nothing of the run is sent yet.
        with _core.Session.from_scenario(scenario, ["originator", "host1"], name="rtwlan-probe", seed=seed) as probe:
            o = probe.interface("originator")
            api_min, api_q = measure_path(o, probe.interface("host1").address)
            b = bounds(aifsn=int(o.get("aifsn", ac="BE")), cw_min=int(o.get("cw_min", ac="BE")))
            path_min, path_q = rehearse(o, min(p["spacing_ms"], REHEARSAL_GAP_MS) * 1000.0, b.airtime_us)
        timing = Timing(api_min_us=api_min, api_q_us=api_q, path_min_us=path_min, path_q_us=path_q,
                        sync_error_us=SYNC_ERROR_US)
    with _core.Session.from_scenario(scenario, names, name="rtwlan", seed=seed) as session:
        ifaces = [session.interface(name) for name in names]
        b = bounds(aifsn=int(ifaces[0].get("aifsn", ac="BE")), cw_min=int(ifaces[0].get("cw_min", ac="BE")))
        if p["mode"] == "tdma":
            assert timing is not None
            plan = SlotPlan(spacing_us=spacing_us, repliers=p["repliers"], bounds=b, guard_us=timing.guard_us)
            if not plan.fits:
                return {"tdma_fits": 0, "guard_us": timing.guard_us, "params": dict(p), "bounds": b.as_dict(),
                        "timing": timing.as_dict(), "plan": plan.as_dict(), "refused": plan.reason(),
                        "samples": {}, "notes": [plan.reason()]}
        start_ns = time.monotonic_ns() + int(LEAD_IN_S * 1e9)
        spacing_ns = int(round(spacing_us * 1000))
        if timing is None:
            sched = _Schedule("dcf", start_ns, spacing_ns)
        elif plan is None:
            step, copies = policy_schedule(spacing_us, p["repliers"], b, timing.guard_us)
            sched = _Schedule("policy", start_ns, spacing_ns, step_ns=int(step * 1000), copies=copies)
        else:
            sched = _Schedule(
                "tdma", start_ns, spacing_ns, slot_ns=int(plan.slot_us * 1000),
                opens_ns=tuple(int(plan.slot_start_us(k) * 1000) for k in range(1 + p["repliers"])),
                offset_ns=int((plan.guard_us - timing.path_min_us) * 1000),
                budget_ns=int(timing.path_q_us * 1000),
            )
        loop = _Loop(ifaces, p, progress, sched)
        wall_s = loop.run()
    if loop.lengths and loop.lengths != {FRAME_OCTETS}:
        raise RuntimeError(f"rtwlan: frames went on air with {sorted(loop.lengths)} octets, not {FRAME_OCTETS}")
    result = _figures(p, b, loop, wall_s)
    if timing is not None:
        result["timing"] = timing.as_dict()
        result["guard_us"] = timing.guard_us
    if sched.mode == "policy":
        result["policy_step_us"] = sched.step_ns / 1000.0
        result["policy_copies"] = sched.copies
        result["notes"].append(
            f"policy: host k waits k × {sched.step_ns / 1000:.0f} µs (airtime + DIFS + margin "
            f"{timing.guard_us if timing else 0:.0f} µs) after the request's end; {sched.copies} "
            f"cop{'y' if sched.copies == 1 else 'ies'} per reply, one cycle of {p['repliers']} steps apart"
        )
    if plan is not None:
        result["plan"] = plan.as_dict()
        result["tdma_fits"] = 1
        books = [loop.requests, *loop.replies]
        for k, (who, count) in enumerate(zip(["request", *(f"{h}_reply" for h in HOSTS)], loop.stalls)):
            result[f"{who}_stalls"] = count
            result[f"{who}_outside_slot"] = _outside_slot(books[k], sched, k, b.airtime_us)
    return result


def _outside_slot(book: Mapping[int, _Send], sched: _Schedule, slot: int, airtime_us: float) -> int:
    """How many of the frames sent were on air (t5 − airtime … t5) outside their slot."""
    out = 0
    for seq, send in book.items():
        t5 = send.t.get("t5")
        if send.status != "sent" or not t5:
            continue
        opens = sched.start_ns + (seq - 1) * sched.spacing_ns + sched.opens_ns[slot]
        if t5 - int(airtime_us * 1000) < opens or t5 > opens + sched.slot_ns:
            out += 1
    return out


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
        figures[f"{host}_copies_sent"] = loop.copies_sent[k]
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
