#!/usr/bin/env bash
# The User-Mode Linux kernel of the Mininet-WiFi test (tests/test_vm_mininet_wifi.py):
# testbed/build_uml.sh's kernel plus what Mininet-WiFi needs that the medium-daemon
# benchmark does not — 802.11s mesh (MAC80211_MESH), debugfs (Mininet-WiFi finds its
# radios under /sys/kernel/debug/ieee80211/*/hwsim), veth and the bridge.
#
#   testbed/mininet_wifi/build_uml.sh [--force]   prints the directory holding `linux`
#
# It runs testbed/build_uml.sh with these options added to its list, so the cache key
# (a hash of that list) differs and both kernels live side by side under
# $SDMAC_VM_OUT (default testbed/out). ~7 min on 2 cores the first time.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BASE=$HERE/../build_uml.sh
EXTRA='--enable MAC80211_MESH --enable DEBUG_FS --enable VETH --enable BRIDGE'
ANCHOR='--enable FW_LOADER --enable PERF_EVENTS'

grep -qF -- "$ANCHOR" "$BASE" || { echo "mininet_wifi/build_uml: $BASE has no line '$ANCHOR' to extend" >&2; exit 1; }
export SDMAC_VM_OUT=${SDMAC_VM_OUT:-$HERE/../out}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed "s|$ANCHOR|$ANCHOR $EXTRA|" "$BASE" >"$tmp/build_uml.sh"
dir=$(bash "$tmp/build_uml.sh" "$@")
for opt in MAC80211_MESH DEBUG_FS VETH; do
	grep -q "^CONFIG_$opt=y" "$dir/config" || { echo "mininet_wifi/build_uml: CONFIG_$opt is not built in ($dir/config)" >&2; exit 1; }
done
echo "$dir"
