#!/bin/sh
# One run of the medium-daemon benchmark, in the guest (as root): N mac80211_hwsim
# radios in pairs, each radio in its own network namespace, each pair an ad-hoc
# (IBSS) cell at a fixed legacy rate, iperf3 TCP (or UDP at a fixed offered load)
# between the two radios of every pair at once. Driven by bench/mediumd.py (which boots the VM and reads the
# "RESULT" lines this prints).
#
#   mediumd_pairs.sh N=40 SECONDS=10 CHANNELS=1 RATE=54 MEDIUM=kernel|PATH [STRACE=1] [BEACON=100]
#                    [MEDIUM_ARGS="--threads"] [CTL=/share/sdmac-mediumctl (N > 100)]
#                    [UDP=MBPS] [PRIO=fifo|nice] [PERF=SECONDS]
#
# MEDIUM=kernel runs with no daemon: the kernel's own perfect medium (the baseline).
# MEDIUM=PATH starts that binary as the medium daemon with a wmediumd configuration
# listing every radio (prob model, loss 0, as in the thesis methodology) and the
# command line wmediumd understands (-l 0 -c CFG); sdmac-mediumd (recognised by its
# -V line) also writes its per-second statistics. The N radios are split over
# CHANNELS channels (2412, 2437, 2462, 2422, ... MHz), pairs within a channel.
# STRACE=1 counts the daemon's system calls with strace -c (slows the daemon).
# PERF=S samples the daemon's CPU with perf (cpu-clock, ~1 kHz) for S seconds from
# 4 s after the clients are let go; its flat profile goes to perf.txt, the samples to
# perf.data (on the host: perf annotate -i perf.data --symfs DIR, with the daemon
# binary at DIR/share/daemon).
# BEACON: the beacon interval (TU). Every station of an IBSS beacons (hwsim has no
# beacon backoff), and every beacon reaches all N-1 other radios of the channel:
# ~10 N (N-1) deliveries per second at 100 TU, ~99,000/s at N = 100.
# PRIO: how the daemon is put ahead of the traffic: fifo (SCHED_FIFO 10, the
# default) or nice (nice -10, as before).
# UDP: iperf3 UDP instead of TCP, MBPS Mb/s offered by every pair's first radio
# (1400-byte datagrams): no TCP ACKs, no congestion control, so a medium offered more
# than it carries stays saturated (0, the default: TCP).
#
# Writes to $SHARE/out: client<p>.json (iperf3 -J of pair p), span<p> (its client's
# start and end, s on CLOCK_BOOTTIME), and for a daemon
# mediumd.log, stats.jsonl (sdmac-mediumd's statistics), strace.txt (STRACE=1),
# perf.txt and perf.data (PERF=S).
# Prints "RESULT key=value ..." lines:
#   window_start= window_end=   the iperf3 run, s on CLOCK_BOOTTIME (/proc/uptime)
#   d_tx_failed=                hwsim's count of frames the kernel could not hand to
#                               the daemon during the run, summed over radios
#   rx_packets= tx_packets=     mac80211's frames received / sent during the run,
#                               summed over radios (any medium)
#   cpu_ticks= hz= rss_kb=      the daemon's CPU time (user+system) during the run,
#                               and its peak RSS
#   sys_ticks=                  the system (kernel) part of that CPU time
set -u
N=40 SECONDS_RUN=10 CHANNELS=1 RATE=54 MEDIUM=kernel STRACE=0 BEACON=100 MEDIUM_ARGS= CTL= UDP=0 PRIO=fifo PERF=0
for a in "$@"; do
	case "$a" in
		N=*) N=${a#N=} ;;
		SECONDS=*) SECONDS_RUN=${a#SECONDS=} ;;
		CHANNELS=*) CHANNELS=${a#CHANNELS=} ;;
		RATE=*) RATE=${a#RATE=} ;;
		MEDIUM=*) MEDIUM=${a#MEDIUM=} ;;
		STRACE=*) STRACE=${a#STRACE=} ;;
		BEACON=*) BEACON=${a#BEACON=} ;;
		MEDIUM_ARGS=*) MEDIUM_ARGS=${a#MEDIUM_ARGS=} ;;
		CTL=*) CTL=${a#CTL=} ;;
		UDP=*) UDP=${a#UDP=} ;;
		PRIO=*) PRIO=${a#PRIO=} ;;
		PERF=*) PERF=${a#PERF=} ;;
		*) echo "unknown argument $a"; exit 2 ;;
	esac
done
T=/tmp/bench
mkdir -p "$T"
# Results go to the share (iperf3 JSON, statistics, logs), for bench/mediumd.py.
OUT=${SHARE:-/tmp}/out
mkdir -p "$OUT" || { echo "BENCH FAIL: cannot write $OUT"; exit 1; }
PREFIX=BENCH
. "${VMRUN:-/vmrun}/lib.sh"
[ $((N % 2)) -eq 0 ] && [ "$N" -ge 2 ] || fail "N must be even and at least 2"
PAIRS=$((N / 2))
case "$PRIO" in fifo | nice) ;; *) fail "PRIO=$PRIO is not fifo or nice" ;; esac
TRAFFIC="TCP"
IPERF_UDP=
if [ "$UDP" != 0 ]; then
	echo "$UDP" | grep -Eq '^[0-9]+([.][0-9]+)?$' || fail "UDP=$UDP is not a rate in Mb/s"
	TRAFFIC="UDP at $UDP Mb/s per pair"
	IPERF_UDP="-u -b ${UDP}M -l 1400"
fi
# Channels 1, 6, 11 first (they do not overlap), then the rest of 1-11 (12 and 13
# allow no IBSS in the world regulatory domain). Each is its own medium.
FREQS="2412 2437 2462 2417 2442 2422 2447 2427 2452 2432 2457"
freq() { echo "$FREQS" | awk -v k=$(($1 % 11 + 1)) '{print $k}'; }

# The module makes at most 100 radios; sdmac-mediumctl asks it for the rest. A kernel
# with hwsim built in (the UML test bed, started with mac80211_hwsim.radios=0) gets
# them all that way.
FIRST=$N
[ "$FIRST" -gt 100 ] && FIRST=100
if [ -d /sys/module/mac80211_hwsim ] && [ ! -e /sys/class/net/wlan0 ]; then
	FIRST=0
else
	modprobe mac80211_hwsim radios="$FIRST" || fail "modprobe mac80211_hwsim radios=$FIRST"
fi
if [ "$N" -gt "$FIRST" ]; then
	[ -x "$CTL" ] || fail "N=$N needs CTL=sdmac-mediumctl for radios past $FIRST"
	"$CTL" new-radios $((N - FIRST)) >/dev/null || fail "$CTL new-radios $((N - FIRST))"
	[ -e /sys/class/net/wlan$((N - 1)) ] || fail "no wlan$((N - 1)) after new-radios"
fi
# hwsim numbers its radios from 0 with addresses 02:00:00:00:ii:00 (ii the index,
# the high octet in the third position past 255).
i=0
printf 'ifaces : { ids = [' >"$T/medium.cfg"
while [ "$i" -lt "$N" ]; do
	[ "$i" -gt 0 ] && printf ', ' >>"$T/medium.cfg"
	printf '"%s"' "$(cat /sys/class/net/wlan$i/address)" >>"$T/medium.cfg"
	i=$((i + 1))
done
printf ' ]; };\nmodel : { type = "prob"; default_prob = 0.0; };\n' >>"$T/medium.cfg"

MD_PID=
if [ "$MEDIUM" != kernel ]; then
	[ -x "$MEDIUM" ] || fail "$MEDIUM is not executable"
	set -- -l 0 -c "$T/medium.cfg"
	SDMAC=0
	"$MEDIUM" -V 2>&1 | grep -q sdmac && SDMAC=1
	[ "$SDMAC" = 1 ] && set -- "$@" --stats "$T/stats.jsonl"
	# shellcheck disable=SC2086 # MEDIUM_ARGS is a word list
	set -- "$@" $MEDIUM_ARGS
	"$MEDIUM" "$@" >"$T/mediumd.log" 2>&1 &
	MD_PID=$!
	# The medium daemon is the emulation's clock: it runs ahead of the traffic it
	# serves, whichever daemon it is — SCHED_FIFO (threads it starts later inherit
	# it). A nice value is not enough: beside 100 or 200 runnable iperf3 processes a
	# daemon at nice -10 waits tens of milliseconds for the CPU after each wake-up.
	if [ "$PRIO" = fifo ]; then
		chrt -a -f -p 10 "$MD_PID" >/dev/null 2>&1 || fail "chrt -f 10 on the daemon"
	else
		busybox renice -n -10 -p "$MD_PID" >/dev/null 2>&1 || fail "renice -10 on the daemon"
	fi
	sleep 0.2
	kill -0 "$MD_PID" 2>/dev/null || fail "$MEDIUM exited: $(tail -n 5 "$T/mediumd.log")"
fi

i=0
while [ "$i" -lt "$N" ]; do
	p=$(cat /sys/class/net/wlan$i/phy80211/name) || fail "no wlan$i"
	ip netns add n$i || fail "ip netns add n$i"
	iw phy "$p" set netns name n$i || fail "iw phy $p set netns name n$i"
	X="ip netns exec n$i"
	$X ip link set lo up
	pair=$((i / 2))
	ch=$((pair % CHANNELS))
	f=$(freq $ch)
	$X iw dev wlan$i set type ibss || fail "wlan$i: set type ibss"
	$X ip link set wlan$i up || fail "wlan$i up"
	# Every frame at RATE: the cell's basic rate set is RATE alone (a rate mask must
	# keep a basic rate), so beacons and broadcasts use it too.
	$X iw dev wlan$i ibss join "bench$pair" "$f" fixed-freq "02:5d:ac:00:$(printf '%02x:%02x' $((pair / 256)) $((pair % 256)))" \
		beacon-interval "$BEACON" basic-rates "$RATE" || fail "wlan$i: ibss join"
	$X iw dev wlan$i set bitrates legacy-2.4 "$RATE" || fail "wlan$i: set bitrates legacy-2.4 $RATE"
	$X ip addr add "10.$((pair / 250)).$((pair % 250)).$((i % 2 + 1))/24" dev wlan$i
	i=$((i + 1))
done
# Registration, for any daemon (not from its log: wmediumd prints "REGISTER SENT!"
# only at -l 5 and above). hwsim hands a registered daemon every frame through its
# generic-netlink socket. With the daemon stopped, the frames the radios send (every
# IBSS station beacons) wait in that socket's receive queue: the Rmem column of
# /proc/net/netlink for one of the daemon's sockets grows. Not registered, they go
# through the kernel's own medium and never reach a socket.
socket_inodes() { for f in /proc/"$1"/fd/*; do readlink "$f"; done 2>/dev/null | sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p' | tr '\n' ' '; }
netlink_queued() {
	awk -v list=" $(socket_inodes "$1") " 'NR > 1 && index(list, " " $10 " ") {q += $5} END {print q + 0}' /proc/net/netlink
}
if [ -n "$MD_PID" ]; then
	n=0
	while :; do
		kill -0 "$MD_PID" 2>/dev/null || fail "$MEDIUM exited: $(tail -n 5 "$T/mediumd.log")"
		kill -STOP "$MD_PID"
		q=0 k=0
		while [ "$k" -lt 10 ]; do
			sleep 0.1
			q=$(netlink_queued "$MD_PID")
			[ "$q" -gt 0 ] && break
			k=$((k + 1))
		done
		kill -CONT "$MD_PID"
		[ "$q" -gt 0 ] && break
		n=$((n + 1))
		[ $n -ge 30 ] && fail "$MEDIUM did not register: stopped for 1 s, 30 times, no frame reached its netlink sockets"
		sleep 0.2
	done
	echo "BENCH: $MEDIUM registered (frames reach its netlink socket: $q bytes queued while it was stopped)"
fi
echo "BENCH: $N radios in $PAIRS IBSS pairs over $CHANNELS channel(s) at $RATE Mb/s, $TRAFFIC, medium $MEDIUM (uptime $(cut -d' ' -f1 /proc/uptime) s)"

# Every pair must reach its peer before the run (the first frames also settle ARP):
# all pairs at once, 30 s at most.
ipof() { echo "10.$(($1 / 250)).$(($1 % 250)).$2"; }
# ping: the image's busybox applet, or busybox's on a host root (the UML test bed;
# Debian hosts lack iputils-ping).
if command -v ping >/dev/null 2>&1; then PING=ping; elif command -v busybox >/dev/null 2>&1; then PING="busybox ping"; else fail "no ping and no busybox"; fi
PINGS=
p=0
while [ "$p" -lt "$PAIRS" ]; do
	(
		n=0
		until ip netns exec n$((2 * p)) $PING -c 1 -W 1 "$(ipof $p 2)" >/dev/null 2>&1; do
			n=$((n + 1))
			[ $n -ge 30 ] && { echo "BENCH: pair $p does not ping before the run"; break; }
		done
	) &
	PINGS="$PINGS $!"
	p=$((p + 1))
done
# (not a bare wait: the daemon is a child too)
for j in $PINGS; do wait "$j"; done
p=0
while [ "$p" -lt "$PAIRS" ]; do
	ip netns exec n$((2 * p + 1)) iperf3 -s -D -1 -J --logfile "$T/server$p.log" >/dev/null 2>&1
	p=$((p + 1))
done
echo "BENCH: every pair pings; iperf3 servers up (uptime $(cut -d' ' -f1 /proc/uptime) s)"
sleep 1

# sumstats: "d_tx_failed rx_packets tx_packets" summed over the radios (ethtool -S:
# hwsim's counter of frames it could not hand to the daemon, mac80211's frame counts).
sumstats() {
	i=0
	while [ "$i" -lt "$N" ]; do
		ip netns exec n$i ethtool -S wlan$i 2>/dev/null
		i=$((i + 1))
	done | awk '$1 == "d_tx_failed:" {d += $2} $1 == "rx_packets:" {r += $2} $1 == "tx_packets:" {t += $2}
		END {print d + 0, r + 0, t + 0}'
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
sys_ticks() { awk '{print $15}' "/proc/$1/stat"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }

# The clients wait at a barrier (a line each from a FIFO this shell holds open) and
# are let go together, so that every pair sends at the same time: started one
# after another, 100 clients under emulation take seconds to get going. Each
# client's span (uptime when it was let go and when it ended) goes to span<p>.
mkfifo "$T/go" || fail "mkfifo $T/go"
exec 8<>"$T/go"
CLIENTS=
p=0
while [ "$p" -lt "$PAIRS" ]; do
	(
		read -r _ <"$T/go"
		s=$(uptime_s)
		# shellcheck disable=SC2086 # IPERF_UDP is a word list
		ip netns exec n$((2 * p)) iperf3 -c "$(ipof $p 2)" -t "$SECONDS_RUN" $IPERF_UDP -J --get-server-output >"$OUT/client$p.json" 2>"$T/client$p.log"
		echo "$s $(uptime_s)" >"$OUT/span$p"
	) &
	CLIENTS="$CLIENTS $!"
	p=$((p + 1))
done
S0=$(sumstats)
if [ -n "$MD_PID" ]; then
	C0=$(cpu_ticks "$MD_PID")
	K0=$(sys_ticks "$MD_PID")
	if [ "$STRACE" = 1 ]; then
		strace -c -f -p "$MD_PID" -o "$T/strace.txt" >/dev/null 2>&1 &
		ST_PID=$!
		sleep 1
	fi
fi
U0=$(uptime_s)
PERF_PID=
if [ -n "$MD_PID" ] && [ "$PERF" != 0 ]; then
	command -v perf >/dev/null 2>&1 || fail "PERF=$PERF: no perf in the image (install linux-perf on the host and rebuild it)"
	(sleep 4; perf record -q -e cpu-clock -F 997 -p "$MD_PID" -o "$T/perf.data" -- sleep "$PERF" >"$T/perf.log" 2>&1) &
	PERF_PID=$!
fi
# Progress while iperf3 runs: the daemon's last statistics line, every 5 s.
(
	while sleep 5; do
		echo "BENCH: running (uptime $(uptime_s) s) $( [ -f "$T/stats.jsonl" ] && grep daemon "$T/stats.jsonl" | tail -n 1)"
		top -b -n 1 | sed -n '7,12p'
		[ -n "$MD_PID" ] && echo "BENCH: daemon state $(awk '{print $3, "utime", $14, "stime", $15}' /proc/$MD_PID/stat) wchan $(cat /proc/$MD_PID/wchan) syscall $(cut -d' ' -f1 /proc/$MD_PID/syscall)"
	done
) &
PROGRESS=$!
# Go: one line per client.
awk -v n="$PAIRS" 'BEGIN { for (i = 0; i < n; i++) print "go" }' >&8
for j in $CLIENTS; do wait "$j"; done
exec 8>&-
kill "$PROGRESS" 2>/dev/null
U1=$(uptime_s)
set -- $S0 $(sumstats)
echo "RESULT window_start=$U0 window_end=$U1 d_tx_failed=$(($4 - $1)) rx_packets=$(($5 - $2)) tx_packets=$(($6 - $3))"
if [ -n "$MD_PID" ]; then
	C1=$(cpu_ticks "$MD_PID")
	K1=$(sys_ticks "$MD_PID")
	echo "RESULT cpu_ticks=$((C1 - C0)) sys_ticks=$((K1 - K0)) hz=$(getconf CLK_TCK 2>/dev/null || echo 100) rss_kb=$(awk '/VmHWM/{print $2}' "/proc/$MD_PID/status")"
	if [ "$STRACE" = 1 ]; then
		kill -INT "$ST_PID"
		wait "$ST_PID" 2>/dev/null
		cp "$T/strace.txt" "$OUT/strace.txt"
	fi
	if [ -n "$PERF_PID" ]; then
		wait "$PERF_PID"
		perf report -i "$T/perf.data" --stdio --no-children --sort dso,sym --percent-limit 0.3 >"$OUT/perf.txt" 2>>"$T/perf.log" || cat "$T/perf.log"
		cp "$T/perf.data" "$OUT/perf.data"
	fi
	kill -TERM "$MD_PID"
	n=0
	while kill -0 "$MD_PID" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
	kill -0 "$MD_PID" 2>/dev/null && { echo "RESULT daemon_stop=killed"; kill -KILL "$MD_PID"; }
	cp "$T/mediumd.log" "$OUT/mediumd.log"
	[ -f "$T/stats.jsonl" ] && cp "$T/stats.jsonl" "$OUT/stats.jsonl"
fi
echo "BENCH DONE"
