#!/usr/bin/env python3
"""A dashboard's ingestion for real (TAP): starts Prometheus and the Pushgateway on loopback (free
ports, their own temporary data and configuration, Prometheus scraping the Pushgateway every second
with honor_labels), pushes export.py's OpenMetrics text of committed H200 files to the Pushgateway
over HTTP, waits (bounded) until Prometheus has scraped it, and reads every series back through
Prometheus's query API: as many series pushed, on the Pushgateway, scraped and read back, each
with its labels and its value. The export passes `promtool check metrics` first. Every daemon the
test starts it stops by its pid; it talks only to 127.0.0.1 and every wait is bounded.

  test_prometheus.py

Skipped (TAP "1..0 # SKIP") only where prometheus, prometheus-pushgateway or promtool is not
installed (Debian: apt-get install prometheus prometheus-pushgateway; scripts/setup.sh --dev).
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
# the brief's H200 file (no uuid recorded) and one that records its GPU's uuid, in one export
FILES = [os.path.join(ROOT, "results", "nvidia-h200_20261130_all.json"),
         os.path.join(ROOT, "results", "nvidia-h200_20261130_staging.json")]
JOB, INSTANCE = "smembench", "vm"
WAIT_READY_S = 90        # a daemon's start, on a loaded 2-core machine
WAIT_SCRAPE_S = 90       # the first scrape that holds every pushed series
TMP = tempfile.mkdtemp(prefix="smem-prom-test.")
# never a proxy: every request goes to 127.0.0.1
HTTP = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def tool(name):
    return shutil.which(name) or (f"/usr/bin/{name}" if os.access(f"/usr/bin/{name}", os.X_OK) else None)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, port, path, body=None, headers=None, timeout=10):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method, headers=headers or {})
    with HTTP.open(req, timeout=timeout) as resp:
        return resp.status, resp.read().decode("utf-8")


def wait_for(what, check, limit_s, proc=None, log=None):
    """Calls check() until it returns a true value, at most limit_s seconds; the daemon's exit or
    the deadline is an error that says which and shows the end of its log."""
    deadline = time.monotonic() + limit_s
    last = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"{what}: the daemon exited with {proc.returncode}: {tail(log)}")
        try:
            got = check()
            if got:
                return got
        except (OSError, urllib.error.URLError, ValueError) as e:
            last = e
        time.sleep(0.25)
    raise AssertionError(f"{what}: not after {limit_s} s (last: {last}); {tail(log)}")


def tail(log):
    if not log or not os.path.exists(log):
        return ""
    with open(log, errors="replace") as f:
        return f.read()[-1500:].replace("\n", " | ")


class Daemons:
    """The daemons this test started, stopped by pid (SIGTERM, then SIGKILL after 15 s)."""

    def __init__(self):
        self.procs = []

    def start(self, name, argv):
        log = os.path.join(TMP, f"{name}.log")
        f = open(log, "w")
        p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=TMP)
        f.close()
        self.procs.append((name, p))
        return p, log

    def stop(self):
        """(name, pid, exit status) of each; every one is gone when this returns."""
        out = []
        for name, p in self.procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(timeout=15)
            out.append((name, p.pid, p.returncode))
        return out


def samples_of(text):
    """[(name, labels, value)] of an OpenMetrics text, by prometheus_client's parser."""
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
    return [(s.name, dict(s.labels), s.value) for fam in text_string_to_metric_families(text) for s in fam.samples]


def text_samples(text):
    """[(name, labels, value)] of the smembench series on a Prometheus text page (the Pushgateway's)."""
    from prometheus_client.parser import text_string_to_metric_families
    return [(s.name, dict(s.labels), s.value) for fam in text_string_to_metric_families(text)
            for s in fam.samples if s.name.startswith("smembench_")]


def key(name, labels):
    return (name, tuple(sorted(labels.items())))


def query(port, promql):
    status, body = http("GET", port, "/api/v1/query?" + urllib.parse.urlencode({"query": promql}))
    data = json.loads(body)
    assert status == 200 and data["status"] == "success", body[:500]
    return data["data"]["result"]


def main():
    missing = [t for t in ("prometheus", "prometheus-pushgateway", "promtool") if tool(t) is None]
    try:
        import prometheus_client  # noqa: F401
    except ImportError:
        missing.append("python3-prometheus-client")
    if missing:
        print(f"1..0 # SKIP {', '.join(missing)} not installed (Debian: apt-get install prometheus "
              "prometheus-pushgateway python3-prometheus-client; scripts/setup.sh --dev)")
        return 0
    steps = []
    results = {}
    daemons = Daemons()
    counts = {}

    def step(name):
        def wrap(fn):
            steps.append((name, fn))
            return fn
        return wrap

    @step("the OpenMetrics export of two committed H200 files passes promtool check metrics")
    def export_and_lint():
        p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "export.py"), *FILES, "--format", "openmetrics"],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        results["text"] = p.stdout
        lint = subprocess.run([tool("promtool"), "check", "metrics"], input=p.stdout, capture_output=True,
                              text=True, timeout=120)
        assert lint.returncode == 0 and not lint.stdout.strip() and not lint.stderr.strip(), \
            (lint.returncode, lint.stdout[-1500:], lint.stderr[-1500:])
        pushed = samples_of(p.stdout)
        assert len({key(n, lb) for n, lb, _ in pushed}) == len(pushed), "a series twice in the export"
        assert any("uuid" in lb for _, lb, _ in pushed) and any("uuid" not in lb for _, lb, _ in pushed)
        results["pushed"] = pushed
        counts["pushed"] = len(pushed)
        return f"{len(pushed)} series, promtool silent"

    @step("Prometheus and the Pushgateway start on 127.0.0.1 with their own data and configuration")
    def start():
        pg_port, prom_port = free_port(), free_port()
        while prom_port == pg_port:
            prom_port = free_port()
        pg, pg_log = daemons.start("pushgateway", [tool("prometheus-pushgateway"),
                                                   f"--web.listen-address=127.0.0.1:{pg_port}"])
        config = os.path.join(TMP, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                    "scrape_configs:\n  - job_name: pushgateway\n    honor_labels: true\n    scrape_interval: 1s\n"
                    "    scrape_timeout: 1s\n"
                    f"    static_configs:\n      - targets: ['127.0.0.1:{pg_port}']\n")
        prom, prom_log = daemons.start("prometheus", [
            tool("prometheus"), f"--config.file={config}", f"--storage.tsdb.path={os.path.join(TMP, 'data')}",
            f"--web.listen-address=127.0.0.1:{prom_port}"])
        wait_for("the Pushgateway ready", lambda: http("GET", pg_port, "/-/ready")[0] == 200, WAIT_READY_S, pg, pg_log)
        wait_for("Prometheus ready", lambda: http("GET", prom_port, "/-/ready")[0] == 200, WAIT_READY_S, prom,
                 prom_log)
        results.update(pg_port=pg_port, prom_port=prom_port, pg=pg, prom=prom, pg_log=pg_log, prom_log=prom_log)
        return f"pushgateway pid {pg.pid} on :{pg_port}, prometheus pid {prom.pid} on :{prom_port}"

    @step("the push is accepted and the Pushgateway exposes every series with the grouping key's labels")
    def push():
        status, _ = http("PUT", results["pg_port"], f"/metrics/job/{JOB}/instance/{INSTANCE}",
                         body=results["text"].encode("utf-8"),
                         headers={"Content-Type": "text/plain; version=0.0.4; charset=utf-8"})
        assert status in (200, 202), status
        page = http("GET", results["pg_port"], "/metrics")[1]
        on_pg = {key(n, lb): v for n, lb, v in text_samples(page)}
        want = {key(n, dict(lb, job=JOB, instance=INSTANCE)): v for n, lb, v in results["pushed"]}
        assert set(on_pg) == set(want), (sorted(set(want) - set(on_pg))[:3], sorted(set(on_pg) - set(want))[:3])
        assert all(on_pg[k] == v for k, v in want.items())
        results["want"] = want
        counts["on the Pushgateway"] = len(on_pg)
        return f"{len(on_pg)} series"

    @step("Prometheus scrapes every pushed series (bounded wait)")
    def scraped():
        n = len(results["want"])
        port = results["prom_port"]

        def all_there():
            up = query(port, 'up{job="pushgateway"}')
            got = query(port, 'count({__name__=~"smembench_.+"})')
            return up and up[0]["value"][1] == "1" and got and int(got[0]["value"][1]) == n
        t0 = time.monotonic()
        wait_for(f"{n} smembench series in Prometheus", all_there, WAIT_SCRAPE_S, results["prom"], results["prom_log"])
        got = int(query(port, 'count({__name__=~"smembench_.+"})')[0]["value"][1])
        counts["scraped"] = got
        return f"{got} series after {time.monotonic() - t0:.1f} s"

    @step("every series reads back through /api/v1/query with its labels and its value")
    def read_back():
        want = results["want"]
        got = {}
        for item in query(results["prom_port"], '{__name__=~"smembench_.+"}'):
            labels = dict(item["metric"])
            name = labels.pop("__name__")
            k = key(name, labels)
            assert k not in got, k
            got[k] = float(item["value"][1])
        assert set(got) == set(want), (sorted(set(want) - set(got))[:3], sorted(set(got) - set(want))[:3])
        wrong = [(k, want[k], got[k]) for k in want if got[k] != want[k]]
        assert not wrong, wrong[:3]
        # against the files themselves: the build of each in the info gauge, a median time in seconds
        docs = [json.load(open(f)) for f in FILES]
        build = {dict(k[1])["commit"]: v for k, v in got.items() if k[0] == "smembench_build_info"}
        assert build == {d["tool"]["git"]: 1.0 for d in docs}, build
        r = docs[1]["results"][0]
        dev = docs[1]["device"]
        times = [v for k, v in got.items() if k[0] == "smembench_time_seconds" and dict(k[1]).get("uuid") == dev["uuid"]
                 and dict(k[1])["bench"] == r["bench"] and all(dict(k[1])[p] == str(x) for p, x in r["params"].items())]
        assert times == [r["time_ns"]["stats"]["median"] / 1e9], (times, r["time_ns"]["stats"]["median"])
        counts["read back"] = len(got)
        return f"{len(got)} series, values equal"

    print(f"1..{len(steps) + 1}")
    failed = 0
    broken = None
    try:
        for i, (name, fn) in enumerate(steps, 1):
            if broken:
                failed += 1
                print(f"not ok {i} - {name}: not run, {broken} failed")
                continue
            try:
                note = fn()
                print(f"ok {i} - {name}" + (f" ({note})" if note else ""))
            except Exception as e:  # noqa: BLE001 - every failure is reported
                failed += 1
                broken = f"step {i}"
                print(f"not ok {i} - {name}: {type(e).__name__}: {str(e)[:3000]}")
            sys.stdout.flush()
    finally:
        stopped = daemons.stop()
    n = len(steps) + 1
    gone = all(p_rc is not None for _, _, p_rc in stopped) and len(stopped) == 2
    if gone:
        print(f"ok {n} - every daemon the test started is stopped by its pid (" +
              ", ".join(f"{name} pid {pid} exit {rc}" for name, pid, rc in stopped) + ")")
    else:
        failed += 1
        print(f"not ok {n} - the daemons stopped: {stopped}")
    if counts:
        print("# series: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    shutil.rmtree(TMP, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
