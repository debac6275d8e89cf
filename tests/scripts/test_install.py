#!/usr/bin/env python3
"""Tests of the installation (TAP): meson install --destdir into a temporary prefix, then the
installed program and commands run from another directory (and from a moved prefix), a missing
Python module is one line naming its Debian package, man -l renders the man page, and the bash
completion, called as bash calls it (COMP_WORDS, COMP_CWORD), offers the program's own lists.

  test_install.py MESON BUILDDIR HAVE_MAN    (HAVE_MAN: true when meson found help2man)

Every smembench-* command too: --version, its man page and its completion (options, the choices an
option lists, files).

A second build with -Dtests=disabled, configured where pkg-config cannot find Criterion, installs
too.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RESULTS = os.path.join(ROOT, "results")
MESON, BUILD, HAVE_MAN = sys.argv[1], sys.argv[2], sys.argv[3] == "true"
COMMANDS = ("smembench-plot", "smembench-compare", "smembench-export", "smembench-report", "smembench-fleet",
            "smembench-ab", "smembench-trend", "smembench-catalog")
TESTS = []
DEST = tempfile.mkdtemp(prefix="smembench-install-")
PREFIX = None


class Skip(Exception):
    """The test cannot run here; reported as skipped with the reason, never as passed."""


def test(fn):
    TESTS.append(fn)
    return fn


def installed(*parts):
    return os.path.join(PREFIX, *parts)


def package():
    """The installed smembench package's folder (where meson's Python imports from, under the prefix)."""
    found = glob.glob(os.path.join(PREFIX, "lib*", "**", "smembench", "reader.py"), recursive=True)
    assert len(found) == 1, found
    return os.path.dirname(found[0])


def run(args, cwd, **kw):
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, **kw)


def install():
    global PREFIX
    p = subprocess.run([MESON, "install", "-C", BUILD, "--no-rebuild", "--destdir", DEST], capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    found = glob.glob(os.path.join(DEST, "**", "bin", "smembench"), recursive=True)
    assert len(found) == 1, found
    PREFIX = os.path.dirname(os.path.dirname(found[0]))


def the_lists():
    """Sweeps, benchmarks, axes, models and long options, read here from the program's own output."""
    exe = installed("bin", "smembench")
    listing = run([exe, "--list"], "/").stdout
    bench_part, sweep_part = listing.split("\nsweeps:\n")
    lists = {
        "sweeps": re.findall(r"^  (\S+) ", sweep_part, re.M),
        "benches": re.findall(r"^  (\S+) ", bench_part, re.M),
        "axes": sorted(set(re.findall(r"^    --axis (\w+)=", bench_part, re.M))),
        "models": re.findall(r"^  (\S+) ", run([exe, "--predict", "list"], "/").stdout, re.M),
        "options": sorted(set(re.findall(r"^ +(?:-\w, )?(--[a-z][a-z-]*)", run([exe, "--help"], "/").stdout, re.M))),
    }
    for k, v in lists.items():
        assert len(v) >= 3, (k, v)
    return lists


def complete(*words, env=None, cwd="/"):
    """COMPREPLY of the installed completion for the words (the last is the one being completed), as
    bash-completion loads it: the file named after the command, and the function it registered."""
    script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); '
              'COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; '
              'f=$(complete -p "${1##*/}"); f=${f#* -F }; "${f%% *}"; '
              'printf "%s\\n" "${COMPREPLY[@]}"')
    e = dict(os.environ, PATH=installed("bin") + os.pathsep + os.environ["PATH"])
    e.update(env or {})
    p = subprocess.run([shutil.which("bash"), "--norc", "--noprofile", "-c", script, "bash",
                        installed("share", "bash-completion", "completions", os.path.basename(words[0])), *words],
                       capture_output=True, text=True, timeout=60, env=e, cwd=cwd)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    return [w for w in p.stdout.split("\n") if w]


@test
def meson_install_puts_everything_in_place():
    install()
    for cmd in ("smembench",) + COMMANDS:
        f = installed("bin", cmd)
        assert os.path.isfile(f) and os.access(f, os.X_OK), f
    # every module and data file of the source package is installed (a module meson.build does not
    # list is an ImportError of the installed commands, not of the tree's)
    src = os.path.join(os.path.dirname(RESULTS), "python", "smembench")
    shipped = [os.path.relpath(os.path.join(dp, f), src) for dp, _, fs in os.walk(src) for f in fs
               if f.endswith((".py", ".json", ".css", ".js")) and "__pycache__" not in dp]
    assert len(shipped) > 40 and os.path.join("figures", "generations.py") in shipped, shipped
    for f in tuple(shipped) + ("_version.py", "py.typed", "schema.json"):
        assert os.path.isfile(os.path.join(package(), f)), f
    assert open(os.path.join(package(), "schema.json")).read() == \
        open(os.path.join(RESULTS, "schema.json")).read()
    for cmd in ("smembench",) + COMMANDS:
        assert os.path.isfile(installed("share", "bash-completion", "completions", cmd)), cmd
        if HAVE_MAN:
            assert os.path.isfile(installed("share", "man", "man1", cmd + ".1")), cmd
    licence = open(installed("share", "doc", "smembench", "LICENSE")).read()
    assert licence == open(os.path.join(ROOT, "LICENSE")).read()
    assert licence.startswith("MIT License\n\nCopyright (c) 2026 the smembench authors\n"), licence[:80]
    # the licence meson says the project has
    assert "license: 'MIT'" in open(os.path.join(ROOT, "meson.build")).read()
    if HAVE_MAN:
        assert os.path.isfile(installed("share", "man", "man1", "smembench.1"))
    for cmd in COMMANDS:
        first = open(installed("bin", cmd)).readline()
        assert first.startswith("#!/") and "python3" in first, (cmd, first)
        assert DEST not in open(installed("bin", cmd)).read(), f"{cmd} names the staging directory"


def hide_criterion(tmp):
    """A pkg-config search path holding every .pc file of this machine but Criterion's."""
    pc = os.path.join(tmp, "pkgconfig")
    os.mkdir(pc)
    pc_path = subprocess.run(["pkg-config", "--variable", "pc_path", "pkg-config"], capture_output=True,
                             text=True).stdout.strip()
    for d in os.environ.get("PKG_CONFIG_PATH", "").split(os.pathsep) + pc_path.split(os.pathsep):
        for f in glob.glob(os.path.join(d, "*.pc")) if d else ():
            name = os.path.basename(f)
            if not name.startswith("criterion") and not os.path.exists(os.path.join(pc, name)):
                os.symlink(f, os.path.join(pc, name))
    env = dict(os.environ, PKG_CONFIG_LIBDIR=pc, PKG_CONFIG_PATH="")
    assert subprocess.run(["pkg-config", "--exists", "criterion"], env=env).returncode != 0
    assert subprocess.run(["pkg-config", "--exists", "libcjson"], env=env).returncode == 0
    return env


@test
def tests_disabled_needs_no_criterion_and_builds_no_test():
    """-Dtests=disabled on a machine without Criterion (pkg-config here cannot find it): configures
    without looking it up, meson install builds no test program and installs every command, and each
    of them (smembench and the seven smembench-*) says its version from the staging tree."""
    if not shutil.which("pkg-config"):
        raise Skip("no pkg-config (Debian package pkgconf)")
    with tempfile.TemporaryDirectory() as tmp:
        env = hide_criterion(tmp)
        build, dest = os.path.join(tmp, "build"), os.path.join(tmp, "dest")
        p = subprocess.run([MESON, "setup", build, ROOT, "-Dtests=disabled", "-Dcuda=disabled", "--buildtype=release"],
                           capture_output=True, text=True, timeout=120, env=env)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
        log = open(os.path.join(build, "meson-logs", "meson-log.txt")).read()
        assert "criterion" not in log.lower(), [line for line in log.splitlines() if "riterion" in line][:5]
        # the library, the program and the man page only: seconds, bounded at eight minutes
        p = subprocess.run([MESON, "install", "-C", build, "--destdir", dest], capture_output=True, text=True,
                           timeout=480, env=env)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
        built = [os.path.relpath(os.path.join(d, f), build) for d, _, fs in os.walk(build) for f in fs]
        tests = [f for f in built if f.startswith("tests" + os.sep)
                 or os.path.basename(f) in ("test_unit", "test_gpu", "smembench-hooks", "smembench-faulty")]
        assert not tests, tests[:5]
        bins = glob.glob(os.path.join(dest, "**", "bin", "*"), recursive=True)
        assert sorted(os.path.basename(b) for b in bins) == sorted(("smembench",) + COMMANDS), bins
        for b in bins:
            assert os.access(b, os.X_OK), b
        # every command from the staging tree: each launcher finds the package relative to its bindir
        version = project_version()
        for b in bins:
            cmd = os.path.basename(b)
            p = run([b, "--version"], tmp)
            if cmd == "smembench":
                assert p.returncode == 0 and p.stdout.startswith(f"smembench {version} "), p.stdout + p.stderr
            else:
                assert (p.returncode, p.stdout, p.stderr) == (0, f"{cmd} {version}\n", ""), (cmd, p)


@test
def the_program_names_its_commit():
    with tempfile.TemporaryDirectory() as cwd:
        p = run([installed("bin", "smembench"), "--version"], cwd)
    m = re.match(r"smembench \S+ \(commit (\S+), schema smembench/1\)\n$", p.stdout)
    assert p.returncode == 0 and m, p.stdout
    git = shutil.which("git")
    if git and run([git, "-C", ROOT, "rev-parse", "--git-dir"], ROOT).returncode == 0:
        want = run([git, "-C", ROOT, "describe", "--always", "--dirty"], ROOT).stdout.strip()
        assert m.group(1) == want, (m.group(1), want)
    else:
        assert m.group(1) != "unknown" or not os.environ.get("SMEM_GIT_REV"), m.group(1)


@test
def the_commands_run_from_another_directory():
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data")
        os.mkdir(data)
        for name in ("carveout", "bank-bandwidth_run1", "bank-bandwidth_run2"):
            shutil.copy(os.path.join(RESULTS, f"nvidia-h200_20261129_{name}.json"), data)
        run1, run2, carveout = (os.path.join(data, f"nvidia-h200_20261129_{n}.json")
                                for n in ("bank-bandwidth_run1", "bank-bandwidth_run2", "carveout"))
        cwd = os.path.join(tmp, "work")
        os.mkdir(cwd)
        p = run([installed("bin", "smembench-plot"), run1, carveout, "-o", "plots"], cwd)
        assert p.returncode == 0, p.stderr
        assert sorted(os.listdir(os.path.join(cwd, "plots"))) == sorted(
            f"{n}.{e}" for n in ("bank", "bandwidth", "carveout") for e in ("png", "svg")), os.listdir(cwd)
        p = run([installed("bin", "smembench-compare"), run1, run2], cwd)
        assert p.returncode == 0 and "102 points compared" in p.stdout, p.stdout[-300:] + p.stderr
        p = run([installed("bin", "smembench-export"), carveout, "--format", "bmf"], cwd)
        assert p.returncode == 0 and p.stdout.lstrip().startswith("{"), p.stderr
        p = run([installed("bin", "smembench-report"), run2, "--baseline", run1, "-o", "report"], cwd)
        assert p.returncode == 0 and os.path.isfile(os.path.join(cwd, "report", "index.html")), p.stderr
        p = run([installed("bin", "smembench-fleet"), run1, run2], cwd)
        assert p.returncode == 0 and "2 units, 102 points" in p.stdout, p.stdout[-300:] + p.stderr
        p = run([installed("bin", "smembench-trend"), run1, run2, "-o", "trend"], cwd)
        assert p.returncode == 0 and os.path.isfile(os.path.join(cwd, "trend", "index.html")), p.stderr
        p = run([installed("bin", "smembench-ab"), "--files", "nothing-here"], cwd)
        assert p.returncode == 2 and p.stderr.startswith("smembench: nothing-here: no such directory"), p.stderr
        # the installed reader checks against the installed schema, not the source tree's
        p = run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); from smembench import reader; "
                 "print(reader.SCHEMA_FILE)", os.path.dirname(package())], cwd)
        assert os.path.realpath(p.stdout.strip()) == os.path.realpath(os.path.join(package(), "schema.json"))


@test
def a_moved_prefix_still_works():
    with tempfile.TemporaryDirectory() as tmp:
        moved = os.path.join(tmp, "elsewhere")
        shutil.copytree(PREFIX, moved, symlinks=True)
        run1 = os.path.join(RESULTS, "nvidia-h200_20261129_bank-bandwidth_run1.json")
        p = run([os.path.join(moved, "bin", "smembench-compare"), run1, run1], tmp)
        assert p.returncode == 0 and "102 same" in p.stdout, p.stderr


@test
def a_prefix_moved_without_its_lib_says_what_is_missing():
    """bin/ copied elsewhere without lib/: each command one line naming the package folder it looked
    in, 70, no ImportError traceback; the driver, which needs no lib/, still runs."""
    with tempfile.TemporaryDirectory() as tmp:
        moved = os.path.join(tmp, "elsewhere")
        shutil.copytree(PREFIX, moved, symlinks=True,
                        ignore=lambda d, names: [n for n in names if d == PREFIX and n.startswith("lib")])
        for cmd in COMMANDS:
            p = run([os.path.join(moved, "bin", cmd), "--version"], tmp)
            lines = p.stderr.strip().splitlines()
            assert p.returncode == 70 and len(lines) == 1 and not p.stdout, (cmd, p.returncode, p.stderr)
            assert lines[0].startswith(f"{cmd}: the smembench Python package is missing: no {moved}/lib"), lines
        p = run([os.path.join(moved, "bin", "smembench"), "--version"], tmp)
        assert p.returncode == 0 and p.stdout.startswith("smembench "), p.stderr


@test
def a_closed_pipe_gives_the_status_the_readme_promises():
    """smembench-compare ... | head -c 100 keeps the gate's status (here 1: a point is missing) and
    smembench-export ... | head ends with 0, quietly, as the scripts do; not 141 (SIGPIPE). The
    output is well over a pipe's 64 KiB, so the command is still writing when head leaves."""
    with tempfile.TemporaryDirectory() as tmp:
        run1 = os.path.join(RESULTS, "nvidia-h200_20261129_bank-bandwidth_run1.json")
        doc = json.load(open(run1))
        doc["results"].pop()
        less = os.path.join(tmp, "less.json")
        json.dump(doc, open(less, "w"))
        every = os.path.join(RESULTS, "nvidia-h200_20261130_all.json")
        for cmd, args, head, want in (("smembench-compare", [run1] + [less] * 12, "head -c 100", 1),
                                      ("smembench-export", [every, "--format", "csv"], "head -n 1", 0)):
            script = f'"$@" | {head} >/dev/null; echo "${{PIPESTATUS[0]}}"'
            p = run([shutil.which("bash"), "-c", script, "bash", installed("bin", cmd), *args], tmp)
            status = int(p.stdout.strip())
            noise = [line for line in p.stderr.splitlines() if "not exported" not in line]
            assert status == want and not noise, (cmd, status, p.stderr[-500:])
        assert sorted(os.listdir(tmp)) == ["less.json"], os.listdir(tmp)


@test
def a_missing_module_is_one_line_naming_the_debian_package():
    with tempfile.TemporaryDirectory() as tmp:
        carveout = os.path.join(RESULTS, "nvidia-h200_20261129_carveout.json")
        for cmd in ("smembench-plot", "smembench-report"):
            # -S: no site-packages, so no matplotlib
            p = run([sys.executable, "-S", installed("bin", cmd), carveout, "-o", tmp], tmp)
            lines = p.stderr.strip().splitlines()
            assert p.returncode == 3 and len(lines) == 1, (cmd, p.returncode, p.stderr)
            assert lines[0].startswith(f"{cmd}: ") and "Debian package python3-matplotlib" in lines[0], lines
        assert os.listdir(tmp) == []


@test
def man_renders_the_page():
    if not HAVE_MAN:
        raise Skip("meson found no help2man: no man page was built")
    man = shutil.which("man")
    if not man:
        raise Skip("no man (Debian package man-db; scripts/setup.sh --dev installs it)")
    p = run([man, "-l", installed("share", "man", "man1", "smembench.1")], "/",
            env=dict(os.environ, MANPAGER="cat", PAGER="cat", MANWIDTH="100", LC_ALL="C.UTF-8"))
    assert p.returncode == 0, p.stderr
    text = re.sub(r".\x08", "", p.stdout)
    for heading in ("NAME", "SYNOPSIS", "DESCRIPTION", "EXAMPLES", "FILES", "SEE ALSO"):
        assert re.search(rf"^{heading}$", text, re.M), heading
    assert re.search(r"^ +smembench --sweep NAME\[,NAME\.\.\.\] \[options\]$", text, re.M), text[:600]
    assert "smembench - benchmark suite for GPU shared memory" in text
    for opt in the_lists()["options"]:
        assert opt in text, f"the man page lacks {opt}"


@test
def completion_of_sweep_offers_the_programs_sweeps():
    want = the_lists()["sweeps"]
    assert "carveout" in want and "dynamic" in want
    assert complete("smembench", "--sweep", "") == want
    assert complete("smembench", "-s", "car") == ["carveout"]
    assert complete("smembench", "--sweep", "carveout,d") == ["carveout,dynamic"]
    assert complete("smembench", "--sweep", "=", "") == want          # --sweep=<TAB>
    assert complete("smembench", "--sweep", "=", "ba") == [s for s in want if s.startswith("ba")]


@test
def completion_offers_options_benchmarks_axes_and_models():
    lists = the_lists()
    assert sorted(complete("smembench", "--")) == lists["options"]
    assert complete("smembench", "--bench", "") == lists["benches"]
    assert complete("smembench", "--predict", "") == ["list"] + lists["models"]
    assert sorted(complete("smembench", "--axis", "")) == [a + "=" for a in lists["axes"]]
    assert complete("smembench", "--axis", "width_b") == ["width_bytes="]
    assert complete("smembench", "--axis", "width_bytes", "=", "") == []
    assert complete("smembench", "--device", "") == ["all"]
    assert complete("smembench", "--seed", "") == []
    # the program is asked by the path typed, too
    assert complete(installed("bin", "smembench"), "--sweep", "") == lists["sweeps"]
    # not a smembench anywhere: nothing, quietly
    assert complete("smembench", "--sweep", "", env={"PATH": "/nonexistent"}) == []


def project_version():
    m = re.search(r"^project\([^)]*?\bversion: *'([^']+)'", open(os.path.join(ROOT, "meson.build")).read(), re.M)
    return m.group(1)


def tool_options(cmd):
    """The options a command's --help lists (argparse's "options:" part), and the choices of each."""
    text = run([installed("bin", cmd), "--help"], "/").stdout
    part = re.split(r"^(?:options|optional arguments):$", text, flags=re.M)[1]
    options, choices = set(), {}
    for line in re.findall(r"^ +(-.*)$", part, re.M):
        for form in re.split(r"  ", line)[0].split(", "):
            name, _, arg = form.partition(" ")
            options.add(name)
            if arg.startswith("{"):
                choices[name] = arg.strip("{}").split(",")
    assert {"-h", "--help", "--version"} <= options, (cmd, options)
    return options, choices


@test
def every_command_says_its_version():
    version = project_version()
    with tempfile.TemporaryDirectory() as cwd:
        p = run([installed("bin", "smembench"), "--version"], cwd)
        assert p.returncode == 0 and p.stdout.startswith(f"smembench {version} "), p.stdout
        for cmd in COMMANDS:
            p = run([installed("bin", cmd), "--version"], cwd)
            assert (p.returncode, p.stdout, p.stderr) == (0, f"{cmd} {version}\n", ""), (cmd, p)
            # the usage names the command as installed, not its script
            p = run([installed("bin", cmd), "--help"], cwd)
            assert p.returncode == 0 and p.stdout.startswith(f"usage: {cmd} "), (cmd, p.stdout[:80])
            # the script in the tree says the same with its own name
            script = cmd[len("smembench-"):] + ".py"
            p = run([sys.executable, os.path.join(ROOT, "scripts", script), "--version"], cwd)
            assert (p.returncode, p.stdout) == (0, f"{script} {version}\n"), (script, p)


@test
def man_renders_every_commands_page():
    if not HAVE_MAN:
        raise Skip("meson found no help2man: no man pages were built")
    man = shutil.which("man")
    if not man:
        raise Skip("no man (Debian package man-db; scripts/setup.sh --dev installs it)")
    version = project_version()
    for cmd in COMMANDS:
        p = run([man, "-l", installed("share", "man", "man1", cmd + ".1")], "/",
                env=dict(os.environ, MANPAGER="cat", PAGER="cat", MANWIDTH="2000", LC_ALL="C.UTF-8"))
        assert p.returncode == 0 and p.stderr == "", (cmd, p.stderr)
        text = re.sub(r".\x08", "", p.stdout)
        for heading in ("NAME", "SYNOPSIS", "DESCRIPTION"):
            assert re.search(rf"^{heading}$", text, re.M), (cmd, heading)
        assert re.search(rf"^ +{cmd} - \S", text, re.M), (cmd, text[:300])
        assert re.search(rf"^ +{cmd} \[-h\] \[--version\] ", text, re.M), (cmd, text[:500])
        assert re.search(rf"smembench {re.escape(version)} .*{cmd.upper()}\(1\)$", text, re.M), (cmd, text[-300:])
        for opt in tool_options(cmd)[0]:
            assert re.search(rf"(^|[\s\[]){re.escape(opt)}\b", text), f"the man page of {cmd} lacks {opt}"


@test
def completion_of_every_command_offers_its_options_choices_and_files():
    for cmd in COMMANDS:
        options, choices = tool_options(cmd)
        assert sorted(complete(cmd, "--")) == sorted(o for o in options if o.startswith("--")), cmd
        assert sorted(complete(cmd, "-")) == sorted(options), cmd
        for opt, values in choices.items():
            assert complete(cmd, opt, "") == values, (cmd, opt)
            assert complete(cmd, opt, "=", values[0][:2]) == [v for v in values if v.startswith(values[0][:2])]
        # the path typed works as the name does
        assert sorted(complete(installed("bin", cmd), "--")) == sorted(o for o in options if o.startswith("--"))
    assert "--format" in tool_options("smembench-export")[1]
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("base.json", "new.json", "notes.txt"):
            open(os.path.join(tmp, name), "w").close()
        os.mkdir(os.path.join(tmp, "runs"))
        assert complete("smembench-compare", "", cwd=tmp) == ["base.json", "new.json", "notes.txt", "runs"]
        assert complete("smembench-plot", "n", cwd=tmp) == ["new.json", "notes.txt"]
        assert complete("smembench-report", "--baseline", "b", cwd=tmp) == ["base.json"]
        assert complete("smembench-plot", "-o", "r", cwd=tmp) == ["runs"]
    # not installed anywhere: nothing, quietly
    assert complete("smembench-plot", "--", env={"PATH": "/nonexistent"}) == []


def main():
    print(f"1..{len(TESTS)}")
    failed = 0
    try:
        for i, t in enumerate(TESTS, 1):
            try:
                if PREFIX is None and t is not meson_install_puts_everything_in_place:
                    raise AssertionError("nothing installed")
                t()
                print(f"ok {i} - {t.__name__}")
            except Skip as e:
                print(f"ok {i} - {t.__name__} # SKIP {e}")
            except Exception as e:  # noqa: BLE001 - every failure is reported, not raised
                failed += 1
                print(f"not ok {i} - {t.__name__}: {type(e).__name__}: {e}")
    finally:
        shutil.rmtree(DEST, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
