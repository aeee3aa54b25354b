"""The RT-WLAN experiment's event loop: the originator and the hosts served on their
eventfds, sending on the schedule of the chosen mode and booking every confirmation.
"""

from __future__ import annotations

import heapq
import math
import select
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import _core
from .rtwlan_params import _COPY_SHIFT, BROADCAST, DRAIN_IDLE_S, DRAIN_MAX_S, PAYLOAD_OCTETS, RATE, ProgressFn


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
