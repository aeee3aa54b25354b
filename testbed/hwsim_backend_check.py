"""Confirmed one-shots through a backend opened by name, each confirmation set
against the medium daemon's own truth record of the same frame (run in the guest by
testbed/hwsim_backend.sh).

    python3 hwsim_backend_check.py BACKEND SOCKET COUNT [KILL_PID KILL_AT]

Besides the backend's own connection, this script subscribes to the daemon's truth
stream itself (sdmac's extension of the control socket, docs/mediumd.md) for the
interface's address, and keeps every record in the order the daemon sent them. The
one-shots go one at a time (one frame each, one try), so confirmation i and record i
are the same frame. With KILL_PID, the daemon is killed (SIGKILL) after KILL_AT
confirmations. Prints one JSON object: the confirmations' statuses, truth sets and
causes, attempts, and the frames where confirmation and record disagree."""

import json
import os
import signal
import sys
import time

import sdmac
from truth_stream import OUTCOMES, TruthStream

backend, sock_path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
kill_pid = int(sys.argv[4]) if len(sys.argv) > 5 else None
kill_at = int(sys.argv[5]) if len(sys.argv) > 5 else None

iface = sdmac.open(backend)
me = iface.get("address")
dst = iface.get("bssid")

truth = TruthStream(sock_path, me)
records = truth.records

cons = []
for i in range(1, count + 1):
    if kill_pid is not None and i == kill_at + 1:
        os.kill(kill_pid, signal.SIGKILL)
    iface.data_req(i, b"\x5a" * 50, dst=dst, rates="54x1")
    c = iface.data_con(timeout=10.0)
    if c is None:
        sys.exit(f"error: no confirmation for request {i} within 10 s")
    ts = c.timestamps
    cons.append({"id": c.id, "status": c.status, "set": c.set, "cause": c.cause, "attempts": c.attempts,
                 "t_start": ts["t_start"], "t5": ts["t5"]})
time.sleep(1.0)

stats = iface.get("stats")
ours = [r for r in records if r["ta"] == me]
mismatch = []
if kill_pid is None:
    for k, c in enumerate(cons):
        r = ours[k] if k < len(ours) else None
        if r is None or c["cause"] is None or c["set"] != OUTCOMES[r["outcome"]] or c["t5"] != r["t_end"] or c["t_start"] != r["t_first"]:
            mismatch.append({"k": k, "con": c, "rec": r})
after_kill = cons[kill_at:] if kill_at is not None else []
out = {
    "count": len(cons),
    "ids_in_order": [c["id"] for c in cons] == list(range(1, count + 1)),
    "status": {st: sum(1 for c in cons if c["status"] == st) for st in {c["status"] for c in cons}},
    "set": {st: sum(1 for c in cons if c["set"] == st) for st in {c["set"] for c in cons}},
    "cause": {str(k): sum(1 for c in cons if c["cause"] == k) for k in {c["cause"] for c in cons}},
    "attempts": {str(k): sum(1 for c in cons if c["attempts"] == k) for k in {c["attempts"] for c in cons}},
    "no_truth": sum(1 for c in cons if c["cause"] is None),
    "records": len(ours),
    "mismatch": len(mismatch),
    "mismatch_first": mismatch[:3],
    "truth_after_kill": sum(1 for c in after_kill if c["cause"] is not None),
    "stats": {k: (v if isinstance(v, (int, bool, float, str)) else str(v)) for k, v in dict(stats).items()},
}
print(json.dumps(out))
