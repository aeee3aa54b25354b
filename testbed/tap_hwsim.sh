#!/bin/bash
# sdmac tap over mac80211_hwsim radios (runs in the guest, as root): the
# user-space data path on the radios' monitor interfaces, sdmac-mediumd as their
# medium; an IBSS of two radios, then an AP and two stations on three. Used by
# tests/test_vm_tap_hwsim.py.
#
#   python3 testbed/run.py --share DIR testbed/tap_hwsim.sh [SECONDS]
#
# DIR holds sdmac-tap, sdmac-mediumd, tap.toml (two stations, a and b) and ap.toml
# (an AP "ap" and stations s1 and s2). The daemon (prob model, no loss, control
# socket $T/ctl.sock) is the medium of three radios; the kernel's wlan0..wlan2
# stay down, so only sdmac's MAC uses them.
# `sdmac-tap tap.toml --backend hwsim:wlan0,hwsim:wlan1` puts station a on radio 0
# and b on radio 1 (namespaces sdmac-a and sdmac-b, 10.0.0.1 and 10.0.0.2, every
# frame at 54 Mb/s on 2412 MHz). From sdmac-a to sdmac-b: ping (5 echoes), iperf3
# UDP (20 Mb/s offered) and iperf3 TCP, SECONDS each. Results go to DIR/out:
# ready.json (what sdmac-tap set up), ping.txt, udp.json and tcp.json (iperf3 -J),
# tap.json (sdmac-tap's statistics on exit).
# Then `sdmac-tap ap.toml --backend hwsim:wlan0,hwsim:wlan1,hwsim:wlan2 --pcap`:
# the AP (radio 0) sends its own beacons from its management thread, s1 and s2
# authenticate and associate with real management frames over the radios; then
# ping s1 -> s2 (relayed by the AP) and s2 -> the AP. Results: ap_ready.json,
# ap_ping_s2.txt, ap_ping_ap.txt, ap_tap.json, ap.pcapng.
# This script checks the set-up ("TH OK: ...") and ends with "TH PASS"; the test
# judges the results.
set -u
T=/tmp/th
mkdir -p "$T"
PREFIX=TH
. /vmrun/lib.sh

O=$SHARE/out
mkdir -p "$O"
SECS=${1:-3}
S=$T/ctl.sock
MD_PID= TAP_PID=
stop_all() {
	[ -n "$TAP_PID" ] && kill -INT "$TAP_PID" 2>/dev/null && wait "$TAP_PID" 2>/dev/null
	[ -n "$MD_PID" ] && kill "$MD_PID" 2>/dev/null
}
trap stop_all EXIT
for b in sdmac-tap sdmac-mediumd; do
	[ -x "$SHARE/$b" ] || fail "$SHARE/$b is not there"
done
for f in tap.toml ap.toml; do
	[ -f "$SHARE/$f" ] || fail "$SHARE/$f is not there"
done
# The test bed's kernel has tun as a module and no /dev/net/tun node.
if [ ! -c /dev/net/tun ]; then
	modprobe tun 2>/dev/null
	mkdir -p /dev/net && mknod /dev/net/tun c 10 200 2>/dev/null
fi
[ -c /dev/net/tun ] || fail "no /dev/net/tun"

# Log level 0: the daemon carries iperf3's traffic.
MD=$SHARE/sdmac-mediumd MD_LOG=0
hwsim_mediumd 3
kill -0 "$MD_PID" 2>/dev/null || fail "sdmac-mediumd exited"
ok "sdmac-mediumd is the medium of wlan0, wlan1 and wlan2"

# tap_start WHAT LOG READY SECONDS ARG...: sdmac-tap ARG... --ready-file READY on the
# daemon's control socket, in the background (TAP_PID), its output in LOG, until it
# writes READY; fails naming WHAT if it exits first or is not ready within SECONDS.
tap_start() {
	local what=$1 log=$2 ready=$3 secs=$4 n=0
	shift 4
	SDMAC_MEDIUMD_SOCKET=$S "$SHARE/sdmac-tap" "$@" --ready-file "$ready" >"$log" 2>&1 &
	TAP_PID=$!
	until [ -s "$ready" ]; do
		kill -0 "$TAP_PID" 2>/dev/null || { TAP_PID=; fail "$what exited: $(tail -n 5 "$log")"; }
		n=$((n + 1))
		[ $n -gt $((secs * 10)) ] && fail "$what not ready after $secs s"
		sleep 0.1
	done
}
# tap_stop WHAT LOG: SIGINT to sdmac-tap (it writes its statistics on exit), its exit
# status and the end of LOG.
tap_stop() {
	kill -INT "$TAP_PID"
	wait "$TAP_PID"
	echo "$1: exit $?"
	TAP_PID=
	tail -n 8 "$2"
}

tap_start sdmac-tap "$T/tap.log" "$O/ready.json" 30 "$SHARE/tap.toml" --backend hwsim:wlan0,hwsim:wlan1 \
	--radio-rates 54x1 --freq 2412 --json "$O/tap.json"
ok "sdmac-tap up: $(cat "$O/ready.json")"
A=sdmac-a B=sdmac-b IPB=10.0.0.2
if command -v ping >/dev/null 2>&1; then PING=ping; else PING="busybox ping"; fi
ip netns exec $A $PING -c 5 -W 2 $IPB >"$O/ping.txt" 2>&1
echo "ping: exit $?"
cat "$O/ping.txt"

wait_listen() {
	n=0
	until ip netns exec $B ss -ln | grep -q ":$1 "; do
		n=$((n + 1))
		[ $n -gt 100 ] && return 1
		sleep 0.1
	done
}
# iperf3 NAME ARGS...: one client run against a one-off server in sdmac-b.
iperf() {
	name=$1
	shift
	ip netns exec $B iperf3 -s -1 -p 5201 >"$T/${name}_server.log" 2>&1 &
	srv=$!
	wait_listen 5201 || fail "$name: iperf3 server not listening"
	ip netns exec $A iperf3 -c $IPB -p 5201 -t "$SECS" -J "$@" >"$O/$name.json" 2>"$T/${name}_client.log"
	rc=$?
	echo "iperf3 $name: exit $rc"
	[ $rc -eq 0 ] || { cat "$T/${name}_client.log" "$T/${name}_server.log"; tail -c 600 "$O/$name.json"; }
	# The one-off server ends with the client's run; a failed client may leave it.
	n=0
	while kill -0 "$srv" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.2; n=$((n + 1)); done
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
}
iperf udp -u -b 20M -l 1400
iperf tcp

tap_stop sdmac-tap "$T/tap.log"

# The AP role over radios.
tap_start "sdmac-tap (AP)" "$T/ap_tap.log" "$O/ap_ready.json" 40 "$SHARE/ap.toml" \
	--backend hwsim:wlan0,hwsim:wlan1,hwsim:wlan2 --radio-rates 54x1 --freq 2412 --pcap "$O/ap.pcapng" \
	--json "$O/ap_tap.json"
ok "sdmac-tap AP up: $(cat "$O/ap_ready.json")"
grep "not associated" "$T/ap_tap.log"
ip netns exec sdmac-s1 $PING -c 5 -W 2 10.0.0.3 >"$O/ap_ping_s2.txt" 2>&1
echo "ping s1 -> s2: exit $?"
cat "$O/ap_ping_s2.txt"
ip netns exec sdmac-s2 $PING -c 5 -W 2 10.0.0.1 >"$O/ap_ping_ap.txt" 2>&1
echo "ping s2 -> ap: exit $?"
cat "$O/ap_ping_ap.txt"
tap_stop "sdmac-tap (AP)" "$T/ap_tap.log"
kill "$MD_PID" 2>/dev/null
wait "$MD_PID" 2>/dev/null
MD_PID=
echo "TH PASS"
