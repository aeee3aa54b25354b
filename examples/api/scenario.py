"""Session.from_scenario: the API on a medium described by a TOML scenario (the
format `sdmac sim` reads), here an AP, a non-QoS station and a QoS station; each
interface is a station picked by name. The QoS station sends on AC_VO.

Expect: qnode -> ap on VO: acked
"""

from sdmac.emu import Session

SCENARIO = """
name = "api example"
duration = 1.0
[phy]
standard = "802.11a"
rate = 54
[[station]]
name = "ap"
address = "02:00:00:00:00:01"
position = [0, 0]
ap = true
[[station]]
name = "node"
address = "02:00:00:00:00:07"
position = [3, 0]
[[station]]
name = "qnode"
address = "02:00:00:00:00:08"
position = [0, 3]
qos = true
"""

with Session.from_scenario(SCENARIO, interfaces=["ap", "node", "qnode"]) as s:
    print(f"interfaces: {s.names()}")
    ap, node, q = (s.interface(n) for n in ("ap", "node", "qnode"))
    print("qnode EDCA: " + ", ".join(f"{ac}: aifsn={q.get('aifsn', ac=ac)} cw_min={q.get('cw_min', ac=ac)}"
                                      for ac in ("BK", "BE", "VI", "VO")))
    for iface, ac in ((node, "BE"), (q, "VO")):
        iface.data_req(1, f"from {iface.name}".encode(), ac=ac, rates="54x3")
        c = iface.data_con(timeout=2.0)
        i = ap.data_ind(timeout=2.0)
        assert c is not None and c.status == "acked" and i is not None, (c, i)
        assert i.src == iface.address and i.ac == ac
        print(f"{iface.name} -> ap on {i.ac}: {c.status} ({i.payload!r}, frame control {i.frame[:2].hex()})")
try:
    Session.from_scenario(SCENARIO, interfaces=["ghost"])
except ValueError as e:
    print(f"unknown station: {e}")
else:
    raise AssertionError("no error for an unknown station")
