"""smembench --kernel's inputs and what it writes from them, without a GPU (issue 53): -o over any of
the run's own inputs, non-UTF-8 bytes round-tripped to a file every reader loads, a broken
description's exit status in the no-GPU fallback (2, as with --predict), no temporary left by a
signal at any moment (SIGKILL too), a hung cuobjdump bounded, a damaged cubin, a FIFO as --launch,
fill and reference files of the wrong size in predict mode, integers written exactly, and a closed
or full stdout.

usage: test_kernel_inputs.py SMEMBENCH FAULTY_CUBIN CUBIN_KERNELS_CUBIN CUBIN_KERNELS_PTX"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import tap
from tap import Skip, test

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DRIVER = os.path.abspath(sys.argv[1])
CUBIN = os.path.abspath(sys.argv[2])            # faulty.cu for sm_90: scale(x, y, a, n), no shared memory
KERNELS = os.path.abspath(sys.argv[3])          # cubin_kernels.cu: tile_sum has 1 KiB static, __launch_bounds__(128)
KERNELS_PTX = os.path.abspath(sys.argv[4])
TMP = tempfile.mkdtemp(prefix="smem-kernel-inputs-")
N = 4096
SCALE = {"schema": "smembench-launch/1", "kernel": "scale", "axes": {"n": [N]},
         "launch": {"grid": "ceil(n / block)"},
         "args": [{"name": "x", "type": "f32*", "count": "n", "access": "in", "fill": {"file": "x.bin"}},
                  {"name": "y", "type": "f32*", "count": "n", "access": "out"},
                  {"name": "a", "type": "f32", "value": "2.5"},
                  {"name": "n", "type": "i32", "value": "n"}],
         "check": {"reference": {"arg": "y", "file": "y.bin"}}}
TILE_SUM = {"kernel": "tile_sum", "axes": {"n": [256]}, "launch": {"grid": "4"},
            "args": [{"name": "x", "type": "f32*", "count": "n * 4", "access": "in"},
                     {"name": "y", "type": "f32*", "count": "4", "access": "out"},
                     {"name": "n", "type": "i32", "value": "n"}]}


def run(*args, cwd=None, env=None, timeout=60):
    p = subprocess.run([DRIVER, *args], capture_output=True, timeout=timeout, cwd=cwd or TMP,
                       env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def one_line(rc, out, err, want, status=2):
    assert rc == status, f"exit {rc}, want {status}: {err}"
    lines = [line for line in err.strip().split("\n") if line and not line.startswith("Try ")]
    assert len(lines) == 1, f"want one line, got {lines}"
    assert want in lines[0], f"{want!r} not in {lines[0]!r}"
    assert not out, out


def no_gpu():
    """The fallback's cases need a machine without a GPU (with one, the run measures)."""
    rc, _, _ = run("--kernel", CUBIN, "--launch", scale_dir()[1], "--require-gpu", "--quick", "-o", "/dev/null", "-q")
    if rc != 3:
        raise Skip("a GPU is here: the no-GPU fallback is not taken")


def scale_dir(body=None, fill_bytes=N * 4, ref_bytes=N * 4):
    """A folder with a scale description, its fill file x.bin and its reference y.bin; (dir, desc)."""
    d = tempfile.mkdtemp(dir=TMP)
    with open(os.path.join(d, "x.bin"), "wb") as f:
        f.write(b"\0" * fill_bytes)
    with open(os.path.join(d, "y.bin"), "wb") as f:
        f.write(b"\0" * ref_bytes)
    path = os.path.join(d, "d.json")
    with open(path, "w") as f:
        json.dump(body or SCALE, f)
    return d, path


def content(path):
    with open(path, "rb") as f:
        return f.read()


@test
def output_over_every_input_is_refused_even_with_force():
    d, desc = scale_dir()
    code = os.path.join(d, "k.cubin")
    shutil.copy(CUBIN, code)
    for name, target in (("desc-link.json", "d.json"), ("code-link.json", "k.cubin"), ("fill-link.json", "x.bin")):
        os.symlink(target, os.path.join(d, name))
    os.link(desc, os.path.join(d, "hard.json"))
    cases = (("d.json", "the launch description"), ("k.cubin", "the kernel's cubin file"),
             ("x.bin", "the fill file of argument x"), ("y.bin", "the reference file"),
             ("desc-link.json", "the launch description"), ("code-link.json", "the kernel's cubin file"),
             ("fill-link.json", "the fill file of argument x"), ("hard.json", "the launch description"),
             (os.path.join("..", os.path.basename(d), "d.json"), "the launch description"))
    before = {n: content(os.path.join(d, n)) for n in ("d.json", "k.cubin", "x.bin", "y.bin")}
    for out, what in cases:
        for force in (["--force"], []):
            rc, o, err = run("--kernel", "k.cubin", "--launch", "d.json", "--predict", "h200", "-q", "-o", out, *force,
                             cwd=d)
            if force:
                one_line(rc, o, err, f"-o {out} is {what} of this run")
                assert "never replaced, even with --force" in err, err
            else:
                assert rc == 2, (out, rc, err)
    assert {n: content(os.path.join(d, n)) for n in before} == before, "an input was changed"
    assert os.path.islink(os.path.join(d, "desc-link.json"))
    # the PTX of --kernel, and a file that is no input, are told apart
    ptx = os.path.join(d, "k.ptx")
    shutil.copy(KERNELS_PTX, ptx)
    tile = os.path.join(d, "tile.json")
    json.dump(TILE_SUM, open(tile, "w"))
    one_line(*run("--kernel", ptx, "--launch", tile, "--predict", "h200", "-q", "-o", ptx, "--force"),
             "is the kernel's ptx file of this run")
    open(os.path.join(d, "old.json"), "w").write("{}")
    rc, _, err = run("--kernel", "k.cubin", "--launch", "d.json", "--predict", "h200", "-q", "-o", "old.json",
                     "--force", cwd=d)
    assert rc == 0 and json.load(open(os.path.join(d, "old.json")))["kernel"]["function"] == "scale", err
    shutil.rmtree(d)


def load_everywhere(path):
    """The file as strict UTF-8 JSON, through python3's json and through smembench's reader."""
    text = content(path).decode("utf-8")   # strict: raises on any invalid byte
    doc = json.loads(text)
    p = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import smembench; "
                        "print(len(smembench.load(sys.argv[2])))", os.path.join(ROOT, "python"), path],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and int(p.stdout) > 0, p.stderr[-2000:]
    return doc


@test
def non_utf8_bytes_become_u_fffd_and_every_reader_loads_the_file():
    d = tempfile.mkdtemp(dir=TMP).encode()
    sub = os.path.join(d, b"fill\xfd")
    os.mkdir(sub)
    with open(os.path.join(sub, b"x\xff.bin"), "wb") as f:
        f.write(b"\0" * N * 4)
    shutil.copy(CUBIN, os.path.join(d, b"k\xff\xfe.cubin"))
    body = json.dumps(dict(SCALE, summary="SUMMARY", check={}), ensure_ascii=True).encode()
    body = body.replace(b'"SUMMARY"', b'"scale \xc3\x28 \xed\xa0\x80 \xf8 end"')   # bad 2-byte, a surrogate, 0xf8
    body = body.replace(b'"x.bin"', b'"fill\xfd/x\xff.bin"')
    with open(os.path.join(d, b"d\xfc.json"), "wb") as f:
        f.write(body)
    out = os.path.join(d, b"out.json")
    p = subprocess.run([DRIVER.encode(), b"--kernel", b"k\xff\xfe.cubin", b"--launch", b"d\xfc.json", b"--predict",
                        b"h200", b"-q", b"-o", out, b"--axis", b"n=" + str(N).encode()], cwd=d, capture_output=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    assert b"not UTF-8: written as U+FFFD" in p.stderr, p.stderr
    doc = load_everywhere(out.decode(errors="surrogateescape"))
    k = doc["kernel"]
    assert k["file"] == "k\ufffd\ufffd.cubin", k["file"]
    summary = k["description"]["summary"]
    assert summary.startswith("scale \ufffd( ") and summary.endswith(" \ufffd end"), summary
    assert k["description_file"] == "d\ufffd.json", k["description_file"]
    assert k["description"]["args"][0]["fill"]["file"] == "fill\ufffd/x\ufffd.bin", k["description"]["args"][0]
    assert "\ufffd" in json.dumps(doc["run"], ensure_ascii=False), "the command line is in run"
    shutil.rmtree(d)


@test
def a_broken_description_without_a_gpu_exits_2_as_with_predict():
    no_gpu()
    d = tempfile.mkdtemp(dir=TMP)
    scale = dict(SCALE, args=SCALE["args"][:1] + SCALE["args"][1:], check={})
    scale["args"][0] = dict(scale["args"][0], fill="random")
    cases = ((CUBIN, dict(scale, launch={"grid": "n / 3.3"}), "not an integer"),
             (CUBIN, dict(scale, launch={"grid": "n - 2 * n"}), "grid"),
             (CUBIN, dict(scale, launch={"grid": "ceil(n / block)", "dynamic_smem": "2 ^ 40"}), "dynamic_smem"),
             (CUBIN, dict(scale, launch={"grid": "ceil(n / block)", "dynamic_smem": "1099511627776"}), "dynamic_smem"),
             (KERNELS, dict(TILE_SUM, defaults={"block": 256}), "exceeds tile_sum's 128"))
    for code, body, want in cases:
        path = os.path.join(d, "d.json")
        json.dump(body, open(path, "w"))
        fallback = run("--kernel", code, "--launch", path, "-q", "-o", os.path.join(d, "o.json"))
        predict = run("--kernel", code, "--launch", path, "-q", "-o", os.path.join(d, "o.json"), "--predict", "h200")
        one_line(*predict, want)
        one_line(*fallback, want)
        assert not os.path.exists(os.path.join(d, "o.json"))
    shutil.rmtree(d)


def killed_at(args, sig, delay_s, tmpdir, cwd, env=None, marker=None):
    """The driver started with TMPDIR=tmpdir in cwd, sent sig delay_s after it started (marker: after
    that file appeared, when the slowed cuobjdump began); its status."""
    p = subprocess.Popen([DRIVER, *args], cwd=cwd, env=dict(os.environ, TMPDIR=tmpdir, **(env or {})),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if marker:
        t0 = time.monotonic()
        while not os.path.exists(marker) and p.poll() is None and time.monotonic() - t0 < 30:
            time.sleep(0.002)
        assert os.path.exists(marker), "the slowed cuobjdump never started"
        os.unlink(marker)
    time.sleep(delay_s)
    p.send_signal(sig)
    return p.wait(timeout=60)


@test
def a_signal_while_the_file_is_read_leaves_no_temporary():
    d = tempfile.mkdtemp(dir=TMP)
    tmpdir, cwd, home = os.path.join(d, "tmp"), os.path.join(d, "cwd"), os.path.join(d, "cuda")
    for x in (tmpdir, cwd, os.path.join(home, "bin")):
        os.makedirs(x)
    real = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    marker = os.path.join(d, "started")
    # cuobjdump slowed down, and saying when it starts: each signal lands while it reads the file
    with open(os.path.join(home, "bin", "cuobjdump"), "w") as f:
        f.write(f"#!/bin/sh\n: > {marker}\nsleep 0.2\nexec {real} \"$@\"\n")
    os.chmod(os.path.join(home, "bin", "cuobjdump"), 0o755)
    tile = os.path.join(d, "tile.json")
    json.dump(TILE_SUM, open(tile, "w"))
    scale = os.path.join(ROOT, "tests", "kernel", "scale.json")
    signals = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGKILL)
    runs = [(CUBIN, scale, sig, delay, True) for sig in signals for delay in (0.02, 0.1)]
    runs += [(KERNELS_PTX, tile, sig, 0.05, True) for sig in signals]           # ptxas's cubin too
    runs += [(CUBIN, scale, signal.SIGTERM, delay, False) for delay in (0.06, 0.09, 0.12)]   # the real one
    for code, launch, sig, delay, slowed in runs:
        status = killed_at(["--kernel", code, "--launch", launch, "--predict", "h200", "-q"], sig, delay, tmpdir, cwd,
                           env={"CUDA_HOME": home} if slowed else None, marker=marker if slowed else None)
        assert not slowed or status == -sig, (code, sig, delay, status)
        assert os.listdir(tmpdir) == [], (code, sig, delay, os.listdir(tmpdir))
        assert os.listdir(cwd) == [] or status == 0, (code, sig, delay, os.listdir(cwd))
        for f in os.listdir(cwd):
            os.unlink(os.path.join(cwd, f))
    shutil.rmtree(d)


@test
def a_hung_cuobjdump_is_stopped_within_the_bound():
    d = tempfile.mkdtemp(dir=TMP)
    os.mkdir(os.path.join(d, "bin"))
    fake = os.path.join(d, "bin", "cuobjdump")
    pidfile = os.path.join(d, "pid")
    with open(fake, "w") as f:
        f.write(f"#!/bin/sh\necho $$ > {pidfile}\nexec sleep 300\n")
    os.chmod(fake, 0o755)
    env = {"CUDA_HOME": d}   # $CUDA_HOME/bin comes first
    t0 = time.monotonic()
    one_line(*run("--kernel", CUBIN, "--list", env=dict(env, SMEMBENCH_TOOL_TIMEOUT="1")),
             "cuobjdump did not finish within 1 s on ")
    took = time.monotonic() - t0
    assert took < 8, f"{took:.1f} s"
    pid = int(open(pidfile).read())
    time.sleep(0.2)
    try:
        os.kill(pid, 0)
        raise AssertionError(f"the hung cuobjdump {pid} still runs")
    except ProcessLookupError:
        pass
    one_line(*run("--kernel", CUBIN, "--list", env=dict(env, SMEMBENCH_TOOL_TIMEOUT="soon")),
             "invalid value \"soon\" for SMEMBENCH_TOOL_TIMEOUT")
    shutil.rmtree(d)


def elf_sections(data):
    """(offset, size) of each section of a 64-bit little-endian ELF, and the index of .shstrtab."""
    shoff = int.from_bytes(data[0x28:0x30], "little")
    shentsize, shnum, shstrndx = (int.from_bytes(data[o:o + 2], "little") for o in (0x3a, 0x3c, 0x3e))
    secs = []
    for i in range(shnum):
        h = data[shoff + i * shentsize:shoff + (i + 1) * shentsize]
        secs.append((int.from_bytes(h[0x18:0x20], "little"), int.from_bytes(h[0x20:0x28], "little")))
    return secs, shstrndx


@test
def a_damaged_cubin_is_not_read_as_no_shared_memory():
    data = bytearray(content(KERNELS))
    secs, shstrndx = elf_sections(data)
    off, size = secs[shstrndx]
    at = data.find(b".nv.shared.tile_sum", off, off + size)
    assert at >= 0, "no .nv.shared.tile_sum among the section names"
    data[at + 5] = ord("x")   # .nv.sxared.tile_sum: the section is no longer the function's
    bad = os.path.join(TMP, "damaged.cubin")
    open(bad, "wb").write(bytes(data))
    one_line(*run("--kernel", bad, "--list"), "damaged.cubin is damaged")
    tile = os.path.join(TMP, "tile.json")
    json.dump(TILE_SUM, open(tile, "w"))
    one_line(*run("--kernel", bad, "--launch", tile, "--predict", "h200", "-q", "-o", "/dev/null"), "is damaged")
    rc, out, err = run("--kernel", KERNELS, "--list")
    assert rc == 0 and "static shared memory 1024 bytes, local 0 bytes, max threads per block 128" in out, err
    os.unlink(bad)


@test
def a_fifo_as_launch_is_refused_without_blocking():
    fifo = os.path.join(TMP, "launch.json")
    os.mkfifo(fifo)
    one_line(*run("--kernel", CUBIN, "--launch", fifo, timeout=10), "is a FIFO, not a launch description")
    one_line(*run("--kernel", CUBIN, "--launch", TMP, timeout=10), "is a directory, not a launch description")
    one_line(*run("--kernel", fifo, "--list", timeout=10), "not a regular file")
    os.unlink(fifo)


@test
def predict_mode_refuses_fill_and_reference_files_of_the_wrong_size():
    for fill, ref, want in ((100, N * 4, "the fill file of args[0] \"x\""), (N * 4, N * 4 + 4, "the reference file")):
        d, desc = scale_dir(fill_bytes=fill, ref_bytes=ref)
        one_line(*run("--kernel", CUBIN, "--launch", desc, "--predict", "h200", "-q", "-o", os.path.join(d, "o.json")),
                 want)
        assert not os.path.exists(os.path.join(d, "o.json"))
        shutil.rmtree(d)
    d, desc = scale_dir()
    rc, _, err = run("--kernel", CUBIN, "--launch", desc, "--predict", "h200", "-q", "-o", os.path.join(d, "o.json"))
    assert rc == 0, err
    shutil.rmtree(d)


@test
def integers_are_written_digit_for_digit():
    d = tempfile.mkdtemp(dir=TMP)
    body = dict(SCALE, axes={"n": [N], "tag": [1]}, check={})
    body["args"] = [dict(SCALE["args"][0], fill="random")] + SCALE["args"][1:]
    desc = os.path.join(d, "d.json")
    json.dump(body, open(desc, "w"))
    out = os.path.join(d, "o.json")
    big = 123456789012345678   # not a double: 15 or 17 significant digits would change it
    rc, _, err = run("--kernel", CUBIN, "--launch", desc, "--predict", "h200", "-q", "-o", out, "--sweep", "carveout",
                     "--axis", f"tag={big}", "--seed", "9223372036854775807")
    assert rc == 0, err
    text = content(out).decode()
    assert f'"tag":\t{big}' in text or f'"tag": {big}' in text, [x for x in text.split("\n") if "tag" in x][:2]
    doc = json.loads(text)
    assert {r["params"]["tag"] for r in doc["results"]} == {big}
    assert doc["run"]["settings"]["seed"] == 9223372036854775807, doc["run"]["settings"]["seed"]
    assert "e+" not in text.split('"kernel"')[0], "a number in exponent form"
    shutil.rmtree(d)


@test
def a_closed_or_full_stdout_exits_1_as_help_says():
    rc, out, err = run("--help")
    assert rc == 0 and "could not be written (a closed or full stdout too)" in " ".join(out.split()), out[-600:]
    for args in (["--help"], ["--version"], ["--list"], ["--list", "--json"], ["--predict", "list"],
                 ["--kernel", CUBIN, "--list"]):
        with open("/dev/full", "w") as full:
            p = subprocess.run([DRIVER, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
        lines = p.stderr.strip().splitlines()
        assert p.returncode == 1 and lines == ["smembench: cannot write to stdout: No space left on device"], (args, p)
        p = subprocess.run([DRIVER, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=60,
                           preexec_fn=lambda: os.close(1))
        assert p.returncode == 1 and p.stderr.strip() == "smembench: cannot write to stdout: it is closed", (args, p)


if __name__ == "__main__":
    sys.exit(tap.run(lambda: shutil.rmtree(TMP, ignore_errors=True)))
