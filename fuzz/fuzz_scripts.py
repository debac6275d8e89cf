#!/usr/bin/env python3
"""libFuzzer target (through atheris) for the command lines of compare.py, export.py, plot.py and
report.py (where the tree has it): an
argv is built from the input and given to the script's main(). main() must return one of the script's
documented exit statuses (or raise SystemExit with one, as argparse does for --help); any other
exception is a bug.

Input: the tool on the first line (compare, export, plot, report; anything else picks one by its bytes),
then one argument per line, then a NUL byte and the bytes of a file the arguments can name. In an
argument, @good, @two, @tile (committed result files), @fuzz (the bytes after the NUL), @missing,
@dir, @null and @out (a fresh directory name) stand for paths; other text is used as it is, less any
'/', so that nothing outside the scratch directory is read or written.

  python3 fuzz/fuzz_scripts.py -max_total_time=60 -close_fd_mask=3 CORPUS_DIR
"""
import atexit
import contextlib
import io
import os
import shutil
import sys
import tempfile

import atheris

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
try:
    import matplotlib  # noqa: F401  (imported before instrumenting: only our code is instrumented)
    matplotlib.use("Agg")
    HAVE_PLOT = True
except ImportError:
    HAVE_PLOT = False

HAVE_REPORT = HAVE_PLOT and os.path.exists(os.path.join(ROOT, "python", "smembench", "report.py"))
with atheris.instrument_imports(include=["smembench"]):
    from smembench import compare, export
    from smembench import reader  # noqa: F401
    if HAVE_PLOT:
        from smembench import plot
    if HAVE_REPORT:
        from smembench import report

# the exit statuses each script documents
EXITS = {"compare": {0, 1, 2}, "export": {0, 2}, "plot": {0, 1, 2, 3}, "report": {0, 2, 3}}
TOOLS = {"compare": compare, "export": export}
if HAVE_PLOT:
    TOOLS["plot"] = plot
if HAVE_REPORT:
    TOOLS["report"] = report

WORK = tempfile.mkdtemp(prefix="smem-fuzz-scripts-")
atexit.register(shutil.rmtree, WORK, True)
RESULTS = os.path.join(ROOT, "results")
FIXTURES = {
    "@good": "good.json",
    "@two": "two.json",
    "@tile": "tile.json",
    "@fuzz": "fuzz.json",
    "@missing": "missing.json",
    "@dir": "dir",
    "@null": os.devnull,
    "@out": "out",
}
shutil.copy(os.path.join(RESULTS, "nvidia-h200_20261129_carveout.json"), os.path.join(WORK, "good.json"))
shutil.copy(os.path.join(RESULTS, "nvidia-h200-x2_20261129_bandwidth-latency-bank.json"), os.path.join(WORK, "two.json"))
shutil.copy(os.path.join(RESULTS, "nvidia-h200_20261129_tile.json"), os.path.join(WORK, "tile.json"))
os.mkdir(os.path.join(WORK, "dir"))
KEEP = set(os.listdir(WORK)) | {"fuzz.json"}


def parse(data):
    head, _, body = data.partition(b"\0")
    lines = head.decode("utf-8", "replace").split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()   # the newline that ends the last argument
    tool = lines[0].strip()
    if tool not in TOOLS:
        tool = sorted(TOOLS)[sum(lines[0].encode()) % len(TOOLS)]
    args = []
    for a in lines[1:33]:
        a = FIXTURES.get(a, a.replace("/", "").replace("\0", ""))
        args.append(a)
    return tool, args, body


def clean():
    for name in os.listdir(WORK):
        if name not in KEEP:
            p = os.path.join(WORK, name)
            shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.unlink(p)


def test_one_input(data):
    tool, args, body = parse(data)
    with open(os.path.join(WORK, "fuzz.json"), "wb") as f:
        f.write(body)
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(WORK)   # every relative name the input makes up lives in the scratch directory
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = TOOLS[tool].main(args)
    except SystemExit as e:
        rc = 0 if e.code is None else e.code
    finally:
        os.chdir(here)
        clean()
    if rc not in EXITS[tool]:
        raise RuntimeError(f"{tool}.py {args!r} exited {rc!r}, not one of {sorted(EXITS[tool])}: {err.getvalue()[-300:]}")
    if rc == 2 and not err.getvalue().strip():
        raise RuntimeError(f"{tool}.py {args!r} refused its input without a word on stderr")


if __name__ == "__main__":
    if not HAVE_PLOT:
        print("fuzz_scripts: matplotlib is missing in this Python: plot.py is not fuzzed", file=sys.stderr)
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
