#!/usr/bin/env python3
"""The ncu cross-check's own logic without a GPU (TAP): reading ncu's CSV, pairing points with kernel
records in launch order, and the verdicts. The fixtures are written here, value by value, but for the
tile sweep's transposes: fixtures/ncu_tile_transpose.{json,csv}, a --check run, its timed twin and
ncu's CSV as the files are (its "about" says what is in it)."""
import contextlib
import copy
import io
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ncu_check  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures")

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
          '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')


def ncu_lines(launches):
    """ncu --csv text for launches [(name, {metric: value})], one line per metric."""
    out = ["==PROF== Connected to process 1\n", "smembench: wrote 3 of 3 points\n", HEADER]
    for i, (name, metrics) in enumerate(launches):
        for m, v in metrics.items():
            out.append(f'"{i}","1","smembench","h","{name}","1","7","(1, 1, 1)","(1, 1, 1)","0","9.0",'
                       f'"Command line profiler metrics","{m}","","{v}"\n')
    return out


def kernel(grid, block, dyn, config, blocks=8, wavefronts=None, loads=None):
    m = {"launch__grid_size": f"{grid:,}", "launch__block_size": block, "launch__shared_mem_per_block_dynamic": dyn,
         "launch__shared_mem_config_size": f"{config:,}", "launch__occupancy_limit_blocks": 32,
         "launch__occupancy_limit_registers": 8, "launch__occupancy_limit_shared_mem": blocks,
         "launch__occupancy_limit_warps": 8}
    if wavefronts is not None:
        m[ncu_check.WAVEFRONTS] = f"{wavefronts:,}"
        m[ncu_check.LOADS] = f"{loads:,}"
    return m


def point(bench, params, grid, block, dyn, api=8, predicted=8, config=None, status="ok"):
    return {"bench": bench, "params": params, "status": status, "reason": None,
            "launch": {"grid": grid, "block": block, "dynamic_smem": dyn},
            "occupancy": {"api": api, "predicted": predicted, "measured": None,
                          "smem_config_requested_bytes": None, "smem_config_predicted_bytes": config,
                          "smem_config_inferred_min_bytes": None}}


def twin(p, measured=8, low=None, wavefronts=None):
    t = {"bench": p["bench"], "params": p["params"], "occupancy": {"measured": measured,
                                                                  "smem_config_inferred_min_bytes": low}}
    if wavefronts is not None:
        t["metrics"] = {"wavefronts": {"value": wavefronts, "unit": "passes/request", "ceiling": None}}
    return t


@test
def csv_reader_keeps_launch_order_and_drops_other_lines():
    recs = ncu_check.parse_ncu_csv(ncu_lines([("clock_kernel", kernel(1, 1, 0, 8192)),
                                              ("dynamic_kernel", kernel(1056, 256, 2048, 65536))]))
    assert [r["name"] for r in recs] == ["clock_kernel", "dynamic_kernel"], recs
    assert recs[1]["launch__shared_mem_config_size"] == 65536, "thousands separators removed"
    assert recs[1]["launch__grid_size"] == 1056


@test
def an_input_draw_of_a_points_geometry_is_never_that_points_launch():
    # as on the H200 (results/gate/): the gather table's draw (fill_kernel, 1056 x 256, no dynamic
    # shared memory) just before the gather points, whose full wave has that geometry
    gather = [point("gather", {"carveout_pct": c}, 1056, 256, 0, config=k) for c, k in ((10, 32768), (20, 65536),
                                                                                       (30, 102400))]
    recs = ncu_check.parse_ncu_csv(ncu_lines([
        ("fill_kernel(unsigned int *, unsigned long, int, unsigned long)", kernel(1056, 256, 0, 32768)),
        ("gather_kernel(const float *, unsigned int *)", kernel(1056, 256, 0, 32768)),
        ("gather_kernel(const float *, unsigned int *)", kernel(1056, 256, 0, 65536)),
        ("gather_kernel(const float *, unsigned int *)", kernel(1056, 256, 0, 102400))]))
    pairs = ncu_check.match(gather, recs)
    assert [r["launch__shared_mem_config_size"] for _, r in pairs] == [32768, 65536, 102400], pairs
    assert all(r["name"].startswith("gather_kernel") for _, r in pairs)


@test
def points_pair_with_the_next_record_of_their_geometry():
    recs = ncu_check.parse_ncu_csv(ncu_lines([
        ("clock_kernel", kernel(1, 1, 0, 8192)),
        ("dynamic_kernel", kernel(1056, 256, 0, 32768)),
        ("clock_kernel", kernel(1, 1, 0, 8192)),
        ("dynamic_kernel", kernel(1056, 256, 1024, 32768))]))
    a = point("dynamic", {"dyn_smem_bytes": 0}, 1056, 256, 0)
    b = point("dynamic", {"dyn_smem_bytes": 1024}, 1056, 256, 1024)
    skipped = point("static", {"smem_bytes": 65536}, None, 256, 0, status="skipped")
    c = point("dynamic", {"dyn_smem_bytes": 2048}, 1056, 256, 2048)
    pairs = ncu_check.match([a, skipped, b, c], recs)
    assert [(p["params"], r and r["id"]) for p, r in pairs] == \
        [({"dyn_smem_bytes": 0}, 1), ({"dyn_smem_bytes": 1024}, 3), ({"dyn_smem_bytes": 2048}, None)], pairs


@test
def agreement_disagreement_and_no_model():
    recs = ncu_check.parse_ncu_csv(ncu_lines([
        ("k", kernel(1056, 256, 0, 32768)),
        ("k", kernel(1056, 256, 2048, 65536)),
        ("k", kernel(1056, 256, 4096, 102400, blocks=7))]))
    pts = [point("dynamic", {"d": 0}, 1056, 256, 0, config=32768),
           point("dynamic", {"d": 2048}, 1056, 256, 2048, config=None),
           point("dynamic", {"d": 4096}, 1056, 256, 4096, config=65536)]
    timed = {"results": [twin(pts[0], low=8192), twin(pts[1]), twin(pts[2], measured=7, low=131072)]}
    rows, bad, unmodelled = ncu_check.check({"results": pts}, timed, recs)
    assert unmodelled == 1, rows
    assert bad == 1, rows
    assert rows[0]["verdict"] == "agrees", rows[0]
    assert rows[1]["verdict"].startswith("agrees (configuration not modelled)"), rows[1]
    v = rows[2]["verdict"]
    assert "api 8, ncu 7" in v and "predicted 64 KiB, ncu 100 KiB" in v and "needs 128 KiB" in v, v
    assert "measured 7" not in v, "the measured 7 agrees with ncu"


@test
def a_measured_residency_below_the_limit_is_listed_and_one_above_disagrees():
    """ncu's occupancy limits are theoretical: the residency probe may find fewer blocks at once
    (the H200 held 5 of a 40-register, 256-thread probe where every limit says 6), never more."""
    recs = ncu_check.parse_ncu_csv(ncu_lines([("k", kernel(1056, 256, 0, 32768, blocks=6)),
                                              ("k", kernel(1056, 256, 2048, 32768, blocks=6))]))
    pts = [point("dynamic", {"d": 0}, 1056, 256, 0, api=6, predicted=6, config=32768),
           point("dynamic", {"d": 2048}, 1056, 256, 2048, api=6, predicted=6, config=32768)]
    timed = {"results": [twin(pts[0], measured=5), twin(pts[1], measured=7)]}
    rows, bad, _ = ncu_check.check({"results": pts}, timed, recs)
    assert rows[0]["verdict"] == "agrees; measured 5 below the limit 6", rows[0]
    assert bad == 1 and "measured 7, above ncu's limit 6" in rows[1]["verdict"], rows[1]


@test
def bank_passes_against_wavefronts_per_instruction():
    recs = ncu_check.parse_ncu_csv(ncu_lines([
        ("load_kernel", kernel(264, 1024, 0, 233472, blocks=2, wavefronts=8 * 135168, loads=135168)),
        ("load_kernel", kernel(264, 1024, 0, 233472, blocks=2, wavefronts=3 * 135168, loads=135168))]))
    for r in recs:
        r["launch__occupancy_limit_warps"] = r["launch__occupancy_limit_registers"] = 2
    pts = [point("bank", {"width_bytes": 4, "stride_elems": 8}, 264, 1024, 0, api=2, predicted=2, config=233472),
           point("bank", {"width_bytes": 4, "stride_elems": 3}, 264, 1024, 0, api=2, predicted=2, config=233472)]
    timed = {"results": [twin(pts[0], measured=2, wavefronts=8), twin(pts[1], measured=2, wavefronts=1)]}
    rows, bad, _ = ncu_check.check({"results": pts}, timed, recs)
    assert rows[0]["verdict"] == "agrees" and rows[0]["passes model/ncu"] == "8/8", rows[0]
    assert bad == 1 and "model 1, ncu 3" in rows[1]["verdict"], rows[1]


@test
def ldmatrix_and_stmatrix_passes_against_their_own_wavefronts_per_instruction():
    def matrix_kernel(waves, insts, ld):
        m = kernel(792, 256, 9216, 233472)
        m[ncu_check.LD_WAVEFRONTS if ld else ncu_check.ST_WAVEFRONTS] = f"{waves:,}"
        m[ncu_check.LDSM if ld else ncu_check.STSM] = f"{insts:,}"
        # the other kind's counters must not be read: a fill's stores, a read-back's loads
        m[ncu_check.ST_WAVEFRONTS if ld else ncu_check.LD_WAVEFRONTS] = "999,999"
        m[ncu_check.WAVEFRONTS], m[ncu_check.LOADS] = "5", "1"
        return m
    recs = ncu_check.parse_ncu_csv(ncu_lines([
        ("swz_tile_kernel", matrix_kernel(32 * 50688, 50688, True)),
        ("swz_tile_kernel", matrix_kernel(4 * 50688, 50688, False)),
        ("swz_tile_kernel", matrix_kernel(16 * 50688, 50688, False))]))
    params = {"trans": 0, "matrices": 4, "row_bytes": 128, "layout": 0}
    pts = [point("swizzle_ldmatrix", params, 792, 256, 9216, config=233472),
           point("swizzle_stmatrix", dict(params, layout=128), 792, 256, 9216, config=233472),
           point("swizzle_stmatrix", dict(params, layout=64), 792, 256, 9216, config=233472)]
    timed = {"results": [twin(pts[0], wavefronts=32), twin(pts[1], wavefronts=4), twin(pts[2], wavefronts=8)]}
    rows, bad, _ = ncu_check.check({"results": pts}, timed, recs)
    assert rows[0]["verdict"] == "agrees" and rows[0]["passes model/ncu"] == "32/32", rows[0]
    assert rows[1]["verdict"] == "agrees" and rows[1]["passes model/ncu"] == "4/4", rows[1]
    assert bad == 1 and "model 8, ncu 16" in rows[2]["verdict"], rows[2]


def transpose_fixture():
    with open(os.path.join(FIXTURES, "ncu_tile_transpose.json")) as f:
        doc = json.load(f)
    with open(os.path.join(FIXTURES, "ncu_tile_transpose.csv")) as f:
        return doc["checked"], doc["timed"], ncu_check.parse_ncu_csv(f)


def transpose_row(rows, layout, edge, width):
    want = f"transpose mib=16 layout={layout} edge_elems={edge} width_bytes={width} band_tiles=1"
    return next(r for r in rows if r["point"] == want)


@test
def transpose_loads_and_stores_against_shared_wavefronts_per_instruction():
    checked, timed, recs = transpose_fixture()
    assert [r["name"].split("(")[0] for r in recs[:2]] == ["smem_clock_kernel", "fill_kernel"], "the fixture's order"
    pairs = ncu_check.match(checked["results"], recs)
    assert len(pairs) == 13, "twelve tiled points and the naive one; the copy launches no kernel of ours"
    for p, r in pairs:
        if p["bench"] == "transpose":
            g = p["params"]
            want = f"transpose_tiled_kernel<{g['layout']}, {g['edge_elems']}, {g['width_bytes'] // 4}>"
            assert r is not None and want in r["name"], (g, r and r["name"])
    rows, bad, unmodelled = ncu_check.check(checked, timed, recs)
    assert unmodelled == 0, rows
    assert transpose_row(rows, 0, 32, 4)["passes model/ncu"] == "ld 32/32, st 1/1", "the [32][32] column read"
    assert transpose_row(rows, 0, 64, 16)["passes model/ncu"] == "ld 8/8, st 4/4"
    assert transpose_row(rows, 1, 64, 16)["passes model/ncu"] == "ld 1/1, st 1/1", "padded: word stores"
    ok = transpose_row(rows, 2, 64, 16)
    assert ok["passes model/ncu"] == "ld 1/1, st 4/4" and ok["verdict"] == "agrees", ok
    planted = transpose_row(rows, 2, 64, 4)
    assert planted["verdict"] == "passes per shared load: model 1, ncu 2", planted
    naive = next(r for r in rows if r["point"].startswith("transpose_naive"))
    assert naive["verdict"] == "agrees" and "passes model/ncu" not in naive, "no shared memory, no passes"
    assert bad == 1, [r["verdict"] for r in rows]


@test
def a_transpose_without_its_model_or_ncu_counters_disagrees():
    checked, timed, recs = transpose_fixture()
    timed = copy.deepcopy(timed)
    del timed["results"][0]["metrics"]["store_wavefronts"]
    for r in recs:
        if "<1, 32, 1>" in r["name"]:
            del r[ncu_check.STORES]
    rows, bad, _ = ncu_check.check(checked, timed, recs)
    assert "no store_wavefronts metric in the timed run" in transpose_row(rows, 0, 32, 4)["verdict"], rows[0]
    v = transpose_row(rows, 1, 32, 4)["verdict"]
    assert v == f"ncu reported no {ncu_check.ST_SHARED_WAVEFRONTS} or {ncu_check.STORES}", v
    assert bad == 3, "the two and the planted one"


@test
def a_pipelined_transpose_has_no_store_model_and_is_not_judged_on_stores():
    """depth_tiles > 1: cp.async (LDGSTS) writes the tile; the load model is still judged."""
    def tkernel(ld_waves, st_waves, st_insts):
        m = kernel(792, 256, 49152, 233472, blocks=6, wavefronts=ld_waves, loads=1000)
        m[ncu_check.ST_SHARED_WAVEFRONTS], m[ncu_check.STORES] = st_waves, st_insts
        return m
    recs = ncu_check.parse_ncu_csv(ncu_lines([("transpose_pipelined_kernel", tkernel(1000, "0", "0")),
                                              ("transpose_pipelined_kernel", tkernel(2000, "0", "0")),
                                              ("transpose_tiled_kernel", tkernel(1000, "4,000", "1,000"))]))
    geom = {"mib": 16, "layout": 2, "edge_elems": 64, "width_bytes": 16, "band_tiles": 1}
    pts = [point("transpose", dict(geom, depth_tiles=3), 792, 256, 49152, api=6, predicted=6, config=233472),
           point("transpose", dict(geom, depth_tiles=2), 792, 256, 49152, api=6, predicted=6, config=233472),
           point("transpose", dict(geom, depth_tiles=1), 792, 256, 49152, api=6, predicted=6, config=233472)]
    timed = {"results": [twin(p, measured=6) for p in pts]}
    for t in timed["results"][:2]:
        t["metrics"] = {"load_wavefronts": {"value": 1}}
    timed["results"][2]["metrics"] = {"load_wavefronts": {"value": 1}}   # depth 1 lost its store model
    rows, bad, _ = ncu_check.check({"results": pts}, timed, recs)
    assert rows[0]["verdict"] == "agrees (stores by cp.async, not modelled)", rows[0]
    assert rows[0]["passes model/ncu"] == "ld 1/1, st -/-", rows[0]
    assert rows[1]["verdict"] == "passes per shared load: model 1, ncu 2", "the load model is still judged"
    assert "no store_wavefronts metric in the timed run" in rows[2]["verdict"], "depth 1 keeps its store model"
    assert bad == 2


@test
def both_runs_take_the_axes():
    args = ncu_check.plan_args("tile", ["mib=16", "edge_elems=32,64"])
    assert args == ["--sweep", "tile", "--axis", "mib=16", "--axis", "edge_elems=32,64"], args
    assert ncu_check.plan_args(ncu_check.SWEEPS) == ["--sweep", ncu_check.SWEEPS]


@test
def failed_points_and_missing_records_count():
    recs = ncu_check.parse_ncu_csv(ncu_lines([("k", kernel(1056, 256, 0, 32768))]))
    pts = [point("dynamic", {"d": 0}, 1056, 256, 0, config=32768),
           point("dynamic", {"d": 1}, 1056, 256, 77, config=32768),
           point("dynamic", {"d": 2}, 1056, 256, 0, status="failed")]
    rows, bad, _ = ncu_check.check({"results": pts}, {"results": [twin(p) for p in pts]}, recs)
    assert bad == 2, rows
    assert any("no ncu record" in r["verdict"] for r in rows)
    assert any("status failed" in r["verdict"] for r in rows)
    out = io.StringIO()
    ncu_check.print_table(rows, out)
    assert out.getvalue().count("\n") == 4, out.getvalue()


@test
def no_gpu_or_no_ncu_is_a_skip():
    os.environ["SMEM_SANITIZER"] = "memcheck"
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            assert ncu_check.main(["/bin/true"]) == 77
    finally:
        del os.environ["SMEM_SANITIZER"]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert ncu_check.main(["/nonexistent/smembench"]) == 2
    assert "is not an executable" in err.getvalue(), err.getvalue()


def main():
    print(f"1..{len(TESTS)}")
    failed = 0
    for i, t in enumerate(TESTS, 1):
        try:
            t()
            print(f"ok {i} - {t.__name__}")
        except Exception as e:  # a failed assertion or a crash: both are failures
            failed += 1
            print(f"not ok {i} - {t.__name__}: {type(e).__name__}: {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
