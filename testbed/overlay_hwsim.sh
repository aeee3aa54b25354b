#!/bin/sh
# The TDMA overlay on hwsim: crates/sdmac-overlay/examples/overlay_run.rs (the same
# overlay code the emu tests run) on three mac80211_hwsim radios whose medium is
# sdmac-mediumd (runs in the guest, as root). Used by tests/test_vm_overlay_hwsim.py.
#
#   python3 testbed/run.py --share DIR testbed/overlay_hwsim.sh [ROUNDS]
#
# DIR holds sdmac-mediumd, sdmac-mediumctl and overlay_run (built on the host:
# cargo build --release -p sdmac-mediumd -p sdmac-overlay --example overlay_run).
# Radio 0 (wlan0) is the coordinator, radios 1 and 2 (wlan1, wlan2) the two
# stations; each is opened by name as hwsim:wlanX (a monitor on the radio, channel 1).
# The daemon (prob model, no loss, all three radios listed) is their medium; the
# program subscribes to its truth records on the control socket before it sends
# anything and checks them for exchanges that overlapped on air.
# Then the EDF overlay (and the MAC's FIFO for comparison) on the same two stations.
# Each run's stdout (text, then one JSON object on the last line), stderr and exit
# status go to DIR/out/{tdma,edf}.{out,err,rc}; the test judges them. This script checks the
# set-up ("OH OK: ...") and ends with "OH PASS".
set -u
T=/tmp/oh
mkdir -p "$T"
PREFIX=OH
. /vmrun/lib.sh

O=$SHARE/out
mkdir -p "$O"
ROUNDS=${1:-50}
S=$T/ctl.sock
MD=$SHARE/sdmac-mediumd
RUN=$SHARE/overlay_run
[ -x "$RUN" ] || fail "$RUN is not there"
[ -x "$MD" ] || fail "$MD is not there"

modprobe mac80211_hwsim radios=3 || fail "modprobe mac80211_hwsim radios=3"
{
	ids 3
	printf 'model : { type = "prob"; default_prob = 0.0; };\n'
} >"$T/medium.cfg"
"$MD" -l 5 -c "$T/medium.cfg" -s "$S" >"$T/mediumd.log" 2>&1 &
MD_PID=$!
wait_for 20 grep -q "REGISTER SENT!" "$T/mediumd.log" || fail "the daemon did not register"
ok "medium daemon registered for 3 radios"
for i in 0 1 2; do
	[ -d "/sys/class/net/wlan$i" ] || fail "no wlan$i"
done
ok "radios wlan0 ($(mac 0)), wlan1 ($(mac 1)), wlan2 ($(mac 2))"

timeout 300 "$RUN" tdma --coordinator hwsim:wlan0 --station hwsim:wlan1 --station hwsim:wlan2 \
	--socket "$S" --rounds "$ROUNDS" --json >"$O/tdma.out" 2>"$O/tdma.err"
rc=$?
echo "$rc" >"$O/tdma.rc"
echo "part tdma: exit $rc"
# The text part (the JSON line is for the test).
grep -v '^{' "$O/tdma.out"
tail -n 5 "$O/tdma.err"
# EDF, then the MAC's FIFO, on the same two stations (times scaled by 10: the VM's
# request path takes milliseconds under TCG).
timeout 300 "$RUN" edf --coordinator hwsim:wlan0 --station hwsim:wlan1 --station hwsim:wlan2 \
	--socket "$S" --scale 10 --run-ms 400 --json >"$O/edf.out" 2>"$O/edf.err"
rc=$?
echo "$rc" >"$O/edf.rc"
echo "part edf: exit $rc"
grep -v '^{' "$O/edf.out"
tail -n 5 "$O/edf.err"
echo "---- monitors left after the runs"
iw dev | grep -c "type monitor"
stop_daemon "$MD_PID" "$T/mediumd.log"
echo "OH PASS"
