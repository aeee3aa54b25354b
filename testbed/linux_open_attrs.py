"""The adapter attributes of a backend opened by name (run in the guest by
testbed/linux_open.sh): prints one JSON object, each attribute's value or the error
it raised (`ErrorClass: message`)."""

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
out = {n: attempt(lambda n=n: iface.get(n)) for n in ("address", "bssid", "frequency", "channel", "tx_power", "retry_limit")}
out["set tx_power"] = attempt(lambda: iface.set("tx_power", 10.0))
out["set default_rates"] = attempt(lambda: iface.set("default_rates", "24x1"))
out["set default_rates mcs0"] = attempt(lambda: iface.set("default_rates", "mcs0x1"))
out["aifsn"] = attempt(lambda: iface.get("aifsn", ac="BE"))
out["set ack_timeout"] = attempt(lambda: iface.set("ack_timeout", 50.0))
print(json.dumps(out))
