#!/bin/sh
# sdmac's extension of the medium daemon's control socket, with the kernel's
# mac80211_hwsim (runs in the guest, as root): two radios in an IBSS through
# sdmac-mediumd; a client (truth_watch, built from crates/sdmac-control/examples)
# sets the link A -> B's error probability to P, reads it back, sets and reads back
# EDCA and the ACK timeout, subscribes to the truth stream; pings A -> B (10 ms
# apart); the daemon stopped; the client's counts and the daemon's own.
#
#   python3 testbed/run.py --share DIR testbed/control_truth.sh /share/sdmac-mediumd /share/truth_watch [P] [COUNT]
#
# Prints "TRUTH OK: <what>" per check, the client's output, "TRUTH DAEMON frames N statuses M"
# and "TRUTH PASS"; the statistics are judged by tests/test_vm_control_truth.py.
set -u

T=/tmp/truth
mkdir -p "$T"
PREFIX=TRUTH
. /vmrun/lib.sh

MD=$1
WATCH=$2
P=${3:-0.3}
COUNT=${4:-1500}
S=$T/ctl.sock
A=$(mac 0)
B=$(mac 1)

mediumd_on_two_radios

# The client subscribes before any interface is up: every frame answered is after.
"$WATCH" "$S" "$A" "$B" "$P" >"$T/watch.log" 2>&1 &
W_PID=$!
wait_for 20 grep -q "^READY" "$T/watch.log" || fail "the client did not subscribe: $(cat "$T/watch.log")"
ok "the client set, read back and subscribed"
# A second subscriber that never reads: it must hold nothing up.
"$WATCH" --stall "$S" >"$T/stall.log" 2>&1 &
STALL_PID=$!
wait_for 20 grep -q "^STALLED" "$T/stall.log" || fail "the stuck subscriber did not subscribe: $(cat "$T/stall.log")"
ok "a second subscriber subscribed and reads no more"

i=0
while [ "$i" -lt 2 ]; do
	p=$(cat /sys/class/net/wlan$i/phy80211/name) || fail "no wlan$i"
	ip netns add n$i || fail "ip netns add n$i"
	iw phy "$p" set netns name n$i || fail "iw phy $p set netns name n$i"
	N="ip netns exec n$i"
	$N ip link set lo up
	$N iw dev wlan$i set type ibss || fail "wlan$i: set type ibss"
	$N ip link set wlan$i up || fail "wlan$i up"
	$N iw dev wlan$i ibss join sdmac-truth 2412 fixed-freq 02:5d:ac:00:00:01 || fail "wlan$i: ibss join"
	$N ip addr add 10.0.0.$((i + 1))/24 dev wlan$i
	i=$((i + 1))
done
wait_for 20 sh -c "ip netns exec n0 ping -c 1 -W 1 10.0.0.2" || fail "A cannot reach B"
ok "A reaches B through the daemon"
# (busybox ping has no -f: 10 ms apart.)
ip netns exec n0 ping -q -c "$COUNT" -i 0.01 -W 2 10.0.0.2 >"$T/ping.log" 2>&1
tail -n 3 "$T/ping.log"
# busybox prints "N packets received", iputils "N received".
grep -Eq " 0 (packets )?received" "$T/ping.log" && fail "no ping got through"
grep -Eq "[0-9]+ (packets )?received" "$T/ping.log" || fail "ping: $(cat "$T/ping.log")"
ok "$COUNT pings sent"
sleep 1

kill -0 "$STALL_PID" || fail "the stuck subscriber died"
stop_daemon "$MD_PID" "$T/mediumd.log" "stopped cleanly"
n=0
while kill -0 "$W_PID" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.2; n=$((n + 1)); done
kill -0 "$W_PID" 2>/dev/null && fail "the client did not see the daemon close the socket"
wait "$W_PID" || fail "the client failed: $(cat "$T/watch.log")"
ok "the client read to the end"
kill "$STALL_PID"
echo "---- client"
cat "$T/watch.log"
statuses=$(sed -n 's/.*stopping; Counters { frames_in: [0-9]*, statuses: \([0-9]*\),.*/\1/p' "$T/mediumd.log")
frames=$(sed -n 's/.*stopping; Counters { frames_in: \([0-9]*\),.*/\1/p' "$T/mediumd.log")
[ -n "$statuses" ] && [ -n "$frames" ] || fail "no counters in the daemon's log"
echo "TRUTH DAEMON frames $frames statuses $statuses"
echo "TRUTH PASS"
