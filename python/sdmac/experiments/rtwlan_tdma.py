"""RT-WLAN's ``tdma`` mode on the overlay's periodic TDMA station
(``sdmac._core.tdma_periodic``): the originator and each host run their whole run in
Rust, one thread each, on the medium's clock. The originator's requests are periodic
frames in slot 0 of every round; each host releases a reply when it hears a request
(at the request's end on air) and sends it in its own slot. Each station blocks until
`lead_us` before its window and polls until the window opens; a frame is handed over
only while its frame can still start within the window (the slack after the leading
guard), otherwise it is counted as a stall. The threads run under SCHED_FIFO when the
process may use it, so that the host's other work does not delay their wake-ups.

The books it returns have the fields of the Python loop's (``rtwlan_loop._Loop``) that
the figures read. The originator learns of the replies from its indications, read
after the run: a reply's round trip is taken to its end on air at the originator
(``t_end``) rather than to the moment the application read it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .. import _core
from .rtwlan_loop import _parse, _payload, _Send
from .rtwlan_params import BROADCAST, RATE
from .rtwlan_timing import SlotPlan

#: How long before its window a station stops blocking and polls (µs).
LEAD_US = 300.0
#: How late after its window opens a station may still hand its frame over (µs); the
#: slot holds it beside the two guards.
SLACK_US = 50.0
#: SCHED_FIFO priority of the station threads, when the process may use it.
RT_PRIORITY = 10


@dataclass
class TdmaBooks:
    """What the Rust stations did, in the loop's shape."""

    requests: dict[int, _Send] = field(default_factory=dict)
    replies: list[dict[int, _Send]] = field(default_factory=list)
    copies_sent: list[int] = field(default_factory=list)
    heard: list[set[int]] = field(default_factory=list)
    received: list[dict[int, int]] = field(default_factory=list)
    late_us: dict[int, float] = field(default_factory=dict)
    stalls: list[int] = field(default_factory=list)
    lengths: set[int] = field(default_factory=set)
    collisions: int = 0
    realtime: bool = False


@contextmanager
def realtime(on: bool) -> Iterator[bool]:
    """Runs the calling thread under SCHED_FIFO at RT_PRIORITY while in the block, where
    `on` and the process may; yields whether it does."""
    raised = on and _realtime()
    try:
        yield raised
    finally:
        if raised:
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))


def session(
    scenario: str, names: Sequence[str], seed: int, realtime: bool, name: str = "rtwlan", clock: str = "wall"
) -> _core.Session:
    """The run's emu session on `clock` ("wall" or "virtual"); with `realtime`, where the
    process may use SCHED_FIFO, its device thread runs 10 levels above the stations (it
    inherits the policy of the thread that opens the session), so that their polling
    never holds the medium up."""
    raised = False
    if realtime:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(RT_PRIORITY + 10))
            raised = True
        except (PermissionError, OSError):
            pass
    try:
        return _core.Session.from_scenario(scenario, names, name=name, seed=seed, clock=clock)
    finally:
        if raised:
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))


def _realtime() -> bool:
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(RT_PRIORITY))
    except (PermissionError, OSError):
        return False
    return True


def _send(rec: dict[str, Any]) -> _Send:
    if rec["status"] is None:
        return _Send(rec["number"], "stalled", "its window passed before it could be handed over", {})
    return _Send(rec["number"], rec["status"], None, rec["timestamps"])


def run(
    ifaces: Sequence[_core.Interface],
    packets: int,
    plan: SlotPlan,
    start_ns: int,
    exchange_us: float,
    session: _core.Session | None = None,
) -> TdmaBooks:
    """Runs the originator (`ifaces[0]`) and the hosts on `plan` from `start_ns`, for
    `packets` rounds; returns the books. With the `session` of a virtual clock the
    stations run at normal priority (the host cannot delay anything), and each station's
    interface takes no part in time once its run is over, so that the others' runs go
    on."""
    virtual = session is not None and session.clock == "virtual"
    spacing = plan.spacing_us
    end = start_ns + int(round(packets * spacing * 1000))
    g = plan.guard_us
    orig, hosts = ifaces[0], list(ifaces[1:])
    results: list[dict[str, Any] | None] = [None] * len(ifaces)
    errors: list[BaseException] = []
    rt: list[bool] = []

    def window(slot: int) -> dict[str, float]:
        o = plan.slot_start_us(slot)
        return {"open_us": o + g, "close_us": o + plan.slot_us - g}

    def body(k: int) -> None:
        try:
            rt.append(False if virtual else _realtime())
            common: dict[str, Any] = {
                "dst": BROADCAST,
                "no_ack": True,
                "rate": RATE,
                "tries": 1,
                "epoch_ns": start_ns,
                "round_us": spacing,
                "exchange_us": exchange_us,
                "end_ns": end,
                "lead_us": LEAD_US,
                "number_at": 0,
                **window(k),
            }
            if k == 0:
                results[0] = _core.tdma_periodic(
                    orig, period_us=spacing, first_ns=start_ns, deadline_us=plan.slot_us,
                    payload=_payload(0, 0), **common,
                )
            else:
                results[k] = _core.tdma_periodic(
                    hosts[k - 1], heard_from=orig.address, tag_at=4, tag=k, deadline_us=spacing, **common,
                )
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            errors.append(e)
        finally:
            if virtual:
                assert session is not None
                session.take_no_part(ifaces[k].name)

    threads = [threading.Thread(target=body, args=(k,), name=f"rtwlan-tdma-{k}") for k in range(len(ifaces))]
    # The starting thread too, while it starts and joins them: preempted while it holds
    # the GIL, it would hold the stations up on their way into Rust.
    raised = False if virtual else _realtime()
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        if raised:
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    if errors:
        raise errors[0]
    books = TdmaBooks(realtime=bool(rt) and all(rt))
    req = results[0]
    assert req is not None
    for rec in req["frames"]:
        books.requests[rec["number"]] = _send(rec)
        if rec["t1_ns"] is not None:
            books.late_us[rec["number"]] = rec["lag_ns"] / 1000.0
    books.stalls.append(sum(1 for rec in req["frames"] if rec["status"] is None))
    books.collisions += req["collisions"]
    for k in range(len(hosts)):
        r = results[k + 1]
        assert r is not None
        book = {rec["number"]: _send(rec) for rec in r["frames"]}
        books.replies.append(book)
        books.heard.append({rec["number"] for rec in r["frames"]})
        books.copies_sent.append(r["sent"])
        books.stalls.append(sum(1 for rec in r["frames"] if rec["status"] is None))
        books.collisions += r["collisions"]
        books.received.append({})
    while (ind := orig.data_ind(timeout=0)) is not None:
        parsed = _parse(ind.payload)
        if parsed is not None and 1 <= parsed[1] <= len(hosts):
            books.received[parsed[1] - 1].setdefault(parsed[0], ind.t_end)
    return books
