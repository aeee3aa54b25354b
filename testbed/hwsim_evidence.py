"""Confirmed transmissions through hwsim:IFACE, each confirmation set against the
medium daemon's own truth records of the same frame (run in the guest by
testbed/hwsim_evidence.sh).

    python3 hwsim_evidence.py BACKEND SOCKET COUNT RATES [DST]

Subscribes to the daemon's truth stream itself (docs/mediumd.md) for the
interface's address, then sends COUNT requests one at a time (50 B, rate series
RATES, e.g. "54x1" or "54x2,24x2") to DST (default: the interface's BSSID). The
backend sends a multi-entry series as one frame per entry with one sequence number
and the daemon makes one record per frame, so the records of request i are those
with its sequence number, in order. Prints one JSON object: the confirmations'
statuses, sets, causes, attempts and rates used, the attempts and rates the
daemon's records say, and the requests where confirmation and records disagree."""

import json
import re
import sys
import time
from collections import Counter

import sdmac
from truth_stream import CAUSES, OUTCOMES, TruthStream

backend, sock_path, count, rates = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

iface = sdmac.open(backend)
me = iface.get("address")
dst = sys.argv[5] if len(sys.argv) > 5 else iface.get("bssid")

truth = TruthStream(sock_path, me)
records = truth.records


def mbps(name):
    """A rate's name ("54", "54 Mb/s", ...) as Mb/s."""
    return float(re.search(r"[0-9.]+", str(name)).group(0))


cons = []
for i in range(1, count + 1):
    iface.data_req(i, b"\x5a" * 50, dst=dst, rates=rates)
    c = iface.data_con(timeout=10.0)
    if c is None:
        sys.exit(f"error: no confirmation for request {i} within 10 s")
    ts = c.timestamps
    cons.append({"id": c.id, "status": c.status, "set": c.set, "cause": c.cause, "attempts": c.attempts,
                 "rates": [[mbps(r), n] for r, n in c.rates], "t_start": ts["t_start"], "t5": ts["t5"]})
time.sleep(1.0)

# The records of our frames, grouped by sequence number in the order they came.
groups = []
for r in (r for r in records if r["ta"] == me):
    if groups and groups[-1][0]["seq"] == r["seq"]:
        groups[-1].append(r)
    else:
        groups.append([r])

mismatch = []
truth_rates = Counter()
for k, c in enumerate(cons):
    g = groups[k] if k < len(groups) else []
    # Attempts per rate as the daemon's records say (rate in Mb/s, entries with attempts).
    rec_rates = [[kbps / 1000, att] for r in g for kbps, att in r["entries"] if att > 0]
    truth_rates[json.dumps(rec_rates)] += 1
    last = g[-1] if g else None
    ok = (last is not None and c["cause"] is not None and c["set"] == OUTCOMES[last["outcome"]]
          and c["cause"] == (CAUSES[last["cause"]] if last["cause"] < len(CAUSES) else None)
          and c["t_start"] == g[0]["t_first"] and c["t5"] == last["t_end"]
          and c["rates"] == rec_rates and c["attempts"] == sum(a for _, a in rec_rates))
    if not ok:
        mismatch.append({"k": k, "con": c, "rec": g})


def tally(key):
    return {str(k): v for k, v in Counter(json.dumps(c[key]) if isinstance(c[key], list) else c[key] for c in cons).items()}


out = {
    "count": len(cons),
    "dst": dst,
    "ids_in_order": [c["id"] for c in cons] == list(range(1, count + 1)),
    "status": tally("status"),
    "set": tally("set"),
    "cause": tally("cause"),
    "attempts": tally("attempts"),
    "rates": tally("rates"),
    "truth_rates": dict(truth_rates),
    "no_truth": sum(1 for c in cons if c["cause"] is None),
    "frames": len(groups),
    "records_lost": truth.lost,
    "mismatch": len(mismatch),
    "mismatch_first": mismatch[:3],
    "truth_joined": iface.get("stats")["truth_joined"],
}
print(json.dumps(out))
