"""The docs cannot lie: README.md and docs/ checked against the code and the files they cite.

  - every command of a ```sh block is run (in a scratch directory, `smembench` the driver under test,
    the checkout's folders beside it) and must exit as the line says (`# ... exit N` at its end; 0
    otherwise); ```console and ```text blocks are shown, never run (they need a GPU, a cluster, a
    network or a long build);
  - every relative link and #anchor resolves (GitHub's heading slugs), the lab notebook's
    results/**/NOTES.md included;
  - every number docs/quoted.tsv lists is on its page and equal to its file's value at its JSON path;
  - the options of `smembench --help` and of docs/usage.md's option table are the same, and those of
    each result tool's --help (its man page's source) and of its page's option table;
  - docs/result-format.md's field tables name every field of results/schema.json's objects, and no other.
Then each checker is fed a planted fault (a broken link, a stale option, a wrong number, a wrong
exit status, an undocumented field) in a copy of the docs and must report it.

usage: test_docs.py SMEMBENCH [ROOT]"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import tap
from tap import test

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else None
ROOT = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else os.path.dirname(os.path.dirname(HERE))
TMP = tempfile.mkdtemp(prefix="smem-docs-")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")


def pages(root, notes=False):
    """README.md and every page under docs/ (and with notes, the lab notebook's results/**/NOTES.md),
    as paths relative to root."""
    out = ["README.md"]
    for d, _, files in sorted(os.walk(os.path.join(root, "docs"))):
        out += sorted(os.path.relpath(os.path.join(d, f), root) for f in files if f.endswith(".md"))
    if notes:
        for d, _, files in sorted(os.walk(os.path.join(root, "results"))):
            out += [os.path.relpath(os.path.join(d, "NOTES.md"), root)] if "NOTES.md" in files else []
    return out


def blocks(text):
    """(info, first line number, lines) of every fenced block, and the text with blocks blanked."""
    found, prose, cur = [], [], None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if cur is None and m:
            cur = (m.group(3), n + 1, [], m.group(2))
            prose.append("")
        elif cur is not None and line.strip().startswith(cur[3]) and line.strip().strip(cur[3][0]) == "":
            found.append(cur[:3])
            cur = None
            prose.append("")
        elif cur is not None:
            cur[2].append(line)
            prose.append("")
        else:
            prose.append(line)
    return found, "\n".join(prose)


def slug(heading):
    """GitHub's anchor for a heading: the rendered text lowercased, punctuation but - and _ dropped,
    spaces to hyphens."""
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    t = re.sub(r"<[^>]+>", "", t).replace("`", "").replace("*", "")
    t = t.strip().lower()
    t = re.sub(r"[^\w\- ]", "", t)
    return t.replace(" ", "-")


def anchors(path):
    _, prose = blocks(open(path, encoding="utf-8").read())
    seen, out = {}, set()
    for line in prose.split("\n"):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            k = seen.get(s, 0)
            out.add(s if k == 0 else f"{s}-{k}")
            seen[s] = k + 1
        for a in re.findall(r'<a\s+(?:name|id)="([^"]+)"', line):
            out.add(a)
    return out


def check_links(root):
    """(links checked, problems)."""
    n, bad = 0, []
    for page in pages(root, notes=True):
        _, prose = blocks(open(os.path.join(root, page), encoding="utf-8").read())
        prose = re.sub(r"`[^`\n]*`", "", prose)
        for target in re.findall(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", prose):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue
            n += 1
            path, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(root, os.path.dirname(page), path)) if path else os.path.join(root, page)
            if not os.path.exists(dest):
                bad.append(f"{page}: link to {target}: no such file")
            elif frag and dest.endswith(".md") and frag not in anchors(dest):
                bad.append(f"{page}: link to {target}: no heading #{frag} in {os.path.relpath(dest, root)}")
            elif frag and not dest.endswith(".md") and not dest.endswith(".html"):
                bad.append(f"{page}: link to {target}: an anchor into a file that has none")
    return n, bad


def commands(root):
    """(page, line, command, expected exit status) of every ```sh block line."""
    out = []
    for page in pages(root):
        found, _ = blocks(open(os.path.join(root, page), encoding="utf-8").read())
        for info, first, lines in found:
            if info != "sh":
                continue
            cmd, start = "", None
            for i, line in enumerate(lines):
                if start is None:
                    if not line.strip() or line.lstrip().startswith("#"):
                        continue
                    start = first + i
                cmd += line[:-1] + " " if line.endswith("\\") else line
                if line.endswith("\\"):
                    continue
                m = re.search(r"\s#[^'\"]*?\bexit (\d+)\s*$", cmd)
                out.append((page, start, cmd.strip(), int(m.group(1)) if m else 0, (page, first)))
                cmd, start = "", None
    return out


def scratch(root, name):
    """A directory with the checkout's top level linked in, build/smembench and `smembench` the
    driver under test, for one block's commands."""
    d = os.path.join(TMP, name)
    os.makedirs(os.path.join(d, "bin"))
    os.makedirs(os.path.join(d, "build"))
    for e in os.listdir(root):
        if e not in ("build", ".git") and not e.startswith("build"):
            os.symlink(os.path.join(root, e), os.path.join(d, e))
    os.symlink(DRIVER, os.path.join(d, "build", "smembench"))
    os.symlink(DRIVER, os.path.join(d, "bin", "smembench"))
    os.symlink(sys.executable, os.path.join(d, "bin", "python3"))
    return d


def tree(root):
    """(path, size, mtime) of every file of the checkout but .git, the build folders and Python's
    byte-code caches (another test may import the package meanwhile): the commands run in a scratch
    directory, and must leave the checkout as it was."""
    out = set()
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x != "__pycache__" and not (d == root and (x == ".git" or x.startswith("build")))]
        for f in files:
            st = os.lstat(os.path.join(d, f))
            out.add((os.path.relpath(os.path.join(d, f), root), st.st_size, st.st_mtime_ns))
    return out


def run_commands(root, only=None):
    """(commands run, problems); only: one page's commands."""
    if DRIVER is None or not os.access(DRIVER, os.X_OK):
        raise tap.Skip("no driver given")
    before = tree(root)
    cwd, block, bad = None, None, []
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    cmds = [c for c in commands(root) if only is None or c[0] == only]
    for page, line, cmd, want, blk in cmds:
        if blk != block:
            block = blk
            cwd = scratch(root, f"block{len(os.listdir(TMP))}")
            env["PATH"] = os.path.join(cwd, "bin") + os.pathsep + os.environ.get("PATH", "")
        try:
            p = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True,
                               timeout=300, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            bad.append(f"{page}:{line}: `{cmd}` ran past 300 s")
            continue
        if p.returncode != want:
            bad.append(f"{page}:{line}: `{cmd}` exited {p.returncode}, the page says {want}: "
                       + (p.stderr or p.stdout).strip()[-400:])
    changed = sorted({f[0] for f in before ^ tree(root)})
    if changed:
        bad.append("the commands changed the checkout: " + ", ".join(changed[:10]))
    return len(cmds), bad


def json_path(doc, path):
    """The value at a dotted path; a segment name[k=v,k.k=v] picks the one element of a list whose
    keys have those values."""
    cur = doc
    for seg in re.findall(r"[^.\[]+(?:\[[^\]]*\])?", path):
        m = re.match(r"([^\[]+)(?:\[([^\]]*)\])?$", seg)
        key, sel = m.group(1), m.group(2)
        cur = cur[int(key)] if isinstance(cur, list) else cur[key]
        if sel is not None:
            conds = [c.split("=", 1) for c in sel.split(",")]

            def match(e):
                for k, v in conds:
                    x = e
                    for part in k.split("."):
                        x = x.get(part) if isinstance(x, dict) else None
                    if str(x) != v:
                        return False
                return True
            hits = [e for e in cur if match(e)]
            if len(hits) != 1:
                raise KeyError(f"{seg} matches {len(hits)} elements, not one")
            cur = hits[0]
    return cur


def check_quoted(root):
    """(values checked, problems) for docs/quoted.tsv: page, the text as quoted with the number
    checked in braces, file, JSON path, scale."""
    n, bad, cache = 0, [], {}
    for ln, line in enumerate(open(os.path.join(root, "docs", "quoted.tsv"), encoding="utf-8"), 1):
        if not line.strip() or line.startswith("#"):
            continue
        f = line.rstrip("\n").split("\t")
        page, quoted, file, path = f[:4]
        scale = float(f[4]) if len(f) > 4 and f[4] else 1.0
        n += 1
        where = f"docs/quoted.tsv:{ln} ({page}: {quoted!r})"
        num = re.search(r"\{(-?\d+(?:\.\d+)?)\}", quoted)
        if not num:
            bad.append(f"{where}: no number in braces")
            continue
        text = open(os.path.join(root, page), encoding="utf-8").read()
        if quoted.replace("{", "").replace("}", "") not in text:
            bad.append(f"{where}: not on the page")
            continue
        if file not in cache:
            cache[file] = json.load(open(os.path.join(root, file), encoding="utf-8"))
        try:
            value = float(json_path(cache[file], path)) * scale
        except (KeyError, IndexError, TypeError, ValueError) as e:
            bad.append(f"{where}: {file} has no {path}: {e}")
            continue
        q = num.group(1)
        decimals = len(q.split(".")[1]) if "." in q else 0
        if abs(value - float(q)) > 0.5 * 10 ** -decimals + 1e-9:
            bad.append(f"{where}: {file} {path} is {value:.{decimals + 2}f}, the page says {q}")
    return n, bad


def help_options(text):
    opts = set()
    for line in text.split("\n"):
        m = re.match(r"^\s+(-[A-Za-z]),?\s+(--[a-z][a-z0-9-]*)|^\s+(--[a-z][a-z0-9-]*)", line)
        if m:
            opts |= {o for o in m.groups() if o}
    return opts


def usage_options(root, page="docs/usage.md"):
    """The options in the first column of a page's table under "## Options"."""
    text = open(os.path.join(root, page), encoding="utf-8").read()
    sect = re.search(r"^## Options\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    opts = set()
    for row in re.findall(r"^\|([^|\n]*)\|", sect.group(1) if sect else "", re.M):
        opts |= set(re.findall(r"`(--?[A-Za-z][a-z0-9-]*)", row))
    return opts


def check_options(root):
    if DRIVER is None:
        raise tap.Skip("no driver given")
    helped = help_options(subprocess.run([DRIVER, "--help"], capture_output=True, text=True, timeout=60).stdout)
    documented = usage_options(root)
    bad = [f"{o} is in smembench --help but not in docs/usage.md's option table" for o in sorted(helped - documented)]
    bad += [f"{o} is in docs/usage.md's option table but not in smembench --help" for o in sorted(documented - helped)]
    return len(helped), bad


# each result tool's page; its --help is also its man page (help2man), so the two agree through it
TOOL_PAGES = {"plot": "docs/plot.md", "report": "docs/report.md", "compare": "docs/gate.md", "ab": "docs/history-ab.md",
              "trend": "docs/trend.md", "fleet": "docs/fleet.md", "export": "docs/exports-ci.md",
              "catalog": "docs/catalog.md"}


def tool_help_options(root, tool):
    out = subprocess.run([sys.executable, os.path.join(root, "scripts", tool + ".py"), "--help"],
                         capture_output=True, text=True, timeout=120).stdout
    sect = out.split("\noptions:\n", 1)[-1]
    opts = set()
    for line in sect.split("\n"):
        m = re.match(r"^  (-\S.*?)(?:\s{2,}|$)", line)
        if m:
            opts |= set(re.findall(r"(?:^|, )(--?[A-Za-z][a-z0-9-]*)", m.group(1)))
    return opts


def check_tool_options(root):
    n, bad = 0, []
    for tool, page in TOOL_PAGES.items():
        helped, documented = tool_help_options(root, tool), usage_options(root, page)
        n += len(helped)
        bad += [f"{o} is in {tool}.py --help but not in {page}'s option table" for o in sorted(helped - documented)]
        bad += [f"{o} is in {page}'s option table but not in {tool}.py --help" for o in sorted(documented - helped)]
    return n, bad


def check_schema(root):
    """(objects checked, problems): each `<!-- schema: POINTER -->` under a heading of
    docs/result-format.md against the properties at that JSON pointer of results/schema.json."""
    schema = json.load(open(os.path.join(root, "results", "schema.json"), encoding="utf-8"))
    text = open(os.path.join(root, "docs", "result-format.md"), encoding="utf-8").read()

    def resolve(ptr):
        cur = schema
        for part in filter(None, ptr.lstrip("#").split("/")):
            cur = cur[part]
            while isinstance(cur, dict) and "$ref" in cur and "properties" not in cur:
                cur = resolve(cur["$ref"])
        if isinstance(cur, dict) and "properties" not in cur:
            for key in ("items", "additionalProperties"):
                if isinstance(cur.get(key), dict):
                    return resolve_obj(cur[key])
        return cur

    def resolve_obj(o):
        while "$ref" in o and "properties" not in o:
            o = resolve(o["$ref"])
        return o
    n, bad = 0, []
    parts = re.split(r"<!-- schema: (\S+) -->", text)
    for ptr, body in zip(parts[1::2], parts[2::2]):
        body = re.split(r"^#{1,6} ", body, flags=re.M)[0]
        n += 1
        want = set(resolve(ptr).get("properties", {}))
        have = set(re.findall(r"^\|\s*`([^`]+)`", body, re.M))
        bad += [f"result-format.md ({ptr}): `{k}` is in the schema but not documented" for k in sorted(want - have)]
        bad += [f"result-format.md ({ptr}): `{k}` is documented but not in the schema" for k in sorted(have - want)]
    if n == 0:
        bad.append("result-format.md has no schema-checked table")
    return n, bad


def report(what, result):
    n, bad = result
    print(f"# {what}: {n}")
    assert n > 0, f"no {what}"
    assert not bad, "\n".join(bad)


@test
def every_sh_command_runs_and_exits_as_its_page_says():
    report("commands run", run_commands(ROOT))


@test
def every_relative_link_and_anchor_resolves():
    report("links checked", check_links(ROOT))


@test
def every_quoted_number_equals_its_file():
    report("values checked", check_quoted(ROOT))


@test
def usage_lists_exactly_the_options_of_help():
    report("options checked", check_options(ROOT))


@test
def each_tools_page_lists_exactly_the_options_of_its_help():
    report("tool options checked", check_tool_options(ROOT))


@test
def result_format_documents_exactly_the_schemas_fields():
    report("schema objects checked", check_schema(ROOT))


def planted(name, edit):
    """A copy of the docs (README.md and docs/; the rest linked) with one edit(root) applied."""
    root = os.path.join(TMP, name)
    os.makedirs(root)
    for e in os.listdir(ROOT):
        if e in ("README.md", "docs"):
            (shutil.copytree if e == "docs" else shutil.copy)(os.path.join(ROOT, e), os.path.join(root, e))
        elif e != ".git":
            os.symlink(os.path.join(ROOT, e), os.path.join(root, e))
    edit(root)
    return root


def append(root, page, text):
    with open(os.path.join(root, page), "a", encoding="utf-8") as f:
        f.write(text)


def replace(root, page, old, new):
    path = os.path.join(root, page)
    text = open(path, encoding="utf-8").read()
    assert old in text, f"{old!r} not in {page}"
    open(path, "w", encoding="utf-8").write(text.replace(old, new, 1))


def fails_with(result, needle):
    n, bad = result
    assert any(needle in b for b in bad), f"the planted fault was not reported ({n} checked): {bad}"
    print("#   caught: " + [b for b in bad if needle in b][0].replace("\n", " ")[:300])


@test
def a_planted_broken_link_and_anchor_fail():
    root = planted("link", lambda r: append(r, "docs/usage.md", "\nSee [gone](measurment.md) and "
                                            "[the exit](#exit-statuss).\n"))
    fails_with(check_links(root), "measurment.md: no such file")
    fails_with(check_links(root), "no heading #exit-statuss")


@test
def a_planted_stale_option_fails():
    def edit(r):
        replace(r, "docs/usage.md", "| `--cold` |", "| `--cold-l2` |")
    root = planted("option", edit)
    fails_with(check_options(root), "--cold-l2 is in docs/usage.md's option table but not in smembench --help")
    fails_with(check_options(root), "--cold is in smembench --help but not in docs/usage.md")
    root = planted("tool-option", lambda r: replace(r, "docs/fleet.md", "| `--markdown` |", "| `--md` |"))
    fails_with(check_tool_options(root), "--md is in docs/fleet.md's option table but not in fleet.py --help")


@test
def a_planted_wrong_number_fails():
    def edit(r):
        replace(r, "docs/sweeps/bandwidth-latency.md", "**23.0 cycles**", "**22.0 cycles**")
        replace(r, "docs/quoted.tsv", "**{23.0} cycles**", "**{22.0} cycles**")
    root = planted("number", edit)
    fails_with(check_quoted(root), "is 23.00")


@test
def a_planted_wrong_exit_status_fails():
    if DRIVER is None:
        raise tap.Skip("no driver given")
    root = planted("exit", lambda r: append(r, "docs/planted.md", "# Planted\n\n```sh\nsmembench --axis nope=1 --sweep carveout\n```\n"))
    n, bad = run_commands(root, only="docs/planted.md")
    fails_with((n, bad), "exited 2, the page says 0")


@test
def a_planted_undocumented_field_fails():
    root = planted("schema", lambda r: replace(r, "docs/result-format.md", "| `verified` |", "| `verifed` |"))
    fails_with(check_schema(root), "`verified` is in the schema but not documented")


def main():
    return tap.run(lambda: shutil.rmtree(TMP, ignore_errors=True))


if __name__ == "__main__":
    sys.exit(main())
