#!/usr/bin/env python3
"""The Slurm script under a real Slurm (TAP): a local cluster of munged, slurmctld and three slurmd
(n1, n2, n3 on one host, so all three share its hostname) on 127.0.0.1, every path in a temporary
folder; scripts/slurm/smembench.sbatch submitted with sbatch as a user submits it, in predict mode:
one whole file per node named by its Slurm node name, a job array with one sweep per task, a merge
job submitted with --dependency=afterany that runs after the array and reports, a node whose task
fails (the job fails, the merge names the node, the other files are whole) and a node that dies (its
slurmd, slurmstepd and task killed: the job ends NODE_FAIL, the merge names the node). Every daemon
the test starts it stops by pid, also when a check fails, and the last check is that none is left.

  test_slurm.py SMEMBENCH   the program (predict mode needs no GPU)
Exit 77 where Slurm or munge is not installed (scripts/setup.sh --dev installs them).
"""
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
sys.path.insert(0, os.path.join(SCRIPTS, "..", "python"))
sys.path.insert(0, HERE)
from smembench import reader  # noqa: E402
from tap import without_figure_lines  # noqa: E402

SBATCH = os.path.join("scripts", "slurm", "smembench.sbatch")   # as a user types it, from the checkout
FLEET = os.path.join(SCRIPTS, "fleet.py")
NODES = ["n1", "n2", "n3"]
PROGRAMS = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo", "srun"]
JOB_WAIT_S = 120   # one predict-mode job takes a few seconds here
TESTS = []


class Skip(Exception):
    """The check cannot run here; reported as skipped with the reason, never as passed."""


class Interrupted(BaseException):
    """SIGTERM (meson's timeout): the cluster is stopped, the checks not run are not reported."""


def test(fn):
    TESTS.append(fn)
    return fn


def free_ports(n):
    """n distinct TCP ports free on the loopback address now."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def last_line(path):
    try:
        with open(path, errors="replace") as f:
            lines = [x.strip() for x in f if x.strip()]
        return lines[-1] if lines else "(empty)"
    except OSError:
        return "(no log)"


def proc_stat(pid):
    """(state, parent pid) of a process, from /proc."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return fields[0].decode(), int(fields[1])


class Cluster:
    """A local Slurm cluster in one folder; every process it starts is kept by pid."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.conf = os.path.join(tmp, "slurm.conf")
        self.procs = []   # (name, Popen, log)
        # the environment of every Slurm command and daemon here: none of a Slurm job around this test
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SBATCH_", "SRUN_"))}
        self.env["SLURM_CONF"] = self.conf
        self.env["PATH"] = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"   # the daemons, for a user's PATH
        self.env["LC_ALL"] = "C"

    def write_config(self):
        t = self.tmp
        for d in ("munge", "state", "log", "out") + tuple(f"spool/{n}" for n in NODES):
            os.makedirs(os.path.join(t, d), exist_ok=True)
        os.chmod(t, 0o755)   # munged wants its socket's folder searchable by all
        os.chmod(os.path.join(t, "munge"), 0o755)
        key = os.path.join(t, "munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        user = pwd.getpwuid(os.getuid()).pw_name
        host = socket.gethostname().split(".")[0]
        ctld, *slurmd = free_ports(1 + len(NODES))
        lines = [
            "ClusterName=smemtest",
            f"SlurmctldHost={host}(127.0.0.1)",
            f"SlurmctldPort={ctld}",
            f"SlurmUser={user}",
            f"SlurmdUser={user}",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={t}/munge/munge.socket",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "MpiDefault=none",
            "MailProg=/bin/true",
            "ReturnToService=2",
            "MinJobAge=3600",   # finished jobs stay visible to scontrol for the checks
            "SlurmdTimeout=10",   # a node that stops answering is down in about half a minute
            "SchedulerType=sched/builtin",
            f"StateSaveLocation={t}/state",
            f"SlurmdSpoolDir={t}/spool/%n",
            f"SlurmctldPidFile={t}/slurmctld.pid",
            f"SlurmdPidFile={t}/slurmd-%n.pid",
            f"SlurmctldLogFile={t}/log/slurmctld.log",
            f"SlurmdLogFile={t}/log/slurmd-%n.log",
        ]
        try:
            loopback = socket.gethostbyname(host) == "127.0.0.1"
        except OSError:
            loopback = False
        if loopback:
            # the daemons then listen on 127.0.0.1 only: Slurm binds to the address the hostname
            # resolves to (not to NodeAddr), so elsewhere they listen on every interface, at ports
            # chosen free; every connection goes to 127.0.0.1 either way
            lines.append("CommunicationParameters=NoInAddrAny,NoCtldInAddrAny")
        for n, port in zip(NODES, slurmd):
            lines.append(f"NodeName={n} NodeHostname={host} NodeAddr=127.0.0.1 Port={port} CPUs=1 State=UNKNOWN")
        lines.append(f"PartitionName=test Nodes={','.join(NODES)} Default=YES MaxTime=INFINITE State=UP")
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")

    def spawn(self, name, argv, log):
        with open(log, "w") as out:
            p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 env=self.env, cwd=self.tmp)
        self.procs.append((name, p, log))
        return p

    def run(self, argv, timeout=30, **kw):
        return subprocess.run(argv, capture_output=True, text=True, env=kw.pop("env", self.env), timeout=timeout,
                              **kw)

    def wait_for(self, what, cond, timeout, log=None):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for name, p, plog in self.procs:
                if p.poll() is not None:
                    raise AssertionError(f"{name} exited {p.returncode}: {last_line(plog)}")
            if cond():
                return
            time.sleep(0.25)
        raise AssertionError(f"{what} not within {timeout} s" + (f": {last_line(log)}" if log else ""))

    def start(self):
        self.write_config()
        t = self.tmp
        sock = os.path.join(t, "munge", "munge.socket")
        self.spawn("munged", ["munged", "--foreground", f"--socket={sock}", f"--key-file={t}/munge/munge.key",
                              f"--pid-file={t}/munge/munged.pid", f"--log-file={t}/munge/munged.log",
                              f"--seed-file={t}/munge/munged.seed"], os.path.join(t, "log", "munged.out"))
        self.wait_for("munged's socket", lambda: os.path.exists(sock), 15, os.path.join(t, "munge", "munged.log"))
        self.spawn("slurmctld", ["slurmctld", "-D", "-f", self.conf], os.path.join(t, "log", "slurmctld.out"))
        self.wait_for("slurmctld answering", lambda: self.run(["scontrol", "ping"]).stdout.count("UP") == 1, 30,
                      os.path.join(t, "log", "slurmctld.log"))
        for n in NODES:
            self.spawn(f"slurmd {n}", ["slurmd", "-D", "-N", n, "-f", self.conf], os.path.join(t, "log", f"{n}.out"))

        def all_idle():
            p = self.run(["sinfo", "-h", "-N", "-o", "%N %t"])
            states = dict(x.split() for x in p.stdout.splitlines() if x.strip())
            return states == {n: "idle" for n in NODES}
        self.wait_for("n1, n2 and n3 idle", all_idle, 60, os.path.join(t, "log", "slurmctld.log"))

    def ours(self, node=None):
        """Pids of the processes that carry this cluster's SLURM_CONF: the daemons, slurmstepd and the
        jobs' tasks (what a job left running is found this way, never by a program's name); with
        node, only the tasks running on that node (SLURMD_NODENAME)."""
        marks = [f"SLURM_CONF={self.conf}".encode()] + ([f"SLURMD_NODENAME={node}".encode()] if node else [])
        found = []
        for d in os.listdir("/proc"):
            if not d.isdigit() or int(d) == os.getpid():
                continue
            try:
                with open(f"/proc/{d}/environ", "rb") as f:
                    env = f.read().split(b"\0")
                if all(m in env for m in marks) and proc_stat(int(d))[0] != "Z":
                    found.append(int(d))
            except OSError:
                continue
        return found

    def kill_node(self, node):
        """Kills a node as a crash would: its slurmd, the slurmstepd of its tasks (their parent) and the
        tasks, at once, by pid. Returns what it killed, by kind."""
        tasks = self.ours(node)
        stepds = set()
        for pid in tasks:
            try:
                ppid = proc_stat(pid)[1]
                with open(f"/proc/{ppid}/cmdline", "rb") as f:
                    if f.read().startswith(b"slurmstepd"):
                        stepds.add(ppid)
            except OSError:
                continue
        slurmd = [p for name, p, _ in self.procs if name == f"slurmd {node}" and p.poll() is None]
        for p in slurmd:
            p.kill()
        for pid in sorted(stepds) + tasks:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for p in slurmd:
            p.wait(timeout=10)
        return {"slurmd": len(slurmd), "slurmstepd": len(stepds), "tasks": len(tasks)}

    def stop(self):
        """Stops what this cluster started, by pid: the jobs first, then the daemons in reverse order;
        returns the pids of processes still alive after that (an empty list is the goal)."""
        if any(p.poll() is None for name, p, _ in self.procs if name == "slurmctld"):
            try:
                self.run(["scancel", "--user", pwd.getpwuid(os.getuid()).pw_name], timeout=10)
                deadline = time.monotonic() + 15
                while self.run(["squeue", "-h"], timeout=10).stdout.strip() and time.monotonic() < deadline:
                    time.sleep(0.25)
            except (subprocess.TimeoutExpired, OSError):
                pass
        for name, p, _ in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(timeout=10)
        # a slurmstepd may take a moment to end after its slurmd; what is still there after that is left
        deadline = time.monotonic() + 10
        while (left := self.ours()) and time.monotonic() < deadline:
            time.sleep(0.25)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return left


class Context:
    cluster = None
    started = None   # None before the start, else an error message or ""
    exe = None
    jobs = {}


C = Context()


def need_cluster():
    if C.started != "":
        raise AssertionError(f"the cluster did not start: {C.started}")


def submit(args, **env):
    """sbatch from the checkout, as a user types it; returns the job id."""
    e = dict(C.cluster.env, PREDICT="h200", SMEMBENCH=C.exe, PYTHON=sys.executable)
    e.update(env)
    out = os.path.join(C.cluster.tmp, "out")
    p = C.cluster.run(["sbatch", "--parsable", "-o", f"{out}/%j.out"] + args, env=e, cwd=ROOT)
    assert p.returncode == 0, f"sbatch {' '.join(args)} exited {p.returncode}: {p.stderr.strip()}"
    return p.stdout.strip().split(";")[0]


def wait_jobs(*ids):
    """Waits (bounded) until none of the jobs (arrays included) is pending or running."""
    deadline = time.monotonic() + JOB_WAIT_S
    while time.monotonic() < deadline:
        p = C.cluster.run(["squeue", "-h", "-o", "%i %T %r", "-j", ",".join(ids)])
        if p.returncode == 0 and not p.stdout.strip():
            return
        time.sleep(0.5)
    raise AssertionError(f"jobs {','.join(ids)} still queued after {JOB_WAIT_S} s: {p.stdout.strip()}")


def job_records(jid):
    """scontrol's records of a job (one per array task) as dicts."""
    p = C.cluster.run(["scontrol", "-o", "show", "job", jid])
    assert p.returncode == 0, f"scontrol show job {jid}: {p.stderr.strip()}"
    return [dict(re.findall(r"(\w+)=(\S*)", line)) for line in p.stdout.splitlines() if line.strip()]


def output(jid):
    with open(os.path.join(C.cluster.tmp, "out", f"{jid}.out"), errors="replace") as f:
        return f.read()


def check_node_files(folder, sweep, nodes=NODES):
    """The folder holds exactly <node>.json for the nodes given, each whole and read by the one
    reader, naming its node and sweep; returns the documents."""
    names = sorted(f for f in os.listdir(folder) if f.endswith(".json"))
    assert names == [f"{n}.json" for n in nodes], f"{folder}: node files {names}; expected {nodes}"
    docs = []
    for n in nodes:
        doc = reader.load(os.path.join(folder, f"{n}.json"))
        run = doc["run"]
        assert run["node"] == n, f"{n}.json: run.node is {run.get('node')!r}"
        assert run["mode"] == "predict" and run["sweep"] == sweep, f"{n}.json: mode {run['mode']}, sweep {run['sweep']}"
        assert doc["results"] and not run["interrupted"], f"{n}.json: {len(doc['results'])} results, interrupted"
        docs.append(doc)
    counts = {len(d["results"]) for d in docs}
    assert len(counts) == 1, f"{folder}: node files of different lengths {sorted(counts)}"
    return docs


def state(rec):
    return f"{rec['JobState']} {rec['ExitCode']}"


def check_fleet_report(folder, names):
    if not os.path.exists(FLEET):
        raise Skip("scripts/fleet.py is not on this branch: the merge fell back to compare.py, which has "
                   "nothing to compare in predict mode")
    # the report: fleet.md (its --markdown output) and what it wrote in fleet/ (its -o folder)
    path = os.path.join(folder, "fleet.md")
    with open(path, errors="replace") as f:
        text = f.read()
    for base, _, files in os.walk(os.path.join(folder, "fleet")):
        for name in files:
            if name.endswith((".md", ".html", ".txt", ".csv", ".json")):
                with open(os.path.join(base, name), errors="replace") as f:
                    text += f.read()
    for n in names:
        assert re.search(rf"\b{n}\b", text), f"{path} (and {folder}/fleet/) do not name {n}"


@test
def local_cluster_starts_with_three_idle_nodes():
    C.started = "(not tried)"
    C.cluster.start()
    C.started = ""


@test
def a_plain_job_writes_one_whole_file_per_slurm_node():
    need_cluster()
    out = os.path.join(C.cluster.tmp, "plain")
    jid = C.jobs["plain"] = submit(["--nodes=3", SBATCH], SWEEP="carveout", OUTDIR=out)
    wait_jobs(jid)
    rec, = job_records(jid)
    assert state(rec) == "COMPLETED 0:0", f"job {jid}: {state(rec)}: {output(jid)[-500:]}"
    docs = check_node_files(out, "carveout")
    hosts = {d["run"]["host"] for d in docs}
    assert len(hosts) == 1, f"the three nodes of one host report hostnames {sorted(hosts)}"
    with open(os.path.join(out, "nodes")) as f:
        assert f.read().strip() == "n1,n2,n3"
    assert "3 node files of n1 n2 n3" in output(jid), output(jid)[-500:]
    assert os.path.exists(os.path.join(out, "plots", "carveout.svg")), "no plots/carveout.svg"


@test
def a_plain_job_reports_the_fleet():
    need_cluster()
    check_fleet_report(os.path.join(C.cluster.tmp, "plain"), NODES)


@test
def an_array_runs_one_sweep_per_task_and_a_dependent_merge_after_it():
    need_cluster()
    out = os.path.join(C.cluster.tmp, "array")
    jid = C.jobs["array"] = submit(["--array=0-1", "--nodes=3", SBATCH], SWEEP="carveout,dynamic", OUTDIR=out)
    mid = C.jobs["array_merge"] = submit([f"--dependency=afterany:{jid}", SBATCH, "merge", jid], OUTDIR=out)
    wait_jobs(jid, mid)
    tasks = sorted(job_records(jid), key=lambda r: r["ArrayTaskId"])
    assert [r["ArrayTaskId"] for r in tasks] == ["0", "1"], f"array tasks {[r['ArrayTaskId'] for r in tasks]}"
    for r in tasks:
        assert state(r) == "COMPLETED 0:0", f"task {r['ArrayTaskId']}: {state(r)}"
    for sweep in ("carveout", "dynamic"):
        check_node_files(os.path.join(out, sweep), sweep)
    merge, = job_records(mid)
    assert state(merge) == "COMPLETED 0:0", f"merge {mid}: {state(merge)}: {output(mid)[-500:]}"
    ends = max(r["EndTime"] for r in tasks)
    assert merge["StartTime"] >= ends, f"the merge started at {merge['StartTime']}, the array ended at {ends}"
    text = output(mid)
    for sweep in ("carveout", "dynamic"):
        assert f"{out}/{sweep}: 3 node files of n1 n2 n3" in text, f"merge output: {text[-500:]}"


@test
def the_array_merge_reports_each_sweep():
    need_cluster()
    for sweep in ("carveout", "dynamic"):
        check_fleet_report(os.path.join(C.cluster.tmp, "array", sweep), NODES)


@test
def a_node_whose_task_fails_fails_the_job_and_the_merge_names_it():
    need_cluster()
    out = os.path.join(C.cluster.tmp, "failed")
    wrapper = os.path.join(C.cluster.tmp, "fail-on-n2.sh")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\n# smembench, except on n2, where the task fails as a broken node\'s would\n'
                'if [ "$SLURMD_NODENAME" = n2 ]; then echo "fail-on-n2: failing on n2" >&2; exit 3; fi\n'
                f'exec "{C.exe}" "$@"\n')
    os.chmod(wrapper, 0o755)
    jid = C.jobs["failed"] = submit(["--nodes=3", SBATCH], SWEEP="carveout", OUTDIR=out, SMEMBENCH=wrapper)
    mid = C.jobs["failed_merge"] = submit([f"--dependency=afterany:{jid}", SBATCH, "merge", jid], OUTDIR=out)
    wait_jobs(jid, mid)
    rec, = job_records(jid)
    assert state(rec) == "FAILED 3:0", f"job {jid}: {state(rec)} (expected FAILED with the task's status 3)"
    check_node_files(out, "carveout", ["n1", "n3"])
    missing = f"{out}: no file from node n2"
    assert missing in output(jid), f"the job's output does not name n2: {output(jid)[-500:]}"
    merge, = job_records(mid)
    assert state(merge) == "FAILED 1:0", f"merge {mid}: {state(merge)} (expected FAILED 1:0)"
    assert missing in output(mid), f"the merge's output does not name n2: {output(mid)[-500:]}"
    assert "no file from node n1" not in output(mid) and "no file from node n3" not in output(mid)


@test
def the_fleet_report_names_the_missing_node():
    need_cluster()
    check_fleet_report(os.path.join(C.cluster.tmp, "failed"), ["n2"])


@test
def an_array_task_without_a_sweep_fails_with_one_line():
    need_cluster()
    out = os.path.join(C.cluster.tmp, "short")
    jid = C.jobs["short"] = submit(["--array=2", "--nodes=1", SBATCH], SWEEP="carveout,dynamic", OUTDIR=out)
    wait_jobs(jid)
    rec, = job_records(jid)
    assert state(rec) == "FAILED 2:0", f"job {jid}: {state(rec)}"
    text = output(jid).strip()
    assert text == "smembench: array task 2 has no sweep: SWEEP=carveout,dynamic names 2 (tasks 0-1)", text


@test
def a_node_that_dies_ends_the_job_and_the_merge_names_it():
    # last: n2 stays down
    need_cluster()
    out = os.path.join(C.cluster.tmp, "died")
    wrapper = os.path.join(C.cluster.tmp, "hang-on-n2.sh")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\n# smembench, except on n2, which hangs until the test kills the node\n'
                'if [ "$SLURMD_NODENAME" = n2 ]; then sleep 600; fi\n'
                f'exec "{C.exe}" "$@"\n')
    os.chmod(wrapper, 0o755)
    jid = C.jobs["died"] = submit(["--nodes=3", SBATCH], SWEEP="carveout", OUTDIR=out, SMEMBENCH=wrapper)
    mid = C.jobs["died_merge"] = submit([f"--dependency=afterany:{jid}", SBATCH, "merge", jid], OUTDIR=out)
    C.cluster.wait_for("n1.json and n3.json written, n2's task running",
                       lambda: all(os.path.exists(os.path.join(out, f"{n}.json")) for n in ("n1", "n3"))
                       and C.cluster.ours("n2"), JOB_WAIT_S)
    killed = C.cluster.kill_node("n2")
    assert killed["slurmd"] == 1 and killed["slurmstepd"] >= 1 and killed["tasks"] >= 1, f"killed on n2: {killed}"
    wait_jobs(jid, mid)
    rec, = job_records(jid)
    assert rec["JobState"] == "NODE_FAIL", f"job {jid}: {state(rec)} (expected NODE_FAIL)"
    p = C.cluster.run(["sinfo", "-h", "-n", "n2", "-o", "%t"])
    assert p.stdout.strip().startswith("down"), f"n2 is {p.stdout.strip()!r} (expected down)"
    check_node_files(out, "carveout", ["n1", "n3"])
    merge, = job_records(mid)
    assert state(merge) == "FAILED 1:0", f"merge {mid}: {state(merge)} (expected FAILED 1:0): {output(mid)[-500:]}"
    assert merge["NodeList"] in ("n1", "n3"), f"the merge ran on {merge['NodeList']}"
    text = output(mid)
    assert f"{out}: no file from node n2" in text, f"the merge's output does not name n2: {text[-500:]}"
    assert "no file from node n1" not in text and "no file from node n3" not in text, text[-500:]


@test
def the_fleet_report_names_the_dead_node():
    need_cluster()
    check_fleet_report(os.path.join(C.cluster.tmp, "died"), ["n2"])


def merge_folder(name, nodes="n1,n2"):
    """A run's folder as the script leaves it, made without Slurm: `nodes` and a predict-mode file per
    node written outside slurmd (no run.node), for the merge (`smembench.sbatch merge`) by hand."""
    d = os.path.join(C.cluster.tmp, name)
    os.makedirs(d)
    for n in (x for x in nodes.split(",") if x):
        subprocess.run([C.exe, "--predict", "h200", "--sweep", "carveout", "--quiet", "-o", os.path.join(d, f"{n}.json")],
                       check=True, stderr=subprocess.DEVNULL,
                       env={k: v for k, v in os.environ.items() if k != "SLURMD_NODENAME"})
    with open(os.path.join(d, "nodes"), "w") as f:
        f.write(nodes + "\n")
    return d


def merge(d, python=sys.executable, **kw):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM")}
    env.update(OUTDIR=d, PYTHON=python)
    env.update(kw.pop("env", {}))
    return subprocess.Popen(["bash", SBATCH, "merge"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


@test
def the_merge_of_node_files_without_run_node_names_their_nodes():
    """Node files without run.node (a driver run outside slurmd) named n1.json and n2.json: the fleet
    report has units n1 and n2 and no node missing (it called every node missing)."""
    d = merge_folder("merge-no-node")
    p = merge(d)
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0 and without_figure_lines(err) == "", (p.returncode, err)
    text = open(os.path.join(d, "fleet.md")).read()
    assert "| n1 gpu0 | n1 |" in text and "| n2 gpu0 | n2 |" in text and "Missing nodes" not in text, text[:1500]


@test
def a_merge_refuses_an_empty_node_list_and_a_bad_python_in_one_line():
    """A nodes file that names no node (it merged nothing and exited 0), PYTHON a missing program or
    one that fails (bash's own lines and 127 or 1): one line, exit 2, nothing written."""
    d = merge_folder("merge-empty", nodes="")
    p = merge(d)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 2 and err.strip() == f"smembench: {d}/nodes names no node; expected the job's nodes, " \
        "commas between them" and sorted(os.listdir(d)) == ["nodes"], (p.returncode, err, os.listdir(d))
    d = merge_folder("merge-python")
    for python in ("/nonexistent/python3", "/bin/false", os.path.join(ROOT, "README.md")):
        p = merge(d, python)
        out, err = p.communicate(timeout=60)
        assert p.returncode == 2 and err.strip() == f"smembench: PYTHON={python} does not run as Python 3.8 or " \
            "later; expected unset (python3) or the path of one", (python, p.returncode, err)
        assert sorted(os.listdir(d)) == ["n1.json", "n2.json", "nodes"], os.listdir(d)


@test
def ctrl_c_during_the_merge_stops_it_before_the_plots():
    """SIGINT to the merge's process group (Ctrl-C) while fleet.py writes (held there by
    SMEM_TEST_WRITE_DELAY_MS): the tool's one line, exit 130, no plots drawn after it."""
    d = merge_folder("merge-ctrl-c")
    p = merge(d, env={"SMEM_TEST_WRITE_DELAY_MS": "5000"}, start_new_session=True)
    for line in p.stderr:
        if "smembench-test: write" in line:
            break
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and err.strip() == "smembench: interrupted by SIGINT", (p.returncode, err)
    assert not os.path.exists(os.path.join(d, "plots")), os.listdir(d)


def main():
    if len(sys.argv) != 2:
        print("usage: test_slurm.py SMEMBENCH", file=sys.stderr)
        return 2
    missing = [p for p in PROGRAMS if not shutil.which(p, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")]
    if missing:
        print(f"1..0 # SKIP {', '.join(missing)} not installed (Debian: slurmctld slurmd slurm-client munge; "
              "scripts/setup.sh --dev installs them)")
        return 77
    C.exe = os.path.abspath(sys.argv[1])
    # meson's timeout sends SIGTERM: stop the cluster then too
    def interrupt(*_):
        raise Interrupted()
    signal.signal(signal.SIGTERM, interrupt)
    tmp = tempfile.mkdtemp(prefix="smem-slurm.")
    C.cluster = Cluster(tmp)
    print(f"1..{len(TESTS) + 1}")
    failed = 0
    interrupted = False
    try:
        for i, t in enumerate(TESTS, 1):
            try:
                t()
                print(f"ok {i} - {t.__name__}")
            except Skip as e:
                print(f"ok {i} - {t.__name__} # SKIP {e}")
            except Exception as e:  # noqa: BLE001 - every failure is reported, not raised
                failed += 1
                if C.started == "(not tried)":
                    C.started = str(e)
                one_line = " | ".join(x.strip() for x in str(e).splitlines() if x.strip())
                print(f"not ok {i} - {t.__name__}: {type(e).__name__}: {one_line}")
            sys.stdout.flush()
    except Interrupted:
        interrupted = True
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)   # the stop itself runs to its end
        left = C.cluster.stop()
    if interrupted:
        failed += 1
        print("# interrupted by SIGTERM: the cluster stopped, the checks left unreported")
    i = len(TESTS) + 1
    if left:
        failed += 1
        print(f"not ok {i} - every_process_started_is_stopped_by_pid: killed {len(left)} left behind: {left}")
    else:
        print(f"ok {i} - every_process_started_is_stopped_by_pid ({len(C.cluster.procs)} daemons)")
    if failed:
        print(f"# kept for a look: {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
