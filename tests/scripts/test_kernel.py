"""smembench --kernel: a user's kernel from a cubin, fatbin or PTX file with a launch description.

Without a GPU: the bad inputs (each one line, exit 2, nothing written), --list and predict mode from
the file's own resources. With one: the example kernels swept and verified, the planted race named,
a hang stopped by the watchdog with the points before it kept, a faulting kernel recorded.

usage: test_kernel.py SMEMBENCH EXAMPLES_BUILD_DIR TEST_KERNELS_FATBIN TEST_KERNELS_CUBIN"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import tap
from tap import Skip, test

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DRIVER = os.path.abspath(sys.argv[1])
EXAMPLES = os.path.abspath(sys.argv[2])
FAULTY = os.path.abspath(sys.argv[3])
FAULTY_CUBIN = os.path.abspath(sys.argv[4])
DESCS = os.path.join(ROOT, "tests", "kernel")
TMP = tempfile.mkdtemp(prefix="smem-kernel-")


def run(*args, timeout=300):
    p = subprocess.run([DRIVER, *args], capture_output=True, text=True, timeout=timeout, cwd=TMP)
    return p.returncode, p.stdout, p.stderr


def gpu():
    """Whether this machine has a GPU the driver can measure on."""
    if not hasattr(gpu, "have"):
        rc, _, _ = run("--kernel", FAULTY, "--launch", os.path.join(DESCS, "scale.json"), "--require-gpu",
                       "--quick", "--sweep", "carveout", "--axis", "carveout_pct=-1", "-o", "/dev/null", "-q")
        gpu.have = rc != 3
    return gpu.have


def one_line_error(rc, out, err, want, status=2):
    assert rc == status, f"exit {rc}, want {status}: {err}"
    lines = [line for line in err.strip().split("\n") if line and not line.startswith("Try ")]
    assert len(lines) == 1, f"want one line, got {lines}"
    assert want in lines[0], f"{want!r} not in {lines[0]!r}"
    assert not out, out
    assert not [f for f in os.listdir(TMP) if f.endswith(".json")], os.listdir(TMP)


def desc(tmp, body, name="d.json"):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump(body, f)
    return path


SCALE = {"schema": "smembench-launch/1", "kernel": "scale", "axes": {"n": [4096]},
         "launch": {"grid": "ceil(n / block)"},
         "args": [{"name": "x", "type": "f32*", "count": "n", "access": "in", "fill": "random"},
                  {"name": "y", "type": "f32*", "count": "n", "access": "out"},
                  {"name": "a", "type": "f32", "value": "2.5"},
                  {"name": "n", "type": "i32", "value": "n"}]}


@test
def not_a_code_file():
    path = desc(TMP, {"x": 1}, "notcode.bin")
    one_line_error(*run("--kernel", path, "--launch", os.path.join(DESCS, "scale.json")), "is not a cubin, fatbin or PTX")
    os.unlink(path)


@test
def launch_missing():
    one_line_error(*run("--kernel", FAULTY), "needs --launch")


@test
def launch_without_kernel():
    one_line_error(*run("--launch", os.path.join(DESCS, "scale.json")), "--kernel FILE")


@test
def bad_description_names_the_field():
    d = tempfile.mkdtemp(dir=TMP)
    body = json.loads(json.dumps(SCALE))
    body["args"][0]["type"] = "float*"
    one_line_error(*run("--kernel", FAULTY, "--launch", desc(d, body)), "args[0].type")
    shutil.rmtree(d)


@test
def unknown_sweep_and_axis():
    one_line_error(*run("--kernel", FAULTY, "--launch", os.path.join(DESCS, "scale.json"), "--sweep", "tile"),
                   "unknown sweep \"tile\" for a user kernel")
    one_line_error(*run("--kernel", FAULTY, "--launch", os.path.join(DESCS, "scale.json"), "--axis", "m=1"),
                   "unknown axis \"m\"")


@test
def one_device_only():
    one_line_error(*run("--kernel", FAULTY, "--launch", os.path.join(DESCS, "scale.json"), "--device", "all"),
                   "--kernel runs on one device")
    one_line_error(*run("--kernel", FAULTY, "--launch", os.path.join(DESCS, "scale.json"), "--device", "0,1"),
                   "--kernel runs on one device")


@test
def kernel_not_in_file():
    d = tempfile.mkdtemp(dir=TMP)
    body = dict(SCALE, kernel="scal")
    one_line_error(*run("--kernel", FAULTY_CUBIN, "--launch", desc(d, body), "--predict", "h100"),
                   "has no kernel \"scal\"; its kernels:")
    shutil.rmtree(d)


@test
def argument_count_and_size_checked_against_the_file():
    d = tempfile.mkdtemp(dir=TMP)
    body = json.loads(json.dumps(SCALE))
    body["args"] = body["args"][:3]
    one_line_error(*run("--kernel", FAULTY_CUBIN, "--launch", desc(d, body), "--predict", "h100"),
                   "3 arguments for scale, which takes 4 parameters")
    body = json.loads(json.dumps(SCALE))
    body["args"][3]["type"] = "i64"
    one_line_error(*run("--kernel", FAULTY_CUBIN, "--launch", desc(d, body), "--predict", "h100"),
                   "args[3] \"n\" is i64 (8 bytes) but parameter 3 of scale is 4 bytes")
    shutil.rmtree(d)


@test
def list_without_gpu_reads_the_file():
    if gpu():
        raise Skip("a GPU is here: --list asks the driver (checked on the GPU below)")
    rc, out, err = run("--kernel", FAULTY_CUBIN, "--list")
    assert rc == 0, err
    for name in ("spin_forever", "write_null", "scale"):
        assert name in out, out
    assert "parameters: 0:8B@0 1:8B@8 2:4B@16 3:4B@20" in out, out


@test
def predict_mode_for_a_cubin():
    out_path = os.path.join(TMP, "predict.json")
    rc, out, err = run("--kernel", FAULTY_CUBIN, "--launch", os.path.join(DESCS, "scale.json"), "--predict", "h100",
                       "--sweep", "carveout,dynamic,block", "-o", out_path)
    assert rc == 0, err
    doc = json.load(open(out_path))
    os.unlink(out_path)
    k = doc["kernel"]
    assert k["function"] == "scale" and k["kind"] == "cubin" and len(k["sha256"]) == 64, k
    assert k["resources"]["regs"] > 0 and [p["size"] for p in k["resources"]["params"]] == [8, 8, 4, 4], k
    rs = doc["results"]
    assert {r["sweep"] for r in rs} == {"carveout", "dynamic", "block"}
    assert all(r["bench"] == "scale" and r["status"] in ("predicted", "skipped") for r in rs)
    # the staircase: more dynamic shared memory, fewer blocks per SM, down to 1 at the ceiling
    dyn = sorted((r["params"]["dyn_smem_bytes"], r["occupancy"]["predicted"]) for r in rs
                 if r["sweep"] == "dynamic" and r["status"] == "predicted")
    blocks = [b for _, b in dyn]
    assert blocks == sorted(blocks, reverse=True) and blocks[-1] == 1 and blocks[0] > 1, dyn
    assert dyn[-1][0] == 227 * 1024, dyn[-1]


@test
def predict_mode_for_every_built_in_model():
    rc, out, err = run("--predict", "list")
    assert rc == 0, err
    models = [line.split()[0] for line in out.split("\n")[1:] if line.startswith("  ") and line.split()]
    assert len(models) >= 4, out
    predicted = 0
    for m in models:
        out_path = os.path.join(TMP, m + ".json")
        rc, _, err = run("--kernel", FAULTY, "--launch", os.path.join(DESCS, "scale.json"), "--predict", m,
                         "-o", out_path, "-q")
        if rc == 2 and "cannot run it" in err:
            continue   # this build's fatbin holds no code for the model's generation: said in one line
        assert rc == 0, (m, err)
        doc = json.load(open(out_path))
        os.unlink(out_path)
        assert doc["run"]["mode"] == "predict" and doc["device"]["name"].endswith("(model)"), m
        assert any(r["status"] == "predicted" for r in doc["results"]), m
        predicted += 1
    assert predicted >= 1, "no model predicted"


@test
def examples_predict():
    for name in ("row_softmax", "histogram", "stencil2d", "coresident_race"):
        code = os.path.join(EXAMPLES, name + ".cubin")
        launch = os.path.join(EXAMPLES, name + ".json")
        if not os.path.exists(code):
            raise AssertionError(f"{code} was not built")
        out_path = os.path.join(TMP, name + ".json")
        rc, out, err = run("--kernel", code, "--launch", launch, "--predict", "h200", "-o", out_path, "-q")
        assert rc == 0, (name, err)
        doc = json.load(open(out_path))
        os.unlink(out_path)
        assert doc["kernel"]["function"] == json.load(open(launch))["kernel"] and doc["results"], name


# ---- on a GPU ----------------------------------------------------------------------------------

def need_gpu():
    if not gpu():
        raise Skip("no GPU: the driver falls back to predict mode, checked above")


def measure(code, launch, *extra, status=0, timeout=600):
    out_path = os.path.join(TMP, "m.json")
    if os.path.exists(out_path):
        os.unlink(out_path)
    t0 = time.time()
    rc, out, err = run("--kernel", code, "--launch", launch, "--require-gpu", "-o", out_path, *extra, timeout=timeout)
    assert rc == status, f"exit {rc}, want {status}: {err[-2000:]}"
    doc = json.load(open(out_path))
    return doc, err, time.time() - t0


@test
def gpu_list_asks_the_driver():
    need_gpu()
    rc, out, err = run("--kernel", FAULTY, "--list")
    assert rc == 0, err
    assert "(driver)" in out and "parameters: 0:8B@0 1:8B@8 2:4B@16 3:4B@20" in out, out


@test
def gpu_scale_every_sweep_verified():
    need_gpu()
    doc, err, _ = measure(FAULTY, os.path.join(DESCS, "scale.json"), "--quick", "--sweep", "all")
    rs = doc["results"]
    ran = [r for r in rs if r["status"] == "ok"]
    assert len(ran) >= 20 and all(r["verified"] for r in ran), [(r["params"], r["status"], r["reason"]) for r in rs]
    assert {r["sweep"] for r in ran} >= {"carveout", "dynamic", "block", "cluster"}
    assert all(r["occupancy"]["measured"] >= 1 for r in ran if r["sweep"] == "dynamic"), "residency measured"
    v = doc["kernel"]["verification"]
    assert v["mismatches"] == 0 and v["configurations"] == len(ran), v


@test
def gpu_race_is_named():
    need_gpu()
    code = os.path.join(EXAMPLES, "coresident_race.fatbin")
    doc, err, _ = measure(code, os.path.join(EXAMPLES, "coresident_race.json"), "--quick", "--sweep", "dynamic",
                          status=1)
    bad = [r for r in doc["results"] if r["status"] == "failed"]
    good = [r for r in doc["results"] if r["status"] == "ok"]
    assert bad and good, [(r["params"], r["status"]) for r in doc["results"]]
    assert all("race" in r["reason"] for r in bad), bad[0]["reason"]
    assert doc["kernel"]["verification"]["mismatches"] == len(bad)


@test
def gpu_hang_stopped_by_the_watchdog():
    need_gpu()
    doc, err, took = measure(FAULTY, os.path.join(DESCS, "spin_forever.json"), "--watchdog", "2", "--quick",
                             "--sweep", "carveout", status=1, timeout=120)
    assert "hung" in err and took < 60, (err, took)
    assert any("did not finish within 2 s" in (r["reason"] or "") for r in doc["results"]), doc["results"]


@test
def gpu_fault_recorded():
    need_gpu()
    doc, err, _ = measure(FAULTY, os.path.join(DESCS, "write_null.json"), "--quick", "--sweep", "carveout", status=1)
    assert doc["results"] and doc["results"][0]["status"] == "failed", doc["results"][:1]
    assert "cudaErrorIllegalAddress" in (doc["results"][0]["reason"] or "") or "illegal" in err.lower(), err


@test
def gpu_launch_refused_is_the_points_error():
    need_gpu()
    # without the opt-in's first step the device refuses every launch above 48 KiB: those points
    # record the launch error, the others run
    doc, err, _ = measure(FAULTY, os.path.join(DESCS, "scale.json"), "--quick", "--sweep", "dynamic", "--no-optin",
                          status=1)
    rs = doc["results"]
    above = [r for r in rs if r["launch"]["dynamic_smem"] + r["launch"]["static_smem"] > 48 * 1024]
    below = [r for r in rs if r not in above]
    assert above and all(r["status"] == "failed" and "cudaErrorInvalidValue" in (r["reason"] or "") for r in above), \
        [(r["params"], r["status"], r["reason"]) for r in above]
    assert below and all(r["status"] == "ok" and r["verified"] for r in below)


@test
def gpu_buffer_too_large_is_skipped():
    need_gpu()
    d = tempfile.mkdtemp(dir=TMP)
    body = json.loads(json.dumps(SCALE))
    body["axes"] = {"n": [1024]}
    body["args"][0]["count"] = "pow(2, 45)"     # 128 TiB of floats
    doc, err, _ = measure(FAULTY, desc(d, body), "--quick", "--sweep", "carveout", "--axis", "carveout_pct=-1,50",
                          status=0)
    rs = doc["results"]
    assert rs and all(r["status"] == "skipped" and "make the counts smaller" in r["reason"] for r in rs), rs[0]
    shutil.rmtree(d)


@test
def gpu_examples_verified():
    need_gpu()
    for name in ("row_softmax", "histogram", "stencil2d"):
        doc, err, _ = measure(os.path.join(EXAMPLES, name + ".fatbin"), os.path.join(EXAMPLES, name + ".json"),
                              "--quick")
        ran = [r for r in doc["results"] if r["status"] == "ok"]
        assert ran and all(r["verified"] for r in ran), (name, err[-1000:])
        assert doc["kernel"]["verification"]["mismatches"] == 0, name


def cleanup():
    shutil.rmtree(TMP, ignore_errors=True)


sys.exit(tap.run(cleanup))
