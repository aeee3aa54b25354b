#!/bin/sh
# The medium daemon's control socket, locked down (runs in the guest, as root):
# mode 0660; a second daemon on the same path refused (exit 2) while the first
# lives; a client of another uid kept out by the mode and, with the mode opened by
# hand, refused by its credentials (and logged) while root is still served; the
# socket removed at exit; a stale socket (the daemon killed) replaced; a regular
# file at the path refused and left intact.
#
#   python3 testbed/run.py --share DIR testbed/control_socket.sh /share/sdmac-mediumd /share/sdmac-mediumctl
#
# Prints "CTLSOCK OK: <what>" per check and "CTLSOCK PASS" at the end; exits 1 at
# the first failed check, after dumping the logs.
set -u

T=/tmp/ctlsock
mkdir -p "$T"
chmod 755 "$T"
PREFIX=CTLSOCK
. /vmrun/lib.sh

MD=$1
# A copy every user may run (the share may be root's only).
cp "$2" /tmp/mediumctl && chmod 755 /tmp/mediumctl
CTL=/tmp/mediumctl
S=$T/wmediumd.sock
STA=02:00:00:00:05:00

modprobe mac80211_hwsim radios=2 || fail "modprobe mac80211_hwsim radios=2"

start() {
	"$MD" -l 6 -s "$S" >"$T/$1.log" 2>&1 &
	PID=$!
	wait_for 20 grep -q "REGISTER SENT!" "$T/$1.log" || fail "the daemon did not register ($1)"
	test -S "$S" || fail "no socket at $S ($1)"
}

start daemon
mode=$(stat -c %a "$S")
[ "$mode" = 660 ] || fail "socket mode $mode, not 660"
ok "the socket is created with mode 660"
"$CTL" -s "$S" add "$STA" | grep -q success || fail "root's add was not answered"
ok "root is served"

rc=0
"$MD" -s "$S" >"$T/second.log" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "a second daemon on $S exited $rc, not 2"
grep -q "control socket $S: another process" "$T/second.log" || fail "second daemon: $(cat "$T/second.log")"
kill -0 "$PID" 2>/dev/null || fail "the first daemon died"
"$CTL" -s "$S" add 02:00:00:00:06:00 | grep -q success || fail "the first daemon no longer answers"
ok "a second daemon on the same path is refused (exit 2) while the first lives and answers"

echo 'tester:x:1000:1000::/tmp:/bin/sh' >>/etc/passwd
echo 'tester:x:1000:' >>/etc/group
if su tester -c "$CTL -s $S del-id 1" >"$T/other.log" 2>&1; then fail "uid 1000 was served through mode 660"; fi
grep -q "ermission denied" "$T/other.log" || fail "uid 1000: $(cat "$T/other.log")"
ok "a client of uid 1000 is kept out by the mode"
chmod 666 "$S"
if su tester -c "$CTL -s $S del $STA" >"$T/other2.log" 2>&1; then fail "uid 1000 was served with the mode opened"; fi
wait_for 5 grep -q "refused a client (uid 1000" "$T/daemon.log" || fail "the refused client was not logged"
"$CTL" -s "$S" del "$STA" | grep -q success || fail "root is not served after a refused client (or uid 1000 deleted the station)"
ok "a client of uid 1000 is refused by its credentials and logged; root is still served"

kill -TERM "$PID"
wait "$PID" || fail "the daemon did not stop cleanly"
[ -e "$S" ] && fail "the socket file is left after exit"
ok "the socket file is removed at exit"

start killed
kill -KILL "$PID"
wait "$PID" 2>/dev/null
test -S "$S" || fail "no stale socket after SIGKILL"
start stale
"$CTL" -s "$S" add "$STA" | grep -q success || fail "the new daemon does not answer on the replaced socket"
ok "a stale socket is replaced"
kill -TERM "$PID"
wait "$PID"

echo keep >"$T/file"
rc=0
"$MD" -s "$T/file" >"$T/file.log" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "a regular file is there" "$T/file.log" || fail "regular file: exit $rc: $(cat "$T/file.log")"
[ "$(cat "$T/file")" = keep ] || fail "the regular file was changed"
ok "a regular file at the path is refused (exit 2) and left intact"

echo "CTLSOCK PASS"
