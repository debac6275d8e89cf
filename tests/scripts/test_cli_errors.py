#!/usr/bin/env python3
"""Bad input to smembench, to its scripts (compare, export, plot, report) and to their installed
commands (smembench-compare, ...), as a table.

  test_cli_errors.py SMEMBENCH [MESON BUILDDIR]            TAP, one line per case
  test_cli_errors.py SMEMBENCH [MESON BUILDDIR] --table    the same cases as a Markdown table

With MESON and BUILDDIR the build is installed (meson install --destdir) into a temporary directory
and every script case is run again through the installed command of its script.

Every case must exit with its documented status and print exactly one message line on stderr (the
driver may add its "Try 'smembench --help'" hint) with no Python traceback, print nothing on stdout,
and leave the directory as it was: no file added (a temporary one included), none changed, and
nothing that is not a regular file replaced. For the driver the line must start with "smembench: "
and contain the given words; the scripts belong to other parts of the project, so for them the exit
status, the single line and the absence of a traceback are what is asserted.

stdout is a pipe, or as a case says: closed (>&-), /dev/full, open only for reading, or a file under
ulimit -f 1 KiB ("ulimit"; the tools must notice the short write, not exit as if all was written).
"""
import json
import os
import resource
import shutil
import socket
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "..", "scripts")
RESULTS = os.path.join(HERE, "..", "..", "results")
GOOD = os.path.join(RESULTS, "nvidia-h200_20261129_carveout.json")

NO_GPU = {"CUDA_VISIBLE_DEVICES": ""}   # the same answer on a machine with a GPU
# a Python without jsonschema: the reader's fallback (a jsonschema package first on the path that
# cannot be imported; made by main(), "{NOJS}" replaced in run())
NO_JSONSCHEMA = {"PYTHONPATH": "{NOJS}", "PYTHONDONTWRITEBYTECODE": "1"}
NOJS = None
FSIZE = 1024                             # the "ulimit" cases' ulimit -f, in bytes
NOT_UTF8 = "trunc\udcff.json"           # a file name with the byte 0xff (surrogateescape)
LONG_NAME = "n" * 256 + ".json"          # one byte more than any Linux file system takes
LONG_PATH = "/".join(["d" * 200] * 21) + "/r.json"   # 4227 bytes, over PATH_MAX


class Case:
    def __init__(self, tool, args, status, text=None, env=None, stdout=None, needs=None):
        self.tool, self.args, self.status, self.text = tool, args, status, text
        self.env, self.stdout, self.needs = env or {}, stdout, needs


def S(args, status, text, **kw):
    return Case("smembench", args, status, text, **kw)


P = ["--predict", "h100"]   # predict mode: the same everywhere, with or without a GPU

CASES = [
    # options and their values
    S(["--frobnicate"], 2, 'unknown option "--frobnicate"'),
    S(["-z"], 2, 'unknown option "-z"'),
    S(["--sweep"], 2, "needs a value"),
    S(["-s"], 2, "needs a value"),
    S(["--sweep", "carveout", "-o"], 2, "needs a value"),
    S([], 2, "nothing to run"),
    S(["--quiet"], 2, "nothing to run"),
    S(["--help", "--frobnicate"], 2, 'unknown option "--frobnicate"'),
    S(["--list", "extra"], 2, 'unexpected argument "extra"'),
    S(["--json"], 2, "--json changes what --list prints"),
    S(["--sweep", "carveout", "--json"], 2, "--json changes what --list prints"),
    S(["--sweep", "bank", "extra"], 2, 'unexpected argument "extra"'),
    S(["--sweep", "carvout"], 2, 'unknown sweep "carvout"'),
    S(["--sweep", ""], 2, "for --sweep"),
    S(["--sweep", "bank,,latency"], 2, "for --sweep"),
    S(["--sweep", "bank,"], 2, "for --sweep"),
    S(["--sweep", "bank,nosuch"], 2, 'unknown sweep "nosuch"'),
    S(["--sweep", ",".join(["bank"] * 17)], 2, "at most 16 sweeps"),
    S(["--sweep", "bank", "--sweep", "latency"], 2, "--sweep given twice"),
    S(["--bench", "nosuch"], 2, 'unknown benchmark "nosuch"'),
    S(["--bench", ""], 2, "for --bench"),
    S(["--bench", "bank", "--bench", "latency"], 2, "--bench given twice"),
    S(["--bench", "bank", "--sweep", "bank"], 2, "cannot be combined"),
    # axis lists
    S(["--sweep", "carveout", "--axis", "stride=1"], 2, 'unknown axis "stride"'),
    S(P + ["--sweep", "all", "--axis", "stride_elems=1"], 2, 'unknown axis "stride_elems"'),
    S(["--sweep", "carveout", "--axis", "carveout_pct"], 2, "NAME=LIST"),
    S(["--sweep", "carveout", "--axis", "carveout_pct="], 2, "NAME=LIST"),
    S(["--sweep", "carveout", "--axis", "=5"], 2, "NAME=LIST"),
    S(["--sweep", "carveout", "--axis", "carveout_pct=0", "--axis", "carveout_pct=50"], 2,
      "--axis carveout_pct given twice"),
    S(["--sweep", "carveout"] + [a for i in range(17) for a in ("--axis", f"a{i}=1")], 2, "at most 16 --axis"),
    S(["--sweep", "carveout", "--axis", "carveout_pct=101"], 2, "--axis carveout_pct"),
    S(["--sweep", "carveout", "--axis", "carveout_pct=1K"], 2, "1024 is out of range"),
    S(["--sweep", "carveout", "--axis", "carveout_pct=-5"], 2, "out of range"),
    S(["--sweep", "carveout", "--axis", "carveout_pct=0:100:0"], 2, "the step must be 1 or more"),
    S(["--sweep", "carveout", "--axis", "carveout_pct=50:10"], 2, "the range is empty"),
    S(["--sweep", "carveout", "--axis", "carveout_pct=0:10:2:3"], 2, "at most three parts"),
    S(["--sweep", "carveout", "--axis", "carveout_pct=a:10"], 2, "a range bound is not a number"),
    S(["--sweep", "carveout", "--axis", "carveout_pct=1,,2"], 2, "an empty item"),
    S(["--sweep", "carveout", "--axis", "carveout_pct=ten"], 2, "not a number"),
    S(["--sweep", "carveout", "--axis", "carveout_pct=+"], 2, "not a number"),
    S(["--sweep", "carveout", "--axis", "carveout_pct=99999999999999999999"], 2, "not a number"),
    S(["--sweep", "carveout", "--axis", "carveout_pct=1:100:*1"], 2, "the factor must be 2 or more"),
    S(["--sweep", "dynamic", "--axis", "dyn_smem_bytes=0:64K:*2"], 2, "a geometric range must start above 0"),
    S(["--sweep", "bank", "--axis", "stride_elems=0"], 2, "out of range"),
    S(["--sweep", "bank", "--axis", "width_bytes=5"], 2, "expected one of 4, 8, 16"),
    S(["--sweep", "dynamic", "--axis", "dyn_smem_bytes=229K"], 2, "out of range"),
    S(["--bench", "dynamic", "--axis", "dyn_smem_bytes=0:227K:1"], 2, "more than 4096 values"),
    S(P + ["--bench", "dynamic", "--axis", "dyn_smem_bytes=0:227K:64", "--axis", "mib=1:100"], 2,
      "more than 65536 points"),
    # numbers
    S(["--sweep", "bank", "--min-samples", "0"], 2, "--min-samples"),
    S(["--sweep", "bank", "--min-samples", "abc"], 2, "--min-samples"),
    S(["--sweep", "bank", "--min-samples", "100001"], 2, "--min-samples"),
    S(["--sweep", "bank", "--max-samples", "99999999999"], 2, "--max-samples"),
    S(["--sweep", "bank", "--max-samples", "0"], 2, "--max-samples"),
    S(["--sweep", "bank", "--min-samples", "20", "--max-samples", "5"], 2, "is below --min-samples"),
    S(["--sweep", "bank", "--trials", "0"], 2, 'invalid value "0" for --trials; expected an integer in 1..100'),
    S(["--sweep", "bank", "--trials", "101"], 2, "--trials"),
    S(["--sweep", "bank", "--trials", "three"], 2, "--trials"),
    S(["--sweep", "bank", "--order-seed", "-1"], 2, "--order-seed"),
    S(["--sweep", "bank", "--order-seed", ""], 2, "--order-seed"),
    S(["--sweep", "bank", "--max-noise", "0"], 2, "--max-noise"),
    S(["--sweep", "bank", "--max-noise", "-1"], 2, "--max-noise"),
    S(["--sweep", "bank", "--max-noise", "101"], 2, "--max-noise"),
    S(["--sweep", "bank", "--max-noise", "inf"], 2, "--max-noise"),
    S(["--sweep", "bank", "--max-noise", "1e999"], 2, "--max-noise"),
    S(["--sweep", "bank", "--timeout", "-1"], 2, "--timeout"),
    S(["--sweep", "bank", "--timeout", ""], 2, "--timeout"),
    S(["--sweep", "bank", "--timeout", "3601"], 2, "--timeout"),
    S(["--sweep", "bank", "--timeout", "nan"], 2, "--timeout"),
    S(["--sweep", "bank", "--seed", "-1"], 2, "--seed"),
    S(["--sweep", "bank", "--seed", "1e3"], 2, "--seed"),
    S(["--sweep", "bank", "--seed", "99999999999999999999"], 2, "--seed"),
    # devices and models
    S(["--sweep", "bank", "--device", "-1"], 2, "--device"),
    S(["--sweep", "bank", "--device", "x"], 2, "--device"),
    S(["--sweep", "bank", "--device", "1024"], 2, "--device"),
    S(["--sweep", "bank", "--device", "0", "--device", "0"], 2, "--device given twice"),
    S(["--sweep", "bank", "--device", "0,0"], 2, "listed twice"),
    S(["--sweep", "bank", "--device", "0,"], 2, "--device"),
    S(["--sweep", "bank", "--device", "any"], 2, "--device"),
    S(["--sweep", "bank", "--device", ",".join(str(i) for i in range(65))], 2, "at most 64 devices"),
    S(["--sweep", "carveout", "--predict", "h900"], 2, 'unknown GPU model "h900"'),
    S(["--sweep", "carveout", "--predict", ""], 2, "for --predict"),
    S(["--sweep", "carveout", "--predict", "h100", "--predict", "a100"], 2, "--predict given twice"),
    S(["--sweep", "bank", "--predict", "h100"], 2, "cannot run in predict mode"),
    # --list does not offer --predict for the cluster sweep: predict mode refuses it with the reason
    S(["--sweep", "cluster", "--predict", "h200"], 2, "points can be predicted on NVIDIA H200 (model): cluster_"),
    S(["--sweep", "carveout,bank", "--predict", "h100"], 2, "cannot run in predict mode"),
    S(["--bench", "latency", "--predict", "h100"], 2, "cannot run in predict mode"),
    S(["--sweep", "carveout", "--predict", "h100", "--require-gpu"], 2, "cannot be combined"),
    S(["--sweep", "carveout", "--predict", "h100", "--device", "0"], 2, "cannot be combined"),
    S(["--sweep", "tile", "--predict", "h100", "--check"], 2, "--predict and --check cannot be combined"),
    S(["--sweep", "tile", "--predict", "h100", "--cold"], 2, "--predict and --cold cannot be combined"),
    S(["--sweep", "tile", "--check", "--cold"], 2, "cannot be combined"),
    # options that would quietly mean something else
    S(P + ["--bench", "cublas"], 2, "none of the 3 points can be predicted on NVIDIA H100"),
    S(P + ["--bench", "copy"], 2, "none of the 3 points can be predicted"),
    S(["--bench", "cublas"], 3, "none of the 3 points can be predicted without one", env=NO_GPU),
    S(["--sweep", "carveout", "--check"], 3, "--check needs a GPU", env=NO_GPU),
    S(["--sweep", "tile", "--cold"], 3, "--cold needs a GPU", env=NO_GPU),
    S(["--sweep", "carveout", "--device", "0"], 3, "--device needs a GPU", env=NO_GPU),
    S(["--sweep", "carveout", "--device", "5"], 3, "--device needs a GPU", env=NO_GPU),
    S(["--sweep", "carveout", "--device", "all"], 3, "--device needs a GPU", env=NO_GPU),
    S(["--sweep", "carveout", "--require-gpu"], 3, "--require-gpu was given", env=NO_GPU),
    S(["--sweep", "bank"], 3, "has no predict mode", env=NO_GPU),
    S(["--sweep", "carveout,uninit"], 3, "has no predict mode", env=NO_GPU),
    # the output file: found before anything runs
    S(["--sweep", "carveout", "-o", "existing.json"], 2, "already exists"),
    S(["--sweep", "carveout", "-o", "link-to-existing.json"], 2, "already exists"),
    S(["--sweep", "carveout", "-o", "missing/dir/r.json"], 2, "does not exist"),
    S(["--sweep", "carveout", "-o", "missing/r.json", "--force"], 2, "does not exist"),
    S(["--sweep", "carveout", "-o", "existing.json/r.json"], 2, "is not a directory"),
    S(["--sweep", "carveout", "-o", "."], 2, "is a directory"),
    S(["--sweep", "carveout", "-o", "sub", "--force"], 2, "it is a directory"),
    S(["--sweep", "carveout", "-o", "sub/"], 2, "expected a file name"),
    S(["--sweep", "carveout", "-o", ""], 2, "expected a file name"),
    S(["--sweep", "carveout", "--output="], 2, "expected a file name"),
    S(["--sweep", "carveout", "-o", "a.json", "-o", "b.json"], 2, "--output given twice"),
    S(["--sweep", "carveout", "-o", LONG_NAME], 2, "the file name is 261 bytes"),
    S(["--sweep", "carveout", "-o", "sub/" + LONG_NAME, "--force"], 2, "the file name is 261 bytes"),
    S(["--sweep", "carveout", "-o", LONG_PATH], 2, "the path is 4227 bytes"),
    S(["--sweep", "carveout", "-o", "readonly/r.json"], 2, "is not writable", needs="readonly"),
    # nothing but a regular file is replaced, --force or not
    S(["--sweep", "carveout", "-o", "fifo"], 2, "it is a FIFO, not a regular file"),
    S(["--sweep", "carveout", "-o", "fifo", "--force"], 2, "it is a FIFO, not a regular file"),
    S(["--sweep", "carveout", "-o", "sock", "--force"], 2, "it is a socket, not a regular file"),
    S(["--sweep", "carveout", "-o", "/dev/zero"], 2, "it is a character device"),
    S(["--sweep", "carveout", "-o", "/dev/zero", "--force"], 2, "it is a character device"),
    S(["--sweep", "carveout", "-o", "/dev/full", "--force"], 2, "it is a character device"),
    S(["--sweep", "carveout", "-o", "link-to-fifo", "--force"], 2, "symbolic link to a FIFO"),
    S(["--sweep", "carveout", "-o", "link-to-sub", "--force"], 2, "symbolic link to a directory"),
    S(["--sweep", "carveout", "-o", "link-to-zero", "--force"], 2, "symbolic link to a character device"),
    S(["--sweep", "carveout", "-o", "dangling", "--force"], 2, "symbolic link to nothing"),
    S(["--sweep", "carveout", "-o", "dangling"], 2, "symbolic link to nothing"),
    # stdout that cannot take the results: said, exit 1
    S(P + ["--sweep", "carveout", "-o", "-"], 1, "cannot write the results to stdout: it is closed", stdout="closed"),
    S(P + ["--sweep", "carveout", "-q", "-o", "-"], 1, "stdout: No space left on device", stdout="/dev/full"),
    S(P + ["--sweep", "carveout", "-o", "-"], 1, "stdout: it is open only for reading", stdout="read-only"),
]


def script_cases():
    """The scripts' cases: exit status, one line, no traceback (their messages are their own)."""
    def C(tool, args, status, needs=None, text=None):
        return Case(tool, args, status, text, needs=needs)
    bad_files = ["missing.json", "sub", "empty.json", "text.json", "array.json", "schema2.json", "noschema.json",
                 "badutf8.json", "binary.json", "nested.json", "bigint.json", "nan.json", "truncated.json",
                 "results-not-list.json", "/dev/null"]
    cases = [
        C("compare", [], 2),
        C("compare", ["good.json"], 2),
        C("compare", ["good.json", "good.json", "--threshold", "-1"], 2),
        C("compare", ["good.json", "good.json", "--threshold", "abc"], 2),
        C("compare", ["good.json", "good.json", "--threshold", "nan"], 2),
        C("compare", ["good.json", "good.json", "--alpha", "0"], 2),
        C("compare", ["good.json", "good.json", "--alpha", "2"], 2),
        C("compare", ["good.json", "good.json", "--frobnicate"], 2),
        C("compare", ["good.json", "good.json", "missing.json"], 2),
        C("compare", ["predicted.json", "predicted.json"], 2),
        C("export", [], 2),
        C("export", ["good.json"], 2),
        C("export", ["good.json", "--format", "xml"], 2),
        # one point twice: from two copies of one file (the same file twice is read once)
        C("export", ["good.json", "figs/carveout.png", "--format", "gab"], 2),
        C("export", ["good.json", "--format", "gab", "--frobnicate"], 2),
        C("plot", [], 2, needs="matplotlib"),
        C("plot", ["good.json"], 2, needs="matplotlib"),
        C("plot", ["good.json", "-o", "existing.json"], 2, needs="matplotlib"),
        C("plot", ["good.json", "-o", "existing.json/plots"], 2, needs="matplotlib"),
        C("plot", ["good.json", "-o", "/dev/null"], 2, needs="matplotlib"),
    ]
    for f in bad_files:
        cases.append(C("compare", [f, "good.json"], 2))
        cases.append(C("export", [f, "--format", "bmf"], 2))
        # plot skips, with a note, JSON that does not claim to be a result file (results/*.json holds
        # schema.json): not an error of its own
        if f not in ("array.json", "noschema.json"):
            cases.append(C("plot", [f, "-o", "plots"], 2, needs="matplotlib"))
    # the HTML report (smembench-report), where this tree has it
    report = [
        C("report", [], 2),
        C("report", ["good.json"], 2),
        C("report", ["good.json", "-o", "existing.json"], 2),
        C("report", ["good.json", "-o", "existing.json/report"], 2),
        C("report", ["good.json", "-o", "/dev/null"], 2),
        C("report", ["good.json", "-o", "out", "--baseline", "missing.json"], 2),
        C("report", ["good.json", "-o", "out", "--baseline", "truncated.json"], 2),
        C("report", ["good.json", "-o", "out", "--threshold", "-1"], 2),
        C("report", ["good.json", "-o", "out", "--alpha", "0"], 2),
        C("report", ["good.json", "-o", "out", "--frobnicate"], 2),
    ] + [C("report", [f, "-o", "out"], 2) for f in ("missing.json", "sub", "empty.json", "text.json", "schema2.json",
                                                     "badutf8.json", "nested.json", "bigint.json", "nan.json",
                                                     "truncated.json", "/dev/null")]
    for c in report:
        c.needs = "report"
    cases += report
    for f in ["nullcount.json"]:
        cases.append(C("compare", ["good.json", f], 2))
        cases.append(C("export", [f, "--format", "openmetrics"], 2))
        cases.append(C("plot", [f, "-o", "plots"], 2, needs="matplotlib"))
    # more options
    cases += [
        C("compare", ["good.json", "good.json", "--drift", "-1"], 2),
        C("compare", ["good.json", "good.json", "--drift", "10"], 2),
        C("compare", ["good.json", "good.json", "--drift", "3", "--threshold", "3"], 2),
        C("compare", ["good.json", "good.json", "--drift-ns", "abc"], 2),
        C("compare", ["good.json", "good.json", "--allow", "nothing"], 2),
        C("compare", ["good.json", "--published", "good.json"], 2),
        C("compare", ["good.json", "--across-devices"], 2),
        C("compare", ["good.json", "good.json", "--published", "--across-devices"], 2),
        C("compare", ["good.json", "predicted.json"], 2),
        C("export", ["--format", "csv"], 2),
        C("export", ["good.json", "--format"], 2),
        C("export", ["predicted.json", "--format", "csv", "-o", "out.csv"], 2),
        C("report", ["good.json", "-o", "out", "--threshold", "nan"], 2, needs="report"),
    ]
    # the output: the driver's rules (never over an input, never over a result file without --force,
    # only a regular file replaced, links as the driver takes them), refused before anything is made
    out = [["-o", "good.json"], ["-o", "good.json", "--force"], ["-o", "link-to-good.json", "--force"],
           ["-o", "hard-good.json", "--force"], ["-o", "predicted.json"], ["-o", "link-to-predicted.json"],
           ["-o", "dangling"], ["-o", "dangling", "--force"], ["-o", "sub"], ["-o", "link-to-sub"], ["-o", "sock"],
           ["-o", "missing/dir/x.json"], ["-o", "existing.json/x.json"], ["-o", ""], ["-o", "sub/"],
           ["-o", LONG_NAME], ["-o", "readonly/x.json"]]
    for o in out:
        cases.append(C("export", ["good.json", "--format", "bmf"] + o, 2,
                       needs="readonly" if o[1].startswith("readonly") else None))
    cases += [
        C("plot", ["good.json", "-o", "figs"], 2, needs="matplotlib"),
        C("plot", ["figs/carveout.png", "-o", "figs", "--force"], 2, needs="matplotlib"),
        C("plot", ["good.json", "-o", "sock"], 2, needs="matplotlib"),
        C("plot", ["good.json", "-o", "readonly/plots"], 2, needs="readonly"),
        C("report", ["good.json", "-o", "rep"], 2, needs="report"),
        C("report", ["rep/index.html", "-o", "rep", "--force"], 2, needs="report"),
        C("report", ["good.json", "-o", "readonly/report"], 2, needs="readonly"),
    ]
    # the fleet report, the trend page and the A/B runner: their inputs, their options, their outputs
    for f in bad_files:
        cases += [C("trend", [f, "-o", "trend"], 2), C("compare", ["--history", f, "good.json"], 2)]
        # the fleet takes directories and, like plot, passes over JSON that is no result file, with a line
        if f not in ("sub", "array.json", "noschema.json"):
            cases.append(C("fleet", [f, "good.json"], 2))
    cases += [
        C("fleet", [], 2),
        C("fleet", ["good.json", "--threshold", "-1"], 2),
        C("fleet", ["good.json", "good.json", "-o", "existing.json"], 2, needs="matplotlib"),
        C("trend", [], 2),
        C("trend", ["good.json"], 2),
        C("trend", ["good.json", "-o", "existing.json"], 2),
        C("trend", ["good.json", "-o", "trend", "--window", "0"], 2),
        C("trend", ["predicted.json", "-o", "trend"], 2),
        C("compare", ["--history", "sub", "good.json"], 2),
        C("compare", ["--history", "predicted.json", "good.json"], 2),
        C("compare", ["--history", "good.json", "good.json", "--window", "-1"], 2),
        C("compare", ["--history", "good.json", "--across-devices", "good.json"], 2),
    ]
    # the scanner of file and folder arguments (smembench.inputs), the same in every tool: what cannot
    # be a result file is refused unopened (a FIFO would wait for a writer for ever), one line and 2
    unreadable = ["dangling", "self.json", "loop-a.json", "fifo", "link-to-fifo", "sock", "link-to-zero"]
    for f in unreadable:
        cases += [C("compare", ["--history", f, "good.json"], 2), C("compare", [f, "good.json"], 2),
                  C("trend", [f, "-o", "trend"], 2), C("fleet", [f], 2), C("export", [f, "--format", "csv"], 2),
                  C("plot", [f, "-o", "plots"], 2, needs="matplotlib"),
                  C("report", [f, "-o", "out"], 2, needs="report")]
    cases += [
        C("compare", ["--history", "noread", "good.json"], 2, needs="unreadable"),
        C("trend", ["noread", "-o", "trend"], 2, needs="unreadable"),
        C("fleet", ["noread"], 2, needs="unreadable"),
        C("compare", ["--history", "array.json", "--history", "noschema.json", "good.json"], 2),
        C("compare", ["good.json", "good.json", "--window", "3"], 2),
        C("trend", ["good.json", "-o", "trend", "--drift", "5"], 2),
        C("trend", ["good.json", "-o", "trend", "--drift", "2", "--threshold", "2"], 2),
        C("ab", [], 2),
        C("ab", ["good.json", "good.json", "-o", "ab", "--", "--sweep", "bank"], 2),
        C("ab", ["--files", "sub"], 2),
        C("ab", ["--files", "missing"], 2),
        C("ab", ["--files", "sub", "good.json"], 2),
        C("ab", ["--files", "sub", "--threshold", "0"], 2),
        C("ab", ["--files", "sub", "--alpha", "1"], 2),
        # only rounds ab.py ran, on a GPU, whole, two at least (fixtures(): the ab-* directories)
        C("ab", ["--files", "ab-predict"], 2, text="base_r1.json: no timed point (a predict-mode file)"),
        C("ab", ["--files", "ab-foreign"], 2, text="no ab-manifest.json: these rounds were not run by ab.py"),
        C("ab", ["--files", "ab-changed"], 2, text="head_r2.json: not the file this A/B run wrote"),
        C("ab", ["--files", "ab-extra"], 2, text="base_r3.json: not a round of the A/B run fixture"),
        C("ab", ["--files", "ab-one"], 2, text="1 round (the A/B run fixture); the paired rule needs 2 at least"),
        C("ab", ["--files", "ab-nohead"], 2, text="head_r2.json: missing"),
        C("ab", ["--files", "ab-one", "--uncertain", "pass"], 2, text="needs 2 at least"),
        C("ab", ["--frobnicate"], 2, text="see ab.py --help"),
        C("trend", ["good.json", "-o", "trend", "--frobnicate"], 2, text="see trend.py --help"),
    ]
    cases += output_cases()
    return cases


def output_cases():
    """Issue 38: stdout that cannot take the output (closed, full, read-only, under ulimit -f) is
    one line and exit 1 in every tool, checked before any file is written; a file under ulimit -f is
    refused whole (2, nothing left); output directories that cannot be made are one line and 2; a
    staging file without transfer_bytes in the report; files the schema refuses, with and without
    jsonschema; names that are not UTF-8."""
    def C(tool, args, status, stdout=None, env=None, needs=None):
        return Case(tool, args, status, stdout=stdout, env=env, needs=needs)
    mpl = "matplotlib"
    writes = [("compare", ["good.json", "good.json"], None), ("compare", ["--history", "run1.json", "run2.json"], None),
              ("export", ["good.json", "--format", "csv"], None), ("fleet", ["good.json", "good2.json"], None),
              ("ab", ["--files", "sub"], None),
              ("plot", ["good.json", "-o", "plots"], mpl), ("report", ["good.json", "-o", "out"], "report"),
              ("trend", ["run1.json", "run2.json", "-o", "trend"], None),
              ("fleet", ["good.json", "good2.json", "-o", "fleet"], mpl)]
    cases = []
    for how in ("closed", "/dev/full", "read-only"):
        cases += [C(t, a, 1, stdout=how, needs=n) for t, a, n in writes]
    # the output that is all on stdout, cut by the file size limit: said, exit 1
    cases += [C(t, a, 1, stdout="ulimit") for t, a, _ in writes[:4]]
    # files under the limit: refused whole, no temporary file left, nothing in the directory
    cases += [C("export", ["good.json", "--format", "csv", "-o", "out.csv"], 2, stdout="ulimit"),
              C("plot", ["good.json", "-o", "sub"], 2, stdout="ulimit", needs=mpl),
              C("report", ["good.json", "-o", "sub"], 2, stdout="ulimit", needs="report"),
              C("trend", ["run1.json", "run2.json", "-o", "sub"], 2, stdout="ulimit"),
              C("fleet", ["good.json", "good2.json", "-o", "sub"], 2, stdout="ulimit", needs=mpl)]
    # output directories that cannot be made
    for o in ("dangling", "existing.json/d", "existing.json"):
        cases += [C("plot", ["good.json", "-o", o], 2, needs=mpl), C("report", ["good.json", "-o", o], 2, needs="report"),
                  C("fleet", ["good.json", "good2.json", "-o", o], 2, needs=mpl),
                  C("trend", ["run1.json", "run2.json", "-o", o], 2)]
    # a staging file whose points lack transfer_bytes: two points the same ("appears twice"), not 70
    cases.append(C("report", ["nosize.json", "-o", "out"], 2, needs="report"))
    # fields the schema requires, null: refused in one line with jsonschema and without it
    for env in (None, NO_JSONSCHEMA):
        for f in ("nostart.json", "noname.json"):
            cases += [C("compare", [f, "good.json"], 2, env=env), C("export", [f, "--format", "csv"], 2, env=env),
                      C("plot", [f, "-o", "plots"], 2, env=env, needs=mpl),
                      C("report", [f, "-o", "out"], 2, env=env, needs="report"),
                      C("fleet", [f, "good.json"], 2, env=env), C("trend", [f, "good.json", "-o", "trend"], 2, env=env),
                      C("compare", ["--history", f, "good.json"], 2, env=env)]
    # a name with a byte that is not UTF-8: one line, whatever the tool
    cases += [C("compare", [NOT_UTF8, "good.json"], 2), C("export", [NOT_UTF8, "--format", "csv"], 2),
              C("plot", [NOT_UTF8, "-o", "plots"], 2, needs=mpl), C("report", [NOT_UTF8, "-o", "out"], 2, needs="report"),
              C("fleet", [NOT_UTF8, "good.json"], 2), C("trend", [NOT_UTF8, "-o", "trend"], 2),
              C("compare", ["missing\udcff.json", "good.json"], 2)]
    return cases


CASES += script_cases()


def fixtures(d, exe):
    """The directory every case runs in."""
    os.mkdir(os.path.join(d, "sub"))
    with open(os.path.join(d, "existing.json"), "w") as f:
        f.write("precious results\n")
    os.mkfifo(os.path.join(d, "fifo"))
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(os.path.join(d, "sock"))
    s.close()
    os.symlink("existing.json", os.path.join(d, "link-to-existing.json"))
    os.symlink("fifo", os.path.join(d, "link-to-fifo"))
    os.symlink("sub", os.path.join(d, "link-to-sub"))
    os.symlink("/dev/zero", os.path.join(d, "link-to-zero"))
    os.symlink("nowhere", os.path.join(d, "dangling"))
    os.symlink("self.json", os.path.join(d, "self.json"))
    os.symlink("loop-b.json", os.path.join(d, "loop-a.json"))
    os.symlink("loop-a.json", os.path.join(d, "loop-b.json"))
    os.mkdir(os.path.join(d, "noread"))
    os.chmod(os.path.join(d, "noread"), 0)
    shutil.copy(GOOD, os.path.join(d, "good.json"))
    shutil.copy(GOOD, os.path.join(d, "good2.json"))      # a second unit for the fleet
    for i in (1, 2):      # two runs of one GPU and settings: a history
        shutil.copy(os.path.join(RESULTS, f"nvidia-h200_20261129_bank-bandwidth_run{i}.json"),
                    os.path.join(d, f"run{i}.json"))
    os.symlink("good.json", os.path.join(d, "link-to-good.json"))
    os.link(os.path.join(d, "good.json"), os.path.join(d, "hard-good.json"))
    os.symlink("predicted.json", os.path.join(d, "link-to-predicted.json"))
    # result files where a figure and the report's page would go
    for sub, name in (("figs", "carveout.png"), ("rep", "index.html")):
        os.mkdir(os.path.join(d, sub))
        shutil.copy(GOOD, os.path.join(d, sub, name))
    subprocess.run([exe, "--predict", "h100", "--sweep", "carveout", "-q", "-o", os.path.join(d, "predicted.json")],
                   check=True, stderr=subprocess.DEVNULL)
    good = open(GOOD).read()
    doc = json.loads(good)

    def edited(edit):
        d2 = json.loads(good)
        edit(d2)
        return json.dumps(d2, indent=1)
    placeholder = 918273645546372819
    files = {
        "empty.json": "",
        "text.json": "hello, not JSON\n",
        "array.json": "[]\n",
        "schema2.json": edited(lambda d2: d2.update(schema="smembench/2")),
        "noschema.json": "{}\n",
        "nested.json": "[" * 100000 + "]" * 100000,
        "bigint.json": edited(lambda d2: d2["run"]["settings"].update(seed=placeholder)).replace(
            str(placeholder), "7" * 4400),
        "nan.json": edited(lambda d2: d2["results"][0].update(clock_mhz=float("nan"))),
        "truncated.json": good[: len(good) // 2],
        "results-not-list.json": '{"schema": "smembench/1", "results": {}}\n',
    }
    doc["results"][0]["time_ns"]["stats"] = {k: None for k in doc["results"][0]["time_ns"]["stats"]}
    doc["results"][0]["time_ns"]["raw"] = []
    files["nullcount.json"] = json.dumps(doc, indent=1)
    staging = json.load(open(os.path.join(RESULTS, "nvidia-h200_20261130_staging.json")))
    for r in staging["results"]:
        r["params"].pop("transfer_bytes", None)
    files["nosize.json"] = json.dumps(staging)
    files["nostart.json"] = edited(lambda d2: d2["run"].update(started=None))
    files["noname.json"] = edited(lambda d2: d2["device"].update(name=None))
    files[NOT_UTF8] = good[: len(good) // 3]
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    ab_fixtures(d)
    with open(os.path.join(d, "badutf8.json"), "wb") as f:
        f.write(b'{"schema": "smembench/1\xff\xfe"}')
    with open(os.path.join(d, "binary.json"), "wb") as f:
        f.write(bytes(range(256)) * 4)
    assert "7" * 4400 in files["bigint.json"] and "NaN" in files["nan.json"], "the fixture edits missed"


def ab_fixtures(d):
    """Directories of A/B rounds for ab.py --files, each wrong in one way, with the manifest ab.py
    writes (python/smembench/ab.py) where the case needs one."""
    sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
    from smembench import ab

    def rounds(name, source, n=2, manifest=True):
        sub = os.path.join(d, name)
        os.mkdir(sub)
        files = {}
        for r in range(1, n + 1):
            for role in ("base", "head"):
                shutil.copy(os.path.join(d, source), os.path.join(sub, f"{role}_r{r}.json"))
                files[f"{role}_r{r}.json"] = ab.sha256_of(os.path.join(sub, f"{role}_r{r}.json"))
        if manifest:
            ab.write_manifest(sub, {"schema": ab.MANIFEST_SCHEMA, "run_id": "fixture", "files": files})
        return sub
    rounds("ab-predict", "predicted.json")
    rounds("ab-foreign", "good.json", manifest=False)
    sub = rounds("ab-changed", "good.json")
    with open(os.path.join(sub, "head_r2.json"), "a") as f:
        f.write("\n")
    shutil.copy(os.path.join(d, "good.json"), os.path.join(rounds("ab-extra", "good.json"), "base_r3.json"))
    rounds("ab-one", "good.json", n=1)
    os.unlink(os.path.join(rounds("ab-nohead", "good.json"), "head_r2.json"))


def make_readonly(d):
    """A directory this user cannot create files in, or None where that cannot be arranged."""
    ro = os.path.join(d, "readonly")
    os.mkdir(ro)
    os.chmod(ro, 0o555)
    if os.geteuid() == 0:
        # root writes through permissions: an immutable directory refuses even root
        if subprocess.run(["chattr", "+i", ro], capture_output=True).returncode:
            return None
    try:
        open(os.path.join(ro, "probe"), "w").close()
        os.unlink(os.path.join(ro, "probe"))
        return None
    except OSError:
        return ro


def undo_readonly(d):
    os.chmod(os.path.join(d, "noread"), 0o755)
    ro = os.path.join(d, "readonly")
    if os.path.isdir(ro):
        subprocess.run(["chattr", "-i", ro], capture_output=True)
        os.chmod(ro, 0o755)


def snapshot(d):
    """Every entry under d: type, and the bytes of regular files (nothing else is ever opened)."""
    out = {}
    for root, dirs, files in os.walk(d):
        for f in dirs + files:
            p = os.path.join(root, f)
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as fh:
                    out[os.path.relpath(p, d)] = ("file", fh.read())
            else:
                out[os.path.relpath(p, d)] = (stat.S_IFMT(st.st_mode), st.st_ino,
                                              os.readlink(p) if stat.S_ISLNK(st.st_mode) else None)
    return out


def restore(d, before):
    """Puts back what a failed case changed, so that one failure does not spread to the next cases."""
    now = snapshot(d)
    for rel in sorted(set(now) - set(before), reverse=True):
        p = os.path.join(d, rel)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p, ignore_errors=True)
        else:
            os.unlink(p)
    for rel, kind in before.items():
        if kind[0] == "file" and now.get(rel) != kind:
            with open(os.path.join(d, rel), "wb") as f:
                f.write(kind[1])


def devices():
    return {p: (stat.S_IFMT(os.lstat(p).st_mode), os.lstat(p).st_rdev) for p in ("/dev/null", "/dev/zero", "/dev/full")}


def command(case, exe):
    if case.tool == "smembench":
        return [exe] + case.args
    if case.tool.startswith("smembench-"):
        return [os.path.join(BIN, case.tool)] + case.args
    return [sys.executable, os.path.join(SCRIPTS, case.tool + ".py")] + case.args


BIN = None   # the installed commands (install())


def install(meson, build, dest):
    """meson install --destdir DEST: the directory of the installed commands, and whether their
    Python has matplotlib."""
    import glob
    p = subprocess.run([meson, "install", "-C", build, "--no-rebuild", "--destdir", dest], capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    found = glob.glob(os.path.join(dest, "**", "bin", "smembench-compare"), recursive=True)
    assert len(found) == 1, found
    python = open(found[0]).readline()[2:].strip()
    return os.path.dirname(found[0]), subprocess.run([python, "-c", "import matplotlib"]).returncode == 0


def launcher_cases():
    """Every case of the scripts again, through the installed command of its script."""
    out = []
    for c in CASES:
        if c.tool in ("compare", "export", "plot", "report", "fleet", "trend", "ab"):
            needs = "launcher-matplotlib" if c.needs in ("matplotlib", "report") else c.needs
            out.append(Case("smembench-" + c.tool, c.args, c.status, env=c.env, stdout=c.stdout, needs=needs))
    return out


def run(case, exe, d):
    env = dict(os.environ, **{k: v.replace("{NOJS}", NOJS or "") for k, v in case.env.items()})
    env.pop("PYTHONWARNINGS", None)
    kw = {"stdout": subprocess.PIPE}
    if case.stdout == "closed":
        kw["preexec_fn"] = lambda: os.close(1)
    elif case.stdout == "/dev/full":
        kw["stdout"] = open("/dev/full", "w")
    elif case.stdout == "read-only":
        kw["stdout"] = open("/dev/null", "r")
    elif case.stdout == "ulimit":      # a file outside the case's directory, and ulimit -f
        kw["stdout"] = open(os.path.join(NOJS, "..", "stdout.txt"), "w")
        kw["preexec_fn"] = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (FSIZE, FSIZE))
    p = subprocess.run(command(case, exe), cwd=d, stderr=subprocess.PIPE, text=True, timeout=120, env=env, **kw)
    if kw["stdout"] is not subprocess.PIPE:
        kw["stdout"].close()
    return p


def check(case, p, before, after, devs):
    lines = p.stderr.splitlines()
    problems = []
    if p.returncode != case.status:
        problems.append(f"exit {p.returncode}, expected {case.status}")
    if "Traceback" in p.stderr:
        problems.append("a Python traceback")
    if case.tool == "smembench":
        if not lines or not lines[0].startswith("smembench: ") or case.text not in lines[0]:
            problems.append(f"first line {lines[:1]!r} lacks {case.text!r}")
        if len(lines) > 2 or (len(lines) == 2 and not lines[1].startswith("Try 'smembench --help'")):
            problems.append(f"more than one message: {lines!r}")
    elif len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr: {lines[:4]!r}")
    elif case.text and case.text not in lines[0]:
        problems.append(f"the line {lines[0]!r} lacks {case.text!r}")
    if p.stdout:
        problems.append(f"stdout not empty: {p.stdout[:80]!r}")
    if after != before:
        changed = sorted(set(after) ^ set(before) | {k for k in before if k in after and after[k] != before[k]})
        problems.append(f"the directory changed: {changed[:5]}")
    if devices() != devs:
        problems.append("a device file was replaced")
    return problems


def shown(args):
    text = " ".join(a if a and " " not in a else repr(a) for a in args) or "(no arguments)"
    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return text if len(text) <= 90 else text[:60] + " ... " + text[-25:]


def main():
    global BIN
    exe = os.path.abspath(sys.argv[1])
    table = "--table" in sys.argv[2:]
    rest = [a for a in sys.argv[2:] if a != "--table"]
    try:
        import matplotlib  # noqa: F401
        have = {"matplotlib"}
    except ImportError:
        have = set()
    global NOJS
    dest = tempfile.mkdtemp(prefix="smembench-cli-install-")
    shim = tempfile.mkdtemp(prefix="smembench-cli-nojs-")
    NOJS = os.path.join(shim, "path")
    os.makedirs(os.path.join(NOJS, "jsonschema"))
    with open(os.path.join(NOJS, "jsonschema", "__init__.py"), "w") as f:
        f.write('raise ImportError("jsonschema hidden by test_cli_errors.py")\n')
    cases = list(CASES)
    if len(rest) == 2:
        BIN, launcher_mpl = install(rest[0], rest[1], dest)
        if launcher_mpl:
            have.add("launcher-matplotlib")
        cases += launcher_cases()
    passed = failed = skipped = 0
    counts = {}
    rows = []
    if not table:
        print(f"1..{len(cases)}")
    with tempfile.TemporaryDirectory() as d:
        fixtures(d, exe)
        if make_readonly(d):
            have.add("readonly")
        if os.geteuid() != 0:       # root reads a folder of mode 000
            have.add("unreadable")
        if os.path.exists(os.path.join(SCRIPTS, "report.py")) and "matplotlib" in have:
            have.add("report")
        before, devs = snapshot(d), devices()
        for i, case in enumerate(cases, 1):
            kind = "driver" if case.tool == "smembench" else "launchers" if case.tool.startswith("smembench-") \
                else "scripts"
            name = f"{case.tool} {shown(case.args)}"
            if case.stdout:
                name += f" (stdout {case.stdout})"
            if case.needs and case.needs not in have:
                skipped += 1
                why = {"readonly": "no directory can be made read-only here",
                       "unreadable": "root reads a folder without read permission",
                       "report": "no scripts/report.py in this tree, or no matplotlib",
                       "launcher-matplotlib": "the installed commands' Python has no matplotlib"}.get(
                    case.needs, f"{case.needs} is not installed for {sys.executable}")
                print(f"ok {i} - {name} # SKIP {why}") if not table else None
                rows.append((case, name, None, f"(not run: {why})"))
                continue
            p = run(case, exe, d)
            problems = check(case, p, before, snapshot(d), devs)
            restore(d, before)
            first = (p.stderr.splitlines() or [""])[0]
            rows.append((case, name, p.returncode, first))
            counts.setdefault(kind, [0, 0])[0 if not problems else 1] += 1
            if problems:
                failed += 1
                print(f"not ok {i} - {name}: {'; '.join(problems)}") if not table else None
            else:
                passed += 1
                print(f"ok {i} - {name} -> exit {case.status}") if not table else None
        undo_readonly(d)
    shutil.rmtree(dest, ignore_errors=True)
    shutil.rmtree(shim, ignore_errors=True)
    by_kind = ", ".join(f"{k} {v[0]}/{sum(v)}" for k, v in sorted(counts.items()))
    if table:
        print(f"| # | tool | arguments | exit | first line on stderr |\n|---:|---|---|---:|---|")
        for i, (case, name, rc, first) in enumerate(rows, 1):
            cell = first.replace("|", "\\|")
            args = name.split(" ", 1)[1].replace("|", "\\|")
            print(f"| {i} | {case.tool} | `{args}` | {rc if rc is not None else '-'} | {cell} |")
        print(f"\n{len(rows)} cases: {passed} as documented, {failed} not, {skipped} not run here "
              f"(as documented of those run: {by_kind})")
    else:
        print(f"# {passed} passed, {failed} failed, {skipped} skipped ({by_kind})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
