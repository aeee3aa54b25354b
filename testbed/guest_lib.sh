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
