#!/usr/bin/env python3
"""Tests of the result-file tools (TAP): the reader on fixtures and on every committed result,
the plots, several-device files and the Slurm script (the comparison and the exporters:
test_gate.py)."""
import copy
import re
import glob
import json
import os
import subprocess
import sys
import tempfile
import xml.dom.minidom

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
sys.path.insert(0, SCRIPTS)
import smem_results  # noqa: E402

RESULTS = sorted(glob.glob(os.path.join(ROOT, "results", "*_*.json")))
TESTS = []


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
        smem_results.parse(text, "fixture.json")
    except smem_results.ResultError as e:
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
        doc = smem_results.load(f)
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
    assert smem_results.better(smem_results.parse(json.dumps(doc))["results"][doc["results"].index(r)],
                               name) == smem_results.BETTER_BY_UNIT[r["metrics"][name]["unit"]]
    r["metrics"][name]["better"] = "lower"
    parsed = smem_results.parse(json.dumps(doc))
    assert smem_results.better(parsed["results"][doc["results"].index(r)], name) == "lower"
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
    assert smem_results.parse(json.dumps(d))["results"][0]["time_ns"]["raw"] == []


@test
def reader_checks_the_published_block():
    doc = json.load(open(a_result()))
    block = json.load(open(os.path.join(HERE, "fixtures", "published_cc90.json")))
    d = copy.deepcopy(doc)
    d["device"]["published"] = block
    dev = smem_results.parse(json.dumps(d))["device"]
    assert smem_results.published(dev)["banks"]["value"] == 32
    assert smem_results.published(doc["device"]) == {}
    for bad, needle in (([1, 2], '"published" is not an object'), ({"banks": 32}, 'published "banks" has no "value"'),
                        ({"banks": {"value": {"n": 32}}}, "not a number, a text or a list of them"),
                        ({"banks": {"value": 32, "unit": 5}}, "unit is not a string")):
        d = copy.deepcopy(doc)
        d["device"]["published"] = bad
        rejected(json.dumps(d), needle)


@test
def reader_noise_and_direction_helpers():
    doc = smem_results.load(a_result())
    r = doc["results"][0]
    raw = sorted(r["time_ns"]["raw"])
    n = len(raw)
    med = (raw[(n - 1) // 2] + raw[n // 2]) / 2
    dev = sorted(abs(v - med) for v in raw)
    mad = (dev[(n - 1) // 2] + dev[n // 2]) / 2
    assert abs(smem_results.robust_spread(r) - 1.4826 * mad / med) < 1e-12
    r2 = copy.deepcopy(r)
    r2["time_ns"]["stats"]["robust_spread"] = 0.0123              # the file's own value wins
    assert smem_results.robust_spread(r2) == 0.0123
    want = {"latency_cycles": "lower", "latency_ns": "lower", "bytes_per_clk_sm": "higher", "gbytes_per_s": "higher",
            "pct_of_peak": "higher", "slowdown": "lower", "predicted_slowdown": "lower", "wavefronts": "lower"}
    for p in doc["results"]:
        for name in p["metrics"]:
            assert smem_results.better(p, name) == want[name], name
    r3 = copy.deepcopy(r)
    r3["metrics"]["bytes_per_clk_sm"]["better"] = "lower"
    assert smem_results.better(r3, "bytes_per_clk_sm") == "lower"


@test
def reader_accepts_a_minor_version():
    doc = json.load(open(a_result()))
    doc["schema"] = "smembench/1.1"
    assert smem_results.parse(json.dumps(doc))["results"]


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
    multi = [f for f in RESULTS if "devices" in smem_results.load(f)]
    assert multi, "results/ holds the --device all run on two GPUs"
    for f in multi:
        doc = smem_results.load(f)
        parts = smem_results.split_devices(doc)
        assert len(parts) == len(doc["devices"]) >= 2
        assert sum(len(p["results"]) for p in parts) == len(doc["results"])
        assert len(doc["spread"]) == len(parts[0]["results"]), "a spread entry per point run on every GPU"


@test
def several_device_files_validate_split_and_compare():
    import jsonschema
    schema = json.load(open(os.path.join(ROOT, "results", "schema.json")))
    doc = two_device_doc(1.10)
    jsonschema.validate(doc, schema)
    parts = smem_results.split_devices(smem_results.parse(json.dumps(doc)))
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
def slurm_script_gathers_compares_and_plots():
    """The batch script with a stand-in srun (runs the task once, as on a one-node allocation)
    and a stand-in smembench (writes a several-device file)."""
    with tempfile.TemporaryDirectory() as d:
        fake_bin = os.path.join(d, "bin")
        os.mkdir(fake_bin)
        src = os.path.join(d, "fixture.json")
        json.dump(two_device_doc(1.0), open(src, "w"))
        with open(os.path.join(fake_bin, "srun"), "w") as f:
            f.write('#!/bin/bash\nwhile [[ $1 == --* ]]; do shift; done\nexec "$@"\n')
        exe = os.path.join(d, "smembench")
        with open(exe, "w") as f:
            f.write(f'#!/bin/bash\nwhile [ $# -gt 0 ]; do [ "$1" = -o ] && cp {src} "$2"; shift; done\n')
        for f in (exe, os.path.join(fake_bin, "srun")):
            os.chmod(f, 0o755)
        os.symlink(sys.executable, os.path.join(fake_bin, "python3"))   # the Python that has matplotlib
        env = dict(os.environ, PATH=fake_bin + os.pathsep + os.environ["PATH"], SMEMBENCH=exe,
                   OUTDIR=os.path.join(d, "out"), SLURM_SUBMIT_DIR=ROOT)
        p = subprocess.run(["bash", os.path.join(ROOT, "scripts", "slurm", "smembench.sbatch")], env=env,
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stdout + p.stderr
        assert "1 node files" in p.stdout, p.stdout
        assert os.path.exists(os.path.join(d, "out", "plots")), os.listdir(os.path.join(d, "out"))


def hopper_doc():
    """A made-up cluster + staging file (the shape a run writes, numbers chosen by hand) from a real file."""
    doc = copy.deepcopy(smem_results.load(a_result()))
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
    assert smem_results.staging_smallest(doc) == {("staging_plain", 16): None, ("staging_cp_async", 16): 16384,
                                                  ("staging_bulk", None): 8192}
    assert smem_results.staging_smallest(doc, 50) == {("staging_plain", 16): 1024, ("staging_cp_async", 16): 1024,
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


def main():
    print(f"1..{len(TESTS)}")
    failed = 0
    for i, t in enumerate(TESTS, 1):
        try:
            t()
            print(f"ok {i} - {t.__name__}")
        except Exception as e:  # noqa: BLE001 - every failure is reported, not raised
            failed += 1
            print(f"not ok {i} - {t.__name__}: {type(e).__name__}: {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
