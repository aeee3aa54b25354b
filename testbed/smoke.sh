#!/bin/sh
# Smoke test of the sdmac VM test bed (runs in the guest, as root):
# two mac80211_hwsim radios; an open AP (hostapd, 2412 MHz) on one and a
# station (wpa_supplicant) on the other, each in its own network namespace;
# association and a ping across, on hwsim's in-kernel medium (no medium daemon).
#
#   python3 testbed/run.py testbed/smoke.sh
#
#   python3 testbed/run.py testbed/smoke.sh open wpa2   (also WPA2-PSK/CCMP)
#
# Arguments: the security modes to run one after the other (open, wpa2;
# default open), and optionally mediumd=PATH: run the medium daemon at PATH
# (sdmac-mediumd or wmediumd) instead of hwsim's in-kernel medium, and check that
# it registered, carried the traffic and stops cleanly on SIGTERM. Prints "SMOKE OK: <what>" per check and "SMOKE PASS" at the
# end; exits 1 at the first failed check, after dumping the daemons' logs.
set -u

SSID=sdmac-smoke
FREQ=2412
AP_IP=10.99.0.1
STA_IP=10.99.0.2
T=/tmp/smoke
mkdir -p "$T"

PREFIX=SMOKE
. /vmrun/lib.sh
dump() {
	for f in "$T"/hostapd.log "$T"/wpa_supplicant.log; do
		[ -f "$f" ] && { echo "---- $f"; tail -n 40 "$f"; }
	done
	echo "---- dmesg"
	dmesg | tail -n 30
}

MEDIUMD=
CTL=
PATHLOSS=
MODES=
for a in "$@"; do
	case "$a" in
		mediumd=*) MEDIUMD=${a#mediumd=} ;;
		control=*) CTL=${a#control=} ;;
		pathloss) PATHLOSS=1 ;;
		*) MODES="$MODES $a" ;;
	esac
done
# shellcheck disable=SC2086
set -- $MODES

# ---- two radios (in-kernel medium, or the daemon's)
modprobe mac80211_hwsim radios=2 || fail "modprobe mac80211_hwsim radios=2"
MD_PID=
if [ -n "$MEDIUMD" ]; then
	if [ -n "$CTL" ]; then
		CFG=
		if [ -n "$PATHLOSS" ]; then
			# Mininet-WiFi's mobility mode: positions and a path-loss model; the
			# station moves through the control socket.
			cat >"$T/pathloss.cfg" <<CFGEOF
ifaces : { ids = [ "02:00:00:00:00:00", "02:00:00:00:01:00" ]; };
model : {
	type = "path_loss";
	positions = ( (0.0, 0.0), (10.0, 0.0) );
	tx_powers = ( 15.0, 15.0 );
	model_name = "log_distance";
	path_loss_exp = 3.0;
	xg = 0.0;
};
CFGEOF
			CFG="-c $T/pathloss.cfg"
		fi
		# shellcheck disable=SC2086
		"$MEDIUMD" -l 5 $CFG -s "$T/wmediumd.sock" -p "$T/medium.pcapng" --stats "$T/stats.jsonl" >"$T/mediumd.log" 2>&1 &
	else
		"$MEDIUMD" -l 5 -p "$T/medium.pcapng" --stats "$T/stats.jsonl" >"$T/mediumd.log" 2>&1 &
	fi
	MD_PID=$!
	wait_for 10 grep -q "REGISTER SENT!" "$T/mediumd.log" || { cat "$T/mediumd.log"; fail "$MEDIUMD did not register"; }
	ok "medium daemon $MEDIUMD registered"
fi
iw dev
n=$(iw dev | grep -c 'Interface wlan')
[ "$n" -eq 2 ] || fail "iw dev shows $n wlan interfaces, not 2"
ok "iw dev shows 2 wlan interfaces"

# ---- one namespace per radio (the wiphy moves with its interfaces)
P0=$(cat /sys/class/net/wlan0/phy80211/name) || fail "no wlan0"
P1=$(cat /sys/class/net/wlan1/phy80211/name) || fail "no wlan1"
ip netns add ap || fail "ip netns add ap"
ip netns add sta || fail "ip netns add sta"
iw phy "$P0" set netns name ap || fail "iw phy $P0 set netns name ap"
iw phy "$P1" set netns name sta || fail "iw phy $P1 set netns name sta"
AP="ip netns exec ap"
STA="ip netns exec sta"
$AP ip link show wlan0 >/dev/null 2>&1 || fail "wlan0 is not in namespace ap"
$STA ip link show wlan1 >/dev/null 2>&1 || fail "wlan1 is not in namespace sta"
[ -z "$(ls /sys/class/ieee80211)" ] || fail "radios left in the root namespace: $(ls /sys/class/ieee80211)"
$AP ip link set lo up
$STA ip link set lo up
ok "wlan0 ($P0) in netns ap, wlan1 ($P1) in netns sta"

# ---- AP and station, once per security mode given as an argument
PASS=sdmac-smoke-pass
AP_PID=
STA_PID=
stop_daemons() {
	[ -n "$STA_PID" ] && kill "$STA_PID" 2>/dev/null && wait "$STA_PID" 2>/dev/null
	[ -n "$AP_PID" ] && kill "$AP_PID" 2>/dev/null && wait "$AP_PID" 2>/dev/null
	STA_PID=
	AP_PID=
	$AP ip addr flush dev wlan0 2>/dev/null
	$STA ip addr flush dev wlan1 2>/dev/null
}
# The number of replies in busybox/iputils ping's summary.
replies() { sed -n 's/.* \([0-9][0-9]*\) \(packets \)\{0,1\}received.*/\1/p'; }

# Mininet-WiFi-style runtime control through the daemon's control socket:
# CTL is the control client (sdmac-mediumctl).
pings() { $STA ping -c "$1" -i 0.2 -W 2 "$AP_IP" 2>&1 | replies; }
control_checks() {
	C="$CTL -s $T/wmediumd.sock"
	AP_MAC=$($AP cat /sys/class/net/wlan0/address)
	out=$($C add 02:00:00:00:05:00) || fail "control: add a new station: $out"
	echo "$out" | grep -q "^success id=" || fail "control: add: $out"
	out=$($C add "$AP_MAC"); echo "$out" | grep -q "^duplicate" || fail "control: re-adding the AP is not a duplicate: $out"
	if [ -n "$PATHLOSS" ]; then
		# Positions rule: SNR requests are "wrong mode"; the station walks away.
		out=$($C snr "$AP_MAC" "$STA_MAC" -10); echo "$out" | grep -q "^wrong_mode" || fail "control: SNR in the path-loss model: $out"
		$C pos "$STA_MAC" 5000 0 0 >/dev/null || fail "control: move the station 5 km away"
		n=$(pings 4); [ "${n:-0}" -eq 0 ] || fail "control: station 5 km away, yet $n of 4 pings came back"
		ok "control: the station moved 5 km away loses the link (0 of 4 pings)"
		$C pos "$STA_MAC" 10 0 0 >/dev/null || fail "control: move the station back"
		wait_for 30 sh -c "$STA wpa_cli -p /run/wpa_supplicant -i wlan1 status | grep -q '^wpa_state=COMPLETED'" ||
			fail "control: the station did not reassociate after moving back"
		wait_for 20 sh -c "$STA ping -c 1 -W 1 $AP_IP" || fail "control: moved back, no ping gets through"
		ok "control: moved back to 10 m, the link recovers"
		return 0
	fi
	$C snr "$AP_MAC" "$STA_MAC" -10 >/dev/null || fail "control: snr -10"
	n=$(pings 4); [ "${n:-0}" -eq 0 ] || fail "control: SNR -10 dB, yet $n of 4 pings came back"
	ok "control: SNR -10 dB breaks the link (0 of 4 pings)"
	$C snr "$AP_MAC" "$STA_MAC" 30 >/dev/null || fail "control: snr 30"
	# The station may have noticed the loss and left: it must (re)associate by itself.
	wait_for 30 sh -c "$STA wpa_cli -p /run/wpa_supplicant -i wlan1 status | grep -q '^wpa_state=COMPLETED'" ||
		fail "control: the station did not reassociate after the SNR came back"
	wait_for 20 sh -c "$STA ping -c 1 -W 1 $AP_IP" || fail "control: SNR back to 30 dB, no ping gets through"
	n=$(pings 5); [ "${n:-0}" -ge 3 ] || fail "control: SNR back to 30 dB, only ${n:-0} of 5 pings"
	ok "control: SNR 30 dB restores it ($n of 5 pings)"
	out=$($C snr 02:00:00:00:09:09 "$STA_MAC" 10); echo "$out" | grep -q "^not_found" || fail "control: unknown station: $out"
	# A request type nobody knows: the daemon closes that client and carries on.
	printf '\052\001\002' | $STA true
	$C snr "$AP_MAC" "$STA_MAC" 30 >/dev/null || fail "control: the daemon stopped answering"
	$C del "$STA_MAC" >/dev/null || fail "control: delete the station"
	n=$(pings 4); [ "${n:-0}" -eq 0 ] || fail "control: deleted station, yet $n of 4 pings came back"
	out=$($C del "$STA_MAC"); echo "$out" | grep -q "^not_found" || fail "control: deleting twice: $out"
	out=$($C add "$STA_MAC"); echo "$out" | grep -q "^success id=" || fail "control: adding the station back: $out"
	wait_for 30 sh -c "$STA wpa_cli -p /run/wpa_supplicant -i wlan1 status | grep -q '^wpa_state=COMPLETED'" ||
		fail "control: the station did not reassociate after being added back"
	wait_for 20 sh -c "$STA ping -c 1 -W 1 $AP_IP" || fail "control: added back, no ping gets through"
	ok "control: add, duplicate, SNR break/restore, not-found, delete, add back all answered as Mininet-WiFi expects"
}

run_mode() {
	mode=$1
	case "$mode" in
		open)
			ap_sec=""
			sta_sec="key_mgmt=NONE"
			;;
		wpa2)
			ap_sec="wpa=2
wpa_key_mgmt=WPA-PSK
rsn_pairwise=CCMP
wpa_passphrase=$PASS"
			sta_sec="key_mgmt=WPA-PSK
	proto=RSN
	pairwise=CCMP
	psk=\"$PASS\""
			;;
		*) fail "unknown mode $mode (open, wpa2)" ;;
	esac
	echo "== mode $mode"

	cat >"$T/hostapd-$mode.conf" <<EOF
interface=wlan0
driver=nl80211
ctrl_interface=/run/hostapd
ssid=$SSID
hw_mode=g
channel=1
$ap_sec
EOF
	$AP hostapd -t "$T/hostapd-$mode.conf" >"$T/hostapd.log" 2>&1 &
	AP_PID=$!
	wait_for 20 sh -c "$AP hostapd_cli -p /run/hostapd -i wlan0 status | grep -q '^state=ENABLED'" ||
		fail "$mode: hostapd did not enable the AP"
	$AP hostapd_cli -p /run/hostapd -i wlan0 status | grep -E '^(state|freq|ssid\[0\]|bssid\[0\])='
	$AP hostapd_cli -p /run/hostapd -i wlan0 status | grep -q "^freq=$FREQ$" || fail "$mode: the AP is not on $FREQ MHz"
	ok "$mode: hostapd AP '$SSID' enabled on $FREQ MHz"

	cat >"$T/wpa_supplicant-$mode.conf" <<EOF
ctrl_interface=/run/wpa_supplicant
network={
	ssid="$SSID"
	scan_freq=$FREQ
	$sta_sec
}
EOF
	$STA wpa_supplicant -t -D nl80211 -i wlan1 -c "$T/wpa_supplicant-$mode.conf" >"$T/wpa_supplicant.log" 2>&1 &
	STA_PID=$!
	wait_for 30 sh -c "$STA wpa_cli -p /run/wpa_supplicant -i wlan1 status | grep -q '^wpa_state=COMPLETED'" ||
		fail "$mode: the station did not associate"
	st=$($STA wpa_cli -p /run/wpa_supplicant -i wlan1 status)
	echo "$st" | grep -E '^(wpa_state|key_mgmt|pairwise_cipher|freq)='
	$STA iw dev wlan1 link
	if [ "$mode" = wpa2 ]; then
		echo "$st" | grep -q '^key_mgmt=WPA2-PSK' || fail "$mode: key_mgmt is not WPA2-PSK"
		echo "$st" | grep -q '^pairwise_cipher=CCMP' || fail "$mode: the pairwise cipher is not CCMP"
	fi
	STA_MAC=$($STA cat /sys/class/net/wlan1/address)
	$STA iw dev wlan1 link | grep -q "freq: $FREQ" || fail "$mode: iw link: the station is not on $FREQ MHz"
	wait_for 5 sh -c "$AP iw dev wlan0 station dump | grep -qi 'Station $STA_MAC'" ||
		fail "$mode: the AP does not list station $STA_MAC"
	ok "$mode: station $STA_MAC associated (wpa_state=COMPLETED, listed by the AP)"

	$AP ip addr add "$AP_IP/24" dev wlan0
	$STA ip addr add "$STA_IP/24" dev wlan1
	out=$($STA ping -c 5 -i 0.2 -W 5 "$AP_IP" 2>&1)
	echo "$out"
	rx=$(echo "$out" | replies)
	[ "${rx:-0}" -ge 4 ] || fail "$mode: ping station -> AP: ${rx:-0} of 5 replies"
	out=$($AP ping -c 3 -i 0.2 -W 5 "$STA_IP" 2>&1)
	rx2=$(echo "$out" | replies)
	[ "${rx2:-0}" -ge 2 ] || fail "$mode: ping AP -> station: ${rx2:-0} of 3 replies"
	ok "$mode: ping across: station -> AP $rx/5, AP -> station $rx2/3"
	# TCP for 3 s, station -> AP; the receiver's rate in Mb/s.
	$AP iperf3 -s -D -1 >/dev/null 2>&1
	sleep 0.5
	$STA iperf3 -c "$AP_IP" -t 3 -f m >"$T/iperf3-$mode.log" 2>&1 || { cat "$T/iperf3-$mode.log"; fail "$mode: iperf3 station -> AP failed"; }
	mbps=$(awk '/receiver/{for (i = 1; i < NF; i++) if ($(i + 1) == "Mbits/sec") v = $i} END{print v + 0}' "$T/iperf3-$mode.log")
	echo "SMOKE MEASURE iperf3 mode=$mode mbps=$mbps"
	ok "$mode: iperf3 TCP station -> AP: $mbps Mb/s"
	[ -n "$CTL" ] && [ "$mode" = open ] && control_checks
	stop_daemons
}

[ $# -gt 0 ] || set -- open
for m in "$@"; do
	run_mode "$m"
done
if [ -n "$MD_PID" ]; then
	dmesg | grep -q "switching to perfect channel medium" && fail "the kernel fell back to its own medium while the daemon ran"
	stop_daemon "$MD_PID" "$T/mediumd.log"
	# The capture and the statistics, for the host to check.
	[ -n "${SHARE:-}" ] && cp "$T/medium.pcapng" "$T/stats.jsonl" "$SHARE/"
fi
echo "SMOKE PASS"
