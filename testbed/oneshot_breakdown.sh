#!/bin/sh
# Confirmed one-shots on hwsim:wlan0 for bench/oneshot_breakdown.py (runs in the
# guest, as root):
#
#   python3 testbed/run.py --share DIR testbed/oneshot_breakdown.sh COUNT
#
# DIR as for testbed/hwsim_evidence.sh (sdmac-mediumd, sdmac-mediumctl, py/, pkg/
# with click and rich). The set-up is that script's: radio 1 an open AP (hostapd,
# wlan1), the daemon (prob model, no loss) the medium of both radios. Then
# `sdmac bench oneshot --backend hwsim:wlan0 --mode back-to-back --count COUNT`,
# its report in DIR/out/bench.{out,err,rc}, JSON and per-sample CSV beside; then
# DIR/planes.py (testbed/oneshot_planes.py) as many one-shots, every plane, its JSON
# in DIR/out/planes.out.
# Ends "OB PASS".
set -u
T=/tmp/ob
mkdir -p "$T"
PREFIX=OB
. /vmrun/lib.sh

O=$SHARE/out
mkdir -p "$O"
AP=02:00:00:00:01:00
COUNT=${1:-300}
S=$T/ctl.sock
MD=$SHARE/sdmac-mediumd
[ -x "$SHARE/py/bin/python3.11" ] || fail "no Python in the share"

hwsim_ap_on_mediumd sdmac-oneshot-breakdown

export SDMAC_LINUX_BSSID=$AP SDMAC_MEDIUMD_SOCKET=$S
export PYTHONHOME=$SHARE/py PYTHONPATH=$SHARE/pkg PYTHONDONTWRITEBYTECODE=1 COLUMNS=160
timeout 900 env LD_LIBRARY_PATH="$SHARE/py/lib" "$SHARE/py/bin/python3.11" -m sdmac bench oneshot \
	--backend hwsim:wlan0 --mode back-to-back --count "$COUNT" \
	--json "$O/bench.json" --csv "$O/bench.csv" >"$O/bench.out" 2>"$O/bench.err"
rc=$?
echo "$rc" >"$O/bench.rc"
echo "bench: exit $rc"
tail -n 30 "$O/bench.out"
tail -n 5 "$O/bench.err"
# Every plane, for the halves of Thw and Tsw_con (testbed/oneshot_planes.py as planes.py).
timeout 900 env LD_LIBRARY_PATH="$SHARE/py/lib" "$SHARE/py/bin/python3.11" "$SHARE/planes.py" hwsim:wlan0 "$COUNT" \
	>"$O/planes.out" 2>"$O/planes.err"
prc=$?
echo "planes: exit $prc"
tail -n 3 "$O/planes.out" "$O/planes.err"
stop_daemon "$MD_PID" "$T/mediumd.log"
[ "$rc" -eq 0 ] || fail "sdmac bench oneshot exited $rc"
[ "$prc" -eq 0 ] || fail "planes.py exited $prc"
echo "OB PASS"
