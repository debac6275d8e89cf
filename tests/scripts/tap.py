"""The TAP harness of the script tests: register tests with @test, raise Skip for one that cannot
run here (reported as '# SKIP reason', never as passed), and run(cleanup) prints the plan and one
line a test and returns the exit status."""
import atexit
import os
import re
import shutil
import sys
import tempfile

TESTS = []


class Skip(Exception):
    """A test that cannot run here."""


def test(fn):
    TESTS.append(fn)
    return fn


def run(cleanup=None):
    print(f"1..{len(TESTS)}")
    failed = 0
    for i, t in enumerate(TESTS, 1):
        try:
            t()
            print(f"ok {i} - {t.__name__}")
        except Skip as e:
            print(f"ok {i} - {t.__name__} # SKIP {e}")
        except Exception as e:  # noqa: BLE001 - every failure is reported, not raised
            failed += 1
            print(f"not ok {i} - {t.__name__}: {type(e).__name__}: {str(e)[:3000]}")
        sys.stdout.flush()
    if cleanup is not None:
        cleanup()
    return 1 if failed else 0


# plot's line per figure on stderr ("PROG: NAME.png: the benchmarks drawn there") and its line naming
# what it drew nowhere: what a test sets aside before asserting what else a command printed
FIGURE_LINE = re.compile(r"^[^:\n]+: (?:[^\s:]+\.(?:png|svg|pdf)|drawn in no figure): .*\n?", re.M)


def without_figure_lines(err):
    """stderr less plot's lines naming what each figure drew."""
    return FIGURE_LINE.sub("", err)


def report(results):
    """Prints checks already made as TAP, each (name, its problems: empty when it passed) with its
    problems as comments under it; the exit code, 1 when any failed."""
    print(f"1..{len(results)}")
    failed = 0
    for i, (name, errors) in enumerate(results, 1):
        if errors:
            failed += 1
            print(f"not ok {i} - {name}")
            for e in errors:
                print(f"# {e}")
        else:
            print(f"ok {i} - {name}")
    return 1 if failed else 0


def fake_tree(files, prefix="smemtree"):
    """A made-up source tree, {relative path: text}, removed at exit: where a check of the real
    tree is shown to catch a planted violation."""
    root = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, root, True)
    for rel, text in files.items():
        os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
        with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
            f.write(text)
    return root


SOURCE_EXTENSIONS = (".c", ".h", ".cu", ".cuh", ".cpp")


def source_files(root, folders, extensions=SOURCE_EXTENSIONS):
    """{relative path: text} of the C and CUDA files directly in each folder of root (a folder that
    does not exist has none), in folder order, each folder's files sorted."""
    out = {}
    for folder in folders:
        base = os.path.join(root, folder)
        if not os.path.isdir(base):
            continue
        for name in sorted(os.listdir(base)):
            if name.endswith(extensions):
                rel = f"{folder}/{name}"
                with open(os.path.join(root, rel), encoding="utf-8") as f:
                    out[rel] = f.read()
    return out


# a result point made slower, for the gate tests
def scale(r, factor):
    """A point's samples and statistics made `factor` times slower."""
    t = r["time_ns"]
    t["raw"] = [round(v * factor) for v in t["raw"]]
    for k in ("min", "q1", "median", "q3", "max", "mean", "stdev"):
        if t["stats"].get(k) is not None:
            t["stats"][k] = round(t["stats"][k] * factor)
