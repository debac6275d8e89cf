#!/usr/bin/env python3
"""Tests of the side-by-side table maker (TAP) on written fixtures (tests/peers/fixtures/: smembench
result files and smem_nvbench --json files in their real formats, and a walltimes.tsv): nvbench's
cold median converted into each benchmark's metric (GB/s, B/clk/SM with smembench's clock, ns per
load), the 1 % flag, a launch that differs, a point one tool lacks, a skipped state, the wall-time
ratio and the exit status. Needs nothing but python3."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import side_by_side  # noqa: E402
import tap  # noqa: E402
from tap import test  # noqa: E402

TMP = tempfile.mkdtemp(prefix="smem-peers-test.")


def rows_by_point():
    rows, problems = side_by_side.compare(FIXTURES)
    return {r["point"]: r for r in rows}, problems


def close(a, b, rel=1e-9):
    if a is None or abs(a - b) > rel * abs(b):
        raise AssertionError(f"{a} != {b}")


def run_cli(folder):
    p = subprocess.run([sys.executable, os.path.join(HERE, "side_by_side.py"), folder], capture_output=True,
                       text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


@test
def gbytes_from_nvbench_median_and_smembench_work():
    rows, _ = rows_by_point()
    r = rows["bandwidth width_bytes=4"]
    # bytes per launch over the cold median (2.04 ms), not over the mean (2.5 ms) the fixture also has
    close(r["nv"], 264 * 1024 * 7812 * 8 * 4 / 2.04e-3 / 1e9)
    close(r["nv_us"], 2040.0)
    assert abs(r["diff"]) < 1e-9 and r["flag"] == "" and r["launch"] == "same", r


@test
def two_percent_slower_is_flagged():
    rows, _ = rows_by_point()
    r = rows["bandwidth width_bytes=8"]
    close(r["nv"], 2.0e9 / 2.04e-3 / 1e9)
    close(r["diff"], (2.0e9 / 2.04e-3 / 1e9 - 1000.0) / 1000.0 * 100)
    assert r["flag"] == "> 1 %", r


@test
def bank_uses_smembench_clock_and_sm_count():
    rows, _ = rows_by_point()
    one, two = rows["bank width_bytes=4 stride_elems=1"], rows["bank width_bytes=4 stride_elems=2"]
    # 1.32e10 B / (1 ms x 1000 MHz x 132 SMs) = 100 B/clk/SM; smembench 99: +1.01 %, flagged
    close(one["nv"], 100.0)
    close(one["diff"], 100.0 / 99.0 * 100 - 100)
    assert one["flag"] == "> 1 %" and one["unit"] == "B/clk/SM", one
    # 50 against 50.25: -0.50 %, under the flag
    close(two["nv"], 50.0)
    assert two["flag"] == "", two


@test
def latency_is_time_over_loads():
    rows, _ = rows_by_point()
    r = rows["latency chain_slots=1024 index_chase=0"]
    close(r["nv"], 12.0)
    close(r["diff"], (12.0 - 11.6) / 11.6 * 100)
    assert r["unit"] == "ns/load" and r["flag"] == "> 1 %", r


@test
def skipped_state_keeps_its_reason():
    rows, _ = rows_by_point()
    r = rows["latency chain_slots=1024 index_chase=1"]
    assert r["nv"] is None and r["smem"] == 16.0, r
    assert r["flag"] == "nvbench skipped: wrong result: fixture", r


@test
def different_launch_and_missing_points_are_problems():
    rows, problems = rows_by_point()
    assert rows["bandwidth width_bytes=16"]["launch"] == "grid 264 vs 132", rows["bandwidth width_bytes=16"]
    assert rows["bank width_bytes=4 stride_elems=4"]["flag"] == "missing in smembench"
    assert problems == ["bandwidth width_bytes=16: launches differ (grid 264 vs 132)",
                        "bank width_bytes=4 stride_elems=4: no smembench point",
                        "dynamic: only one tool's file (smembench_dynamic.json)"], problems


@test
def markdown_table_wall_times_and_exit_status():
    folder = os.path.join(TMP, "all")
    shutil.copytree(FIXTURES, folder)
    rc, out, err = run_cli(folder)
    assert rc == 1, (rc, err)   # problems: a launch differs, points are missing
    with open(os.path.join(folder, "side_by_side.md"), encoding="utf-8") as f:
        assert f.read() == out
    line = next(x for x in out.splitlines() if x.startswith("| bank width_bytes=4 stride_elems=1 |"))
    assert line.split(" | ")[1:6] == ["99", "100", "B/clk/SM", "+1.01", "> 1 %"], line
    # nvbench's batch time (back to back, no L2 flush) beside it, and its difference
    assert line.endswith("| 1000 | +1.01 |"), line
    assert "| smembench | 2.0 | 3.0 | 5.0 |" in out, out
    assert "| nvbench | 5.0 | 7.0 (exit 1) | 12.0 |" in out, out
    assert "nvbench / smembench wall time: 2.40" in out, out


@test
def clean_comparison_exits_zero():
    folder = os.path.join(TMP, "clean")
    os.makedirs(folder)
    for name in ("smembench_latency.json", "nvbench_latency.json"):
        shutil.copy(os.path.join(FIXTURES, name), folder)
    rc, out, err = run_cli(folder)
    assert rc == 0, (rc, out, err)
    assert "## Problems" not in out and "| latency chain_slots=1024 index_chase=0 | 11.6 | 12 |" in out, out


@test
def empty_folder_is_an_error():
    folder = os.path.join(TMP, "empty")
    os.makedirs(folder)
    rc, _, err = run_cli(folder)
    assert rc == 1 and "no smembench or nvbench results" in err, (rc, err)
    assert not os.path.exists(os.path.join(folder, "side_by_side.md"))


if __name__ == "__main__":
    sys.exit(tap.run(lambda: shutil.rmtree(TMP, ignore_errors=True)))
