#!/bin/sh
# hwsim:IFACE opened by name (crates/sdmac-open) on mac80211_hwsim radios whose
# medium is sdmac-mediumd (runs in the guest, as root). Used by
# tests/test_vm_hwsim_backend.py.
#
#   python3 testbed/run.py --share DIR testbed/hwsim_backend.sh [COUNT]
#
# DIR holds sdmac-mediumd, sdmac-mediumctl, oneshot (examples/c/oneshot.c built
# against libsdmac) and libsdmac.so, and, when Python runs in the guest, py/ (a
# Python installation), pkg/ (the sdmac package), oneshot.py (examples/api/oneshot.py)
# check.py (testbed/hwsim_backend_check.py, with truth_stream.py) and attrs.py (testbed/hwsim_backend_attrs.py).
# Radio 1 is an open AP (hostapd, wlan1, 02:00:00:00:01:00, channel 1); the daemon
# (prob model, no loss) is the medium of both radios; the programs open hwsim:wlan0
# (radio 0) with SDMAC_LINUX_BSSID naming the AP and SDMAC_MEDIUMD_SOCKET the
# daemon's control socket. Parts, in order: the C and Python examples on a perfect
# link; attrs.py (set/get through the daemon); check.py on it; the link 0 -> 1 given error probability P through the
# control socket, check.py again; check.py killing the daemon half way.
# Each part's stdout, stderr and exit status go to DIR/out/PART.{out,err,rc}; the
# test judges them. This script checks the set-up ("HB OK: ...") and ends with
# "HB PASS".
set -u
T=/tmp/hb
mkdir -p "$T"
PREFIX=HB
. /vmrun/lib.sh

O=$SHARE/out
mkdir -p "$O"
AP=02:00:00:00:01:00
A=$(mac 0)
COUNT=${1:-1000}
P=${2:-0.3}
S=$T/ctl.sock
MD=$SHARE/sdmac-mediumd
[ -x "$SHARE/oneshot" ] || fail "$SHARE/oneshot is not there"

hwsim_ap_on_mediumd sdmac-hwsim-backend

export SDMAC_LINUX_BSSID=$AP SDMAC_MEDIUMD_SOCKET=$S
# run PART COMMAND...: run_part PART, 300 s, libsdmac.so found in the share.
run() {
	p=$1
	shift
	run_part "$p" 300 env LD_LIBRARY_PATH="$SHARE" "$@"
}

run c "$SHARE/oneshot" hwsim:wlan0 "$COUNT" 54 50
if [ -x "$SHARE/py/bin/python3.11" ]; then
	export PYTHONHOME=$SHARE/py PYTHONPATH=$SHARE/pkg PYTHONDONTWRITEBYTECODE=1
	PY="env LD_LIBRARY_PATH=$SHARE/py/lib $SHARE/py/bin/python3.11"
	run py $PY "$SHARE/oneshot.py" --backend hwsim:wlan0 --count "$COUNT"
	run attrs $PY "$SHARE/attrs.py" hwsim:wlan0
	run perfect $PY "$SHARE/check.py" hwsim:wlan0 "$S" "$COUNT"
	"$SHARE/sdmac-mediumctl" -s "$S" errprob "$A" "$AP" "$P" || fail "errprob $A $AP $P"
	ok "link $A -> $AP: error probability $P"
	run lossy $PY "$SHARE/check.py" hwsim:wlan0 "$S" "$COUNT"
	run kill $PY "$SHARE/check.py" hwsim:wlan0 "$S" 300 "$MD_PID" 150
	wait "$MD_PID" 2>/dev/null
	ok "the medium daemon was killed"
	echo "---- daemon"
	tail -n 20 "$T/mediumd.log"
else
	stop_daemon "$MD_PID" "$T/mediumd.log"
fi
echo "HB PASS"
