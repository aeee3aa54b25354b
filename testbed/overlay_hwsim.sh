#!/bin/sh
# The TDMA overlay on hwsim: crates/sdmac-overlay/examples/overlay_run.rs (the same
# overlay code the emu tests run) on four mac80211_hwsim radios whose medium is
# sdmac-mediumd (runs in the guest, as root). Used by tests/test_vm_overlay_hwsim.py.
#
#   python3 testbed/run.py --share DIR testbed/overlay_hwsim.sh [ROUNDS [PACKETS [PER [SNR [RED_PER [PARTS]]]]]]
#
# DIR holds sdmac-mediumd, sdmac-mediumctl and overlay_run (built on the host:
# cargo build --release -p sdmac-mediumd -p sdmac-overlay --example overlay_run).
# Radio 0 (wlan0) is the coordinator, radios 1 and 2 (wlan1, wlan2) the two
# stations; each is opened by name as hwsim:wlanX (a monitor on the radio, channel 1).
# Radio 3 (wlan3) is the beacon source of the time base: alone in an IBSS on channel
# 1, it beacons every 1000 TU (so that a round under TCG, tenths of a second, divides
# the interval and beacons fall in contention periods) with its TSF (hwsim's: the kernel's CLOCK_REALTIME in µs
# plus the radio's offset), and the TDMA run is on that TSF (--time-base tsf): every
# interface fits it from the beacons it hears. The guest's clocks when the IBSS is up
# go to DIR/out/clocks ("realtime_s uptime_s"), so that the test can check the offset
# the fits found. The IBSS leaves after the TDMA run.
# The daemon (prob model, no loss, all four radios listed) is their medium; the
# program subscribes to its truth records on the control socket before it sends
# anything and checks them for exchanges that overlapped on air.
# Then the EDF overlay (and the MAC's FIFO for comparison) on the same two stations.
# Then the retransmission overlay (the MAC's back-to-back retries, then retries
# beyond a burst) from wlan0 to wlan1 over a lossy link: the daemon is restarted with
# a configuration that gives the link wlan0 <-> wlan1 an error probability of PER
# (default 0.3; the configuration cannot express bursty loss) both ways.
# Then the rate adaptation (Minstrel-like, then a fixed series at 54 Mb/s) from wlan0
# to wlan1, PACKETS x 5 packets each: the daemon is restarted with the snr model, the
# link wlan0 <-> wlan1 at SNR dB (default 15), the others at 30 dB; its error model
# (NIST) loses high rates at that SNR and lets low rates through.
# Then seamless redundancy: wlan0 (2412 MHz) -> wlan2 (2412 MHz) and wlan1 (2437 MHz)
# -> wlan3 (2437 MHz), each monitor opened on its channel; the daemon restarted with
# the prob model, the link wlan0 <-> wlan2 (the first channel) at error probability
# RED_PER (default 0.3), the second channel without loss. PACKETS x 2 packets per mode
# (one channel, two, two with cancelling).
# PARTS (default "tdma edf retx retx-linux rate redundancy") picks the parts to run.
# Each run's stdout (text, then one JSON object on the last line), stderr and exit
# status go to DIR/out/{tdma,edf,retx,retx_linux,rate,redundancy}.{out,err,rc}; the test judges them.
# This script checks the set-up ("OH OK: ...") and ends with "OH PASS".
set -u
T=/tmp/oh
mkdir -p "$T"
PREFIX=OH
. /vmrun/lib.sh

O=$SHARE/out
mkdir -p "$O"
ROUNDS=${1:-50}
PACKETS=${2:-40}
PER=${3:-0.3}
SNR=${4:-15}
RED_PER=${5:-0.3}
PARTS=${6:-tdma edf retx retx-linux rate redundancy}
has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
# Of each part's stdout, the text (the JSON line on the last is for the test).
part_show() { grep -v '^{' "$1"; }
S=$T/ctl.sock
MD=$SHARE/sdmac-mediumd
RUN=$SHARE/overlay_run
[ -x "$RUN" ] || fail "$RUN is not there"
[ -x "$MD" ] || fail "$MD is not there"

hwsim_mediumd 4
for i in 0 1 2 3; do
	[ -d "/sys/class/net/wlan$i" ] || fail "no wlan$i"
done
ok "radios wlan0 ($(mac 0)), wlan1 ($(mac 1)), wlan2 ($(mac 2)), wlan3 ($(mac 3))"
if has tdma; then
iw dev wlan3 set type ibss || fail "wlan3: set type ibss"
ip link set wlan3 up || fail "wlan3 up"
iw dev wlan3 ibss join sdmac-tsf 2412 fixed-freq 02:5d:ac:00:00:07 beacon-interval 1000 || fail "wlan3: ibss join"
wait_for 10 sh -c "iw dev wlan3 link | grep -q 'Joined IBSS'" || fail "wlan3 did not join its IBSS"
echo "$(date +%s) $(cut -d' ' -f1 /proc/uptime)" >"$O/clocks"
ok "wlan3 beacons in IBSS sdmac-tsf on 2412 MHz (clocks: $(cat "$O/clocks"))"

run_part tdma 300 "$RUN" tdma --coordinator hwsim:wlan0 --station hwsim:wlan1 --station hwsim:wlan2 \
	--socket "$S" --rounds "$ROUNDS" --time-base tsf --beacon-tu 1000 --json
iw dev wlan3 ibss leave || fail "wlan3: ibss leave"
ip link set wlan3 down
fi
# EDF, then the MAC's FIFO, on the same two stations (times scaled by 10: the VM's
# request path takes milliseconds under TCG).
if has edf; then
run_part edf 300 "$RUN" edf --coordinator hwsim:wlan0 --station hwsim:wlan1 --station hwsim:wlan2 \
	--socket "$S" --scale 10 --run-ms 400 --json
fi
stop_daemon "$MD_PID" "$T/mediumd.log" "stopped cleanly after tdma and edf"
# The retransmission overlay over a lossy link (times scaled by 10, as for edf).
if has retx; then
part_on_daemon 4 "model : { type = \"prob\"; default_prob = 0.0; links = ((0, 1, $PER)); };" \
	retx 300 "$RUN" retx --sender hwsim:wlan0 --receiver hwsim:wlan1 --socket "$S" \
	--packets "$PACKETS" --scale 10 --json
fi
# The same retransmission run through the linux backend on the same radios
# (linux:wlanX: nl80211 and a monitor, TX status from the kernel, no daemon truth in
# the confirmations); the daemon's truth records still count the attempts on air.
if has retx-linux; then
part_on_daemon 4 "model : { type = \"prob\"; default_prob = 0.0; links = ((0, 1, $PER)); };" \
	retx-linux 300 "$RUN" retx --sender linux:wlan0 --receiver linux:wlan1 --socket "$S" \
	--packets "$PACKETS" --scale 10 --json
fi
# The rate adaptation over a link whose loss depends on the rate.
if has rate; then
part_on_daemon 4 "model : { type = \"snr\"; default_snr = 30; links = ((0, 1, $SNR)); };" \
	rate 600 "$RUN" rate --sender hwsim:wlan0 --receiver hwsim:wlan1 --socket "$S" \
	--packets $((PACKETS * 5)) --json
fi
# Seamless redundancy on two channels, the first lossy.
if has redundancy; then
part_on_daemon 4 "model : { type = \"prob\"; default_prob = 0.0; links = ((0, 2, $RED_PER)); };" \
	redundancy 600 "$RUN" redundancy --sender hwsim:wlan0 --sender hwsim:wlan1 \
	--receiver hwsim:wlan2 --receiver hwsim:wlan3 --freq 2412 --freq 2437 --socket "$S" \
	--packets $((PACKETS * 2)) --json
fi
echo "---- monitors left after the runs"
iw dev | grep -c "type monitor"
echo "OH PASS"
