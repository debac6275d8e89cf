#!/usr/bin/env python3
"""--counters on a GPU (TAP; exit 77 without one): hardware counters per point through CUPTI.

  test_counters_gpu.py SMEMBENCH FAKE_CUPTI [OUTDIR]

- the bank and swizzle sweeps with the default set: every point that ran has its counters, and the
  bank model's passes per request (bank: shared-load wavefronts per LDS; swizzle_ldmatrix and
  swizzle_stmatrix: their LDSM / STSM wavefronts per instruction) equal the hardware's;
- the times still come from the un-profiled samples (the counter phase is a phase of its own);
- a metric the chip does not have: one line, exit 2, no file;
- no permission to profile (a stand-in libcupti answering CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) and no
  libcupti at all: one line on stderr, every point still timed, the file saying why it has no
  counters.
"""
import json
import os
import subprocess
import sys
import tempfile

results = []
LD, LDI = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__sass_inst_executed_op_shared_ld.sum"
LDSM = ("smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum", "smsp__sass_inst_executed_op_ldsm.sum")
STSM = ("smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
        "smsp__sass_inst_executed_op_shared_stsm.sum")
MODEL = {"bank": (LD, LDI), "swizzle_ldmatrix": LDSM, "swizzle_stmatrix": STSM}
TOLERANCE = 1e-3   # relative: the kernels issue no shared access but the measured ones (tests/scripts/ncu_check.py)


def check(ok, what, detail=""):
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} {len(results)} - {what}" + (f": {detail}" if detail and not ok else ""))
    sys.stdout.flush()


def run(exe, args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=900, env=e)


def load(path):
    with open(path) as f:
        return json.load(f)


def value(point, name):
    v = ((point.get("counters") or {}).get("values") or {}).get(name)
    return v["value"] if v else None


def unavailable(exe, out, name, env, words):
    path = os.path.join(out, name + ".json")
    p = run(exe, ["--bench", "bank", "--quick", "--trials", "1", "--counters", "-o", path], env)
    lines = [l for l in p.stderr.splitlines() if not l.startswith("smembench: wrote ")]
    check(p.returncode == 0, f"{name}: the run goes on (exit 0)", p.stderr[-400:])
    check(len(lines) == 1 and words in lines[0], f"{name}: one line on stderr says why", "\n".join(lines))
    if not os.path.exists(path):
        check(False, f"{name}: the file is written")
        return
    doc = load(path)
    rc = doc["run"].get("counters") or {}
    check(rc.get("status") == "unavailable" and words in (rc.get("reason") or ""),
          f"{name}: run.counters says unavailable and why", json.dumps(rc)[:300])
    ok = [r for r in doc["results"] if r["status"] == "ok"]
    check(ok and all(r["time_ns"]["stats"]["median"] > 0 for r in ok), f"{name}: every point still timed")
    check(all((r.get("counters") or {}).get("status") == "unavailable" for r in ok),
          f"{name}: each point says it has no counters")


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    exe, fake = sys.argv[1], sys.argv[2]
    out = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="smembench-counters-")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "bank_swizzle_counters.json")
    p = run(exe, ["--sweep", "bank,swizzle", "--quick", "--trials", "1", "--require-gpu", "--counters", "-o", path])
    if p.returncode == 3:
        print(f"1..0 # SKIP no GPU: {p.stderr.strip()[:200]}")
        return 77
    with open(os.path.join(out, "bank_swizzle_counters.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    check(p.returncode == 0, "bank,swizzle --counters exits 0", p.stderr[-600:])
    doc = load(path)
    rc = doc["run"].get("counters") or {}
    check(rc.get("status") == "ok" and rc.get("passes", 0) >= 1, "run.counters: ok, with its passes", json.dumps(rc)[:400])
    check(doc["run"]["timing"]["phases_s"].get("counters", 0) > 0, "run.timing.phases_s.counters: the counter phase's time")
    ok = [r for r in doc["results"] if r["status"] == "ok"]
    missing = [f"{r['bench']} {r['params']}" for r in ok if (r.get("counters") or {}).get("status") != "ok"]
    check(ok and not missing, f"every point that ran has its counters ({len(ok)})", "; ".join(missing[:5]))
    check(all(r["time_ns"]["stats"]["median"] > 0 and r["time_ns"]["raw"] for r in ok),
          "every point's time is from its own samples")
    for bench, (wf, inst) in MODEL.items():
        pts = [r for r in ok if r["bench"] == bench]
        bad, compared = [], 0
        for r in pts:
            w, i = value(r, wf), value(r, inst)
            model = r["metrics"]["wavefronts"]["value"]
            if w is None or i is None or not i:
                bad.append(f"{r['params']}: no {wf if w is None else inst}")
                continue
            compared += 1
            if abs(w / i - model) > TOLERANCE * model:
                bad.append(f"{r['params']}: model {model:g}, counters {w / i:.4f} ({w:g} / {i:g})")
        check(pts and compared == len(pts) and not bad,
              f"{bench}: the bank model's passes equal the counters' at all {len(pts)} points", "; ".join(bad[:6]))

    bad = os.path.join(out, "unknown.json")
    p = run(exe, ["--bench", "bank", "--quick", "--counters", "l1tex__no_such_metric.sum", "-o", bad])
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and "l1tex__no_such_metric.sum" in lines[0],
          "an unknown metric: one line, exit 2", p.stderr[-300:])
    check(not os.path.exists(bad), "an unknown metric: no file")

    unavailable(exe, out, "no_permission", {"SMEM_CUPTI_LIB": fake}, "NVreg_RestrictProfilingToAdminUsers")
    unavailable(exe, out, "no_cupti", {"SMEM_CUPTI_LIB": os.path.join(out, "nowhere", "libcupti.so.13")},
                "cannot load CUPTI")
    print(f"1..{len(results)}")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
