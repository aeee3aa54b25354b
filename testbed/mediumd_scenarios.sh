#!/bin/sh
# Scenarios of sdmac-mediumd against the real kernel (runs in the guest, as root):
# mac80211_hwsim radios, one network namespace per radio, the daemon as their
# medium. Used by tests/test_vm_mediumd_scenarios.py.
#
#   python3 testbed/run.py --share DIR testbed/mediumd_scenarios.sh SCENARIO mediumd=/share/sdmac-mediumd
#
# Every scenario but lateadd lists its radios in a wmediumd configuration, so they
# are stations of a channel's medium from the moment it is created (see lateadd).
#
# SCENARIO is one of
#   prob      three radios A, B, C in one IBSS (2412 MHz), wmediumd prob model:
#             A-B lose 30 % of the frames (both directions, so DATA and ACK),
#             A-C and B-C nothing. Pings A->B and A->C; prints the change of the
#             kernel's per-peer counters (iw station get: tx packets, tx retries,
#             tx failed) over each ping run ("MEASURE prob ...").
#   channels  four radios, pair 1 (A, B) in an IBSS on 2412 MHz, pair 2 (C, D) in
#             another IBSS on 2437 MHz, unicast data at a fixed 1 Mb/s so that
#             airtime, not CPU, limits throughput; pings on both pairs, then iperf3
#             UDP on pair 1 alone, pair 2 alone, both at once ("MEASURE channels ...").
#             "channels same" puts pair 2 on 2412 MHz too (control: they share);
#             "channels threads" runs the daemon with --threads (a thread per
#             channel's medium; each pair must still get its channel's airtime).
#   hidden    three radios, wmediumd snr model: A-B and B-C 30 dB, A-C -10 dB;
#             one IBSS on 2412 MHz. A-B and B-C ping, A-C does not, A never lists
#             C as a peer; then A->B and C->B UDP at once (a hidden-terminal pair)
#             and A->B alone, with A's retries to B ("MEASURE hidden ...").
#   kill      an open AP (hostapd) and a station (wpa_supplicant) associated
#             through the daemon; the daemon is SIGKILLed: the kernel must fall
#             back to its own medium, traffic must go on, the interfaces must go
#             down and up, the station reassociate, a new daemon register and
#             carry traffic, hostapd/wpa_supplicant stop, and hwsim unload.
#   lateadd   (exposes a daemon bug) no configuration; A floods B at 1 Mb/s while
#             C, D, E join the IBSS; then C, D, E ping B ("MEASURE lateadd ...").
#   linkflip  (exposes a daemon bug) A-C, A-D at -10 dB; while A floods B, the
#             control socket sets them to 30 dB; then C, D ping B.
#             "lateadd noflood" / "linkflip noflood": the same on an idle channel.
#
# "threads" after any scenario starts the daemon with --threads, "coalesce" with
# --coalesce-us 100 (a delivery leaves with its TX status at the ACK's end), "epoll"
# with --epoll (the loop without io_uring).
#
# Prints "MD OK: <what>" per check, "MEASURE <scenario> key=value ..." lines for
# the test to judge, the daemon's log (with its counters at SIGTERM), and
# "MD PASS" at the end; exits 1 at the first failed check after dumping logs.
set -u

T=/tmp/md
mkdir -p "$T"

PREFIX=MD
. /vmrun/lib.sh
# The number of replies in busybox/iputils ping's summary.
replies() { sed -n 's/.* \([0-9][0-9]*\) \(packets \)\{0,1\}received.*/\1/p'; }

SCENARIO=${1:-}
[ $# -gt 0 ] && shift
MEDIUMD=
VARIANT=
MD_ARGS=
for a in "$@"; do
	case "$a" in
		mediumd=*) MEDIUMD=${a#mediumd=} ;;
		threads) MD_ARGS="${MD_ARGS:+$MD_ARGS }--threads" ;;
		coalesce) MD_ARGS="${MD_ARGS:+$MD_ARGS }--coalesce-us 100" ;;
		epoll) MD_ARGS="${MD_ARGS:+$MD_ARGS }--epoll" ;;
		*) VARIANT=$a ;;
	esac
done
[ -n "$MEDIUMD" ] || fail "no mediumd=PATH given"
[ -x "$MEDIUMD" ] || fail "$MEDIUMD is not executable"

# ---- the daemon
MD_PID=
MD_SOCK=
FALLBACKS=0
# How many times the kernel has logged its fall-back to the perfect medium.
fallbacks() { dmesg | grep -c "switching to perfect channel medium"; }
# start_mediumd [CONFIG_TEXT]: starts the daemon (with the configuration, if any)
# and waits for its registration.
start_mediumd() {
	log=$T/mediumd.log
	[ -f "$log" ] && mv "$log" "$T/mediumd-$(date +%s%N).log"
	set -- "${1:-}"
	if [ -n "$1" ]; then
		printf '%s\n' "$1" >"$T/medium.cfg"
		set -- -c "$T/medium.cfg"
	else
		set --
	fi
	[ -n "$MD_SOCK" ] && set -- "$@" -s "$MD_SOCK"
	# shellcheck disable=SC2086 # MD_ARGS: words without spaces of their own
	"$MEDIUMD" -l 5 $MD_ARGS "$@" >"$log" 2>&1 &
	MD_PID=$!
	FALLBACKS=$(fallbacks)
	wait_for 10 grep -q "REGISTER SENT!" "$log" || { cat "$log"; fail "$MEDIUMD did not register"; }
	ok "medium daemon registered (pid $MD_PID${MD_ARGS:+, $MD_ARGS})"
}
# stop_mediumd: SIGTERM; it must exit 0 within 5 s; prints its log (counters).
stop_mediumd() {
	[ "$(fallbacks)" -eq "$FALLBACKS" ] || fail "the kernel fell back to its own medium while the daemon ran"
	stop_daemon "$MD_PID" "$T/mediumd.log"
	MD_PID=
}

# ---- radios: radio i is wlan<i> (address 02:00:00:00:0i:00) in namespace n<i>
radios() {
	modprobe mac80211_hwsim radios="$1" || fail "modprobe mac80211_hwsim radios=$1"
}
to_netns() {
	i=0
	while [ "$i" -lt "$1" ]; do
		p=$(cat /sys/class/net/wlan$i/phy80211/name) || fail "no wlan$i"
		ip netns add n$i || fail "ip netns add n$i"
		iw phy "$p" set netns name n$i || fail "iw phy $p set netns name n$i"
		ip netns exec n$i ip link set lo up
		i=$((i + 1))
	done
	ok "$1 radios, each in its own network namespace"
}
# ibss I SSID FREQ BSSID IP: radio I joins an IBSS (fixed BSSID, so every member is
# in the same cell from the start) and gets IP/24.
ibss() {
	N="ip netns exec n$1"
	$N iw dev wlan$1 set type ibss || fail "wlan$1: set type ibss"
	$N ip link set wlan$1 up || fail "wlan$1 up"
	$N iw dev wlan$1 ibss join "$2" "$3" fixed-freq "$4" || fail "wlan$1: ibss join $2 $3"
	$N ip addr add "$5/24" dev wlan$1
	wait_for 10 sh -c "$N iw dev wlan$1 link | grep -q 'Joined IBSS $4'" || fail "wlan$1 did not join IBSS $4"
}
# pingn FROM_RADIO IP COUNT INTERVAL: replies received.
pingn() { ip netns exec n$1 ping -c "$3" -i "$4" -W 2 "$2" 2>&1 | replies; }
# counters I PEER_RADIO: "tx_packets tx_retries tx_failed" of radio I's station
# entry for PEER (mac80211: tx packets counted when handed to the driver, one per
# frame; tx retries += attempts - 1 of every TX status; tx failed += 1 per status
# without ACK).
counters() {
	ip netns exec n$1 iw dev wlan$1 station get "$(mac "$2")" 2>/dev/null |
		awk '/tx packets:/{p=$3} /tx retries:/{r=$3} /tx failed:/{f=$3} END{print p+0, r+0, f+0}'
}
# hwsim's per-radio count of frames it could not hand to the daemon.
d_tx_failed() {
	ip netns exec n$1 ethtool -S wlan$1 2>/dev/null | awk '/d_tx_failed:/{print $2}'
}

# ------------------------------------------------------------------ prob
scenario_prob() {
	radios 3
	start_mediumd "$(ids 3)
model : { type = \"prob\"; default_prob = 0.0; links = ( (0, 1, 0.3) ); };"
	to_netns 3
	for i in 0 1 2; do ibss $i sdmac-prob 2412 02:5d:ac:00:00:01 10.0.0.$((i + 1)); done
	ok "A, B, C joined IBSS sdmac-prob on 2412 MHz"
	wait_for 20 sh -c "ip netns exec n0 ping -c 1 -W 1 10.0.0.2" || fail "A cannot reach B"
	wait_for 20 sh -c "ip netns exec n0 ping -c 1 -W 1 10.0.0.3" || fail "A cannot reach C"
	ok "A reaches B (lossy link) and C (perfect link)"
	COUNT=${PROB_COUNT:-300}
	for peer in 1 2; do
		sleep 0.5
		set -- $(counters 0 $peer) $(counters $peer 0)
		a0=$1 a1=$2 a2=$3 b0=$4 b1=$5 b2=$6
		rx=$(pingn 0 10.0.0.$((peer + 1)) "$COUNT" 0.01)
		sleep 0.5
		set -- $(counters 0 $peer) $(counters $peer 0)
		echo "MEASURE prob peer=$peer count=$COUNT replies=${rx:-0}" \
			"fwd_packets=$(($1 - a0)) fwd_retries=$(($2 - a1)) fwd_failed=$(($3 - a2))" \
			"back_packets=$(($4 - b0)) back_retries=$(($5 - b1)) back_failed=$(($6 - b2))"
	done
	ip netns exec n0 iw dev wlan0 station dump
	echo "MEASURE prob d_tx_failed=$(d_tx_failed 0),$(d_tx_failed 1),$(d_tx_failed 2)"
	stop_mediumd
}

# ------------------------------------------------------------------ channels
# udp FROM IP KBITS SECONDS OUTFILE: iperf3 UDP; OUTFILE gets the receiver's kbit/s.
udp() {
	ip netns exec n$1 iperf3 -c "$2" -u -b "${3}K" -l 1400 -t "$4" -f k >"$5.log" 2>&1
	awk '/receiver/{for (i = 1; i < NF; i++) if ($(i + 1) == "Kbits/sec") v = $i} END{print v + 0}' "$5.log" >"$5"
}
scenario_channels() {
	F2=2437
	[ "$VARIANT" = same ] && F2=2412
	radios 4
	# The daemon's per-second, per-medium statistics judge whether the channels keep
	# their own air (printed as "STATS channels {json}" at the end).
	MD_ARGS="${MD_ARGS:+$MD_ARGS }--stats $T/stats.jsonl"
	start_mediumd "$(ids 4)"
	to_netns 4
	ibss 0 sdmac-ch1 2412 02:5d:ac:00:00:01 10.0.1.1
	ibss 1 sdmac-ch1 2412 02:5d:ac:00:00:01 10.0.1.2
	ibss 2 sdmac-ch2 $F2 02:5d:ac:00:00:02 10.0.2.1
	ibss 3 sdmac-ch2 $F2 02:5d:ac:00:00:02 10.0.2.2
	ok "pair 1 in IBSS sdmac-ch1 on 2412 MHz, pair 2 in IBSS sdmac-ch2 on $F2 MHz"
	for i in 0 1 2 3; do
		ip netns exec n$i iw dev wlan$i set bitrates legacy-2.4 1 || fail "wlan$i: set bitrates legacy-2.4 1"
	done
	wait_for 20 sh -c "ip netns exec n0 ping -c 1 -W 1 10.0.1.2" || fail "pair 1 (2412 MHz) cannot ping"
	wait_for 20 sh -c "ip netns exec n2 ping -c 1 -W 1 10.0.2.2" || fail "pair 2 ($F2 MHz) cannot ping"
	pingn 0 10.0.1.2 10 0.05 >"$T/ping1" &
	p1=$!
	pingn 2 10.0.2.2 10 0.05 >"$T/ping2" &
	p2=$!
	wait $p1
	wait $p2
	r1=$(cat "$T/ping1")
	r2=$(cat "$T/ping2")
	[ "${r1:-0}" -ge 9 ] || fail "pair 1: ${r1:-0} of 10 pings"
	[ "${r2:-0}" -ge 9 ] || fail "pair 2: ${r2:-0} of 10 pings"
	ok "both pairs ping at once: pair 1 $r1/10, pair 2 $r2/10"
	ip netns exec n0 iw dev wlan0 link | grep -q "freq: 2412" || fail "pair 1 is not on 2412 MHz"
	ip netns exec n2 iw dev wlan2 link | grep -q "freq: $F2" || fail "pair 2 is not on $F2 MHz"
	ip netns exec n1 iperf3 -s -D -1 >/dev/null 2>&1
	ip netns exec n3 iperf3 -s -D -1 >/dev/null 2>&1
	S=${UDP_SECONDS:-4}
	sleep 0.5
	udp 0 10.0.1.2 2000 "$S" "$T/solo1"
	ip netns exec n1 iperf3 -s -D -1 >/dev/null 2>&1
	sleep 0.5
	udp 2 10.0.2.2 2000 "$S" "$T/solo2"
	ip netns exec n3 iperf3 -s -D -1 >/dev/null 2>&1
	sleep 0.5
	udp 0 10.0.1.2 2000 "$S" "$T/both1" &
	p1=$!
	udp 2 10.0.2.2 2000 "$S" "$T/both2" &
	p2=$!
	wait $p1
	wait $p2
	for f in solo1 solo2 both1 both2; do
		echo "---- iperf3 $f"
		grep -E "sender|receiver" "$T/$f.log"
	done
	echo "MEASURE channels f1=2412 f2=$F2 solo1=$(cat "$T/solo1") solo2=$(cat "$T/solo2") both1=$(cat "$T/both1") both2=$(cat "$T/both2") kbit"
	echo "MEASURE channels d_tx_failed=$(d_tx_failed 0),$(d_tx_failed 1),$(d_tx_failed 2),$(d_tx_failed 3)"
	stop_mediumd
	[ -s "$T/stats.jsonl" ] || fail "the daemon wrote no --stats lines"
	sed 's/^/STATS channels /' "$T/stats.jsonl"
}

# ------------------------------------------------------------------ hidden
scenario_hidden() {
	radios 3
	start_mediumd "$(ids 3)
model : { type = \"snr\"; default_snr = -10; links = ( (0, 1, 30), (1, 2, 30), (0, 2, -10) ); };"
	to_netns 3
	for i in 0 1 2; do ibss $i sdmac-hidden 2412 02:5d:ac:00:00:03 10.0.0.$((i + 1)); done
	ok "A, B, C joined IBSS sdmac-hidden on 2412 MHz"
	wait_for 20 sh -c "ip netns exec n0 ping -c 1 -W 1 10.0.0.2" || fail "A cannot reach B"
	wait_for 20 sh -c "ip netns exec n2 ping -c 1 -W 1 10.0.0.2" || fail "C cannot reach B"
	ab=$(pingn 0 10.0.0.2 10 0.05)
	ba=$(pingn 1 10.0.0.1 10 0.05)
	bc=$(pingn 1 10.0.0.3 10 0.05)
	cb=$(pingn 2 10.0.0.2 10 0.05)
	ac=$(pingn 0 10.0.0.3 5 0.2)
	ca=$(pingn 2 10.0.0.1 5 0.2)
	echo "MEASURE hidden ab=${ab:-0} ba=${ba:-0} bc=${bc:-0} cb=${cb:-0} ac=${ac:-0}/5 ca=${ca:-0}/5"
	[ "${ab:-0}" -ge 9 ] && [ "${ba:-0}" -ge 9 ] || fail "A-B (30 dB): A->B ${ab:-0}/10, B->A ${ba:-0}/10"
	[ "${bc:-0}" -ge 9 ] && [ "${cb:-0}" -ge 9 ] || fail "B-C (30 dB): B->C ${bc:-0}/10, C->B ${cb:-0}/10"
	ok "A-B and B-C (30 dB) ping both ways: $ab $ba $bc $cb of 10"
	[ "${ac:-0}" -eq 0 ] && [ "${ca:-0}" -eq 0 ] || fail "A-C (-10 dB): A->C ${ac:-0}/5, C->A ${ca:-0}/5 got through"
	ok "A-C (-10 dB) cannot ping either way (0 of 5)"
	ip netns exec n0 iw dev wlan0 station dump | grep '^Station'
	ip netns exec n1 iw dev wlan1 station dump | grep '^Station'
	ip netns exec n0 iw dev wlan0 station dump | grep -qi "Station $(mac 2)" && fail "A lists C as an IBSS peer: it heard C"
	ip netns exec n2 iw dev wlan2 station dump | grep -qi "Station $(mac 0)" && fail "C lists A as an IBSS peer: it heard A"
	ip netns exec n1 iw dev wlan1 station dump | grep -qi "Station $(mac 0)" || fail "B does not list A"
	ip netns exec n1 iw dev wlan1 station dump | grep -qi "Station $(mac 2)" || fail "B does not list C"
	ok "B lists A and C as peers; A and C do not list each other"
	# Hidden terminals: A and C cannot sense each other, so their frames to B
	# overlap there. A's retries to B, alone and with C sending to B at once.
	for i in 0 1 2; do
		ip netns exec n$i iw dev wlan$i set bitrates legacy-2.4 1 || fail "wlan$i: set bitrates legacy-2.4 1"
	done
	S=${UDP_SECONDS:-3}
	ip netns exec n1 iperf3 -s -D -p 5201 >/dev/null 2>&1
	ip netns exec n1 iperf3 -s -D -p 5202 >/dev/null 2>&1
	sleep 0.5
	set -- $(counters 0 1)
	a0=$1 a1=$2 a2=$3
	ip netns exec n0 iperf3 -c 10.0.0.2 -p 5201 -u -b 500K -l 1000 -t "$S" -f k >"$T/alone.log" 2>&1
	sleep 0.5
	set -- $(counters 0 1)
	echo "MEASURE hidden phase=alone packets=$(($1 - a0)) retries=$(($2 - a1)) failed=$(($3 - a2))"
	a0=$1 a1=$2 a2=$3
	ip netns exec n2 iperf3 -c 10.0.0.2 -p 5202 -u -b 500K -l 1000 -t "$S" -f k >"$T/c.log" 2>&1 &
	pc=$!
	ip netns exec n0 iperf3 -c 10.0.0.2 -p 5201 -u -b 500K -l 1000 -t "$S" -f k >"$T/a.log" 2>&1
	wait $pc
	sleep 0.5
	set -- $(counters 0 1)
	echo "MEASURE hidden phase=with_c packets=$(($1 - a0)) retries=$(($2 - a1)) failed=$(($3 - a2))"
	grep -h receiver "$T/alone.log" "$T/a.log" "$T/c.log"
	echo "MEASURE hidden d_tx_failed=$(d_tx_failed 0),$(d_tx_failed 1),$(d_tx_failed 2)"
	stop_mediumd
}

# ------------------------------------------------------------------ kill
AP_PID=
STA_PID=
assoc_wait() {
	wait_for 30 sh -c "ip netns exec n1 wpa_cli -p /run/wpa_supplicant -i wlan1 status | grep -q '^wpa_state=COMPLETED'"
}
# stops PID with SIGTERM; fails if it is still there after 5 s.
stop_within() {
	kill -TERM "$2" 2>/dev/null || fail "$1 (pid $2) was already gone"
	n=0
	while kill -0 "$2" 2>/dev/null && [ $n -lt 25 ]; do sleep 0.2; n=$((n + 1)); done
	kill -0 "$2" 2>/dev/null && fail "$1 did not stop within 5 s of SIGTERM"
	wait "$2" 2>/dev/null
	ok "$1 stopped on SIGTERM"
}
scenario_kill() {
	# busybox's timeout would run its own ip/rmmod applets: give it the real paths.
	IP=$(command -v ip)
	radios 2
	start_mediumd "$(ids 2)"
	to_netns 2
	cat >"$T/hostapd.conf" <<EOF
interface=wlan0
driver=nl80211
ctrl_interface=/run/hostapd
ssid=sdmac-kill
hw_mode=g
channel=1
EOF
	ip netns exec n0 hostapd -t "$T/hostapd.conf" >"$T/hostapd.log" 2>&1 &
	AP_PID=$!
	wait_for 20 sh -c "ip netns exec n0 hostapd_cli -p /run/hostapd -i wlan0 status | grep -q '^state=ENABLED'" || fail "hostapd did not enable the AP"
	cat >"$T/wpa_supplicant.conf" <<EOF
ctrl_interface=/run/wpa_supplicant
network={
	ssid="sdmac-kill"
	scan_freq=2412
	key_mgmt=NONE
}
EOF
	ip netns exec n1 wpa_supplicant -t -D nl80211 -i wlan1 -c "$T/wpa_supplicant.conf" >"$T/wpa_supplicant.log" 2>&1 &
	STA_PID=$!
	assoc_wait || fail "the station did not associate through the daemon"
	ip netns exec n0 ip addr add 10.0.0.1/24 dev wlan0
	ip netns exec n1 ip addr add 10.0.0.2/24 dev wlan1
	r=$(pingn 1 10.0.0.1 5 0.1)
	[ "${r:-0}" -ge 4 ] || fail "ping through the daemon: ${r:-0} of 5"
	ok "station associated and pings the AP through the daemon ($r/5)"
	# Traffic in flight while the daemon dies.
	pingn 1 10.0.0.1 100 0.01 >"$T/flood" &
	pp=$!
	sleep 0.3
	kill -KILL "$MD_PID"
	wait "$MD_PID" 2>/dev/null
	ok "medium daemon SIGKILLed during a ping flood"
	wait_for 5 sh -c "dmesg | grep -q 'switching to perfect channel medium'" || fail "the kernel did not log the switch to its perfect medium"
	dmesg | grep 'switching to perfect channel medium'
	ok "the kernel switched to its perfect channel medium"
	wait $pp
	r=$(pingn 1 10.0.0.1 10 0.1)
	echo "MEASURE kill flood_across_kill=$(cat "$T/flood")/100 after_kill_ping=${r:-0}/10"
	[ "${r:-0}" -ge 9 ] || fail "ping after the kill: ${r:-0} of 10"
	ok "traffic goes on without the daemon ($r/10)"
	ip netns exec n1 iw dev wlan1 link | grep -q "Connected to" || fail "the station lost its association"
	for i in 0 1; do
		timeout 10 "$IP" netns exec n$i "$IP" link set wlan$i down || fail "wlan$i down hung or failed"
		timeout 10 "$IP" netns exec n$i "$IP" link set wlan$i up || fail "wlan$i up hung or failed"
	done
	ok "both interfaces went down and up"
	wait_for 20 sh -c "ip netns exec n0 hostapd_cli -p /run/hostapd -i wlan0 status | grep -q '^state=ENABLED'" || fail "hostapd did not re-enable the AP after down/up"
	assoc_wait || fail "the station did not reassociate after down/up"
	ip netns exec n0 ip addr add 10.0.0.1/24 dev wlan0 2>/dev/null
	ip netns exec n1 ip addr add 10.0.0.2/24 dev wlan1 2>/dev/null
	wait_for 10 sh -c "ip netns exec n1 ping -c 1 -W 1 10.0.0.1" || fail "no ping after reassociation"
	ok "the station reassociated and pings again (in-kernel medium)"
	# A new daemon takes over.
	start_mediumd "$(ids 2)"
	wait_for 10 sh -c "ip netns exec n1 ping -c 1 -W 1 10.0.0.1" || fail "no ping through the new daemon"
	r=$(pingn 1 10.0.0.1 10 0.05)
	[ "${r:-0}" -ge 9 ] || fail "ping through the new daemon: ${r:-0} of 10"
	ok "a new daemon registered and carries the traffic ($r/10)"
	stop_mediumd
	stop_within wpa_supplicant "$STA_PID"
	stop_within hostapd "$AP_PID"
	for i in 0 1; do ip netns exec n$i ip link set wlan$i down; done
	timeout 20 "$(command -v rmmod)" mac80211_hwsim || fail "rmmod mac80211_hwsim hung or failed"
	ok "mac80211_hwsim unloaded"
}

# ------------------------------------------------------------------ lateadd, linkflip
# Both keep the channel busy: A floods B with UDP at a fixed 1 Mb/s (1400 B frames,
# ~12 ms each), so the medium is on air ~98 % of the time, and then change the medium
# under that traffic; afterwards every other radio must still be able to talk to B.
flood_start() {
	for i in "$@"; do
		ip netns exec n$i iw dev wlan$i set bitrates legacy-2.4 1 || fail "wlan$i: set bitrates legacy-2.4 1"
	done
	if [ "$VARIANT" = noflood ]; then
		# The control: the same steps on an idle channel.
		sleep 1 &
		FLOOD=$!
		return
	fi
	ip netns exec n1 iperf3 -s -D -1 >/dev/null 2>&1
	sleep 0.5
	ip netns exec n0 iperf3 -c 10.0.0.2 -u -b 2000K -l 1400 -t "${FLOOD_SECONDS:-6}" -f k >"$T/flood.log" 2>&1 &
	FLOOD=$!
	sleep 1
}
# after_flood RADIO...: waits for the flood to end, then each RADIO pings B (5 at
# once, in parallel) and prints "MEASURE <scenario> rI=replies/5 dropI=d_tx_dropped".
after_flood() {
	wait $FLOOD
	[ -f "$T/flood.log" ] && grep -E "sender|receiver" "$T/flood.log"
	pids=
	for i in "$@"; do
		pingn $i 10.0.0.2 5 0.2 >"$T/reach$i" &
		pids="$pids $!"
	done
	for p in $pids; do wait "$p"; done
	line="MEASURE $SCENARIO"
	for i in "$@"; do
		drop=$(ip netns exec n$i ethtool -S wlan$i 2>/dev/null | awk '/d_tx_dropped:/{print $2}')
		line="$line r$i=$(cat "$T/reach$i")/5 drop$i=$drop"
	done
	echo "$line"
}
# lateadd: no configuration, so a radio becomes a station of the channel's medium
# when its first frame arrives. C, D, E join the IBSS while A floods B: their
# first frames reach the daemon while A's are on air.
scenario_lateadd() {
	radios 5
	start_mediumd
	to_netns 5
	ibss 0 sdmac-late 2412 02:5d:ac:00:00:04 10.0.0.1
	ibss 1 sdmac-late 2412 02:5d:ac:00:00:04 10.0.0.2
	wait_for 20 sh -c "ip netns exec n0 ping -c 1 -W 1 10.0.0.2" || fail "A cannot reach B"
	ok "A and B in IBSS sdmac-late on 2412 MHz"
	flood_start 0 1
	for i in 2 3 4; do
		ibss $i sdmac-late 2412 02:5d:ac:00:00:04 10.0.0.$((i + 1))
		sleep 0.3
	done
	ok "C, D, E joined while A flooded B"
	after_flood 2 3 4
	stop_mediumd
}
# linkflip: a configuration with A-C and A-D at -10 dB (C and D cannot sense A),
# then, while A floods B, the control socket raises A-C and A-D to 30 dB (as
# Mininet-WiFi does when stations move).
scenario_linkflip() {
	MD_SOCK=$T/wmediumd.sock
	CTL=$(dirname "$MEDIUMD")/sdmac-mediumctl
	[ -x "$CTL" ] || fail "no $CTL"
	radios 4
	start_mediumd "$(ids 4)
model : { type = \"snr\"; default_snr = 30; links = ( (0, 2, -10), (0, 3, -10) ); };"
	to_netns 4
	for i in 0 1 2 3; do ibss $i sdmac-flip 2412 02:5d:ac:00:00:05 10.0.0.$((i + 1)); done
	for i in 0 2 3; do
		wait_for 20 sh -c "ip netns exec n$i ping -c 1 -W 1 10.0.0.2" || fail "radio $i cannot reach B"
	done
	ok "A, C, D reach B; A-C and A-D at -10 dB"
	flood_start 0 1 2 3
	for i in 2 3; do
		"$CTL" -s "$MD_SOCK" snr "$(mac 0)" "$(mac $i)" 30 || fail "mediumctl snr A radio$i 30"
		sleep 0.5
	done
	ok "A-C and A-D raised to 30 dB while A flooded B"
	after_flood 2 3
	stop_mediumd
}

case "$SCENARIO" in
	prob | channels | hidden | kill | lateadd | linkflip) "scenario_$SCENARIO" ;;
	*) fail "unknown scenario '$SCENARIO' (prob, channels, hidden, kill, lateadd, linkflip)" ;;
esac
echo "MD PASS"
