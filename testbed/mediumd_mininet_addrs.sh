#!/bin/sh
# sdmac-mediumd with interface addresses that are not the radios' permanent ones, as
# Mininet-WiFi sets them (runs in the guest, as root; used by
# tests/test_vm_mediumd_mininet_addrs.py):
#
#   python3 testbed/run.py --share DIR testbed/mediumd_mininet_addrs.sh MODE ORDER mediumd=/share/sdmac-mediumd
#
# Three mac80211_hwsim radios (permanent addresses 02:00:00:00:0N:00, hwsim wire
# addresses 42:00:00:00:0N:00), each in its own network namespace; their interfaces
# get 00:00:00:00:00:03 (the AP, wlan0), 00:00:00:00:00:01 and 00:00:00:00:00:02 (the
# stations, wlan1 and wlan2) with `ip link set dev X address` before they come up, as
# Mininet-WiFi does. The daemon's configuration is in the shape Mininet-WiFi's
# wmediumdConnector writes, naming those interface addresses:
#   MODE interference   path-loss model (log distance), positions, tx powers,
#                       enable_interference, and -x .../signal_table_ieee80211 (only
#                       signal_table_ieee80211ax exists, as in Mininet-WiFi's data)
#   MODE errprob        prob model, default_prob 1.0, AP-station links at 0.01
#   ORDER late          the daemon starts after the interfaces are up with their
#                       addresses (it learns them from the frames they send)
#   ORDER early         the daemon starts first (it sees each interface come up with
#                       its permanent address, go down, and come up with the new one:
#                       ADD_MAC_ADDR)
# hostapd runs an open AP on wlan0 (2412 MHz), wpa_supplicant a station on wlan1 and
# wlan2: both must associate, ping the AP and each other (through the AP). The
# daemon captures (-p) and is stopped with SIGTERM; the capture is left in
# /share/medium.pcapng for the host to read with tshark. Then a second daemon carries
# pings for 3 s and is SIGKILLed: its capture is left in /share/medium-killed.pcapng.
#
# Prints "MN OK: <what>" per check, the daemon's log, "MN PASS" at the end.
set -u

T=/tmp/mn
mkdir -p "$T"
PREFIX=MN
. /vmrun/lib.sh
replies() { sed -n 's/.* \([0-9][0-9]*\) \(packets \)\{0,1\}received.*/\1/p'; }

MODE=${1:-}
ORDER=${2:-}
MEDIUMD=
for a in "$@"; do
	case "$a" in
		mediumd=*) MEDIUMD=${a#mediumd=} ;;
	esac
done
[ -x "$MEDIUMD" ] || fail "no executable mediumd=PATH given"
case "$MODE" in interference | errprob) ;; *) fail "MODE is interference or errprob, not '$MODE'" ;; esac
case "$ORDER" in late | early) ;; *) fail "ORDER is late or early, not '$ORDER'" ;; esac

ADDR0=00:00:00:00:00:03
ADDR1=00:00:00:00:00:01
ADDR2=00:00:00:00:00:02
addr() { eval "echo \$ADDR$1"; }

# ---- the configuration, as Mininet-WiFi writes it (AP first, then the stations)
if [ "$MODE" = interference ]; then
	cat >"$T/medium.cfg" <<EOF
ifaces:
{
	ids = [
		"$ADDR0", 
		"$ADDR1", 
		"$ADDR2"
	];
	enable_interference = true;
};
model:
{
	type = "path_loss";
	positions = (
		(10.0, 10.0, 0.0),
		(20.0, 10.0, 0.0),
		(10.0, 20.0, 0.0)
	);
	fading_coefficient = 0;
	noise_threshold = -91;
	isnodeaps = (1, 0, 0);
	tx_powers = (14, 14, 14);
	model_name = "log_distance";
	path_loss_exp = 3.0;
	xg = 0.0;
};
EOF
	# Mininet-WiFi's data directory holds signal_table_ieee80211ax; it passes the
	# name without "ax".
	mkdir -p "$T/data"
	cp /share/signal_table_ieee80211ax "$T/data/" || fail "no PER table in the share"
	PER="-x $T/data/signal_table_ieee80211"
else
	cat >"$T/medium.cfg" <<EOF
ifaces:
{
	ids = [
		"$ADDR0", 
		"$ADDR1", 
		"$ADDR2"
	];
};
model:
{
	type = "prob";
	default_prob = 1.0;
	links = (
		(0, 1, 0.010000),
		(1, 0, 0.010000),
		(0, 2, 0.010000),
		(2, 0, 0.010000)
	);
};
EOF
	PER=
fi

MD_PID=
start_mediumd() {
	# shellcheck disable=SC2086 # PER: two words or none
	"$MEDIUMD" -l 6 -s "$T/wmediumd.sock" -c "$T/medium.cfg" $PER -p "$T/medium.pcapng" >"$T/mediumd.log" 2>&1 &
	MD_PID=$!
	wait_for 10 grep -q "REGISTER SENT!" "$T/mediumd.log" || { cat "$T/mediumd.log"; fail "$MEDIUMD did not register"; }
	ok "medium daemon registered ($MODE, started $ORDER)"
	if [ -n "$PER" ]; then
		grep -q "PER table $T/data/signal_table_ieee80211ax" "$T/mediumd.log" || { cat "$T/mediumd.log"; fail "the daemon did not say it read signal_table_ieee80211ax"; }
		ok "-x signal_table_ieee80211 read signal_table_ieee80211ax"
	fi
}

modprobe mac80211_hwsim radios=3 || fail "modprobe mac80211_hwsim radios=3"
i=0
while [ $i -lt 3 ]; do
	p=$(cat /sys/class/net/wlan$i/phy80211/name) || fail "no wlan$i"
	ip netns add n$i || fail "ip netns add n$i"
	iw phy "$p" set netns name n$i || fail "iw phy $p set netns name n$i"
	ip netns exec n$i ip link set lo up
	i=$((i + 1))
done
ok "3 radios, each in its own network namespace"

[ "$ORDER" = early ] && start_mediumd
for i in 0 1 2; do
	N="ip netns exec n$i"
	if [ "$ORDER" = early ]; then
		# Up with the permanent address first (the daemon sees ADD_MAC_ADDR), then
		# down for the change.
		$N ip link set dev wlan$i up || fail "wlan$i up"
		sleep 0.2
		$N ip link set dev wlan$i down || fail "wlan$i down"
	fi
	$N ip link set dev wlan$i address "$(addr $i)" || fail "wlan$i: set address $(addr $i)"
	$N ip link set dev wlan$i up || fail "wlan$i up with $(addr $i)"
done
ok "interfaces up as $ADDR0 (AP), $ADDR1, $ADDR2 (stations); the radios' wire addresses stay 42:00:00:00:0N:00"
[ "$ORDER" = late ] && start_mediumd

cat >"$T/hostapd.conf" <<EOF
interface=wlan0
driver=nl80211
ctrl_interface=/run/hostapd
ssid=sdmac-mn
hw_mode=g
channel=1
EOF
ip netns exec n0 hostapd -t "$T/hostapd.conf" >"$T/hostapd.log" 2>&1 &
AP_PID=$!
wait_for 20 sh -c "ip netns exec n0 hostapd_cli -p /run/hostapd -i wlan0 status | grep -q '^state=ENABLED'" || fail "hostapd did not enable the AP"
ok "AP enabled"
for i in 1 2; do
	cat >"$T/wpa$i.conf" <<EOF
ctrl_interface=/run/wpa_supplicant$i
network={
	ssid="sdmac-mn"
	scan_freq=2412
	key_mgmt=NONE
}
EOF
	ip netns exec n$i wpa_supplicant -t -D nl80211 -i wlan$i -c "$T/wpa$i.conf" >"$T/wpa$i.log" 2>&1 &
	eval "STA${i}_PID=\$!"
done
for i in 1 2; do
	wait_for 60 sh -c "ip netns exec n$i wpa_cli -p /run/wpa_supplicant$i -i wlan$i status | grep -q '^wpa_state=COMPLETED'" || {
		cat "$T/mediumd.log"
		fail "station $i ($(addr $i)) did not associate"
	}
	ok "station $i ($(addr $i)) associated"
done
ip netns exec n0 ip addr add 10.0.0.1/24 dev wlan0
ip netns exec n1 ip addr add 10.0.0.2/24 dev wlan1
ip netns exec n2 ip addr add 10.0.0.3/24 dev wlan2
for i in 1 2; do
	r=$(ip netns exec n$i ping -c 10 -i 0.2 -W 2 10.0.0.1 2>&1 | replies)
	[ "${r:-0}" -ge 8 ] || fail "station $i pings the AP: ${r:-0} of 10"
	ok "station $i pings the AP ($r/10)"
done
r=$(ip netns exec n1 ping -c 10 -i 0.2 -W 2 10.0.0.3 2>&1 | replies)
[ "${r:-0}" -ge 8 ] || fail "station 1 pings station 2 through the AP: ${r:-0} of 10"
ok "station 1 pings station 2 through the AP ($r/10)"
# The AP's station table names the stations by their new addresses.
for i in 1 2; do
	ip netns exec n0 iw dev wlan0 station get "$(addr $i)" >/dev/null 2>&1 || fail "the AP has no station $(addr $i)"
done
ok "the AP lists $ADDR1 and $ADDR2"

stop_daemon "$MD_PID" "$T/mediumd.log" "stopped on SIGTERM"
cp "$T/medium.pcapng" /share/medium.pcapng || fail "copying the capture"

# A second daemon, SIGKILLed after a few seconds of traffic: its capture must still
# hold whole blocks (it is written out at block boundaries, at least once a second).
"$MEDIUMD" -l 5 -c "$T/medium.cfg" $PER -p "$T/killed.pcapng" >"$T/mediumd-killed.log" 2>&1 &
MD_PID=$!
wait_for 10 grep -q "REGISTER SENT!" "$T/mediumd-killed.log" || { cat "$T/mediumd-killed.log"; fail "the second daemon did not register"; }
r=$(ip netns exec n1 ping -c 15 -i 0.2 -W 2 10.0.0.1 2>&1 | replies)
[ "${r:-0}" -ge 10 ] || fail "station 1 pings the AP through the second daemon: ${r:-0} of 15"
kill -KILL "$MD_PID"
wait "$MD_PID" 2>/dev/null
cp "$T/killed.pcapng" /share/medium-killed.pcapng || fail "copying the second capture"
ok "a second daemon carried traffic ($r/15) and was SIGKILLed"
for pid in "$AP_PID" "$STA1_PID" "$STA2_PID"; do kill -TERM "$pid" 2>/dev/null; done
echo "MN PASS"
