# Helpers for the scripts the test bed runs in the guest: testbed/run.py puts this
# file at /vmrun/lib.sh; a script sets PREFIX ("SMOKE", "MD", "BENCH") and T (its
# directory of logs), then sources it (". /vmrun/lib.sh"), and may define its own dump.

# ok WHAT: one passed check.
ok() { echo "$PREFIX OK: $*"; }
# dump: the logs of $T and the kernel's last messages (a script may define its own).
dump() {
	for f in "$T"/*.log; do
		[ -f "$f" ] && { echo "---- $f"; tail -n 40 "$f"; }
	done
	echo "---- dmesg"
	dmesg | tail -n 30
}
# fail WHAT: the failed check, the logs, exit 1.
fail() {
	echo "$PREFIX FAIL: $*"
	dump
	exit 1
}
# wait_for SECONDS COMMAND...: poll every 0.2 s until COMMAND succeeds.
wait_for() {
	n=$(($1 * 5))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}
# mac I: radio I's permanent address (mac80211_hwsim numbers them 02:00:00:00:II:00).
mac() { printf '02:00:00:00:%02x:00' "$1"; }
# ids N: a wmediumd "ifaces" group listing radios 0..N-1 (without a model: 30 dB
# between every pair). Listed radios are stations of a channel's medium from the
# moment it is created, instead of joining it when they first transmit there.
ids() {
	printf 'ifaces : { ids = ['
	i=0
	while [ "$i" -lt "$1" ]; do
		[ "$i" -gt 0 ] && printf ', '
		printf '"%s"' "$(mac $i)"
		i=$((i + 1))
	done
	printf ' ]; };\n'
}
# The model of a medium without loss: the prob model at 0 (wmediumd's syntax).
NO_LOSS='model : { type = "prob"; default_prob = 0.0; };'
# hwsim_mediumd N [MODEL]: loads mac80211_hwsim with N radios (wlan0 .. wlanN-1), then
# mediumd_start N MODEL.
hwsim_mediumd() {
	modprobe mac80211_hwsim radios="$1" || fail "modprobe mac80211_hwsim radios=$1"
	mediumd_start "$@"
}
# mediumd_start N [MODEL]: sdmac-mediumd ($MD) as the medium of the N radios there:
# all N listed (so that the control socket knows them before they send), MODEL the
# configuration's model line (default $NO_LOSS), log level ${MD_LOG:-5}, control
# socket $S, configuration $T/medium.cfg, log $T/mediumd.log. Waits until it has
# registered with the kernel; sets MD_PID.
mediumd_start() {
	{
		ids "$1"
		printf '%s\n' "${2:-$NO_LOSS}"
	} >"$T/medium.cfg"
	"$MD" -l "${MD_LOG:-5}" -c "$T/medium.cfg" -s "$S" >"$T/mediumd.log" 2>&1 &
	MD_PID=$!
	wait_for 20 grep -q "REGISTER SENT!" "$T/mediumd.log" || fail "the daemon did not register"
	[ -S "$S" ] || fail "the daemon made no control socket $S"
	ok "medium daemon registered for $1 radios (pid $MD_PID)"
}
# mediumd_on_two_radios: hwsim_mediumd 2 (no loss).
mediumd_on_two_radios() {
	hwsim_mediumd 2
}
# hostapd_ap SSID: an open hostapd AP named SSID on wlan1 (radio 1, $AP), channel 1.
hostapd_ap() {
	printf 'interface=wlan1\ndriver=nl80211\nssid=%s\nhw_mode=g\nchannel=1\n' "$1" >"$T/hostapd.conf"
	hostapd "$T/hostapd.conf" >"$T/hostapd.log" 2>&1 &
	wait_for 20 grep -q AP-ENABLED "$T/hostapd.log" || fail "hostapd did not enable its AP"
	ok "hostapd AP on wlan1 ($AP)"
}
# hwsim_ap_on_mediumd SSID: both of the above.
hwsim_ap_on_mediumd() {
	mediumd_on_two_radios
	hostapd_ap "$1"
}
# stop_daemon PID LOG [WHAT]: SIGTERM to the medium daemon PID; it must exit 0 within
# 5 s; prints its LOG (its counters) and passes "medium daemon WHAT" (default
# "stopped cleanly on SIGTERM").
stop_daemon() {
	kill -TERM "$1"
	n=0
	while kill -0 "$1" 2>/dev/null && [ $n -lt 25 ]; do sleep 0.2; n=$((n + 1)); done
	kill -0 "$1" 2>/dev/null && fail "the medium daemon did not stop on SIGTERM"
	wait "$1"
	rc=$?
	echo "---- medium daemon log"
	cat "$2"
	echo
	[ "$rc" -eq 0 ] || fail "the medium daemon exited with status $rc"
	ok "medium daemon ${3:-stopped cleanly on SIGTERM}"
}
# part_show FILE: what run_part prints of a part's stdout: all of it (a script may
# define its own, as for dump).
part_show() { cat "$1"; }
# run_part NAME SECONDS COMMAND...: one part of a script's run. COMMAND runs for at
# most SECONDS with its stdout, stderr and exit status in $O/NAME.out, .err and .rc (a
# "-" in NAME is a "_" in the file names); then "part NAME: exit RC", part_show of its
# stdout and the last 5 lines of its stderr. A part that fails does not stop the
# script: the test judges the files.
run_part() {
	part=$1
	part_file=$(printf '%s' "$1" | tr - _)
	part_secs=$2
	shift 2
	timeout "$part_secs" "$@" >"$O/$part_file.out" 2>"$O/$part_file.err"
	rc=$?
	echo "$rc" >"$O/$part_file.rc"
	echo "part $part: exit $rc"
	part_show "$O/$part_file.out"
	tail -n 5 "$O/$part_file.err"
}
# part_on_daemon N MODEL NAME SECONDS COMMAND...: a part on a medium daemon of its
# own: mediumd_start N MODEL, run_part NAME SECONDS COMMAND..., then stop_daemon
# (which must pass "stopped cleanly after NAME").
part_on_daemon() {
	mediumd_start "$1" "$2"
	shift 2
	run_part "$@"
	stop_daemon "$MD_PID" "$T/mediumd.log" "stopped cleanly after $1"
}
