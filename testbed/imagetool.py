#!/usr/bin/env python3
"""Helpers of testbed/build.sh (Python 3 standard library only).

  imagetool.py extract-vmlinux BZIMAGE OUT
      Write the uncompressed kernel (an ELF file) found inside a bzImage.
      Like the kernel's scripts/extract-vmlinux (reimplemented, not copied): look
      for the magic number of every compression the kernel supports, try to
      decompress from each hit, keep the first result that is an ELF image.

  imagetool.py cpio STAGEDIR OUT [--gzip] [--node PATH:c:MAJOR:MINOR ...]
      Write a "newc" cpio archive of STAGEDIR (the initramfs format), every
      entry owned by root, plus device nodes given with --node (so no mknod,
      no root and no cpio(1) are needed to build the image).
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import shutil
import stat
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Callable, Iterable, List, Optional, Tuple

# --------------------------------------------------------------- extract-vmlinux


def _gunzip(data: bytes) -> bytes:
    # A raw gzip member; the kernel image's payload is followed by other data.
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    return d.decompress(data)


def _unxz(data: bytes) -> bytes:
    return lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data)


def _unlzma(data: bytes) -> bytes:
    return lzma.LZMADecompressor(format=lzma.FORMAT_ALONE).decompress(data)


def _bunzip2(data: bytes) -> bytes:
    return bz2.BZ2Decompressor().decompress(data)


def _external(*cmd: str) -> Callable[[bytes], bytes]:
    def run(data: bytes) -> bytes:
        if not shutil.which(cmd[0]):
            raise OSError(f"{cmd[0]} not installed")
        # The tools complain about the trailing data but still write what they
        # decompressed: judge by the output, not the exit status.
        p = subprocess.run(list(cmd), input=data, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return p.stdout

    return run


# (name, magic, decompressor), most likely first for Debian kernels.
_FORMATS: List[Tuple[str, bytes, Callable[[bytes], bytes]]] = [
    ("xz", b"\xfd7zXZ\x00", _unxz),
    ("zstd", b"\x28\xb5\x2f\xfd", _external("zstd", "-dcq")),
    ("gzip", b"\x1f\x8b\x08", _gunzip),
    ("lz4", b"\x02\x21\x4c\x18", _external("lz4", "-dcq")),
    ("lzo", b"\x89LZO", _external("lzop", "-dcq")),
    ("bzip2", b"BZh", _bunzip2),
    ("lzma", b"\x5d\x00\x00\x00", _unlzma),
]


def _find_all(data: bytes, magic: bytes) -> Iterable[int]:
    pos = data.find(magic)
    while pos >= 0:
        yield pos
        pos = data.find(magic, pos + 1)


def extract_vmlinux(image: bytes) -> Tuple[str, bytes]:
    if image[:4] == b"\x7fELF":
        return "none", image
    for name, magic, decompress in _FORMATS:
        for pos in _find_all(image, magic):
            try:
                out = decompress(image[pos:])
            except Exception:  # not a stream start, or the tool is missing
                continue
            if out[:4] == b"\x7fELF":
                return name, out
    raise ValueError("no compressed ELF kernel found in the image")


# -------------------------------------------------------------------------- cpio


class _Cpio:
    def __init__(self, out) -> None:
        self.out = out
        self.ino = 1

    def entry(self, name: str, mode: int, data: bytes = b"", rdev: Tuple[int, int] = (0, 0), mtime: int = 0) -> None:
        namez = name.encode() + b"\0"
        fields = [
            self.ino, mode, 0, 0, 1, mtime, len(data), 0, 0, rdev[0], rdev[1], len(namez), 0,
        ]
        self.ino += 1
        hdr = b"070701" + b"".join(b"%08X" % f for f in fields)
        self.out.write(hdr + namez)
        self.out.write(b"\0" * (-(len(hdr) + len(namez)) % 4))
        self.out.write(data)
        self.out.write(b"\0" * (-len(data) % 4))

    def trailer(self) -> None:
        self.entry("TRAILER!!!", 0)


def write_cpio(stage: Path, out_path: Path, compress: bool, nodes: List[str]) -> None:
    tmp = out_path.with_name(out_path.name + ".tmp")
    raw = open(tmp, "wb")
    sink = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) if compress else raw
    try:
        cp = _Cpio(sink)
        paths = []
        for root, dirs, files in os.walk(stage):
            dirs.sort()
            for n in dirs + sorted(files):
                paths.append(Path(root) / n)
        paths.sort(key=lambda p: str(p.relative_to(stage)))
        seen = set()
        for p in paths:
            rel = str(p.relative_to(stage))
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                cp.entry(rel, stat.S_IFLNK | 0o777, os.readlink(p).encode())
            elif stat.S_ISDIR(st.st_mode):
                cp.entry(rel, stat.S_IFDIR | (st.st_mode & 0o7777))
            elif stat.S_ISREG(st.st_mode):
                cp.entry(rel, stat.S_IFREG | (st.st_mode & 0o7777), p.read_bytes())
            else:
                raise ValueError(f"{p}: unsupported file type in the stage directory")
            seen.add(rel)
        for spec in nodes:
            path, kind, major, minor = spec.split(":")
            path = path.lstrip("/")
            if kind not in ("c", "b"):
                raise ValueError(f"--node {spec}: kind must be c or b")
            parent = os.path.dirname(path)
            if parent and parent not in seen:
                cp.entry(parent, stat.S_IFDIR | 0o755)
                seen.add(parent)
            fmt = stat.S_IFCHR if kind == "c" else stat.S_IFBLK
            cp.entry(path, fmt | 0o600, rdev=(int(major), int(minor)))
        cp.trailer()
    finally:
        if sink is not raw:
            sink.close()
        raw.close()
    os.replace(tmp, out_path)


# -------------------------------------------------------------------------- main


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "extract-vmlinux" and len(rest) == 2:
        src, dst = Path(rest[0]), Path(rest[1])
        try:
            fmt, elf = extract_vmlinux(src.read_bytes())
        except ValueError as e:
            print(f"imagetool: {src}: {e}", file=sys.stderr)
            return 1
        tmp = dst.with_name(dst.name + ".tmp")
        tmp.write_bytes(elf)
        os.replace(tmp, dst)
        print(f"imagetool: {src.name}: {fmt} payload -> {dst} ({len(elf) >> 20} MiB)", file=sys.stderr)
        return 0
    if cmd == "cpio" and len(rest) >= 2:
        stage, dst = Path(rest[0]), Path(rest[1])
        compress, nodes, i = False, [], 2
        while i < len(rest):
            if rest[i] == "--gzip":
                compress = True
            elif rest[i] == "--node" and i + 1 < len(rest):
                i += 1
                nodes.append(rest[i])
            else:
                print(f"imagetool: cpio: unknown argument {rest[i]!r}", file=sys.stderr)
                return 2
            i += 1
        write_cpio(stage, dst, compress, nodes)
        return 0
    print(f"imagetool: bad command line: {' '.join(argv)} (see --help)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
