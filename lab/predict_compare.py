#!/usr/bin/env python3
"""Byte-for-byte comparison of two smembench builds in predict mode: every built-in model
(`--predict list`) by every sweep `--list` names (predict mode runs those it marks "[also --predict]";
the others' refusals or skipped points are compared too), plus
`--list` itself and every model's `--predict list` line. Each run's result file and table are
compared as bytes after blanking only what names the run rather than the tool's behaviour: the
argv (its output path), the start time, and the tool's own version and commit. A refactor that
claims "behaviour unchanged" runs this against the build before it.

usage: predict_compare.py OLD_SMEMBENCH NEW_SMEMBENCH [OUT_DIR]
exit 0: every file and table identical; 1: a difference (each named on stdout); 2: bad usage"""
import os
import re
import subprocess
import sys
import tempfile

# Lines of the JSON document that name the run, not the behaviour (cJSON writes one key per line).
RUN_LINES = re.compile(r'^\s*"(argv|started|version|git)":.*$', re.M)


def run(binary, args):
    p = subprocess.run([binary] + args, capture_output=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def models(binary):
    _, out, _ = run(binary, ["--predict", "list"])
    return [line.split()[0] for line in out.decode().splitlines()[1:] if line.startswith("  ")]


def sweeps_of(binary):
    """Every sweep --list names: those predict mode runs, and the others, whose refusal (or all-skipped
    file) is compared too."""
    _, out, _ = run(binary, ["--list"])
    text = out.decode()
    sweeps = text[text.index("\nsweeps:\n") + len("\nsweeps:\n"):]
    return [line.split()[0] for line in sweeps.splitlines() if line.startswith("  ") and not line.startswith("    ")]


def normalized(path, binary):
    with open(path, "rb") as f:
        data = f.read().decode()
    return RUN_LINES.sub(lambda m: f'"{m.group(1)}": <run>', data).replace(binary, "<smembench>")


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    old, new = (os.path.abspath(p) for p in sys.argv[1:3])
    out_dir = sys.argv[3] if len(sys.argv) == 4 else tempfile.mkdtemp(prefix="predict_compare")
    os.makedirs(out_dir, exist_ok=True)
    differ, compared = [], 0

    for what, args in (("--list", ["--list"]), ("--predict list", ["--predict", "list"])):
        a, b = run(old, args), run(new, args)
        compared += 1
        if a != b:
            differ.append(what)
    ms, sweeps = models(old), sweeps_of(old)
    if (ms, sweeps) != (models(new), sweeps_of(new)):
        differ.append("the models or the predict sweeps")
    for m in ms:
        for s in sweeps:
            files = []
            for tag, binary in (("old", old), ("new", new)):
                path = os.path.join(out_dir, f"{tag}_{m}_{s}.json")
                if os.path.exists(path):
                    os.unlink(path)
                rc, out, err = run(binary, ["--predict", m, "--sweep", s, "-o", path])
                files.append((rc, out, err.replace(path.encode(), b"<out>"), normalized(path, binary)
                              if os.path.exists(path) else None))
            compared += 1
            (rc_a, out_a, err_a, doc_a), (rc_b, out_b, err_b, doc_b) = files
            for part, x, y in (("exit code", rc_a, rc_b), ("table", out_a, out_b), ("stderr", err_a, err_b),
                               ("result file", doc_a, doc_b)):
                if x != y:
                    differ.append(f"--predict {m} --sweep {s}: the {part} differs")
    for d in differ:
        print(f"DIFFERS {d}")
    print(f"{compared} runs compared ({len(ms)} models x {len(sweeps)} sweeps + --list + --predict list), "
          f"{len(differ)} differences; files in {out_dir}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
