#!/usr/bin/env python3
"""Tests of the result-file tools (TAP): the reader on fixtures and on every committed result,
the plots, several-device files and the Slurm script (the comparison and the exporters:
test_gate.py)."""
import copy
import re
import glob
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import xml.dom.minidom

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
PYDIR = os.path.join(ROOT, "python")
sys.path.insert(0, PYDIR)
sys.path.insert(0, HERE)
from smembench import reader  # noqa: E402
from tap import without_figure_lines  # noqa: E402

RESULTS = sorted(glob.glob(os.path.join(ROOT, "results", "*_*.json")))
TESTS = []


class Skip(Exception):
    """A test that cannot run here: reported as skipped with the reason, never as passed."""


def test(fn):
    TESTS.append(fn)
    return fn


def run(script, *args):
    p = subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *args], capture_output=True, text=True,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr


def a_result():
    """A committed one-device file of the first H200 session (2026-11-29): bandwidth, latency and bank,
    written before metrics declared their direction and before the published block."""
    return os.path.join(ROOT, "results", "nvidia-h200_20261129_bandwidth-latency-bank.json")


def rejected(text, needle):
    try:
        reader.parse(text, "fixture.json")
    except reader.ResultError as e:
        assert needle in str(e), f"message {e!s} lacks {needle!r}"
        assert str(e).startswith("fixture.json: "), str(e)
        return
    raise AssertionError(f"accepted: {text[:60]!r}")


@test
def committed_results_exist_and_validate_against_the_schema():
    import jsonschema
    schema = json.load(open(os.path.join(ROOT, "results", "schema.json")))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert RESULTS, "no result files in results/"
    nested = sorted(glob.glob(os.path.join(ROOT, "results", "*", "*_*.json")))
    for f in RESULTS + [f for f in nested if "/predict/" not in f and "/plots/" not in f]:
        doc = reader.load(f)
        jsonschema.validate(doc, schema)
        assert doc["results"], f


@test
def reader_rejects_truncated_file():
    text = open(a_result()).read()
    rejected(text[: len(text) // 2], "not JSON")


@test
def reader_rejects_non_json():
    rejected("hello, world", "not JSON")
    rejected("", "not JSON")


@test
def reader_rejects_nan():
    doc = json.load(open(a_result()))
    text = json.dumps(doc).replace('"clock_mhz": ', '"clock_mhz": NaN, "x": ', 1)
    rejected(text, "NaN is not a JSON number")


@test
def reader_rejects_other_schemas():
    doc = json.load(open(a_result()))
    for schema, needle in (("smembench/2", "not supported"), ("otherbench/1", "not a smembench schema"),
                           ("smembench/x", "no version")):
        d = copy.deepcopy(doc)
        d["schema"] = schema
        rejected(json.dumps(d), needle)
    d = copy.deepcopy(doc)
    del d["schema"]
    rejected(json.dumps(d), 'missing field "schema"')
    rejected("[1, 2]", "not an object")


@test
def reader_rejects_missing_fields():
    doc = json.load(open(a_result()))
    for key in ("results", "device", "run"):
        d = copy.deepcopy(doc)
        del d[key]
        rejected(json.dumps(d), f'"{key}"')
    d = copy.deepcopy(doc)
    del d["results"][0]["time_ns"]
    rejected(json.dumps(d), "time_ns")
    d = copy.deepcopy(doc)
    d["results"] = {}
    rejected(json.dumps(d), "not a list")


@test
def reader_accepts_metrics_with_and_without_a_direction():
    doc = json.load(open(a_result()))
    r = next(r for r in doc["results"] if r["metrics"])
    name = next(iter(r["metrics"]))
    assert "better" not in r["metrics"][name], "the committed files predate the field"
    # without the field, the reader's table by name and unit answers (bytes per clock: higher)
    assert reader.better(reader.parse(json.dumps(doc))["results"][doc["results"].index(r)],
                               name) == reader.BETTER_BY_UNIT[r["metrics"][name]["unit"]]
    r["metrics"][name]["better"] = "lower"
    parsed = reader.parse(json.dumps(doc))
    assert reader.better(parsed["results"][doc["results"].index(r)], name) == "lower"
    r["metrics"][name]["better"] = "sideways"
    rejected(json.dumps(doc), "sideways")


@test
def reader_checks_raw_samples_by_type():
    doc = json.load(open(a_result()))
    for bad, needle in ((1.5, "is 1.5"), (True, "is True"), (-3, "is -3"), (2 ** 64, "is an integer of 20 digits"),
                        ("7", "is '7'"), (None, "is None")):
        d = copy.deepcopy(doc)
        d["results"][2]["time_ns"]["raw"][4] = bad
        rejected(json.dumps(d), f"result 2: time_ns.raw[4] {needle}")
    d = copy.deepcopy(doc)
    d["results"][0]["time_ns"]["stats"]["median"] = "fast"       # the schema still sees everything else
    rejected(json.dumps(d), "results/0/time_ns/stats/median")
    d = copy.deepcopy(doc)
    d["results"][1]["time_ns"]["stats"]["count"] = 10 ** 30
    rejected(json.dumps(d), "results/1/time_ns/stats/count: an integer of 31 digits")
    d = copy.deepcopy(doc)
    d["results"][0]["time_ns"]["raw"] = []                      # an ok point without samples is valid
    assert reader.parse(json.dumps(d))["results"][0]["time_ns"]["raw"] == []


@test
def reader_checks_the_published_block():
    doc = json.load(open(a_result()))
    block = json.load(open(os.path.join(HERE, "fixtures", "published_cc90.json")))
    d = copy.deepcopy(doc)
    d["device"]["published"] = block
    dev = reader.parse(json.dumps(d))["device"]
    assert reader.published(dev)["banks"]["value"] == 32
    assert reader.published(doc["device"]) == {}
    for bad, needle in (([1, 2], '"published" is not an object'), ({"banks": 32}, 'published "banks" has no "value"'),
                        ({"banks": {"value": {"n": 32}}}, "not a number, a text or a list of them"),
                        ({"banks": {"value": 32, "unit": 5}}, "unit is not a string")):
        d = copy.deepcopy(doc)
        d["device"]["published"] = bad
        rejected(json.dumps(d), needle)


@test
def reader_noise_and_direction_helpers():
    doc = reader.load(a_result())
    r = doc["results"][0]
    raw = sorted(r["time_ns"]["raw"])
    n = len(raw)
    med = (raw[(n - 1) // 2] + raw[n // 2]) / 2
    dev = sorted(abs(v - med) for v in raw)
    mad = (dev[(n - 1) // 2] + dev[n // 2]) / 2
    assert abs(reader.robust_spread(r) - 1.4826 * mad / med) < 1e-12
    r2 = copy.deepcopy(r)
    r2["time_ns"]["stats"]["robust_spread"] = 0.0123              # the file's own value wins
    assert reader.robust_spread(r2) == 0.0123
    want = {"latency_cycles": "lower", "latency_ns": "lower", "bytes_per_clk_sm": "higher", "gbytes_per_s": "higher",
            "pct_of_peak": "higher", "slowdown": "lower", "predicted_slowdown": "lower", "wavefronts": "lower"}
    for p in doc["results"]:
        for name in p["metrics"]:
            assert reader.better(p, name) == want[name], name
    r3 = copy.deepcopy(r)
    r3["metrics"]["bytes_per_clk_sm"]["better"] = "lower"
    assert reader.better(r3, "bytes_per_clk_sm") == "lower"


@test
def reader_accepts_a_minor_version():
    doc = json.load(open(a_result()))
    doc["schema"] = "smembench/1.1"
    assert reader.parse(json.dumps(doc))["results"]


@test
def plots_are_valid_images_and_deterministic():
    with tempfile.TemporaryDirectory() as d1, tempfile.TemporaryDirectory() as d2:
        rc, out, err = run("plot.py", *RESULTS, "-o", d1)
        assert rc == 0, err
        rc, _, err = run("plot.py", *RESULTS, "-o", d2)
        assert rc == 0, err
        made = sorted(os.listdir(d1))
        for name in ("carveout", "occupancy", "bank", "bandwidth", "tile", "memory"):
            assert f"{name}.png" in made and f"{name}.svg" in made, made
        for f in made:
            b1 = open(os.path.join(d1, f), "rb").read()
            assert b1 == open(os.path.join(d2, f), "rb").read(), f"{f} differs between two runs"
            if f.endswith(".png"):
                assert b1[:8] == b"\x89PNG\r\n\x1a\n" and len(b1) > 10000, f
            else:
                dom = xml.dom.minidom.parseString(b1)
                assert dom.documentElement.tagName == "svg", f
                assert "NVIDIA" in b1.decode(), f"{f} has no device in its title"


@test
def plot_refuses_bad_input():
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "bad.json")
        open(bad, "w").write("{")
        rc, _, err = run("plot.py", bad, "-o", d)
        assert rc == 2 and "not JSON" in err, (rc, err)


# ---- the tools' failures: one line and a documented status each (issue 26) ----------------------

TOOLS = ("compare.py", "export.py", "plot.py", "report.py")
SIGNUM = {"SIGINT": 2, "SIGHUP": 1, "SIGTERM": 15}


def start(script, *args, env=None, **kw):
    e = dict(os.environ, **(env or {}))
    return subprocess.Popen([sys.executable, os.path.join(SCRIPTS, script), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=e, **kw)


def wait_for_line(p, text, timeout=60):
    """Reads p's stderr until a line holds text; the lines read."""
    import select
    lines, end = [], time.time() + timeout
    while time.time() < end:
        ready, _, _ = select.select([p.stderr], [], [], 0.2)
        if ready:
            line = p.stderr.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
            if text in line:
                return lines
    raise AssertionError(f"{text!r} never came: {lines}")


def hidden(d):
    return [f for _, _, fs in os.walk(d) for f in fs if f.startswith(".")]


@test
def export_never_writes_over_its_input_or_a_result_file():
    with tempfile.TemporaryDirectory() as d:
        good = os.path.join(d, "r.json")
        shutil.copy(os.path.join(ROOT, "results", "nvidia-h200_20261129_carveout.json"), good)
        other = os.path.join(d, "other.json")
        shutil.copy(a_result(), other)
        os.symlink("r.json", os.path.join(d, "link.json"))
        os.link(good, os.path.join(d, "hard.json"))
        before = {f: open(os.path.join(d, f), "rb").read() for f in ("r.json", "other.json")}
        for target, force, needle in (("r.json", [], f'it is the input "{good}"'),
                                      ("r.json", ["--force"], f'it is the input "{good}"'),
                                      ("link.json", ["--force"], f'it is a link to the input "{good}"'),
                                      ("hard.json", ["--force"], f'it is the input "{good}"'),
                                      ("other.json", [], "is a smembench result file; choose another output or "
                                                         "pass --force")):
            rc, out, err = run("export.py", good, "--format", "bmf", "-o", os.path.join(d, target), *force)
            assert rc == 2 and out == "" and len(err.splitlines()) == 1 and needle in err, (target, rc, err)
        assert {f: open(os.path.join(d, f), "rb").read() for f in before} == before
        assert os.path.islink(os.path.join(d, "link.json")) and not hidden(d), os.listdir(d)
        # --force replaces another result file; the new file's mode comes from the umask
        for mask, mode in ((0o022, 0o644), (0o077, 0o600), (0o002, 0o664)):
            p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "export.py"), good, "--format", "csv", "-o",
                                other, "--force"], capture_output=True, text=True, timeout=300,
                               preexec_fn=lambda m=mask: os.umask(m))
            assert p.returncode == 0 and open(other).read().startswith("point,bench"), p.stderr
            assert stat.S_IMODE(os.stat(other).st_mode) == mode, (oct(mask), oct(os.stat(other).st_mode))
        # through a link to an earlier export: the export is replaced, the link stays
        os.symlink("other.json", os.path.join(d, "to-export"))
        rc, _, err = run("export.py", good, "--format", "bmf", "-o", os.path.join(d, "to-export"))
        assert rc == 0 and os.path.islink(os.path.join(d, "to-export")), err
        assert json.load(open(other)), "the link's target holds the export"
        assert not hidden(d), os.listdir(d)


@test
def plot_and_report_never_write_over_an_input_or_a_result_file():
    with tempfile.TemporaryDirectory() as d:
        good = os.path.join(ROOT, "results", "nvidia-h200_20261129_carveout.json")
        figs, rep = os.path.join(d, "figs"), os.path.join(d, "rep")
        os.mkdir(figs)
        os.mkdir(rep)
        shutil.copy(good, os.path.join(figs, "carveout.png"))     # a result file under a figure's name
        shutil.copy(good, os.path.join(rep, "index.html"))
        for args, needle in ((["plot.py", good, "-o", figs], "is a smembench result file"),
                             (["plot.py", os.path.join(figs, "carveout.png"), "-o", figs, "--force"], "the input"),
                             (["report.py", good, "-o", rep], "is a smembench result file"),
                             (["report.py", os.path.join(rep, "index.html"), "-o", rep, "--force"], "the input")):
            rc, out, err = run(*args)
            assert rc == 2 and out == "" and len(err.splitlines()) == 1 and needle in err, (args, rc, err)
        assert sorted(os.listdir(figs)) == ["carveout.png"] and sorted(os.listdir(rep)) == ["index.html"]
        assert open(os.path.join(figs, "carveout.png"), "rb").read() == open(good, "rb").read()
        rc, _, err = run("plot.py", good, "-o", figs, "--force")
        assert rc == 0 and open(os.path.join(figs, "carveout.png"), "rb").read()[:4] == b"\x89PNG", err


@test
def a_signal_during_a_write_leaves_nothing_hidden_and_exits_128_plus_n():
    good = os.path.join(ROOT, "results", "nvidia-h200_20261129_carveout.json")
    with tempfile.TemporaryDirectory() as d:
        for sig in ("SIGTERM", "SIGHUP", "SIGINT"):
            figs, rep, csv = os.path.join(d, "figs"), os.path.join(d, "rep"), os.path.join(d, "x.csv")
            for tool, args, made in (("plot.py", ["-o", figs], os.path.join(figs, "carveout.png")),
                                     ("report.py", ["-o", rep], os.path.join(rep, "index.html")),
                                     ("export.py", ["--format", "csv", "-o", csv], csv)):
                p = start(tool, good, *args, env={"SMEM_TEST_WRITE_DELAY_MS": "5000"})
                wait_for_line(p, "smembench-test: write")
                assert hidden(d), "the temporary file exists while the write is held"
                p.send_signal(getattr(signal, sig))
                out, err = p.communicate(timeout=60)
                lines = [line for line in err.splitlines() if not line.startswith("smembench-test")]
                assert p.returncode == 128 + SIGNUM[sig], (tool, sig, p.returncode, err)
                assert len(lines) == 1 and f"interrupted by {sig}" in lines[0] and "Traceback" not in err, (tool, err)
                assert not hidden(d) and not os.path.exists(made), (tool, sig, os.listdir(d))
                assert out == "", out
                shutil.rmtree(d)
                os.mkdir(d)
        # a SIGHUP the parent ignores (nohup) stays ignored: the figure is written
        p = start("plot.py", good, "-o", os.path.join(d, "figs"), env={"SMEM_TEST_WRITE_DELAY_MS": "300"},
                  preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
        wait_for_line(p, "smembench-test: write")
        p.send_signal(signal.SIGHUP)
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0 and os.path.exists(os.path.join(d, "figs", "carveout.png")), (p.returncode, err)
        assert not hidden(d)


@test
def sigterm_at_any_moment_of_a_plot_leaves_nothing_hidden():
    """Issue 38: SIGTERM during plot.py on a --sweep all file left a hidden .smembench-*.tmp (2 of 3
    tries at 1 and 2 s). One SIGTERM, and two at once as timeout(1) sends them (to the process and
    to its group), at delays spread over the whole run: never a hidden file, 143 or killed by the
    second signal, one line at most."""
    src = os.path.join(ROOT, "results", "nvidia-h200_20261130_all.json")
    with tempfile.TemporaryDirectory() as d:
        t0 = time.time()
        rc, _, err = run("plot.py", src, "-o", os.path.join(d, "whole"))
        whole = time.time() - t0
        assert rc == 0, err
        shutil.rmtree(os.path.join(d, "whole"))
        for k in range(10):
            out = os.path.join(d, f"figs{k}")
            p = start("plot.py", src, "-o", out)
            time.sleep(whole * (0.25 + 0.07 * k))
            p.send_signal(signal.SIGTERM)
            if k % 2:
                p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=120)
            assert p.returncode in (0, 143, -15), (k, p.returncode, err[-600:])
            assert len(without_figure_lines(err).splitlines()) <= 1 and "Traceback" not in err, (k, err[-600:])
            assert not hidden(d), (k, p.returncode, hidden(d))


@test
def a_signal_python_swallows_in_a_finalizer_still_leaves_nothing_hidden():
    """The root of the hidden file: a handler that raises where Python only prints the exception
    (a finalizer, a weakref callback: matplotlib has them) went on with SIGTERM set to SIG_DFL, and the
    next write's temporary file was left by the next signal. Now the signal is kept: the next write
    is refused before it makes a file, the tool ends with 143 and one line."""
    code = f"""if True:
        import os, signal, sys, weakref
        sys.path.insert(0, {PYDIR!r})
        from smembench import tool
        class A: pass
        def body():
            a = A()
            weakref.finalize(a, lambda: os.kill(os.getpid(), signal.SIGTERM))
            del a
            def render(f):
                f.write(b"x")
                os.kill(os.getpid(), signal.SIGTERM)
            tool.write_file(os.path.join(sys.argv[1], "x.txt"), render)
            return 0
        sys.exit(tool.run_tool(body))
    """
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([sys.executable, "-c", code, d], capture_output=True, text=True, timeout=60)
        assert p.returncode == 143 and p.stderr.splitlines() == ["smembench: interrupted by SIGTERM"], \
            (p.returncode, p.stderr)
        assert os.listdir(d) == [], os.listdir(d)


@test
def a_reader_that_stops_early_leaves_the_status_and_says_nothing():
    """| head -1 on each tool that writes stdout: no line on stderr, the status the tool has when all
    is read (a BrokenPipeError is no error of the user's)."""
    good = os.path.join(ROOT, "results", "nvidia-h200_20261129_carveout.json")
    runs = [os.path.join(ROOT, "results", f"nvidia-h200_20261129_bank-bandwidth_run{i}.json") for i in (1, 2)]
    with tempfile.TemporaryDirectory() as d:
        other = os.path.join(d, "other.json")
        shutil.copy(good, other)
        for tool, args in (("compare.py", runs), ("compare.py", ["--history"] + runs),
                           ("export.py", [good, "--format", "csv"]), ("fleet.py", [good, other])):
            whole = run(tool, *args)[0]
            p = subprocess.Popen([sys.executable, os.path.join(SCRIPTS, tool), *args], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
            p.stdout.readline()
            p.stdout.close()
            err = p.stderr.read().decode()
            p.wait(timeout=120)
            assert p.returncode == whole and err == "", (tool, p.returncode, whole, err)


@test
def names_that_are_not_utf8_are_plotted_reported_and_printed():
    """Issue 38: a file name with the byte 0xff gave internal error 70 in trend (after its figures),
    fleet, report and plot. Now each tool runs: stdout has the name's bytes as they are, the page and
    the text files show them as \\xff, the figures' texts too."""
    runs = [os.path.join(ROOT, "results", f"nvidia-h200_20261129_bank-bandwidth_run{i}.json") for i in (1, 2)]
    with tempfile.TemporaryDirectory() as d:
        folder = os.path.join(d, "in\udcff")
        os.mkdir(folder)
        names = [os.path.join(folder, f"r\udcff{i}.json") for i in (1, 2)]
        for src, dst in zip(runs, names):
            shutil.copy(src, dst)
        for tool, args in (("plot.py", names + ["-o", os.path.join(d, "p\udcfe")]),
                           ("report.py", names + ["-o", os.path.join(d, "rep")]),
                           ("trend.py", [folder, "-o", os.path.join(d, "trend")]),
                           ("fleet.py", [folder, "-o", os.path.join(d, "fleet")]),
                           ("compare.py", names), ("export.py", [names[0], "--format", "csv"])):
            p = subprocess.run([sys.executable, os.path.join(SCRIPTS, tool), *args], capture_output=True, timeout=300)
            assert p.returncode in (0, 1) and b"Traceback" not in p.stderr and b"Warning" not in p.stderr, \
                (tool, p.returncode, p.stderr[-600:])
            if tool == "plot.py":
                assert p.stdout.startswith(os.fsencode(os.path.join(d, "p\udcfe")) + b"/"), p.stdout[:200]
        page = open(os.path.join(d, "rep", "index.html"), encoding="utf-8").read()
        assert "r\\xff1.json" in page, "the report shows the name's byte"
        text = open(os.path.join(d, "fleet", "fleet.txt"), encoding="utf-8").read()
        assert "r\\xff1" in text, text[:400]
        assert os.listdir(os.path.join(d, "trend")) and not hidden(d)


@test
def a_fifo_is_refused_without_being_opened():
    """A FIFO named as an input, or through a link, is refused in one line with status 2 before it is
    opened (open() would wait for a writer for ever: a FIFO in a --history folder hung the gate);
    in a folder it is skipped with the one warning line."""
    good = os.path.join(ROOT, "results", "nvidia-h200_20261129_carveout.json")
    with tempfile.TemporaryDirectory() as d:
        fifo = os.path.join(d, "fifo.json")
        os.mkfifo(fifo)
        os.symlink("fifo.json", os.path.join(d, "link.json"))
        for name in ("fifo.json", "link.json"):
            f = os.path.join(d, name)
            for tool, args in (("compare.py", [f, good]), ("compare.py", ["--history", f, good]),
                               ("plot.py", [f, "-o", os.path.join(d, "figs")]), ("export.py", [f, "--format", "csv"]),
                               ("report.py", [f, "-o", os.path.join(d, "r")]), ("trend.py", [f, "-o", os.path.join(d, "t")]),
                               ("fleet.py", [f])):
                rc, out, err = run(tool, *args)     # a tool that opened the FIFO would wait past run()'s timeout
                assert rc == 2 and len(err.splitlines()) == 1 and "a FIFO, not a regular file" in err, (tool, rc, err)
                assert out == "" and sorted(os.listdir(d)) == ["fifo.json", "link.json"], (tool, out, os.listdir(d))
        shutil.copy(good, os.path.join(d, "good.json"))
        rc, out, err = run("export.py", d, "--format", "csv")
        assert rc == 0 and err.splitlines() == [f"smembench: skipping 2 of 3 inputs, the first {d}/fifo.json: a FIFO, "
                                                "not a regular file"], (rc, err)


@test
def out_of_memory_is_one_line_and_status_2():
    """A 200 MB result file under ulimit -v 900000 (the issue's case): each tool says it in one line
    (plot and report printed a 26-line MemoryError)."""
    import resource
    with tempfile.TemporaryDirectory() as d:
        doc = json.load(open(os.path.join(ROOT, "results", "nvidia-h200_20261129_carveout.json")))
        r = doc["results"][0]
        r["time_ns"]["raw"] = [0]
        text = json.dumps(doc)
        head, tail = text.split('"raw": [0]', 1)
        big = os.path.join(d, "big.json")
        with open(big, "w") as f:
            f.write(head + '"raw": [' + "1234567890, " * 16_666_666 + "1234567890]" + tail)
        assert os.path.getsize(big) > 200e6

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (900000 * 1024, 900000 * 1024))
        for tool, args in (("compare.py", [big, big]), ("export.py", [big, "--format", "csv"]),
                           ("plot.py", [big, "-o", os.path.join(d, "figs")]),
                           ("report.py", [big, "-o", os.path.join(d, "rep")])):
            p = subprocess.run([sys.executable, os.path.join(SCRIPTS, tool), *args], capture_output=True, text=True,
                               timeout=600, preexec_fn=limit)
            assert p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "memory" in p.stderr, \
                (tool, p.returncode, p.stderr[-800:])
            assert p.stdout == "" and sorted(os.listdir(d)) == ["big.json"], (tool, os.listdir(d))


@test
def a_missing_field_the_reader_lets_through_is_no_traceback():
    """The reader accepts a point without a parameter or a metric (the schema asks for neither): a
    staging point without transfer_bytes was a KeyError in plot and report, and the report left an
    empty directory. The committed files that hold every benchmark between them (--sweep all, the
    cluster and the staging sweeps), with each parameter and each metric taken from all their points,
    give their figures and the report's tables (the page's figures are these figures)."""
    sys.path.insert(0, PYDIR)
    from smembench import plot
    from smembench import report
    staging = os.path.join(ROOT, "results", "nvidia-h200_20261130_staging.json")
    with tempfile.TemporaryDirectory() as d:
        doc = json.load(open(staging))
        del next(r for r in doc["results"] if "transfer_bytes" in r["params"])["params"]["transfer_bytes"]
        path = os.path.join(d, "no-size.json")
        json.dump(doc, open(path, "w"))
        for tool in ("plot.py", "report.py"):
            rc, out, err = run(tool, path, "-o", os.path.join(d, tool))
            assert rc == 0 and "Traceback" not in err and os.listdir(os.path.join(d, tool)), (tool, rc, err)
    plt = plot.pyplot()
    failures = []
    every = [os.path.join(ROOT, "results", f"nvidia-h200_20261130_{n}.json") for n in ("all", "cluster", "staging")]
    benches = {r["bench"] for f in every for r in reader.load(f)["results"]}
    assert benches >= {r["bench"] for f in RESULTS for r in reader.load(f)["results"]}, "a benchmark left out"
    for f in every:
        base = reader.load(f)
        fields = {(part, k) for r in base["results"] for part in ("params", "metrics") for k in r[part]}
        for part, k in sorted(fields):
            doc = copy.deepcopy(base)
            for r in doc["results"]:
                r[part].pop(k, None)
            try:
                reader.parse(json.dumps(doc), "x.json")
            except reader.ResultError:
                continue        # refused by the reader: one line already
            try:
                for _, fig in plot.figures(plt, plot.make_series([(f, doc)])):
                    plt.close(fig)
                report.runs_section([(f, doc)])
                for r in doc["results"]:
                    report.point_row(r)
            except Exception as e:  # noqa: BLE001 - each is a failure to report
                failures.append(f"{os.path.basename(f)} without {part}.{k}: {type(e).__name__}: {e}")
    assert not failures, failures[:8]


@test
def the_reader_validates_one_point_of_each_kind_soundly():
    """The reader's shortcut (reader._kind) holds only while the schema's result checks nothing
    but keys, types, bounds of 0 and 100, short enums and a minLength of 1: any other keyword or bound
    fails here before it can let a bad point through. And an invalid point among thousands alike is
    still found, wherever it is."""
    schema = json.load(open(os.path.join(ROOT, "results", "schema.json")))
    assert schema["properties"]["results"] == {"type": "array", "items": {"$ref": "#/$defs/result"}}
    allowed = {"type", "required", "properties", "additionalProperties", "items", "$ref", "description", "enum",
               "minimum", "maximum", "minLength"}
    seen = set()

    def walk(node):
        if isinstance(node, dict):
            if "$ref" in node:
                name = node["$ref"].rsplit("/", 1)[1]
                if name not in seen:
                    seen.add(name)
                    walk(schema["$defs"][name])
            for key in node:
                assert key in allowed, f"the schema's result uses {key!r}: teach reader._kind about it"
            assert node.get("minimum", 0) == 0 and node.get("maximum", 100) == 100, node
            assert node.get("minLength", 1) <= 1, node
            assert all(isinstance(e, str) and len(e) <= reader.SHORT_TEXT for e in node.get("enum", [])), node
            for key, sub in node.items():
                if key == "properties":
                    for v in sub.values():
                        walk(v)
                elif key in ("items", "additionalProperties"):
                    walk(sub)
    walk(schema["$defs"]["result"])
    src = os.path.join(ROOT, "results", "predict", "nvidia-t4-model_20261130_carveout-dynamic.json")
    doc = json.load(open(src))
    n = len(doc["results"])
    last = f"results/{n - 1}/"
    for edit, needle in ((lambda r: r["launch"].update(block=-1), last + "launch/block"),
                         (lambda r: r.update(status="finished"), last + "status"),
                         (lambda r: r["launch"].update(carveout_requested=101), last + "launch/carveout_requested"),
                         (lambda r: r["occupancy"].update(hint_overridden=1), last + "occupancy/hint_overridden"),
                         (lambda r: r["params"].update(mib=1.5), f"result {n - 1}:")):
        bad = copy.deepcopy(doc)
        edit(bad["results"][-1])
        rejected(json.dumps(bad), needle)


@test
def an_internal_error_is_one_line_and_status_70():
    with tempfile.TemporaryDirectory() as d:
        for tool, args, patch in (("plot", [a_result(), "-o", d], "plot.figures = lambda *a: {}['oops']"),
                                  ("compare", [a_result(), a_result()], "compare.gate_report = lambda *a, **k: {}['oops']"),
                                  ("export", [a_result(), "--format", "csv"], "export.to_csv = lambda d: {}['oops']")):
            code = (f"import sys; sys.path.insert(0, {PYDIR!r}); from smembench import {tool}; {patch}; "
                    f"sys.exit({tool}.main({args!r}))")
            p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=d)
            assert p.returncode == 70 and len(p.stderr.splitlines()) == 1, (tool, p.returncode, p.stderr[-600:])
            assert "internal error (KeyError: 'oops')" in p.stderr and p.stdout == "", p.stderr
        assert os.listdir(d) == []
        # the report makes its directory only once it has a page (it left an empty one)
        code = (f"import sys; sys.path.insert(0, {PYDIR!r}); from smembench import report; report.render = lambda *a: {{}}['oops']; "
                f"sys.exit(report.main([{a_result()!r}, '-o', 'rep']))")
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=d)
        assert p.returncode == 70 and len(p.stderr.splitlines()) == 1 and os.listdir(d) == [], (p.stderr, os.listdir(d))


@test
def a_65424_point_predict_file_is_refused_and_plotted_in_seconds():
    """compare took 34 s to refuse it (no timed point) and plot 18.8 s to draw it: the schema validator
    walked every point. The bound is generous for a loaded 2-core machine (about 2 s each here)."""
    src = os.path.join(ROOT, "results", "predict", "nvidia-t4-model_20261130_carveout-dynamic.json")
    doc = json.load(open(src))
    one = next(r for r in doc["results"] if r["bench"] == "dynamic")
    points = []
    for mib in range(1, 25):
        for k in range(2726):
            r = copy.deepcopy(one)
            r["params"] = {"dyn_smem_bytes": 64 * k, "mib": mib}
            r["launch"]["dynamic_smem"] = 64 * k
            r["occupancy"]["predicted"] = min(16, 65536 // (64 * k + 1024))
            points.append(r)
    doc["results"] = points
    assert len(points) == 65424
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "big-predict.json")
        json.dump(doc, open(path, "w"), indent=1)
        for tool, args, status in (("compare.py", [path, path], 2), ("plot.py", [path, "-o", os.path.join(d, "f")], 0)):
            t0 = time.time()
            rc, out, err = run(tool, *args)
            wall = time.time() - t0
            print(f"# {tool} on 65,424 predicted points: {wall:.1f} s, exit {rc}")
            assert rc == status, (tool, rc, err)
            assert wall < 12, f"{tool} took {wall:.1f} s"
        assert "no timed point" in run("compare.py", path, path)[2]
        assert sorted(os.listdir(os.path.join(d, "f"))) == ["occupancy.png", "occupancy.svg"]


def two_device_doc(slow=1.0):
    """A several-device file made from a real one: the same points on a second GPU, times x slow."""
    doc = json.load(open(a_result()))
    second = copy.deepcopy(doc["results"])
    for r in doc["results"]:
        r["device_index"] = 0
    for r in second:
        r["device_index"] = 1
        r["time_ns"]["raw"] = [round(v * slow) for v in r["time_ns"]["raw"]]
        for k in ("min", "q1", "median", "q3", "max", "mean"):
            if r["time_ns"]["stats"][k] is not None:
                r["time_ns"]["stats"][k] = round(r["time_ns"]["stats"][k] * slow)
    dev1 = copy.deepcopy(doc["device"])
    dev1["ordinal"] = 1
    doc["devices"] = [doc["device"], dev1]
    doc["results"] += second
    doc["spread"] = []
    return doc


@test
def the_committed_two_gpu_file_splits_per_device():
    multi = [f for f in RESULTS if "devices" in reader.load(f)]
    assert multi, "results/ holds the --device all run on two GPUs"
    for f in multi:
        doc = reader.load(f)
        parts = reader.split_devices(doc)
        assert len(parts) == len(doc["devices"]) >= 2
        assert sum(len(p["results"]) for p in parts) == len(doc["results"])
        assert len(doc["spread"]) == len(parts[0]["results"]), "a spread entry per point run on every GPU"


@test
def several_device_files_validate_split_and_compare():
    import jsonschema
    schema = json.load(open(os.path.join(ROOT, "results", "schema.json")))
    doc = two_device_doc(1.10)
    jsonschema.validate(doc, schema)
    parts = reader.split_devices(reader.parse(json.dumps(doc)))
    assert len(parts) == 2 and all(len(p["results"]) == len(doc["results"]) // 2 for p in parts)
    assert parts[0]["device"]["name"] != parts[1]["device"]["name"], "each GPU gets its own label"
    bad = copy.deepcopy(doc)
    del bad["results"][0]["device_index"]
    rejected(json.dumps(bad), "device_index")
    with tempfile.TemporaryDirectory() as d:
        a, b, c = (os.path.join(d, n) for n in ("a.json", "b.json", "c.json"))
        json.dump(two_device_doc(1.0), open(a, "w"))
        json.dump(two_device_doc(1.0), open(b, "w"))
        slow = two_device_doc(1.0)
        for r in slow["results"]:   # node c's GPU 1 got 10 % slower
            if r["device_index"] == 1:
                r["time_ns"]["raw"] = [round(v * 1.10) for v in r["time_ns"]["raw"]]
                r["time_ns"]["stats"]["median"] = round(r["time_ns"]["stats"]["median"] * 1.10)
        json.dump(slow, open(c, "w"))
        rc, out, err = run("compare.py", a, b, c)
        assert rc == 1, (rc, err)
        n = len(doc["results"]) // 2
        assert f"{2 * n} points compared: 0 slower, 0 faster, {2 * n} same" in out, out[-2000:]
        assert f"{2 * n} points compared: {n} slower, 0 faster, {n} same" in out, out[-2000:]
        rc, out, err = run("plot.py", a, c, "-o", os.path.join(d, "plots"))
        assert rc == 0, err


@test
def slurm_script_outside_a_job_is_one_line_and_status_2():
    """The batch script run by hand, not by sbatch: one line, exit 2, nothing written (the job itself is
    tested on a real local Slurm by test_slurm.py)."""
    with tempfile.TemporaryDirectory() as d:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM")}
        env.update(OUTDIR=os.path.join(d, "out"))
        p = subprocess.run(["bash", os.path.join(ROOT, "scripts", "slurm", "smembench.sbatch")], env=env,
                           capture_output=True, text=True, timeout=60, cwd=d)
        assert p.returncode == 2 and p.stdout == "", (p.returncode, p.stdout)
        assert p.stderr.strip() == "smembench: not in a Slurm job: submit it with sbatch", p.stderr
        assert os.listdir(d) == [], os.listdir(d)


def scanner_folder(d):
    """A --history folder holding every kind of entry the scanner rules on (smembench.inputs): four
    result files of one GPU and settings (two under names with a byte that is not UTF-8 and with a
    newline), a link to nothing, a link to itself, two links to each other, a FIFO, a folder named
    *.json, results/schema.json; and the new file beside it. Returns (folder, new file)."""
    src = [os.path.join(ROOT, "results", "gate", f"nvidia-h200_20261130_quick_run{i}.json") for i in (1, 2, 3, 4, 5)]
    h = os.path.join(d, "h")
    os.mkdir(h)
    for f, name in zip(src, ("r1.json", "r2.json", "bad\udcffname.json", "new\nline.json")):
        shutil.copy(f, os.path.join(h, name))
    os.symlink("nowhere", os.path.join(h, "dangling.json"))
    os.symlink("self.json", os.path.join(h, "self.json"))
    os.symlink("b.json", os.path.join(h, "a.json"))
    os.symlink("a.json", os.path.join(h, "b.json"))
    os.mkfifo(os.path.join(h, "fifo.json"))
    os.mkdir(os.path.join(h, "folder.json"))
    shutil.copy(os.path.join(ROOT, "results", "schema.json"), h)
    new = os.path.join(d, "new.json")
    shutil.copy(src[4], new)
    return h, new


@test
def every_tool_scans_a_folder_by_the_same_rules():
    """compare --history, trend, fleet, plot, report and export on the folder of scanner_folder():
    each reads the four result files, skips the seven other entries with one warning line naming how
    many and the first (no entry is opened that is not a regular file), and shows the two odd names
    escaped on one line (\xff, \n), every output line whole."""
    with tempfile.TemporaryDirectory() as d:
        h, new = scanner_folder(d)
        warning = f"inputs, the first {h}/a.json: a loop of symbolic links"
        rc, out, err = run("compare.py", "--history", h, new)
        assert rc == 0 and err.splitlines() == [f"smembench: skipping 7 of 11 {warning}"], (rc, err)
        assert "history: 4 files from" in out, out[:2000]
        runs = [("trend.py", [h, new, "-o", os.path.join(d, "trend")], "index.html"),
                ("fleet.py", [h, new], "bad\\xffname"), ("export.py", [h, new, "--format", "csv"], "point,bench"),
                ("plot.py", [h, new, "-o", os.path.join(d, "figs")], "carveout.png"),
                ("report.py", [h, new, "-o", os.path.join(d, "report")], "index.html")]
        for tool, args, needle in runs:
            rc, out, err = run(tool, *args)
            lines = [x for x in without_figure_lines(err).splitlines() if "points not exported" not in x]
            assert rc == 0 and len(lines) == 1 and lines[0].endswith(f"skipping 7 of 12 {warning}"), \
                (tool, rc, err[-2000:])
            assert needle in out and "\udcff" not in out and "new\nline" not in out, (tool, out[-2000:])
        page = open(os.path.join(d, "trend", "index.html"), encoding="utf-8").read()
        assert "bad\\xffname.json" in page and "new\\nline.json" in page
        rc, out, err = run("fleet.py", h, new)
        assert "new\\nline" in out and all(line.count("|") in (0, out.splitlines()[0].count("|")) for line in
                                            out.splitlines()), out[:3000]


@test
def the_same_file_or_folder_twice_is_read_once():
    """A folder given twice, a file given beside its folder, by a link and by a hard link: each file
    counted once (by device and inode), in compare --history, fleet and export."""
    with tempfile.TemporaryDirectory() as d:
        h, new = scanner_folder(d)
        os.symlink(os.path.join(h, "r1.json"), os.path.join(d, "link.json"))
        os.link(os.path.join(h, "r2.json"), os.path.join(d, "hard.json"))
        same = [h, h, os.path.join(h, "r1.json"), os.path.join(d, "link.json"), os.path.join(d, "hard.json")]
        rc, out, err = run("compare.py", *[a for x in same for a in ("--history", x)], new)
        assert rc == 0 and "history: 4 files from" in out, (rc, out[:1500], err)
        rc, out, err = run("fleet.py", *same)
        assert rc == 0 and "4 units" in out, (rc, out[:1500], err)
        rc, out, err = run("export.py", *same, "--format", "csv")
        rc1, once, _ = run("export.py", h, "--format", "csv")
        assert rc == rc1 == 0 and out == once and len(once.splitlines()) > 4, (rc, rc1, err)


@test
def a_named_argument_the_scanner_refuses_is_one_line_and_status_2():
    """A link to nothing, a link to itself, two links to each other, a FIFO, a socket, a missing name,
    a folder without a result file, a folder this user cannot read (where one can be made), and a
    named JSON that is no result file when nothing else is left: one line, status 2, nothing on
    stdout, for compare --history, trend, fleet, plot, report and export."""
    import socket
    with tempfile.TemporaryDirectory() as d:
        h, new = scanner_folder(d)
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(os.path.join(d, "sock"))
        sock.close()
        os.mkdir(os.path.join(d, "empty"))
        cases = {os.path.join(h, "dangling.json"): "a symbolic link to nothing",
                 os.path.join(h, "self.json"): "a loop of symbolic links",
                 os.path.join(h, "a.json"): "a loop of symbolic links",
                 os.path.join(h, "fifo.json"): "a FIFO, not a regular file",
                 os.path.join(d, "sock"): "a socket, not a regular file",
                 os.path.join(d, "missing.json"): "No such file or directory",
                 os.path.join(d, "empty"): f"(skipped {d}/empty: a folder without *.json files)",
                 os.path.join(h, "schema.json"): "skipped " + os.path.join(h, "schema.json") + ": not a smembench result"}
        for path, needle in cases.items():
            for tool, args in (("compare.py", ["--history", path, new]), ("trend.py", [path, "-o", os.path.join(d, "t")]),
                               ("fleet.py", [path]), ("plot.py", [path, "-o", os.path.join(d, "p")]),
                               ("report.py", [path, "-o", os.path.join(d, "r")]), ("export.py", [path, "--format", "csv"])):
                before = sorted(os.listdir(d))
                rc, out, err = run(tool, *args)
                assert rc == 2 and len(err.splitlines()) == 1 and needle in err, (tool, path, rc, err)
                assert out == "" and sorted(os.listdir(d)) == before, (tool, out[:200])


@test
def window_without_history_and_a_drift_compare_refuses_are_refused_by_both():
    """compare --window without --history was ignored; trend took a --drift that compare refuses:
    one check for both (gate.check_rule_options), one line and status 2."""
    good = os.path.join(ROOT, "results", "gate", "nvidia-h200_20261130_quick_run1.json")
    rc, out, err = run("compare.py", good, good, "--window", "3")
    assert rc == 2 and out == "" and err.strip() == ("smembench: --window chooses among the --history files; "
                                                     "expected it with --history"), (rc, err)
    with tempfile.TemporaryDirectory() as d:
        for drift in ("2", "5", "-1", "1000"):
            lines = []
            for tool, args in (("compare.py", [good, good]), ("trend.py", [good, "-o", os.path.join(d, "t")])):
                rc, out, err = run(tool, *args, "--drift", drift)
                assert rc == 2 and out == "" and len(err.splitlines()) == 1, (tool, drift, rc, err)
                lines.append(err)
            assert lines[0] == lines[1], lines
        assert os.listdir(d) == []


def synthetic_history(d, n, points=3):
    """n small result files of one GPU and settings in d/h (a quick file cut to its first points),
    named in an order that is not their date's, each with its own run.started; the files before the
    newest 8 have their points cut off after the header (a file read whole is refused). Returns
    (folder, new file, the newest 8 dates)."""
    doc = json.load(open(os.path.join(ROOT, "results", "gate", "nvidia-h200_20261130_quick_run1.json")))
    doc["results"] = [r for r in doc["results"] if reader.timed(r)][:points]
    h = os.path.join(d, "h")
    os.mkdir(h)
    order = [(k * 7919) % n for k in range(n)]       # a permutation of 0..n-1 (7919 is prime)
    dates = []
    for k, rank in enumerate(order):
        doc["run"]["started"] = f"2026-{1 + rank // 400:02d}-{1 + rank % 400 // 16:02d}T{rank % 16:02d}:00:00Z"
        text = json.dumps(doc, indent=1)
        if rank < n - 8:
            text = text[:text.index('"results"') + 20]    # the header whole, the points cut off
        else:
            dates.append(doc["run"]["started"])
        with open(os.path.join(h, f"h{k:05d}.json"), "w") as f:
            f.write(text)
    new = os.path.join(d, "new.json")
    doc["run"]["started"] = "2027-01-01T00:00:00Z"
    with open(new, "w") as f:
        json.dump(doc, f, indent=1)
    return h, new, sorted(dates)


@test
def the_windowed_history_gate_reads_headers_and_only_the_newest_files():
    """compare --history DIR --window 8 over 2,000 files: the newest 8 by run.started (not by name),
    found by the headers alone (the other 1,992 files are cut off after their header: reading one
    whole would refuse it), in seconds (a generous bound: 2,000 quick files took 13 s before, every
    file read whole)."""
    with tempfile.TemporaryDirectory() as d:
        h, new, dates = synthetic_history(d, 2000)
        t = time.monotonic()
        rc, out, err = run("compare.py", "--history", h, new, "--window", "8")
        took = time.monotonic() - t
        assert rc == 0 and err == "", (rc, err[-2000:])
        assert f"history: 8 files from {dates[0][:10]} to {dates[-1][:10]}" in out, out[:3000]
        assert "history: 1992 older files not read (--window 8)" in out, out[:3000]
        assert took < 20, f"the windowed gate over 2,000 files took {took:.1f} s"
        # without --window every file is read whole: the cut ones are refused
        rc, out, err = run("compare.py", "--history", h, new)
        assert rc == 2 and len(err.splitlines()) == 1 and "not JSON" in err, (rc, err)


@test
def ctrl_c_while_python_imports_the_package_is_one_line():
    """SIGINT while the launcher imports the package (it took 19 lines of traceback from inside an
    import): one line and 130. -X importtime says when the import of json (the reader's first
    import; Python's start-up does not import it) has ended."""
    for tool in ("compare.py", "plot.py", "trend.py"):
        p = subprocess.Popen([sys.executable, "-X", "importtime", os.path.join(SCRIPTS, tool), "--help"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for line in p.stderr:
            if line.split("|")[-1].strip() == "json":
                break
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        lines = [x for x in err.splitlines() if not x.startswith("import time:")]
        assert p.returncode == 130 and lines == ["smembench: interrupted by SIGINT"], (tool, p.returncode, lines)


@test
def no_matplotlib_warning_where_its_folder_cannot_be_written():
    """plot and trend as a user whose home cannot be written (nobody, HOME=/nonexistent): matplotlib
    gets a temporary folder (smembench.startup), so nothing reaches stderr, and none is left behind."""
    good = os.path.join(ROOT, "results", "gate", "nvidia-h200_20261130_quick_run1.json")
    env = {k: v for k, v in os.environ.items() if k not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
    env["HOME"] = "/nonexistent"
    pre = []
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            raise Skip("root without setpriv: no unprivileged user to run as")
        pre = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    with tempfile.TemporaryDirectory() as d:
        os.chmod(d, 0o777)
        before = set(os.listdir(tempfile.gettempdir()))
        for tool, args in (("plot.py", [good, "-o", os.path.join(d, "figs")]),
                           ("trend.py", [good, good.replace("run1", "run2"), "-o", os.path.join(d, "trend")])):
            p = subprocess.run(pre + [sys.executable, os.path.join(SCRIPTS, tool), *args], capture_output=True,
                               text=True, timeout=300, env=env, cwd=d)
            assert p.returncode == 0 and without_figure_lines(p.stderr) == "", (tool, p.returncode, p.stderr[-2000:])
        left = {f for f in set(os.listdir(tempfile.gettempdir())) - before if "matplotlib" in f}
        assert not left, left


def hopper_doc():
    """A made-up cluster + staging file (the shape a run writes, numbers chosen by hand) from a real file."""
    doc = copy.deepcopy(reader.load(a_result()))
    proto = next(r for r in doc["results"] if r["status"] == "ok")

    def point(bench, params, **metrics):
        r = copy.deepcopy(proto)
        r.update(bench=bench, params=params, sweep="staging" if bench.startswith("staging") or bench == "global_read"
                 else "cluster",
                 status="ok", reason=None)
        r["metrics"] = {k: {"value": v, "unit": "x", "ceiling": None} for k, v in metrics.items()}
        return r
    rs = []
    for size in (1, 2, 4, 8, 16):
        for path in (0, 1, 2):
            if size == 1 and path == 2:
                continue
            rs.append(point("dsm_latency", {"cluster_size": size, "path": path, "chain_slots": 1024},
                            latency_cycles=(23, 33, 180 + size)[path]))
            rs.append(point("dsm_bandwidth", {"cluster_size": size, "path": path, "width_bytes": 16},
                            bytes_per_clk_sm=(120, 60, 30)[path]))
            rs.append(point("dsm_atomics", {"cluster_size": size, "path": path}, atomics_per_clk_sm=(16, 8, 4)[path]))
        if size > 1:   # the remote patterns: ring at 4 B, one-way, fan-in (from 4), the dependent chain
            rs.append(point("dsm_bandwidth", {"cluster_size": size, "path": 2, "width_bytes": 4}, bytes_per_clk_sm=16))
            rs.append(point("dsm_bandwidth", {"cluster_size": size, "path": 3, "width_bytes": 16}, bytes_per_clk_sm=21))
            rs.append(point("dsm_bandwidth", {"cluster_size": size, "path": 5, "width_bytes": 4}, bytes_per_clk_sm=12))
        if size > 2:
            rs.append(point("dsm_bandwidth", {"cluster_size": size, "path": 4, "width_bytes": 16}, bytes_per_clk_sm=32))
        rs.append(point("cluster_sync", {"cluster_size": size, "block_threads": 1024}, sync_cycles=100 + 10 * size))
        rs.append(point("cluster_occupancy", {"cluster_size": size, "smem_bytes": 0},
                        clusters_api=2112 // size, clusters_measured=2112 // size, clusters_mismatch=0))
    # staging: cp.async reaches 90 % from 16 KiB, the bulk copy from 8 KiB, plain loads never
    for bench, reach in (("staging_plain", None), ("staging_cp_async", 16384), ("staging_bulk", 8192)):
        for t in (1024, 4096, 8192, 16384, 65536):
            pct = 95 if reach and t >= reach else 60
            params = {"transfer_bytes": t, "mib": 256} if bench == "staging_bulk" else \
                {"width_bytes": 16, "transfer_bytes": t, "mib": 256}
            rs.append(point(bench, params, gbytes_per_s=pct * 40, pct_of_read=pct))
    rs.append(point("global_read", {"mib": 256}, gbytes_per_s=4000))
    doc["results"] = rs
    return doc


@test
def hopper_sweeps_plot_and_the_90_percent_transfer_is_found():
    doc = hopper_doc()
    assert reader.staging_smallest(doc) == {("staging_plain", 16): None, ("staging_cp_async", 16): 16384,
                                                  ("staging_bulk", None): 8192}
    assert reader.staging_smallest(doc, 50) == {("staging_plain", 16): 1024, ("staging_cp_async", 16): 1024,
                                                      ("staging_bulk", None): 1024}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "hopper.json")
        json.dump(doc, open(path, "w"))
        rc, out, err = run("plot.py", path, "-o", d)
        assert rc == 0, err
        for name in ("cluster.png", "cluster.svg", "staging.png", "staging.svg"):
            assert os.path.join(d, name) in out.split(), out
            assert os.path.getsize(os.path.join(d, name)) > 1000


@test
def hopper_summary_puts_anchors_beside_figures_and_fails_on_a_broken_claim():
    summary = os.path.join(ROOT, "tests", "scripts", "hopper_summary.py")
    with tempfile.TemporaryDirectory() as d:
        good, bad = os.path.join(d, "good.json"), os.path.join(d, "bad.json")
        doc = hopper_doc()
        json.dump(doc, open(good, "w"))
        p = subprocess.run([sys.executable, summary, good, good], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stdout + p.stderr
        assert re.search(r"\n\s+2\s+182\.0\s+33\.0\s+23\.0\s+181\s+33\n", p.stdout), p.stdout
        assert "PASS  cluster occupancy: API and measured agree at every point" in p.stdout, p.stdout
        assert re.search(r"\n\s+bulk\s+60\s+60\s+95\s+95\s+95\s+8 KiB\n", p.stdout), p.stdout
        # ring 4/8/16 B, one-way, fan-in, chain, own/cluster, local
        assert re.search(r"\n\s+4\s+16\.0\s+-\s+30\.0\s+21\.0\s+32\.0\s+12\.0\s+60\.0\s+120\.0\n", p.stdout), p.stdout
        assert "NOTE  size 2, 4-B loads: eight in flight 16.0, a dependent chain 12.0 B/clk/SM on this GPU (1.33x)" \
            in p.stdout, p.stdout
        assert re.search(r"PASS  remote bandwidth with loads in flight peaks at 32\.0 B/clk per reading SM "
                         r"\(size \d+, 16 B loads\): 2\.00x the H800", p.stdout), p.stdout
        for r in doc["results"]:
            if r["bench"] == "dsm_bandwidth" and r["params"]["path"] == 2:
                r["metrics"]["bytes_per_clk_sm"]["value"] = 140.0
            if r["bench"] == "cluster_occupancy" and r["params"]["cluster_size"] == 4:
                r["metrics"]["clusters_measured"]["value"] = 500
        json.dump(doc, open(bad, "w"))
        p = subprocess.run([sys.executable, summary, bad, good], capture_output=True, text=True, timeout=120)
        assert p.returncode == 1, p.stdout + p.stderr
        assert "FAIL  dsm_bandwidth: no point above 128 B/clk/SM" in p.stdout, p.stdout
        assert "528/500!" in p.stdout and "1 points where API and measured differ" in p.stdout, p.stdout


@test
def the_package_reads_files_into_a_dataframe():
    """smembench.to_dataframe: a row per point with its identity, parameters, time and every metric,
    its unit in df.attrs["units"]; without pandas, an ImportError that names the package to install."""
    import smembench
    f = os.path.join(ROOT, "results", "nvidia-h200_20261130_all.json")
    doc = smembench.load(f)
    try:
        import pandas  # noqa: F401
    except ImportError:
        try:
            smembench.to_dataframe([f])
        except ImportError as e:
            assert "python3-pandas" in str(e), e
            return
        raise AssertionError("to_dataframe without pandas raised nothing")
    df = smembench.to_dataframe([f, (f, doc)])     # a path, and a (path, doc) already loaded
    assert len(df) == 2 * len(doc["results"]), len(df)
    r = next(r for r in doc["results"] if reader.timed(r) and r["params"] and r["metrics"])
    row = df[df["point"] == reader.point_name(r)].iloc[0]
    assert row["time_median"] == reader.median_ns(r) and row["bench"] == r["bench"], row
    assert abs(row["robust_spread"] - reader.robust_spread(r)) < 1e-15
    for name, m in r["metrics"].items():
        assert row[name] == m["value"] and df.attrs["units"][name] == m["unit"], name
    for k, v in r["params"].items():
        assert row[f"param_{k}"] == v, k
    assert set(df["device"]) == {doc["device"]["name"]} and set(df["commit"]) == {doc["tool"]["git"]}


# --- ab.py: only rounds it ran, on a GPU, with the executables it was given ----------------------

AB_QUICK = os.path.join(ROOT, "results", "gate", "nvidia-h200_20261130_quick_run1.json")
AB_PREDICT = os.path.join(ROOT, "results", "predict", "nvidia-t4-model_20261130_carveout-dynamic.json")
AB_STAND_IN = r"""#!{python}
# a stand-in smembench for ab.py's orchestration (no GPU): {what}
import json, os, signal, sys, time
args = sys.argv[1:]
out = args[args.index("-o") + 1]
open({log!r}, "a").write({name!r} + "\n")
how = {how!r}
if how == "wait":           # the first call waits until the test says go
    open({log!r} + ".waiting", "w").close()
    while not os.path.exists({log!r} + ".go"):
        time.sleep(0.05)
if how == "segv":
    os.kill(os.getpid(), signal.SIGSEGV)
if how == "nofile":
    sys.exit(0)
if how == "usage":
    sys.stderr.write('smembench: invalid value "x" for --axis stride_elems; expected 1..1024\n'
                     "Try 'smembench --help' for more information.\n")
    sys.exit(2)
if how == "predict":
    sys.stderr.write("smembench: warning: no usable CUDA device (cudaErrorNoDevice): ran in predict mode for "
                     "the built-in h200 model (occupancy only); --require-gpu makes this an error\n")
doc = json.load(open({template!r}))
for r in doc["results"]:
    if r["bench"] == "bank" and r["time_ns"]["raw"]:
        t = r["time_ns"]
        t["raw"] = [round(x * {factor!r}) for x in t["raw"]]
        t["stats"]["median"] = round(t["stats"]["median"] * {factor!r})
json.dump(doc, open(out, "w"))
if how == "taker":          # another process takes the next name in the directory
    other = out.replace("base_", "head_") if "base_" in out else out.replace("head_", "base_")
    json.dump(doc, open(other, "w"))
"""


def ab_exe(d, name, how="copy", factor=1.0, log=None, template=None):
    """A stand-in smembench in d named name: copy (the quick run, its bank points times factor),
    predict, wait, segv, nofile, usage or taker; each call logged in log."""
    path = os.path.join(d, name)
    tmpl = template or (AB_PREDICT if how == "predict" else AB_QUICK)
    with open(path, "w") as f:
        f.write(AB_STAND_IN.format(python=sys.executable, what=how, log=log or path + ".log", name=name, how=how,
                                   template=tmpl, factor=factor))
    os.chmod(path, 0o755)
    return path


def ab_run(*args, cwd=None, env=None):
    p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "ab.py"), *args], capture_output=True, text=True,
                       timeout=300, cwd=cwd, env=env)
    return p.returncode, p.stdout, p.stderr


def ab_refused(rc, out, err, needle):
    """Exit 2, nothing on stdout (no "gate: pass" above all), one line on stderr holding needle."""
    lines = err.strip().splitlines()
    assert rc == 2 and out == "" and len(lines) == 1 and lines[0].startswith("smembench: "), (rc, out[-300:], err)
    assert needle in lines[0], (needle, lines[0])
    return lines[0]


def tree(d):
    """Every file under d with its bytes."""
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            with open(os.path.join(root, f), "rb") as fh:
                out[os.path.relpath(os.path.join(root, f), d)] = fh.read()
    return out


def ab_whole(d):
    """d as ab.py leaves it whatever happened: its manifest names whole rounds only, each file there
    with the bytes it records; the names it records."""
    from smembench import ab
    m = json.load(open(os.path.join(d, ab.MANIFEST)))
    for name, sha in m["files"].items():
        assert ab.sha256_of(os.path.join(d, name)) == sha, name
    for r in range(1, len(m["files"]) // 2 + 1):
        assert {f"base_r{r}.json", f"head_r{r}.json"} <= set(m["files"]), m["files"]
    assert len(m["files"]) % 2 == 0, m["files"]
    return set(m["files"])


def ab_good_run(tmp):
    """A real two-round A/B of stand-ins (head's bank points 5 % slower) in tmp/good."""
    base, head = ab_exe(tmp, "base"), ab_exe(tmp, "head", factor=1.05)
    d = os.path.join(tmp, "good")
    rc, out, err = ab_run(base, head, "-o", d, "--rounds", "2", "--", "--sweep", "bank")
    assert rc == 1 and "gate: fail (exit 1): " in out, (rc, err[-2000:])
    return d


@test
def ab_refuses_predict_mode_rounds_and_never_says_pass():
    """A build that fell back to predict mode (no usable GPU) writes a file with no timed point: ab.py
    stops at that round with the run's own warning, as compare.py refuses such a file; --files on
    predict-mode rounds (even with a manifest naming them) is refused too."""
    from smembench import ab
    with tempfile.TemporaryDirectory() as tmp:
        exe = ab_exe(tmp, "smembench", "predict")
        d = os.path.join(tmp, "ab")
        rc, out, err = ab_run(exe, exe, "-o", d, "--rounds", "2", "--", "--sweep", "carveout")
        line = ab_refused(rc, out, err, "base_r1.json: no timed point (a predict-mode file)")
        assert "the run said: smembench: warning: no usable CUDA device" in line, line
        # no .ab.lock left once ab.py has ended (issue 53: it stayed after every run)
        assert ab_whole(d) == set() and sorted(os.listdir(d)) == ["ab-manifest.json", "base_r1.json"]
        rc, out, err = ab_run("--files", d)
        ab_refused(rc, out, err, "not a round of the A/B run")
        # predict-mode rounds that a manifest names
        p = os.path.join(tmp, "predicted")
        os.mkdir(p)
        files = {}
        for r in (1, 2):
            for role in ("base", "head"):
                shutil.copy(AB_PREDICT, os.path.join(p, f"{role}_r{r}.json"))
                files[f"{role}_r{r}.json"] = ab.sha256_of(AB_PREDICT)
        ab.write_manifest(p, {"schema": ab.MANIFEST_SCHEMA, "run_id": "test-predict", "files": files})
        before = tree(p)
        rc, out, err = ab_run("--files", p)
        ab_refused(rc, out, err, "base_r1.json: no timed point (a predict-mode file)")
        assert tree(p) == before


def ab_refused_copy(tmp, good, edit, needle):
    """ab.py --files on a copy of the good run's directory after edit(copy): refused with needle, the
    copy left as it was."""
    d = os.path.join(tmp, "case")
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(good, d)
    edit(d)
    before = tree(d)
    rc, out, err = ab_run("--files", d)
    ab_refused(rc, out, err, needle)
    assert tree(d) == before, "the directory is unchanged"


@test
def ab_files_judges_only_the_rounds_its_manifest_names():
    """--files takes the rounds of one A/B run as its manifest records them (run id, each file's
    SHA-256): a directory without one, a changed or replaced round, a round file it does not name
    and a manifest that is not one are each refused in one line, the directory unchanged."""
    from smembench import ab
    with tempfile.TemporaryDirectory() as tmp:
        good = ab_good_run(tmp)
        m = json.load(open(os.path.join(good, ab.MANIFEST)))
        assert set(m["files"]) == {f"{s}_r{r}.json" for s in ("base", "head") for r in (1, 2)}
        assert m["base"] == os.path.join(tmp, "base") and m["args"] == ["--sweep", "bank"], m
        rc, out, err = ab_run("--files", good)
        assert rc == 1 and out.splitlines()[0].endswith(f", run {m['run_id']}"), (rc, err, out[:300])

        def case(edit, needle):
            ab_refused_copy(tmp, good, edit, needle)
        case(lambda d: os.unlink(os.path.join(d, ab.MANIFEST)), "no ab-manifest.json: these rounds were not run by ab.py")
        case(lambda d: shutil.copy(os.path.join(d, "base_r2.json"), os.path.join(d, "head_r2.json")),
             "head_r2.json: not the file this A/B run wrote")
        case(lambda d: shutil.copy(AB_QUICK, os.path.join(d, "base_r3.json")),
             f"base_r3.json: not a round of the A/B run {m['run_id']}")
        case(lambda d: open(os.path.join(d, ab.MANIFEST), "w").write('{"run_id": 1}'), "not an A/B manifest")
        # the committed rounds of earlier sessions carry the manifest they were adopted with
        for sub in ("units/ab_same_d0", "gate/trials_20261201/ab_same_unitB"):
            rc, out, err = ab_run("--files", os.path.join(ROOT, "results", sub))
            assert rc == 0 and f"run adopted:{sub}" in out.splitlines()[0], (sub, rc, err)


@test
def ab_never_passes_on_rounds_that_cannot_decide():
    """One round, a round file the manifest names but that is gone, and a half round are unusable
    input (exit 2), not a gate of uncertain points that --uncertain pass would let through."""
    from smembench import ab
    with tempfile.TemporaryDirectory() as tmp:
        good = ab_good_run(tmp)

        def case(edit, needle):
            ab_refused_copy(tmp, good, edit, needle)

        def keep(names, drop_files=True):
            def edit(d):
                m = json.load(open(os.path.join(d, ab.MANIFEST)))
                gone = [f for f in m["files"] if f not in names]
                m["files"] = {f: v for f, v in m["files"].items() if f in names}
                for f in gone if drop_files else ():
                    os.unlink(os.path.join(d, f))
                ab.write_manifest(d, m)
            return edit
        case(keep({"base_r1.json", "head_r1.json"}), "1 round (the A/B run")
        case(lambda d: os.unlink(os.path.join(d, "head_r2.json")), "head_r2.json: missing")
        case(keep({"base_r1.json", "head_r1.json", "base_r2.json"}), "round 2 is half there")
        # in process too: a report of one round is refused, never a pass
        docs = [(reader.load(os.path.join(good, "base_r1.json")), reader.load(os.path.join(good, "head_r1.json")))]
        try:
            ab.report([("b", "h")], docs, ab.parse_args(["--files", good]))
            raise AssertionError("a one-round report was made")
        except ab.Usage as e:
            assert "needs 2 at least" in str(e), e


@test
def ab_bisect_refuses_an_output_directory_it_cannot_make_in_one_line():
    """--bisect -o through a regular file or onto a link to nothing: one line, exit 2, nothing made
    (it was os.makedirs's traceback)."""
    with tempfile.TemporaryDirectory() as tmp:
        open(os.path.join(tmp, "regfile"), "w").close()
        os.symlink("nowhere", os.path.join(tmp, "dangling"))
        for o, needle in (("regfile/sub", '"' + os.path.join(tmp, "regfile") + '" is not a directory'),
                          ("dangling", "a symbolic link to nothing")):
            rc, out, err = ab_run("--bisect", "HEAD~1", "HEAD", "-o", os.path.join(tmp, o), "--", "--bench", "bank",
                                  cwd=ROOT)
            ab_refused(rc, out, err, needle)
            assert sorted(os.listdir(tmp)) == ["dangling", "regfile"] and os.path.isfile(os.path.join(tmp, "regfile"))
            assert os.path.islink(os.path.join(tmp, "dangling")) and not os.path.exists(os.path.join(tmp, "dangling"))


@test
def ab_runs_the_executables_it_was_given_not_ones_found_on_path():
    """./smembench is a head 5 % slower on the bank points; a PATH directory holds a smembench and a
    base that are not: ab.py base smembench runs the two in the current directory, by absolute path."""
    with tempfile.TemporaryDirectory() as tmp:
        cwd, onpath = os.path.join(tmp, "cwd"), os.path.join(tmp, "bin")
        os.makedirs(cwd)
        os.makedirs(onpath)
        log = os.path.join(tmp, "calls.log")
        ab_exe(cwd, "base", log=log)
        ab_exe(cwd, "smembench", factor=1.05, log=log)
        ab_exe(onpath, "base", log=log + ".path")
        ab_exe(onpath, "smembench", log=log + ".path")
        env = dict(os.environ, PATH=onpath + os.pathsep + os.environ["PATH"])
        rc, out, err = ab_run("base", "smembench", "-o", "ab", "--rounds", "2", "--", "--sweep", "bank", cwd=cwd, env=env)
        assert rc == 1 and re.search(r"gate: fail \(exit 1\): \d+ slower", out), (rc, err[-1500:], out[-800:])
        assert not os.path.exists(log + ".path"), "a smembench on PATH ran"
        assert open(log).read().split() == ["base", "smembench", "smembench", "base"]
        m = json.load(open(os.path.join(cwd, "ab", "ab-manifest.json")))
        assert (m["base"], m["head"]) == (os.path.join(cwd, "base"), os.path.join(cwd, "smembench")), m


@test
def ab_locks_its_directory_and_a_taken_round_name_stops_it():
    """A second ab.py on a directory one is writing into is refused in one line (exit 2) and changes
    nothing there, and so is --files on it; a round file name another process took stops the run
    (exit 2), the manifest naming only the rounds it finished."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "calls.log")
        slow, head = ab_exe(tmp, "slow", "wait", log=log), ab_exe(tmp, "head", log=log)
        d = os.path.join(tmp, "ab")
        first = subprocess.Popen([sys.executable, os.path.join(SCRIPTS, "ab.py"), slow, head, "-o", d, "--rounds", "2",
                                  "--", "--sweep", "bank"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.time() + 60
            while not os.path.exists(log + ".waiting") and time.time() < deadline and first.poll() is None:
                time.sleep(0.05)
            assert os.path.exists(log + ".waiting"), first.communicate()
            before = tree(d)
            for args, needle in (([head, head, "-o", d, "--", "--sweep", "bank"],
                                  f"{d}: another ab.py (pid {first.pid}) is writing its rounds there; wait for it"),
                                 (["--files", d], "judge them when it has ended")):
                rc, out, err = ab_run(*args)
                ab_refused(rc, out, err, needle)
                assert tree(d) == before, "the second ab.py changed the directory"
        finally:
            open(log + ".go", "w").close()
            out, err = first.communicate(timeout=120)
        assert first.returncode == 0 and "gate: pass (exit 0)" in out, (first.returncode, err[-1500:])
        assert len(ab_whole(d)) == 4
        # another process takes head_r1.json while base_r1.json is written
        taker = ab_exe(tmp, "taker", "taker", log=log)
        d2 = os.path.join(tmp, "ab2")
        rc, out, err = ab_run(taker, head, "-o", d2, "--", "--sweep", "bank")
        ab_refused(rc, out, err, f"{d2}/head_r1.json: already exists: another process writes into {d2}")
        assert ab_whole(d2) == set(), "no round is recorded"


@test
def ab_keeps_the_drivers_whole_error_and_names_a_signal():
    with tempfile.TemporaryDirectory() as tmp:
        base = ab_exe(tmp, "base")
        for how, needle in (("usage", 'exited 2: smembench: invalid value "x" for --axis stride_elems; expected '
                                      "1..1024 / Try 'smembench --help' for more information."),
                            ("segv", "killed by signal SIGSEGV"),
                            ("nofile", "exited 0 but wrote no file")):
            bad = ab_exe(tmp, how, how)
            d = os.path.join(tmp, how + "_out")
            rc, out, err = ab_run(base, bad, "-o", d, "--", "--sweep", "bank")
            line = ab_refused(rc, out, err, needle)
            assert "(no message)" not in line and "exited -11" not in line, line
            assert ab_whole(d) == set() and os.path.exists(os.path.join(d, "base_r1.json"))


@test
def ab_keeps_only_what_the_rule_reads_of_a_round():
    """Each round is read once and its raw samples dropped (four 200 MB pairs: 5.1 GB -> about 1 GB
    peak here), the table's steady median at the top clock kept: the light document judges as the
    whole one does."""
    from smembench import ab
    d = os.path.join(ROOT, "results", "gate", "trials_20261201", "ab_same_unitB")
    files = ab.read_manifest(d)["files"]
    full = [(reader.load(b), reader.load(h)) for b, h in ab.rounds_in(d)]
    light = ab.load_rounds(ab.rounds_in(d), ab.parse_args(["--files", d]))
    assert all(r["time_ns"]["raw"] == [] for b, h in light for r in b["results"] + h["results"])
    for (fb, _), (lb, _) in zip(full, light):
        for fr, lr in zip(fb["results"], lb["results"]):
            if reader.timed(fr):
                assert lr["time_ns"]["steady_median_ns"] == reader.steady_median(fr)
    o = ab.parse_args(["--files", d])
    assert ab.report(ab.rounds_in(d), full, o) == ab.report(ab.rounds_in(d), light, o)
    assert len(files) == 8


@test
def the_package_takes_paths_documents_folders_and_iterables():
    """Issue 38: to_dataframe(("a.json", "b.json")) took the two paths as one (path, document) pair
    (TypeError from inside), three paths gave "too many values to unpack", to_dataframe(Path) and
    to_dataframe(load(path)) failed, load(0) read and closed stdin, a bare {} was a KeyError. Now
    every documented input works and the rest is InvalidResult (a ValueError) or TypeError, one
    line each."""
    import pathlib
    import smembench
    try:
        import pandas  # noqa: F401
    except ImportError:
        raise Skip("no pandas")
    runs = [os.path.join(ROOT, "results", f"nvidia-h200_20261129_bank-bandwidth_run{i}.json") for i in (1, 2)]
    good = os.path.join(ROOT, "results", "nvidia-h200_20261129_carveout.json")
    n = {f: len(reader.load(f)["results"]) for f in runs + [good]}
    doc = smembench.load(pathlib.Path(runs[0]))
    with tempfile.TemporaryDirectory() as d:
        for f in runs:
            shutil.copy(f, d)
        shutil.copy(os.path.join(ROOT, "results", "schema.json"), d)      # JSON but no result: skipped
        for given, rows, files in ((tuple(runs), n[runs[0]] + n[runs[1]], set(runs)),
                                   (tuple(runs + [good]), sum(n.values()), set(runs + [good])),
                                   (pathlib.Path(runs[0]), n[runs[0]], {runs[0]}),
                                   (os.fsencode(runs[0]), n[runs[0]], {runs[0]}),
                                   (doc, n[runs[0]], {None}),
                                   ([doc, (runs[1], reader.load(runs[1]))], n[runs[0]] + n[runs[1]], {None, runs[1]}),
                                   (iter(runs), n[runs[0]] + n[runs[1]], set(runs)),
                                   (pathlib.Path(d), n[runs[0]] + n[runs[1]],
                                    {os.path.join(d, os.path.basename(f)) for f in runs}),
                                   ([], 0, set())):
            df = smembench.to_dataframe(given)
            assert len(df) == rows, (type(given).__name__, len(df), rows)
            assert rows == 0 or set(df["file"].where(df["file"].notna(), None)) == files, set(df["file"])
    for given, kind, needle in (({}, smembench.InvalidResult, 'missing field "schema"'),
                                ([{}], smembench.InvalidResult, 'missing field "schema"'),
                                (0, TypeError, "got int"), ([["a.json"]], TypeError, "got list"),
                                ("missing.json", smembench.InvalidResult, "missing.json: No such file"),
                                (dict(doc, run=dict(doc["run"], started=None)), ValueError, "run/started")):
        try:
            smembench.to_dataframe(given)
        except kind as e:
            assert needle in str(e) and len(str(e).splitlines()) == 1, e
        else:
            raise AssertionError(f"to_dataframe({given!r:.40}) raised nothing")
    assert issubclass(smembench.InvalidResult, ValueError) and smembench.InvalidResult is reader.ResultError
    # load(0) is not stdin: refused, and stdin is still open and unread after it
    code = (f"import sys; sys.path.insert(0, {PYDIR!r}); import smembench\n"
            "try:\n    smembench.load(0)\nexcept TypeError as e:\n    print(e)\nprint(sys.stdin.read())")
    p = subprocess.run([sys.executable, "-c", code], input="still here", capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.splitlines() == [
        "load takes the path of a result file (str, bytes or os.PathLike), not int", "still here"], p


def _pandas():
    try:
        import pandas
    except ImportError:
        raise Skip("no pandas (python3-pandas)")
    return pandas


H200_ALL = os.path.join(ROOT, "results", "nvidia-h200_20261130_all.json")
H200_X2 = os.path.join(ROOT, "results", "nvidia-h200-x2_20261129_bandwidth-latency-bank.json")
H200_CARVEOUT = os.path.join(ROOT, "results", "nvidia-h200_20261129_carveout.json")
H200_TRIALS = os.path.join(ROOT, "results", "gate", "session3_20261202", "nvidia-h200_20261202_quick_66201af_unitG.json")


@test
def the_package_frames_h200_files_with_real_dtypes():
    """Issue 35: to_dataframe had 82 wide columns such as param.width_bytes and "bytes_per_clk_sm
    [B/clk/SM]", integer parameters as float64, started as a string, no occupancy, launch, samples,
    clock, throttle, verified, reason, mode, sweep or device_index column, and a two-GPU file's
    devices folded into one name. Now: snake_case names without units, units and directions in
    df.attrs, Int64, boolean, UTC datetimes and categories, every point's record in its row, and a
    device per row with its index."""
    pandas = _pandas()
    import smembench
    df = smembench.to_dataframe([H200_ALL, H200_X2, H200_TRIALS])
    docs = {f: reader.load(f) for f in (H200_ALL, H200_X2, H200_TRIALS)}
    assert len(df) == sum(len(d["results"]) for d in docs.values()), len(df)
    bad = [c for c in df.columns if not re.fullmatch(r"[a-z][a-z0-9_]*", c)]
    assert not bad, bad
    dtypes = {c: str(t) for c, t in df.dtypes.items()}
    assert dtypes["started"] == "datetime64[ns, UTC]", dtypes["started"]
    for c in ("bench", "status", "device", "sweep", "mode", "cc", "occupancy_limiter"):
        assert dtypes[c] == "category", (c, dtypes[c])
    for c in ("device_index", "time_median", "time_q1", "time_q3", "samples", "batch", "throttled", "trials",
              "launch_grid", "launch_dynamic_smem", "occupancy_api", "occupancy_measured", "param_width_bytes",
              "param_carveout_pct", "param_stride_elems"):
        assert dtypes[c] == "Int64", (c, dtypes[c])
    for c in ("verified", "launch_optin", "occupancy_hint_overridden"):
        assert dtypes[c] == "boolean", (c, dtypes[c])
    for c in ("robust_spread", "clock", "trial_spread", "gbytes_per_s", "occupancy_pct"):
        assert dtypes[c] == "float64", (c, dtypes[c])
    units, better = df.attrs["units"], df.attrs["better"]
    assert units["time_median"] == "ns" and units["clock"] == "MHz" and units["gbytes_per_s"] == "GB/s", units
    assert units["bytes_per_clk_sm"] == "B/clk/SM" and units["occupancy_effective_carveout"] == "%", units
    assert better["time_median"] == "lower" and better["bytes_per_clk_sm"] == "higher", better
    def same(got, v):
        return pandas.isna(got) if v is None else got == v
    # each point's record, value for value, in its row
    for f, doc in docs.items():
        rows = df[df["file"] == f]
        for r, (_, row) in zip(doc["results"], rows.iterrows()):
            dev = reader.device_of(doc, r)
            assert row["point"] == reader.point_name(r) and row["bench"] == r["bench"], row["point"]
            assert row["device"] == dev["name"] and row["device_index"] == dev["ordinal"], (row["device"], dev)
            assert row["started"] == pandas.Timestamp(doc["run"]["started"]), row["started"]
            assert row["mode"] == doc["run"]["mode"] and row["sweep"] == r["sweep"] and row["status"] == r["status"]
            assert same(row["verified"], r["verified"]) and same(row["clock"], r["clock_mhz"]), row["point"]
            s = r["time_ns"]["stats"]
            for c, k in (("time_median", "median"), ("time_q1", "q1"), ("time_q3", "q3"), ("samples", "count")):
                assert same(row[c], s.get(k) if reader.timed(r) or c == "samples" else None), (row["point"], c)
            th = r["time_ns"].get("throttled")
            assert same(row["throttled"], None if th is None else th["count"]), row["point"]
            for k, v in r["launch"].items():
                assert same(row[f"launch_{k}"], v), k
            for k, v in r["occupancy"].items():
                c = k if k == "occupancy_pct" else f"occupancy_{k}"
                assert same(row[c], v), (c, row[c], v)
            for k, v in r["params"].items():
                assert row[f"param_{k}"] == v, k
            for name in r["metrics"]:
                v = reader.metric(r, name)
                assert same(row[name], v), name
            assert same(row["trials"], (r.get("trials") or {}).get("count")), row["point"]
    # the two-GPU file: its devices are rows with their index, the name is the device's own
    x2 = df[df["file"] == H200_X2]
    per = x2.groupby("device_index").size().to_dict()
    assert per == {0: 104, 1: 104}, per
    assert set(x2["device"].astype(str)) == {"NVIDIA H200"}, set(x2["device"])
    assert set(x2["point"].str.extract(r"@gpu(\d)$")[0].astype(int)) == {0, 1}
    assert (x2["point"].str.endswith("@gpu0") == (x2["device_index"] == 0)).all()


@test
def the_package_pivots_the_carveout_sweep():
    """The main job's data in a frame: the carveout sweep's median time by requested carveout and
    benchmark, and the measured residency beside it, each cell the file's own value."""
    _pandas()
    import smembench
    df = smembench.to_dataframe(H200_CARVEOUT)
    t = df.pivot_table(index="param_carveout_pct", columns="bench", values="time_median", aggfunc="median",
                       observed=True)
    doc = reader.load(H200_CARVEOUT)
    want = {}
    for r in doc["results"]:
        if reader.timed(r):
            want.setdefault((r["params"]["carveout_pct"], r["bench"]), []).append(reader.median_ns(r))
    assert set(t.columns) == {"footprint", "gather"}, list(t.columns)
    assert list(t.index) == sorted({p for p, _ in want}), list(t.index)
    import statistics
    for (pct, bench), v in want.items():
        assert t.loc[pct, bench] == statistics.median(v), (pct, bench)
    assert t.loc[0, "footprint"] == 952416 and t.loc[20, "footprint"] == 518688, t.head()
    blocks = df.pivot_table(index="param_carveout_pct", columns="bench", values="occupancy_measured",
                            aggfunc="max", observed=True)
    assert blocks.loc[0, "footprint"] == 1 and blocks["footprint"].max() > 1, blocks


@test
def the_package_gives_a_row_per_raw_sample():
    """smembench.samples: one row per raw sample, in the file's order, with its point, parameters
    and, where the file records trials, the trial it belongs to."""
    _pandas()
    import smembench
    files = [H200_ALL, H200_X2, H200_TRIALS]
    s = smembench.samples(files)
    docs = [reader.load(f) for f in files]
    raws = [(f, r) for f, d in zip(files, docs) for r in d["results"] if r["time_ns"]["raw"]]
    assert len(s) == sum(len(r["time_ns"]["raw"]) for _, r in raws) > 0, len(s)
    assert str(s["time_ns"].dtype) == "int64" and str(s["started"].dtype) == "datetime64[ns, UTC]", s.dtypes
    # an integer parameter every row has is int64 (seaborn draws it), one some rows lack nullable Int64
    assert str(s["param_width_bytes"].dtype) == "Int64" and s["param_width_bytes"].isna().any(), s.dtypes
    assert str(smembench.samples(H200_CARVEOUT)["param_carveout_pct"].dtype) == "int64"
    assert str(s["bench"].dtype) == "category" and s.attrs["units"]["time_ns"] == "ns"
    got = s.groupby(["file", "point"], sort=False)["time_ns"].apply(list).to_dict()
    for f, r in raws:
        assert got[(f, reader.point_name(r))] == r["time_ns"]["raw"], reader.point_name(r)
    trials = s[s["file"] == H200_TRIALS]
    assert trials["trial"].notna().all(), "trials not attributed"
    doc = docs[2]
    for r in doc["results"]:
        if r["time_ns"]["raw"]:
            counts = trials[trials["point"] == reader.point_name(r)].groupby("trial").size().tolist()
            assert counts == [x["samples"] for x in r["trials"]["runs"]], reader.point_name(r)
    assert s[s["file"] == H200_ALL]["trial"].isna().all()       # a file written before trials
    x2 = s[s["file"] == H200_X2]
    assert set(x2["device_index"]) == {0, 1}, set(x2["device_index"])
    assert (s[s["bench"] == "bandwidth"]["param_width_bytes"].notna()).all()


@test
def the_package_samples_draw_with_seaborn():
    """The pandas use the issue asks for: a seaborn plot of the carveout sweep's samples."""
    _pandas()
    try:
        import seaborn
    except ImportError:
        raise Skip("no seaborn (python3-seaborn)")
    import matplotlib
    matplotlib.use("Agg")
    import smembench
    s = smembench.samples(H200_CARVEOUT)
    ax = seaborn.lineplot(data=s, x="param_carveout_pct", y="time_ns", hue="bench", estimator="median")
    assert len(ax.get_lines()) >= 2 and ax.get_xlabel() == "param_carveout_pct", ax.get_lines()
    with tempfile.TemporaryDirectory() as d:
        ax.figure.savefig(os.path.join(d, "s.png"))
        assert os.path.getsize(os.path.join(d, "s.png")) > 1000


@test
def the_package_long_frame_is_the_csv_export():
    """to_dataframe(x, long=True): exactly export.py --format csv's rows, columns in its order and
    its values, typed (dates UTC, numbers as numbers, an empty field missing), for one file and
    for several exported together."""
    pandas = _pandas()
    import io
    import smembench
    for files in ([H200_X2], [H200_ALL], [H200_CARVEOUT, H200_TRIALS]):
        code, out, err = run("export.py", *files, "--format", "csv")
        assert code == 0, err
        csv_ = pandas.read_csv(io.StringIO(out), dtype=str, keep_default_na=False)
        df = smembench.to_dataframe(files, long=True)
        assert list(df.columns) == list(csv_.columns), (list(df.columns), list(csv_.columns))
        assert len(df) == len(csv_) > 0, (len(df), len(csv_))
        assert str(df["date"].dtype) == "datetime64[ns, UTC]" and str(df["samples"].dtype) == "Int64"
        for c in df.columns:
            want, got = csv_[c].tolist(), df[c].tolist()
            if c == "date":
                got = [t.strftime("%Y-%m-%dT%H:%M:%SZ") for t in got]
            elif c in ("value", "q1", "q3", "noise", "samples", "device_index"):
                want = [None if w == "" else float(w) for w in want]
                got = [None if pandas.isna(g) else float(g) for g in got]
            else:
                got = ["" if g is None or (isinstance(g, float) and g != g) else str(g) for g in got]
            assert got == want, (files, c, next((w, g) for w, g in zip(want, got) if w != g))
    # a predict file has no timed point: export refuses it, the long frame has no row from it
    predict = os.path.join(ROOT, "results", "predict", "nvidia-t4-model_20261130_carveout-dynamic.json")
    assert len(smembench.to_dataframe([predict], long=True)) == 0
    assert len(smembench.to_dataframe([predict, H200_X2], long=True)) == len(smembench.to_dataframe(H200_X2, long=True))


@test
def the_package_takes_glob_patterns_and_says_what_is_wrong_in_one_line():
    """A glob pattern is an input like a folder (sorted, "**" recursive, JSON that is no result
    skipped); load() of one file is its document, of a folder or pattern a list; a pattern that
    matches nothing is InvalidResult, an input of another kind TypeError, one line each."""
    _pandas()
    import pathlib
    import smembench
    pattern = os.path.join(ROOT, "results", "predict", "*.json")
    files = sorted(glob.glob(pattern))
    assert len(files) >= 4
    df = smembench.to_dataframe(pattern)
    assert df["file"].unique().tolist() == files, df["file"].unique()
    assert len(df) == len(smembench.to_dataframe(files))
    assert len(smembench.to_dataframe(os.path.join(ROOT, "results", "*.json"))) == \
        len(smembench.to_dataframe(os.path.join(ROOT, "results")))          # schema.json matched, skipped
    assert len(smembench.to_dataframe(os.path.join(ROOT, "results", "predict", "**", "*t4*.json"))) > 0
    docs = smembench.load(pattern)
    assert isinstance(docs, list) and [d["device"]["name"] for d in docs] == \
        [reader.load(f)["device"]["name"] for f in files]
    assert isinstance(smembench.load(pathlib.Path(files[0])), dict)
    assert len(smembench.load(pathlib.Path(ROOT, "results", "predict"))) == len(files)
    for call, kind, needle in ((lambda: smembench.to_dataframe("nothing-*.json"), smembench.InvalidResult,
                                "nothing-*.json: no file matches the pattern"),
                               (lambda: smembench.load("nothing-*.json"), smembench.InvalidResult,
                                "no file matches the pattern"),
                               (lambda: smembench.samples(3.5), TypeError, "samples takes a result file's path"),
                               (lambda: smembench.to_dataframe([{}], long=True), smembench.InvalidResult,
                                'missing field "schema"'),
                               (lambda: smembench.load(0), TypeError, "not int")):
        try:
            call()
        except kind as e:
            assert needle in str(e) and len(str(e).splitlines()) == 1, e
        else:
            raise AssertionError(f"{needle}: nothing raised")
    assert smembench.InvalidResult.__doc__ or issubclass(smembench.InvalidResult, ValueError)
    for name in smembench.__all__:
        obj = getattr(smembench, name)
        assert not callable(obj) or obj.__doc__, name


def _meson_version():
    with open(os.path.join(ROOT, "meson.build")) as f:
        return re.search(r"^project\([^)]*?\bversion: *'([^']+)'", f.read(), re.M).group(1)


@test
def the_package_installs_with_pip_without_network():
    """pip install ./python (pyproject.toml, setuptools) into a --target folder with no index and
    no build isolation: the installed package imports from there with meson.build's version, its
    py.typed and its schema, and its smembench-export command runs; the checkout gains nothing (the
    build runs on a copy of python/, meson.build and the schema)."""
    import smembench
    assert smembench.__version__ == _meson_version(), smembench.__version__
    for m in ("pip", "setuptools", "wheel"):
        p = subprocess.run([sys.executable, "-c", f"import {m}"], capture_output=True)
        if p.returncode:
            raise Skip(f"no {m} for {sys.executable} (python3-{m})")
    before = sorted(os.listdir(PYDIR))
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "src")
        shutil.copytree(PYDIR, os.path.join(src, "python"), ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(os.path.join(ROOT, "meson.build"), src)
        os.makedirs(os.path.join(src, "results"))
        shutil.copy(os.path.join(ROOT, "results", "schema.json"), os.path.join(src, "results"))
        target = os.path.join(d, "site")
        p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                            "--disable-pip-version-check", "--target", target, os.path.join(src, "python")],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
        env = dict(os.environ, PYTHONPATH=target)
        code = ("import smembench, smembench.reader as r, os\n"
                "print(smembench.__version__); print(os.path.dirname(smembench.__file__)); print(r.SCHEMA_FILE)\n"
                f"print(len(smembench.to_dataframe({H200_CARVEOUT!r})))")
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=d, env=env)
        assert p.returncode == 0, p.stderr
        version, where, schema, rows = p.stdout.split("\n")[:4]
        assert version == _meson_version() and where == os.path.join(target, "smembench"), p.stdout
        assert schema == os.path.join(where, "schema.json") and os.path.isfile(schema), schema
        assert int(rows) == len(reader.load(H200_CARVEOUT)["results"]), rows
        assert os.path.isfile(os.path.join(where, "py.typed"))
        p = subprocess.run([os.path.join(target, "bin", "smembench-export"), "--version"], capture_output=True,
                           text=True, timeout=120, cwd=d, env=env)
        assert p.returncode == 0 and p.stdout.strip() == f"smembench-export {_meson_version()}", p.stdout + p.stderr
    assert sorted(os.listdir(PYDIR)) == before, sorted(os.listdir(PYDIR))


@test
def without_jsonschema_the_reader_refuses_what_the_schema_refuses():
    """Issue 38: without python3-jsonschema the reader accepted run.started null and device.name null,
    which then crashed trend and fleet. The fallback walks the schema itself: every committed result
    file and fixture is accepted or refused alike with and without jsonschema, with the same message,
    and so is each edit that breaks one rule of the schema; the fallback knows every keyword the
    schema uses."""
    import jsonschema
    import jsonschema.exceptions  # noqa: F401 - kept loaded while the name is hidden below
    schema = json.load(open(os.path.join(ROOT, "results", "schema.json")))
    used = set()

    def walk(node, parent=None):
        if isinstance(node, dict):
            for k, v in node.items():
                if parent in ("properties", "$defs"):
                    walk(v)
                    continue
                used.add(k)
                walk(v, k)
        elif isinstance(node, list):
            for x in node:
                walk(x)
    walk(schema)
    assert used <= reader._Fallback.KNOWN | reader._Fallback.NOTES, used - reader._Fallback.KNOWN - reader._Fallback.NOTES

    def both(text):
        out = []
        for hidden_module in (False, True):
            sys.modules["jsonschema"] = None if hidden_module else jsonschema
            try:
                reader.parse(text, "x.json")
                out.append("ok")
            except reader.ResultError as e:
                out.append(str(e))
            finally:
                sys.modules["jsonschema"] = jsonschema
        return out
    files = RESULTS + sorted(glob.glob(os.path.join(ROOT, "tests", "scripts", "fixtures", "**", "*.json"),
                                       recursive=True))
    checked = 0
    for f in files:
        text = open(f).read()
        try:
            doc = json.loads(text)
        except ValueError:
            continue
        if isinstance(doc, dict) and "schema" in doc:
            a, b = both(text)
            assert a == b, (f, a, b)
            checked += 1
    assert checked >= 10, checked
    base = json.load(open(os.path.join(ROOT, "results", "nvidia-h200_20261129_carveout.json")))
    edits = [lambda d: d["run"].update(started=None), lambda d: d["device"].update(name=None),
             lambda d: d["run"].pop("host"), lambda d: d["results"][0]["occupancy"].update(limiter=5),
             lambda d: d["device"].update(cc="9"), lambda d: d["tool"].update(name="other"),
             lambda d: d["results"][0].update(status="weird"), lambda d: d["run"].update(started="2026-11-29"),
             lambda d: d["device"].update(sm_count=-1), lambda d: d["device"].update(sm_count=1.5),
             lambda d: d["results"][-1]["launch"].update(block=-1), lambda d: d["run"].update(argv="x"),
             lambda d: d["results"][0].update(verified="yes")]
    for k, edit in enumerate(edits):
        d = copy.deepcopy(base)
        edit(d)
        a, b = both(json.dumps(d))
        assert a == b and a != "ok", (k, a, b)



@test
def python_m_smembench_runs_each_command_and_names_the_tools():
    """python3 -m smembench TOOL ARGS is the smembench-TOOL command (the same main(), under that name);
    no tool, or one it does not know, is one line naming every tool, and exit 2."""
    def m(*args):
        p = subprocess.run([sys.executable, "-m", "smembench", *args], capture_output=True, text=True, timeout=300,
                           cwd=PYDIR)
        return p.returncode, p.stdout, p.stderr
    tools = ("plot", "compare", "export", "report", "fleet", "ab", "trend", "catalog")
    for args, what in (((), "no tool given"), (("frobnicate",), 'unknown tool "frobnicate"'),
                       (("smembench-compare",), 'unknown tool "smembench-compare"')):
        rc, out, err = m(*args)
        assert rc == 2 and out == "" and len(err.splitlines()) == 1, (args, rc, out, err)
        assert err.startswith(f"smembench: {what}; usage: python3 -m smembench TOOL") and \
            all(t in err for t in tools), err
    rc, out, err = m("--help")
    assert rc == 0 and all(t in out for t in tools) and err == "", (rc, out, err)
    for t in tools:
        rc, out, err = m(t, "--version")
        assert rc == 0 and out.startswith(f"smembench-{t} "), (t, rc, out, err)
    # the same output and status as the command itself
    rc, out, err = m("compare", a_result(), a_result())
    assert (rc, out, err) == run("compare.py", a_result(), a_result()), (rc, err)
    rc, out, err = m("export", a_result(), "--format", "csv")
    assert (rc, out, err) == run("export.py", a_result(), "--format", "csv") and out.startswith("point,"), err
    rc, out, err = m("trend", "--frobnicate")
    assert rc == 2 and err.strip() == "smembench: the following arguments are required: FILE_OR_DIR, -o; see " \
                                      "smembench-trend --help", err


def main():
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
            print(f"not ok {i} - {t.__name__}: {type(e).__name__}: {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
