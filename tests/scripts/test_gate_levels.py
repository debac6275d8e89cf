#!/usr/bin/env python3
"""Tests of the gate with no blind spots (issue 50), TAP, in-process and fast: a lost metric fails
(the zeros the trials' pooling wrote into uninit's stale_pct and cluster_occupancy's
clusters_measured, planted into a file from before trials), a change past a band wider than
--max-band is a change (a planted +50 % fails on any benchmark), the history knows units (each
unit's own level: the dsm_atomics point 24 % slower on one unit passes once its history holds that
unit, fails where it does not), the units' classes, a benchmark not gated on time listed with its
descriptor's reason in the text, Markdown and JSON, its gate metric judged, and the counters' exact
rule (one more bank conflict per request fails on another unit; the hit rate, a ratio, does not gate)."""
import copy
import json
import os
import random
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
import tap  # noqa: E402
from tap import scale, test  # noqa: E402
from smembench import compare, gate, levels, reader  # noqa: E402

TMP = tempfile.mkdtemp(prefix="smem-gate-levels.")
PRE_TRIALS = os.path.join(ROOT, "results", "nvidia-h200_20261130_all.json")   # uninit stale_pct 74.2, 100, 99.6
CONTRACT = [os.path.join(ROOT, "results", "contract", f"nvidia-h200_20261202_all_{c}_p{i}.json")
            for c in ("156b33a_unitA", "37a9db0_unitB") for i in (1, 2)]
U1 = os.path.join(ROOT, "results", "figures_35", "h200", "nvidia-h200_20261203_all_u1.json")
U2 = os.path.join(ROOT, "results", "figures_35", "h200", "nvidia-h200_20261203_all_u2.json")  # dsm_atomics 24 % slower
CACHE = {}


def load(path):
    if path not in CACHE:
        with open(path) as f:
            CACHE[path] = json.load(f)
    return copy.deepcopy(CACHE[path])


def save(doc, name):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def gate_run(*argv):
    lines, rc = compare.run(list(argv))
    return rc, "\n".join(lines)


def verdict_of(out, point):
    """The verdict cell of a point's row in the text table."""
    for line in out.split("\n"):
        if line.startswith(point + " "):
            return line.split("  ")[-1].strip()
    raise AssertionError(f"no row {point}")


@test
def a_planted_loss_of_a_metric_fails_the_gate():
    base = load(PRE_TRIALS)
    assert [reader.metric(r, "stale_pct") for r in base["results"] if r["bench"] == "uninit"] == \
        [74.21875, 100, 99.63304924242425]
    rc, out = gate_run(PRE_TRIALS, save(base, "same.json"))
    assert "metrics lost" in out and "0 metrics lost" in out, out[-600:]
    # the zeros the trials' pooling wrote: uninit's stale_pct at every size
    bug = load(PRE_TRIALS)
    for r in bug["results"]:
        if r["bench"] == "uninit":
            r["metrics"]["stale_pct"]["value"] = 0
    rc2, out2 = gate_run(PRE_TRIALS, save(bug, "zeros.json"))
    assert rc2 == 1, out2[-1500:]
    assert "3 metrics lost" in out2 and "gate: fail (exit 1): " in out2 and "3 metrics lost" in out2.split("\n")[-1], \
        out2[-800:]
    assert "uninit/dyn_smem_bytes=16384 stale_pct" in out2 and "newly 0 (base 74.2188)" in out2, out2[-3000:]
    # null and absent are lost too; --allow metric accepts them
    for how in ("null", "absent"):
        doc = load(PRE_TRIALS)
        r = next(r for r in doc["results"] if r["bench"] == "uninit")
        if how == "null":
            r["metrics"]["stale_pct"]["value"] = None
        else:
            del r["metrics"]["stale_pct"]
        rc3, out3 = gate_run(PRE_TRIALS, save(doc, f"{how}.json"))
        assert rc3 == 1 and "1 metric lost" in out3.split("\n")[-1], out3[-600:]
        assert "absent or null in new" in out3, out3[-2000:]
    rc4, out4 = gate_run(PRE_TRIALS, save(bug, "zeros.json"), "--allow", "metric")
    assert rc4 == 0 or "metric" not in out4.split("\n")[-1], out4[-600:]
    # a count judged as such: a stale share halved is worse (higher is better), not lost
    half = load(PRE_TRIALS)
    r = next(r for r in half["results"] if r["bench"] == "uninit")
    r["metrics"]["stale_pct"]["value"] /= 2
    rc5, out5 = gate_run(PRE_TRIALS, save(half, "half.json"))
    assert rc5 == 1 and "1 metrics worse" in out5, out5[-600:]


@test
def clusters_measured_written_as_zero_fails_against_a_file_that_measured_them():
    base = load(CONTRACT[0])
    for r in base["results"]:          # a base in which the check ran: clusters_measured = the API's count
        if r["bench"] == "cluster_occupancy":
            r["metrics"]["clusters_measured"]["value"] = r["metrics"]["clusters_api"]["value"]
    rc, out = gate_run(save(base, "measured.json"), CONTRACT[0])
    n = sum(1 for r in base["results"] if r["bench"] == "cluster_occupancy")
    assert rc == 1 and f"{n} metrics lost" in out.split("\n")[-1], out.split("\n")[-1]


@test
def a_planted_fifty_percent_fails_on_every_benchmark_whatever_the_band():
    from smembench import history
    base, other = load(CONTRACT[0]), load(CONTRACT[2])          # another unit: the widest bands
    hist = [(p, load(p)) for p in CONTRACT[:2] + CONTRACT[3:] + [U1]]
    opt = gate.Options()
    benches = sorted({r["bench"] for r in other["results"] if reader.timed(r)})
    gated = [b for b in benches if b not in ("uninit", "cluster_sync", "swizzle_wgmma")]
    assert len(gated) >= 30, gated
    for bench in gated:
        # only this benchmark's records copied and made 50 % slower
        doc = dict(other, results=[copy.deepcopy(r) if r["bench"] == bench else r for r in other["results"]])
        for r in doc["results"]:
            if r["bench"] == bench and reader.timed(r):
                scale(r, 1.5)
        rows, _, count, failing, rc = gate.gate("base", "new", base, doc, opt)
        assert rc == 1 and count.get("slower"), (bench, failing)
        hbase, points, _ = history.history_base(doc, hist, opt)
        rows, _, count, failing, rc = gate.gate("history", "new", hbase, doc, opt, points)
        assert rc == 1 and count.get("slower"), (bench, "history", failing)


@test
def a_band_wider_than_max_band_still_judges_a_change_past_it():
    b, n = load(CONTRACT[0]), load(CONTRACT[2])
    r = next(r for r in n["results"] if r["bench"] == "footprint" and reader.timed(r))
    key = reader.point_key(r)
    rb = next(x for x in b["results"] if reader.point_key(x) == key)
    opt = gate.Options(max_band=2.5)
    same = gate.judge(rb, r, opt, 0.05)
    assert same["verdict"] == "uncertain" and "band" in same["reason"], same
    scale(r, 1.3)
    assert gate.judge(rb, r, opt, 0.05)["verdict"] == "slower"


def second_run(path, seed):
    """A second run of a file's unit: every point moved by a random 0-0.3 %, another start time."""
    doc = load(path)
    rnd = random.Random(seed)
    for r in doc["results"]:
        if reader.timed(r):
            scale(r, 1 + rnd.uniform(-0.003, 0.003))
    doc["run"]["started"] = doc["run"]["started"].replace("T18", "T19")
    return doc


@test
def a_unit_level_far_from_the_others_fails_until_its_history_holds_it():
    point = "dsm_atomics/cluster_size=8,path=2"
    others = os.path.join(TMP, "others")
    os.makedirs(others, exist_ok=True)
    for p in CONTRACT + [U1]:
        shutil.copy(p, others)
    rc, out = gate_run("--history", others, U2)
    assert verdict_of(out, point).startswith("slower"), verdict_of(out, point)
    assert "past the levels of" in verdict_of(out, point), verdict_of(out, point)
    held = os.path.join(TMP, "held")
    shutil.copytree(others, held)
    with open(os.path.join(held, "u2_run2.json"), "w") as f:
        json.dump(second_run(U2, 2), f)
    rc, out = gate_run("--history", held, U2)
    assert verdict_of(out, point).startswith("same"), verdict_of(out, point)
    assert rc == 0, out.split("\n")[-1]
    # and a 3 % slowdown of that point on that unit is caught against its own level
    doc = load(U2)
    for r in doc["results"]:
        if reader.point_name(r) == point:
            scale(r, 1.03)
    rc, out = gate_run("--history", held, save(doc, "u2_slower.json"))
    assert rc == 1 and verdict_of(out, point).startswith("slower") and "its unit's level" in verdict_of(out, point)


@test
def the_units_fall_into_classes_their_levels_show():
    hist = {}
    docs = [load(p) for p in CONTRACT + [U1, U2]]
    for d in docs:
        for r in d["results"]:
            if reader.timed(r):
                hist.setdefault(reader.point_key(r), []).append((d["device"]["uuid"], None, r))
    lv = levels.point_levels(hist)
    classes = levels.unit_classes(lv)
    byname = {u: c for c, members, _ in classes for u in members}
    a, b = docs[0]["device"]["uuid"], docs[2]["device"]["uuid"]
    u1, u2 = docs[4]["device"]["uuid"], docs[5]["device"]["uuid"]
    # unit B and u2 sit slower on the DRAM-streaming benchmarks, unit A and u1 do not
    assert byname[b] == byname[u2] and byname[a] == byname[u1] and byname[a] != byname[b], classes
    cen = {c: v for c, _, v in classes}
    assert cen[byname[b]]["footprint"] > cen[byname[a]]["footprint"] + 0.02, cen
    # a file of a unit the history does not hold is placed in its class by its own times (named), but
    # judged against every unit's levels (members None): one file places it only roughly
    without = {k: [h for h in v if h[0] != u2] for k, v in hist.items()}
    classes2, name, members = gate.history_classes(without, docs[5])
    assert name is not None and b in next(m for c, m, _ in classes2 if c == name), (name, classes2)
    assert members is None, members
    # a unit the history holds is judged within its class
    name, members = gate.history_classes(hist, docs[5])[1:]
    assert members is not None and u2 in members and b in members, (name, members)


def not_gated_pair():
    """Two files whose records say what the descriptors now say: uninit, cluster_sync and
    swizzle_wgmma not gated on time, swizzle_wgmma gated on flop_per_clk_sm."""
    out = []
    for p in CONTRACT[:2]:
        doc = load(p)
        for r in doc["results"]:
            br = r.get("between_run")
            br.update(time_gated=True, not_gated=None, gate_metric=None)
            if r["bench"] in ("uninit", "cluster_sync", "swizzle_wgmma"):
                br.update(time_gated=False, not_gated=f"{r['bench']}: the reason its descriptor gives")
            if r["bench"] == "swizzle_wgmma":
                br["gate_metric"] = "flop_per_clk_sm"
        out.append(doc)
    return out


@test
def a_benchmark_not_gated_on_time_is_listed_with_its_reason_in_every_output():
    b, n = not_gated_pair()
    for r in n["results"]:
        if r["bench"] == "cluster_sync":
            scale(r, 1.5)          # its time is not judged
    pb, pn = save(b, "ng_base.json"), save(n, "ng_new.json")
    rc, text = gate_run(pb, pn)
    assert rc == 0, text.split("\n")[-2:]
    assert "not gated on time" in text and "cluster_sync (10 points): cluster_sync: the reason its descriptor gives" \
        in text, text[-3000:]
    assert verdict_of(text, "cluster_sync/block_threads=32,cluster_size=1").startswith("not gated"), text[-500:]
    rc, md = gate_run(pb, pn, "--markdown")
    assert rc == 0 and "**Not gated on time** (3 benchmarks" in md and "- uninit (3 points): uninit: the reason" in md
    rc, js = gate_run(pb, pn, "--json")
    doc = json.loads(js)
    assert rc == 0 and doc["exit"] == 0 and sorted(x["bench"] for x in doc["not_gated"]) == \
        ["cluster_sync", "swizzle_wgmma", "uninit"], doc["not_gated"]
    assert all(p["verdict"] == "not gated" for p in doc["points"] if p["bench"] == "cluster_sync" and p["kind"] == "timed")
    # the gate metric stands in the time's place: work per cycle 10 % lower fails
    for r in n["results"]:
        if r["bench"] == "swizzle_wgmma":
            r["metrics"]["flop_per_clk_sm"]["value"] *= 0.9
    rc, text = gate_run(pb, save(n, "ng_wgmma.json"))
    assert rc == 1 and "4 metrics worse" in text.split("\n")[-1], text.split("\n")[-1]


@test
def one_more_bank_conflict_per_request_fails_by_the_counters_on_another_unit():
    # real H200 files (results/counters/NOTES.md): the bank sweep with counters on unit GPU-0bcdc144,
    # the same on GPU-7b262491, and GPU-7b262491's test build with one more wavefront per request
    h200 = os.path.join(HERE, "..", "..", "results", "counters", "h200")
    a, b, planted = (os.path.join(h200, f"nvidia-h200_20261204_{n}.json")
                     for n in ("bank_counters_c3", "bank_counters_c4", "bank_planted_counters_c4"))
    rc, out = gate_run(a, b)
    # the bank-conflict counter moved up to 14.5 % between the units and DRAM bytes too: counts, not exact
    assert "0 metrics lost, 0 metrics worse" in out, out.split("\n")[-2:]
    rc, out = gate_run(a, planted)
    last = out.split("\n")[-1]
    assert rc == 1 and "metrics worse" in last and "0 metrics worse" not in last, last
    assert "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum" in out and "exact on any unit" in out
    assert "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum" not in out, "a count that moves never gates"
    rc, js = gate_run(a, planted, "--json")
    worse = {p["point"] for p in json.loads(js)["points"] if p["verdict"] == "metric worse"}
    # exactly the points where the test build took more wavefronts per request than the bank model
    # says (at stride 32, 4 bytes, every lane is in bank 0 already: one more address there is none)
    wf, ld = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__sass_inst_executed_op_shared_ld.sum"
    past = {"bank/" + ",".join(f"{k}={v}" for k, v in sorted(r["params"].items())) for r in load(planted)["results"]
            if r["counters"]["values"][wf]["value"] / r["counters"]["values"][ld]["value"]
            > r["metrics"]["wavefronts"]["value"] + 0.5}
    assert len(past) >= 80 and "bank/stride_elems=1,width_bytes=4" in past, len(past)
    assert worse == past, (sorted(worse - past)[:5], sorted(past - worse)[:5])
    # an exact counter lost (null) fails too
    doc = load(b)
    doc["results"][0]["counters"]["values"]["smsp__sass_inst_executed_op_shared_ld.sum"]["value"] = None
    rc, out = gate_run(a, save(doc, "counter_null.json"))
    assert rc == 1 and "1 metric lost" in out.split("\n")[-1], out.split("\n")[-1]


def main():
    return tap.run(lambda: shutil.rmtree(TMP, ignore_errors=True))


if __name__ == "__main__":
    sys.exit(main())
