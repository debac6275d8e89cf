#!/usr/bin/env python3
"""Tests of the build every result file records (TAP): tool.build (the device code the binary
carries, PTX only or not, nvcc, the build type) and device.kernel_code (how the device ran the
built-in kernels) are written by the program and accepted by the schema; a PTX-JIT file and a
native one of the same GPU read apart in figure labels, the gate's header and the report's file
table; an older file says it did not record one; a value the schema does not know is refused.

  test_build_record.py SMEMBENCH   the program, to write a predict-mode file
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
import tap  # noqa: E402
from tap import Skip, test  # noqa: E402
from smembench import gate_format  # noqa: E402
from smembench import reader  # noqa: E402
from smembench import series as series_mod  # noqa: E402

SMEMBENCH = sys.argv[1] if len(sys.argv) > 1 else None
# an H200 file from before builds were recorded
OLD = os.path.join(ROOT, "results", "nvidia-h200_20261129_carveout.json")


def as_built(doc, gpu_code, kernel_code):
    d = copy.deepcopy(doc)
    d["tool"]["build"] = {"gpu_code": gpu_code, "ptx_only": not any(c.startswith("sm_") for c in gpu_code),
                          "nvcc": "13.0.88", "buildtype": "release"}
    d["device"]["kernel_code"] = kernel_code
    return d


def pair():
    old = reader.load(OLD)
    native = as_built(old, ["sm_90"], "sass")
    ptx = as_built(old, ["compute_80"], "ptx_jit")
    for d in (native, ptx):
        reader.check(d)
    return old, native, ptx


@test
def the_program_records_its_build():
    if not SMEMBENCH:
        raise Skip("no smembench program given")
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "p.json")
        p = subprocess.run([SMEMBENCH, "--predict", "h100", "--sweep", "carveout", "-q", "-o", f],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        doc = reader.load(f)
    b = doc["tool"]["build"]
    assert set(b) == {"gpu_code", "ptx_only", "nvcc", "buildtype"}, b
    assert b["buildtype"] and isinstance(b["gpu_code"], list), b
    # PTX only exactly when no cubin is carried; a build without CUDA carries no device code and no nvcc
    assert b["ptx_only"] == (bool(b["gpu_code"]) and not any(c.startswith("sm_") for c in b["gpu_code"])), b
    assert (b["nvcc"] is None) == (not b["gpu_code"]), b
    assert doc["device"]["kernel_code"] is None, "a model runs no kernel"
    assert "; ran" not in reader.build_text(doc), reader.build_text(doc)


@test
def a_ptx_jit_file_and_a_native_one_read_apart():
    old, native, ptx = pair()
    assert reader.code_label(native) == "cubin (sm_90)"
    assert reader.code_label(ptx) == "PTX JIT (compute_80)"
    assert reader.build_text(ptx) == "compute_80 (PTX only), nvcc 13.0.88, release; ran PTX JIT-compiled by the driver"
    assert reader.build_text(native) == "sm_90, nvcc 13.0.88, release; ran its cubin"
    assert reader.build_text(old).startswith("not recorded"), reader.build_text(old)
    # in a figure: the two series of one GPU, one commit, one day are labelled by how the kernels ran
    labels = [s.label for s in series_mod.relabel([series_mod.Series(native, "a.json"),
                                                   series_mod.Series(ptx, "b.json")])]
    assert len(set(labels)) == 2, labels
    assert labels[0].endswith("cubin (sm_90)") and labels[1].endswith("PTX JIT (compute_80)"), labels
    # the gate's header names both builds
    rows = gate_format.header(["a.json", "b.json"], [native, ptx], True)
    build = [r for r in rows if r.startswith("| build |")]
    assert len(build) == 1 and "PTX only" in build[0] and "ran its cubin" in build[0], rows


@test
def the_report_names_each_files_build():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise Skip("matplotlib missing: the report cannot be made") from None
    _, native, ptx = pair()
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for name, doc in (("native.json", native), ("ptx.json", ptx)):
            paths.append(os.path.join(d, name))
            with open(paths[-1], "w") as f:
                json.dump(doc, f)
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "report.py"), *paths, "-o",
                            os.path.join(d, "out")], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        page = open(os.path.join(d, "out", "index.html"), encoding="utf-8").read()
    assert "<th" in page and ">build<" in page, "the file table has a build column"
    assert "ran PTX JIT-compiled by the driver" in page and "ran its cubin" in page


def refused(doc, field):
    """Whether reader.check refuses doc, naming field."""
    try:
        reader.check(doc)
    except reader.ResultError as e:
        assert field in str(e), e
        return True
    return False


@test
def an_unknown_code_path_is_refused():
    _, native, _ = pair()
    bad = copy.deepcopy(native)
    bad["device"]["kernel_code"] = "jit"
    assert refused(bad, "kernel_code"), "a kernel_code outside the schema's enum was accepted"
    bad = copy.deepcopy(native)
    bad["tool"]["build"]["gpu_code"] = ["sm90"]
    assert refused(bad, "gpu_code"), "a gpu_code entry outside the schema's pattern was accepted"


@test
def the_dataframe_has_the_build_columns():
    """The real H200 files of one binary run from its cubin and JIT-compiled (results/contract/),
    beside a file from before builds were recorded: the frame's build columns tell them apart."""
    try:
        import pandas
    except ImportError:
        raise Skip("no pandas")
    import smembench
    sass = os.path.join(ROOT, "results", "contract", "nvidia-h200_20261202_bandwidth-latency_37a9db0_sass.json")
    jit = os.path.join(ROOT, "results", "contract", "nvidia-h200_20261202_bandwidth-latency_37a9db0_jit.json")
    df = smembench.to_dataframe([sass, jit, OLD])
    by_file = df.groupby("file", observed=True)
    for f, doc in ((sass, reader.load(sass)), (jit, reader.load(jit))):
        rows = by_file.get_group(f)
        b = doc["tool"]["build"]
        assert set(rows["build_gpu_code"].astype(str)) == {",".join(b["gpu_code"])}, set(rows["build_gpu_code"])
        assert set(rows["build_nvcc"]) == {b["nvcc"]} and set(rows["build_type"].astype(str)) == {b["buildtype"]}
        assert list(rows["build_ptx_only"].unique()) == [b["ptx_only"]], rows["build_ptx_only"].unique()
        assert set(rows["kernel_code"].astype(str)) == {doc["device"]["kernel_code"]}, set(rows["kernel_code"])
    assert set(by_file.get_group(sass)["kernel_code"].astype(str)) == {"sass"}
    assert set(by_file.get_group(jit)["kernel_code"].astype(str)) == {"ptx_jit"}
    old = by_file.get_group(OLD)
    for c in ("build_gpu_code", "build_ptx_only", "build_nvcc", "build_type", "kernel_code"):
        assert old[c].isna().all(), f"{c} of a file that recorded no build: {set(old[c])}"
    assert str(df["build_gpu_code"].dtype) == "category" and str(df["kernel_code"].dtype) == "category"
    assert str(df["build_ptx_only"].dtype) == "boolean" and str(df["build_type"].dtype) == "category"
    # the point of the columns: one pivot puts the cubin and the JIT run of each point side by side
    piv = df[df["kernel_code"].notna()].pivot_table(index="point", columns="kernel_code", values="time_median",
                                                     observed=True, aggfunc="first")
    assert set(piv.columns) == {"sass", "ptx_jit"} and len(piv) == len(reader.load(sass)["results"]), piv.shape


def main():
    return tap.run()


if __name__ == "__main__":
    sys.exit(main())
