#!/usr/bin/env python3
"""The histogram example's input and reference, generated at build time from its launch description.

Reads histogram.json for the byte count (its axis n, which must have one value: the file fill has a
fixed size), the seed, and the names of the data file (args[0]'s file fill) and of the reference
file, which must be the two outputs named here. Writes n pseudo-random bytes, skewed the way a
photograph's histogram is (half of them in the 16 darkest bins, so the blocks' shared-memory atomics
collide), and the 256 counts as raw little-endian uint32. The bytes come from Python's own seeded
generator, so the files are the same with or without numpy (numpy only counts faster).

usage: make_reference.py DESCRIPTION DATA_OUT REFERENCE_OUT"""
import collections
import json
import os
import random
import struct
import sys

BINS = 256


def fail(msg):
    print(f"make_reference.py: {msg}", file=sys.stderr)
    return 1


def skew(data):
    """Bytes 0..127 folded onto 0..15, 128..255 kept: bins 0..15 get about 1/32 of the bytes each,
    16..127 none, 128..255 about 1/256 each."""
    table = bytes(b & 15 if b < 128 else b for b in range(BINS))
    return data.translate(table)


def counts(data):
    """The 256 bin counts of data."""
    try:
        import numpy as np
    except ImportError:
        c = collections.Counter(data)
        return [c.get(v, 0) for v in range(BINS)]
    return [int(x) for x in np.bincount(np.frombuffer(data, dtype=np.uint8), minlength=BINS)]


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    desc_path, data_out, ref_out = argv[1:]
    try:
        with open(desc_path, encoding="utf-8") as f:
            desc = json.load(f)
    except (OSError, ValueError) as e:
        return fail(f"cannot read {desc_path}: {e}")

    n = desc.get("axes", {}).get("n")
    n = n.get("values") if isinstance(n, dict) else n
    if not isinstance(n, list) or len(n) != 1 or not isinstance(n[0], int) or n[0] <= 0:
        return fail(f"{desc_path}: axes.n must have exactly one positive value (the data file's size); it is {n!r}")
    n = n[0]
    fill = (desc.get("args") or [{}])[0].get("fill")
    want = {"args[0].fill.file": fill.get("file") if isinstance(fill, dict) else None,
            "check.reference.file": desc.get("check", {}).get("reference", {}).get("file")}
    for (key, name), out in zip(want.items(), (data_out, ref_out)):
        if name != os.path.basename(out):
            return fail(f"{desc_path}: {key} is {name!r}, but this build writes {os.path.basename(out)!r}")

    data = skew(random.Random(desc.get("seed", 1)).randbytes(n))
    ref = struct.pack(f"<{BINS}I", *counts(data))
    for path, blob in ((data_out, data), (ref_out, ref)):
        try:
            with open(path, "wb") as f:
                f.write(blob)
        except OSError as e:
            return fail(f"cannot write {path}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
