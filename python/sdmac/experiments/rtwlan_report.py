"""Tables and plots of the RT-WLAN experiment's results (:mod:`sdmac.experiments.rtwlan`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from .rtwlan import HOSTS, SEND_QUANTITIES


def _us(v: Any) -> str:
    return "–" if v is None else f"{v:.0f}"


def _share(v: Any) -> str:
    return "–" if v is None else f"{100 * v:.1f} %"


def run_title(result: Mapping[str, Any]) -> str:
    """`20 ms spacing, 1 replier, 1000 packets, dcf`."""
    p = result["params"]
    r = p["repliers"]
    return f"{p['spacing_ms']:g} ms spacing, {r} replier{'s' if r > 1 else ''}, {p['packets']} packets, {p['mode']}"


def bounds_verdict(result: Mapping[str, Any]) -> list[str]:
    """The computed first-attempt bounds and whether the measured on-air latency lies within."""
    b = result["bounds"]
    lo, med, hi = (result.get(k) for k in ("request_onair_min_us", "request_onair_p50_us", "request_onair_max_us"))
    lines = [
        f"first-attempt on-air bounds from the formulas: airtime {b['airtime_us']:.0f} µs (74 octets, 2 Mb/s, long "
        f"preamble), DIFS {b['difs_us']:.0f} µs, backoff 0…{b['cw_min']:.0f} × {b['slot_us']:.0f} µs",
        f"  RT-WLAN (DIFS + backoff always): {b['rtwlan_lo_us']:.0f}–{b['rtwlan_hi_us']:.0f} µs",
        f"  with immediate access on a medium idle for DIFS (§10.3.4.2): "
        f"{b['standard_lo_us']:.0f}–{b['standard_hi_us']:.0f} µs",
    ]
    if med is None:
        lines.append("  no request was sent: nothing to compare")
        return lines

    def within(a: str, z: str) -> str:
        return "within" if b[a] <= med <= b[z] else "outside"

    lines += [
        f"  measured on air (requests, t5−t4): min {_us(lo)}, median {_us(med)}, max {_us(hi)} µs",
        f"  the median is {within('rtwlan_lo_us', 'rtwlan_hi_us')} RT-WLAN's bounds "
        f"({_share(result['onair_within_rtwlan_share'])} of requests are) and "
        f"{within('standard_lo_us', 'standard_hi_us')} the immediate-access bounds "
        f"({_share(result['onair_within_standard_share'])} are)",
        f"  requests sent up to {_us(result.get('request_late_max_us'))} µs after their due time: those sent "
        "more than a spacing late leave in a burst and queue behind each other",
    ]
    return lines


def replies_gap(result: Mapping[str, Any]) -> list[str]:
    """With two repliers: how far apart the two replies reached their queues."""
    if result.get("replies_queue_gap_p50_us") is None:
        return []
    return [
        f"two replies to one request reached their queues {_us(result['replies_queue_gap_p50_us'])} µs apart "
        f"(median, p95 {_us(result['replies_queue_gap_p95_us'])} µs); {_share(result['replies_within_slot_share'])} "
        f"of rounds within one slot ({result['bounds']['slot_us']:.0f} µs), where radios cannot sense each other"
    ]


def mode_lines(result: Mapping[str, Any]) -> list[str]:
    """What the mode did: the policy's schedule, or TDMA's plan with its guard and the stalls."""
    p = result["params"]
    t = result.get("timing")
    lines: list[str] = []
    if t is not None:
        lines.append(
            f"timing measured before the run: request-path jitter {t['jitter_us']:.1f} µs (the loop's due time → "
            f"start on air: min {t['path_min_us']:.1f}, p90 {t['path_q_us']:.1f}; the API's alone, t_start − t1: "
            f"{t['api_jitter_us']:.1f}) + synchronisation error {t['sync_error_us']:.1f} µs (emu: one clock) "
            f"= guard {t['guard_us']:.1f} µs"
        )
        if p["mode"] == "tdma" and "tdma_guard_us" in t:
            lines.append(
                f"TDMA's stations run in Rust and hand over as their windows open: their guard is the API's "
                f"request-path jitter {t['api_jitter_us']:.1f} µs + synchronisation error "
                f"{t['sync_error_us']:.1f} µs = guard {t['tdma_guard_us']:.1f} µs"
            )
    if p["mode"] == "policy" and "policy_step_us" in result:
        lines.append(
            f"policy: host k waits k × {result['policy_step_us']:.0f} µs (airtime + DIFS + the margin: the guard "
            f"above, capped so that the first copies fit the spacing) after the request ended, then sends "
            f"{result['policy_copies']} cop{'y' if result['policy_copies'] == 1 else 'ies'} of its reply, "
            f"{p['repliers']} step{'s' if p['repliers'] > 1 else ''} apart"
        )
    plan = result.get("plan")
    if plan is not None:
        lines.append(
            f"TDMA plan: round {plan['round_us']:.0f} µs = the spacing; {plan['slots']:.0f} slots of "
            f"{plan['slot_us']:.0f} µs (DIFS + airtime + 2 × guard {plan['guard_us']:.1f} µs + hand-over slack "
            f"{plan.get('handover_us', 0.0):.0f} µs), the request's first, "
            f"the replies' last; post-backoff {plan['post_backoff_us']:.0f} µs; needs {plan['needed_us']:.0f} µs: "
            + ("fits" if plan["fits"] else "does not fit")
        )
    if result.get("refused"):
        lines.append(f"refused before anything was sent: {result['refused']}")
    elif plan is not None:
        stalls = [f"{who} {result[f'{key}_stalls']}" for who, key in
                  [("requests", "request"), *((h, f"{h}_reply") for h in HOSTS)] if f"{key}_stalls" in result]
        outside = [f"{who} {result[f'{key}_outside_slot']}" for who, key in
                   [("requests", "request"), *((h, f"{h}_reply") for h in HOSTS)] if f"{key}_outside_slot" in result]
        lines.append(f"  stalls (sends skipped: the station came too late for its window): {', '.join(stalls)}")
        if "tdma_collisions" in result:
            lines.append(f"  attempts lost to collisions (the medium's truth): {result['tdma_collisions']}")
        lines.append(f"  frames on air outside their slot (a stall after the hand-over): {', '.join(outside)}")
    return lines


def run_table(result: Mapping[str, Any]) -> Table:
    """One run: each quantity at p50 / p95 (µs) for the requests and each host's replies, and the drops."""
    hosts = [h for h in HOSTS if f"{h}_drop_share" in result]
    t = Table(title=run_title(result), box=box.SIMPLE_HEAD, title_justify="left")
    t.add_column("quantity")
    t.add_column("planes")
    for who in ["requests", *(f"{h} replies" for h in hosts)]:
        t.add_column(f"{who} p50", justify="right")
        t.add_column("p95", justify="right")
    late = ["sent late", "t1 − due time", _us(result.get("request_late_p50_us")), _us(result.get("request_late_p95_us"))]
    t.add_row(*(late + ["", ""] * len(hosts)))
    for name, label, planes in SEND_QUANTITIES:
        row = [label, planes]
        for prefix in ["request", *(f"{h}_reply" for h in hosts)]:
            row += [_us(result.get(f"{prefix}_{name}_p50_us")), _us(result.get(f"{prefix}_{name}_p95_us"))]
        t.add_row(*row)
    turn = ["host turnaround", "reply t4 − request t5", "", ""]
    for h in hosts:
        turn += [_us(result.get(f"{h}_turnaround_p50_us")), _us(result.get(f"{h}_turnaround_p95_us"))]
    t.add_row(*turn)
    rtt = ["RTT at the originator", "t_ret−t1", "", ""]
    for h in hosts:
        rtt += [_us(result.get(f"{h}_rtt_p50_us")), _us(result.get(f"{h}_rtt_p95_us"))]
    t.add_row(*rtt)
    drop = ["dropped", "not sent / not received", _share(result["request_drop_share"]), ""]
    for h in hosts:
        drop += [_share(result[f"{h}_drop_share"]), ""]
    t.add_row(*drop)
    lost = ["  request not heard", "", "", ""]
    for h in hosts:
        lost += [_share(result[f"{h}_request_lost_share"]), ""]
    t.add_row(*lost)
    lost = ["  reply lost", "", "", ""]
    for h in hosts:
        lost += [_share(result[f"{h}_reply_lost_share"]), ""]
    t.add_row(*lost)
    if "request_stalls" in result:
        row = ["  TDMA stalls", "sends skipped", str(result["request_stalls"]), ""]
        for h in hosts:
            row += [str(result[f"{h}_reply_stalls"]), ""]
        t.add_row(*row)
    if result["params"]["mode"] == "policy":
        row = ["copies sent", "policy", "", ""]
        for h in hosts:
            row += [str(result[f"{h}_copies_sent"]), ""]
        t.add_row(*row)
    return t


def _stalls(result: Mapping[str, Any]) -> str:
    """All TDMA stalls of a run (requests and replies), or – outside TDMA."""
    keys = [k for k in result if k.endswith("_stalls")]
    return str(sum(result[k] for k in keys)) if keys else "–"


def summary_table(results: Sequence[Mapping[str, Any]]) -> Table:
    """All runs: medians, drops, TDMA's stalls and the bounds verdict, one row per run
    (a run refused before sending shows so)."""
    t = Table(title="RT-WLAN experiment on emu: summary (µs, medians; drops as shares of the packets)",
              box=box.SIMPLE_HEAD, title_justify="left")
    for col in ("mode", "repl.", "spacing ms", "Tqueued", "on air", "send", "RTT h1", "RTT h2",
                "req. drop", "h1 drop", "h2 drop", "TDMA stalls", "in RT-WLAN bnds", "in imm. bnds"):
        t.add_column(col, justify="right")
    for r in results:
        p = r["params"]
        if r.get("refused"):
            t.add_row(p["mode"], str(p["repliers"]), f"{p['spacing_ms']:g}", *(["–"] * 5),
                      "refused", "refused", "refused" if p["repliers"] == 2 else "–", "–", "–", "–")
            continue
        t.add_row(
            p["mode"], str(p["repliers"]), f"{p['spacing_ms']:g}",
            _us(r.get("request_tqueued_p50_us")), _us(r.get("request_onair_p50_us")), _us(r.get("request_send_p50_us")),
            _us(r.get("host1_rtt_p50_us")), _us(r.get("host2_rtt_p50_us")),
            _share(r["request_drop_share"]), _share(r.get("host1_drop_share")), _share(r.get("host2_drop_share")),
            _stalls(r), _share(r["onair_within_rtwlan_share"]), _share(r["onair_within_standard_share"]),
        )
    return t


def refusals(results: Sequence[Mapping[str, Any]]) -> list[str]:
    """The runs refused before sending, each with its reason."""
    return [f"{run_title(r)}: {r['refused']}" for r in results if r.get("refused")]


def print_run(result: Mapping[str, Any], console: Console) -> None:
    """The run's table, the bounds verdict and what the mode did (or why it was refused)."""
    if result.get("refused"):
        console.print(run_title(result))
        for line in mode_lines(result):
            console.print(line)
        console.print()
        return
    console.print(run_table(result))
    for line in bounds_verdict(result) + replies_gap(result) + mode_lines(result):
        console.print(line)
    console.print()


def _ccdf(xs: Sequence[float]) -> tuple[list[float], list[float]]:
    s = sorted(xs)
    n = len(s)
    return s, [1.0 - i / n for i in range(n)]


def plot_run(result: Mapping[str, Any], path: Path) -> None:
    """Saves as PNG the CCDFs of the requests' latencies (with the on-air bounds) and of
    the RTT through each host. Drawn on matplotlib's Agg canvas (no pyplot, no display)."""
    from matplotlib.figure import Figure  # imported here: the experiment itself does not need it

    samples = result["samples"]
    b = result["bounds"]
    fig = Figure(figsize=(11, 4.5), layout="constrained")
    ax_send, ax_rtt = fig.subplots(1, 2)
    for name, label, planes in SEND_QUANTITIES:
        xs = [x for x in samples.get(f"request_{name}_us", []) if x > 0]
        if xs:
            ax_send.step(*_ccdf(xs), where="post", label=f"{label} ({planes})")
    ax_send.axvspan(b["rtwlan_lo_us"], b["rtwlan_hi_us"], alpha=0.1, color="grey", label="RT-WLAN's bounds")
    ax_send.axvline(b["standard_lo_us"], color="grey", linestyle="--", linewidth=0.8,
                    label="airtime (immediate access)")
    ax_send.set_title("requests (originator): send latencies; bounds of a first attempt", fontsize=9)
    for h in HOSTS:
        xs = samples.get(f"{h}_rtt_us")
        if xs:
            ax_rtt.step(*_ccdf(xs), where="post", label=f"RTT via {h}")
    ax_rtt.set_title("round trip at the originator (t_returned − t1)", fontsize=9)
    for ax in (ax_send, ax_rtt):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("µs")
        ax.set_ylabel("P(X > x)")
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.suptitle(f"RT-WLAN experiment on emu: {run_title(result)}", fontsize=10)
    fig.savefig(path, dpi=110)


def plot_name(result: Mapping[str, Any]) -> str:
    """`rtwlan_dcf_r1_s20ms.png`."""
    p = result["params"]
    return f"rtwlan_{p['mode']}_r{p['repliers']}_s{p['spacing_ms']:g}ms.png"
