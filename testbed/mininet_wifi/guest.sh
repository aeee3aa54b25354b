#!/bin/sh
# Guest script of the Mininet-WiFi test and benchmark (UML test bed, testbed/uml.py):
# runs one topology of scenario.py with DAEMON first on the PATH as `wmediumd`, as a
# Mininet-WiFi user would, and Mininet-WiFi's source tree MNWIFI on PYTHONPATH.
#
#   guest.sh HERE DAEMON MNWIFI SCENARIO [scenario.py options]
#
# HERE is this directory (testbed/mininet_wifi: uml.py runs a copy of this script from
# the control directory). The guest's root is the host's (read-only), so HERE, DAEMON
# and MNWIFI are host paths.
# Prints scenario.py's MNWIFI lines, then the daemon's command line, the configuration
# Mininet-WiFi wrote for it and the end of its log.
set -u
HERE=$1 DAEMON=$2 MNWIFI=$3 SCENARIO=$4
shift 4
[ -f "$HERE/scenario.py" ] || { echo "guest: FAIL: no scenario.py in $HERE"; exit 1; }

W=/tmp/mnwifi
mkdir -p $W/bin $W/daemon
[ -x "$DAEMON" ] || { echo "guest: FAIL: no executable daemon $DAEMON"; exit 1; }
[ -d "$MNWIFI/mn_wifi" ] || { echo "guest: FAIL: no Mininet-WiFi tree at $MNWIFI"; exit 1; }
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug \
	|| { echo "guest: FAIL: cannot mount debugfs (Mininet-WiFi finds its radios there)"; exit 1; }

# `wmediumd` on the PATH: keeps the command line, a copy of the configuration and the
# log, then runs the daemon under that name (its process is called wmediumd, as
# Mininet-WiFi's cleanup expects).
ln -sf "$DAEMON" $W/daemon/wmediumd
cat >$W/bin/wmediumd <<EOF
#!/bin/sh
echo "wmediumd \$*" >>$W/args
prev=
for a in "\$@"; do
	[ "\$prev" = -c ] && cp "\$a" $W/config.\$\$ 2>/dev/null
	prev=\$a
done
exec $W/daemon/wmediumd "\$@" >>$W/log 2>&1
EOF
chmod +x $W/bin/wmediumd
ln -sf "$HERE/hwsim_mgmt" $W/bin/hwsim_mgmt
export PATH=$W/bin:$PATH
export PYTHONPATH=$MNWIFI${PYTHONPATH:+:$PYTHONPATH}

echo "guest: daemon $DAEMON, Mininet-WiFi $MNWIFI, scenario $SCENARIO $*"
cd $W
/usr/bin/python3 "$HERE/scenario.py" "$SCENARIO" "$@"
rc=$?
echo "guest: scenario.py exit status $rc"
echo "---- daemon command line"
cat $W/args 2>/dev/null
for f in $W/config.*; do
	[ -f "$f" ] && { echo "---- configuration ($f)"; cat "$f"; }
done
echo "---- daemon log (last 40 lines)"
tail -n 40 $W/log 2>/dev/null
echo "---- iw dev"
iw dev 2>&1 | head -40
exit $rc
