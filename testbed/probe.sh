#!/bin/sh
# Guest script of tests/test_vm_probe.py: `sdmac-probe` (crates/sdmac-probe, from
# /share) on two mac80211_hwsim radios. Radio 1 has an active monitor up on 2412 MHz
# with its address (02:00:00:00:01:00), so it acknowledges frames to that address;
# radio 0 (wlan0, down) is probed with --peer 02:00:00:00:01:00, once on hwsim's
# in-kernel medium and once with sdmac-mediumd as the medium. Each report goes to
# /share/out/MEDIUM.json, which the test judges; while the probe holds (before its
# cleanup) this script reads the monitor's channel and TX power and the radio's
# coverage class with `iw`. Then: no monitor left behind, on every path (SIGKILL
# included), and the errors for an unknown interface, lo and a process without
# capabilities.
set -u
PREFIX=PR
T=/tmp/pr
mkdir -p "$T"
. /vmrun/lib.sh
P=$SHARE/sdmac-probe
O=$SHARE/out
mkdir -p "$O"
PEER=02:00:00:00:01:00
[ -x "$P" ] || fail "$P is not there"

modprobe mac80211_hwsim radios=2 || fail "modprobe mac80211_hwsim"
wait_for 5 ip link show wlan1 || fail "hwsim radios did not appear"
P1=$(cat /sys/class/net/wlan1/phy80211/name)
iw phy "$P1" interface add pmon1 type monitor flags active || fail "active monitor on $P1"
ip link set pmon1 up || fail "pmon1 up"
iw dev pmon1 set freq 2412 || fail "pmon1: set freq 2412"
iw dev pmon1 info | grep -q "addr $PEER" || fail "pmon1 does not have $PEER: $(iw dev pmon1 info)"
ok "radio 1 acknowledges: active monitor pmon1 ($PEER) up on 2412 MHz"

no_monitor() { ! iw dev | grep -q "Interface sdmon"; }

# probe MEDIUM: one probe of wlan0, held before its cleanup while iw reads the state
probe() {
	m=$1
	rm -f "$T/go"
	"$P" wlan0 --peer $PEER --hold-until "$T/go" >"$O/$m.json" 2>"$T/$m.err" &
	pid=$!
	wait_for 60 grep -q '^HOLD ' "$T/$m.err" || fail "$m: the probe did not get to its cleanup: $(cat "$T/$m.err")"
	mon=$(sed -n 's/^HOLD //p' "$T/$m.err")
	iw dev "$mon" info >"$O/$m.iw" 2>&1
	iw phy phy0 info | grep "Coverage class" >>"$O/$m.iw"
	cat "$O/$m.iw"
	touch "$T/go"
	wait $pid
	echo $? >"$O/$m.rc"
	no_monitor || fail "$m: a monitor was left behind: $(iw dev)"
	ok "$m: probe ran, $mon removed"
}

probe kernel

ids 2 >"$T/medium.cfg"
"$SHARE/sdmac-mediumd" -l 5 -c "$T/medium.cfg" >"$T/mediumd.log" 2>&1 &
MD=$!
wait_for 10 grep -q "REGISTER SENT!" "$T/mediumd.log" || fail "sdmac-mediumd did not register"
ok "sdmac-mediumd registered"
probe mediumd
stop_daemon $MD "$T/mediumd.log"

# wlan0 up beside the probe's monitor: the channel cannot be set (cfg80211 sets a
# monitor's channel only while monitors are the radio's only interfaces up); the
# probe says so in its report, and still removes its monitor
ip link set wlan0 up || fail "wlan0 up"
"$P" wlan0 --peer $PEER >"$O/busy.json" 2>"$T/busy.err"
echo $? >"$O/busy.rc"
no_monitor || fail "busy: a monitor was left behind: $(iw dev)"
ip link set wlan0 down
ok "busy: probe ran with wlan0 up, monitor removed"

# SIGKILL while the monitor is up: the kernel removes it with its owner's socket
rm -f "$T/go"
"$P" wlan0 --hold-until "$T/go" >/dev/null 2>"$T/kill.err" &
pid=$!
wait_for 60 grep -q '^HOLD ' "$T/kill.err" || fail "killed probe: did not get to its cleanup"
kill -KILL $pid
wait $pid
wait_for 5 no_monitor || fail "SIGKILL: a monitor was left behind: $(iw dev)"
ok "SIGKILL: the kernel removed the monitor with its owner's socket"

# errors: exit 1, the message on stderr and as JSON on stdout, no monitor left
expect_error() { # WHAT MESSAGE ARGS...
	what=$1 msg=$2
	shift 2
	"$@" >"$T/err.json" 2>"$T/err.log"
	rc=$?
	[ $rc -eq 1 ] || fail "$what: exit status $rc, not 1: $(cat "$T/err.log")"
	grep -qF "$msg" "$T/err.log" || fail "$what: no \"$msg\" in: $(cat "$T/err.log")"
	grep -qF '"error":' "$T/err.json" || fail "$what: no JSON error on stdout: $(cat "$T/err.json")"
	no_monitor || fail "$what: a monitor was left behind"
	ok "$what: $(head -n 1 "$T/err.log")"
}
expect_error "unknown interface" "sdmac-probe: nosuch0: no network interface or wiphy has this name" "$P" nosuch0
expect_error "loopback" "sdmac-probe: lo: not a wireless interface" "$P" lo
expect_error "no capabilities" "sdmac-probe: wlan0: probing a radio needs CAP_NET_ADMIN and CAP_NET_RAW, which this process lacks" "$P" wlan0 --no-caps
echo "PR PASS"
