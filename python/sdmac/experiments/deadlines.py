"""Periodic stations with deadlines under DCF, TDMA and EDF, on the SDMAC API over emu.

`stations` stations around one sink, all in range of each other, each release one
packet of `payload` bytes every `period_ms`, all at the same instants (the worst case
for contention), due `deadline_ms` after its release (at most the period). Three ways
of sending it (`scheme`):

``dcf``
    Plain DCF: each packet is handed to the MAC when it is released, first in first
    out, with the MAC's own retries (`mac_tries` tries at `rate`).
``tdma``
    A TDMA plan (``sdmac._core.TdmaPlan``): a round is one period, made of one slot per
    station (slots assigned in station order) and a contention period. A slot holds two
    guards of `guard_us` and one exchange as the plan gives it (DIFS, CWmin backoff
    slots, DATA, the longer of SIFS + ACK and the ACKTimeout). Each station hands its
    packet to the MAC with one try when its slot's window opens; a packet still queued
    when it could no longer end inside its slot is cancelled (withdrawn). The schedule is
    refused before anything is sent when the slots and the contention period do not fit
    the period, or when the last slot ends after the deadline.
``edf``
    The EDF overlay (``sdmac._core.edf_run``) on every station: one periodic flow each,
    `edf_tries` tries per request, re-planned on each failure, at most `mac_tries`
    attempts, a frame whose deadline can no longer be met dropped unsent.

Per packet: released, sent (went on air), acknowledged, and met (acknowledged with the
outcome known at the MAC, t5, by its deadline) or missed (never acknowledged, or
acknowledged after its deadline). The latency is t5 minus the release instant, over
the acknowledged packets; for ``dcf`` and ``tdma`` it is read from each confirmation,
while ``edf_run`` reports per-flow counts only, so ``edf`` has no latency figures.

The run happens on the wall clock (the emu medium's clock is ``CLOCK_MONOTONIC``), so
its figures vary with the host's scheduling; the seed fixes the medium's random draws.
"""

from __future__ import annotations

import heapq
import math
import select
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import _core

SCHEMES = ("dcf", "tdma", "edf")
SINK = "02:00:00:00:00:01"
MAX_STATIONS = 100
#: The PHYs the experiment knows the backoff reserve of.
STANDARDS = ("802.11a",)
OFDM_CW_MIN = 15
OFDM_SLOT_US = 9.0
#: QoS data header (26) + LLC/SNAP (8) + FCS (4): what a payload gains on air.
MAC_OVERHEAD = 38
MAX_PAYLOAD = 2304 - MAC_OVERHEAD
#: Wall-clock margin before the first release: the session settles, threads start.
LEAD_IN_S = 0.1
#: After the last deadline: time for the confirmations of packets acked in time to be
#: read, before anything still queued is cancelled.
SETTLE_S = 0.1
#: How long to wait, after cancelling, for the confirmations still outstanding.
DRAIN_MAX_S = 5.0
#: Before a planned request the loop may stop sleeping this long ahead and poll instead
#: (0: it sleeps until the instant; on a loaded 2-core host spinning starved the emu
#: device thread and made the timing worse).
SPIN_S = 0.0

DEFAULTS: dict[str, Any] = {
    "stations": 5,
    "period_ms": 20.0,
    "payload": 200,
    "deadline_ms": None,  # the period
    "duration_s": 1.0,
    "scheme": "dcf",
    "standard": "802.11a",
    "rate": "24",
    "guard_us": 200.0,
    "mac_tries": 7,
    "edf_tries": 1,
    "edf_in_mac": 1,
}

_HEAD = """
name = "deadlines"
duration = 1.0
seed = {seed}
[phy]
standard = "{standard}"
rate = {rate}
[[station]]
name = "sink"
address = "{sink}"
position = [0, 0]
"""

_STATION = """
[[station]]
name = "s{i}"
address = "{address}"
position = [{x:.3f}, {y:.3f}]
"""


def _address(i: int) -> str:
    return f"02:00:00:00:01:{i + 1:02x}"


def _number(params: Mapping[str, Any], key: str, lo: float, hi: float, unit: str) -> float:
    v = params[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ValueError(f"deadlines: {key} must be a number of {unit}, not {v!r}")
    if not lo <= v <= hi:
        raise ValueError(f"deadlines: {key} = {v} is outside {lo:g} … {hi:g} {unit}")
    return float(v)


def _integer(params: Mapping[str, Any], key: str, lo: int, hi: int) -> int:
    v = params[key]
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ValueError(f"deadlines: {key} must be an integer in {lo} … {hi}, not {v!r}")
    return v


def check_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters with defaults filled in; ValueError naming the bad one."""
    unknown = sorted(set(params) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"deadlines: unknown parameter(s) {', '.join(unknown)} (known: {', '.join(sorted(DEFAULTS))})")
    p = {**DEFAULTS, **params}
    out: dict[str, Any] = {}
    out["stations"] = _integer(p, "stations", 1, MAX_STATIONS)
    out["period_ms"] = _number(p, "period_ms", 0.1, 10_000.0, "milliseconds")
    out["payload"] = _integer(p, "payload", 1, MAX_PAYLOAD)
    if p["deadline_ms"] is None:
        p["deadline_ms"] = out["period_ms"]
    out["deadline_ms"] = _number(p, "deadline_ms", 0.0, out["period_ms"], "milliseconds (at most period_ms)")
    if out["deadline_ms"] <= 0:
        raise ValueError("deadlines: deadline_ms must be above 0")
    out["duration_s"] = _number(p, "duration_s", 0.001, 600.0, "seconds")
    if p["scheme"] not in SCHEMES:
        raise ValueError(f"deadlines: scheme must be one of {', '.join(SCHEMES)}, not {p['scheme']!r}")
    out["scheme"] = p["scheme"]
    if p["standard"] not in STANDARDS:
        raise ValueError(f"deadlines: standard must be one of {', '.join(STANDARDS)}, not {p['standard']!r}")
    out["standard"] = p["standard"]
    rate = p["rate"]
    if isinstance(rate, bool) or not isinstance(rate, (str, int, float)):
        raise ValueError(f"deadlines: rate must be a rate in Mb/s such as '24', not {rate!r}")
    out["rate"] = f"{rate:g}" if isinstance(rate, float) else str(rate)
    try:
        _core.airtime_us(out["standard"], out["rate"], out["payload"] + MAC_OVERHEAD)
    except ValueError as e:
        raise ValueError(f"deadlines: standard {out['standard']!r} with rate {out['rate']!r}: {e}") from None
    out["guard_us"] = _number(p, "guard_us", 0.0, 1e6, "microseconds")
    out["mac_tries"] = _integer(p, "mac_tries", 1, 15)
    out["edf_tries"] = _integer(p, "edf_tries", 1, 15)
    out["edf_in_mac"] = _integer(p, "edf_in_mac", 1, 4)
    rounds = int(out["duration_s"] * 1000.0 / out["period_ms"] + 1e-9)
    if rounds < 1:
        raise ValueError(
            f"deadlines: duration_s = {out['duration_s']} is shorter than one period ({out['period_ms']} ms)"
        )
    out["rounds"] = rounds
    one = exchange_us(out, backoff=False)
    if out["deadline_ms"] * 1000.0 < one:
        raise ValueError(
            f"deadlines: deadline_ms = {out['deadline_ms']} is shorter than one exchange of the frame "
            f"({one:.0f} µs: DIFS, DATA of {out['payload'] + MAC_OVERHEAD} B at {out['rate']} Mb/s, SIFS and ACK)"
        )
    return out


def exchange_us(p: Mapping[str, Any], backoff: bool = True) -> float:
    """One exchange of the experiment's frame (µs), from the IEEE 802.11 formulas as the
    TDMA plan gives it: DIFS, CWmin backoff slots, DATA and the longer of SIFS + ACK and
    the ACKTimeout; without the backoff slots when `backoff` is false."""
    e = _core.TdmaPlan.exchange_for_us(p["payload"], p["rate"], p["standard"])
    if backoff:
        return e
    return e - _reserve_us(p)


def _reserve_us(p: Mapping[str, Any]) -> float:
    """The CWmin backoff slots a TDMA exchange holds (µs): CWmin 15 and aSlotTime 9 µs
    of the OFDM PHY (IEEE 802.11-2016 Clause 17)."""
    return OFDM_CW_MIN * OFDM_SLOT_US


@dataclass(frozen=True)
class Layout:
    """The TDMA schedule of a run: one slot per station, then a contention period."""

    slots: int
    slot_us: float
    round_us: float
    contention_us: float
    guard_us: float
    exchange_us: float
    #: From a release (the start of a round) to the end of the last slot.
    last_slot_end_us: float


def tdma_layout(p: Mapping[str, Any]) -> Layout:
    """The schedule for `p`, or ValueError saying why the load does not fit it: the
    slots and the contention period longer than a period, or the last slot ending after
    the deadline. The contention period must hold a request and its grant (the
    TdmaPlan's own check)."""
    n, g = p["stations"], p["guard_us"]
    ex = exchange_us(p)
    slot = 2.0 * g + ex
    round_us = p["period_ms"] * 1000.0
    cfp = n * slot
    if cfp >= round_us:
        raise ValueError(
            f"deadlines: tdma: the load does not fit the schedule: {n} slots of {slot:.0f} µs "
            f"(2 guards of {g:.0f} µs + one exchange of {ex:.0f} µs) take {cfp / 1000:.2f} ms, "
            f"more than the round of {round_us / 1000:.2f} ms (one period)"
        )
    last_end = cfp
    if last_end > p["deadline_ms"] * 1000.0 + g:
        raise ValueError(
            f"deadlines: tdma: the load does not fit the schedule: the last of {n} slots of {slot:.0f} µs "
            f"ends {(last_end - g) / 1000:.2f} ms after the release (less its trailing guard), "
            f"after the deadline of {p['deadline_ms']:.2f} ms"
        )
    return Layout(n, slot, round_us, round_us - cfp, g, ex, last_end)


def _plan(p: Mapping[str, Any], lay: Layout, epoch_ns: int) -> _core.TdmaPlan:
    try:
        return _core.TdmaPlan(
            slots=lay.slots,
            slot_us=lay.slot_us,
            round_us=lay.round_us,
            contention_us=lay.contention_us,
            jitter_us=lay.guard_us,
            epoch_ns=epoch_ns,
            payload=p["payload"],
            rate=p["rate"],
            standard=p["standard"],
        )
    except ValueError as e:
        raise ValueError(f"deadlines: tdma: the load does not fit the schedule: {e}") from None


def scenario(n: int, seed: int, standard: str, rate: str) -> str:
    """The scenario: a sink at the origin, `n` stations on a circle of 5 m around it."""
    parts = [_HEAD.format(seed=seed, standard=standard, rate=rate, sink=SINK)]
    for i in range(n):
        a = 2.0 * math.pi * i / n
        parts.append(_STATION.format(i=i, address=_address(i), x=5.0 * math.cos(a), y=5.0 * math.sin(a)))
    return "".join(parts)


# ----------------------------------------------------------------------------- packets


@dataclass
class Packet:
    """One released packet and what became of it."""

    station: int
    release_ns: int
    deadline_ns: int
    #: When the host handed it to the MAC (None: never), and when it planned to.
    t1: int | None = None
    planned_ns: int | None = None
    status: str | None = None
    attempts: int = 0
    t_start: int | None = None
    t5: int | None = None
    withdrawn: bool = False

    @property
    def sent(self) -> bool:
        """Went on air at least once."""
        return self.attempts > 0

    @property
    def acked(self) -> bool:
        """Acknowledged."""
        return self.status == "acked"

    @property
    def met(self) -> bool:
        """Acknowledged with the outcome known by the deadline."""
        return self.acked and self.t5 is not None and self.t5 <= self.deadline_ns


def _confirm(pk: Packet, c: _core.Confirmation) -> None:
    pk.status = c.status
    pk.attempts = c.attempts
    ts = c.timestamps
    pk.t_start = ts.get("t_start") or None
    pk.t5 = ts.get("t5") or None


class _Driver:
    """Stations served by one loop on their eventfds: requests at planned instants,
    confirmations as they come."""

    def __init__(self, ifaces: Sequence[_core.Interface], rates: str) -> None:
        self.ifaces = list(ifaces)
        self.rates = rates
        self.fds = [i.fileno() for i in self.ifaces]
        self.by_fd = {fd: k for k, fd in enumerate(self.fds)}
        self.packets: dict[int, Packet] = {}
        self.outstanding: list[set[int]] = [set() for _ in self.ifaces]

    def send(self, pid: int, pk: Packet, payload: bytes) -> None:
        pk.t1 = time.monotonic_ns()
        self.packets[pid] = pk
        try:
            self.ifaces[pk.station].data_req(pid, payload, dst=SINK, rates=self.rates, t1=pk.t1)
        except (_core.QueueFull, _core.ConfirmationBacklog) as e:
            pk.status = f"refused ({type(e).__name__})"
            return
        self.outstanding[pk.station].add(pid)

    def poll(self, timeout_s: float) -> None:
        ready, _, _ = select.select(self.fds, [], [], max(0.0, timeout_s))
        for fd in ready:
            k = self.by_fd[fd]
            iface = self.ifaces[k]
            iface.clear_event()
            while (c := iface.data_con(timeout=0)) is not None:
                pk = self.packets.get(c.id)
                if pk is not None and c.id in self.outstanding[k]:
                    self.outstanding[k].discard(c.id)
                    _confirm(pk, c)

    def wait_until(self, t_ns: int) -> None:
        """Serves confirmations until `t_ns`: sleeping in select until SPIN_S before it,
        then polling without sleeping, so that a late wake-up of the host's scheduler
        does not delay the request planned at `t_ns`."""
        while (now := time.monotonic_ns()) < t_ns:
            left = (t_ns - now) / 1e9
            self.poll(left - SPIN_S if left > SPIN_S else 0.0)

    def pending(self) -> int:
        return sum(len(s) for s in self.outstanding)

    def finish(self) -> None:
        """Cancels what is still queued, then waits for the outstanding confirmations."""
        for k, ids in enumerate(self.outstanding):
            for pid in sorted(ids):
                self.ifaces[k].cancel(pid)
        end = time.monotonic() + DRAIN_MAX_S
        while self.pending() and time.monotonic() < end:
            self.poll(0.02)


def _run_dcf(session: _core.Session, p: Mapping[str, Any], epoch: int) -> list[Packet]:
    n, period = p["stations"], int(p["period_ms"] * 1e6)
    deadline = int(p["deadline_ms"] * 1e6)
    d = _Driver([session.interface(f"s{i}") for i in range(n)], f"{p['rate']}x{p['mac_tries']}")
    payload = bytes(p["payload"])
    out: list[Packet] = []
    for r in range(p["rounds"]):
        release = epoch + r * period
        d.wait_until(release)
        for i in range(n):
            pk = Packet(i, release, release + deadline, planned_ns=release)
            out.append(pk)
            d.send(r * n + i + 1, pk, payload)
    last = epoch + (p["rounds"] - 1) * period + deadline + int(SETTLE_S * 1e9)
    while d.pending() and (now := time.monotonic_ns()) < last:
        d.poll((last - now) / 1e9)
    d.finish()
    return out


def _run_tdma(session: _core.Session, p: Mapping[str, Any], plan: _core.TdmaPlan, lay: Layout) -> list[Packet]:
    n = p["stations"]
    deadline = int(p["deadline_ms"] * 1e6)
    d = _Driver([session.interface(f"s{i}") for i in range(n)], f"{p['rate']}x1")
    payload = bytes(p["payload"])
    exchange_ns = int(lay.exchange_us * 1000)
    out: list[Packet] = []
    # (time, order, kind, packet id): "send" when the slot's window opens, "late" when the
    # exchange could no longer end inside the slot (the end of the trailing guard).
    events: list[tuple[int, int, str, int]] = []
    for r in range(p["rounds"]):
        release = plan.round_start_ns(r)
        for i in range(n):
            opens, closes = plan.slot_window_ns(r, i)
            pid = r * n + i + 1
            pk = Packet(i, release, release + deadline, planned_ns=opens)
            out.append(pk)
            d.packets[pid] = pk
            heapq.heappush(events, (opens, 2 * pid, "send", pid))
            heapq.heappush(events, (closes + int(lay.guard_us * 1000) - exchange_ns, 2 * pid + 1, "late", pid))
    while events:
        at, _, kind, pid = heapq.heappop(events)
        d.wait_until(at)
        now = time.monotonic_ns()
        pk = d.packets[pid]
        if kind == "send":
            # The exchange still ends inside the slot if it starts by the end of the
            # window's leading guard (the trailing guard absorbs the delay).
            if now < at + int(lay.guard_us * 1000):
                d.send(pid, pk, payload)
            else:
                pk.withdrawn = True
                pk.status = "withdrawn"
        elif pid in d.outstanding[pk.station] and d.ifaces[pk.station].cancel(pid):
            pk.withdrawn = True
    last = plan.round_start_ns(p["rounds"] - 1) + deadline + int(SETTLE_S * 1e9)
    while d.pending() and (now := time.monotonic_ns()) < last:
        d.poll((last - now) / 1e9)
    d.finish()
    return out


def _run_edf(session: _core.Session, p: Mapping[str, Any], epoch: int) -> list[dict[str, Any]]:
    n = p["stations"]
    ifaces = [session.interface(f"s{i}") for i in range(n)]
    flow = {
        "name": "periodic",
        "period_us": p["period_ms"] * 1000.0,
        "deadline_us": p["deadline_ms"] * 1000.0,
        "payload": p["payload"],
        "rate": p["rate"],
    }
    end = epoch + int(p["rounds"] * p["period_ms"] * 1e6)
    results: list[dict[str, Any] | None] = [None] * n
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            results[i] = _core.edf_run(
                ifaces[i],
                [flow],
                dst=SINK,
                start_ns=epoch,
                end_ns=end,
                standard=p["standard"],
                tries_per_request=p["edf_tries"],
                max_attempts=p["mac_tries"],
                in_mac=p["edf_in_mac"],
            )
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,), name=f"edf-s{i}") for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return [r for r in results if r is not None]


# ----------------------------------------------------------------------------- figures


def _percentile(xs: Sequence[float], q: float) -> float | None:
    """The q-quantile (0 … 1) by linear interpolation; None for no samples."""
    if not xs:
        return None
    s = sorted(xs)
    pos = q * (len(s) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def offered_share(p: Mapping[str, Any]) -> float:
    """The share of each period the stations' frames take on air at one try each
    (DIFS, DATA, SIFS and ACK, no backoff)."""
    return float(p["stations"] * exchange_us(p, backoff=False) / (p["period_ms"] * 1000.0))


def run(params: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """Runs the experiment once on emu and returns its figures (see the module doc)."""
    p = check_params(params)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ValueError(f"deadlines: seed must be a non-negative integer, not {seed!r}")
    lay = tdma_layout(p) if p["scheme"] == "tdma" else None
    if lay is not None:
        _plan(p, lay, 0)  # the plan's own checks, before anything is sent
    n = p["stations"]
    names = ["sink", *(f"s{i}" for i in range(n))]
    text = scenario(n, seed, p["standard"], p["rate"])
    notes: list[str] = []
    figures: dict[str, Any] = {}
    t0 = time.monotonic()
    with _core.Session.from_scenario(text, names, name="deadlines", seed=seed) as session:
        epoch = time.monotonic_ns() + int(LEAD_IN_S * 1e9)
        if p["scheme"] == "dcf":
            packets = _run_dcf(session, p, epoch)
        elif p["scheme"] == "tdma":
            assert lay is not None
            plan = _plan(p, lay, epoch)
            notes.append(str(plan))
            packets = _run_tdma(session, p, plan, lay)
        else:
            edf = _run_edf(session, p, epoch)
    wall_s = time.monotonic() - t0
    if p["scheme"] == "edf":
        flows = [r["flows"][0] for r in edf]
        released = sum(f["released"] for f in flows)
        met = sum(f["met"] for f in flows)
        late = sum(f["late"] for f in flows)
        figures.update(
            released=released,
            met=met,
            late=late,
            dropped=sum(f["dropped"] for f in flows),
            unfinished=sum(f["unfinished"] for f in flows),
            attempts_per_packet=sum(f["attempts"] for f in flows) / released if released else None,
        )
        acked = met + late
        notes.append("edf_run reports counts per flow, not per packet: no latency figures")
    else:
        released = len(packets)
        met = sum(1 for pk in packets if pk.met)
        acked = sum(1 for pk in packets if pk.acked)
        lat = [(pk.t5 - pk.release_ns) / 1000.0 for pk in packets if pk.acked and pk.t5 is not None]
        lag = [(pk.t1 - pk.planned_ns) / 1000.0 for pk in packets if pk.t1 is not None and pk.planned_ns is not None]
        figures.update(
            released=released,
            met=met,
            late=acked - met,
            sent=sum(1 for pk in packets if pk.sent),
            not_acked=released - acked,
            attempts_per_packet=sum(pk.attempts for pk in packets) / released if released else None,
            latency_p50_us=_percentile(lat, 0.50),
            latency_p95_us=_percentile(lat, 0.95),
            latency_p99_us=_percentile(lat, 0.99),
            latency_max_us=max(lat) if lat else None,
            host_lag_p99_us=_percentile(lag, 0.99),
        )
        if p["scheme"] == "tdma":
            assert lay is not None
            g = int(lay.guard_us * 1000)
            outside = 0
            for k, pk in enumerate(packets):
                if pk.t_start is None or pk.t5 is None:
                    continue
                r, i = divmod(k, n)
                opens, closes = plan.slot_window_ns(r, i)
                if pk.t_start < opens - g or pk.t5 > closes + g:
                    outside += 1
            figures.update(
                withdrawn=sum(1 for pk in packets if pk.withdrawn),
                outside_slot=outside,
                tdma_slot_us=lay.slot_us,
                tdma_guard_us=lay.guard_us,
                tdma_contention_us=lay.contention_us,
            )
    figures["miss_ratio"] = (released - met) / released if released else None
    figures["delivered_share"] = acked / released if released else None
    figures["offered_airtime_share"] = offered_share(p)
    figures["wall_s"] = wall_s
    return {**figures, "params": dict(p), "notes": notes}
