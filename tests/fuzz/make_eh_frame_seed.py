#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Cuts a fuzz_eh_frame input from an ELF file: the 8-byte little-endian
address of .eh_frame_hdr, then the file's bytes from .eh_frame_hdr to the
end of .eh_frame (adjacent in the file as in memory: one segment).

    tests/fuzz/make_eh_frame_seed.py /lib/x86_64-linux-gnu/libm.so.6 OUT
"""
import struct
import subprocess
import sys


def sections(elf):
    """name -> (address, file offset, size), from readelf -SW."""
    out = subprocess.run(["readelf", "-SW", elf], check=True, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 5 and fields[1] in (".eh_frame_hdr", ".eh_frame"):
            found[fields[1]] = tuple(int(f, 16) for f in fields[3:6])
    return found


def main():
    elf, out = sys.argv[1], sys.argv[2]
    s = sections(elf)
    if ".eh_frame_hdr" not in s or ".eh_frame" not in s or s[".eh_frame"][1] < s[".eh_frame_hdr"][1]:
        sys.exit(f"{elf}: no .eh_frame_hdr before .eh_frame")
    addr, start, _ = s[".eh_frame_hdr"]
    _, frame_off, frame_size = s[".eh_frame"]
    with open(elf, "rb") as f:
        f.seek(start)
        data = f.read(frame_off + frame_size - start)
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", addr) + data)


if __name__ == "__main__":
    main()
