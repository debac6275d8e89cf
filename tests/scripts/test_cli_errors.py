#!/usr/bin/env python3
"""Bad input to the smembench command, as a table (TAP output, one line per case): every case must exit with the documented status,
print one line naming the problem (plus the --help hint), print nothing on stdout, and leave the
directory exactly as it was (no file written, the existing one untouched)."""
import os
import subprocess
import sys
import tempfile

# (arguments, exit status, text the error line must contain)
CASES = [
    (["--frobnicate"], 2, 'unknown option "--frobnicate"'),
    (["-z"], 2, 'unknown option "-z"'),
    (["--sweep"], 2, "needs a value"),
    ([], 2, "nothing to run"),
    (["--quiet"], 2, "nothing to run"),
    (["--sweep", "bank", "extra"], 2, 'unexpected argument "extra"'),
    (["--sweep", "carvout"], 2, 'unknown sweep "carvout"'),
    (["--sweep", ""], 2, "for --sweep"),
    (["--sweep", "bank,,latency"], 2, "for --sweep"),
    (["--sweep", "bank", "--sweep", "latency"], 2, "--sweep given twice"),
    (["--bench", "nosuch"], 2, 'unknown benchmark "nosuch"'),
    (["--bench", "bank", "--bench", "latency"], 2, "--bench given twice"),
    (["--bench", "bank", "--sweep", "bank"], 2, "cannot be combined"),
    (["--sweep", "carveout", "--axis", "stride=1"], 2, 'unknown axis "stride"'),
    (["--sweep", "carveout", "--axis", "carveout_pct"], 2, "NAME=LIST"),
    (["--sweep", "carveout", "--axis", "carveout_pct="], 2, "NAME=LIST"),
    (["--sweep", "carveout", "--axis", "=5"], 2, "NAME=LIST"),
    (["--sweep", "carveout", "--axis", "carveout_pct=0", "--axis", "carveout_pct=50"], 2, "--axis carveout_pct given twice"),
    (["--sweep", "carveout", "--axis", "carveout_pct=101"], 2, "--axis carveout_pct"),
    (["--sweep", "carveout", "--axis", "carveout_pct=-5"], 2, "out of range"),
    (["--sweep", "carveout", "--axis", "carveout_pct=0:100:0"], 2, "the step must be 1 or more"),
    (["--sweep", "carveout", "--axis", "carveout_pct=50:10"], 2, "the range is empty"),
    (["--sweep", "carveout", "--axis", "carveout_pct=1,,2"], 2, "an empty item"),
    (["--sweep", "carveout", "--axis", "carveout_pct=ten"], 2, "not a number"),
    (["--sweep", "carveout", "--axis", "carveout_pct=99999999999999999999"], 2, "not a number"),
    (["--sweep", "carveout", "--axis", "carveout_pct=1:100:*1"], 2, "the factor must be 2 or more"),
    (["--sweep", "bank", "--axis", "stride_elems=0"], 2, "out of range"),
    (["--sweep", "bank", "--axis", "width_bytes=5"], 2, "expected one of 4, 8, 16"),
    (["--sweep", "dynamic", "--axis", "dyn_smem_bytes=229K"], 2, "out of range"),
    (["--sweep", "bank", "--min-samples", "0"], 2, "--min-samples"),
    (["--sweep", "bank", "--min-samples", "abc"], 2, "--min-samples"),
    (["--sweep", "bank", "--max-samples", "99999999999"], 2, "--max-samples"),
    (["--sweep", "bank", "--min-samples", "20", "--max-samples", "5"], 2, "is below --min-samples"),
    (["--sweep", "bank", "--max-noise", "0"], 2, "--max-noise"),
    (["--sweep", "bank", "--max-noise", "101"], 2, "--max-noise"),
    (["--sweep", "bank", "--max-noise", "inf"], 2, "--max-noise"),
    (["--sweep", "bank", "--timeout", "-1"], 2, "--timeout"),
    (["--sweep", "bank", "--timeout", ""], 2, "--timeout"),
    (["--sweep", "bank", "--seed", "-1"], 2, "--seed"),
    (["--sweep", "bank", "--seed", "1e3"], 2, "--seed"),
    (["--sweep", "bank", "--device", "-1"], 2, "--device"),
    (["--sweep", "bank", "--device", "x"], 2, "--device"),
    (["--sweep", "bank", "--device", "0", "--device", "0"], 2, "--device given twice"),
    (["--sweep", "bank", "--device", "0,0"], 2, "listed twice"),
    (["--sweep", "bank", "--device", "0,"], 2, "--device"),
    (["--sweep", "bank", "--device", "any"], 2, "--device"),
    (["--sweep", "carveout", "--predict", "h900"], 2, 'unknown GPU model "h900"'),
    (["--sweep", "carveout", "--predict", "h100", "--predict", "a100"], 2, "--predict given twice"),
    (["--sweep", "bank", "--predict", "h100"], 2, "cannot run in predict mode"),
    (["--bench", "latency", "--predict", "h100"], 2, "cannot run in predict mode"),
    (["--sweep", "carveout", "--predict", "h100", "--require-gpu"], 2, "cannot be combined"),
    (["--sweep", "carveout", "--predict", "h100", "--device", "0"], 2, "cannot be combined"),
    (["--sweep", "tile", "--check", "--cold"], 2, "cannot be combined"),
    (["--sweep", "carveout", "-o", "existing.json"], 2, "already exists"),
    (["--sweep", "carveout", "-o", "missing/dir/r.json"], 2, "does not exist"),
    (["--sweep", "carveout", "-o", "."], 2, "is a directory"),
    (["--sweep", "carveout", "-o", "sub/"], 2, "expected a file name"),
    (["--sweep", "carveout", "-o", "a.json", "-o", "b.json"], 2, "--output given twice"),
]


def snapshot(d):
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, d)] = fh.read()
    return out


def main():
    exe = os.path.abspath(sys.argv[1])
    passed = failed = 0
    print(f"1..{len(CASES)}")
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "sub"))
        with open(os.path.join(d, "existing.json"), "w") as f:
            f.write("precious results\n")
        before = snapshot(d)
        for args, status, text in CASES:
            p = subprocess.run([exe] + args, cwd=d, capture_output=True, text=True, timeout=60)
            lines = p.stderr.splitlines()
            problems = []
            if p.returncode != status:
                problems.append(f"exit {p.returncode}, expected {status}")
            if not lines or not lines[0].startswith("smembench: ") or text not in lines[0]:
                problems.append(f"first line {lines[:1]!r} lacks {text!r}")
            if len(lines) > 2 or (len(lines) == 2 and not lines[1].startswith("Try 'smembench --help'")):
                problems.append(f"more than one message: {lines!r}")
            if p.stdout:
                problems.append(f"stdout not empty: {p.stdout[:80]!r}")
            if snapshot(d) != before:
                problems.append("the directory changed")
            name = " ".join(args) or "(no arguments)"
            if problems:
                failed += 1
                print(f"not ok {passed + failed} - {name}: {'; '.join(problems)}")
            else:
                passed += 1
                print(f"ok {passed + failed} - {name} -> exit {status}")
    print(f"# {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
