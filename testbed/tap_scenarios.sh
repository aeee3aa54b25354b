#!/bin/bash
# DPDK-WiFi's four scenarios between two stations, on one path, as root. Driven by
# bench/tap.py (python/sdmac/bench_tap.py), which runs it on the host (the
# user-space path) and in the VM test bed (both paths), and reads what it writes.
#
#   tap_scenarios.sh PATH_KIND=user|hwsim|kernel BIN=DIR OUT=DIR [SECONDS=5] [SCEN=FILE]
#                    [PHY=FILE] [ONLY=s1,s2,s3,s4,s5] [PERF=sN] [TAPIO=uring|syscalls]
#                    [TAPMODE=threads|one] [S5_PPS=2000]
#
# user:   BIN/sdmac-tap SCEN (two stations a and b, IBSS) makes namespaces tb-a and
#         tb-b, each with a TAP device; the frames cross sdmac's emulated medium.
# hwsim:  the two radios and the daemon of the kernel path below, the kernel's wlan0
#         and wlan1 left down; BIN/sdmac-tap SCEN --backend hwsim:wlan0,hwsim:wlan1
#         puts station a on radio 0 and b on radio 1 (namespaces tb-a and tb-b, every
#         frame at 54 Mb/s on 2412 MHz): sdmac's user-space MAC on the radios'
#         monitor interfaces, the same radios and medium as the kernel path.
# kernel: two mac80211_hwsim radios with BIN/sdmac-mediumd as their medium
#         (SCHED_FIFO 10, as bench/mediumd_pairs.sh runs it), one in each of the
#         namespaces tb-a and tb-b, an IBSS on 2412 MHz with every frame at
#         54 Mb/s (ERP-OFDM, basic rate 54 alone); the kernel's mac80211 path.
# PHY=FILE (kernel path): sdmac-mediumd --phy FILE, a scenario's [phy] table timing
#         every frame (the user path takes its PHY from SCEN).
# TAPIO=syscalls (user and hwsim paths): sdmac-tap --tap-io syscalls, one read or
#         write per frame, instead of its default io_uring.
# TAPMODE=one (user path): sdmac-tap --one-thread --realtime 10, every data path and
#         the emulated medium on one loop under SCHED_FIFO 10, the policy the kernel
#         path's daemon runs under (implies TAPIO=syscalls).
# ONLY:   the scenarios to run (default s1,s2,s3,s4; s5 only when named).
# PERF=sN: `perf record -a -g -e cpu-clock -F 499` over the whole machine (the VM)
#         while scenario sN's generator sends; `perf script` of it -> OUT/perf_sN.txt
#         (fold it with bench/fold_perf.py); `perf stat -a` of context switches,
#         task clock and system calls over the same time -> OUT/perfstat_sN.txt.
# Scenarios, SECONDS each, from tb-a to tb-b:
#   s1: iperf3 TCP                     -> OUT/s1.json (iperf3 -J)
#   s2: sdmac-pktgen 50,000 pps of 60 B -> OUT/s2_send.json, OUT/s2_recv.json
#   s3: sdmac-pktgen max rate, 1472 B  (1500 B IP packets) -> OUT/s3_*.json
#   s4: sdmac-pktgen max rate, 60 B    -> OUT/s4_*.json
#   s5: sdmac-pktgen S5_PPS (2,000) pps of 60 B (below the path's capacity: the
#       one-way delay without queues) -> OUT/s5_*.json
# On the kernel and hwsim paths the daemon's per-second statistics (--stats) go to
# OUT/mediumd_stats.jsonl.
# (sizes are UDP payloads; the receiver's clock minus the stamp is the one-way
# delay: both namespaces share the host's or the VM's CLOCK_MONOTONIC).
set -u
PATH_KIND=user BIN= OUT= SECONDS_RUN=5 SCEN= PHY= ONLY=s1,s2,s3,s4 PERF= TAPIO=uring TAPMODE=threads S5_PPS=2000
for a in "$@"; do
	case "$a" in
		PATH_KIND=*) PATH_KIND=${a#PATH_KIND=} ;;
		BIN=*) BIN=${a#BIN=} ;;
		OUT=*) OUT=${a#OUT=} ;;
		SECONDS=*) SECONDS_RUN=${a#SECONDS=} ;;
		SCEN=*) SCEN=${a#SCEN=} ;;
		PHY=*) PHY=${a#PHY=} ;;
		ONLY=*) ONLY=${a#ONLY=} ;;
		PERF=*) PERF=${a#PERF=} ;;
		TAPIO=*) TAPIO=${a#TAPIO=} ;;
		TAPMODE=*) TAPMODE=${a#TAPMODE=} ;;
		S5_PPS=*) S5_PPS=${a#S5_PPS=} ;;
		*) echo "TAPB FAIL: unknown argument $a"; exit 2 ;;
	esac
done
T=$(mktemp -d /tmp/tapbench.XXXXXX)
PREFIX=TAPB
ok() { echo "$PREFIX OK: $*"; }
dump() { for f in "$T"/*.log; do [ -f "$f" ] && { echo "---- $f"; tail -n 30 "$f"; }; done; }
TAP_PID= MD_PID=
cleanup() {
	[ -n "$TAP_PID" ] && kill -INT "$TAP_PID" 2>/dev/null && wait "$TAP_PID" 2>/dev/null
	if [ "$PATH_KIND" = kernel ]; then
		ip netns del tb-a 2>/dev/null
		ip netns del tb-b 2>/dev/null
	fi
	[ -n "$MD_PID" ] && kill "$MD_PID" 2>/dev/null
	rm -rf "$T"
}
fail() { echo "$PREFIX FAIL: $*"; dump; cleanup; exit 1; }
trap cleanup EXIT
[ -n "$BIN" ] && [ -x "$BIN/sdmac-pktgen" ] || fail "BIN=$BIN has no sdmac-pktgen"
[ -n "$OUT" ] && mkdir -p "$OUT" || fail "OUT=$OUT cannot be made"
for s in ${ONLY//,/ }; do
	case "$s" in s1 | s2 | s3 | s4 | s5) ;; *) fail "ONLY=$ONLY: $s is not s1..s5" ;; esac
done
wanted() { case ",$ONLY," in *",$1,"*) return 0 ;; esac; return 1; }
if [ -n "$PERF" ]; then
	wanted "$PERF" || fail "PERF=$PERF is not among ONLY=$ONLY"
	command -v perf >/dev/null 2>&1 || fail "PERF=$PERF: no perf here (Debian's linux-perf)"
fi
if [ -n "$PHY" ]; then
	[ "$PATH_KIND" = kernel ] || fail "PHY= is for the kernel path (the user path's PHY is in SCEN)"
	[ -f "$PHY" ] || fail "PHY=$PHY is not a file"
fi
A=tb-a B=tb-b IPA=10.0.0.1 IPB=10.0.0.2
# The test bed's kernel has tun as a module and no /dev/net/tun node.
tun_node() {
	if [ ! -c /dev/net/tun ]; then
		modprobe tun 2>/dev/null
		mkdir -p /dev/net && mknod /dev/net/tun c 10 200 2>/dev/null
	fi
}
# start_tap [OPTION...]: BIN/sdmac-tap SCEN with its namespaces tb-a and tb-b, until
# it says it is ready.
start_tap() {
	case "$TAPMODE" in
	one) set -- --one-thread --realtime 10 "$@" ;;
	threads) [ "$TAPIO" = uring ] || set -- --tap-io "$TAPIO" "$@" ;;
	*) fail "TAPMODE=$TAPMODE is not threads or one" ;;
	esac
	"$BIN/sdmac-tap" "$SCEN" --prefix tb- --ready-file "$T/ready.json" --json "$OUT/tap_stats.json" "$@" >"$T/tap.log" 2>&1 &
	TAP_PID=$!
	n=0
	until [ -s "$T/ready.json" ]; do
		kill -0 "$TAP_PID" 2>/dev/null || fail "sdmac-tap exited: $(tail -n 5 "$T/tap.log")"
		n=$((n + 1)); [ $n -gt 300 ] && fail "sdmac-tap not ready after 30 s"
		sleep 0.1
	done
}
# radios_and_daemon [OPTION...]: two mac80211_hwsim radios, BIN/sdmac-mediumd
# (given OPTIONs) their medium, at SCHED_FIFO 10.
radios_and_daemon() {
	modprobe mac80211_hwsim radios=2 || fail "modprobe mac80211_hwsim radios=2"
	printf 'ifaces : { ids = ["%s", "%s"]; };\nmodel : { type = "prob"; default_prob = 0.0; };\n' \
		"$(cat /sys/class/net/wlan0/address)" "$(cat /sys/class/net/wlan1/address)" >"$T/medium.cfg"
	rm -f "$OUT/mediumd_stats.jsonl"
	"$BIN/sdmac-mediumd" -l 0 -c "$T/medium.cfg" --stats "$OUT/mediumd_stats.jsonl" "$@" >"$T/mediumd.log" 2>&1 &
	MD_PID=$!
	# Up once it writes its first statistics (a second after it registered with
	# hwsim): without a daemon, hwsim radios would carry the frames themselves, and
	# a daemon that is still starting (or exited, not yet reaped) answers kill -0.
	md_alive() { [ -r /proc/$MD_PID/status ] && ! grep -q '^State:[[:space:]]*Z' /proc/$MD_PID/status; }
	n=0
	until [ -s "$OUT/mediumd_stats.jsonl" ]; do
		md_alive || fail "sdmac-mediumd exited: $(tail -n 5 "$T/mediumd.log")"
		n=$((n + 1)); [ $n -gt 300 ] && fail "sdmac-mediumd wrote no statistics in 30 s"
		sleep 0.1
	done
	chrt -a -f -p 10 "$MD_PID" >/dev/null 2>&1 || fail "chrt -f 10 on sdmac-mediumd"
	md_alive || fail "sdmac-mediumd exited: $(tail -n 5 "$T/mediumd.log")"
}

if [ "$PATH_KIND" = user ]; then
	[ -f "$SCEN" ] || fail "SCEN=$SCEN is not a file"
	tun_node
	start_tap
elif [ "$PATH_KIND" = hwsim ]; then
	[ -f "$SCEN" ] || fail "SCEN=$SCEN is not a file"
	tun_node
	radios_and_daemon -s "$T/ctl.sock"
	n=0
	until [ -S "$T/ctl.sock" ]; do
		n=$((n + 1)); [ $n -gt 100 ] && fail "sdmac-mediumd made no control socket"
		sleep 0.1
	done
	export SDMAC_MEDIUMD_SOCKET=$T/ctl.sock
	start_tap --backend hwsim:wlan0,hwsim:wlan1 --radio-rates 54x1 --freq 2412
elif [ "$PATH_KIND" = kernel ]; then
	radios_and_daemon ${PHY:+--phy "$PHY"}
	i=0
	for ns in $A $B; do
		ip netns add $ns || fail "ip netns add $ns"
		iw phy "$(cat /sys/class/net/wlan$i/phy80211/name)" set netns name $ns || fail "wlan$i into $ns"
		X="ip netns exec $ns"
		$X ip link set lo up
		$X iw dev wlan$i set type ibss || fail "wlan$i: set type ibss"
		$X ip link set wlan$i up || fail "wlan$i up"
		$X iw dev wlan$i ibss join tapbench 2412 fixed-freq 02:5d:ac:00:00:01 basic-rates 54 || fail "wlan$i: ibss join"
		$X iw dev wlan$i set bitrates legacy-2.4 54 || fail "wlan$i: set bitrates legacy-2.4 54"
		$X ip addr add 10.0.0.$((i + 1))/24 dev wlan$i
		i=$((i + 1))
	done
else
	fail "PATH_KIND=$PATH_KIND is not user, hwsim or kernel"
fi
if command -v ping >/dev/null 2>&1; then PING=ping; else PING="busybox ping"; fi
n=0
until ip netns exec $A $PING -c 1 -W 1 $IPB >/dev/null 2>&1; do
	n=$((n + 1)); [ $n -ge 30 ] && fail "$IPB does not answer ping from $A"
done
ok "$PATH_KIND path up: $A -> $B pings"

wait_listen() { n=0; until ip netns exec $B ss -ln | grep -q ":$1 "; do n=$((n + 1)); [ $n -gt 100 ] && return 1; sleep 0.1; done; }
# s1: TCP with iperf3.
if wanted s1; then
	ip netns exec $B iperf3 -s -1 -p 5201 >"$T/iperf_s.log" 2>&1 &
	S=$!
	wait_listen 5201 || fail "iperf3 server not listening"
	ip netns exec $A iperf3 -c $IPB -p 5201 -t "$SECONDS_RUN" -J >"$OUT/s1.json" 2>"$T/iperf_c.log" || fail "s1: iperf3 client: $(tail -c 400 "$OUT/s1.json")"
	wait "$S"
	ok "s1 TCP done"
fi

# s2-s5: the generator.
gen() { # NAME SIZE PPS
	ip netns exec $B "$BIN/sdmac-pktgen" recv --bind $IPB:6000 --run "$4" --idle 3 --timeout $((SECONDS_RUN + 40)) >"$T/$1_recv.out" 2>"$T/$1_recv.log" &
	R=$!
	wait_listen 6000 || fail "$1: receiver not listening"
	P=
	if [ "$PERF" = "$1" ]; then
		perf record -a -g -e cpu-clock -F 499 -o "$T/perf.data" -- sleep "$SECONDS_RUN" >"$T/perf.log" 2>&1 &
		P=$!
		# Counts over the same time: context switches (a thread that blocks or is
		# woken), CPU time and system calls, whole machine.
		perf stat -a -x, -e context-switches,task-clock,raw_syscalls:sys_enter -o "$OUT/perfstat_$1.txt" -- sleep "$SECONDS_RUN" >"$T/perfstat.log" 2>&1 &
		PS=$!
	fi
	ip netns exec $A "$BIN/sdmac-pktgen" send --to $IPB:6000 --size "$2" --pps "$3" --run "$4" --duration "$SECONDS_RUN" >"$OUT/$1_send.json" 2>"$T/$1_send.log" || fail "$1: sender: $(cat "$T/$1_send.log")"
	wait "$R" || fail "$1: receiver: $(cat "$T/$1_recv.log")"
	tail -n 1 "$T/$1_recv.out" >"$OUT/$1_recv.json"
	if [ -n "$P" ]; then
		wait "$P" || fail "$1: perf record: $(tail -n 5 "$T/perf.log")"
		wait "$PS" || fail "$1: perf stat: $(tail -n 5 "$T/perfstat.log")"
		perf script -i "$T/perf.data" >"$OUT/perf_$1.txt" 2>"$T/perf_script.log" || fail "$1: perf script: $(tail -n 5 "$T/perf_script.log")"
		ok "$1 perf: $(grep -c '^$' "$OUT/perf_$1.txt") samples"
	fi
	ok "$1 done"
}
wanted s2 && gen s2 60 50000 2
wanted s3 && gen s3 1472 max 3
wanted s4 && gen s4 60 max 4
wanted s5 && gen s5 60 "$S5_PPS" 5
echo "TAPB DONE"
