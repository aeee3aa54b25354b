"""set/get of hwsim:IFACE that go through the medium daemon (run in the guest by
testbed/hwsim_backend.sh): prints one JSON object, each value read or the error
raised (`ErrorClass: message`)."""

import json
import sys

import sdmac


def attempt(f):
    try:
        v = f()
        return "ok" if v is None else str(v)
    except Exception as e:  # noqa: BLE001  (the error is what is reported)
        return f"{type(e).__name__}: {e}"


iface = sdmac.open(sys.argv[1])
out = {}
for ac in ("BE", "VO"):
    for n in ("aifsn", "cw_min", "cw_max", "txop_limit"):
        out[f"{n} {ac}"] = attempt(lambda n=n, ac=ac: iface.get(n, ac=ac))
out["set aifsn VI 5"] = attempt(lambda: iface.set("aifsn", 5, ac="VI"))
out["set cw_max VI 255"] = attempt(lambda: iface.set("cw_max", 255, ac="VI"))
out["set cw_min VI 31"] = attempt(lambda: iface.set("cw_min", 31, ac="VI"))
out["set txop_limit VI 1504"] = attempt(lambda: iface.set("txop_limit", 1504.0, ac="VI"))
for n in ("aifsn", "cw_min", "cw_max", "txop_limit"):
    out[f"{n} VI after"] = attempt(lambda n=n: iface.get(n, ac="VI"))
out["set cw_min VI 20"] = attempt(lambda: iface.set("cw_min", 20, ac="VI"))
out["set ack_timeout 80"] = attempt(lambda: iface.set("ack_timeout", 80.0))
out["ack_timeout after"] = attempt(lambda: iface.get("ack_timeout"))
out["tx_power"] = attempt(lambda: iface.get("tx_power"))
out["frequency"] = attempt(lambda: iface.get("frequency"))
out["retry_limit"] = attempt(lambda: iface.get("retry_limit"))
out["truth_available"] = attempt(lambda: iface.get("stats")["truth_available"])
print(json.dumps(out))
