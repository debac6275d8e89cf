#!/usr/bin/env python3
"""Tests of what a run prints (issue 52), in predict mode (no GPU needed): every line at most 100
characters by default, --wide for the whole cells, -q silent on success, the published block never
in predict mode (it lists only what a benchmark of the run measured beside: tests/unit/test_table.c),
and --wide in --help and docs/usage.md's Options table.

  test_console.py SMEMBENCH
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import tap  # noqa: E402
from tap import test  # noqa: E402

EXE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "smembench")


def run(*args):
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([EXE, "--predict", "h100", "--sweep", "all", "-o", os.path.join(d, "p.json"), *args],
                           capture_output=True, text=True, timeout=120)
        return p.returncode, p.stdout, p.stderr


@test
def lines_are_at_most_100_characters_and_wide_gives_the_whole_cells():
    rc, out, err = run()
    assert rc == 0, err
    lines = (out + err).splitlines()
    assert len(lines) > 600, len(lines)
    longest = max(lines, key=len)
    assert len(longest) <= 100, f"{len(longest)} characters: {longest}"
    assert any(ln.rstrip().endswith("~") or "~ " in ln for ln in lines), "a cut cell is marked"
    # predict mode times nothing: no time columns, no published block to compare with
    header = next(ln for ln in lines if ln.startswith("bench "))
    assert "median_us" not in header and "blk/SM a/p/m" in header, header
    assert not any(ln.startswith("published for") for ln in lines), "the published block in predict mode"
    assert err.strip().startswith("smembench: wrote ") and " of " in err, err
    rc, wide, _ = run("--wide")
    assert rc == 0 and max(len(ln) for ln in wide.splitlines()) > 100
    assert "edge_elems=64 width_bytes=16" in wide and "~ " not in wide


@test
def quiet_is_silent_on_success():
    rc, out, err = run("-q")
    assert rc == 0 and out == "" and err == "", (rc, out[:200], err[:200])


@test
def wide_is_in_the_help_and_the_options_table():
    h = subprocess.run([EXE, "--help"], capture_output=True, text=True, timeout=30).stdout
    assert "--wide" in h and max(len(ln) for ln in h.splitlines()) <= 100, h
    usage = open(os.path.join(ROOT, "docs", "usage.md"), encoding="utf-8").read()
    assert "| `--wide` |" in usage


def main():
    return tap.run()


if __name__ == "__main__":
    sys.exit(main())
