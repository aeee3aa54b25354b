#!/usr/bin/env bash
# Build (or reuse) the sdmac VM test bed image: a Debian kernel and a small
# initramfs with busybox, the wireless/9p modules and host copies of the tools.
#
#   testbed/build.sh            print the image directory (build it if needed)
#   testbed/build.sh --force    rebuild even if a cached image exists
#
# Everything comes from Debian packages. Missing host packages are installed
# with apt-get (as root, or with `sudo -n`), unless SDMAC_VM_NO_APT=1. The
# kernel is the one linux-image-amd64 depends on, fetched with `apt-get
# download` and unpacked under the cache (the host's own kernel is not touched).
#
# Cache: $SDMAC_VM_OUT (default testbed/out)/img-<kernel version>-<hash of
# build.sh, init, imagetool.py>/ holding vmlinux, initramfs.cpio, kver and
# manifest.txt. A second run finds it without calling apt at all.
#
# Environment:
#   SDMAC_VM_OUT    cache directory (default: testbed/out)
#   SDMAC_VM_KVER   use this kernel version: the host's /boot/vmlinuz-V and
#                   /lib/modules/V if present, else testbed/out/kernel/V
#   SDMAC_VM_NO_APT never call apt-get; fail listing what is missing
#
# Progress goes to stderr; stdout gets only the image directory.
set -euo pipefail
export LC_ALL=C
export PATH="$PATH:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

TB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${SDMAC_VM_OUT:-$TB/out}
FORCE=0
case "${1:-}" in
	--force) FORCE=1 ;;
	"") ;;
	-h | --help) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "${BASH_SOURCE[0]}"; exit 0 ;;
	*) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
esac

log() { echo "build.sh: $*" >&2; }
die() { echo "build.sh: error: $*" >&2; exit 1; }

HASH=$(cat "$TB/build.sh" "$TB/init" "$TB/imagetool.py" | sha256sum | cut -c1-12)

# ------------------------------------------------------------------ the fast path
# The kernel version: asked for, or the newest already unpacked in the cache.
pick_kver() {
	if [ -n "${SDMAC_VM_KVER:-}" ]; then
		echo "$SDMAC_VM_KVER"
		return
	fi
	local d
	d=$(ls -1d "$OUT"/kernel/*/.complete 2>/dev/null | sort -V | tail -n1) || true
	[ -n "$d" ] && basename "$(dirname "$d")"
	return 0
}

KVER=$(pick_kver)
if [ "$FORCE" = 0 ] && [ -n "$KVER" ] && [ -f "$OUT/img-$KVER-$HASH/.ready" ]; then
	echo "$OUT/img-$KVER-$HASH"
	exit 0
fi

# ------------------------------------------------------------------ the slow path
mkdir -p "$OUT"
exec 9>"$OUT/.lock"
flock 9 # another build of the same cache: wait for it, then maybe reuse it
KVER=$(pick_kver)
if [ "$FORCE" = 0 ] && [ -n "$KVER" ] && [ -f "$OUT/img-$KVER-$HASH/.ready" ]; then
	echo "$OUT/img-$KVER-$HASH"
	exit 0
fi
T0=$(date +%s.%N)

# Host tools: command (or file) -> Debian package.
declare -A NEED=(
	[qemu-system-x86_64]=qemu-system-x86
	[/bin/busybox]=busybox-static
	[iw]=iw
	[ip]=iproute2
	[hostapd]=hostapd
	[wpa_supplicant]=wpasupplicant
	[iperf3]=iperf3
	[tcpdump]=tcpdump
	[ethtool]=ethtool
	[kmod]=kmod
	[depmod]=kmod
	[/lib/firmware/regulatory.db]=wireless-regdb
	[dpkg-deb]=dpkg
	[apt-get]=apt
	[flock]=util-linux
	[python3]=python3-minimal
)
missing=()
for k in "${!NEED[@]}"; do
	case "$k" in
		/*) [ -e "$k" ] ;;
		*) command -v "$k" >/dev/null 2>&1 || [ -x "/usr/sbin/$k" ] || [ -x "/sbin/$k" ] ;;
	esac || missing+=("${NEED[$k]}")
done
SUDO=()
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=(sudo -n); else SUDO=(none); fi
fi
apt_install() {
	[ "${SDMAC_VM_NO_APT:-0}" = 1 ] && die "missing Debian packages: $* (SDMAC_VM_NO_APT=1: not installing)"
	command -v apt-get >/dev/null 2>&1 || die "missing Debian packages: $* (and no apt-get here)"
	[ "${SUDO[0]:-}" = none ] && die "missing Debian packages: $* (need root or passwordless sudo to apt-get install them)"
	log "apt-get install $*"
	"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >&2 || {
		log "apt-get install failed; updating the package lists and retrying"
		"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
		"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >&2
	} || die "apt-get install $* failed"
}
if [ ${#missing[@]} -gt 0 ]; then
	mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
	apt_install "${missing[@]}"
fi

# ------------------------------------------------------------------ the kernel
if [ -z "$KVER" ]; then
	command -v apt-cache >/dev/null 2>&1 || die "no kernel in $OUT/kernel and no apt-cache to find one"
	kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
	if [ -z "$kpkg" ] && [ "${SUDO[0]:-}" != none ] && [ "${SDMAC_VM_NO_APT:-0}" != 1 ]; then
		"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || true
		kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
	fi
	[ -n "$kpkg" ] || die "cannot resolve linux-image-amd64 to a kernel package (apt-get update?)"
	KVER=${kpkg#linux-image-}
fi
if [ -f "/boot/vmlinuz-$KVER" ] && [ -d "/lib/modules/$KVER/kernel" ]; then
	KROOT=/ # the host's own Debian kernel
else
	KROOT=$OUT/kernel/$KVER
	if [ ! -f "$KROOT/.complete" ]; then
		[ "${SDMAC_VM_NO_APT:-0}" = 1 ] && die "kernel $KVER is not in $KROOT (SDMAC_VM_NO_APT=1: not downloading)"
		dl=$OUT/kernel/download
		rm -rf "$dl" "$KROOT"
		mkdir -p "$dl"
		chmod 755 "$dl"
		log "downloading linux-image-$KVER (apt-get download)"
		# _apt cannot write into a root-only directory: apt warns and downloads as root.
		(cd "$dl" && apt-get download -q "linux-image-$KVER" >&2 2> >(grep -v 'unsandboxed' >&2)) ||
			die "apt-get download linux-image-$KVER failed"
		log "unpacking $(basename "$dl"/*.deb)"
		mkdir -p "$KROOT"
		dpkg-deb -x "$dl"/linux-image-"$KVER"_*.deb "$KROOT"
		rm -rf "$dl"
		[ -f "$KROOT/boot/vmlinuz-$KVER" ] || die "the package has no boot/vmlinuz-$KVER"
		# The package leaves modules.dep to its postinst: make it here.
		depmod -b "$KROOT" "$KVER" || die "depmod -b $KROOT $KVER failed"
		touch "$KROOT/.complete"
	fi
fi
MODDIR=$KROOT/lib/modules/$KVER
[ -f "$MODDIR/modules.dep" ] || die "$MODDIR/modules.dep missing"
log "kernel $KVER from $KROOT"

# ------------------------------------------------------------------ the image
IMG=$OUT/img-$KVER-$HASH
WORK=$(mktemp -d "$OUT/.build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ST=$WORK/root
mkdir -p "$ST"/{usr/bin,usr/sbin,usr/lib,usr/lib64,etc,proc,sys,dev,run,tmp,var,root,vmrun,share,mnt}
ln -s usr/bin "$ST/bin"
ln -s usr/sbin "$ST/sbin"
ln -s usr/lib "$ST/lib"
ln -s usr/lib64 "$ST/lib64"
chmod 1777 "$ST/tmp"

# Copy a host file (following symlinks) to the same path in the image.
put() {
	local src=$1 dst=${2:-$1}
	mkdir -p "$ST$(dirname "$dst")"
	cp -L "$src" "$ST$dst"
}
# A host binary with the shared libraries ldd names, and the loader.
declare -A LIBS=()
put_bin() {
	local b=$1 dst=${2:-}
	[ -n "$dst" ] || dst=$(readlink -f "$b")
	put "$b" "$dst"
	local lib
	while read -r lib; do
		[ -n "$lib" ] && LIBS[$lib]=1
	done < <(ldd "$b" 2>/dev/null | awk '/=> \// {print $3} /^\t\/[^ ]+ \(/ {print $1}')
}
which_bin() {
	local p
	p=$(command -v "$1" 2>/dev/null) || p=""
	[ -n "$p" ] || for d in /usr/sbin /sbin /usr/bin /bin; do [ -x "$d/$1" ] && p=$d/$1 && break; done
	[ -n "$p" ] && readlink -f "$p"
}

log "staging binaries"
for t in iw ip tc ss bridge hostapd hostapd_cli wpa_supplicant wpa_cli iperf3 tcpdump ethtool kmod bash dash chrt; do
	p=$(which_bin "$t") || die "$t not found on the host"
	put_bin "$p" "$p"
done
# Optional extras, copied when the host has them.
for t in strace ping perf; do
	p=$(which_bin "$t") || continue
	put_bin "$p" "$p"
done
put_bin /bin/busybox /usr/bin/busybox
# Programs built on the host and run from the share (Rust, C++) also need these.
for lib in /lib/x86_64-linux-gnu/libgcc_s.so.1 /lib/x86_64-linux-gnu/libstdc++.so.6; do
	[ -e "$lib" ] && LIBS[$lib]=1
done
for lib in "${!LIBS[@]}"; do
	put "$lib" "$lib"
done
for t in modprobe insmod rmmod lsmod modinfo depmod; do
	ln -sf kmod "$ST/usr/bin/$t"
	ln -sf ../bin/kmod "$ST/usr/sbin/$t"
done
# /bin/sh is dash, as on Debian: Debian's busybox-static runs its own applets
# in preference to PATH ("standalone shell"), so with busybox as sh a script's
# `ip` would be busybox's (no netns) even with the real one first on PATH.
ln -s dash "$ST/usr/bin/sh"
# Busybox for everything else; the real tools above win (only absent names
# become applet links).
for a in $(/bin/busybox --list); do
	for d in usr/bin usr/sbin; do [ -e "$ST/$d/$a" ] && continue 2; done
	ln -s busybox "$ST/usr/bin/$a"
done

# Files the tools look for.
echo 'root:x:0:0:root:/root:/bin/sh' >"$ST/etc/passwd"
printf 'root:x:0:\ntty:x:5:\nnogroup:x:65534:\n' >"$ST/etc/group"
echo 'hosts: files' >"$ST/etc/nsswitch.conf"
printf '127.0.0.1 localhost sdmac-vm\n::1 localhost\n' >"$ST/etc/hosts"
printf 'tcp 6 TCP\nudp 17 UDP\nicmp 1 ICMP\n' >"$ST/etc/protocols"
ln -s /proc/mounts "$ST/etc/mtab"
mkdir -p "$ST/lib/firmware"
for f in regulatory.db regulatory.db.p7s; do
	[ -e "/lib/firmware/$f" ] && put "/lib/firmware/$f" "/lib/firmware/$f"
done

# Modules: these and what they depend on (modules.dep, softdeps included).
MODULES=(
	virtio_pci virtio_rng 9pnet_virtio 9p
	cfg80211 mac80211 mac80211_hwsim
	ccm gcm cmac ctr ghash-generic aes_generic sha256_generic sha512_generic hmac seqiv
	veth tun sch_netem
)
log "resolving ${#MODULES[@]} modules with modules.dep"
: >"$WORK/mods"
for m in "${MODULES[@]}"; do
	modprobe -d "$KROOT" -S "$KVER" --show-depends "$m" >>"$WORK/mods" 2>"$WORK/err" ||
		{ grep -q "not found" "$WORK/err" && log "note: no module $m in $KVER (built in or absent)" || { cat "$WORK/err" >&2; die "modprobe --show-depends $m"; }; }
done
nmods=0
while read -r kind path _; do
	[ "$kind" = insmod ] || continue
	rel=${path#"$KROOT"}
	rel=${rel#/}
	[ -f "$ST/$rel" ] && continue
	mkdir -p "$ST/$(dirname "$rel")"
	case "$path" in
		*.ko) cp "$path" "$ST/$rel" ;;
		*.ko.xz) xz -dc "$path" >"$ST/${rel%.xz}" ;;
		*.ko.zst) zstd -dcq "$path" >"$ST/${rel%.zst}" ;;
		*.ko.gz) gzip -dc "$path" >"$ST/${rel%.gz}" ;;
		*) die "unknown module file $path" ;;
	esac
	nmods=$((nmods + 1))
done <"$WORK/mods"
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -f "$MODDIR/$f" ] && cp "$MODDIR/$f" "$ST/lib/modules/$KVER/"
done
depmod -b "$ST" "$KVER" 2>&1 | grep -v 'modules.order' >&2 || true
[ -s "$ST/lib/modules/$KVER/modules.dep" ] || die "depmod wrote no modules.dep"
log "$nmods module files"

install -m 755 "$TB/init" "$ST/init"

# ------------------------------------------------------------------ output
mkdir -p "$WORK/img"
python3 "$TB/imagetool.py" extract-vmlinux "$KROOT/boot/vmlinuz-$KVER" "$WORK/img/vmlinux" ||
	{ log "no vmlinux extracted: booting the compressed bzImage"; cp "$KROOT/boot/vmlinuz-$KVER" "$WORK/img/vmlinux"; }
# Uncompressed: the kernel unpacks a 40 MB cpio ~0.4 s faster under TCG than its gzip.
python3 "$TB/imagetool.py" cpio "$ST" "$WORK/img/initramfs.cpio" --node /dev/console:c:5:1 --node /dev/null:c:1:3
echo "$KVER" >"$WORK/img/kver"
{
	echo "sdmac VM test bed image; build.sh hash $HASH; built $(date -u +%FT%TZ)"
	echo "kernel $KVER from $KROOT"
	for p in qemu-system-x86 busybox-static iw iproute2 hostapd wpasupplicant iperf3 tcpdump ethtool kmod wireless-regdb; do
		echo "$p $(dpkg-query -W -f '${Version}' "$p" 2>/dev/null || echo '?')"
	done
	echo "modules:"
	(cd "$ST/lib/modules/$KVER" && find . -name '*.ko' | sed 's|.*/||; s|\.ko$||' | sort | tr '\n' ' ')
	echo
} >"$WORK/img/manifest.txt"
touch "$WORK/img/.ready"
rm -rf "$IMG"
mv "$WORK/img" "$IMG"
# Older images of this kernel (other script hashes) are dead weight.
for d in "$OUT"/img-"$KVER"-*; do
	[ "$d" = "$IMG" ] || rm -rf "$d"
done
log "image $IMG: initramfs $(du -h "$IMG/initramfs.cpio" | cut -f1), vmlinux $(du -h "$IMG/vmlinux" | cut -f1), $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s"
echo "$IMG"
