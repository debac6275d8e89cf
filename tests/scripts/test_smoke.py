#!/usr/bin/env python3
"""smoke.sh's own logic without a GPU (TAP): the smoke test run against fake drivers that write a
result file of given points and exit with a given status. A run where every point is skipped, or
that has no point, checked nothing and must fail; a failed point fails; no GPU (exit 3) is a skip
(77); one point that ran among skipped ones passes."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from tap import run, test  # noqa: E402

SMOKE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "smoke.sh")
TMP = tempfile.mkdtemp(prefix="smoke_logic_")

# a fake smembench: writes the points of POINTS_FILE to the file after -o and exits with RC
FAKE = """#!{python}
import json, sys
args = sys.argv[1:]
with open({points!r}) as f:
    points = json.load(f)
if {rc} != 3:
    with open(args[args.index("-o") + 1], "w") as f:
        json.dump({{"schema_version": 1, "results": points}}, f)
sys.exit({rc})
"""


def point(bench, status, reason=None):
    return {"bench": bench, "params": {"n": 1}, "status": status, "reason": reason}


def smoke(points, rc=0):
    """Runs smoke.sh against a fake driver; returns (exit status, output)."""
    d = tempfile.mkdtemp(dir=TMP)
    pf = os.path.join(d, "points.json")
    with open(pf, "w") as f:
        json.dump(points, f)
    exe = os.path.join(d, "smembench")
    with open(exe, "w") as f:
        f.write(FAKE.format(python=sys.executable, points=pf, rc=rc))
    os.chmod(exe, 0o755)
    env = {k: v for k, v in os.environ.items() if k != "SMEM_SANITIZER"}
    p = subprocess.run(["bash", SMOKE, exe], capture_output=True, text=True, env=env, timeout=60)
    return p.returncode, p.stdout + p.stderr


@test
def every_point_skipped_fails():
    rc, out = smoke([point("bandwidth", "skipped", "no such device feature"),
                     point("cluster_occupancy", "skipped", "tile above the opt-in ceiling")])
    assert rc == 1, f"exit {rc}: {out}"
    assert "no point ran" in out, out
    assert "2 points, 0 ran, 0 not ok" in out, out


@test
def no_point_at_all_fails():
    rc, out = smoke([])
    assert rc == 1, f"exit {rc}: {out}"
    assert "no point ran" in out, out


@test
def one_point_that_ran_among_skipped_ones_passes():
    rc, out = smoke([point("bandwidth", "ok"), point("cluster_occupancy", "skipped", "opt-in ceiling")])
    assert rc == 0, f"exit {rc}: {out}"
    assert "2 points, 1 ran, 0 not ok" in out, out
    assert "no point ran" not in out, out


@test
def a_failed_point_fails():
    rc, out = smoke([point("bandwidth", "ok"), point("latency", "failed", "verification failed")])
    assert rc == 1, f"exit {rc}: {out}"
    assert "not ok: latency" in out, out


@test
def no_gpu_is_a_skip():
    rc, out = smoke([], rc=3)
    assert rc == 77, f"exit {rc}: {out}"
    assert "skipped, no GPU" in out, out


@test
def a_driver_error_fails():
    rc, out = smoke([point("bandwidth", "ok")], rc=2)
    assert rc == 1, f"exit {rc}: {out}"
    assert "smembench exited 2" in out, out


if __name__ == "__main__":
    sys.exit(run(lambda: shutil.rmtree(TMP, ignore_errors=True)))
