#!/usr/bin/env python3
"""The include graph of smembench's layers, as TAP: every #include "..." of core/, kernels/, bench/,
src/, include/ and tests/fault/ resolves (own folder first, then the Meson include directories core,
kernels, bench, src, include) to exactly one file; no include climbs from a lower layer to a higher
one (core <- kernels <- bench <- src, tests/fault being a benchmark, include/ the public header of
libsmembench beside src/); no include names a path ("../",
"src/"); and the headers include each other without a cycle. Then the same checks on made-up trees
with a planted violation each, which they must catch.

Inside src/, each file has a role (SRC_ROLES; src/model.h says the same): base <- model <- plan, run,
write <- top. A file includes its own role's headers or a lower rank's, never a higher one, and never
sideways between plan, run and write, which meet only in the model; a src file without a role is
an error, so a new file must be given one.

The Python side too (python/smembench): each module is a command (a main() installed as a
smembench-* command: pyproject.toml's project.scripts, meson.build's py_tools) or library; the
entry points (_commands, __main__) only dispatch to the commands. No command imports another
command, no library module imports a command or an entry point, every command has a main() and no
library module one; checked on made-up packages with a planted violation each too.

usage: test_layers.py SOURCE_ROOT"""
import ast
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402

# folder -> layer rank; a file may include its own rank or below
LAYERS = {"core": 0, "kernels": 1, "bench": 2, "tests/fault": 2, "src": 3, "include": 3}
INCLUDE_DIRS = ["core", "kernels", "bench", "src", "include"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def scan(root):
    """{file: [(line, included name)]} for every source file of the layers, paths relative to root."""
    return {rel: [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in INCLUDE.finditer(text)]
            for rel, text in tap.source_files(root, LAYERS).items()}


def layer(rel):
    return LAYERS[os.path.dirname(rel)]


def check(root):
    """(problems, edges): problems as text, edges {file: [resolved file]}."""
    problems, edges = [], {}
    for rel, includes in scan(root).items():
        edges[rel] = []
        for line, name in includes:
            where = f"{rel}:{line}: #include \"{name}\""
            if "/" in name:
                problems.append(f"{where} names a path; include by name from the include directories")
                continue
            found = []
            for d in [os.path.dirname(rel)] + INCLUDE_DIRS:
                cand = f"{d}/{name}"
                if os.path.isfile(os.path.join(root, cand)) and cand not in found:
                    found.append(cand)
            if not found:
                problems.append(f"{where} resolves to no file of the layers")
                continue
            if len(found) > 1:
                problems.append(f"{where} is ambiguous: {', '.join(found)} (a header name must be unique)")
            target = found[0]
            if layer(target) > layer(rel):
                problems.append(f"{where} climbs from {os.path.dirname(rel)}/ up to {os.path.dirname(target)}/")
            edges[rel].append(target)
    return problems, edges


def cycles(edges):
    """Every include cycle found by a depth-first walk, as 'a -> b -> a'."""
    found, state, stack = [], {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in edges.get(node, []):
            if state.get(nxt) == "open":
                found.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return found


# src/: role of each file (by name without its extension) -> rank; a file may include its own role or a
# lower rank. plan, run and write share a rank: between them an include is sideways.
SRC_RANKS = {"base": 0, "model": 1, "plan": 2, "run": 2, "write": 2, "top": 3}
SRC_ROLES = {
    # the statistics, the signal flag, NVML readings, the built-in GPU models, the occupancy calculator
    "stats": "base", "signals": "base", "nvml": "base", "gpus": "base", "occupancy": "base",
    # the hardware counters: the default set and CUPTI's range profiler (counters_cupti.cpp)
    "counters": "base", "counters_cupti": "base",
    # the result and its vocabulary: status names, the metric lookup, the point's description, the spread
    "result": "model", "model": "model",
    # the request into points; a user kernel's resources read from its file
    "sweep": "plan", "cubin": "plan",
    # points on a device (or the model): the pipeline, timing, progress, the probes, opening a device
    "runner": "run", "measure": "run", "progress": "run", "occupancy_gpu": "run", "device": "run",
    "device_open": "run", "gpc": "run",
    # the result file and the table
    "report_json": "write", "table": "write", "atomic_out": "write",
    # the command line and the outline of a run
    "main": "top", "cli": "top", "kernel_job": "top", "libsmembench": "top", "list": "top",
}


def src_role(rel):
    return SRC_ROLES.get(os.path.splitext(os.path.basename(rel))[0])


def check_src(root):
    """Problems of the include graph inside src/, as text."""
    problems = []
    _, edges = check(root)
    for rel in sorted(edges):
        if not rel.startswith("src/"):
            continue
        role = src_role(rel)
        if role is None:
            problems.append(f"{rel} has no role in src/ (SRC_ROLES: base, model, plan, run, write or top)")
            continue
        for target in edges[rel]:
            if not target.startswith("src/") or src_role(target) is None:
                continue
            other = src_role(target)
            if other == role or SRC_RANKS[other] < SRC_RANKS[role]:
                continue
            how = "sideways" if SRC_RANKS[other] == SRC_RANKS[role] else "up"
            problems.append(f"{rel} ({role}) includes {target} ({other}): {how}; "
                            f"{role} may include {role} and what lies below it, plan, run and write meet in the model")
    return problems


SRC_CLEAN = {
    "src/result.h": '#include "bench.h"\n',
    "src/model.h": '#include "result.h"\n',
    "src/stats.h": "",
    "src/sweep.h": '#include "model.h"\n#include "stats.h"\n',
    "src/table.c": '#include "model.h"\n',
    "src/main.c": '#include "runner.h"\n#include "sweep.h"\n#include "table.h"\n',
    "src/table.h": '#include "model.h"\n',
}


def fake_tree(files):
    return tap.fake_tree(files, "smemlayers")


CLEAN = {
    "core/smem.h": "",
    "kernels/load.h": '#include "smem.h"\n',
    "bench/bench.h": '#include "smem.h"\n#include "load.h"\n',
    "src/runner.h": '#include "bench.h"\n',
}


# --- python/smembench: library and thin commands -------------------------------------------------

PY_ENTRY = ("_commands", "__main__")     # the smembench-* commands' and python3 -m smembench's dispatchers
PY_SCRIPT = re.compile(r'^smembench-(\w+)\s*=\s*"smembench\._commands:(\w+)"', re.M)
MESON_TOOL = re.compile(r"^\s*'(\w+)': '", re.M)


def py_commands(root):
    """The modules installed as smembench-* commands, by pyproject.toml's project.scripts."""
    try:
        with open(os.path.join(root, "python", "pyproject.toml"), encoding="utf-8") as f:
            return sorted({tool for name, tool in PY_SCRIPT.findall(f.read()) if name == tool})
    except OSError:
        return []


def py_modules(root):
    """{module name: path} of every module of the package (smembench.figures.tile as figures.tile)."""
    base = os.path.join(root, "python", "smembench")
    out = {}
    for d, _, names in os.walk(base):
        for name in sorted(names):
            if name.endswith(".py"):
                rel = os.path.relpath(os.path.join(d, name), base)[:-3].replace(os.sep, ".")
                out[rel[:-len(".__init__")] if rel.endswith(".__init__") else rel] = os.path.join(d, name)
    return out


def py_imports(module, path):
    """[(line, module of the package)] that a module imports (anywhere in it, relative imports too)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    pkg = module.split(".")[:-1] if not path.endswith("__init__.py") else module.split(".")
    if module == "__init__":
        pkg = []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name[len("smembench."):]) for a in node.names if a.name.startswith("smembench.")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = pkg[:len(pkg) - (node.level - 1)] if node.level > 1 else pkg
                base = ".".join(parts + ([node.module] if node.module else []))
            elif node.module == "smembench" or (node.module or "").startswith("smembench."):
                base = node.module[len("smembench."):] if node.module != "smembench" else ""
            else:
                continue
            for a in node.names:
                # from smembench import compare: the module compare; from smembench.gate import judge: gate
                out.append((node.lineno, f"{base}.{a.name}".strip(".") if not base else base))
                if base and a.name != "*":
                    out.append((node.lineno, f"{base}.{a.name}"))
    return out


def py_check(root):
    """(problems, modules, imports): the layering of python/smembench."""
    modules = py_modules(root)
    commands = py_commands(root)
    problems, n = [], 0
    if not commands:
        problems.append("no smembench-* command in python/pyproject.toml's project.scripts")
    for c in commands:
        if c not in modules:
            problems.append(f"smembench-{c} is installed, but python/smembench/{c}.py does not exist")
    for m, path in sorted(modules.items()):
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        has_main = any(isinstance(x, ast.FunctionDef) and x.name == "main" for x in tree.body)
        kind = "command" if m in commands else "entry point" if m in PY_ENTRY else "library"
        if kind == "command" and not has_main:
            problems.append(f"python/smembench/{m}.py: the command smembench-{m} has no main()")
        if kind == "library" and has_main:
            problems.append(f"python/smembench/{m.replace('.', '/')}.py: a main() in a library module; a command "
                            "is installed as smembench-* (pyproject.toml, meson.build), else it is library")
        for line, target in py_imports(m, path):
            if target not in modules:
                continue        # a name from a module (from smembench.gate import judge), not a module
            n += 1
            where = f"python/smembench/{m.replace('.', '/')}.py:{line}: imports smembench.{target}"
            if target in PY_ENTRY and m not in PY_ENTRY:
                problems.append(f"{where}, an entry point; only the entry points dispatch to commands")
            elif target in commands and target != m and kind == "command":
                problems.append(f"{where}: a command imports another command; move what both need into the library")
            elif target in commands and kind == "library":
                problems.append(f"{where}: a library module imports a command")
    return problems, modules, commands, n


PY_CLEAN = {
    "python/pyproject.toml": '[project.scripts]\nsmembench-plot = "smembench._commands:plot"\n'
                             'smembench-compare = "smembench._commands:compare"\n',
    "python/smembench/__init__.py": "from smembench import reader\n",
    "python/smembench/_commands.py": "import importlib\n",
    "python/smembench/__main__.py": "from smembench import _commands\n",
    "python/smembench/reader.py": "import json\n",
    "python/smembench/gate.py": "from smembench import reader\nfrom smembench.reader import load\n",
    "python/smembench/figures/__init__.py": "from smembench.figures import common\n",
    "python/smembench/figures/common.py": "from .. import reader\n",
    "python/smembench/plot.py": "from smembench import figures, reader\n\n\ndef main():\n    return 0\n",
    "python/smembench/compare.py": "import smembench.gate\nfrom smembench.gate import judge\n\n\ndef main():\n"
                                   "    return 0\n",
}


def python_results(root):
    """The TAP results of the Python checks: the real package, a clean made-up one, planted violations."""
    results = []
    problems, modules, commands, n = py_check(root)
    results.append(("python/smembench: library and commands, no command imports a command, no library module a "
                    "command", problems))
    results.append((f"python/smembench was read: {len(modules)} modules, {len(commands)} commands, {n} imports",
                    [] if len(modules) > 20 and len(commands) >= 7 and n > 40 else ["too few modules: wrong root?"]))
    try:
        with open(os.path.join(root, "meson.build"), encoding="utf-8") as f:
            text = f.read()
        meson = sorted(MESON_TOOL.findall(text[text.index("py_tools = {"):text.index("}", text.index("py_tools = {"))]))
    except (OSError, ValueError):
        meson = []
    results.append(("meson installs the commands pip installs (py_tools, project.scripts)",
                    [] if meson == commands else [f"meson.build {meson}, pyproject.toml {commands}"]))
    problems, _, _, _ = py_check(fake_tree(PY_CLEAN))
    results.append(("a clean made-up package passes", problems))
    planted = [
        ("a command importing a command", {"python/smembench/compare.py": "from smembench import plot\n\n\n"
                                                                        "def main():\n    return 0\n"},
         "a command imports another command"),
        ("a command importing a command's function", {"python/smembench/plot.py": "from smembench.compare import "
                                                                                  "main as m\n\n\ndef main():\n"
                                                                                  "    return m()\n"},
         "a command imports another command"),
        ("a library module importing a command", {"python/smembench/gate.py": "import smembench.compare\n"},
         "a library module imports a command"),
        ("a figure module importing a command, relatively", {"python/smembench/figures/common.py":
                                                             "from .. import plot\n"},
         "a library module imports a command"),
        ("a library module importing a command inside a function", {"python/smembench/reader.py":
                                                                     "def f():\n    from smembench import plot\n"},
         "a library module imports a command"),
        ("a library module importing the dispatcher", {"python/smembench/gate.py": "from smembench import _commands\n"},
         "an entry point"),
        ("a main() not installed as a command", {"python/smembench/trend.py": "def main():\n    return 0\n"},
         "a main() in a library module"),
        ("an installed command without main()", {"python/smembench/compare.py": "X = 1\n"}, "has no main()"),
        ("an installed command without its module", {"python/pyproject.toml": PY_CLEAN["python/pyproject.toml"] +
                                                     'smembench-fleet = "smembench._commands:fleet"\n'},
         "python/smembench/fleet.py does not exist"),
    ]
    for what, extra, expect in planted:
        problems, _, _, _ = py_check(fake_tree({**PY_CLEAN, **extra}))
        caught = [p for p in problems if expect in p]
        results.append((f"a planted Python violation is caught: {what}", [] if caught else [f"not caught; saw {problems}"]))
    return results


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    results = []

    problems, edges = check(root)
    results.append(("the real tree: every include resolves to one file of a layer it may use", problems))
    loops = cycles(edges)
    results.append(("the real tree: no include cycle", loops))
    n_edges = sum(len(v) for v in edges.values())
    results.append((f"the real tree was read: {len(edges)} files, {n_edges} includes",
                    [] if len(edges) > 50 and n_edges > 100 else ["too few files or includes: wrong root?"]))

    problems, edges = check(fake_tree(CLEAN))
    results.append(("a clean made-up tree passes", problems + cycles(edges)))
    planted = [
        ("core including the driver", {"core/smem.h": '#include "runner.h"\n'}, "climbs from core/ up to src/"),
        ("a kernel including a benchmark header", {"kernels/load.h": '#include "bench.h"\n'},
         "climbs from kernels/ up to bench/"),
        ("a benchmark including the driver by path", {"bench/x.c": '#include "src/runner.h"\n'}, "names a path"),
        ("a \"../\" include", {"src/x.c": '#include "../bench/bench.h"\n'}, "names a path"),
        ("a header name in two layers", {"bench/load.h": ""}, "is ambiguous"),
        ("an include of nothing", {"src/x.c": '#include "nosuch.h"\n'}, "resolves to no file"),
    ]
    for what, extra, expect in planted:
        problems, _ = check(fake_tree({**CLEAN, **extra}))
        caught = [p for p in problems if expect in p]
        results.append((f"a planted violation is caught: {what}", [] if caught else [f"not caught; saw {problems}"]))
    _, edges = check(fake_tree({**CLEAN, "bench/a.h": '#include "b.h"\n', "bench/b.h": '#include "a.h"\n'}))
    loops = cycles(edges)
    results.append(("a planted include cycle is caught",
                    [] if any("bench/a.h" in c and "bench/b.h" in c for c in loops) else ["not caught"]))

    problems = check_src(root)
    results.append(("the real tree: inside src/, every file has a role and includes only its own or a lower one", problems))
    n_src = sum(1 for rel in check(root)[1] if rel.startswith("src/"))
    results.append((f"the real tree's src/ was read: {n_src} files",
                    [] if n_src > 30 else ["too few src/ files: wrong root?"]))
    problems = check_src(fake_tree({**CLEAN, **SRC_CLEAN}))
    results.append(("a clean made-up src/ passes", problems))
    planted_src = [
        ("the writer including the runner", {"src/table.c": '#include "runner.h"\n'}, "(write) includes src/runner.h (run): sideways"),
        ("the plan including the writer", {"src/sweep.h": '#include "table.h"\n'}, "(plan) includes src/table.h (write): sideways"),
        ("the model including the plan", {"src/model.h": '#include "sweep.h"\n'}, "(model) includes src/sweep.h (plan): up"),
        ("a base file including the model", {"src/stats.h": '#include "result.h"\n'}, "(base) includes src/result.h (model): up"),
        ("a run file including the top", {"src/runner.c": '#include "cli.h"\n', "src/cli.h": ""},
         "(run) includes src/cli.h (top): up"),
        ("a src file without a role", {"src/stray.c": '#include "model.h"\n'}, "src/stray.c has no role"),
    ]
    for what, extra, expect in planted_src:
        problems = check_src(fake_tree({**CLEAN, **SRC_CLEAN, **extra}))
        caught = [p for p in problems if expect in p]
        results.append((f"a planted violation in src/ is caught: {what}", [] if caught else [f"not caught; saw {problems}"]))

    results += python_results(root)
    return tap.report(results)


if __name__ == "__main__":
    sys.exit(main())
