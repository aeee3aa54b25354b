#!/bin/sh
# Evidence for hwsim:IFACE beyond testbed/hwsim_backend.sh (runs in the guest, as
# root; used by tests/test_vm_hwsim_evidence.py):
#
#   python3 testbed/run.py --share DIR testbed/hwsim_evidence.sh MS SPLIT SAME BENCH
#
# DIR holds sdmac-mediumd, sdmac-mediumctl, oneshot and libsdmac.so (the C example
# and its library), py/ (a Python installation), pkg/ (the
# sdmac package with click and rich), oneshot.py (examples/api/oneshot.py) and
# evidence.py (testbed/hwsim_evidence.py). The set-up is hwsim_backend.sh's: radio 1
# an open AP (hostapd, wlan1), the daemon (prob model, no loss) the medium of both
# radios, the programs open hwsim:wlan0. Parts, in order:
#   multishot  MS requests "54x2,24x2" to an absent address (evidence.py);
#   split      link A -> AP and AP -> A at error probability 0.2 each, SPLIT one-shots
#              (evidence.py);
#   same       A -> AP at 0.3, AP -> A clean, examples/api/oneshot.py unchanged, SAME
#              one-shots;
#   same_c     the same link, examples/c/oneshot.c (DIR/oneshot, with DIR/libsdmac.so)
#              unchanged, SAME one-shots;
#   bench      the same link, `sdmac bench oneshot --backend hwsim:wlan0`, BENCH
#              one-shots back to back, its report on stdout and as JSON (bench.json).
# Each part's stdout, stderr and exit status go to DIR/out/PART.{out,err,rc}; the
# test judges them. This script checks the set-up ("HE OK: ...") and ends "HE PASS".
set -u
T=/tmp/he
mkdir -p "$T"
PREFIX=HE
. /vmrun/lib.sh

O=$SHARE/out
mkdir -p "$O"
AP=02:00:00:00:01:00
ABSENT=02:00:00:00:09:00
A=$(mac 0)
MS=${1:-30}
SPLIT=${2:-600}
SAME=${3:-600}
BENCH=${4:-200}
S=$T/ctl.sock
MD=$SHARE/sdmac-mediumd
CTL=$SHARE/sdmac-mediumctl
[ -x "$SHARE/py/bin/python3.11" ] || fail "no Python in the share"

hwsim_ap_on_mediumd sdmac-hwsim-evidence

export SDMAC_LINUX_BSSID=$AP SDMAC_MEDIUMD_SOCKET=$S
export PYTHONHOME=$SHARE/py PYTHONPATH=$SHARE/pkg PYTHONDONTWRITEBYTECODE=1 COLUMNS=160
PY="env LD_LIBRARY_PATH=$SHARE/py/lib $SHARE/py/bin/python3.11"
# run PART COMMAND...: run_part PART, 300 s, the last 30 lines of its stdout shown.
run() {
	p=$1
	shift
	run_part "$p" 300 "$@"
}
part_show() { tail -n 30 "$1"; }
link() {
	"$CTL" -s "$S" errprob "$1" "$2" "$3" || fail "errprob $1 $2 $3"
	ok "link $1 -> $2: error probability $3"
}

run multishot $PY "$SHARE/evidence.py" hwsim:wlan0 "$S" "$MS" 54x2,24x2 "$ABSENT"
link "$A" "$AP" 0.2
link "$AP" "$A" 0.2
run split $PY "$SHARE/evidence.py" hwsim:wlan0 "$S" "$SPLIT" 54x1
link "$A" "$AP" 0.3
link "$AP" "$A" 0.0
run same $PY "$SHARE/oneshot.py" --backend hwsim:wlan0 --count "$SAME"
run same_c env LD_LIBRARY_PATH="$SHARE" "$SHARE/oneshot" hwsim:wlan0 "$SAME"
run bench $PY -m sdmac bench oneshot --backend hwsim:wlan0 --mode back-to-back --count "$BENCH" --json "$O/bench.json"
stop_daemon "$MD_PID" "$T/mediumd.log"
echo "HE PASS"
