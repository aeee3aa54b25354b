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
  the margin is the measured timing spread — the loop's own request path, from a
  send's due time to its start on air, measured by a rehearsal of timed broadcasts on a
  probe session before the run: its GUARD_QUANTILE − its minimum — capped so that the
  hosts' first copies fit in the spacing. The reply is a
  broadcast, so no confirmation says whether it arrived: the policy repeats it up to
  ``POLICY_MAX_COPIES`` times, one copy per host per cycle of repliers × step, as
  many as end before the next request may start.
- ``tdma``: a fixed schedule in rounds equal to the spacing: a slot for the request at
  the round's start, then one per replier at its end, so that the hosts have the
  round's slack to hear the request (the RTT is then set by the schedule). The
  originator and each host run their whole run in Rust on the overlay's periodic TDMA
  station (``rtwlan_tdma``, ``sdmac._core.tdma_periodic``), one thread each, under
  SCHED_FIFO where the process may. A slot holds DIFS + airtime + a guard at each end +
  a hand-over slack; a station hands its frame over as its window opens, so that it
  finds the medium idle for DIFS and goes at once. After the last slot the round must
  hold DIFS + CWmin·slot, so that each station's post-backoff ends before its next
  slot. The guard is the API's request-path jitter (``tdma_measure_jitter``, t_start −
  t1: its GUARD_QUANTILE − its minimum) + the synchronisation error (0 on emu, where
  every station reads the medium's clock). The plan is checked before anything is
  sent: where it does not fit the spacing the run is refused (``refused`` says why)
  and nothing else is reported. A frame whose window passed before its station could
  hand it over is counted as a stall; a frame whose time on air (t5 − airtime … t5)
  left its slot all the same is counted as outside its slot; ``tdma_collisions`` is
  the attempts lost to collisions in the medium's truth.

  The overlay's ``TdmaPlan`` is not used for the slots: it budgets a unicast exchange
  (a full CWmin backoff, then DATA and the ACK or its timeout) and a contention period
  for slot requests, which these unacknowledged broadcasts on a fixed schedule do not
  need; the stations take their windows directly.

By default the run happens on the wall clock, so its figures vary from run to run with
the host's scheduling; the seed fixes the medium's random draws (backoffs). With
``clock = "virtual"`` (``tdma`` mode only) emu's medium runs on its virtual clock: time
moves only when every station waits, so no host stall reaches the air and the same
seed gives the same figures (``wall_s`` aside). ``dcf`` and ``policy`` are refused
there: their Python loop waits on the interfaces' event descriptors, a wait the
virtual clock cannot see.

The fixed parameters live in ``rtwlan_params``, the formulas and slot plan in
``rtwlan_timing`` and the event loop in ``rtwlan_loop``; this module measures, runs
and reports, and re-exports the public names of the first two.
"""
from __future__ import annotations

import math
import select
import time
from collections.abc import Mapping, Sequence
from typing import Any

from .. import _core
from . import rtwlan_tdma
from .rtwlan_loop import _Loop, _payload, _percentile, _quantities, _Schedule, _Send, _us
from .rtwlan_params import (
    _SCENARIO,
    BROADCAST,
    CLOCKS,
    DEFAULT_PACKETS,
    DRAIN_IDLE_S,
    DRAIN_MAX_S,
    FRAME_OCTETS,
    GUARD_QUANTILE,
    HOSTS,
    JITTER_PROBES,
    LEAD_IN_S,
    MAC_OVERHEAD,
    MAX_PACKETS,
    MODES,
    PAYLOAD_OCTETS,
    POLICY_MAX_COPIES,
    PROBE_GAP_US,
    RATE,
    REHEARSAL_GAP_MS,
    REHEARSAL_PROBES,
    SEND_QUANTITIES,
    SIFS_US,
    SLOT_US,
    SPACINGS_MS,
    STANDARD,
    SYNC_ERROR_US,
    ProgressFn,
)
from .rtwlan_timing import Bounds, SlotPlan, Timing, bounds, policy_schedule

__all__ = [
    "BROADCAST",
    "Bounds",
    "DEFAULT_PACKETS",
    "DRAIN_IDLE_S",
    "DRAIN_MAX_S",
    "FRAME_OCTETS",
    "GUARD_QUANTILE",
    "HOSTS",
    "JITTER_PROBES",
    "LEAD_IN_S",
    "MAC_OVERHEAD",
    "MAX_PACKETS",
    "MODES",
    "PAYLOAD_OCTETS",
    "POLICY_MAX_COPIES",
    "PROBE_GAP_US",
    "ProgressFn",
    "RATE",
    "REHEARSAL_GAP_MS",
    "REHEARSAL_PROBES",
    "SEND_QUANTITIES",
    "SIFS_US",
    "SLOT_US",
    "SPACINGS_MS",
    "STANDARD",
    "SYNC_ERROR_US",
    "SlotPlan",
    "Timing",
    "bounds",
    "check_params",
    "measure_path",
    "policy_schedule",
    "rehearse",
    "run",
]


def measure_path(iface: _core.Interface, dst: str) -> tuple[float, float]:
    """The request path (t_start − t1, µs) on `iface` over a probe burst to `dst`
    (acknowledged, ``tdma_measure_jitter``): its minimum and its GUARD_QUANTILE."""
    j = _core.tdma_measure_jitter(iface, dst, rate=RATE, probes=JITTER_PROBES, gap_us=PROBE_GAP_US)
    path = [x / 1000.0 for x in j["latencies_ns"]]
    q = _percentile(path, GUARD_QUANTILE)
    assert q is not None
    return min(path), q


def rehearse(iface: _core.Interface, gap_us: float, airtime_us: float, virtual: bool = False) -> tuple[float, float]:
    """The loop's whole request path, due time → start on air (t5 − airtime), over
    REHEARSAL_PROBES broadcasts from `iface` timed as the run times its sends, one every
    `gap_us`: its minimum and its GUARD_QUANTILE (µs). On the `virtual` clock it waits
    in ``data_con`` on the interface's clock instead of on its event descriptor."""
    if virtual:
        return _rehearse_virtual(iface, gap_us, airtime_us)
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


def _rehearse_virtual(iface: _core.Interface, gap_us: float, airtime_us: float) -> tuple[float, float]:
    """`rehearse` on the virtual clock: every wait blocks in ``data_con`` (so that
    time moves), every time is the interface's."""
    due: dict[int, int] = {}
    starts: list[float] = []

    def take(c: _core.Confirmation | None) -> None:
        if c is None:
            return
        t5 = c.timestamps.get("t5")
        if c.status == "sent" and t5 and c.id in due:
            starts.append((t5 - airtime_us * 1000 - due[c.id]) / 1000.0)

    at = iface.now() + int(gap_us * 1000)
    for k in range(1, REHEARSAL_PROBES + 1):
        while (now := iface.now()) < at:
            take(iface.data_con(timeout=(at - now) / 1e9))
        due[k] = at
        iface.data_req(k, _payload(k, 0xFF), dst=BROADCAST, rates=f"{RATE}x1", no_ack=True, t1=now)
        at += int(gap_us * 1000)
    end = iface.now() + int(DRAIN_IDLE_S * 1e9)
    while len(starts) < len(due) and (now := iface.now()) < end:
        take(iface.data_con(timeout=(end - now) / 1e9))
    if len(starts) < 2:
        raise RuntimeError(f"rtwlan: the rehearsal confirmed {len(starts)} of {len(due)} broadcasts as sent")
    q = _percentile(starts, GUARD_QUANTILE)
    assert q is not None
    return min(starts), q


# ----------------------------------------------------------------------------- params


def check_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters with defaults filled in; ValueError naming the bad one."""
    known = {"spacing_ms", "repliers", "packets", "mode", "clock"}
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
    clock = params.get("clock", "wall")
    if clock not in CLOCKS:
        raise ValueError(f"rtwlan: clock must be one of {', '.join(CLOCKS)}, not {clock!r}")
    if clock == "virtual" and mode != "tdma":
        raise ValueError(
            f"rtwlan: clock = virtual runs mode tdma only, not {mode}: the dcf and policy modes run a "
            "Python event loop on the interfaces' event descriptors, a wait the virtual clock cannot see"
        )
    return {"spacing_ms": spacing, "repliers": int(repliers), "packets": packets, "mode": mode, "clock": clock}


# ----------------------------------------------------------------------------- run



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
    virtual = p["clock"] == "virtual"
    timing: Timing | None = None
    plan: SlotPlan | None = None
    spacing_us = p["spacing_ms"] * 1000.0
    if p["mode"] != "dcf":
        # Measured on a session of its own, before the run: nothing of the run is sent yet.
        # In tdma mode the stations run real-time (where the process may), so the API's
        # path they rely on is measured the same way.
        # On the virtual clock the host cannot delay anything: no real-time priority.
        rt = p["mode"] == "tdma" and not virtual
        with rtwlan_tdma.session(scenario, ["originator", "host1"], seed, realtime=rt, name="rtwlan-probe",
                                 clock=p["clock"]) as probe:
            o = probe.interface("originator")
            host1 = probe.interface("host1").address
            # Only its address is needed: time must not wait for it.
            probe.take_no_part("host1")
            with rtwlan_tdma.realtime(rt):
                api_min, api_q = measure_path(o, host1)
            b = bounds(aifsn=int(o.get("aifsn", ac="BE")), cw_min=int(o.get("cw_min", ac="BE")))
            path_min, path_q = rehearse(o, min(p["spacing_ms"], REHEARSAL_GAP_MS) * 1000.0, b.airtime_us, virtual)
        timing = Timing(api_min_us=api_min, api_q_us=api_q, path_min_us=path_min, path_q_us=path_q,
                        sync_error_us=SYNC_ERROR_US)
    with rtwlan_tdma.session(scenario, names, seed, realtime=p["mode"] == "tdma" and not virtual,
                             clock=p["clock"]) as session:
        ifaces = [session.interface(name) for name in names]
        b = bounds(aifsn=int(ifaces[0].get("aifsn", ac="BE")), cw_min=int(ifaces[0].get("cw_min", ac="BE")))
        if p["mode"] == "tdma":
            assert timing is not None
            plan = SlotPlan(spacing_us=spacing_us, repliers=p["repliers"], bounds=b, guard_us=timing.tdma_guard_us,
                            handover_us=rtwlan_tdma.SLACK_US)
            if not plan.fits:
                return {"tdma_fits": 0, "guard_us": plan.guard_us, "params": dict(p), "bounds": b.as_dict(),
                        "timing": timing.as_dict(), "plan": plan.as_dict(), "refused": plan.reason(),
                        "samples": {}, "notes": [plan.reason()]}
        start_ns = session.now() + int(LEAD_IN_S * 1e9)
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
        loop: _Loop | rtwlan_tdma.TdmaBooks
        if plan is None:
            loop = _Loop(ifaces, p, progress, sched)
            wall_s = loop.run()
        else:
            wall0 = time.monotonic_ns()
            loop = rtwlan_tdma.run(ifaces, p["packets"], plan, start_ns, b.difs_us + b.airtime_us,
                                   session=session if virtual else None)
            wall_s = (time.monotonic_ns() - wall0) / 1e9 if virtual else (time.monotonic_ns() - start_ns) / 1e9
            if progress is not None:
                progress(p["packets"], p["packets"])
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
        assert isinstance(loop, rtwlan_tdma.TdmaBooks)
        result["guard_us"] = plan.guard_us
        result["plan"] = plan.as_dict()
        result["tdma_fits"] = 1
        result["tdma_collisions"] = loop.collisions
        result["tdma_realtime"] = int(loop.realtime)
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


def _figures(p: Mapping[str, Any], b: Bounds, loop: _Loop | rtwlan_tdma.TdmaBooks, wall_s: float) -> dict[str, Any]:
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
