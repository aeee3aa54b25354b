#!/bin/bash
# Guest script of tests/test_vm_linux_control.py: the control half of sdmac's linux
# backend (crates/sdmac-linux, example radio_control from /share) on two
# mac80211_hwsim radios. What the example sets, `iw` must read back from the kernel;
# closing (and a failure after creation, and SIGKILL) must leave no monitor behind;
# each bad interface or missing right must fail with a message naming it.
PREFIX=LC
T=/tmp/lc
mkdir -p $T
. /vmrun/lib.sh
RC=/share/radio_control

modprobe mac80211_hwsim radios=2 || fail "modprobe mac80211_hwsim"
wait_for 5 ip link show wlan1 || fail "hwsim radios did not appear"

no_monitor() { ! iw dev | grep -q "Interface sdmon"; }

# --- open wlan0, monitor, settings, read back with iw, close -----------------------
$RC wlan0 --channel 2437 --txpower-mbm 1500 --coverage-class 3 --bitrates 1,54 --wait-for $T/go >$T/main.log 2>&1 &
pid=$!
wait_for 30 grep -q '^READY ' $T/main.log || fail "radio_control wlan0 did not get ready"
echo "LC JSON $(grep '^READY ' $T/main.log)"
iw dev sdmon0 info >$T/iw_mon.log 2>&1 || fail "iw dev sdmon0 info"
cat $T/iw_mon.log
grep -q "type monitor" $T/iw_mon.log || fail "sdmon0 is not a monitor"
grep -q "channel 6 (2437 MHz), width: 20 MHz (no HT)" $T/iw_mon.log || fail "sdmon0 is not on 2437 MHz, 20 MHz no HT"
grep -q "txpower 15.00 dBm" $T/iw_mon.log || fail "the kernel's TX power is not 15 dBm"
addr=$(cat /sys/class/net/wlan0/address)
grep -q "addr $addr" $T/iw_mon.log || fail "sdmon0 does not have the radio's address $addr"
ok "iw: sdmon0 is a monitor on 2437 MHz / 20 MHz no HT, txpower 15 dBm, address $addr (the radio's)"
iw phy phy0 info | grep -q "Coverage class: 0" || fail "coverage class changed though the driver refused it"
grep -q '"coverage_class":{"error":"coverage class: not supported by this backend/adapter' $T/main.log || fail "refused coverage class not reported as not supported"
ok "coverage class: hwsim refuses it (EOPNOTSUPP), reported as not supported, iw phy still says 0"
grep -q '"bitrates":{"ok":\[10,540\]}' $T/main.log || fail "bitrates 1,54 not accepted: $(cat $T/main.log)"
# (nl80211 cannot report a bitrate mask and this kernel has no mac80211 debugfs:
# that the kernel acknowledged the mask is all that can be checked)
ok "fixed bitrates 1 and 54 Mb/s acknowledged by the kernel"
grep CapEff /proc/$pid/status | grep -q "0000000000000000" || fail "effective capabilities not dropped: $(grep Cap /proc/$pid/status)"
grep CapPrm /proc/$pid/status | grep -q "0000000000001000" || fail "permitted set is not CAP_NET_ADMIN alone: $(grep Cap /proc/$pid/status)"
ok "after open: no effective capability, CAP_NET_ADMIN alone permitted"
ip link set wlan0 up || fail "wlan0 cannot come up beside the active monitor"
ok "wlan0 comes up beside the active monitor with the same address"
touch $T/go
wait $pid
rc=$?
tail -n 1 $T/main.log | sed 's/^/LC JSON CLOSED /'
[ $rc -eq 0 ] || fail "radio_control wlan0 exited $rc"
no_monitor || fail "sdmon0 is still there after close"
ok "closed: sdmon0 removed (CAP_NET_ADMIN raised again for it)"
ip link set wlan0 down

# --- errors: each exits 1 naming the interface (and the capability) ---------------
expect_error() { # WHAT MESSAGE ARGS...
	what=$1 msg=$2
	shift 2
	"$@" >$T/err.log 2>&1
	rc=$?
	[ $rc -eq 1 ] || fail "$what: exit status $rc, not 1: $(cat $T/err.log)"
	grep -qF "$msg" $T/err.log || fail "$what: no \"$msg\" in: $(cat $T/err.log)"
	no_monitor || fail "$what: a monitor was left behind"
	ok "$what: $(head -n 1 $T/err.log)"
}
expect_error "unknown interface" "radio_control: nosuch0: no network interface or wiphy has this name" $RC nosuch0
expect_error "loopback" "radio_control: lo: not a wireless interface" $RC lo
ip link add lcva type veth peer name lcvb || fail "veth pair"
expect_error "veth" "radio_control: lcva: not a wireless interface" $RC lcva
expect_error "no capabilities" "radio_control: phy1: opening a radio needs CAP_NET_ADMIN and CAP_NET_RAW, which this process lacks: run as root, or: sudo setcap cap_net_admin,cap_net_raw+ep /share/radio_control" $RC phy1 --no-caps
# (the guest's busybox has no setuidgid/su: "not root" is a root process without
# capabilities, which is what the kernel checks)
expect_error "failure after creation" "fault injection: failing after sdmon0 was created" $RC phy1 --fail-after-create
ip link set wlan1 up || fail "wlan1 up"
expect_error "channel while another interface is up" "channel: refused while other interfaces of phy1 are up (wlan1)" $RC phy1 --channel 2412
ip link set wlan1 down

# a rate the band does not have: refused before the kernel is asked
$RC phy1 --channel 5180/20 --bitrates 11 >$T/rate.log 2>&1 || fail "radio_control phy1 --bitrates 11: $(cat $T/rate.log)"
grep -q '11 Mb/s is not a bitrate of phy1' $T/rate.log || fail "11 Mb/s on 5 GHz: $(cat $T/rate.log)"
grep -q '"channel":{"ok":{"center_freq1":5180,"freq_mhz":5180,"width":"20"' $T/rate.log || fail "5180 MHz HT20 not read back: $(cat $T/rate.log)"
ok "5180 MHz HT20 read back; 11 Mb/s on 5 GHz refused before the kernel is asked"

# --- SIGKILL: the kernel removes the monitor (NL80211_ATTR_SOCKET_OWNER) ------------
$RC phy1 --wait-for $T/never >$T/kill.log 2>&1 &
pid=$!
wait_for 30 grep -q '^READY ' $T/kill.log || fail "radio_control phy1 did not get ready"
iw dev | grep -q "Interface sdmon0" || fail "no sdmon0 while radio_control runs"
kill -9 $pid
wait $pid 2>/dev/null
wait_for 10 no_monitor || fail "sdmon0 survived SIGKILL of its owner"
ok "SIGKILL: the kernel removed sdmon0 with its owner's socket"

echo "LC PASS"
