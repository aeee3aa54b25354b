#!/usr/bin/python3
"""Small Mininet-WiFi topologies run through the medium daemon Mininet-WiFi finds on the
PATH as `wmediumd` (tests/test_vm_mininet_wifi.py, bench/mininet_wifi.py). Runs as root
in the UML guest (testbed/mininet_wifi/guest.sh sets the PATH and PYTHONPATH).

    scenario.py NAME [--iperf SECONDS] [--pings N]

NAME is one of:
  interference  an AP and two stations, interference mode (log-distance model); the
                stations have addresses of their own (00:00:00:00:00:0N, not their
                radios'), as Mininet-WiFi's examples give them; sta2 is moved out of
                range and back
  error_prob    an AP and three stations (own addresses, as above), error-probability
                mode: sta1 and sta2 at 0, sta3 at 1.0; at run time the sta2-AP link
                goes to 1.0 and back to 0
  adhoc         three ad-hoc stations, interference mode; sta3 moved out and back,
                sta2's tx power lowered and restored
  mesh          three 802.11s mesh stations, interference mode; the same controls

Every result is one line `MNWIFI <json>` on stdout:
  {"kind": "assoc", "sta", "connected", "link"}          `iw dev X link`
  {"kind": "ping", "phase", "src", "dst", "sent", "received", "rtts_ms"}
  {"kind": "iperf", "phase", "src", "dst", "bps"}        (with --iperf)
  {"kind": "control", "what"}                            a run-time request made
  {"kind": "done"}
The test and the benchmark judge them; this script only measures.
"""
import argparse
import json
import os
import re
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "compat"))

import mininet.util  # noqa: E402

if not hasattr(mininet.util, "fmtBps"):
    # Mininet-WiFi imports fmtBps (Mininet 2.3.1); Debian's Mininet 2.3.0 lacks it.
    def _fmt_bps(bps, fmt=None):
        return "%.1f Mbits/sec" % (float(bps) / 1e6)
    mininet.util.fmtBps = _fmt_bps

from mininet.log import setLogLevel  # noqa: E402
from mn_wifi.link import adhoc, mesh, wmediumd  # noqa: E402
from mn_wifi.module import Mac80211Hwsim  # noqa: E402
from mn_wifi.net import Mininet_wifi  # noqa: E402
from mn_wifi.node import AP  # noqa: E402
from mn_wifi.wmediumdConnector import ERRPROBLink, error_prob, interference, w_cst, w_server  # noqa: E402

_connect = w_server.connect.__func__


def _connect_when_listening(cls, uds_address=w_cst.SOCKET_PATH):
    """Mininet-WiFi connects one second after starting the daemon; a guest on a loaded
    host may need longer to start it. Wait (up to 30 s) for the socket to appear."""
    end = time.time() + 30
    while not os.path.exists(uds_address) and time.time() < end:
        time.sleep(0.2)
    return _connect(cls, uds_address)


w_server.connect = classmethod(_connect_when_listening)


class HostapdAP(AP):
    """An access point that is hostapd on its radio and nothing else: no OpenFlow switch
    (the UML kernel has no Open vSwitch). Stations of one AP still reach each other:
    hostapd forwards within the BSS."""

    def start(self, controllers):
        pass

    def stop(self, deleteIntfs=True):
        pass


PING = ["ping"] if shutil.which("ping") else ["busybox", "ping"]


T0 = time.time()


def report(**rec):
    rec["t"] = round(time.time() - T0, 1)
    print("MNWIFI " + json.dumps(rec), flush=True)


def wintf(node):
    return node.params["wlan"][0]


def link_state(sta):
    return sta.cmd("iw dev %s link" % wintf(sta))


def wait_assoc(sta, seconds=30.0):
    """Waits until `iw dev X link` says Connected; reports the last answer."""
    end = time.time() + seconds
    text = link_state(sta)
    while "Connected to" not in text and time.time() < end:
        time.sleep(0.5)
        text = link_state(sta)
    report(kind="assoc", sta=sta.name, connected="Connected to" in text, link=text.strip())
    return "Connected to" in text


def ping(src, dst, count, phase):
    """`count` pings at 0.2 s after two not counted (address resolution)."""
    ip = dst.IP()
    src.cmd(" ".join(PING) + " -c 2 -i 0.2 -W 2 %s" % ip)
    out = src.cmd(" ".join(PING) + " -c %d -i 0.2 -W 2 %s" % (count, ip))
    m = re.search(r"(\d+) packets transmitted, (\d+) (?:packets )?received", out)
    rtts = [float(x) for x in re.findall(r"time=([\d.]+) ms", out)]
    report(kind="ping", phase=phase, src=src.name, dst=dst.name,
           sent=int(m.group(1)) if m else count, received=int(m.group(2)) if m else 0,
           rtts_ms=rtts, raw=None if m else out[-400:])


def iperf(src, dst, seconds, phase):
    dst.cmd("iperf3 -s -1 -D")
    time.sleep(0.5)
    out = src.cmd("iperf3 -c %s -t %d -J" % (dst.IP(), seconds))
    bps = None
    try:
        bps = json.loads(out[out.index("{"):])["end"]["sum_received"]["bits_per_second"]
    except (ValueError, KeyError):
        pass
    report(kind="iperf", phase=phase, src=src.name, dst=dst.name, bps=bps,
           raw=None if bps is not None else out[-400:])


def control(what):
    report(kind="control", what=what)


def settle(seconds=2.0):
    time.sleep(seconds)


def net_of(mode, **kw):
    return Mininet_wifi(controller=None, accessPoint=HostapdAP, link=wmediumd,
                        wmediumd_mode=mode, **kw)


def run_interference(a):
    net = net_of(interference, noise_th=-91)
    ap1 = net.addAccessPoint("ap1", ssid="sdmac-if", mode="g", channel="1", position="50,50,0")
    sta1 = net.addStation("sta1", mac="00:00:00:00:00:02", ip="10.0.0.1/8", position="40,50,0")
    sta2 = net.addStation("sta2", mac="00:00:00:00:00:03", ip="10.0.0.2/8", position="60,50,0")
    net.setPropagationModel(model="logDistance", exp=3)
    net.configureNodes()
    net.build()
    ap1.start([])
    wait_assoc(sta1)
    wait_assoc(sta2)
    ping(sta1, sta2, a.pings, "near")
    if a.iperf:
        iperf(sta1, sta2, a.iperf, "near")
    control("sta2.setPosition 600,50,0")
    sta2.setPosition("600,50,0")
    settle()
    ping(sta1, sta2, a.pings, "sta2 out of range")
    control("sta2.setPosition 60,50,0")
    sta2.setPosition("60,50,0")
    wait_assoc(sta2)
    ping(sta1, sta2, a.pings, "sta2 back")
    return net


def run_error_prob(a):
    net = net_of(error_prob)
    ap1 = net.addAccessPoint("ap1", ssid="sdmac-ep", mode="g", channel="1", position="50,50,0")
    sta1 = net.addStation("sta1", mac="00:00:00:00:00:02", ip="10.0.0.1/8", position="40,50,0")
    sta2 = net.addStation("sta2", mac="00:00:00:00:00:03", ip="10.0.0.2/8", position="60,50,0")
    sta3 = net.addStation("sta3", mac="00:00:00:00:00:04", ip="10.0.0.3/8", position="50,60,0")
    net.configureNodes()
    net.addLink(sta1, ap1, error_prob=0)
    net.addLink(sta2, ap1, error_prob=0)
    net.addLink(sta3, ap1, error_prob=1)
    net.build()
    ap1.start([])
    wait_assoc(sta1)
    wait_assoc(sta2)
    wait_assoc(sta3, seconds=10)
    ping(sta1, sta2, a.pings, "configured 0")
    if a.iperf:
        iperf(sta1, sta2, a.iperf, "configured 0")
    ping(sta1, sta3, a.pings, "configured 1")
    s2, ap = sta2.wintfs[0].wmIface, ap1.wintfs[0].wmIface
    control("error prob sta2<->ap1 1.0")
    w_server.update_link_errprob(ERRPROBLink(s2, ap, 1.0))
    w_server.update_link_errprob(ERRPROBLink(ap, s2, 1.0))
    ping(sta1, sta2, a.pings, "runtime 1")
    control("error prob sta2<->ap1 0.0")
    w_server.update_link_errprob(ERRPROBLink(s2, ap, 0.0))
    w_server.update_link_errprob(ERRPROBLink(ap, s2, 0.0))
    if "Connected to" not in link_state(sta2):
        # mac80211 dropped the association when the beacons stopped; nothing in
        # Mininet-WiFi retries it: ask again, as a user would.
        control("sta2 lost its association: disconnect + setAssociation(ap1)")
        sta2.wintfs[0].disconnect(ap1.wintfs[0])
        sta2.setAssociation(ap1, intf=wintf(sta2))
    wait_assoc(sta2)
    ping(sta1, sta2, a.pings, "runtime 0")
    return net


def run_peers(a, cls, extra):
    """Three stations in a line, 20 m apart, linked ad hoc or in a mesh."""
    net = net_of(interference, noise_th=-91)
    stas = [net.addStation("sta%d" % (k + 1), ip="10.0.0.%d/8" % (k + 1),
                           position="%d,10,0" % (10 + 20 * k)) for k in range(3)]
    net.setPropagationModel(model="logDistance", exp=3)
    net.configureNodes()
    for s in stas:
        net.addLink(s, cls=cls, intf=wintf(s), channel=1, mode="g", **extra)
    net.build()
    sta1, sta2, sta3 = stas
    time.sleep(3)
    ping(sta1, sta2, a.pings, "near")
    ping(sta1, sta3, a.pings, "near")
    if a.iperf:
        iperf(sta1, sta2, a.iperf, "near")
    control("sta3.setPosition 1000,10,0")
    sta3.setPosition("1000,10,0")
    settle()
    ping(sta1, sta3, a.pings, "sta3 out of range")
    control("sta3.setPosition 50,10,0")
    sta3.setPosition("50,10,0")
    settle(3)
    ping(sta1, sta3, a.pings, "sta3 back")
    control("sta2.setTxPower -30")
    sta2.setTxPower(-30, intf=wintf(sta2))
    settle()
    ping(sta1, sta2, a.pings, "sta2 tx power -30 dBm")
    control("sta2.setTxPower 14")
    sta2.setTxPower(14, intf=wintf(sta2))
    settle(3)
    ping(sta1, sta2, a.pings, "sta2 tx power 14 dBm")
    return net


SCENARIOS = {
    "interference": run_interference,
    "error_prob": run_error_prob,
    "adhoc": lambda a: run_peers(a, adhoc, {"ssid": "sdmac-adhoc"}),
    "mesh": lambda a: run_peers(a, mesh, {"ssid": "sdmac-mesh"}),
}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("scenario", choices=sorted(SCENARIOS))
    p.add_argument("--pings", type=int, default=20)
    p.add_argument("--iperf", type=int, default=0, metavar="SECONDS")
    a = p.parse_args()
    setLogLevel(os.environ.get("MNWIFI_LOG", "info"))
    # hwsim is built into the UML kernel: radios come from hwsim_mgmt (NEW_RADIO)
    # rather than from `modprobe mac80211_hwsim radios=N`.
    Mac80211Hwsim.externally_managed = True
    SCENARIOS[a.scenario](a)
    report(kind="done")
    sys.stdout.flush()
    # No net.stop(): the VM powers off after the script; Mininet-WiFi's cleanup would
    # unload modules and kill processes by name.
    os._exit(0)


if __name__ == "__main__":
    main()
