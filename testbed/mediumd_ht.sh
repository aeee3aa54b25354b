#!/bin/sh
# 802.11n/ac and 802.11s mesh through sdmac-mediumd (runs in the guest, as root):
# mac80211_hwsim radios, one network namespace per radio, real hostapd and
# wpa_supplicant, the daemon as their medium with a capture (-p) and statistics
# (--stats) written to the share. Used by tests/test_vm_mediumd_ht.py, which reads
# the capture with tshark on the host.
#
#   python3 testbed/run.py --share DIR testbed/mediumd_ht.sh SCENARIO mediumd=/share/sdmac-mediumd
#
# SCENARIO is one of
#   ht20   hostapd AP on 2412 MHz with ieee80211n=1 (20 MHz) and a station
#          (wpa_supplicant); ping and iperf3 TCP station -> AP.
#   ht40   the same with ht_capab=[HT40+] (40 MHz, channels 1 + 5).
#   vht80  hostapd AP on 5 GHz, hw_mode=a channel 36, ieee80211n=1, ieee80211ac=1,
#          ht_capab=[HT40+], vht_oper_chwidth=1, vht_oper_centr_freq_seg0_idx=42
#          (80 MHz, 5170-5250 MHz), country US (the world domain forbids starting a
#          BSS at 5 GHz); a station; ping and iperf3.
#   mesh   three radios A, B, C in an 802.11s mesh started by wpa_supplicant
#          (mode=5, 2412 MHz, HT20 by default) with the wmediumd snr model A-B and
#          B-C 30 dB, A-C -10 dB: A and C never peer, A reaches C through B
#          (HWMP); ping and iperf3 A -> C, A's mesh path to C shows B as next hop.
# "threads" after the scenario runs the daemon with --threads (a thread per medium).
#
# Files on the share: NAME.pcapng (the daemon's capture), NAME-stats.jsonl,
# NAME-iperf.json (iperf3 -J of the client). Prints "MD OK: <what>" per check,
# "MEASURE <scenario> key=value ..." lines, the daemon's log (counters at SIGTERM),
# and "MD PASS" at the end; exits 1 at the first failed check after dumping logs.
set -u

T=/tmp/md
mkdir -p "$T"

PREFIX=MD
. /vmrun/lib.sh
replies() { sed -n 's/.* \([0-9][0-9]*\) \(packets \)\{0,1\}received.*/\1/p'; }
# within SECONDS COMMAND...: poll every 0.5 s until COMMAND succeeds or SECONDS of
# wall-clock time passed (lib.sh's wait_for counts polls, which under a loaded
# emulator take far longer than their sleep).
within() {
	end=$(($(date +%s) + $1))
	shift
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.5
	done
}

SCENARIO=${1:-}
[ $# -gt 0 ] && shift
MEDIUMD=
MD_ARGS=
for a in "$@"; do
	case "$a" in
		mediumd=*) MEDIUMD=${a#mediumd=} ;;
		threads) MD_ARGS=--threads ;;
		*) fail "unknown argument $a" ;;
	esac
done
[ -n "$MEDIUMD" ] || fail "no mediumd=PATH given"
[ -x "$MEDIUMD" ] || fail "$MEDIUMD is not executable"
OUT=${SHARE:-/tmp}

# ---- the daemon, at its default log level (refusals are reported there)
MD_PID=
# start_mediumd CONFIG_TEXT: starts the daemon with the configuration, a capture and
# statistics, and waits for its registration.
start_mediumd() {
	printf '%s\n' "$1" >"$T/medium.cfg"
	# shellcheck disable=SC2086 # MD_ARGS: one word or none
	"$MEDIUMD" $MD_ARGS -c "$T/medium.cfg" -p "$OUT/$SCENARIO.pcapng" --stats "$OUT/$SCENARIO-stats.jsonl" >"$T/mediumd.log" 2>&1 &
	MD_PID=$!
	wait_for 10 grep -q "REGISTER SENT!" "$T/mediumd.log" || { cat "$T/mediumd.log"; fail "$MEDIUMD did not register"; }
	ok "medium daemon registered (pid $MD_PID${MD_ARGS:+, $MD_ARGS})"
}
stop_mediumd() {
	dmesg | grep -q "switching to perfect channel medium" && fail "the kernel fell back to its own medium while the daemon ran"
	stop_daemon "$MD_PID" "$T/mediumd.log"
}

# ---- radios: radio i is wlan<i> (address 02:00:00:00:0i:00) in namespace n<i>
setup_radios() {
	modprobe mac80211_hwsim radios="$1" || fail "modprobe mac80211_hwsim radios=$1"
	start_mediumd "$2"
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
d_tx_failed() {
	ip netns exec n$1 ethtool -S wlan$1 2>/dev/null | awk '/d_tx_failed:/{print $2}'
}
# traffic FROM_RADIO TO_RADIO IP: ping (50 at 20 ms) and iperf3 TCP for 3 s.
traffic() {
	within 40 sh -c "ip netns exec n$1 ping -c 1 -W 1 $3" || fail "radio $1 cannot reach $3"
	rx=$(ip netns exec n$1 ping -c 50 -i 0.02 -W 2 "$3" 2>&1 | replies)
	ok "ping $3 from radio $1: ${rx:-0}/50"
	ip netns exec n$2 iperf3 -s -D -1 >/dev/null 2>&1
	sleep 0.5
	ip netns exec n$1 iperf3 -c "$3" -t 3 -J >"$OUT/$SCENARIO-iperf.json" 2>"$T/iperf.err"
	ok "iperf3 TCP to $3 ran (status $?)"
	echo "MEASURE $SCENARIO ping_sent=50 ping_replies=${rx:-0}"
}

# ---- AP + station
AP_PID=
STA_PID=
# ap_sta FREQ HOSTAPD_LINES: an open AP on radio 0 (10.0.0.1), a station on radio 1
# (10.0.0.2), associated through the daemon.
ap_sta() {
	setup_radios 2 "$(ids 2)"
	{
		printf 'interface=wlan0\ndriver=nl80211\nctrl_interface=/run/hostapd\nssid=sdmac-%s\n' "$SCENARIO"
		printf '%s\n' "$2"
	} >"$T/hostapd.conf"
	ip netns exec n0 hostapd -t "$T/hostapd.conf" >"$T/hostapd.log" 2>&1 &
	AP_PID=$!
	within 60 sh -c "ip netns exec n0 hostapd_cli -p /run/hostapd -i wlan0 status | grep -q '^state=ENABLED'" || fail "hostapd did not enable the AP"
	ip netns exec n0 hostapd_cli -p /run/hostapd -i wlan0 status | grep -E '^(freq|channel|ieee80211n|ieee80211ac|secondary_channel|vht_oper_chwidth|vht_oper_centr_freq_seg0_idx)='
	ok "hostapd enabled the AP on $1 MHz"
	cat >"$T/wpa_supplicant.conf" <<EOF
ctrl_interface=/run/wpa_supplicant
network={
	ssid="sdmac-$SCENARIO"
	scan_freq=$1
	key_mgmt=NONE
}
EOF
	ip netns exec n1 wpa_supplicant -t -D nl80211 -i wlan1 -c "$T/wpa_supplicant.conf" >"$T/wpa_supplicant.log" 2>&1 &
	STA_PID=$!
	within 60 sh -c "ip netns exec n1 wpa_cli -p /run/wpa_supplicant -i wlan1 status | grep -q '^wpa_state=COMPLETED'" || fail "the station did not associate"
	ok "the station associated"
	ip netns exec n1 iw dev wlan1 link
	ip netns exec n1 iw dev wlan1 info | grep -E 'channel'
	ip netns exec n0 ip addr add 10.0.0.1/24 dev wlan0
	ip netns exec n1 ip addr add 10.0.0.2/24 dev wlan1
	traffic 1 0 10.0.0.1
	ip netns exec n1 iw dev wlan1 station dump | grep -E 'Station|tx bitrate|rx bitrate|tx packets|tx failed'
	echo "MEASURE $SCENARIO d_tx_failed=$(d_tx_failed 0),$(d_tx_failed 1)"
	kill -TERM "$STA_PID" "$AP_PID" 2>/dev/null
	wait "$STA_PID" "$AP_PID" 2>/dev/null
	stop_mediumd
}

scenario_ht20() {
	ap_sta 2412 "hw_mode=g
channel=1
ieee80211n=1
wmm_enabled=1"
}

scenario_ht40() {
	ap_sta 2412 "hw_mode=g
channel=1
ieee80211n=1
wmm_enabled=1
ht_capab=[HT40+]"
}

scenario_vht80() {
	iw reg set US || fail "iw reg set US"
	wait_for 5 sh -c "iw reg get | grep -q 'country US'" || fail "the regulatory domain did not change to US"
	ap_sta 5180 "hw_mode=a
channel=36
country_code=US
ieee80211d=1
ieee80211n=1
ieee80211ac=1
wmm_enabled=1
ht_capab=[HT40+]
vht_oper_chwidth=1
vht_oper_centr_freq_seg0_idx=42"
}

scenario_mesh() {
	setup_radios 3 "$(ids 3)
model : { type = \"snr\"; default_snr = 30; links = ( (0, 2, -10) ); };"
	i=0
	for i in 0 1 2; do
		cat >"$T/mesh$i.conf" <<EOF
ctrl_interface=/run/wpa_supplicant$i
network={
	ssid="sdmac-mesh"
	mode=5
	frequency=2412
	key_mgmt=NONE
}
EOF
		ip netns exec n$i wpa_supplicant -t -D nl80211 -i wlan$i -c "$T/mesh$i.conf" >"$T/mesh$i-wpas.log" 2>&1 &
		ip netns exec n$i ip addr add 10.0.0.$((i + 1))/24 dev wlan$i
	done
	# B peers with both; A and C each peer with B only.
	within 60 sh -c "[ \$(ip netns exec n1 iw dev wlan1 station dump | grep -c 'mesh plink:.*ESTAB') -eq 2 ]" || {
		ip netns exec n1 iw dev wlan1 station dump
		fail "B did not peer with both A and C"
	}
	ok "B peered with A and C"
	ip netns exec n0 iw dev wlan0 info | grep -E 'type|channel'
	ip netns exec n0 iw dev wlan0 station dump | grep -E 'Station|mesh plink|tx bitrate'
	ip netns exec n0 iw dev wlan0 station get "$(mac 2)" >/dev/null 2>&1 && fail "A lists C as a peer (they are out of range)"
	ok "A has no peer link to C"
	traffic 0 2 10.0.0.3
	mp=$(ip netns exec n0 iw dev wlan0 mpath get "$(mac 2)" 2>&1)
	echo "$mp"
	echo "$mp" | grep -q "$(mac 2) $(mac 1)" || fail "A's mesh path to C does not go through B"
	ok "A's mesh path to C has B as next hop (HWMP forwarding)"
	ip netns exec n1 iw dev wlan1 station dump | grep -E 'Station|tx bitrate|tx packets'
	echo "MEASURE mesh d_tx_failed=$(d_tx_failed 0),$(d_tx_failed 1),$(d_tx_failed 2)"
	stop_mediumd
}

case "$SCENARIO" in
	ht20 | ht40 | vht80 | mesh) "scenario_$SCENARIO" ;;
	*) fail "unknown scenario '$SCENARIO' (ht20, ht40, vht80 or mesh)" ;;
esac
echo "MD PASS"
