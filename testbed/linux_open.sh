#!/bin/sh
# linux:IFACE opened by name (crates/sdmac-open) on mac80211_hwsim radios, by the
# unchanged examples (runs in the guest, as root). Used by tests/test_vm_linux_open.py.
#
#   python3 testbed/run.py --share DIR testbed/linux_open.sh
#
# DIR holds oneshot (examples/c/oneshot.c built against libsdmac) and libsdmac.so,
# and, when Python runs in the guest, py/ (a Python installation: bin/python3.11,
# lib/libpython3.11.so.1.0, lib/python3.11), pkg/ (the sdmac package with its
# built extension), oneshot.py (examples/api/oneshot.py) and attrs.py
# (testbed/linux_open_attrs.py).
# Radio 1 is an open AP (hostapd, wlan1, 02:00:00:00:01:00, channel 1) on hwsim's
# in-kernel medium; the examples open linux:wlan0 (radio 0, whose interface stays
# down) with SDMAC_LINUX_BSSID naming the AP, so their one-shots go to it.
# Each part's stdout, stderr, exit status and what was seen of the monitor go to
# DIR/out/PART.{out,err,rc,mon}; the test judges them. This script only checks that
# the set-up worked ("LO OK: ...") and ends with "LO PASS".
set -u
T=/tmp/lo
mkdir -p "$T"
PREFIX=LO
. /vmrun/lib.sh

O=$SHARE/out
mkdir -p "$O"
AP=02:00:00:00:01:00
COUNT=${1:-100}
[ -x "$SHARE/oneshot" ] || fail "$SHARE/oneshot is not there"

modprobe mac80211_hwsim radios=2 || fail "modprobe mac80211_hwsim"
hostapd_ap sdmac-linux-open

monitors() { iw dev | grep -c "type monitor"; }

# run PART COMMAND...: runs it with the AP as BSSID; while it runs, records the
# monitor interfaces seen (PART.mon: "during N", then "after N" once it exited).
run() {
	part=$1
	shift
	[ "$(monitors)" = 0 ] || fail "a monitor interface exists before $part"
	# The kernel's link events record every interface created and deleted, however
	# short the run (polling iw below can miss a run of a few ms).
	ip monitor link >"$O/$part.links" 2>&1 &
	mpid=$!
	sleep 0.3
	SDMAC_LINUX_BSSID=$AP LD_LIBRARY_PATH=$SHARE timeout 300 "$@" >"$O/$part.out" 2>"$O/$part.err" &
	pid=$!
	seen=0
	while kill -0 $pid 2>/dev/null; do
		snap=$(iw dev)
		n=$(printf '%s\n' "$snap" | grep -c "type monitor")
		[ "$n" -gt "$seen" ] && seen=$n && printf '%s\n' "$snap" >"$O/$part.iw"
		sleep 0.1
	done
	wait $pid
	rc=$?
	echo "$rc" >"$O/$part.rc"
	sleep 0.3
	kill $mpid 2>/dev/null
	wait $mpid 2>/dev/null
	created=$(grep -v '^Deleted' "$O/$part.links" | grep -o 'sdmon[0-9]*' | sort -u | wc -l)
	[ "$created" -gt "$seen" ] && seen=$created
	printf 'during %s\nafter %s\n' "$seen" "$(monitors)" >"$O/$part.mon"
	echo "part $part: exit $rc, monitors seen $seen"
	cat "$O/$part.out" "$O/$part.err"
}

run c "$SHARE/oneshot" linux:wlan0 "$COUNT" 54 50
run c-wrong "$SHARE/oneshot" linux:wlan9 5
if [ -x "$SHARE/py/bin/python3.11" ]; then
	export PYTHONHOME=$SHARE/py PYTHONPATH=$SHARE/pkg PYTHONDONTWRITEBYTECODE=1
	PY="env LD_LIBRARY_PATH=$SHARE/py/lib $SHARE/py/bin/python3.11"
	run py $PY "$SHARE/oneshot.py" --backend linux:wlan0 --count "$COUNT"
	run py-wrong $PY "$SHARE/oneshot.py" --backend linux:wlan9 --count 5
	run attrs $PY "$SHARE/attrs.py" linux:wlan0
fi
echo "LO PASS"
