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
    guards of `guard_us`, one exchange as the plan gives it (DIFS, CWmin backoff slots,
    DATA, the longer of SIFS + ACK and the ACKTimeout) and `slack_us`: the station may
    hand its packet over up to `slack_us` after its window opens. Every station runs
    ``sdmac._core.tdma_periodic`` for the whole run, in a thread of its own, on the
    medium's clock: it blocks in ``data_con`` until `lead_us` before its window, polls
    until the window opens, hands its packet over with one try, and cancels it
    (withdrawn, retried in a later window while its deadline allows) if it is still
    queued when its exchange could no longer end inside the window. The schedule is
    refused before anything is sent when the slots and the contention period do not fit
    the period, or (uniform deadlines) when the last slot ends after the deadline.
``edf``
    The EDF overlay (``sdmac._core.edf_run``) on every station, one thread each: one
    periodic flow, `edf_tries` tries per request, re-planned on each failure, at most
    `mac_tries` attempts, a frame whose deadline can no longer be met dropped unsent.

``dcf`` runs ``edf_run(fifo=True)`` on every station, one thread each: each packet is
handed to the MAC at its release. So every scheme runs each station's whole run in
Rust, on the medium's clock; Python only starts the threads and reads the records.

Deadlines (`deadlines`): ``uniform`` — every packet is due `deadline_ms` after its
release; ``slot`` — station i's packet is due when its TDMA slot ends, (i + 1) slots
after the release less the trailing guard, under every scheme (the TDMA layout
defines the deadlines; DCF and EDF face the same ones). `rt_priority` > 0 runs the
station threads under SCHED_FIFO at that priority (needs the privilege).

Flows per station (`mix`): ``single`` — the one periodic flow above; ``urgent+bulk`` —
two periodic flows per station, both released every `period_ms` at the same instants,
as in mixed-criticality industrial traffic: a **bulk** flow of `bulk_burst` frames of
`bulk_payload` bytes due `deadline_ms` after release, and an **urgent** flow of one
frame of `urgent_payload` bytes due `urgent_deadline_ms` after release. The bulk flow
comes first in the station's release order, so under ``dcf`` (first in first out) the
urgent frame waits in the MAC's queue behind the burst; under ``edf`` it goes first.
Under ``tdma`` each station's slot holds its whole period's frames (the burst and the
urgent frame, each exchange sized for the largest frame) and the station sends them
earliest deadline first within the slot (``tdma_periodic`` with ``flows``); a station
whose slot ends after the urgent deadline misses its urgent frames whatever it does,
which is the price of a fixed slot order. ``deadlines = "slot"`` refuses
``urgent+bulk`` (the slot layout defines one deadline per station). `payload` is
unused with ``urgent+bulk``.
The figures then come per class too (``miss_ratio_urgent``, ``miss_ratio_bulk``, …).

Per packet: released, sent (went on air), acknowledged, and met (acknowledged with the
outcome known at the MAC, t5, by its deadline) or missed (never acknowledged, or
acknowledged after its deadline). The latency is t5 minus the release instant, over
the acknowledged packets, read from each packet's record.

By default the run happens on the wall clock (the emu medium's clock is
``CLOCK_MONOTONIC``), so its figures vary with the host's scheduling; the seed fixes the
medium's random draws. With ``clock = "virtual"`` the medium's time moves only when every
station waits in a receiving primitive (emu's virtual clock): no host stall reaches the
air, and the same seed gives the same figures (``wall_s`` aside).
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
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
#: Wall-clock margin from the moment every station's thread has started to the first
#: release.
LEAD_IN_S = 0.2
#: How deadlines are set: one for every station, or each station's slot end.
DEADLINE_MODES = ("uniform", "slot")
#: The flows of each station: one, or an urgent and a bulk flow.
MIXES = ("single", "urgent+bulk")
#: The frame classes of ``mix = "urgent+bulk"``, in the station's flow order.
CLASSES = ("bulk", "urgent")

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
    "deadlines": "uniform",
    "lead_us": 500.0,
    "slack_us": 100.0,
    "rt_priority": 0,
    "mix": "single",
    "urgent_payload": 64,
    "urgent_deadline_ms": 5.0,
    "bulk_payload": 500,
    "bulk_burst": 3,
    "clock": "wall",
}

#: The clocks emu can run the medium on.
CLOCKS = ("wall", "virtual")

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
    if p["deadlines"] not in DEADLINE_MODES:
        raise ValueError(f"deadlines: deadlines must be one of {', '.join(DEADLINE_MODES)}, not {p['deadlines']!r}")
    out["deadlines"] = p["deadlines"]
    out["lead_us"] = _number(p, "lead_us", 0.0, 1e6, "microseconds")
    out["slack_us"] = _number(p, "slack_us", 0.0, 1e6, "microseconds")
    out["rt_priority"] = _integer(p, "rt_priority", 0, 89)
    if p["clock"] not in CLOCKS:
        raise ValueError(f"deadlines: clock must be one of {', '.join(CLOCKS)}, not {p['clock']!r}")
    out["clock"] = p["clock"]
    if out["clock"] == "virtual" and out["rt_priority"] > 0:
        raise ValueError(
            "deadlines: rt_priority > 0 has no use on the virtual clock (the host cannot delay a station there)"
        )
    if p["mix"] not in MIXES:
        raise ValueError(f"deadlines: mix must be one of {', '.join(MIXES)}, not {p['mix']!r}")
    out["mix"] = p["mix"]
    out["urgent_payload"] = _integer(p, "urgent_payload", 1, MAX_PAYLOAD)
    out["urgent_deadline_ms"] = _number(
        p, "urgent_deadline_ms", 0.0, out["period_ms"], "milliseconds (at most period_ms)"
    )
    out["bulk_payload"] = _integer(p, "bulk_payload", 1, MAX_PAYLOAD)
    out["bulk_burst"] = _integer(p, "bulk_burst", 1, 100)
    if out["mix"] == "urgent+bulk":
        if out["deadlines"] != "uniform":
            raise ValueError(
                "deadlines: mix = 'urgent+bulk' needs deadlines = 'uniform' (the slot layout gives one deadline per station)"
            )
        u = exchange_us({**out, "payload": out["urgent_payload"]}, backoff=False)
        if out["urgent_deadline_ms"] * 1000.0 < u:
            raise ValueError(
                f"deadlines: urgent_deadline_ms = {out['urgent_deadline_ms']} is shorter than one exchange of "
                f"the urgent frame ({u:.0f} µs)"
            )
    rounds = int(out["duration_s"] * 1000.0 / out["period_ms"] + 1e-9)
    if rounds < 1:
        raise ValueError(
            f"deadlines: duration_s = {out['duration_s']} is shorter than one period ({out['period_ms']} ms)"
        )
    out["rounds"] = rounds
    one = exchange_us(out, backoff=False)
    if out["mix"] == "urgent+bulk":
        one = exchange_us({**out, "payload": out["bulk_payload"]}, backoff=False)
    if out["deadline_ms"] * 1000.0 < one:
        raise ValueError(
            f"deadlines: deadline_ms = {out['deadline_ms']} is shorter than one exchange of the frame "
            f"({one:.0f} µs: DIFS, DATA of {out['payload'] + MAC_OVERHEAD} B at {out['rate']} Mb/s, SIFS and ACK)"
        )
    return out


def _largest_payload(p: Mapping[str, Any]) -> int:
    """The payload the TDMA plan sizes each exchange for: the largest frame's."""
    if p["mix"] == "single":
        return int(p["payload"])
    return max(int(p["bulk_payload"]), int(p["urgent_payload"]))


def _frames_per_slot(p: Mapping[str, Any]) -> int:
    """The frames a station releases each period, all sent in its slot."""
    return 1 if p["mix"] == "single" else int(p["bulk_burst"]) + 1


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
    ex = exchange_us({**p, "payload": _largest_payload(p)})
    k = _frames_per_slot(p)
    slot = slot_us(p)
    round_us = p["period_ms"] * 1000.0
    cfp = n * slot
    if cfp >= round_us:
        raise ValueError(
            f"deadlines: tdma: the load does not fit the schedule: {n} slots of {slot:.0f} µs "
            f"(2 guards of {g:.0f} µs + {_count(k, 'exchange')} of {ex:.0f} µs + {p['slack_us']:.0f} µs of slack) take {cfp / 1000:.2f} ms, "
            f"more than the round of {round_us / 1000:.2f} ms (one period)"
        )
    last_end = cfp
    if p["deadlines"] == "uniform" and last_end > p["deadline_ms"] * 1000.0 + g:
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
            payload=_largest_payload(p),
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


# ----------------------------------------------------------------------------- stations


def slot_us(p: Mapping[str, Any]) -> float:
    """A TDMA slot (µs): two guards, one exchange per frame of the station's period
    (each sized for the largest frame) and the hand-over slack."""
    ex = exchange_us({**p, "payload": _largest_payload(p)})
    return float(2.0 * p["guard_us"] + _frames_per_slot(p) * ex + p["slack_us"])


def _count(k: int, what: str) -> str:
    return f"one {what}" if k == 1 else f"{k} {what}s"


def deadline_us(p: Mapping[str, Any], i: int) -> float:
    """Station i's relative deadline (µs): `deadline_ms`, or with ``deadlines = "slot"``
    the end of its TDMA slot, (i + 1) slots after the release less the trailing guard
    (at most `deadline_ms`, where the slots do not fit the period)."""
    uniform = float(p["deadline_ms"] * 1000.0)
    if p["deadlines"] == "slot":
        return min(uniform, (i + 1) * slot_us(p) - float(p["guard_us"]))
    return uniform


def _session(text: str, names: Sequence[str], seed: int, rt_priority: int, clock: str = "wall") -> _core.Session:
    """The emu session on `clock`; with `rt_priority` > 0 its device thread runs under
    SCHED_FIFO 10 levels above the stations (it inherits the policy of the thread that
    opens the session), so that the stations' polling never holds the medium up."""
    if rt_priority <= 0:
        return _core.Session.from_scenario(text, names, name="deadlines", seed=seed, clock=clock)
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(min(99, rt_priority + 10)))
    except PermissionError as e:
        raise ValueError(f"deadlines: rt_priority = {rt_priority} needs the privilege to use SCHED_FIFO: {e}") from None
    try:
        return _core.Session.from_scenario(text, names, name="deadlines", seed=seed)
    finally:
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))


def _in_threads(
    n: int, work: Callable[[int, int], dict[str, Any]], rt_priority: int, session: _core.Session | None = None
) -> tuple[list[dict[str, Any]], int]:
    """Runs work(i, epoch) for every station, one thread each (each call releases the GIL
    for its whole run); with `rt_priority` > 0 each thread first asks for SCHED_FIFO at
    it. The epoch (the first release, ns) is fixed LEAD_IN_S after every thread has
    started, so that a slow start on a loaded host does not eat into the run. Returns
    the results and the epoch. With the `session` of a virtual clock the epoch is on
    its clock, and station i's interface ("s{i}") takes no part in time once its run is
    over, so that the others' runs go on."""
    virtual = session is not None and session.clock == "virtual"
    results: list[dict[str, Any] | None] = [None] * n
    errors: list[BaseException] = []
    ready = threading.Barrier(n + 1)
    go = threading.Event()
    epoch = [0]

    def body(i: int) -> None:
        try:
            if rt_priority > 0:
                os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(rt_priority))
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            errors.append(e)
        ready.wait()
        go.wait()
        if errors:
            return
        try:
            results[i] = work(i, epoch[0])
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            errors.append(e)
        finally:
            if virtual:
                assert session is not None
                session.take_no_part(f"s{i}")

    threads = [threading.Thread(target=body, args=(i,), name=f"deadlines-s{i}") for i in range(n)]
    # The calling thread too, while it hands the stations their start: a thread the host
    # preempts while it holds the GIL would hold every station up on its way into Rust.
    if rt_priority > 0:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(rt_priority))
    try:
        for t in threads:
            t.start()
        ready.wait()
        epoch[0] = (session.now() if virtual and session is not None else time.monotonic_ns()) + int(LEAD_IN_S * 1e9)
        go.set()
        for t in threads:
            t.join()
    finally:
        if rt_priority > 0:
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    if errors:
        raise errors[0]
    return [r for r in results if r is not None], epoch[0]


def station_flows(p: Mapping[str, Any], i: int) -> list[dict[str, Any]]:
    """Station i's flows for ``edf_run``: its one flow, or (``urgent+bulk``) the bulk
    flow then the urgent flow (in that order, so that FIFO queues urgent behind bulk)."""
    period = p["period_ms"] * 1000.0
    if p["mix"] == "single":
        return [
            {
                "name": f"s{i}",
                "period_us": period,
                "deadline_us": deadline_us(p, i),
                "payload": p["payload"],
                "rate": p["rate"],
            }
        ]
    return [
        {
            "name": f"s{i}-bulk",
            "period_us": period,
            "deadline_us": p["deadline_ms"] * 1000.0,
            "payload": p["bulk_payload"],
            "burst": p["bulk_burst"],
            "rate": p["rate"],
        },
        {
            "name": f"s{i}-urgent",
            "period_us": period,
            "deadline_us": p["urgent_deadline_ms"] * 1000.0,
            "payload": p["urgent_payload"],
            "rate": p["rate"],
        },
    ]


def _run_fifo_or_edf(session: _core.Session, p: Mapping[str, Any], fifo: bool) -> list[dict[str, Any]]:
    n = p["stations"]
    ifaces = [session.interface(f"s{i}") for i in range(n)]

    def work(i: int, epoch: int) -> dict[str, Any]:
        end = epoch + int(p["rounds"] * p["period_ms"] * 1e6)
        return _core.edf_run(
            ifaces[i],
            station_flows(p, i),
            dst=SINK,
            start_ns=epoch,
            end_ns=end,
            standard=p["standard"],
            tries_per_request=p["edf_tries"],
            max_attempts=p["mac_tries"],
            in_mac=p["edf_in_mac"],
            fifo=fifo,
            mac_tries=p["mac_tries"],
        )

    out, _ = _in_threads(n, work, p["rt_priority"], session)
    return [
        {
            "release_ns": f["release_ns"],
            "t5_ns": f["acked_ns"],
            "acked": f["acked_ns"] is not None,
            "met": f["met"],
            "sent": f["first_tx_ns"] is not None,
            "attempts": f["attempts"],
            "fate": f["fate"],
            "class": CLASSES[f["flow"]] if p["mix"] == "urgent+bulk" else "single",
        }
        for r in out
        for f in r["frames"]
    ]


def _run_tdma(session: _core.Session, p: Mapping[str, Any], lay: Layout) -> tuple[list[dict[str, Any]], int]:
    n = p["stations"]
    ifaces = [session.interface(f"s{i}") for i in range(n)]
    payload = bytes(p["payload"])

    def work(i: int, epoch: int) -> dict[str, Any]:
        plan = _plan(p, lay, epoch)
        end = plan.round_start_ns(p["rounds"])
        flows = station_flows(p, i) if p["mix"] == "urgent+bulk" else None
        return _core.tdma_periodic(
            ifaces[i],
            plan=plan,
            slot=i,
            dst=SINK,
            period_us=None if flows else p["period_ms"] * 1000.0,
            flows=flows,
            first_ns=plan.epoch_ns,
            deadline_us=deadline_us(p, i),
            end_ns=end,
            payload=payload,
            rate=p["rate"],
            tries=1,
            lead_us=p["lead_us"],
        )

    out, epoch = _in_threads(n, work, p["rt_priority"], session)
    frames = [
        {
            **f,
            "acked": f["status"] == "acked",
            "sent": f["attempts"] > 0,
            "class": CLASSES[f["flow"]] if p["mix"] == "urgent+bulk" else "single",
        }
        for r in out
        for f in r["frames"]
    ]
    return frames, epoch


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


def station_airtime_us(p: Mapping[str, Any]) -> float:
    """The airtime one station's frames of one period take at one try each (µs): DIFS,
    DATA, SIFS and ACK per frame, no backoff."""
    if p["mix"] == "single":
        return exchange_us(p, backoff=False)
    bulk = exchange_us({**p, "payload": p["bulk_payload"]}, backoff=False)
    return float(p["bulk_burst"] * bulk) + exchange_us({**p, "payload": p["urgent_payload"]}, backoff=False)


def offered_share(p: Mapping[str, Any]) -> float:
    """The share of each period the stations' frames take on air at one try each
    (DIFS, DATA, SIFS and ACK, no backoff)."""
    return float(p["stations"] * station_airtime_us(p) / (p["period_ms"] * 1000.0))


def _class_figures(frames: Sequence[Mapping[str, Any]], cls: str) -> dict[str, Any]:
    """The figures of one class of frames (``urgent`` or ``bulk``), suffixed with it."""
    own = [f for f in frames if f["class"] == cls]
    released = len(own)
    met = sum(1 for f in own if f["met"])
    lat = [(f["t5_ns"] - f["release_ns"]) / 1000.0 for f in own if f["acked"] and f["t5_ns"] is not None]
    return {
        f"released_{cls}": released,
        f"met_{cls}": met,
        f"miss_ratio_{cls}": (released - met) / released if released else None,
        f"latency_p50_{cls}_us": _percentile(lat, 0.50),
        f"latency_p99_{cls}_us": _percentile(lat, 0.99),
    }


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
    with _session(text, names, seed, p["rt_priority"], p["clock"]) as session:
        if p["scheme"] == "tdma":
            assert lay is not None
            frames, epoch = _run_tdma(session, p, lay)
            notes.append(str(_plan(p, lay, epoch)))
        else:
            frames = _run_fifo_or_edf(session, p, fifo=p["scheme"] == "dcf")
    wall_s = time.monotonic() - t0
    released = len(frames)
    met = sum(1 for f in frames if f["met"])
    acked = sum(1 for f in frames if f["acked"])
    lat = [(f["t5_ns"] - f["release_ns"]) / 1000.0 for f in frames if f["acked"] and f["t5_ns"] is not None]
    figures.update(
        released=released,
        met=met,
        late=acked - met,
        sent=sum(1 for f in frames if f["sent"]),
        not_acked=released - acked,
        attempts_per_packet=sum(f["attempts"] for f in frames) / released if released else None,
        latency_p50_us=_percentile(lat, 0.50),
        latency_p95_us=_percentile(lat, 0.95),
        latency_p99_us=_percentile(lat, 0.99),
        latency_max_us=max(lat) if lat else None,
    )
    if p["scheme"] == "tdma":
        assert lay is not None
        lag = [f["lag_ns"] / 1000.0 for f in frames if f["t1_ns"] is not None]
        figures.update(
            withdrawn=sum(f["withdrawn"] for f in frames),
            expired=sum(1 for f in frames if f["expired"]),
            outside_slot=sum(1 for f in frames if f["outside_window"]),
            collisions=sum(f["collisions"] for f in frames),
            host_lag_p99_us=_percentile(lag, 0.99),
            host_lag_max_us=max(lag) if lag else None,
            tdma_slot_us=lay.slot_us,
            tdma_guard_us=lay.guard_us,
            tdma_contention_us=lay.contention_us,
        )
    else:
        figures["dropped"] = sum(1 for f in frames if f["fate"] == "dropped")
        figures["unfinished"] = sum(1 for f in frames if f["fate"] == "unfinished")
    if p["mix"] == "urgent+bulk":
        for cls in CLASSES:
            figures.update(_class_figures(frames, cls))
    figures["miss_ratio"] = (released - met) / released if released else None
    figures["delivered_share"] = acked / released if released else None
    figures["offered_airtime_share"] = offered_share(p)
    figures["wall_s"] = wall_s
    return {**figures, "params": dict(p), "notes": notes}
