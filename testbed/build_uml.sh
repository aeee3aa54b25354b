#!/usr/bin/env bash
# Builds a User-Mode Linux kernel with cfg80211, mac80211 and mac80211_hwsim built in,
# from Debian's linux-source-6.1, for the medium-daemon benchmark's second test bed
# (testbed/uml.py). UML runs the guest kernel as an ordinary host process: no CPU
# emulation, so the guest's network stack is ~10x faster than under QEMU TCG, but
# every system call a guest process makes costs tens of microseconds (it is
# intercepted with ptrace) — the setting ../shared/notes/FACTS.md §7 measured
# wmediumd in.
#
#   testbed/build_uml.sh            prints the directory holding the `linux` binary
#   testbed/build_uml.sh --force    rebuilds even if a cached kernel exists
#
# Cache: $SDMAC_VM_OUT (default ${XDG_CACHE_HOME:-~/.cache}/sdmac, outside the clone, so
# that every clone on the machine shares it)/uml-<source version>-<hash of the
# configuration below>/linux. Takes ~7 min on 2 cores the first time (the sources are
# unpacked under the cache and removed after the build); the key is exactly what the
# kernel is built from, so a cached kernel is the one this script would build. Installs linux-source-6.1, flex,
# bison, bc, gcc and make with apt-get when they are missing (as root).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${SDMAC_VM_OUT:-${XDG_CACHE_HOME:-$HOME/.cache}/sdmac}
FORCE=0
[ "${1:-}" = --force ] && FORCE=1

log() { echo "build_uml: $*" >&2; }
die() { echo "build_uml: error: $*" >&2; exit 1; }

need=()
for t in flex bison bc gcc make xz; do
	command -v "$t" >/dev/null 2>&1 || need+=("$t")
done
TARBALL=/usr/src/linux-source-6.1.tar.xz
[ -f "$TARBALL" ] || need+=(linux-source-6.1)
if [ ${#need[@]} -gt 0 ]; then
	pkgs=()
	for t in "${need[@]}"; do
		case "$t" in xz) pkgs+=(xz-utils) ;; gcc) pkgs+=(gcc libc6-dev) ;; *) pkgs+=("$t") ;; esac
	done
	[ "$(id -u)" = 0 ] || die "missing ${need[*]}; install ${pkgs[*]} (as root)"
	log "installing ${pkgs[*]}"
	# A fresh machine may have no package lists yet: update once if the install fails.
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" >&2 \
		|| { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" >&2; } \
		|| die "apt-get install ${pkgs[*]} failed"
fi
[ -f "$TARBALL" ] || die "no $TARBALL after installing linux-source-6.1"

# What the benchmark's guest needs: the wireless stack and hwsim built in (UML has no
# module directory of its own), network namespaces, io_uring, the host's files over
# hostfs (the root file system), tmpfs and devtmpfs, and magic SysRq to power off;
# for the Mininet-WiFi test, 802.11s mesh, debugfs (Mininet-WiFi finds its radios
# under /sys/kernel/debug/ieee80211/*/hwsim), veth and the bridge.
# The regulatory database is read unsigned (the host's wireless-regdb). The cache key
# is this list (and RECIPE), so editing the rest of the script rebuilds nothing.
RECIPE=2
CONFIG_ARGS=(
	--set-val KERNEL_STACK_ORDER 4
	--enable NET --enable INET --enable UNIX --enable PACKET --enable NETLINK_DIAG
	--enable NAMESPACES --enable NET_NS --enable UTS_NS --enable IPC_NS --enable PID_NS
	--enable WIRELESS --enable CFG80211 --disable CFG80211_REQUIRE_SIGNED_REGDB
	--enable CFG80211_DEFAULT_PS --enable CFG80211_WEXT
	--enable MAC80211 --enable MAC80211_RC_MINSTREL --enable MAC80211_HWSIM
	--enable CRYPTO_CCM --enable CRYPTO_GCM --enable CRYPTO_CMAC --enable CRYPTO_CTR
	--enable CRYPTO_AES --enable CRYPTO_ARC4
	--enable HOSTFS --enable TMPFS --enable DEVTMPFS --enable PROC_FS --enable SYSFS
	--enable IO_URING --enable EPOLL --enable TIMERFD --enable EVENTFD --enable FUTEX
	--enable MAGIC_SYSRQ --enable BINFMT_ELF --enable BINFMT_SCRIPT --enable UNIX98_PTYS
	--enable FW_LOADER --enable PERF_EVENTS --enable MAC80211_MESH --enable DEBUG_FS --enable VETH --enable BRIDGE
)

# UML 6.1 keeps a guest process's FP registers in a fixed 2696-byte buffer and moves
# them with PTRACE_{GET,SET}REGSET(NT_X86_XSTATE) of that size. The host kernel wants
# the whole XSAVE area on a set: on a CPU with AVX-512 and AMX that area is 11008 bytes,
# so every set fails with EFAULT and the guest's init dies at once ("ptrace set fp regs
# failed, errno = 14", then "Attempted to kill init"). Two edits of the sources make it
# run there: the buffer becomes 16 KiB, and the save and restore pass exactly the size
# the host's first PTRACE_GETREGSET reported. The buffer is also kept in thread_info at
# the bottom of each kernel stack, hence KERNEL_STACK_ORDER 4 (64 KiB) above.
patch_fp_size() {
	python3 - "$1" <<'PY'
import pathlib, sys
root = pathlib.Path(sys.argv[1])
def edit(rel, old, new, count=1):
    p = root / rel
    s = p.read_text()
    if s.count(old) != count:
        sys.exit(f"build_uml: {rel}: expected {count} of {old!r}, found {s.count(old)}")
    p.write_text(s.replace(old, new))
edit("arch/x86/um/user-offsets.c", "DEFINE_LONGS(HOST_FP_SIZE, 2696);", "DEFINE_LONGS(HOST_FP_SIZE, 16384);")
regs = "arch/x86/um/os-Linux/registers.c"
edit(regs, "int have_xstate_support;\n",
     "int have_xstate_support;\n/* Bytes of the host's XSAVE area, as its PTRACE_GETREGSET reported. */\n"
     "static unsigned long host_fp_size = FP_SIZE * sizeof(unsigned long);\n")
edit(regs, "\t\tiov.iov_base = fp_regs;\n\t\tiov.iov_len = FP_SIZE * sizeof(unsigned long);\n",
     "\t\tiov.iov_base = fp_regs;\n\t\tiov.iov_len = host_fp_size;\n", count=2)
edit(regs, "\tif (ptrace(PTRACE_GETREGSET, pid, NT_X86_XSTATE, &iov) == 0)\n\t\thave_xstate_support = 1;\n",
     "\tif (ptrace(PTRACE_GETREGSET, pid, NT_X86_XSTATE, &iov) == 0) {\n\t\thave_xstate_support = 1;\n"
     "\t\thost_fp_size = iov.iov_len;\n\t}\n")
PY
}

ver=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null || echo unknown)
hash=$( { printf '%s\n' "$RECIPE" "${CONFIG_ARGS[@]}"; declare -f patch_fp_size; } | sha256sum | cut -c1-12)
DIR=$OUT/uml-$ver-$hash
if [ "$FORCE" = 0 ] && [ -x "$DIR/linux" ]; then
	echo "$DIR"
	exit 0
fi
mkdir -p "$OUT"
exec 9>"$OUT/.uml.lock"
flock 9
if [ "$FORCE" = 0 ] && [ -x "$DIR/linux" ]; then
	echo "$DIR"
	exit 0
fi

SRC=$DIR/src
rm -rf "$SRC"
mkdir -p "$SRC"
log "unpacking $TARBALL"
tar -xJf "$TARBALL" -C "$SRC" --strip-components=1
log "patching the FP register size for hosts with a large XSAVE area"
patch_fp_size "$SRC" || die "patching arch/x86/um failed"
cd "$SRC"
log "configuring (ARCH=um)"
make ARCH=um defconfig >/dev/null
scripts/config "${CONFIG_ARGS[@]}"
make ARCH=um olddefconfig >/dev/null
for opt in CFG80211 MAC80211 MAC80211_HWSIM MAC80211_MESH DEBUG_FS VETH HOSTFS NET_NS IO_URING; do
	grep -q "^CONFIG_$opt=y" .config || die "CONFIG_$opt is not built in after olddefconfig"
done
grep -q "^CONFIG_KERNEL_STACK_ORDER=4" .config || die "CONFIG_KERNEL_STACK_ORDER is not 4 after olddefconfig"
log "building (ARCH=um, $(nproc) jobs)"
make ARCH=um -j"$(nproc)" linux >"$DIR/build.log" 2>&1 || { tail -n 30 "$DIR/build.log" >&2; die "make ARCH=um failed (see $DIR/build.log)"; }
install -m 755 linux "$DIR/linux"
cp .config "$DIR/config"
cd /
rm -rf "$SRC"
log "done: $DIR/linux"
echo "$DIR"
