#!/usr/bin/env bash
# Build the ns-3 saturation baseline (bench/ns3/saturation.cc) against the PyPI wheel
# `ns3` (3.44.post0), which ships ns-3's headers and shared libraries.
#
#   bench/ns3/build.sh            # install the wheel if missing, compile if out of date
#   bench/ns3/build.sh --force    # compile even if the binary is up to date
#   PYTHON=/path/to/python3 bench/ns3/build.sh
#   CXX=clang++ bench/ns3/build.sh
#
# Output: bench/out/ns3-saturation (runs without LD_LIBRARY_PATH: the wheel's lib dir is
# in its RUNPATH).
set -euo pipefail

NS3_VERSION="3.44.post0"
PYTHON="${PYTHON:-python3}"
CXX="${CXX:-g++}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out_dir="$root/bench/out"
src="$here/saturation.cc"
bin="$out_dir/ns3-saturation"

die() {
    echo "bench/ns3/build.sh: error: $*" >&2
    exit 1
}

force=0
for arg in "$@"; do
    case "$arg" in
        --force) force=1 ;;
        -h|--help) sed -n '2,12p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) die "unknown argument '$arg' (expected --force)" ;;
    esac
done

command -v "$PYTHON" >/dev/null 2>&1 || die "Python interpreter '$PYTHON' not found (set PYTHON=...)"
command -v "$CXX" >/dev/null 2>&1 || die "C++ compiler '$CXX' not found (install g++ or set CXX=...)"
[ -f "$src" ] || die "missing source $src"

# Where the wheel's data lives, without importing `ns` (that starts cppyy, slow and noisy).
locate_prefix() {
    "$PYTHON" - "$NS3_VERSION" <<'EOF'
import sys
from importlib import metadata
try:
    dist = metadata.distribution("ns3")
except metadata.PackageNotFoundError:
    sys.exit(3)
if dist.version != sys.argv[1]:
    print(f"installed ns3 is {dist.version}, expected {sys.argv[1]}", file=sys.stderr)
    sys.exit(4)
print(dist.locate_file("ns3"))
EOF
}

set +e
prefix="$(locate_prefix)"
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
    if [ "$rc" -ne 3 ] && [ "$rc" -ne 4 ]; then
        die "could not query installed packages with $PYTHON (exit $rc)"
    fi
    echo "bench/ns3/build.sh: installing ns3==$NS3_VERSION with $PYTHON -m pip (about 1 min)" >&2
    "$PYTHON" -m pip install --quiet "ns3==$NS3_VERSION" >&2 \
        || die "'$PYTHON -m pip install ns3==$NS3_VERSION' failed (is PyPI reachable?)"
    prefix="$(locate_prefix)" || die "ns3 $NS3_VERSION still not found after pip install"
fi

inc="$prefix/include"
lib=""
for d in "$prefix/lib64" "$prefix/lib"; do
    if [ -f "$d/libns3.44-core.so" ]; then lib="$d"; break; fi
done
[ -f "$inc/ns3/core-module.h" ] || die "ns-3 headers not found: $inc/ns3/core-module.h is missing"
[ -f "$inc/ns3/wifi-mac.h" ] || die "ns-3 wifi headers not found under $inc/ns3"
[ -n "$lib" ] || die "ns-3 libraries not found: no libns3.44-core.so under $prefix/lib64 or $prefix/lib"
libs=(wifi internet mobility propagation network core)
for m in "${libs[@]}"; do
    [ -f "$lib/libns3.44-$m.so" ] || die "missing library $lib/libns3.44-$m.so"
done

# Rebuild when the source or this script changed, or when the wheel, compiler or Python
# differ from the last build (the binary's RUNPATH points into the wheel).
stamp="$bin.stamp"
stamp_text="prefix=$lib cxx=$(command -v "$CXX") $("$CXX" -dumpfullversion 2>/dev/null || true)"
if [ "$force" -eq 0 ] && [ -x "$bin" ] && [ "$bin" -nt "$src" ] && [ "$bin" -nt "${BASH_SOURCE[0]}" ] \
    && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_text" ]; then
    echo "bench/ns3/build.sh: $bin is up to date" >&2
    exit 0
fi

mkdir -p "$out_dir"
# The wheel was built with these definitions (see lib64/cmake/ns3Targets.cmake); using
# the same ones keeps inline code and class layouts identical to the libraries'.
defs=(-DNS3_BUILD_PROFILE_RELEASE -DNS3_LOG_ENABLE -DNS3_ASSERT_ENABLE -D__LINUX__)
link=()
for m in "${libs[@]}"; do link+=("-lns3.44-$m"); done

echo "bench/ns3/build.sh: compiling $bin (ns-3 from $prefix)" >&2
"$CXX" -std=c++20 -O2 -Wall "${defs[@]}" -isystem "$inc" "$src" -o "$bin.tmp" \
    -L"$lib" "${link[@]}" -Wl,-rpath,"$lib" -Wl,-rpath-link,"$lib" \
    || die "compilation failed (compiler: $CXX; headers: $inc; libraries: $lib)"
mv -f "$bin.tmp" "$bin"
printf '%s' "$stamp_text" >"$stamp"

# Smoke test: the binary must load its libraries and answer --help.
"$bin" --help >/dev/null 2>&1 || die "$bin was built but does not run (library loading problem?)"
echo "bench/ns3/build.sh: built $bin" >&2
