#!/bin/sh
# The linux backend (crates/sdmac-linux) on mac80211_hwsim radios (runs in the
# guest, as root). Used by tests/test_vm_linux_backend.py.
#
#   python3 testbed/run.py --share DIR testbed/linux_backend.sh MEDIUM
#
# DIR holds linux_drive (the example of crates/sdmac-linux) and, for MEDIUM =
# mediumd, sdmac-mediumd. MEDIUM is
#   kernel   hwsim's in-kernel medium
#   mediumd  sdmac-mediumd as the medium (radios 0 and 1 listed in its
#            configuration; any other address is absent)
# Radio 0 gets a monitor interface mon0 (2412 MHz) the backend sends on; radio 1
# an open AP (hostapd, wlan1, 02:00:00:00:01:00, channel 1) and a monitor mon1.
# Each part writes linux_drive's JSON lines to DIR/out/MEDIUM-PART.jsonl, which the
# test judges; this script only checks that the set-up worked ("LB OK: ...") and
# ends with "LB PASS".
set -u
T=/tmp/lb
mkdir -p "$T"
PREFIX=LB
. /vmrun/lib.sh

MEDIUM=${1:-kernel}
D=$SHARE/linux_drive
O=$SHARE/out
mkdir -p "$O"
AP=02:00:00:00:01:00
ABSENT=02:00:00:00:09:00
[ -x "$D" ] || fail "$D is not there"

MD_PID=
if [ "$MEDIUM" = mediumd ]; then
	modprobe mac80211_hwsim radios=2 || fail "modprobe mac80211_hwsim"
	ids 2 >"$T/medium.cfg"
	"$SHARE/sdmac-mediumd" -l 5 -c "$T/medium.cfg" >"$T/mediumd.log" 2>&1 &
	MD_PID=$!
	wait_for 10 grep -q "REGISTER SENT!" "$T/mediumd.log" || fail "sdmac-mediumd did not register"
	ok "sdmac-mediumd registered"
else
	modprobe mac80211_hwsim radios=2 || fail "modprobe mac80211_hwsim"
fi
P0=$(cat /sys/class/net/wlan0/phy80211/name)
P1=$(cat /sys/class/net/wlan1/phy80211/name)

# monitor NAME PHY [shared]: a monitor interface, up, on 2412 MHz. The frequency can
# be set only once it is up, and not at all (EBUSY) on a radio whose other
# interface (the AP) holds the channel: "shared" takes that one.
monitor() {
	iw phy "$2" interface add "$1" type monitor || fail "iw phy $2 interface add $1 type monitor"
	ip link set "$1" up || fail "$1 up"
	[ "${3:-}" = shared ] || iw dev "$1" set freq 2412 || fail "$1: set freq 2412"
	iw dev "$1" info | grep -q "type monitor" || fail "$1 is not a monitor"
	ok "monitor $1 on $2"
}
monitor mon0 "$P0"

cat >"$T/hostapd.conf" <<EOC
interface=wlan1
driver=nl80211
ssid=sdmac-linux
hw_mode=g
channel=1
EOC
hostapd "$T/hostapd.conf" >"$T/hostapd.log" 2>&1 &
HOSTAPD=$!
wait_for 20 grep -q AP-ENABLED "$T/hostapd.log" || fail "hostapd did not enable its AP"
ok "hostapd AP on wlan1 ($AP)"

run() { # PART linux_drive-args...: runs one part, its JSON lines to $O/MEDIUM-PART.jsonl
	part=$1
	shift
	timeout 120 "$D" "$@" >"$O/$MEDIUM-$part.jsonl" 2>"$T/$part.err"
	rc=$?
	echo "part $part: exit $rc, $(wc -l <"$O/$MEDIUM-$part.jsonl") lines"
	[ -s "$T/$part.err" ] && cat "$T/$part.err"
	echo "$rc" >"$O/$MEDIUM-$part.rc"
}

run refuse refuse mon0 2412 $AP
run acked send mon0 2412 $AP 100 54x1
run absent send mon0 2412 $ABSENT 20 54x3
run series send mon0 2412 $ABSENT 20 54x2,24x2
run noack send mon0 2412 $AP 20 54x1 no-ack
run ac send mon0 2412 $AP 8 54x1 ac=VO
run beacons beacons mon0 2412 5

# Radio 0 sends, radio 1's monitor indicates.
monitor mon1 "$P1" shared
"$D" recv mon1 2412 8 >"$O/$MEDIUM-recv.jsonl" 2>"$T/recv.err" &
RECV=$!
wait_for 10 grep -q ready "$O/$MEDIUM-recv.jsonl" || fail "the receiver did not start"
run sendrecv send mon0 2412 $AP 10 24x1 payload=from-radio-0
wait $RECV
ok "receiver done"

# A frame never reported: with the medium daemon stopped (SIGSTOP) the kernel holds
# every frame, so no echo comes within the report timeout (300 ms); once the daemon
# goes on (SIGCONT) the echoes come late, and are counted and ignored.
if [ -n "$MD_PID" ]; then
	kill -STOP "$MD_PID"
	run noreport send mon0 2412 $AP 5 54x1 window=5 timeout-ms=300 linger-ms=5000 &
	NR=$!
	sleep 2
	kill -CONT "$MD_PID"
	wait $NR
	ok "unreported frames"
fi

# The interface deleted under a flood of requests. With the medium daemon stopped
# (SIGSTOP) the kernel holds every frame, so requests are waiting when it goes.
[ -n "$MD_PID" ] && kill -STOP "$MD_PID"
( "$D" send mon0 2412 $ABSENT 1000000 54x1 window=16 timeout-ms=60000 >"$O/$MEDIUM-delete.jsonl" 2>"$T/delete.err"; echo $? >"$O/$MEDIUM-delete.rc" ) &
FLOOD=$!
sleep 3
iw dev mon0 del || fail "iw dev mon0 del"
ok "mon0 deleted"
n=0
while kill -0 $FLOOD 2>/dev/null && [ $n -lt 50 ]; do sleep 0.2; n=$((n + 1)); done
kill -0 $FLOOD 2>/dev/null && fail "the backend did not return after its interface was deleted"
ok "the backend returned after its interface was deleted"
[ -n "$MD_PID" ] && kill -CONT "$MD_PID"

# The module removed under a flood (in the in-kernel medium run; the other run
# stops its daemon instead).
if [ "$MEDIUM" = kernel ]; then
	kill $HOSTAPD 2>/dev/null
	wait $HOSTAPD 2>/dev/null
	monitor mon0 "$P0"
	( "$D" send mon0 2412 $ABSENT 1000000 54x1 window=16 >"$O/$MEDIUM-rmmod.jsonl" 2>"$T/rmmod.err"; echo $? >"$O/$MEDIUM-rmmod.rc" ) &
	FLOOD=$!
	sleep 2
	rmmod mac80211_hwsim || fail "rmmod mac80211_hwsim"
	ok "mac80211_hwsim removed"
	n=0
	while kill -0 $FLOOD 2>/dev/null && [ $n -lt 50 ]; do sleep 0.2; n=$((n + 1)); done
	kill -0 $FLOOD 2>/dev/null && fail "the backend did not return after the module was removed"
	ok "the backend returned after the module was removed"
else
	kill $HOSTAPD 2>/dev/null
	wait $HOSTAPD 2>/dev/null
	stop_daemon "$MD_PID" "$T/mediumd.log"
fi
echo "LB PASS"
