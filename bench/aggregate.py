"""The aggregate goodput of N iperf3 pairs that can be true: the bytes received in
the window in which every pair sends, divided by that window, and Jain's fairness
index over the pairs' rates in it.

Summing each pair's own average over-counts when the pairs' transfers do not overlap
fully (a pair that ran alone for a while got the whole channel then): ten pairs on
one 54 Mb/s channel once summed to 60.7 Mb/s. Here every pair's received bytes are
taken from iperf3's per-interval JSON (the server's intervals, which count bytes
received, when the client ran with --get-server-output and the server with -J;
otherwise the client's), placed on the guest's clock by the client's span (when it
was let go and when it ended), and only the part inside the common window counts.

A client's test starts some time after it was let go (connecting) and ends some time
before it exits (the results exchange); neither part is known alone, only their sum,
the slack: span - test duration. So each pair surely sends from
`span_end - duration` to `span_start + duration`, and the common window is the
intersection of those ranges over the pairs. Intervals are placed with the test's
start halfway through its possible range; `slack_s` (the largest slack) bounds how
far off that can be. Pure functions: bench/mediumd.py feeds them the files.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

Interval = Tuple[float, float, int]  # start s, end s (from the test's start), bytes


def intervals_of(client: Dict[str, Any]) -> List[Interval]:
    """A pair's per-interval byte counts from its client's iperf3 JSON: the server's
    (received) when present, else the client's (sent)."""
    src = client.get("server_output_json") or client
    out: List[Interval] = []
    for it in src.get("intervals", []):
        s = it.get("sum") or {}
        if s.get("omitted"):
            continue
        try:
            out.append((float(s["start"]), float(s["end"]), int(s["bytes"])))
        except (KeyError, TypeError, ValueError):
            continue
    return out


def sure_range(span: Tuple[float, float], duration: float) -> Tuple[float, float]:
    """Where a pair surely sends on the guest's clock: from the latest its test can
    have started to the earliest it can have ended."""
    s, e = span
    return e - duration, s + duration


def common_window(spans: Sequence[Tuple[float, float]], durations: Sequence[float]) -> Optional[Tuple[float, float]]:
    """The window in which every pair surely sends, or None when there is none."""
    if not spans or len(spans) != len(durations):
        return None
    ranges = [sure_range(sp, d) for sp, d in zip(spans, durations)]
    w0, w1 = max(r[0] for r in ranges), min(r[1] for r in ranges)
    return (w0, w1) if w1 > w0 else None


def bytes_in(intervals: Sequence[Interval], anchor: float, w0: float, w1: float) -> float:
    """The bytes of `intervals` (placed from `anchor`, the test's start on the window's
    clock) inside [w0, w1], each interval's bytes spread evenly over it."""
    total = 0.0
    for s, e, b in intervals:
        a, z = anchor + s, anchor + e
        if z <= a:
            continue
        overlap = min(z, w1) - max(a, w0)
        if overlap > 0:
            total += b * overlap / (z - a)
    return total


def jain(rates: Sequence[float]) -> float:
    """Jain's fairness index: (sum x)^2 / (n sum x^2); 1 when all are equal, 1/n when one
    pair has everything; 0 when nothing got through."""
    sq = sum(x * x for x in rates)
    return (sum(rates) ** 2) / (len(rates) * sq) if rates and sq > 0 else 0.0


def aggregate(clients: Sequence[Optional[Dict[str, Any]]], spans: Sequence[Optional[Tuple[float, float]]]) -> Dict[str, Any]:
    """Aggregate goodput (Mb/s) over the window in which every pair sends, the pairs'
    rates in it and Jain's index over them. A pair without results or span leaves no
    window (its absence is reported, not hidden): `{"window_s": None, ...}`."""
    n = len(clients)
    res: Dict[str, Any] = {"window_s": None, "aggregate_mbps": None, "jain_window": None, "pair_mbps_window": None, "slack_s": None}
    if n == 0 or any(c is None for c in clients) or any(s is None for s in spans):
        return res
    ivs = [intervals_of(c) for c in clients]  # type: ignore[arg-type]
    if any(not iv for iv in ivs):
        return res
    durations = [max(e for _, e, _ in iv) for iv in ivs]
    sp = [s for s in spans if s is not None]
    slack = [max(0.0, (e - s) - d) for (s, e), d in zip(sp, durations)]
    res["slack_s"] = max(slack)
    w = common_window(sp, durations)
    if w is None:
        return res
    w0, w1 = w
    per = []
    for iv, (s, _), sl in zip(ivs, sp, slack):
        per.append(8 * bytes_in(iv, s + sl / 2, w0, w1) / (w1 - w0) / 1e6)
    res.update(window_s=w1 - w0, aggregate_mbps=sum(per), jain_window=jain(per), pair_mbps_window=per)
    return res
